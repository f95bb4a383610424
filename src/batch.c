/* Batch mode (-b): the reports of each refresh and the final one, their output file, and the
 * --log debug lines that show whether a long run stays bounded. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kerntop/agg.h"
#include "kerntop/batch.h"
#include "kerntop/options.h"
#include "kerntop/paths.h"
#include "kerntop/procstat.h"
#include "kerntop/push.h"
#include "kerntop/report.h"
#include "kerntop/source.h"
#include "kerntop/symbols.h"
#include "kerntop/util.h"
#include "kerntop/window.h"

struct kt_batch {
	struct kt_batch_env env;
	const struct kt_options *opts;
	FILE *out; /* the report output */
	struct kt_atomic out_file;
	int pprof_dir; /* --format pprof -o DIR: one profile file per report */
	uint64_t reports;
	uint64_t ticks;	 /* refresh ticks (-n counts them) */
	uint64_t tick_ns;    /* when the tick in progress began (kt_batch_tick_start), or 0 */
	uint64_t refresh_ns; /* the last tick's work after the drain (advance, queries, report) */
	int stdout_gone; /* output to a pipe whose reader has exited (EPIPE) */
	FILE *log;	 /* --log FILE: one line per refresh */
	int log_errno;	 /* the first failed --log write: the run ends in an error */
	int irq_noticed; /* the IRQ-off notice went to the --log once */
	struct kt_report_results keep; /* the report's tables, their storage reused */
	char err[KT_ERRLEN];
};

int kt_batch_pprof_dir(const struct kt_options *o)
{
	struct stat st;

	return o->format == KT_FORMAT_PPROF && o->output && stat(o->output, &st) == 0 &&
	       S_ISDIR(st.st_mode);
}

static void report_ctx(struct kt_batch *b, struct kt_report_ctx *c)
{
	const struct kt_source_info *info = kt_source_info(b->env.src);
	const struct kt_options *o = b->opts;
	struct kt_source_stats st;

	kt_source_stats(b->env.src, &st);
	kt_report_ctx_init(c, o->format, o->top, info, &st);
	c->zoom = o->zoom;
	c->nzoom = o->nzoom;
	c->annotate = o->annotate;
	c->nannotate = o->nannotate;
	c->window_s = o->window_s;
	c->report_no = b->reports;
	c->time_s = (double)(kt_source_now(b->env.src) - b->env.start_ns) / 1e9;
	c->stacks = info->callchain;
	c->ps = kt_procstat_view(b->env.proc);
	c->folded_context = o->folded_context;
	c->pprof_labels = o->pprof_labels;
	if (b->env.feed) {
		static struct kt_push_stats ps; /* last_error must outlive the report */

		kt_push_feed_stats(b->env.feed, &ps, NULL, NULL);
		c->push = 1;
		c->push_sent = ps.sent;
		c->push_failed = ps.failed;
		c->push_dropped = ps.dropped;
		c->push_error = ps.last_error;
	}
}

/* A pprof profile of the current totals: into the output, or a file of its own per report
 * with -o DIR. */
static int pprof_report(struct kt_batch *b)
{
	struct kt_pprof_opts po = {0};
	uint64_t cov = kt_window_covered(b->env.win), now = kt_unix_now_ns();
	char path[PATH_MAX];
	struct kt_atomic f;
	int r;

	po.period_ns = kt_agg_params(b->env.agg)->ms_per_hit * 1e6;
	po.duration_ns = cov;
	po.time_ns = now > cov ? now - cov : 0;
	po.labels = b->opts->pprof_labels;
	po.comment = "kerntop " PACKAGE_VERSION;
	if (!b->pprof_dir)
		return kt_report_pprof(b->out, b->env.win, b->env.sym, &po, b->err, sizeof(b->err));
	if (snprintf(path, sizeof(path), "%s/kerntop-%06llu.pb.gz", b->opts->output,
		     (unsigned long long)b->reports) >= (int)sizeof(path)) {
		snprintf(b->err, sizeof(b->err), "%s: path too long", b->opts->output);
		return -ENAMETOOLONG;
	}
	if (kt_atomic_open(&f, path, b->err, sizeof(b->err)) < 0)
		return -EIO;
	r = kt_report_pprof(f.fp, b->env.win, b->env.sym, &po, b->err, sizeof(b->err));
	if (r < 0) {
		kt_atomic_abort(&f);
		return r;
	}
	return kt_atomic_commit(&f, b->err, sizeof(b->err)) < 0 ? -EIO : 0;
}

/* The IRQ-off notice, once in the --log; the text and JSON reports carry it each time. Not on
 * stderr: scripts that read kerntop's stderr for errors keep working. */
static void irq_notice(struct kt_batch *b, const struct kt_report_ctx *c)
{
	struct kt_summary sum;
	char msg[KT_REPORT_NOTICE_LEN];

	if (b->irq_noticed)
		return;
	kt_agg_summary(b->env.agg, &c->filter, &sum);
	if (kt_report_irq_notice(&sum, c->event, c->stacks, msg, sizeof(msg))) {
		b->irq_noticed = 1;
		kt_batch_log(b, "notice: %s", msg);
	}
}

