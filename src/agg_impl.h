/* The aggregator's private state, shared by agg.c (flat views, summary) and agg_tree.c
 * (callers, callees, stacks). Nothing outside the aggregator includes it. */
#ifndef KERNTOP_AGG_IMPL_H
#define KERNTOP_AGG_IMPL_H

#include "kerntop/agg.h"
#include "kerntop/symbols.h"
#include "kerntop/window.h"
#include "util_idx.h"

/* What the aggregator needs of a location, cached flat per location id. */
struct locinfo {
	uint32_t func;
	uint32_t module;  /* the module slot: KT_AGG_IDLE_MODULE for idle locations */
	uint32_t realmod; /* the symbolizer's module */
	uint8_t idle, user;
	uint8_t helper; /* an IRQ-enabling helper (--irq-owner) */
	/* the first location of its function with the same fields above: a view that reads a
	 * location only through them (CPUs, tasks) merges the function's locations into it */
	uint32_t rep;
	/* its function's rank among the functions with locations, in the order they came
	 * (kt_agg.seenfunc): dense keys for tables of the few thousand functions hit, not
	 * of every function the kernel has; UINT32_MAX when out of memory */
	uint32_t fseen;
};

/* String pool for row names: blocks never move, so names stay valid. */
struct pool {
	char **blk;
	uint32_t nblk, cur;
	size_t pos;
};

struct rpriv {
	struct pool pool;
	uint32_t rowcap;
	uint64_t *percpu;
	size_t percpucap;
	uint32_t *frames;
	size_t nframes, framescap;
	uint32_t *trend; /* trend points, rows x points */
	size_t trendcap;
	/* denominators of the query in progress */
	uint64_t denom;
	double recent_s, capacity;
	int nomem; /* a row name could not be stored (kt_agg_strdup returned "") */
};

/* Rows grouped by a two-word key through a hash index (the group scratch). */
struct group {
	struct kt_idx idx;
	uint64_t (*key)[2];
	uint64_t *recent;
	uint32_t keycap, recentcap;
};

/* A projection of the hits (agg_proj.c): the window's hits merged on the dimensions a query
 * does not read. */
enum { KT_NEED_CPU = 1, KT_NEED_TASK = 2, KT_NEED_CTX = 4, KT_NEED_STACK = 8, KT_NEED_ALL = 15 };
/* Not a dimension: the location is read only through its locinfo fields other than rep, so
 * a projection may merge a function's locations (issue 14: the CPU table at 256 CPUs). */
#define KT_NEED_FUNC 16u
enum kt_proj_src {
	KT_PROJ_TOTALS, /* kt_agg_hits: the current totals as the views count them */
	KT_PROJ_RECENT, /* kt_agg_recent: the newest complete slice */
	KT_PROJ_RAW,	/* kt_window_hits: before --irq-owner charging */
};
struct kt_proj {
	struct kt_hit *h;
	uint32_t n, cap;
	struct kt_idx idx;
	uint64_t gen, used, len_ns;
	unsigned need;
	enum kt_proj_src which;
	int owner, valid, pass; /* pass: not worth it, the source is read in place */
};
#define KT_AGG_NPROJ 4
#define KT_AGG_PROJ_RETRY 16

/* A projection's hits summed by function or by context (agg_rollup.c), per window generation. */
enum { KT_ROLL_FUNC, KT_ROLL_CTX };
struct kt_rollup {
	struct kt_hit *h; /* by function: at its rep location; by context: its first hit's */
	uint32_t n, cap;
	uint64_t gen, len_ns;
	int owner, cum, valid;
};

/* A location's entry in the projection being built from one CPU's log (agg_proj.c). */
struct kt_dense {
	uint32_t stamp, id;
};

