/* kerntop's entry point: parses options, wires source -> symbolizer -> window -> aggregator ->
 * viewer or batch reports, and runs the one poll() loop. It holds no profiling logic. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kerntop/agg.h"
#include "kerntop/batch.h"
#include "kerntop/options.h"
#include "kerntop/paths.h"
#include "kerntop/procstat.h"
#include "kerntop/push.h"
#include "kerntop/report.h"
#include "kerntop/settings.h"
#include "kerntop/source.h"
#include "kerntop/symbols.h"
#include "kerntop/ui.h"
#include "kerntop/util.h"
#include "kerntop/window.h"
#include "main_impl.h"

#define MAX_POLLFDS 1100
/* Seconds the push queue gets to drain at exit. */
#define KT_PUSH_GRACE_S 2.0
/* a source of this many CPUs or more gets its tables in huge pages where allowed (util_mem.c) */
#define KT_HUGE_MIN_CPUS 64

static int open_pipeline(struct app *a)
{
	const struct kt_options *o = a->opts;
	struct kt_source_opts so = {
	    .event = o->event,
	    .freq_hz = o->freq_hz,
	    .period = o->period,
	    .cpus = o->cpus,
	    .user = o->user,
	    .callchain = o->callchain,
	    .max_stack = o->max_stack,
	    .record = o->record,
	    .replay = o->replay,
	    .speed = o->speed,
	    .sysroot = o->sysroot,
	    .kallsyms_path = o->kallsyms,
	    .modules_path = o->modules,
	};
	struct kt_sym_opts sy = {
	    .sysroot = o->sysroot,
	    .kallsyms = o->kallsyms,
	    .modules = o->modules,
	    .builtin_ranges = o->builtin_ranges,
	    .vmlinux = o->vmlinux,
	    .module_dir = o->module_dir,
	    .idle_symbols = o->idle_symbols,
	    .bucket = o->bucket,
	};
	const struct kt_source_info *info;
	struct kt_window_opts wo = {0};
	struct kt_agg_params ap;
	double slice_s;
	int r;

	/* A user limited by sudo must not plant a file where only root may write. */
	if (!kt_main_sudo_ids(o, &so.record_uid, &so.record_gid))
		so.record_uid = so.record_gid = 0;
	r = kt_source_open(&so, &a->src, a->err, sizeof(a->err));
	if (r < 0)
		return r;
	info = kt_source_info(a->src);
	/* a big machine's tables: in huge pages where the kernel allows (util_mem.c) */
	if (info->ncpus >= KT_HUGE_MIN_CPUS)
		kt_mem_huge_begin(KT_PATH_THP_ENABLED);
	if (info->kallsyms && !o->kallsyms) {
		sy.kallsyms_buf = info->kallsyms;
		sy.kallsyms_len = info->kallsyms_len;
	}
	if (info->modules && !o->modules) {
		sy.modules_buf = info->modules;
		sy.modules_len = info->modules_len;
	}
	/* kernel text from (sysroot) /proc/kcore, checked against its build ids, whenever the
	 * symbols are that root's own /proc/kallsyms: live, or a perf script replayed there */
	sy.text_live = !o->replay || (!info->kallsyms && !o->kallsyms);
	r = kt_sym_new(&sy, &a->sym, a->err, sizeof(a->err));
	if (r < 0)
		return r;
	for (size_t i = 0; i < info->ntexts; i++)
		if (kt_sym_text_add(a->sym, info->texts[i].addr, info->texts[i].bytes,
				    info->texts[i].len) == -ENOMEM) {
			snprintf(a->err, sizeof(a->err), "out of memory for the recording's texts");
			return -ENOMEM;
		}

	slice_s = o->window_s / 10.0 < o->delay_s ? o->window_s / 10.0 : o->delay_s;
	wo.span_ns = (uint64_t)(o->window_s * 1e9);
	wo.slice_ns = (uint64_t)(slice_s * 1e9);
	/* A batch replay at full speed, and batch folded output, report once for the whole run
	 * unless -w was given. */
	wo.cumulative =
	    o->cumulative ||
	    (o->batch && !o->window_given &&
	     ((o->replay && o->speed == 0) || o->format == KT_FORMAT_FOLDED ||
	      (o->format == KT_FORMAT_PPROF && !kt_batch_pprof_dir(o))));
	/* a batch report never turns cumulative mode on later: no since-start totals to keep */
	wo.no_since_start = o->batch;
	a->want_addr = !o->batch || o->nannotate || o->record;
	r = kt_window_new(&wo, &a->win);
	if (r < 0) {
		snprintf(a->err, sizeof(a->err), "cannot create the window (%s)", strerror(-r));
		return r;
	}

	ap.freq_hz =
	    info->freq_hz ? (double)info->freq_hz : (info->period ? 1e9 / (double)info->period : 0);
	ap.ms_per_hit = info->freq_hz ? 1000.0 / (double)info->freq_hz : (double)info->period / 1e6;
	ap.ncpus = info->ncpus;
	ap.max_cpu = info->max_cpu;
	ap.user_sampled = info->user;
	r = kt_agg_new(a->win, a->sym, &ap, &a->agg);
	if (r < 0) {
		snprintf(a->err, sizeof(a->err), "cannot create the aggregator (%s)", strerror(-r));
		return r;
	}
	r = kt_procstat_new(o->sysroot, info->max_cpu, &a->proc);
	if (r < 0) {
		snprintf(a->err, sizeof(a->err), "cannot create the /proc reader (%s)", strerror(-r));
		return r;
	}
	kt_agg_set_irq_owner(a->agg, o->irq_owner);
	a->start_ns = kt_source_now(a->src);
	return 0;
}