/* An allocation the window or the symbolizer could not make while the report was built (a
 * copy of the hits, a build id): the report would miss what it held, so the run ends. */
static int nomem(struct kt_batch *b)
{
	uint64_t n = kt_window_nomem(b->env.win) + kt_sym_nomem(b->env.sym);

	if (!n)
		return 0;
	snprintf(b->err, sizeof(b->err),
		 "out of memory for report %llu (%llu allocations failed): it would miss what they "
		 "held; free memory or raise the limit (ulimit -v)",
		 (unsigned long long)b->reports, (unsigned long long)n);
	return 1;
}

static int report(struct kt_batch *b)
{
	struct kt_report_ctx c;
	int r;

	b->reports++;
	report_ctx(b, &c);
	c.keep = &b->keep;
	irq_notice(b, &c);
	if (nomem(b))
		return -1;
	errno = 0;
	if (b->opts->format == KT_FORMAT_PPROF) {
		r = pprof_report(b);
		if (b->pprof_dir)
			return r < 0 ? -1 : 0;
	} else {
		r = kt_report_write(b->out, b->env.agg, &c, b->err, sizeof(b->err));
	}
	if (r == 0 && fflush(b->out) != 0)
		r = errno ? -errno : -EIO;
	if (r == 0 && nomem(b))
		return -1;
	if (r == -EPIPE && !b->opts->output) {
		/* The reader went away (kerntop -b | head): stop quietly, as top -b does. */
		b->stdout_gone = 1;
		return 0;
	}
	if (r < 0 && r != -ENOENT && r != -ENOMEM && r != -EINVAL) {
		/* a write error: name the file and the way out */
		char sp[KT_PATH_SHOWN + 1];

		snprintf(b->err, sizeof(b->err), "%s: %s%s",
			 b->opts->output ? kt_short_path(b->opts->output, sp, sizeof(sp))
					 : "standard output",
			 strerror(-r),
			 r == -ENOSPC || r == -EDQUOT ? "; free space or write the report elsewhere"
			 : r == -EFBIG
			     ? " (the file size limit, ulimit -f); raise the limit or write "
			       "less"
			     : "");
	}
	return r < 0 ? -1 : 0;
}

void kt_batch_log(struct kt_batch *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (!b || !b->log)
		return;
	va_start(ap, fmt);
	r = kt_log_vline(b->log, "batch", fmt, ap);
	va_end(ap);
	if (r < 0 && !b->log_errno)
		b->log_errno = -r;
}

