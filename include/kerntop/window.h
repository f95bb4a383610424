/* Rolling window: the last N seconds of hits as a ring of time slices, each a compact log of
 * its samples (location, stack, CPU, task, context), with narrow totals by (location,
 * context) kept incrementally (add on ingest, subtract when a slice expires), plus since-start
 * totals so cumulative mode can be toggled at any time.
 * Also interns tasks and call stacks. It knows ids only: it never calls the symbolizer,
 * the aggregator or the UI. Memory is bounded by the samples in the window (16 bytes each)
 * and the since-start tuples (docs/report-format.md, "Memory"): tasks that left the window
 * are merged, in the since-start totals, into one row per command name. */
#ifndef KERNTOP_WINDOW_H
#define KERNTOP_WINDOW_H

#include <stddef.h>
#include <stdint.h>

struct kt_window;

struct kt_window_opts {
	uint64_t span_ns;   /* window length */
	uint64_t slice_ns;  /* slice length (the refresh delay or finer) */
	int cumulative;     /* start in cumulative mode */
	/* Cap on distinct tuples kept in the since-start totals (0: KT_WINDOW_CUM_MAX). Past it,
	 * new tuples are counted there without stack and task (task "[other]"), so a long
	 * cumulative run stays bounded by locations x CPUs. The rolling totals never fold. */
	uint32_t max_cum_tuples;
	/* Tasks kept after they left the rolling window (0: KT_WINDOW_IDLE_TASKS, or half as many
	 * as the window holds tasks with hits when that is more, taken at each slice). Past it,
	 * the longest-gone half is retired: its since-start counts move to a per-command
	 * group task and its id is reused. */
	uint32_t max_idle_tasks;
	/* Call stacks kept in the since-start totals after they left the rolling window (0:
	 * KT_WINDOW_IDLE_STACKS, or half as many as the window references when that is more,
	 * taken at each slice). Past it, the longest-gone half is dropped there: those hits
	 * stay counted for their location, without their chain. */
	uint32_t max_idle_stacks;
	/* Keep no since-start totals (a caller that never turns cumulative mode on: batch
	 * reports): expired slices are only subtracted. Ignored when cumulative is set. */
	int no_since_start;
};

#define KT_WINDOW_CUM_MAX (1u << 21)
#define KT_WINDOW_IDLE_TASKS 1024u
#define KT_WINDOW_IDLE_STACKS 4096u
/* Distinct command names with a group task; later ones are merged into "[other]". */
#define KT_WINDOW_GROUPS 256u
/* Names of retired tasks remembered, so a task that comes back is not nameless. */
#define KT_WINDOW_NAMES 4096u

/* One aggregated count. stack is 0 when no call chain was sampled; ctx is the execution
 * context the sample was classified into at ingest (an opaque id here: the symbolizer's
 * context ids, 0 when unknown). */
struct kt_hit {
	uint32_t loc;
	uint32_t stack;
	uint32_t cpu;
	uint32_t task;
	uint32_t ctx;
	uint64_t hits;
};

struct kt_task {
	int32_t pid, tid;   /* a group: pid -1, tid -1 for "[other]", below -1 for the others */
	const char *comm;   /* "" until known; owned by the window; a group's command name */
	uint32_t folded;    /* a group: tasks merged into it; 0 for a real task */
};

int kt_window_new(const struct kt_window_opts *o, struct kt_window **out);
void kt_window_free(struct kt_window *w);

/* Interns the task a sample ran in; ids are dense from 0. */
uint32_t kt_window_task(struct kt_window *w, int32_t pid, int32_t tid);
/* Hints: the task (pid, tid), or a sample at location loc, will be added soon: their lines
 * are fetched now (the task's index line, or with fetched, the task's entry it points to). */
void kt_window_task_prefetch(const struct kt_window *w, int32_t pid, int32_t tid, int fetched);
void kt_window_loc_prefetch(const struct kt_window *w, uint32_t loc);
/* Records a task's name (PERF_RECORD_COMM or /proc/PID/comm). */
void kt_window_comm(struct kt_window *w, int32_t pid, int32_t tid, const char *comm);
/* Tasks known now (real and groups); ids of retired tasks are reused. */
uint32_t kt_window_ntasks(const struct kt_window *w);
/* The task behind an id; NULL for an unknown or retired id. */
const struct kt_task *kt_window_task_info(const struct kt_window *w, uint32_t task);
/* The id of a known task without interning it; UINT32_MAX when it is not (or no longer) known. */
uint32_t kt_window_task_find(const struct kt_window *w, int32_t pid, int32_t tid);