/* Under sudo, the files the user names are read with the user's rights: a replay needs no
 * root at all and drops before opening anything; a live run needs root for perf and /proc,
 * so each named input is first opened as the user, and one the user may not read is refused
 * (no reading root-only files, no probing which exist). */
static int check_user_inputs(struct app *a)
{
	const struct kt_options *o = a->opts;
	const char *files[] = {o->kallsyms, o->modules, o->builtin_ranges, o->vmlinux};
	struct kt_ids saved;
	long uid, gid;
	int r = 0;

	if (!kt_main_sudo_ids(o, &uid, &gid))
		return 0;
	if (o->replay)
		return kt_main_drop_privileges(a);
	if (kt_ids_assume(uid, gid, &saved, a->err, sizeof(a->err)) < 0)
		return -EPERM;
	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]) && !r; i++) {
		int fd;

		if (!files[i])
			continue;
		fd = kt_open_regular(files[i], a->err, sizeof(a->err));
		if (fd < 0)
			r = fd;
		else
			close(fd);
	}
	if (!r && o->module_dir && access(o->module_dir, R_OK | X_OK) < 0) {
		char sp[KT_PATH_SHOWN + 1];

		r = -errno;
		snprintf(a->err, sizeof(a->err), "--module-dir %s: cannot read it (%s)",
			 kt_short_path(o->module_dir, sp, sizeof(sp)), strerror(-r));
	}
	if (kt_ids_restore(&saved) < 0) {
		snprintf(a->err, sizeof(a->err), "cannot return to root after checking the inputs");
		return -EPERM;
	}
	if (r < 0) {
		size_t n = strlen(a->err);

		snprintf(a->err + n, sizeof(a->err) - n,
			 " (read as the sudo user, uid %ld: kerntop opens the files you name with "
			 "your rights)",
			 uid);
	}
	return r;
}

/* --push: the feed that cuts one profile per interval and the worker that sends them. */
static int open_push(struct app *a)
{
	const struct kt_options *o = a->opts;
	struct kt_push_opts po = {
	    .url = o->push_url,
	    .name = o->push_name,
	    .labels = o->push_labels,
	    .nlabels = o->npush_labels,
	    .header_file = o->push_header_file,
	    /* one attempt may take as long as an interval, within 5..30 s */
	    .timeout_s = o->push_interval_s < 5 ? 5 : o->push_interval_s > 30 ? 30 : o->push_interval_s,
	};
	struct kt_push_feed_opts fo = {
	    .interval_s = o->push_interval_s,
	    .period_ns = kt_agg_params(a->agg)->ms_per_hit * 1e6,
	    .labels = o->pprof_labels_given ? o->pprof_labels : KT_PPROF_LABELS_PUSH,
	    .names = a->win,
	    .start_ns = a->start_ns,
	    .unix_start_ns = kt_unix_now_ns(),
	};
	struct kt_push *p;

	if (!o->push_url)
		return 0;
	if (kt_push_new(&po, &p, a->err, sizeof(a->err)) < 0)
		return -1;
	return kt_push_feed_new(&fo, a->sym, p, &a->feed, a->err, sizeof(a->err)) < 0 ? -1 : 0;
}

