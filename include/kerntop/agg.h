/* Aggregator: answers view queries over the window's totals, using the symbolizer to group
 * locations into functions, modules, buckets and lines. Rows carry derived columns
 * (CPU ms, % of kernel hits, % of machine, hits/s). It holds no terminal state and never
 * draws or writes files; results are read-only and owned by the kt_result. */
#ifndef KERNTOP_AGG_H
#define KERNTOP_AGG_H

#include <stddef.h>
#include <stdint.h>

struct kt_window;
struct kt_symbols;
struct kt_agg;

enum kt_view {
	KT_VIEW_MODULES,   /* one row per module, [idle] and [user] pseudo-modules included */
	KT_VIEW_FUNCS,     /* functions (or buckets) of query.module */
	KT_VIEW_TOPFUNCS,  /* flat top functions across all modules */
	KT_VIEW_LINES,     /* source lines (libdw) or address buckets of query.func */
	KT_VIEW_CPUS,      /* one row per CPU with kernel/user/idle split, top module and function */
	KT_VIEW_TASKS,     /* one row per task (pid, comm) */
	KT_VIEW_CALLERS,   /* caller tree of query.func, hottest path first (needs -g) */
	KT_VIEW_CALLEES,   /* callee tree of query.func (needs -g) */
	KT_VIEW_STACKS,    /* hottest full stacks of query.func, or of query.module when func is KT_ANY */
	KT_VIEW_CONTEXTS,  /* one row per execution context (docs/contexts.md; needs -g) */
};

enum kt_sort {
	KT_SORT_HITS,      /* most hits first */
	KT_SORT_NAME,      /* A..Z */
	KT_SORT_RATE,      /* highest rate in the newest slice first ("hot right now") */
	KT_SORT_RISING,    /* highest kt_row.rising first (the trend's newest points against
			    * the older ones, docs/history.md) */
	KT_SORT_DELTA,     /* highest kt_row.delta_pct first (share grown most since the baseline) */
	KT_SORT_RATIO,     /* highest kt_row.rate_ratio first (appeared rows first) */
};

/* A row against the baseline (kt_agg_set_baseline). */
enum kt_base_state {
	KT_BASE_NONE,   /* no baseline, or a view without one */
	KT_BASE_BOTH,   /* in the baseline and now */
	KT_BASE_NEW,    /* appeared: not in the baseline */
	KT_BASE_GONE,   /* vanished: in the baseline, no hits now (a row added with hits 0) */
};

/* Points of a trend series at most: past it, neighbouring slices are summed into one. */
#define KT_TREND_MAX 60

#define KT_ANY UINT32_MAX
#define KT_CPUSET_WORDS(ncpu) (((ncpu) + 63) / 64)
static inline int kt_cpuset_has(const uint64_t *set, uint32_t cpu)
{
	return (set[cpu / 64] >> (cpu % 64)) & 1;
}
/* Writes the CPUs of set below max as "0,2-3" into buf; returns how many there are. */
uint32_t kt_cpuset_format(const uint64_t *set, uint32_t max, char *buf, size_t len);
/* The [idle] pseudo-module id in queries and rows (real module ids come from the symbolizer). */
#define KT_AGG_IDLE_MODULE (UINT32_MAX - 1)

struct kt_filter {
	uint32_t cpu;        /* KT_ANY or a CPU number */
	/* NULL, or a set of CPUs to keep: bit c % 64 of word c / 64, KT_CPUSET_WORDS(max_cpu)
	 * words; applies together with cpu */
	const uint64_t *cpuset;
	uint32_t task;       /* KT_ANY or a window task id */
	uint32_t module;     /* KT_ANY or a module id (TOPFUNCS, CPUS, TASKS views) */
	const char *text;    /* case-insensitive substring on row names, or NULL */
	int hide_idle;       /* drop idle hits from rows and from the kernel total */
	uint32_t ctx;        /* KT_ANY or an execution context id (kt_sym_ctx) */
};

struct kt_query {
	enum kt_view view;
	uint32_t module;     /* KT_VIEW_FUNCS, KT_VIEW_STACKS */
	uint32_t func;       /* KT_VIEW_LINES, CALLERS, CALLEES, STACKS */
	struct kt_filter filter;
	enum kt_sort sort;
	int reverse;
	uint32_t limit;      /* 0 = every row */
	int per_cpu;         /* fill kt_row.per_cpu */
	uint32_t max_depth;  /* trees: 0 = unlimited */
	/* flat views: fill kt_row.trend with up to this many points (0: none, unless sorting by
	 * KT_SORT_RISING, which computes them; capped at KT_TREND_MAX) */
	uint32_t trend;
};