struct kt_agg {
	struct kt_window *w;
	struct kt_symbols *s;
	struct kt_agg_params p;
	struct locinfo *li;
	uint32_t nli, licap;
	/* by location as li (and as many): what the CPU view's loops over every hit read of it,
	 * in 8 bytes instead of li's 24 (its lkey: kt_lkey_class and the others below) */
	uint64_t *lkey;
	uint32_t lkeycap;
	/* function -> its first location (ids of li), for the functions with locations: a
	 * hash, as a flat array by function id is 256 KiB of a 64 k-function kernel */
	struct kt_idx funcrep;
	uint32_t *seenfunc; /* rank (locinfo fseen) -> function id */
	uint32_t nseen, seencap;
	struct group g;
	/* tree scratch */
	struct tnode *tn;
	uint32_t ntn, tncap;
	struct kt_idx tidx;
	uint32_t *path;
	uint32_t pathcap;
	/* hottest stacks: function paths interned across refreshes (agg_tree.c), so that a
	 * window stack's path is made once (its KT_STACK_TAG_PATH tag: id + 1), not per query */
	struct fpath {
		uint32_t off, len, hash;
		uint32_t stamp;	      /* the query's counts below are valid when it is its own */
		uint32_t id;	      /* the row's id: the least stack counted */
		uint64_t hits, recent;
	} *fp;
	uint32_t nfp, fpcap, fpstamp;
	uint32_t *fpseen; /* the paths the query counted, first seen first */
	uint32_t nfpseen, fpseencap;
	uint32_t *fpframes;
	uint32_t nfpframes, fpframescap;
	struct kt_idx fpidx;
	/* --irq-owner: copies of the window's hits with helper hits moved to their caller */
	int irq_owner;
	struct kt_hit *own, *ownrec;
	uint32_t owncap, ownreccap;
	struct kt_baseline *base; /* agg_baseline.c: owned */
	/* the last base summary's sums (kt_agg_base_summary): every query of a refresh asks for
	 * the same ones; valid for its window generation and filter (one without a CPU set) */
	struct sum_memo {
		int ok, irq_owner, project;
		uint64_t gen, nomem;
		struct kt_filter f;
		uint64_t irq_helper, stacked, user, idle, kernel, denom;
	} memo;
	/* projections of this window generation (agg_proj.c) */
	int project;
	struct kt_proj proj[KT_AGG_NPROJ];
	uint64_t proj_clock;
	struct kt_dense *dense; /* per location, stamped per log */
	uint32_t densecap, dstamp;
	/* rollups of the totals [0] and the newest slice [1], by KT_ROLL_* (agg_rollup.c) */
	struct kt_rollup roll[2][2];
	uint32_t *rollslot[2]; /* per KT_ROLL_*: by key, its entry + 1 while one is made */
	uint32_t rollslotcap[2];
	/* per source and dimension set: requests since a projection was found not worth it
	 * (0: worth it, or never tried); it is tried again every KT_AGG_PROJ_RETRY requests */
	uint32_t proj_wide[3][KT_NEED_ALL + 1];
	/* allocations that failed during the query in progress: it returns -ENOMEM instead of
	 * rows that miss something (kt_agg_query) */
	uint64_t nomem;
	/* trend: the row of each location, when a row depends on nothing else (agg_trend.c) */
	uint32_t *locrow;
	uint32_t locrowcap;
	/* per complete slice, its hits by (location, context, chain or not), made once (a slice
	 * never changes once complete), slot slice number % ntslice: the trend's points and the
	 * recent rates of views by location (agg_trend.c); until a trend is asked for, only the
	 * newest complete slice's is kept (slot 0): a batch report's recent rates need no more */
	struct kt_tslice *tslice;
	uint32_t ntslice;
	int trend_asked;
	uint32_t *tpos; /* per location: an entry + 1 of it in the slice being made */
	uint32_t tposcap;
	struct kt_idx tsidx; /* the entries of the slice being made */
	/* the CPU view's per-slice tables and running sums (agg_cputop.c) */
	struct kt_cputop *cputop;
	int stacks_wanted; /* the stacks views are asked at every refresh (kt_agg_expect) */
	uint64_t cputop_answers; /* CPU views it answered */
};

