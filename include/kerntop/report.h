/* Reports: the aggregator's rows as a KernRate-like text table, JSON, CSV or folded stacks,
 * for batch mode and for the viewer's snapshot key. Snapshot files are written atomically,
 * never over an existing file, mode 0600. Uses agg.h and util.h; never touches curses. */
#ifndef KERNTOP_REPORT_H
#define KERNTOP_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "kerntop/agg.h"
#include "kerntop/options.h"
#include "kerntop/procstat.h"

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
	const struct kt_ps_view *ps; /* /proc/stat, softirqs, interrupts figures, or NULL */
	int folded_context;      /* folded output: the context as the root frame ("[softirq NET_RX]") */
	const char *const *annotate; /* nannotate --annotate FUNC or MODULE:FUNC: listings */
	unsigned nannotate;
	/* snapshots: an annotate listing on screen, appended to text snapshots (copied) */
	const char *annotate_text;
};

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

/* A fresh snapshot file name in dir: kerntop-YYYYmmdd-HHMMSS[-N].EXT that does not exist. */
int kt_report_snapshot_path(const char *dir, enum kt_format f, char *out, size_t len);

#endif
