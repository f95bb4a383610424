/* --record as a source decorator: wraps any source, hands its events to the caller's sink and
 * then to the recording writer (source_record.c), so no reader or decoder knows about
 * recordings. A write failure is kept and told by the next read and by kt_source_finish. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kerntop/paths.h"
#include "kerntop/util.h"
#include "source_impl.h"

struct rec_source {
	struct kt_source base; /* first: the dispatcher casts */
	struct kt_source *in;  /* the source recorded */
	struct kt_recorder *rec;
	char path[PATH_MAX];
	int err;		  /* first recorder failure, reported by the next read */
	const struct kt_sink *to; /* the caller's sink, during a read */
};

static const struct kt_source_ops rec_ops;

static void keep(struct rec_source *w, int r)
{
	if (r < 0 && !w->err)
		w->err = r;
}

/* The wrapped source's figures are the decorator's: copied after every call that may change
 * them. */
static void mirror(struct rec_source *w)
{
	w->base.info = w->in->info;
	w->base.stats = w->in->stats;
	memcpy(w->base.notice, w->in->notice, sizeof(w->base.notice));
}

/* The tee: the caller's sink first, then the recording (the order the events came in). */
static void tee_sample(void *ctx, const struct kt_sample *s)
{
	struct rec_source *w = ctx;

	if (w->to && w->to->sample)
		w->to->sample(w->to->ctx, s);
	if (w->rec)
		keep(w, kt_rec_sample(w->rec, s));
}

static void tee_comm(void *ctx, int32_t pid, int32_t tid, const char *comm, uint64_t t)
{
	struct rec_source *w = ctx;

	if (w->to && w->to->comm)
		w->to->comm(w->to->ctx, pid, tid, comm, t);
	if (w->rec)
		keep(w, kt_rec_comm(w->rec, pid, tid, comm, t));
}

static void tee_lost(void *ctx, uint32_t cpu, uint64_t n, uint64_t t)
{
	struct rec_source *w = ctx;

	if (w->to && w->to->lost)
		w->to->lost(w->to->ctx, cpu, n, t);
	if (w->rec)
		keep(w, kt_rec_lost(w->rec, cpu, n, t));
}

static void tee_throttle(void *ctx, uint32_t cpu, int on, uint64_t t)
{
	struct rec_source *w = ctx;

	if (w->to && w->to->throttle)
		w->to->throttle(w->to->ctx, cpu, on, t);
	if (w->rec)
		keep(w, kt_rec_throttle(w->rec, cpu, on, t));
}

/* A source that delivers /proc snapshots itself (a replay) records them as they come. */
static void tee_procstat(void *ctx, const struct kt_ps_snap *snap)
{
	struct rec_source *w = ctx;

	if (w->to && w->to->procstat)
		w->to->procstat(w->to->ctx, snap);
	if (w->rec)
		keep(w, kt_rec_procstat(w->rec, snap));
}

static void failed_msg(const struct rec_source *w, int r, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "--record %s: writing failed (%s); the file holds the blocks written before the "
		 "failure",
		 w->path, strerror(-r));
}

static int rec_read(struct kt_source *s, const struct kt_sink *sink, int *timeout_ms, char *err,
		    size_t errlen)
{
	struct rec_source *w = (struct rec_source *)s;
	const struct kt_sink tee = {
	    .ctx = w,
	    .sample = tee_sample,
	    .comm = tee_comm,
	    .lost = tee_lost,
	    .throttle = tee_throttle,
	    .procstat = tee_procstat,
	};
	int r;

	w->to = sink;
	r = w->in->ops->read(w->in, &tee, timeout_ms, err, errlen);
	w->to = NULL;
	mirror(w);
	if (r < 0)
		return r;
	if (w->err) {
		/* The recorder keeps the first failure with its message: flush hands it over. */
		if (kt_rec_flush(w->rec, err, errlen) == 0)
			failed_msg(w, w->err, err, errlen);
		return w->err;
	}
	return r;
}

static int rec_pollfds(struct kt_source *s, struct pollfd *fds, int max)
{
	struct rec_source *w = (struct rec_source *)s;

	return w->in->ops->pollfds ? w->in->ops->pollfds(w->in, fds, max) : 0;
}