/* Interns a call stack of location ids (leaf first); returns its id, 0 for n == 0. */
uint32_t kt_window_stack(struct kt_window *w, const uint32_t *locs, uint32_t n);
/* A cache in front of kt_window_stack for sampled chains: the stack a chain of raw addresses
 * frames[0, n) was interned as, known by its leaf's location and its callers' addresses (the
 * leaf's own address varies with the instruction sampled, its callers' return addresses do
 * not). kt_window_stack_cached returns that stack, or 0 and *slot to pass to
 * kt_window_stack_cache_put once the caller has resolved the frames and interned the stack
 * itself. A stack freed since is never returned. Chains of 2 to KT_WINDOW_CHAIN_DEPTH frames
 * are kept; for others (and before the cache could be allocated) *slot is UINT32_MAX. */
#define KT_WINDOW_CHAIN_DEPTH 32
uint32_t kt_window_stack_cached(struct kt_window *w, const uint64_t *frames, uint32_t n,
				uint32_t leaf, uint32_t *slot);
void kt_window_stack_cache_put(struct kt_window *w, uint32_t slot, const uint64_t *frames,
			       uint32_t n, uint32_t leaf, uint32_t stack);
/* The same lookup in steps, for a caller that overlaps the cache misses of several chains:
 * the chain's key (made once; meaningful for 2 to KT_WINDOW_CHAIN_DEPTH frames), a hint that
 * fetches its slot's line (fetched 1: the line of the stack the slot names; 2: the lines of
 * that stack's rolling totals, which the stack's line names), and the lookup by the key. */
struct kt_chain_key {
	uint64_t hash, check;
};
struct kt_chain_key kt_window_chain_key(const uint64_t *frames, uint32_t n, uint32_t leaf);
void kt_window_chain_prefetch(const struct kt_window *w, const struct kt_chain_key *k,
			      int fetched);
uint32_t kt_window_stack_cached_key(struct kt_window *w, const struct kt_chain_key *k,
				    uint32_t n, uint32_t leaf, uint32_t *slot);
/* A caller's value cached per stack and per task (the context a stack or a kernel thread's
 * command classifies into): 0 until set; a reused id starts at 0 again, and so does a task
 * whose command changes. Setting an invalid id does nothing. A stack has KT_STACK_TAGS
 * tags, one per user: the context (main.c), the function path (the aggregator). */
enum { KT_STACK_TAG_CTX, KT_STACK_TAG_PATH, KT_STACK_TAGS };
uint32_t kt_window_stack_tag(const struct kt_window *w, uint32_t stack, unsigned which);
void kt_window_stack_set_tag(struct kt_window *w, uint32_t stack, unsigned which, uint32_t tag);
/* A stack's first frame (its leaf location) without reading its frames; 0 for no stack. */
uint32_t kt_window_stack_leaf(const struct kt_window *w, uint32_t stack);
/* Hint: stack's leaf and tags will be read soon (their line is fetched now). */
void kt_window_stack_prefetch(const struct kt_window *w, uint32_t stack);
/* Sets tag `which` of every stack back to 0. */
void kt_window_stack_clear_tags(struct kt_window *w, unsigned which);
uint32_t kt_window_task_tag(const struct kt_window *w, uint32_t task);
void kt_window_task_set_tag(struct kt_window *w, uint32_t task, uint32_t tag);
/* Frames of a stack id (leaf first); NULL and *n = 0 for id 0 or an expired id. */
const uint32_t *kt_window_stack_frames(const struct kt_window *w, uint32_t stack, uint32_t *n);

/* Ingest: count hits at time_ns (source clock). A time past the newest slice advances the
 * window first (so a replay at full speed moves it along the recorded clock); a time
 * before the newest slice counts in the newest slice. */
void kt_window_add(struct kt_window *w, uint64_t time_ns, uint32_t loc, uint32_t stack,
		   uint32_t cpu, uint32_t task, uint64_t count);
/* The same with the hit's context (kt_window_add counts context 0). */
void kt_window_add_ctx(struct kt_window *w, uint64_t time_ns, uint32_t loc, uint32_t stack,
		       uint32_t cpu, uint32_t task, uint32_t ctx, uint64_t count);
void kt_window_add_lost(struct kt_window *w, uint64_t time_ns, uint32_t cpu, uint64_t count);

/* Moves the window's end to now_ns, expiring slices older than the span. */
void kt_window_advance(struct kt_window *w, uint64_t now_ns);

/* One observer of the slices leaving the window (NULL: none): fn is called with the hits of
 * a slice as it expires, n at a time in the order of its logs (slice: its number, as
 * kt_window_newest counts them), then once with n 0 when the slice is done, before its logs
 * are cleared. The CPU view's running sums take a slice out through it (agg_cputop.c). */