/* The push counters on the viewer's header line. */
static void push_status(struct app *a)
{
	struct kt_push_stats ps;
	char text[96];

	if (!a->feed || !a->ui)
		return;
	kt_push_feed_stats(a->feed, &ps, NULL, NULL);
	snprintf(text, sizeof(text), "%llu sent %llu failed %llu dropped",
		 (unsigned long long)ps.sent, (unsigned long long)ps.failed,
		 (unsigned long long)ps.dropped);
	kt_ui_push_status(a->ui, text, ps.failed || ps.dropped);
}

/* An unknown --zoom module is a usage error: say so before sampling, not at the end. */
static int check_zoom(struct app *a)
{
	if (kt_report_annotate_check(a->agg, a->opts->annotate, a->opts->nannotate, a->err,
				     sizeof(a->err)) < 0)
		return -ENOENT;
	return kt_report_zoom_check(a->agg, a->opts->zoom, a->opts->nzoom, a->err, sizeof(a->err));
}

static void status_notice(struct app *a, const char *msg)
{
	if (!msg || !*msg)
		return;
	if (a->ui) {
		kt_ui_status(a->ui, msg);
	} else {
		fprintf(stderr, "kerntop: %s\n", msg);
		snprintf(a->last_notice, sizeof(a->last_notice), "%s", msg);
		kt_batch_log(a->batch, "notice: %s", msg);
	}
}

/* Source and symbol notices (fallback event, skipped lines, kptr_restrict), once. */
static void startup_notices(struct app *a)
{
	const char *n1 = kt_source_notice(a->src), *n2 = kt_sym_notice(a->sym);
	char both[KT_ERRLEN];

	if (a->ui && n1 && *n1 && n2 && *n2) {
		snprintf(both, sizeof(both), "%s; %s", n1, n2);
		status_notice(a, both);
		return;
	}
	status_notice(a, n1);
	status_notice(a, n2);
}

/* --record: the text of every function sampled (at the IP, not only in call chains), once
 * each, up to KT_REC_TEXT_FUNCS functions and KT_REC_TEXT_BYTES bytes, so a replay elsewhere
 * can annotate. Each tick looks at the locations interned since the last; the end looks at
 * all of them again (a function first seen in a call chain may be sampled later). */
#define KT_REC_TEXT_FUNCS 8192u
#define KT_REC_TEXT_BYTES (64ull << 20)
static void record_texts(struct app *a, int final)
{
	uint32_t n = kt_sym_nlocs(a->sym), from = final ? 0 : a->text_next_loc;
	uint8_t *buf = NULL;

	if (!kt_source_recording(a->src))
		return;
	a->text_next_loc = n;
	for (uint32_t l = from; l < n; l++) {
		uint32_t f = kt_sym_loc(a->sym, l)->func;
		const struct kt_sym_func *fn = kt_sym_func(a->sym, f);
		uint64_t start = fn->start, size = fn->size;
		size_t len;
		int src;
		char err[KT_ERRLEN];

		if (a->text_funcs >= KT_REC_TEXT_FUNCS || fn->bucket || !size || size > KT_TEXT_MAX ||
		    fn->module == KT_MOD_USER || fn->module == KT_MOD_UNKNOWN ||
		    a->text_bytes + size > KT_REC_TEXT_BYTES)
			continue;
		if (f >= a->text_cap) {
			uint32_t cap = f + 1024;
			uint8_t *d = realloc(a->text_done, cap);

			if (!d)
				break;
			memset(d + a->text_cap, 0, cap - a->text_cap);
			a->text_done = d;
			a->text_cap = cap;
		}
		if (a->text_done[f] || !kt_window_addr_range(a->win, start, start + size))
			continue;
		a->text_done[f] = 1; /* tried once, with or without text */
		if (!buf && !(buf = malloc(KT_TEXT_MAX)))
			break;
		len = (size_t)size;
		if (kt_sym_text(a->sym, start, &len, buf, &src, err, sizeof(err)) < 0)
			continue;
		if (kt_source_record_text(a->src, start, buf, len) < 0)
			break; /* kt_source_finish reports the write error */
		a->text_funcs++;
		a->text_bytes += size;
	}
	free(buf);
}

