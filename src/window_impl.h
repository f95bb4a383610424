/* The window's private state, shared by window.c (slices, totals) and window_intern.c
 * (tasks and stacks). Nothing outside the window layer includes it. */
#ifndef KERNTOP_WINDOW_IMPL_H
#define KERNTOP_WINDOW_IMPL_H

#include <string.h>

#include "kerntop/util.h"
#include "kerntop/window.h"
#include "util_idx.h"

/* A slice's log is an array of 8-byte units, appended at ingest without hashing. A sample
 * without a call chain whose location, task and context ids fit (nearly every one of a run
 * without -g) takes one unit, a compact record: bit 63 set, the location in bits 0-23, the
 * task in 24-43, the context in 44-49 and the count - 1 in 50-62 (at most WREC_COMPACT_MAX).
 * Any other sample takes a struct wrec (two units; its stack id is below 2^31, so bit 63 of
 * its first unit is clear). A wrec whose cpu is WREC_WIDE is followed by a struct wrec_wide
 * with the CPU, context and count (a count other than 1, or a CPU or context id that does not
 * fit 16 bits): four units. In the other records the CPU is the log's and the count field
 * holds the count - 1: 0 as appended, more once a sample of the same key is merged into it
 * (window_logidx.c), at most WREC_NARROW_MAX (WREC_COMPACT_MAX in a compact record). Units
 * are read and written with memcpy. */
#define WREC_COMPACT (1ull << 63)
#define WREC_TASK_SHIFT 24
#define WREC_CTX_SHIFT 44
#define WREC_CNT_SHIFT 50
#define WREC_COMPACT_MAX 0x1fffu
#define WREC_FITS(loc, stack, task, ctx)                                                  \
	(!(stack) && (loc) < (1u << WREC_TASK_SHIFT) && (task) < (1u << 20) && (ctx) < 64u)
struct wrec {
	uint32_t loc, stack, task;
	uint16_t cpu, ctx;
};
#define WREC_WIDE 0xffffu
#define WREC_NARROW_MAX 0xfffeu
struct wrec_wide {
	uint32_t cpu, ctx;
	uint64_t count;
};
_Static_assert(sizeof(struct wrec) == 16 && sizeof(struct wrec_wide) == 16, "two units each");

/* The samples of a slice are logged by CPU, so a reader can merge one CPU at a time in a
 * small table: log 0 holds CPUs from WLOG_CPUS on (their CPU in a wide record), log i + 1
 * CPU i, where the record's cpu field is 0 (or WREC_WIDE). */
#define WLOG_CPUS 8192u
struct wlog {
	uint64_t *u;
	uint32_t n, cap; /* units */
};

/* Decodes the record at unit i of log li into h (hits = its count); returns its units. */
static inline uint32_t wlog_decode(const struct wlog *l, uint32_t li, uint32_t i, struct kt_hit *h)
{
	uint64_t u;
	struct wrec r;

	memcpy(&u, &l->u[i], sizeof(u));
	if (u & WREC_COMPACT) {
		h->loc = (uint32_t)(u & ((1u << WREC_TASK_SHIFT) - 1));
		h->task = (uint32_t)(u >> WREC_TASK_SHIFT) & ((1u << 20) - 1);
		h->ctx = (uint32_t)(u >> WREC_CTX_SHIFT) & 63u;
		h->hits = ((u >> WREC_CNT_SHIFT) & WREC_COMPACT_MAX) + 1;
		h->stack = 0;
		h->cpu = li - 1;
		return 1;
	}
	memcpy(&r, &l->u[i], sizeof(r));
	h->loc = r.loc;
	h->stack = r.stack;
	h->task = r.task;
	if (r.cpu != WREC_WIDE) {
		h->cpu = li - 1;
		h->ctx = r.ctx;
		h->hits = (uint64_t)r.cpu + 1;
		return 2;
	}
	{
		struct wrec_wide x;

		memcpy(&x, &l->u[i + 2], sizeof(x));
		h->cpu = x.cpu;
		h->ctx = x.ctx;
		h->hits = x.count;
	}
	return 4;
}

/* The units of h's record in log li: the narrowest form that holds it (1: compact, 2: a
 * wrec, 4: a wide one), or the wide one when wide is set. */
static inline uint32_t wlog_units(uint32_t li, const struct kt_hit *h, int wide)
{
	if (wide || !li || h->ctx >= WREC_WIDE || !h->hits || h->hits - 1 > WREC_NARROW_MAX)
		return 4;
	return WREC_FITS(h->loc, h->stack, h->task, h->ctx) && h->hits - 1 <= WREC_COMPACT_MAX ? 1
												: 2;
}