typedef void (*kt_window_expire_fn)(void *ctx, uint64_t slice, const struct kt_hit *h, size_t n);
void kt_window_set_expire_hook(struct kt_window *w, kt_window_expire_fn fn, void *ctx);
/* One observer of the window moving on (NULL: none): fn is called once the newest slice has
 * moved to a later one (the slices before it complete, the oldest expired), the window
 * consistent again. The CPU view's running sums take a completed slice in through it. */
typedef void (*kt_window_move_fn)(void *ctx);
void kt_window_set_move_hook(struct kt_window *w, kt_window_move_fn fn, void *ctx);
void kt_window_set_span(struct kt_window *w, uint64_t span_ns);
uint64_t kt_window_span(const struct kt_window *w);
void kt_window_set_cumulative(struct kt_window *w, int on);
int kt_window_cumulative(const struct kt_window *w);

/* The current totals (window or since start, per the mode): a dense array of non-zero
 * counts, valid until the next add/advance/mode change. */
const struct kt_hit *kt_window_hits(const struct kt_window *w, size_t *n);
/* The rolling totals in place, without the dense copy: n entries stride bytes apart, those
 * with hits == 0 free, in kt_window_hits's order; NULL in cumulative mode (use
 * kt_window_hits). Materialized from the slices' logs when the window changed: a pass over
 * every sample of the window. Valid until the next add/advance/mode change. */
const struct kt_hit *kt_window_tuples(const struct kt_window *w, size_t *n, size_t *stride);
/* The narrow rolling totals in place, kept incrementally: (location, context) with stack 1
 * when the hits had a chain (0 when not), CPU and task 0; n entries stride bytes apart, those
 * with hits == 0 free. In cumulative mode the same since start (the since-start tuples
 * summed by those keys, kept from the first call on; window_since.c), NULL when they could
 * not be made. Valid until the next add/advance/mode change. */
const struct kt_hit *kt_window_narrow(const struct kt_window *w, size_t *n, size_t *stride);
/* The rolling totals of the hits that had a chain, by (location, stack, context) (CPU and
 * task 0): with kt_window_narrow's entries of stack 0 they are the window's hits by
 * (location, stack, context), distinct keys. Made from the slices' logs when first asked for,
 * then kept incrementally like the narrow ones (a window nobody asks keeps none). *out: n
 * entries stride bytes apart, hits == 0 free. 0, or -EINVAL in cumulative mode, -ENOMEM when
 * they could not be made. Valid as kt_window_narrow. */
int kt_window_narrow_stacks(const struct kt_window *w, const struct kt_hit **out, size_t *n,
			    size_t *stride);
/* The newest complete slice's chained hits by (location, stack, context), distinct keys, as
 * kt_window_slice_locs gives its hits by location, in *out (*n of them): 0, or -ENOENT when
 * slice is not that one or the stacks' totals were not kept all through it. */
struct kt_window_stkent {
	uint32_t loc, stack, ctx, hits;
};
int kt_window_slice_stacks(const struct kt_window *w, uint64_t slice,
			   const struct kt_window_stkent **out, uint32_t *n);
/* A caller that will ask for them at every refresh (batch reports with chains) has them kept
 * from now on, as the samples come, instead of made from every log at the first asking. */
void kt_window_keep_stacks(struct kt_window *w);
/* The hits of complete slice `slice` by (location, context, chain or not), distinct keys,
 * each count saturating at 2^32 - 1: kept for the newest complete slice only, made from the
 * narrow totals as it completed. NULL when it is not that slice (or was not kept). */
struct kt_window_locent {
	uint32_t loc, hits;
	uint32_t ctx : 31; /* context ids are interned, dense: far below 2^31 */
	uint32_t chain : 1;
};
const struct kt_window_locent *kt_window_slice_locs(const struct kt_window *w, uint64_t slice,
						    uint32_t *n);
/* The samples of the rolling window, or of one slice, read in order as hits (a hit per
 * sample, or per kt_window_add call with its count: keys repeat). A cursor is valid until
 * the next add/advance/span change. */
struct kt_window_cursor {
	uint64_t slice, last;
	uint32_t log, log_first, log_end, pos;
	int done;
};
/* Every slice of the rolling window, the open one too. */
void kt_window_cursor_rolling(const struct kt_window *w, struct kt_window_cursor *c);
/* The complete slice age slices before the open one (1 = the newest complete slice); empty
 * past kt_window_slices_done. */
void kt_window_cursor_slice(const struct kt_window *w, uint32_t age, struct kt_window_cursor *c);
/* The newest complete slice kt_window_recent hands out (the open one before any is complete),
 * read from its log with its length; -1 when only kt_window_recent has it (a copy). */
int kt_window_cursor_recent(const struct kt_window *w, struct kt_window_cursor *c,
			    uint64_t *len_ns);
/* The samples are logged by CPU: a reader that merges one log at a time keeps a small table
 * (a CPU's distinct keys, not the machine's). Logs are numbered below kt_window_logs; log
 * CPU + 1 holds one CPU's samples, log 0 those of CPUs past 8191. */