struct kt_tslice {
	uint64_t no; /* slice number + 1; 0 = empty */
	struct kt_window_locent *e;
	uint32_t n, cap;
};

/* agg.c */
const struct locinfo *kt_agg_loc(struct kt_agg *a, uint32_t loc);
/* Whether a location's hits count for a CPU row's top function and module: kernel work in a
 * known function (below nf) and module (below nm). The projection path (agg_cpus.c) and the
 * kept sums (agg_cputop.c, in and out) must agree on it. */
static inline int kt_agg_loc_keyed(const struct locinfo *li, uint32_t nf, uint32_t nm)
{
	return !li->idle && !li->user && li->func < nf && li->module < nm;
}

/* A location's lkey: its class (KT_LKEY_USER, _IDLE, _KERNEL) in bits 0-1; KT_LKEY_KEYED when
 * it was kt_agg_loc_keyed as it was made (the symbolizer's functions and modules only ever
 * grow, so it stays so; a location without it is asked through li); its module in bits 3-31
 * (KT_LKEY_KEYED only below 2^29) and its function's rank (fseen) in bits 32-63. */
enum { KT_LKEY_USER, KT_LKEY_IDLE, KT_LKEY_KERNEL };
#define KT_LKEY_KEYED 4u
static inline uint32_t kt_agg_loc_class(const struct locinfo *li)
{
	return li->user ? KT_LKEY_USER : li->idle ? KT_LKEY_IDLE : KT_LKEY_KERNEL;
}
static inline uint32_t kt_lkey_class(uint64_t k)
{
	return (uint32_t)k & 3;
}
static inline uint32_t kt_lkey_module(uint64_t k)
{
	return (uint32_t)k >> 3;
}
static inline uint32_t kt_lkey_fseen(uint64_t k)
{
	return (uint32_t)(k >> 32);
}
int kt_agg_pass(const struct kt_agg *a, const struct kt_filter *f, const struct kt_hit *h,
		const struct locinfo *li);
/* The window's hits (current totals and newest slice) as the views count them: with
 * --irq-owner, helper hits re-keyed to their caller's location. */
const struct kt_hit *kt_agg_hits(struct kt_agg *a, size_t *n);
const struct kt_hit *kt_agg_recent(struct kt_agg *a, size_t *n, uint64_t *len_ns);
/* agg_proj.c: the hits of which with only the dimensions of need (KT_NEED_*) kept, the
 * others 0 (a stack not needed is 1 when the hit had one), merged; valid until the window
 * changes or a fifth projection is asked for. len_ns: the recent slice's length, or NULL. */
unsigned kt_agg_filter_needs(const struct kt_filter *f);
const struct kt_hit *kt_agg_proj(struct kt_agg *a, enum kt_proj_src which, unsigned need, size_t *n,
				 uint64_t *len_ns);
/* The hits kt_agg_proj(a, which, need) gives, read where the window keeps them when they
 * are its narrow totals (a query by location, context and chain or not: summary, modules,
 * functions, lines, contexts), else that projection: *v holds n entries stride bytes apart,
 * of which those of no hits are to be skipped (a free entry of the window's table). A
 * caller that needs dense hits (a CPU or task dimension) gets the projection anyway. */
struct kt_hits_view {
	const struct kt_hit *h;
	size_t n, stride;
};
static inline const struct kt_hit *kt_hv_at(const struct kt_hits_view *v, size_t i)
{
	return (const struct kt_hit *)((const char *)v->h + i * v->stride);
}
void kt_agg_proj_view(struct kt_agg *a, enum kt_proj_src which, unsigned need,
		      struct kt_hits_view *v);
/* agg_rollup.c: the KT_ROLL_* kind whose hits give flat query q (of dims, KT_NEED_*) its
 * rows, or -1: none (projections off, or q reads a dimension a rollup drops). */