/* Encodes h as a record of log li at at (room for its units); returns them (wlog_units). */
static inline uint32_t wlog_encode(uint64_t *at, uint32_t li, const struct kt_hit *h, int wide)
{
	uint32_t units = wlog_units(li, h, wide);

	wide = units == 4;
	if (units == 1) {
		uint64_t u = WREC_COMPACT | h->loc | (uint64_t)h->task << WREC_TASK_SHIFT |
			     (uint64_t)h->ctx << WREC_CTX_SHIFT |
			     (h->hits - 1) << WREC_CNT_SHIFT;

		memcpy(at, &u, sizeof(u));
		return 1;
	}
	{
		struct wrec r = {h->loc, h->stack, h->task,
				 wide ? WREC_WIDE : (uint16_t)(h->hits - 1),
				 wide ? 0 : (uint16_t)h->ctx};

		memcpy(at, &r, sizeof(r));
	}
	if (wide) {
		struct wrec_wide x = {h->cpu, h->ctx, h->hits};

		memcpy(at + 2, &x, sizeof(x));
	}
	return units;
}

/* An index of the newest slice's records of one log: slot = record + 1, 0 empty. */
struct wlogidx {
	uint32_t *slot;
	uint32_t mask;
	uint64_t slice; /* newest + 1 when the index was made: another slice's is stale */
	uint32_t seen, merged; /* samples of the last measured slice, and how many merged */
	int off;	       /* this slice is appended unmerged (few repeats last time) */
};

struct slice {
	struct wlog *log;
	uint32_t nlog; /* logs allocated (zeroed when new) */
	uint64_t hits, lost;
	uint64_t no; /* its slice number + 1; 0 before it is the newest and after it expires */
};

/* An entry of a hash-indexed table of hits (the narrow rolling totals, the materialized
 * tuples): h.hits == 0 marks a free entry, next links the free ones. */
struct wtuple {
	struct kt_hit h;
	uint32_t hash;
	union {
		uint32_t next; /* a free entry: the next free one (id + 1) */
		uint32_t open; /* a live narrow entry: its hits in the open slice (saturating) */
	};
};

/* A table of hits keyed by (location, stack, CPU, task, context), entries reused. */
struct wtable {
	struct wtuple *t;
	uint32_t n, cap, free, live;
	struct kt_idx idx;
};

/* 64 bytes: no padding (the 8-byte fields first) */
struct wstack {
	uint32_t *frames; /* NULL when free */
	uint64_t stamp; /* when only the since-start totals were left holding it */
	uint32_t n;
	uint32_t hash;
	uint32_t ref;  /* tuples (rolling and since-start) holding it */
	uint32_t rref; /* of which rolling */
	uint32_t next; /* free list, or pending-reclaim list */
	uint32_t tag[KT_STACK_TAGS]; /* kt_window_stack_tag */
	uint32_t nars;	/* an entry of it in the stacks' totals (id + 1), checked before use */
	uint32_t nar;	/* the same in the narrow totals (its leaf's chained hits in its context) */
	uint32_t serial; /* unique among the stacks interned so far (chain cache check) */
	uint32_t leaf;	 /* frames[0], beside the tags that are read with it */
	uint8_t pending;
	uint8_t drop;  /* being retired: the since-start totals let go of it */
};
_Static_assert(sizeof(struct wstack) <= 64, "a stack's entry fits a cache line's size");

enum { WTASK_FREE, WTASK_LIVE, WTASK_GROUP };

/* What each sample reads (the pid and tid its lookup compares, the references, the context
 * tag, the state) comes first and the array is 64-byte aligned with 128-byte entries
 * (task_slot), so that they are one cache line: spread over two, on a 256-CPU replay the
 * tasks' two misses a sample were a tenth of its CPU. */
struct wtask {
	struct kt_task pub;
	uint32_t ref; /* rolling tuples of this task */
	uint32_t tag; /* kt_window_task_tag */
	uint8_t state;
	uint32_t next;	/* free list (id + 1) */
	uint64_t stamp; /* when it was last left without rolling hits (retirement order) */
	char comm[48];	/* a group: "NAME [N tasks]" */
	char base[16];	/* a group: NAME, the command its members had */
	char pad[16];	/* to 128 bytes */
};
_Static_assert(sizeof(struct wtask) == 128, "two cache lines, the sample's fields in the first");

