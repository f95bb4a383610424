/* Batch mode (-b), the viewer's peer: a report every -d seconds into -o FILE (published
 * atomically at the end), -o DIR (one pprof file per report) or standard output, one final
 * report, and the --log debug lines. main.c wires the layers and runs the loop; this front end
 * writes what each tick shows. Uses agg.h, report.h, window.h, symbols.h, source.h and push.h
 * (counters); never touches curses and never prints to stderr (messages go back in err). */
#ifndef KERNTOP_BATCH_H
#define KERNTOP_BATCH_H

#include <stddef.h>
#include <stdint.h>

struct kt_batch;
struct kt_agg;
struct kt_window;
struct kt_symbols;
struct kt_source;
struct kt_options;
struct kt_procstat;
struct kt_push_feed;

struct kt_batch_env {
	struct kt_agg *agg;
	struct kt_window *win;
	struct kt_symbols *sym;
	struct kt_source *src;
	const struct kt_options *opts;
	const struct kt_procstat *proc; /* the /proc figures (read by main), or NULL */
	struct kt_push_feed *feed;      /* --push, or NULL */
	uint64_t start_ns;              /* source clock at start */
};

enum {
	KT_BATCH_CONTINUE = 0,
	KT_BATCH_DONE = 1, /* -n reports written, or the reader of standard output has gone */
};

/* --format pprof -o DIR: one profile file per report in DIR (1), instead of one for the run. */
int kt_batch_pprof_dir(const struct kt_options *o);

/* Opens the --log file and the output. 0, or -1 with a message naming the file and the fix. */
int kt_batch_new(const struct kt_batch_env *env, struct kt_batch **out, char *err, size_t errlen);
/* Closes the --log file (not the output: kt_batch_finish does); safe with NULL. */
void kt_batch_free(struct kt_batch *b);

/* The refresh tick begins (before main.c advances the window and drains): --log's
 * refresh_ms counts from here to the end of kt_batch_tick's report. */
void kt_batch_tick_start(struct kt_batch *b, uint64_t now_ns);
/* The refresh tick: a report (except folded stacks and a pprof -o FILE, one profile written at
 * the end) and a --log line. KT_BATCH_CONTINUE, KT_BATCH_DONE, or -1 with a message. */
int kt_batch_tick(struct kt_batch *b, char *err, size_t errlen);
/* The end of the run (status: 0, or -1 when it failed already): the final report unless -n
 * reports were written, the --log write check, and the output published (status 0) or
 * dropped. Returns the run's status: 0, or -1 with a message in err. */
int kt_batch_finish(struct kt_batch *b, int status, char *err, size_t errlen);

/* One line of the --log file ("batch: ..."); nothing without --log; safe with NULL. */
void kt_batch_log(struct kt_batch *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The --log figures line (samples, memory, push counters) labelled what; safe with NULL. */
void kt_batch_log_tick(struct kt_batch *b, const char *what);

#endif