int kt_agg_rollup_kind(const struct kt_agg *a, const struct kt_query *q, unsigned dims);
/* The hits of which (KT_PROJ_TOTALS or KT_PROJ_RECENT) summed by kind into *v (and the
 * slice's length in *len_ns, for the newest slice); valid until the window changes. 0, or -1:
 * none (a->nomem counted when for want of memory), the query reads its projection. */
int kt_agg_rollup(struct kt_agg *a, enum kt_proj_src which, int kind, struct kt_hits_view *v,
		  uint64_t *len_ns);
void kt_agg_rollup_free(struct kt_agg *a);

/* The stacks views' totals by (location, stack, context) without a copy, when the window
 * keeps them (what kt_agg_proj(a, KT_PROJ_TOTALS, need) would copy): the narrow totals' hits
 * without a chain (part 0) and the stacks' totals (part 1), read skipping entries of no hits
 * and, in part 0, those with a chain. 0, or -1: none. */
int kt_agg_proj_stacks(struct kt_agg *a, unsigned need, struct kt_hits_view part[2]);
/* The same for the newest complete slice (KT_PROJ_RECENT), from the tables the window made
 * as it completed: its hits by location (e[0, ne): those with a chain are in st) and its
 * chained hits by stack (st[0, nst)), and its length. 0, or -1: none. */
struct kt_recent_stacks {
	const struct kt_window_locent *e;
	const struct kt_window_stkent *st;
	uint32_t ne, nst;
	uint64_t len_ns;
};
int kt_agg_proj_recent_stacks(struct kt_agg *a, unsigned need, struct kt_recent_stacks *r);
/* Up to max of r's hits as (location, stack, context) hits into out, from entry *i of e and
 * *j of st on (both moved past them; none left when *i == ne and *j == nst): how many. */
size_t kt_agg_recent_stacks_read(const struct kt_recent_stacks *r, uint32_t *i, uint32_t *j,
				 struct kt_hit *out, size_t max);
void kt_agg_proj_free(struct kt_agg *a);
/* agg_result.c: the result's storage (created on first use, reused by later queries). */
struct rpriv *kt_agg_priv(struct kt_result *r);
void kt_agg_result_reset(struct kt_result *r);
struct kt_row *kt_agg_row_new(struct kt_result *r);
const char *kt_agg_strdup(struct kt_result *r, const char *str);
void kt_agg_derive(const struct kt_agg *a, const struct kt_query *q, struct kt_result *r,
		   struct kt_row *row, uint64_t recent_hits);
int kt_agg_module_match(uint32_t want, const struct locinfo *li);
void kt_agg_sort(struct kt_row *rows, size_t n, enum kt_sort s, int reverse, int numeric);
/* Moves to the front the rows the first limit of kt_agg_sort(rows, n, s, 0, 0) can come
 * from whatever their names (the best limit by s's own keys and every row tied with the
 * last of them) and returns how many: a caller then names and sorts only those. n when
 * there is no limit, limit >= n, s is KT_SORT_NAME or out of memory. */
size_t kt_agg_top(struct kt_row *rows, size_t n, enum kt_sort s, size_t limit);
/* The same choice over ids[0, n) in place, their order kept; below(ctx, x, y) > 0 when x
 * ranks below y by the sort's keys (0 when tied). Returns how many are kept (n when there
 * is no limit, limit >= n or out of memory). */
typedef int (*kt_agg_below_fn)(const void *ctx, uint32_t x, uint32_t y);
size_t kt_agg_top_ids(uint32_t *ids, size_t n, size_t limit, kt_agg_below_fn below,
		      const void *ctx);
void kt_agg_base_summary(struct kt_agg *a, const struct kt_filter *f, struct kt_summary *sum,
			 uint64_t *denom);

/* The index of the row hit h counts in (after the query's filter and grouping), or
 * UINT32_MAX when it counts in none; rows must not have been reordered yet. */
uint32_t kt_agg_row_of(struct kt_agg *a, const struct kt_query *q, struct kt_result *r,
		       const struct kt_hit *h);
/* The location an --irq-owner query charges hit h to. */
uint32_t kt_agg_owner_loc(struct kt_agg *a, const struct kt_hit *h);