/* A retired task's name, so that it is not lost when the task is sampled again. */
struct wname {
	int32_t pid, tid;
	char comm[16];
};

struct addr_hits;

/* An entry of a big since-start run's index: the location, stack and task of every
 * CUM_IX_STEP-th record, and its unit. */
struct cumix {
	uint32_t loc, stack, task, pos;
};

/* The since-start totals' second level of a log index (window_cum.c): the small run the
 * expiring slices merge into, and the big run's index. */
struct cumlv {
	struct wlog del;
	struct cumix *ix;
	uint32_t nix, ixcap;
	/* a filter of the big run's keys with a stack or a task of their own: a key it does not
	 * have is not in the run (one 64-bit word a key picks, three bits of it set; about 8
	 * bits a key); nbloom words, a power of two, 0: none */
	uint64_t *bloom;
	uint32_t nbloom;
	uint32_t nbig, ndel; /* records of the big run and of del */
	uint32_t nown;	     /* the big run's records not of the folded shape */
	int indexed;	     /* ix, bloom and nown are the big run's (made once past the cap) */
};

/* The entries of a table with hits in the open slice (their open counts), listed as each is
 * first hit: lost, one could not be listed (out of memory), so no table of the slice. */
struct wopen {
	uint32_t *id;
	uint32_t n, cap;
	int lost;
};

/* A record without a stack, of one CPU, packed in one 64-bit key of the same order as
 * kt_cum_key_cmp's (location, task, context) when its task and context fit, with its hits. */
struct cum_packed {
	uint64_t key, hits;
};

/* The same with a stack (window_cum_sort.c): the location and stack in hi, the task and
 * context in lo, hits under 2^32; as big as a cum_packed, so that it uses the same arrays. */
struct cum_packed_stk {
	uint64_t hi;
	uint32_t lo, hits;
};
_Static_assert(sizeof(struct cum_packed_stk) == sizeof(struct cum_packed), "one array for both");

struct kt_window {
	struct addr_hits *addr; /* exact-address hits (window_addr.c), NULL until the first */
	uint64_t span_ns, slice_ns;
	int cumulative;
	uint32_t max_cum;

	/* time: slice k covers [origin + k*slice, origin + (k+1)*slice) */
	int started;
	uint64_t origin, end;
	uint64_t newest;    /* slice number of the newest slice */
	uint32_t nslices;   /* slices the rolling totals span */
	uint32_t nlog;	    /* the most logs a slice has */
	struct slice *ring; /* nslices entries, slot k % nslices */
	kt_window_expire_fn on_expire; /* told of each hit of a slice as it leaves */
	void *on_expire_ctx;
	kt_window_move_fn on_move; /* told when the newest slice has moved on */
	void *on_move_ctx;

	/* rolling totals: the narrow ones, (location, context, whether a chain was sampled), kept
	 * incrementally; the full tuples are materialized from the slices' logs on demand */
	struct wtable nar;
	uint32_t *narloc; /* per location: a narrow entry of it (id + 1), checked before use */
	uint32_t narloccap;
	/* the narrow entries with hits in the open slice; as it completes, their open counts
	 * become the newest complete slice's hits by location (kt_window_slice_locs): a refresh
	 * need not read that slice's samples again to learn them */
	struct wopen opened;
	struct kt_window_locent *last;
	uint32_t nlast, lastcap;
	uint64_t last_no; /* slice number + 1 of last; 0: none */
	/* the rolling totals of chained hits by (location, stack, context): the stacks views'
	 * projection without a pass over the window's samples; kept once asked for (nars_on) */
	struct wtable nars;
	int nars_on;
	/* their entries with hits in the open slice, and as it completes their open counts:
	 * the newest complete slice's chained hits (kt_window_slice_stacks), as for the narrow
	 * ones; complete for the slices from snars_from on (kept from the middle of one) */
	struct wopen sopened;
	struct kt_window_stkent *slast;
	uint32_t nslast, slastcap;
	uint64_t slast_no, snars_from;
	struct wtable full;
	uint64_t full_gen; /* gen + 1 of the materialized tuples; 0 = stale */
	uint64_t total, lost;
	int no_cum; /* no since-start totals (kt_window_opts.no_since_start) */