struct kt_row {
	const char *name;        /* module, function, "file.c:123", "func+0x40", "cpu3", "comm" */
	const char *module;      /* owning module's name, or NULL */
	uint32_t id;             /* what Enter opens: module id, func id, CPU, task id, tree node */
	uint64_t hits;
	double ms;               /* hits x ms per hit */
	double pct_kernel;       /* % of the kernel hits (idle excluded when hidden) */
	double pct_machine;      /* hits / (covered seconds x freq x CPUs) x 100 */
	double per_s;            /* hits per second over the covered time */
	double recent_per_s;     /* hits per second in the newest slice */
	uint8_t idle;
	int32_t pid;             /* tasks view */
	/* CPU view */
	uint64_t kernel, user, idle_hits;
	const char *top_module, *top_func;
	/* per-CPU columns when query.per_cpu: max_cpu counts owned by the result */
	const uint64_t *per_cpu;
	/* trees: pre-order rows; parent is a row index or -1 */
	uint32_t depth;
	int32_t parent;
	uint32_t nchildren;
	double pct_parent;       /* % of the function's hits through this path */
	uint64_t addr;           /* LINES: bucket start or first address of the line */
	/* STACKS: the function ids of the stack, leaf first (owned by the result); name is
	 * the same frames root first joined by ';' */
	const uint32_t *frames;
	uint32_t nframes;
	int32_t tid;             /* tasks view */
	uint32_t ctx_kind;       /* contexts view: enum kt_ctx_kind (row.id is the context id) */
	uint8_t irq_helper;      /* flat function views: the function re-enables interrupts */
	/* the trend (flat views, when asked): the row's hits in each point of
	 * kt_summary.trend_points, oldest first, owned by the result; its largest value; and
	 * rising, in hits/s: the mean of the newest third of the points (at least one) minus the
	 * mean of the older ones (0 with fewer than 2 points) */
	const uint32_t *trend;
	uint32_t trend_peak;
	double rising;
	/* against the baseline (flat views but lines, when one is set): the share now minus the
	 * share in the baseline in percentage points, the rate now over the rate then (INFINITY
	 * for an appeared row), the baseline's hits */
	uint8_t base_state; /* enum kt_base_state */
	double delta_pct, rate_ratio;
	uint64_t base_hits;
};

struct kt_summary {
	uint64_t samples;        /* all hits in the current totals */
	uint64_t kernel, user, idle, lost;
	double covered_s;        /* seconds the totals cover */
	uint32_t ncpus, max_cpu;
	double freq_hz;          /* per CPU */
	double ms_per_hit;
	double busy_pct, idle_pct, user_pct; /* of machine capacity */
	int user_sampled;        /* user mode was sampled (-u); else user_pct is 0 and
				  * unsampled_pct is the rest of the capacity: user time, mostly */
	double unsampled_pct;
	double samples_per_s;
	int cumulative;
	uint64_t irq_helper;     /* kernel hits in IRQ-enabling helpers, before --irq-owner */
	uint64_t stacked;        /* hits with a call chain (contexts need them) */
	int irq_owner;           /* --irq-owner charging is on */
	/* the trend of the last query that asked for one: points per row, seconds per point */
	uint32_t trend_points;
	double trend_point_s;
};

struct kt_result {
	struct kt_row *rows;
	size_t nrows;            /* rows returned (after limit) */
	size_t total_rows;       /* rows before limit */
	struct kt_summary sum;
	void *priv;              /* string and per-CPU storage */
};

struct kt_agg_params {
	double freq_hz;          /* samples per second per CPU (nominal) */
	double ms_per_hit;       /* CPU ms one hit stands for */
	uint32_t ncpus, max_cpu;
	int user_sampled;        /* the source samples user mode too */
};

/* The aggregator reads w and s and may hold w's expire hook (the CPU view's running sums):
 * free it before them. */
int kt_agg_new(struct kt_window *w, struct kt_symbols *s, const struct kt_agg_params *p,
	       struct kt_agg **out);
