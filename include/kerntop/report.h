/* Reports: the aggregator's rows as a KernRate-like text table, JSON, CSV or folded stacks,
 * and the window's totals as a pprof profile, for batch mode and for the viewer's snapshot key. Snapshot files are written atomically,
 * never over an existing file, mode 0600. Uses agg.h and util.h; never touches curses. */
#ifndef KERNTOP_REPORT_H
#define KERNTOP_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "kerntop/agg.h"
#include "kerntop/procstat.h"

struct kt_window;
struct kt_symbols;
struct kt_source_info;
struct kt_source_stats;

/* The report formats (--format, the W key's prompt). */
enum kt_format {
	KT_FORMAT_TEXT,
	KT_FORMAT_JSON,
	KT_FORMAT_CSV,
	KT_FORMAT_FOLDED,
	KT_FORMAT_PPROF, /* gzip-compressed profile.proto (docs/report-format.md) */
};

/* The format's name as --format spells it ("text"), "?" for none. */
const char *kt_format_name(enum kt_format f);

/* pprof sample labels (--pprof-labels), a bit each. */
enum {
	KT_PPROF_CPU = 1,
	KT_PPROF_COMM = 2,
	KT_PPROF_PID = 4,
	KT_PPROF_TID = 8,
	KT_PPROF_CONTEXT = 16, /* the execution context ("softirq NET_RX"), with call chains */
};
#define KT_PPROF_LABELS_ALL                                                                  \
	(KT_PPROF_CPU | KT_PPROF_COMM | KT_PPROF_PID | KT_PPROF_TID | KT_PPROF_CONTEXT)
/* Pushed profiles: a server keeps a series per label set, so no pid/tid (docs/fleet.md). */
#define KT_PPROF_LABELS_PUSH (KT_PPROF_CPU | KT_PPROF_COMM | KT_PPROF_CONTEXT)

/* Most zoomed modules per report (struct kt_report_ctx.nzoom). */
#define KT_REPORT_MAX_ZOOM 8

/* A report's tables, kept between the reports of a caller that writes many (batch mode) so
 * that their rows' storage is reused: made afresh, the 5000 rows of a big machine's top
 * functions were reallocated and faulted in on every refresh (issue 14). Zero-initialise;
 * kt_report_results_free frees them (and zeroes them for reuse). */
struct kt_report_results {
	struct kt_result mods, funcs, cpus, stacks, ctxs, zoom[KT_REPORT_MAX_ZOOM];
};
void kt_report_results_free(struct kt_report_results *k);

struct kt_report_ctx {
	enum kt_format format;
	uint32_t top;            /* rows per table */
	const char *const *zoom; /* nzoom module names whose functions are listed too */
	unsigned nzoom;
	const char *source;      /* "live" or "replay" */
	const char *path;        /* replayed file, or NULL */
	const char *event;
	double freq_hz;
	double window_s;         /* configured span */
	uint32_t ncpus;
	uint64_t throttled;
	uint64_t skipped;        /* replay: damaged blocks, records or lines skipped */
	uint64_t report_no;      /* 1, 2, ... in batch mode */
	double time_s;           /* seconds since start (source clock) */
	struct kt_filter filter;
	int stacks;              /* call chains sampled (-g): add stack tables / the JSON stacks array */
	double unix_time;        /* wall clock of the report (0: taken when writing) */
	unsigned pprof_labels;   /* KT_PPROF_* labels of pprof snapshots */
	/* --push: the counters of the push to a profiling server */
	int push;
	uint64_t push_sent, push_failed, push_dropped;
	const char *push_error;  /* the last failure, or NULL */
	const struct kt_ps_view *ps; /* /proc/stat, softirqs, interrupts figures, or NULL */
	int folded_context;      /* folded output: the context as the root frame ("[softirq NET_RX]") */
	const char *const *annotate; /* nannotate --annotate FUNC or MODULE:FUNC: listings */
	unsigned nannotate;
	/* snapshots: an annotate listing on screen, appended to text snapshots (copied) */
	const char *annotate_text;
	struct kt_report_results *keep; /* tables kept between reports, or NULL: made per report */
};

/* The one place a report context starts (batch reports and the viewer's snapshots): format and
 * rows, what the source says of itself (kind, path, event, rate, CPUs) and the counters of the
 * tick being reported (throttled, skipped); every other field zeroed, the filter all. */
void kt_report_ctx_init(struct kt_report_ctx *c, enum kt_format f, uint32_t top,
			const struct kt_source_info *info, const struct kt_source_stats *st);

