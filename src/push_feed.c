/* The push feed: every sample also goes into a window of its own in cumulative mode; when the
 * source clock passes the end of the interval that window becomes one pprof profile (built
 * here, on the loop thread, because the symbolizer is not shared with the worker), is handed
 * to the push worker and starts over empty. So each sample is in exactly one pushed profile,
 * and a server that lags costs the loop nothing but a queue append. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kerntop/push.h"
#include "kerntop/report.h"
#include "kerntop/util.h"
#include "kerntop/window.h"

struct kt_push_feed {
	struct kt_push_feed_opts o;
	struct kt_symbols *s;
	struct kt_push *push;
	struct kt_window *w; /* the hits of the interval in progress */
	uint64_t interval_ns;
	uint64_t from_ns, until_ns; /* source clock */
	uint64_t samples, profiles, build_failed;
	uint64_t lost_until; /* the interval already counted in build_failed for want of a window */
	uint64_t build_cpu_ns; /* building and compressing, on the loop thread */
};

static int window_fresh(struct kt_push_feed *f)
{
	/* cumulative: nothing expires inside the interval; one slice per interval */
	struct kt_window_opts wo = {
	    .span_ns = f->interval_ns, .slice_ns = f->interval_ns, .cumulative = 1};

	kt_window_free(f->w);
	f->w = NULL;
	return kt_window_new(&wo, &f->w);
}

int kt_push_feed_new(const struct kt_push_feed_opts *o, struct kt_symbols *s, struct kt_push *push,
		     struct kt_push_feed **out, char *err, size_t errlen)
{
	struct kt_push_feed *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f) {
		kt_push_free(push);
		snprintf(err, errlen, "push: out of memory");
		return -ENOMEM;
	}
	f->o = *o;
	f->s = s;
	f->push = push;
	f->interval_ns = (uint64_t)(o->interval_s * 1e9);
	if (!f->interval_ns)
		f->interval_ns = 1;
	f->from_ns = o->start_ns;
	f->until_ns = o->start_ns + f->interval_ns;
	if (window_fresh(f) < 0) {
		kt_push_feed_free(f);
		snprintf(err, errlen, "push: out of memory");
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

/* The profile of [from, end) to the worker, then an empty window; an empty one is not sent. */
static void cut(struct kt_push_feed *f, uint64_t end_ns)
{
	struct kt_pprof_opts po = {0};
	uint8_t *raw = NULL, *gz = NULL;
	size_t rawlen, gzlen;
	uint64_t dur = end_ns > f->from_ns ? end_ns - f->from_ns : 0;

	if (kt_window_total(f->w)) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		po.period_ns = f->o.period_ns;
		po.time_ns = f->o.unix_start_ns + (f->from_ns - f->o.start_ns);
		po.duration_ns = dur;
		po.labels = f->o.labels;
		po.names = f->o.names;
		/* a window that could not hold a sample (out of memory) would send a profile
		 * missing it: the interval is given up and counted as dropped instead */
		if (!kt_window_nomem(f->w) && kt_pprof_build(f->w, f->s, &po, &raw, &rawlen) == 0 &&
		    kt_gzip(raw, rawlen, &gz, &gzlen) == 0) {
			f->profiles++;
			kt_push_send(f->push, gz, gzlen, po.time_ns, po.time_ns + dur);
		} else {
			f->build_failed++;
		}
		free(raw);
		if (window_fresh(f) < 0)
			f->w = NULL;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
		f->build_cpu_ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull +
				   (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
	}
	f->from_ns = end_ns;
	f->until_ns = end_ns + f->interval_ns;
}

/* Intervals follow each other on the grid start + k x interval; a gap with no sample at
 * all (a paused replay) sends nothing for the empty intervals. */
static void advance(struct kt_push_feed *f, uint64_t t)
{
	if (t < f->until_ns)
		return;
	cut(f, f->until_ns);
	if (t >= f->until_ns) {
		uint64_t k = (t - f->from_ns) / f->interval_ns;

		f->from_ns += k * f->interval_ns;
		f->until_ns = f->from_ns + f->interval_ns;
	}
}

void kt_push_feed_sample(struct kt_push_feed *f, uint64_t time_ns, uint32_t loc,
			 const uint32_t *locs, uint32_t nlocs, uint32_t cpu, int32_t pid,
			 int32_t tid, uint32_t ctx)
{
	uint32_t stack = 0, task;

	advance(f, time_ns);
	if (!f->w && window_fresh(f) < 0) {
		/* out of memory: this interval's profile cannot be made; counted once */
		if (f->lost_until != f->until_ns)
			f->build_failed++;
		f->lost_until = f->until_ns;
		return;
	}
	if (nlocs)
		stack = kt_window_stack(f->w, locs, nlocs);
	task = kt_window_task(f->w, pid, tid);
	kt_window_add_ctx(f->w, time_ns, loc, stack, cpu, task, ctx, 1);
	f->samples++;
}

void kt_push_feed_comm(struct kt_push_feed *f, int32_t pid, int32_t tid, const char *comm)
{
	if (f->w)
		kt_window_comm(f->w, pid, tid, comm);
}

void kt_push_feed_tick(struct kt_push_feed *f, uint64_t now_ns)
{
	advance(f, now_ns);
}

void kt_push_feed_finish(struct kt_push_feed *f, uint64_t now_ns, double grace_s)
{
	if (f->w)
		cut(f, now_ns > f->from_ns ? now_ns : f->from_ns);
	kt_push_finish(f->push, grace_s);
}

void kt_push_feed_stats(struct kt_push_feed *f, struct kt_push_stats *st, uint64_t *samples,
			uint64_t *profiles)
{
	kt_push_stats(f->push, st);
	st->build_cpu_ns = f->build_cpu_ns;
	st->dropped += f->build_failed; /* intervals whose profile could not be built */
	if (samples)
		*samples = f->samples;
	if (profiles)
		*profiles = f->profiles;
}

void kt_push_feed_free(struct kt_push_feed *f)
{
	if (!f)
		return;
	kt_push_free(f->push);
	kt_window_free(f->w);
	free(f);
}