void kt_agg_free(struct kt_agg *a);

/* Runs a query into r (reusing its storage; zero-initialise r before the first call). */
int kt_agg_query(struct kt_agg *a, const struct kt_query *q, struct kt_result *r);
void kt_result_free(struct kt_result *r);

/* The caller will run query q at every refresh (batch reports): what the aggregator keeps
 * between refreshes to answer it (the CPU view's running sums) follows the window from now,
 * as the samples come, instead of being made at the first query. */
void kt_agg_expect(struct kt_agg *a, const struct kt_query *q);

/* The newest complete slice's kernel busy and idle shares of the machine's capacity (every
 * CPU, no filter), in %: the history meters' per-refresh figures (docs/history.md). Returns
 * 0, or -ENOENT before a slice is complete. */
int kt_agg_recent_split(struct kt_agg *a, double *busy_pct, double *idle_pct);

/* Header figures under a filter. */
void kt_agg_summary(struct kt_agg *a, const struct kt_filter *f, struct kt_summary *sum);

void kt_filter_all(struct kt_filter *f);

/* --irq-owner: hits in the functions that re-enable interrupts (kt_sym_irq_helper) are
 * charged to the first caller outside them, when the hit has a call chain, in every view
 * and in the summary. Off by default. */
void kt_agg_set_irq_owner(struct kt_agg *a, int on);
int kt_agg_irq_owner(const struct kt_agg *a);

/* Queries read per-refresh projections of the window's hits (merged on the dimensions they
 * do not read; on by default). Off, every query scans the window's tuples as before issue 14:
 * the same answers, kept so a benchmark and the equivalence test can compare both ways. */
void kt_agg_set_projection(struct kt_agg *a, int on);
/* How many CPU views came from the tables kept between refreshes (agg_cputop.c), for the
 * tests and benchmarks. */
uint64_t kt_agg_cputop_answers(const struct kt_agg *a);
/* How many complete slices those tables took in as the window moved, before a query asked. */
uint64_t kt_agg_cputop_early(const struct kt_agg *a);

/* The layers the aggregator reads, for writers that need names (reports). */
struct kt_symbols *kt_agg_symbols(const struct kt_agg *a);
struct kt_window *kt_agg_window(const struct kt_agg *a);
const struct kt_agg_params *kt_agg_params(const struct kt_agg *a);

/* Module id by name, "[idle]" included (KT_AGG_IDLE_MODULE): 0 with *id set, or -ENOENT
 * with up to max comma-separated near names (same prefix, substring, small edit distance)
 * written to near. */
int kt_agg_module_find(const struct kt_agg *a, const char *name, uint32_t *id, char *near,
		       size_t nearlen);
/* Display name of a module id ("[idle]" for KT_AGG_IDLE_MODULE), never NULL. */
const char *kt_agg_module_name(const struct kt_agg *a, uint32_t module);

/* Semantics (see docs/report-format.md):
 * - pct_kernel is the share of every hit passing the CPU/task filter (and hide_idle):
 *   kernel work + idle + user (user only with -u), KernRate's %Total.
 * - idle functions count under [idle] in the modules view and in KT_VIEW_FUNCS of
 *   KT_AGG_IDLE_MODULE, not under their own module; flat views keep row.module = the real
 *   module and set row.idle.
 * - trees: row 0 is the function itself; row.id is a function id; pct_parent is the share
 *   of the function's (row 0's) hits through that path. CALLERS counts samples whose leaf
 *   is the function; CALLEES counts samples with the function anywhere on the stack
 *   (outermost occurrence). STACKS groups samples whose leaf is the function (or in the
 *   module) by their function sequence. The text filter does not apply to trees.
 * - flat views: pct_parent is the row's share of the whole view before the text filter and
 *   the limit (FUNCS: % of the module, LINES: % of the function).
 * - kt_agg_summary counts kernel/user/idle regardless of hide_idle. */

const char *kt_view_name(enum kt_view v);

/* Baselines (agg_baseline.c, docs/history.md): per-row hits of another time, keyed by name
 * (module; module and function; "cpuN"; command and pid/tid; context label) so they compare
 * across runs, with the baseline's samples, idle samples and covered seconds. */