/* The end of a replay: what the reader could not read (a damaged or cut recording) goes to
 * stderr in batch mode and to the status line in the viewer. */
static void replay_finished(struct app *a)
{
	char msg[KT_ERRLEN], both[KT_ERRLEN + 64];

	a->replay_done = 1;
	kt_source_refresh(a->src, msg, sizeof(msg));
	if (!a->ui) {
		status_notice(a, msg);
		return;
	}
	kt_window_advance(a->win, kt_source_now(a->src));
	if (msg[0])
		snprintf(both, sizeof(both), "replay finished (q quits): %s", msg);
	else
		snprintf(both, sizeof(both),
			 "replay finished: q quits, the last state stays on screen");
	kt_ui_status(a->ui, both);
	kt_ui_refresh(a->ui);
}

static void status_notice(struct app *a, const char *msg);

/* Live: the /proc figures of this refresh, read once and written into a --record file. */
static void proc_tick(struct app *a)
{
	char msg[KT_ERRLEN];

	if (a->opts->replay)
		return;
	if (kt_procstat_read(a->proc, kt_source_now(a->src), msg, sizeof(msg)))
		status_notice(a, msg);
	kt_source_procstat(a->src, kt_procstat_latest(a->proc));
}

static double delay_s(const struct app *a)
{
	return a->ui ? kt_ui_delay(a->ui) : a->opts->delay_s;
}

/* A sample the window or the symbolizer could not store (an allocation failed) would make
 * every later report quietly wrong: the run ends with an error instead (issue 20). */
static int out_of_memory(struct app *a)
{
	uint64_t n = kt_window_nomem(a->win) + kt_sym_nomem(a->sym);
	struct kt_source_stats st;

	if (!n)
		return 0;
	kt_source_stats(a->src, &st);
	snprintf(a->err, sizeof(a->err),
		 "out of memory after %llu samples (%llu allocations failed): the profile would "
		 "miss what they held; free memory or raise the limit (ulimit -v)",
		 (unsigned long long)st.samples, (unsigned long long)n);
	return 1;
}

/* The wall time of the next tick, moved (by at most half a slice) to come just after a slice
 * boundary of the source's clock: the window then turns its slice at the tick, and the
 * refresh finds the open slice nearly empty. A tick just before the boundary, where the
 * startup left it, made the CPU view read every slice twice, open and complete (issue 14).
 * The first tick is placed as soon as the first sample has placed the slices, so that no
 * refresh has two new slices to read. */
static uint64_t tick_phase(struct app *a, uint64_t next_tick)
{
	uint64_t slice = kt_window_slice(a->win), now = kt_now_ns(), at, ph, margin, shift;
	double speed = a->opts->replay ? a->opts->speed : 1.0;

	if (a->replay_done || speed <= 0 || !slice || next_tick <= now)
		return next_tick;
	/* the source's clock at the next tick as it stands */
	at = kt_source_now(a->src) + (uint64_t)((double)(next_tick - now) * speed);
	if (kt_window_slice_phase(a->win, at, &ph) < 0)
		return next_tick;
	margin = slice / 64; /* the samples of the tick's own moment, and the loop's latency */
	if (ph >= margin && ph <= slice / 2) { /* past the boundary by more: a bit earlier */
		shift = (uint64_t)((double)(ph - margin) / speed);
		return next_tick - shift > now ? next_tick - shift : next_tick;
	}
	shift = ph < margin ? margin - ph : slice - ph + margin;
	return next_tick + (uint64_t)((double)shift / speed);
}

/* Reads what the source has (the rings, or what a paced replay has due): -1 on an error, 1
 * when a batch replay has ended (the loop ends), else 0. */
static int drain(struct app *a, const struct kt_sink *sink, int *src_timeout)
{
	int r = kt_source_read(a->src, sink, src_timeout, a->err, sizeof(a->err));

	kt_main_ingest(a);
	if (r < 0 || out_of_memory(a))
		return -1;
	if (r == KT_SOURCE_EOF) {
		replay_finished(a);
		if (!a->ui)
			return 1;
	}
	return 0;
}

