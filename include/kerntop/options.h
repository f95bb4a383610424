/* Command-line options: one plain struct filled once by kt_options_parse and then read-only.
 * Owns no resources (strings point into argv). Used by main.c, which hands the relevant
 * fields to each layer's own options struct; lower layers never include this header (its
 * values use their vocabulary: the report formats and pprof labels come from report.h). */
#ifndef KERNTOP_OPTIONS_H
#define KERNTOP_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "kerntop/report.h"

/* Most -z options on one command line (the reports list that many zoomed modules). */
#define KT_MAX_ZOOM KT_REPORT_MAX_ZOOM
/* Most --annotate options on one command line. */
#define KT_MAX_ANNOTATE 16
/* Most --push-label options. */
#define KT_MAX_PUSH_LABELS 16

struct kt_options {
	/* sampling */
	const char *event;        /* "auto" (default), "cpu-clock", "cycles", "task-clock" */
	uint64_t freq_hz;         /* -F, default 997; 0 when -c is used */
	uint64_t period;          /* -c, 0 when -F is used */
	const char *cpus;         /* -C LIST, NULL for all online CPUs */
	int user;                 /* -u: also count user-mode hits */
	int callchain;            /* -g (the default); 0 with --no-call-graph */
	uint32_t max_stack;       /* --max-stack, default 32 */
	int irq_owner;            /* --irq-owner: charge IRQ-enabling helpers to their callers */
	const char *record;       /* --record FILE */
	const char *replay;       /* --replay FILE */
	double speed;             /* --speed X, 0 = max; default 1 */

	/* symbols */
	const char *sysroot;      /* --sysroot DIR, "" for / */
	const char *kallsyms;
	const char *modules;
	const char *builtin_ranges;
	const char *vmlinux;
	const char *module_dir;
	uint32_t bucket;          /* --bucket BYTES, default 64 */
	const char *idle_symbols; /* --idle-symbols LIST, NULL for the built-in list */

	/* window and reports */
	double window_s;          /* -w, default 10 */
	int window_given;         /* -w was on the command line */
	int cumulative;           /* --cumulative */
	double delay_s;           /* -d, default 1 */
	int delay_given;          /* -d was on the command line */
	int batch;                /* -b */
	long iterations;          /* -n, 0 = until SIGINT/SIGTERM or end of replay */
	const char *output;       /* -o FILE, NULL for stdout */
	const char *zoom[KT_MAX_ZOOM]; /* -z MODULE, repeatable (KernRate's -z), in order */
	unsigned nzoom;           /* how many -z */
	const char *annotate[KT_MAX_ANNOTATE]; /* --annotate FUNC or MODULE:FUNC, in order */
	unsigned nannotate;
	uint32_t top;             /* --top N, default 30 */
	enum kt_format format;    /* --format */
	int folded_context;       /* --folded-context: the context as the folded root frame */

	/* viewer */
	int color;                /* 1 unless --no-color or NO_COLOR is set */
	int mouse;                /* 1 unless --no-mouse */
	int ascii;                /* --ascii: ASCII sparklines even in a UTF-8 locale */
	const char *baseline;     /* --baseline FILE: a JSON report, recording or perf script */
	const char *diff_a, *diff_b; /* --diff A B */
	const char *snapshot_dir; /* --snapshot-dir DIR, default "." */
	int no_config;            /* --no-config: the saved settings file is not read */

	/* pprof profiles and the push to a profiling server (docs/fleet.md) */
	unsigned pprof_labels;    /* --pprof-labels: KT_PPROF_* bits, default all */
	int pprof_labels_given;   /* else --push sends KT_PPROF_LABELS_PUSH */
	const char *push_url;     /* --push URL, NULL: no push */
	double push_interval_s;   /* --push-interval, default 10 */
	const char *push_name;    /* --push-name, default "kerntop.kernel" */
	const char *push_labels[KT_MAX_PUSH_LABELS]; /* --push-label K=V, in order */
	unsigned npush_labels;
	const char *push_header_file; /* --push-header-file FILE: extra HTTP headers */

	/* process */
	const char *log;          /* --log FILE: debug log (never stderr while curses is up) */
	int keep_privileges;      /* --keep-privileges: do not drop to SUDO_UID after setup */
};

/* Outcome of parsing: run, or exit now with the given status (after --help, --version, error). */
enum {
	KT_OPTIONS_RUN = -1,
};

/* Parses argv into *o. Returns KT_OPTIONS_RUN, or an exit status (0 after --help/--version,
 * 2 after a usage error, whose one-line message has been written to err). */
int kt_options_parse(struct kt_options *o, int argc, char **argv, FILE *out, FILE *err);

/* Writes the grouped --help text. */
void kt_options_usage(FILE *out);

#endif