struct kt_baseline;
int kt_baseline_new(const char *source, struct kt_baseline **out);
void kt_baseline_free(struct kt_baseline *b);
/* Adds hits to a row: view is MODULES, TOPFUNCS (functions), CPUS, TASKS or CONTEXTS; module
 * for functions, tid/pid ("PID/TID") for tasks, else NULL. */
int kt_baseline_add(struct kt_baseline *b, enum kt_view v, const char *module, const char *name,
		    uint64_t hits, int idle);
void kt_baseline_set_totals(struct kt_baseline *b, uint64_t samples, uint64_t idle,
			    double covered_s);
uint64_t kt_baseline_samples(const struct kt_baseline *b);
double kt_baseline_covered(const struct kt_baseline *b);
const char *kt_baseline_source(const struct kt_baseline *b);
/* The baseline's hits of a row, 0 when it has none. */
uint64_t kt_baseline_hits(const struct kt_baseline *b, enum kt_view v, const char *module,
			  const char *name);
/* Every row of the agg's current totals (no filter), as a baseline named source. */
int kt_baseline_capture(struct kt_agg *a, const char *source, struct kt_baseline **out);
/* A kerntop JSON report (its last line, the last report): modules, functions, cpu and
 * contexts rows (as many as the report holds: --top cuts them) and its totals. Returns 0, or
 * -EINVAL with the reason in err. */
int kt_baseline_from_json(const char *text, size_t len, const char *source,
			  struct kt_baseline **out, char *err, size_t errlen);
/* Rows of view v in the baseline, for --diff: calls fn for each (module may be NULL). */
void kt_baseline_each(const struct kt_baseline *b, enum kt_view v,
		      void (*fn)(void *ctx, const char *module, const char *name, uint64_t hits,
				 int idle),
		      void *ctx);
/* Sets the baseline the flat queries compare with (taking ownership; the previous one is
 * freed; NULL clears it). */
void kt_agg_set_baseline(struct kt_agg *a, struct kt_baseline *b);
const struct kt_baseline *kt_agg_baseline(const struct kt_agg *a);

/* A trend point's level on an 8-step ramp scaled to the row's peak: 0 for no hits, 1..8
 * otherwise (ceil(v * 8 / peak), so the peak is 8 and any hit at least 1). */
static inline int kt_trend_level(uint32_t v, uint32_t peak)
{
	if (!v || !peak)
		return 0;
	if (v >= peak)
		return 8;
	return (int)(((uint64_t)v * 8 + peak - 1) / peak);
}

/* Annotate (agg_annotate.c): one function's instructions with their exact-address hits. */
struct kt_annot_insn {
	uint64_t addr;
	uint64_t hits;		   /* samples at exactly this instruction (since start) */
	double pct;		   /* of the function's hits */
	uint8_t size;
	uint8_t jump, call;	   /* a direct jump or call (target set) */
	char text[176];		   /* "mov eax, dword ptr [rdx]": Capstone, Intel syntax */
	uint64_t target;	   /* direct branch target, 0 when none */
	uint32_t target_func;	   /* target's function outside this one, or KT_ANY */
	char target_name[96];	   /* "func", "func+0x10"; "" when unknown */
	const char *file;	   /* source line (kt_sym_srcline's label), or NULL */
	int line;
};

struct kt_annotate {
	uint32_t func, module;
	const char *name, *module_name; /* the symbolizer's strings */
	uint64_t start, size;
	int source;		   /* enum kt_text_source: where the bytes came from */
	uint64_t hits;		   /* every hit in [start, start + size) */
	uint64_t max_hits;	   /* of one instruction (the hottest) */
	uint64_t outside;	   /* hits not at an instruction start */
	struct kt_annot_insn *insns;
	size_t ninsns, cap;
};

/* Disassembles function func and counts its hits. Returns 0, or -errno with a one-line
 * message (no kernel text and how to get it, size unknown). kt_annotate_free is NULL-safe. */
int kt_agg_annotate(struct kt_agg *a, uint32_t func, struct kt_annotate *an, char *err,
		    size_t errlen);
void kt_annotate_free(struct kt_annotate *an);
/* Function id of "NAME" or "MODULE:NAME" (the one with the most hits among equal names of
 * one module): 0, -ENOENT, or -EEXIST when the name is in several modules; err says which. */
int kt_agg_func_find(struct kt_agg *a, const char *spec, uint32_t *func, char *err, size_t errlen);

#endif