/* The one event loop: perf rings, keys, signals and the refresh tick. */
static int run_loop(struct app *a, int sigfd)
{
	static const struct kt_sink sink_ops = {0};
	struct kt_sink sink = sink_ops;
	struct pollfd fds[MAX_POLLFDS];
	uint64_t next_tick = kt_now_ns() + (uint64_t)(delay_s(a) * 1e9);
	int batch_max = a->opts->batch && a->opts->replay && a->opts->speed == 0;
	int placed = 0; /* the first tick is placed once the window has placed its slices */

	kt_main_sink(&sink, a);
	for (;;) {
		int n = 0, src_timeout = -1, timeout, r;
		uint64_t now;

		fds[n++] = (struct pollfd){.fd = sigfd, .events = POLLIN};
		if (a->ui)
			fds[n++] = (struct pollfd){.fd = kt_ui_fd(a->ui), .events = POLLIN};
		if (!a->replay_done)
			n += kt_source_pollfds(a->src, fds + n, MAX_POLLFDS - n);

		if (!a->replay_done && (r = drain(a, &sink, &src_timeout)) != 0) {
			if (r < 0)
				return -1;
			break; /* a batch replay has ended */
		}
		if (!placed) {
			uint64_t ph;

			placed = kt_window_slice_phase(a->win, kt_source_now(a->src), &ph) == 0;
			if (placed)
				next_tick = tick_phase(a, next_tick);
		}
		now = kt_now_ns();
		timeout = next_tick > now ? (int)((next_tick - now + 999999) / 1000000) : 0;
		if (batch_max && !a->replay_done)
			timeout = 0;
		else if (src_timeout >= 0 && src_timeout < timeout)
			timeout = src_timeout;
		r = poll(fds, (nfds_t)n, timeout);
		if (r < 0 && errno != EINTR) {
			snprintf(a->err, sizeof(a->err), "poll failed (%s)", strerror(errno));
			return -1;
		}
		if (fds[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGWINCH) {
					if (a->ui)
						kt_ui_resize(a->ui);
				} else {
					return 0;
				}
			}
		}
		if (a->ui && (fds[1].revents & (POLLIN | POLLHUP)) &&
		    kt_ui_input(a->ui) == KT_UI_QUIT)
			return 0;
		now = kt_now_ns();
		if (now >= next_tick && !batch_max) {
			char msg[KT_ERRLEN];

			/* Drain the rings first (a paced replay: what is due) so that a report
			 * includes samples up to this tick. */
			if (!a->replay_done && (r = drain(a, &sink, &src_timeout)) != 0) {
				if (r < 0)
					return -1;
				break;
			}
			/* the refresh (advance, queries, report) is timed from here: the drain
			 * is the samples' work, counted in the run's CPU time */
			if (a->batch)
				kt_batch_tick_start(a->batch, kt_now_ns());
			if (!a->replay_done)
				kt_window_advance(a->win, kt_source_now(a->src));
			if (out_of_memory(a))
				return -1;
			proc_tick(a);
			if (kt_source_refresh(a->src, msg, sizeof(msg)) > 0)
				status_notice(a, msg);
			record_texts(a, 0);
			if (a->feed && !a->replay_done)
				kt_push_feed_tick(a->feed, kt_source_now(a->src));
			if (a->ui) {
				push_status(a);
				kt_ui_refresh(a->ui);
			} else {
				r = kt_batch_tick(a->batch, a->err, sizeof(a->err));
				if (r != KT_BATCH_CONTINUE)
					return r < 0 ? -1 : 0;
			}
			next_tick += (uint64_t)(delay_s(a) * 1e9);
			if (next_tick < now)
				next_tick = now + (uint64_t)(delay_s(a) * 1e9);
			next_tick = tick_phase(a, next_tick);
		}
	}
	return 0;
}

static void cleanup(struct app *a);

/* A baseline or --diff input (docs/history.md): a kerntop JSON report (its first byte is '{'),
 * else a recording or perf script text, replayed at full speed through a pipeline of its own
 * (the same symbols options) and captured whole. Called after privileges are dropped: the
 * file is read with the user's rights. */