	/* since-start totals of the expired slices (window_cum.c): never shrink (folded past
	 * max_cum); the since-start view adds the rolling totals on top. Per log index a big
	 * sorted run of records (cumrun) with an index, and a small one (cumlv's) the expiring
	 * slices merge into until it is worth merging into the big one; ncum records in all
	 * (a key may have one in each); scratch: decoded records, a merged run */
	struct wlog *cumrun;
	struct cumlv *cumlv; /* ncumrun entries */
	uint32_t ncumrun, ncum;
	struct kt_hit *cumtmp, *cumtmp2;
	uint32_t cumtmpcap, cumtmp2cap;
	struct cum_packed *cumpk; /* 2 x cumpkcap: the packed sort's arrays (window_cum.c) */
	uint32_t cumpkcap;
	uint64_t *cumscr;
	uint32_t cumscrcap;
	uint32_t *cumq; /* past the cap: the keys to look up in a big run, and where */
	uint32_t cumqcap;
	uint64_t base_total, base_lost;
	uint32_t other_task; /* group "[other]"; UINT32_MAX until first needed */
	/* the runs' records summed by (location, chain or not, context), kept once the
	 * since-start view has asked for them (cnar_on; window_since.c), and the same plus the
	 * rolling narrow totals, made once per generation (cnout_gen: gen + 1) */
	struct wtable cnar, cnout;
	int cnar_on;
	uint64_t cnout_gen;

	/* dense copies handed out by kt_window_hits / kt_window_recent */
	struct kt_hit *out;
	uint32_t nout, outcap;
	int out_dirty;
	uint64_t gen; /* kt_window_gen: bumped whenever out_dirty is set */
	int out_cum; /* out[] holds the since-start merge */
	struct kt_hit *recent;
	uint32_t nrecent, recentcap;
	uint64_t recent_len;
	uint64_t recent_slice; /* slice number the recent copy is still to be made of, + 1 */
	struct kt_idx recentidx;

	/* stacks */
	struct wstack *stk; /* id 0 is reserved for "no stack" */
	uint32_t nstk, stkcap, stkfree, stklive, stkpending;
	uint32_t stkserial;    /* the last serial given to an interned stack */
	struct chain_slot *chains; /* kt_window_stack_cached: nchains, NULL until the first */
	uint32_t nchains, maxchains; /* slots, and the most they may grow to (0: not made yet) */
	uint32_t stkidle, max_idle_stk; /* stacks only the since-start totals hold, and the cap */
	/* the caps were not given: they follow the window (kt_window_retire_caps) */
	uint8_t idle_scale, idle_scale_stk;
	struct kt_idx stkidx;
	size_t stkmem;

	/* tasks */
	struct wtask *task;
	uint32_t ntask, taskcap, taskfree, tasklive;
	struct kt_idx taskidx;
	uint32_t max_idle, nidle; /* live tasks without rolling hits, and the cap on them */
	uint64_t stamp; /* retirement order of tasks and stacks */
	/* while a slice expires, the one stamp of everything it lets go: its samples are read
	 * by CPU, not in time order, so what left in one slice leaves together (ties: ids) */
	uint64_t expiring;
	uint32_t group[KT_WINDOW_GROUPS], ngroup;
	struct wname *names; /* ring of KT_WINDOW_NAMES retired names */
	uint32_t namehead;
	struct kt_idx nameidx;
	uint64_t nomem; /* allocations that failed: what they held is missing (kt_window_nomem) */
	struct wlogidx *lidx; /* per log: the newest slice's index (window_logidx.c) */
	uint32_t nlidx;
};

/* window_intern.c: stacks */
/* the chain cache's slots: a power of two from WCHAIN_MIN, doubled while the live stacks are
 * more than half as many, up to WCHAIN_MAX (16 bytes each: 8 MiB) */
#define WCHAIN_MIN 256u
#define WCHAIN_MAX 524288u
#define WCHAIN_WAYS 4u
/* A slot holds the 64-bit hash of the chain's key (kt_window_chain_key, which covers its
 * leaf and length too) instead of its 31 addresses; the key's other half picks the set, four
 * slots on one cache line, so that a lookup reads one line (two chains are taken for one
 * with odds of 2^-62 a lookup when the key is sound, and never two of different leaves or
 * lengths: the stack's are checked). A chain is in any way of its set, the most recently used
 * first (direct-mapped, a 256-CPU replay missed 10 % of its chains, each miss a lookup of
 * every frame's symbol and an interning of the stack; with two ways of 32-byte slots,
 * 4.6 %). */