/* The IRQ-off notice (docs/contexts.md): with a clock event, when IRQ-enabling helpers hold
 * more than KT_IRQ_NOTICE_PCT % of kernel hits, writes why and what to do into buf and
 * returns 1; else returns 0 with buf empty. stacks: call chains are sampled. */
#define KT_IRQ_NOTICE_PCT 10.0
#define KT_REPORT_NOTICE_LEN 256
int kt_report_irq_notice(const struct kt_summary *s, const char *event, int stacks, char *buf,
			 size_t len);

/* Version of the JSON/CSV schema (docs/report-format.md): bumped only when fields are added. */
#define KT_REPORT_VERSION 1

/* Checks every --zoom name before sampling: 0, or -ENOENT with the message kt_report_write
 * would give (near names, or some known modules). */
int kt_report_zoom_check(struct kt_agg *agg, const char *const *zoom, unsigned nzoom, char *err,
			 size_t errlen);

/* Checks every --annotate name before sampling: 0, or -ENOENT / -EEXIST (ambiguous) with
 * a message. */
int kt_report_annotate_check(struct kt_agg *agg, const char *const *specs, unsigned n, char *err,
			     size_t errlen);
/* One annotated function as a text listing (error: why there is none, or NULL). */
struct kt_annotate;
void kt_report_annotate_text(FILE *out, const struct kt_annotate *an, const char *error);
/* A source label without its directories. */
const char *kt_report_src_base(const char *file);

/* The queries kt_report_write will make at every report: the aggregator may start the tables
 * it keeps for them now (kt_agg_expect). */
void kt_report_expect(struct kt_agg *agg, const struct kt_report_ctx *ctx);

/* Writes one report of the whole machine (modules, top functions, CPUs, zoom). Returns 0 or
 * -errno with a message naming the module for an unknown --zoom. */
int kt_report_write(FILE *out, struct kt_agg *agg, const struct kt_report_ctx *ctx,
		    char *err, size_t errlen);

/* Writes the view q and every level under it (modules -> functions -> lines; a function ->
 * its lines and callers) to path atomically. Returns 0 or -errno with a message. */
int kt_report_snapshot(const char *path, struct kt_agg *agg, const struct kt_report_ctx *ctx,
		       const struct kt_query *q, char *err, size_t errlen);

/* The same in two steps: take runs every query now (the moment a paused viewer shows),
 * write puts it into path later in any format, numbered report_no; free is NULL-safe. */
struct kt_snapshot;
int kt_report_snapshot_take(struct kt_agg *agg, const struct kt_report_ctx *ctx,
			    const struct kt_query *q, struct kt_snapshot **out);
int kt_report_snapshot_write(const char *path, const struct kt_snapshot *s, enum kt_format f,
			     uint64_t report_no, char *err, size_t errlen);
void kt_report_snapshot_free(struct kt_snapshot *s);

/* pprof profiles (docs/report-format.md): the window's current totals as a gzip-compressed
 * profile.proto message, with function names, modules as mappings and sample labels. */
struct kt_pprof_opts {
	double period_ns;               /* CPU ns one hit stands for (period) */
	uint64_t time_ns;               /* wall clock (Unix ns) where the totals start */
	uint64_t duration_ns;           /* the time they cover */
	unsigned labels;                /* KT_PPROF_* sample labels */
	const struct kt_filter *filter; /* its CPU, CPU set, task and hide_idle; NULL: all */
	uint32_t max_cpu;               /* bound of filter->cpuset */
	/* a window that knows the command names of tasks w has none for, or NULL */
	const struct kt_window *names;
	const char *comment;            /* one comment string, or NULL */
};

/* The uncompressed message into a malloc'd *out: 0 or -ENOMEM. */
int kt_pprof_build(const struct kt_window *w, struct kt_symbols *s, const struct kt_pprof_opts *o,
		   uint8_t **out, size_t *len);
/* kt_pprof_build and kt_gzip, written to out: 0 or -errno with a message. */
int kt_report_pprof(FILE *out, const struct kt_window *w, struct kt_symbols *s,
		    const struct kt_pprof_opts *o, char *err, size_t errlen);

/* A fresh snapshot file name in dir: kerntop-YYYYmmdd-HHMMSS[-N].EXT that does not exist. */
int kt_report_snapshot_path(const char *dir, enum kt_format f, char *out, size_t len);

/* --diff (report_diff.c, docs/history.md): what changed from baseline a to b, per module,
 * function and context, sorted by the absolute change in share, with a two-proportion z-test
 * per row; text, json or csv; at most top rows per level (0: all). */
int kt_report_diff(FILE *out, enum kt_format f, const struct kt_baseline *a,
		   const struct kt_baseline *b, uint32_t top);

#endif