static int load_baseline(const struct kt_options *o, const char *path, struct kt_baseline **out,
			 char *err, size_t errlen)
{
	static const struct kt_sink sink_ops = {0};
	struct kt_sink sink = sink_ops;
	struct kt_options bo = *o;
	struct app b;
	char head = 0, sp[KT_PATH_SHOWN + 1];
	int fd, r;

	fd = kt_open_regular(path, err, errlen);
	if (fd < 0)
		return fd;
	while ((r = (int)read(fd, &head, 1)) == 1 && (head == ' ' || head == '\n' || head == '\t'))
		;
	close(fd);
	if (r == 1 && head == '{') {
		char *buf;
		size_t len;

		r = kt_read_file(path, (size_t)1 << 30, &buf, &len, err, errlen);
		if (r < 0)
			return r;
		r = kt_baseline_from_json(buf, len, path, out, err, errlen);
		free(buf);
		if (r < 0) {
			char msg[200];

			snprintf(msg, sizeof(msg), "%s", err);
			snprintf(err, errlen, "%s: %s (give a kerntop -b --format json report, a "
				 "recording or perf script text)", kt_short_path(path, sp, sizeof(sp)),
				 msg);
		}
		return r;
	}
	bo.replay = path;
	bo.speed = 0;
	bo.batch = 1;
	bo.cumulative = 1;
	bo.record = NULL;
	bo.push_url = NULL;
	memset(&b, 0, sizeof(b));
	b.opts = &bo;
	kt_main_sink(&sink, &b);
	r = open_pipeline(&b);
	while (r >= 0) {
		int timeout = -1;

		r = kt_source_read(b.src, &sink, &timeout, b.err, sizeof(b.err));
		kt_main_ingest(&b);
		if (r == KT_SOURCE_EOF)
			break;
	}
	if (r >= 0) {
		kt_window_advance(b.win, kt_source_now(b.src));
		r = kt_baseline_capture(b.agg, path, out);
		if (r < 0)
			snprintf(b.err, sizeof(b.err), "out of memory for the baseline");
	}
	if (r < 0)
		snprintf(err, errlen, "%s", b.err);
	cleanup(&b);
	return r < 0 ? r : 0;
}