uint32_t kt_window_logs(const struct kt_window *w);
/* Restricts a fresh cursor to one log. */
void kt_window_cursor_log(struct kt_window_cursor *c, uint32_t log);
/* Fills buf with up to max hits from the cursor; 0 at the end. */
size_t kt_window_read(const struct kt_window *w, struct kt_window_cursor *c, struct kt_hit *buf,
		      size_t max);
/* The since-start totals of the slices that left the window, by log as the window's samples
 * (cumulative mode counts them and the rolling window's): a cursor over log LOG's records
 * (every log's with UINT32_MAX), read like kt_window_read; a key may come twice (a record in
 * each of its log's two runs: readers sum). logs: how many logs they have records in. */
struct kt_window_cumcur {
	uint32_t li, li_end, run, pos;
};
void kt_window_cum_cursor(const struct kt_window *w, uint32_t log, struct kt_window_cumcur *c);
size_t kt_window_cum_read(const struct kt_window *w, struct kt_window_cumcur *c,
			  struct kt_hit *buf, size_t max);
uint32_t kt_window_cum_logs(const struct kt_window *w);
/* Hits and lost samples of the current totals. */
uint64_t kt_window_total(const struct kt_window *w);
uint64_t kt_window_lost(const struct kt_window *w);
/* Time the current totals cover in ns (min(span, elapsed) or elapsed since start). */
uint64_t kt_window_covered(const struct kt_window *w);
/* Hits of the newest complete slice and its length: the "now" rate for sorting by rate. */
const struct kt_hit *kt_window_recent(const struct kt_window *w, size_t *n, uint64_t *len_ns);

/* Allocations that failed in the window (a hit, stack, task or name it could not hold): the
 * totals then miss something, so the caller must not report them as they are. */
uint64_t kt_window_nomem(const struct kt_window *w);

/* The trend (per-slice counts, docs/history.md): the complete slices of the rolling window
 * (the open newest slice is not one), read with kt_window_cursor_slice. At most the span's
 * slices minus the open one. */
uint32_t kt_window_slices_done(const struct kt_window *w);
/* The open slice's number (slices are numbered from the first sample's, 0): complete slices
 * have smaller numbers, and a complete slice's samples never change. */
uint64_t kt_window_newest(const struct kt_window *w);

/* Bytes held by the window (slices, tuple tables, stacks, tasks): the memory-bound check. */
size_t kt_window_mem(const struct kt_window *w);
/* Live interned stacks (referenced by a slice or by the since-start totals). */
uint32_t kt_window_nstacks(const struct kt_window *w);
/* Distinct (location, stack, CPU, task) tuples in the since-start totals. */
uint32_t kt_window_ncum(const struct kt_window *w);
/* A number that changes whenever the hits kt_window_hits or kt_window_recent hand out may
 * have changed (an add, an advance, a mode or span change, a retirement): a reader that
 * derives tables from them rebuilds only when it moved. */
uint64_t kt_window_gen(const struct kt_window *w);
/* Slice length in ns, and the source time of the newest sample or advance. */
uint64_t kt_window_slice(const struct kt_window *w);
uint64_t kt_window_end(const struct kt_window *w);
/* How far source time t is into its slice (t - the slice's start), in ns; -1 before the
 * window has started (its slices are then not placed yet). */
int kt_window_slice_phase(const struct kt_window *w, uint64_t t, uint64_t *phase);

/* Stack ids: a stack returned by kt_window_stack stays valid at least until the next
 * kt_window_stack or kt_window_advance call, and for as long as any hit (in the rolling or
 * the since-start totals) references it; then its id is reused.
 * Task ids: valid until the next kt_window_add or kt_window_advance once the task has no hit
 * in the rolling window; a caller that keeps one longer (a filter) keeps pid and tid too and
 * checks them with kt_window_task_info / kt_window_task_find. Group ids never change. */

/* Exact-address hits for annotate (window_addr.c): counted since start over every CPU and
 * task, beside the tuples (which keep one location per --bucket slice). At most
 * KT_WINDOW_ADDR_MAX distinct addresses; hits on new ones past it are not counted there. */
#define KT_WINDOW_ADDR_MAX (1u << 20)
void kt_window_addr_add(struct kt_window *w, uint64_t addr, uint64_t hits);
/* Single hits wait in a short log, taken in by the reads below, by a slice leaving the window
 * or here. */
void kt_window_addr_flush(struct kt_window *w);
uint64_t kt_window_addr_hits(struct kt_window *w, uint64_t addr);
/* The hits of every address in [lo, hi). */
uint64_t kt_window_addr_range(struct kt_window *w, uint64_t lo, uint64_t hi);

#endif