static uint64_t rec_now(const struct kt_source *s)
{
	const struct rec_source *w = (const struct rec_source *)s;

	return w->in->ops->now(w->in);
}

/* The wrapped source's refresh, then the block so far to disk: a crash loses one tick. */
static int rec_refresh(struct kt_source *s, char *msg, size_t msglen)
{
	struct rec_source *w = (struct rec_source *)s;
	char err[KT_ERRLEN];

	if (w->in->ops->refresh)
		w->in->ops->refresh(w->in, msg, msglen);
	mirror(w);
	if (w->rec && !w->err) {
		int r = kt_rec_flush(w->rec, err, sizeof(err));

		if (r < 0) {
			w->err = r;
			kt_source_add_notice(msg, msglen, err);
		}
	}
	return msg[0] ? 1 : 0;
}

/* A write failure is kept and told at the next read, like the samples' own. */
static int rec_procstat(struct kt_source *s, const struct kt_ps_snap *snap)
{
	struct rec_source *w = (struct rec_source *)s;
	int r;

	if (!w->rec || w->err)
		return 0;
	r = kt_rec_procstat(w->rec, snap);
	if (r < 0)
		w->err = r;
	return r;
}

static int rec_text(struct kt_source *s, uint64_t addr, const void *bytes, size_t len)
{
	struct rec_source *w = (struct rec_source *)s;
	int r;

	if (!w->rec || w->err)
		return 0;
	r = kt_rec_text(w->rec, addr, bytes, len);
	if (r < 0 && r != -EINVAL)
		w->err = r;
	return r;
}

static int rec_recording(const struct kt_source *s)
{
	const struct rec_source *w = (const struct rec_source *)s;

	return w->rec && !w->err;
}

static int rec_finish(struct kt_source *s, char *err, size_t errlen)
{
	struct rec_source *w = (struct rec_source *)s;
	int r;

	if (!w->rec)
		return 0;
	/* Samples still in the rings were never shown: leaving them out keeps the recording
	 * exactly what this session's sink saw, so a replay reproduces its reports. */
	if (w->in->ops->stop)
		w->in->ops->stop(w->in);
	r = kt_rec_close(w->rec, err, errlen);
	w->rec = NULL;
	if (r == 0 && w->err) {
		r = w->err;
		failed_msg(w, r, err, errlen);
	}
	return r;
}

static void rec_free(struct kt_source *s)
{
	struct rec_source *w = (struct rec_source *)s;
	char err[KT_ERRLEN];

	rec_finish(s, err, sizeof(err));
	kt_source_free(w->in);
	free(w);
}

static const struct kt_source_ops rec_ops = {
    .name = "record",
    .free = rec_free,
    .pollfds = rec_pollfds,
    .read = rec_read,
    .now = rec_now,
    .refresh = rec_refresh,
    .procstat = rec_procstat,
    .text = rec_text,
    .recording = rec_recording,
    .finish = rec_finish,
};

int kt_source_rec_wrap(struct kt_source *in, const struct kt_source_opts *o, struct kt_source **out,
		       char *err, size_t errlen)
{
	struct rec_source *w = calloc(1, sizeof(*w));
	char ks[PATH_MAX + 32], mods[PATH_MAX + 32];
	const char *kp = o->kallsyms_path, *mp = o->modules_path;
	int r;

	*out = NULL;
	if (!w) {
		snprintf(err, errlen, "--record %s: out of memory", o->record);
		kt_source_free(in);
		return -ENOMEM;
	}
	w->base.ops = &rec_ops;
	w->in = in;
	mirror(w);
	if (!kp) {
		kt_sysroot_path(ks, sizeof(ks), o->sysroot ? o->sysroot : "", "%s",
				KT_PATH_KALLSYMS);
		kp = ks;
	}
	if (!mp) {
		kt_sysroot_path(mods, sizeof(mods), o->sysroot ? o->sysroot : "", "%s",
				KT_PATH_MODULES);
		mp = access(mods, R_OK) == 0 ? mods : NULL;
	}
	snprintf(w->path, sizeof(w->path), "%s", o->record);
	r = kt_rec_open_as(o->record, &in->info, kp, mp, o->record_uid, o->record_gid, &w->rec, err,
			   errlen);
	if (r < 0) {
		rec_free(&w->base);
		return r;
	}
	*out = &w->base;
	return 0;
}