/* --diff A B: the two files as baselines, one comparison per level, then exit. */
static int run_diff(const struct kt_options *o)
{
	struct kt_baseline *x = NULL, *y = NULL;
	char err[KT_ERRLEN];
	int r;

	r = load_baseline(o, o->diff_a, &x, err, sizeof(err));
	if (r == 0)
		r = load_baseline(o, o->diff_b, &y, err, sizeof(err));
	if (r == 0)
		r = kt_report_diff(stdout, o->format, x, y, o->top);
	kt_baseline_free(x);
	kt_baseline_free(y);
	if (r < 0) {
		fprintf(stderr, "kerntop: --diff: %s\n", err);
		return 1;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

/* A clock period the kernel would silently raise is a usage error, like a bad -F. */
static int check_period(const struct kt_options *o)
{
	if (o->replay || o->freq_hz || !o->period || o->period >= KT_SOURCE_MIN_CLOCK_PERIOD ||
	    strcmp(o->event, "cycles") == 0)
		return 0;
	fprintf(stderr,
		"kerntop: invalid value '%llu' for -c: %s samples at most every %u ns (the "
		"kernel's timer floor); use -c %u or more, or -F HZ (see kerntop --help)\n",
		(unsigned long long)o->period, strcmp(o->event, "auto") ? o->event : "cpu-clock",
		KT_SOURCE_MIN_CLOCK_PERIOD,
		KT_SOURCE_MIN_CLOCK_PERIOD);
	return -1;
}

static void cleanup(struct app *a)
{
	kt_batch_free(a->batch);
	a->batch = NULL;
	kt_ui_free(a->ui);
	kt_push_feed_free(a->feed);
	a->feed = NULL;
	kt_procstat_free(a->proc);
	a->proc = NULL;
	kt_agg_free(a->agg);
	kt_window_free(a->win);
	kt_sym_free(a->sym);
	free(a->text_done);
	kt_source_free(a->src);
}

int main(int argc, char **argv)
{
	struct kt_options opts;
	struct app a;
	sigset_t mask;
	int sigfd, r, status = 0;

	if (kt_main_hold_std_fds() < 0)
		return 1;
	r = kt_options_parse(&opts, argc, argv, stdout, stderr);
	if (r != KT_OPTIONS_RUN)
		return r;
	if (check_period(&opts) < 0)
		return 2;
	memset(&a, 0, sizeof(a));
	a.opts = &opts;
	if (opts.diff_a) {
		long uid, gid;

		if (kt_main_sudo_ids(&opts, &uid, &gid) && kt_main_drop_privileges(&a) < 0) {
			fprintf(stderr, "kerntop: %s\n", a.err);
			return 1;
		}
		return run_diff(&opts);
	}
	/* The viewer's saved settings, before the window is made; batch reports never read them. */
	if (!opts.batch) {
		kt_settings_ctx_init(&a.settings, !opts.no_config);
		kt_settings_apply(&a.settings.s, &opts);
	}

	signal(SIGSEGV, kt_main_fatal_signal);
	signal(SIGABRT, kt_main_fatal_signal);
	signal(SIGBUS, kt_main_fatal_signal);
	sigfd = kt_main_setup_signals(&mask);
	if (sigfd < 0) {
		fprintf(stderr, "kerntop: cannot set up signal handling (%s)\n", strerror(errno));
		return 1;
	}
	if (check_user_inputs(&a) < 0 || open_pipeline(&a) < 0 || kt_main_drop_privileges(&a) < 0 ||
	    open_push(&a) < 0) {
		fprintf(stderr, "kerntop: %s\n", a.err);
		cleanup(&a);
		return 1;
	}
	if (opts.baseline) {
		struct kt_baseline *base;

		if (load_baseline(&opts, opts.baseline, &base, a.err, sizeof(a.err)) < 0) {
			fprintf(stderr, "kerntop: --baseline: %s\n", a.err);
			cleanup(&a);
			return 1;
		}
		kt_agg_set_baseline(a.agg, base);
	}
	if (kt_main_block_signals(&mask) < 0) {
		fprintf(stderr, "kerntop: cannot set up signal handling (%s)\n", strerror(errno));
		cleanup(&a);
		return 1;
	}
	if (opts.batch) {
		struct kt_batch_env env = {a.agg, a.win, a.sym, a.src, &opts, a.proc, a.feed, a.start_ns};

		if (check_zoom(&a) < 0 || kt_batch_new(&env, &a.batch, a.err, sizeof(a.err)) < 0) {
			fprintf(stderr, "kerntop: %s\n", a.err);
			cleanup(&a);
			return 1;
		}
	} else {
		struct kt_ui_env env = {a.agg, a.win, a.sym, a.src, &opts, a.proc, &a.settings};

		if (check_zoom(&a) < 0 || kt_ui_new(&env, &a.ui, a.err, sizeof(a.err)) < 0) {
			fprintf(stderr, "kerntop: %s\n", a.err);
			cleanup(&a);
			return 1;
		}
	}
	startup_notices(&a);
	proc_tick(&a); /* the first reading: the first refresh has shares over its interval */
	r = run_loop(&a, sigfd);
	/* A last reading, so that the final report and the recording end with the figures up to
	 * now; not right after a tick's: /proc/stat counts 10 ms ticks, a few ms hold none. */
	if (r == 0 && kt_procstat_latest(a.proc) &&
	    kt_source_now(a.src) - kt_procstat_latest(a.proc)->time_ns >= 250000000ull)
		proc_tick(&a);
	record_texts(&a, 1);
	/* Stops sampling and closes a recording: a full disk on the last block is an error. */
	{
		char ferr[KT_ERRLEN];

		if (kt_source_finish(a.src, ferr, sizeof(ferr)) < 0 && r == 0) {
			snprintf(a.err, sizeof(a.err), "%s", ferr);
			r = -1;
		}
	}
	/* The last partial interval goes out too; a lagging server gets a few seconds, then
	 * what is still queued is counted dropped (a hung server never holds up the exit). */
	if (a.feed) {
		kt_push_feed_finish(a.feed, kt_source_now(a.src), KT_PUSH_GRACE_S);
		kt_batch_log_tick(a.batch, "push");
	}
	/* the final report, and the output published (or dropped after a failure) */
	if (a.batch)
		r = kt_batch_finish(a.batch, r, a.err, sizeof(a.err));
	kt_ui_free(a.ui);
	a.ui = NULL;
	if (r < 0) {
		/* a recording failure already shown as a notice is not printed twice */
		if (!a.last_notice[0] || !a.err[0] || !strstr(a.last_notice, a.err))
			fprintf(stderr, "kerntop: %s\n", a.err);
		status = 1;
	}
	kt_batch_log(a.batch, "end: exit %d%s%s", status, status ? ": " : "", status ? a.err : "");
	cleanup(&a);
	close(sigfd);
	return status;
}