/* agg_trend.c: fills the trend points of rows [0, r->nrows) before they are reordered;
 * row.trend pointers are set by the caller with kt_agg_trend_row. */
int kt_agg_trend(struct kt_agg *a, const struct kt_query *q, struct kt_result *r);
void kt_agg_trend_row(const struct kt_result *r, struct kt_row *row, size_t i);
void kt_agg_trend_free(struct kt_agg *a);
/* Complete slice number no by (location, context, chain or not), made once and kept; NULL
 * when no is not a complete slice of the window, or out of memory. */
const struct kt_tslice *kt_agg_slice_locs(struct kt_agg *a, uint64_t no);

/* agg.c: the row of group (k0, k1) in the flat query being built (created when create is set;
 * NULL when absent, or out of memory), and a function's name ("[unknown]" without one). */
struct kt_row *kt_agg_group_row(struct kt_agg *a, struct kt_result *r, uint64_t k0, uint64_t k1,
				uint32_t *rowi, int create);
const char *kt_agg_func_name(const struct kt_agg *a, uint32_t func);

/* agg_cputop.c: the CPU view's rows from tables kept between refreshes. */
struct kt_cpuview {
	uint32_t ncpu;
	const uint64_t *cls;	     /* per CPU: user, idle and kernel hits (3 per CPU) */
	const uint64_t *recent;	     /* per CPU: hits of the recent slice */
	uint64_t recent_ns;	     /* its length */
	const uint32_t *topf, *topm; /* per CPU: top function and module (UINT32_MAX: none) */
};
/* 1 with v filled (valid until the next call), 0 when this query is not one it answers
 * (a filter on more than CPUs, cumulative mode, --irq-owner, a baseline, per-CPU columns, a
 * CPU past max_cpu), -1 out of memory. */
int kt_agg_cputop(struct kt_agg *a, const struct kt_query *q, struct kt_cpuview *v);
void kt_agg_cputop_free(struct kt_agg *a);
void kt_agg_cputop_expect(struct kt_agg *a, const struct kt_query *q);
void kt_agg_cputop_moved(struct kt_agg *a);
/* agg_tree.c: a slice completed; when the stacks views are expected at every refresh, the
 * paths of its stacks are made now (their first refresh made 150 k of them at 256 CPUs). */
void kt_agg_stacks_moved(struct kt_agg *a);

/* agg_cpus.c: the CPU view's rows and tops. From the projection h[0, n): each CPU row's top
 * function and module; under a task, module, context or idle filter, a row for every CPU
 * with hits (-ENOMEM). From the kept tables: the rows (1, 0 when they do not answer this
 * query, -ENOMEM), then the tops of the rows left after sorting. */
void kt_agg_cpu_tops(struct kt_agg *a, const struct kt_query *q, struct kt_result *r,
		     const struct kt_hit *h, size_t n);
int kt_agg_cpu_rows_all(struct kt_agg *a, const struct kt_query *q, struct kt_result *r,
			const struct kt_hit *h, size_t n);
int kt_agg_cpu_rows_kept(struct kt_agg *a, const struct kt_query *q, struct kt_result *r,
			 struct kt_cpuview *v);
void kt_agg_cpu_tops_kept(struct kt_agg *a, struct kt_result *r, const struct kt_cpuview *v);

/* agg_baseline.c: the Δ fields of rows [0, r->nrows), then the vanished rows appended */
int kt_agg_baseline_rows(struct kt_agg *a, const struct kt_query *q, struct kt_result *r);

/* agg_tree.c */
int kt_agg_tree(struct kt_agg *a, const struct kt_query *q, struct kt_result *r);
int kt_agg_stacks(struct kt_agg *a, const struct kt_query *q, struct kt_result *r);
void kt_agg_tree_free(struct kt_agg *a);
/* The function path of a hit, leaf first, into a->path; returns its length. */
uint32_t kt_agg_path(struct kt_agg *a, const struct kt_hit *h);

#endif