/* Resident set size in KiB from /proc/self/statm, or -1. */
static long rss_kb(void)
{
	long size, resident = -1;
	FILE *f = fopen(KT_PATH_SELF_STATM, "re");

	if (f) {
		if (fscanf(f, "%ld %ld", &size, &resident) != 2)
			resident = -1;
		fclose(f);
	}
	return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

void kt_batch_log_tick(struct kt_batch *b, const char *what)
{
	struct kt_source_stats st;
	struct kt_summary sum;
	struct kt_filter f;

	if (!b || !b->log)
		return;
	kt_source_stats(b->env.src, &st);
	kt_filter_all(&f);
	kt_agg_summary(b->env.agg, &f, &sum);
	kt_batch_log(b,
		     "%s: ticks=%llu reports=%llu t=%.3fs window_samples=%llu samples=%llu "
		     "lost=%llu skipped=%llu window_mem=%zu tasks=%u stacks=%u cum=%u locs=%u "
		     "rss_kb=%ld refresh_ms=%.3f",
		     what, (unsigned long long)b->ticks, (unsigned long long)b->reports,
		     (double)(kt_source_now(b->env.src) - b->env.start_ns) / 1e9,
		     (unsigned long long)sum.samples, (unsigned long long)st.samples,
		     (unsigned long long)st.lost, (unsigned long long)st.skipped,
		     kt_window_mem(b->env.win), kt_window_ntasks(b->env.win),
		     kt_window_nstacks(b->env.win), kt_window_ncum(b->env.win),
		     kt_sym_nlocs(b->env.sym), rss_kb(), (double)b->refresh_ns / 1e6);
	if (b->env.feed) {
		struct kt_push_stats ps;
		uint64_t fed, profiles;

		kt_push_feed_stats(b->env.feed, &ps, &fed, &profiles);
		kt_batch_log(b,
			     "push: samples=%llu profiles=%llu sent=%llu failed=%llu dropped=%llu "
			     "queued=%u queued_bytes=%llu bytes=%llu build_cpu_ms=%.3f "
			     "send_cpu_ms=%.3f%s%s",
			     (unsigned long long)fed, (unsigned long long)profiles,
			     (unsigned long long)ps.sent, (unsigned long long)ps.failed,
			     (unsigned long long)ps.dropped, ps.queued,
			     (unsigned long long)ps.queued_bytes, (unsigned long long)ps.bytes,
			     (double)ps.build_cpu_ns / 1e6, (double)ps.send_cpu_ns / 1e6,
			     ps.last_error[0] ? " last_error=" : "", ps.last_error);
	}
}

static int open_output(struct kt_batch *b)
{
	if (b->opts->format == KT_FORMAT_PPROF && !b->opts->output && isatty(STDOUT_FILENO)) {
		snprintf(b->err, sizeof(b->err),
			 "--format pprof writes a binary profile: give -o FILE (or -o DIR for one "
			 "per report), or pipe it");
		return -1;
	}
	b->pprof_dir = kt_batch_pprof_dir(b->opts);
	if (b->pprof_dir || !b->opts->output) {
		b->out = stdout;
		return 0;
	}
	if (kt_atomic_open(&b->out_file, b->opts->output, b->err, sizeof(b->err)) < 0)
		return -1;
	b->out = b->out_file.fp;
	return 0;
}

static int close_output(struct kt_batch *b, int ok)
{
	if (b->pprof_dir)
		return 0;
	if (!b->opts->output)
		return b->stdout_gone || fflush(stdout) == 0 || errno == EPIPE ? 0 : -1;
	if (!ok) {
		kt_atomic_abort(&b->out_file);
		return 0;
	}
	return kt_atomic_commit(&b->out_file, b->err, sizeof(b->err));
}

int kt_batch_new(const struct kt_batch_env *env, struct kt_batch **out, char *err, size_t errlen)
{
	struct kt_batch *b = calloc(1, sizeof(*b));
	const struct kt_source_info *in;

	*out = NULL;
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	b->env = *env;
	b->opts = env->opts;
	/* --log in batch mode: what a soak investigation needs, without touching the reports */
	if (b->opts->log && !(b->log = kt_log_open(b->opts->log, b->err, sizeof(b->err)))) {
		snprintf(err, errlen, "%s", b->err);
		kt_batch_free(b);
		return -1;
	}
	if (open_output(b) < 0) {
		snprintf(err, errlen, "%s", b->err);
		kt_batch_free(b);
		return -1;
	}
	{
		struct kt_report_ctx c;

		report_ctx(b, &c);
		kt_report_expect(b->env.agg, &c); /* its tables follow the window from now */
	}
	in = kt_source_info(env->src);
	kt_batch_log(b, "start: %s%s%s, %s, %u CPUs, format %s, -d %.3g, -n %ld", in->kind,
		     in->path ? " " : "", in->path ? in->path : "", in->event, in->ncpus,
		     kt_format_name(b->opts->format), b->opts->delay_s, b->opts->iterations);
	*out = b;
	return 0;
}

void kt_batch_free(struct kt_batch *b)
{
	if (!b)
		return;
	if (b->log)
		fclose(b->log);
	kt_report_results_free(&b->keep);
	free(b);
}

void kt_batch_tick_start(struct kt_batch *b, uint64_t now_ns)
{
	b->tick_ns = now_ns;
}

int kt_batch_tick(struct kt_batch *b, char *err, size_t errlen)
{
	const struct kt_options *o = b->opts;
	uint64_t t0 = b->tick_ns ? b->tick_ns : kt_now_ns();

	/* Folded stacks (and a pprof -o FILE) are one profile, written at the end: reports of
	 * overlapping windows would repeat every stack. */
	b->ticks++;
	if (o->format != KT_FORMAT_FOLDED &&
	    (o->format != KT_FORMAT_PPROF || kt_batch_pprof_dir(o)) && report(b) < 0) {
		snprintf(err, errlen, "%s", b->err);
		return -1;
	}
	b->refresh_ns = kt_now_ns() - t0;
	b->tick_ns = 0;
	kt_batch_log_tick(b, "tick");
	if (b->stdout_gone)
		return KT_BATCH_DONE;
	if (o->iterations && (long)b->ticks >= o->iterations)
		return KT_BATCH_DONE;
	return KT_BATCH_CONTINUE;
}

int kt_batch_finish(struct kt_batch *b, int status, char *err, size_t errlen)
{
	const struct kt_options *o = b->opts;
	int r = status;

	if (r == 0 && !b->stdout_gone && (!o->iterations || (long)b->reports < o->iterations)) {
		uint64_t t0 = kt_now_ns();

		kt_window_advance(b->env.win, kt_source_now(b->env.src));
		r = report(b);
		b->refresh_ns = kt_now_ns() - t0;
		kt_batch_log_tick(b, "final");
	}
	if (r == 0 && b->log_errno) {
		/* a debug log that silently lost its lines would mislead whoever reads it */
		char sp[KT_PATH_SHOWN + 1];

		snprintf(b->err, sizeof(b->err), "--log %s: write failed (%s)%s",
			 kt_short_path(o->log, sp, sizeof(sp)), strerror(b->log_errno),
			 b->log_errno == ENOSPC || b->log_errno == EDQUOT
			     ? "; free space or log elsewhere"
			     : "");
		r = -1;
	}
	if (close_output(b, r == 0) < 0)
		r = -1;
	if (r < 0 && status == 0)
		snprintf(err, errlen, "%s", b->err);
	return r;
}