struct chain_slot {
	uint64_t hash;
	uint32_t stack, serial; /* serial 0: empty (and the set's ways after it) */
};
void kt_window_stack_ref(struct kt_window *w, uint32_t stack, int rolling);
void kt_window_stack_unref(struct kt_window *w, uint32_t stack, int rolling);
void kt_window_stack_reclaim(struct kt_window *w);
void kt_window_stacks_free(struct kt_window *w);
size_t kt_window_stacks_mem(const struct kt_window *w);

/* window_tasks.c */
void kt_window_task_ref(struct kt_window *w, uint32_t task);
void kt_window_task_unref(struct kt_window *w, uint32_t task);
uint32_t kt_window_group(struct kt_window *w, const char *name);
void kt_window_task_free(struct kt_window *w, uint32_t id);
void kt_window_tasks_free(struct kt_window *w);
size_t kt_window_tasks_mem(const struct kt_window *w);

/* window_retire.c: past the caps, retires tasks and stacks only the since-start totals hold */
void kt_window_retire(struct kt_window *w);
void kt_window_retire_caps(struct kt_window *w);

/* window_cum.c: the since-start totals. fold: takes an expiring slice in; remap: re-keys
 * them by task_map (NULL: none) and drops the stacks marked drop, merging what meets; merge:
 * the since-start tuples with the rolling ones t[0, nt) into out (room for ncum + nt) */
void kt_window_cum_fold(struct kt_window *w, const struct slice *s);
void kt_window_cum_remap(struct kt_window *w, const uint32_t *task_map);
size_t kt_window_cum_merge(struct kt_window *w, struct kt_hit *out, const struct kt_hit *t,
			   size_t nt, size_t stride);
size_t kt_window_cum_mem(const struct kt_window *w);
void kt_window_cum_free(struct kt_window *w);
/* Adds every record of the runs to the since-start narrow sums (kt_window_since_add); -1
 * when the runs could not be read (out of memory). */
int kt_window_cum_narrow(struct kt_window *w);

/* window.c: the entry of (loc, stack, ctx) in table t (CPU and task 0), made with no hits
 * when new; UINT32_MAX out of memory. clear: every entry gone. */
uint32_t kt_wtable_entry(struct wtable *t, uint32_t loc, uint32_t stack, uint32_t ctx);
void kt_wtable_clear(struct wtable *t);

/* window_since.c: the since-start narrow totals (location, chain or not, context) without
 * the since-start tuples. add: hits (negative: taken off) of record h's key, when kept;
 * narrow: the runs' sums plus the rolling ones (kept from the first call on), NULL out of
 * memory */
void kt_window_since_add(struct kt_window *w, const struct kt_hit *h, int64_t hits);
const struct kt_hit *kt_window_since_narrow(struct kt_window *w, size_t *n, size_t *stride);
size_t kt_window_since_mem(const struct kt_window *w);
void kt_window_since_free(struct kt_window *w);

/* The order of the since-start runs' keys: location, stack, task, context, CPU. */
static inline int kt_cum_key_cmp(const struct kt_hit *a, const struct kt_hit *b)
{
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	if (a->stack != b->stack)
		return a->stack < b->stack ? -1 : 1;
	if (a->task != b->task)
		return a->task < b->task ? -1 : 1;
	if (a->ctx != b->ctx)
		return a->ctx < b->ctx ? -1 : 1;
	return a->cpu < b->cpu ? -1 : a->cpu > b->cpu;
}

/* window_cum_sort.c: sorts the n records of one scratch array (w->cumtmp or w->cumtmp2) by
 * that order and adds up repeated keys; returns the array that holds them, their number in
 * *n */
struct kt_hit *kt_window_cum_sort_merge(struct kt_window *w, struct kt_hit *h, uint32_t *n);

/* window_logidx.c: 1 when narrow record r was merged into its key's record of log li of the
 * newest slice; else 0 and, when *slotp is set, kt_window_log_added is to be called with it
 * once r is appended */
int kt_window_log_merge(struct kt_window *w, struct wlog *l, uint32_t li, const struct kt_hit *k,
			uint32_t **slotp);
void kt_window_log_added(struct kt_window *w, struct wlog *l, uint32_t li, uint32_t *slot,
			 uint32_t at);
size_t kt_window_logidx_mem(const struct kt_window *w);
void kt_window_logidx_free(struct kt_window *w);

/* window_addr.c */
size_t kt_window_addr_mem(const struct kt_window *w);
void kt_window_addr_free(struct kt_window *w);

#endif
