/* The replay source: a kerntop recording or `perf script` text (auto-detected from the first
 * bytes), read into memory and fed to the sink either paced by the recorded timestamps
 * (--speed X) or as fast as possible in bounded batches (--speed max). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kerntop/util.h"
#include "source_impl.h"
#include "source_replay_impl.h"

/* Samples per read call at full speed: large enough to amortise the loop, small enough that
 * the UI stays responsive (about 10 ms of decoding). */
#define REPLAY_BATCH 65536
/* A paced replay never asks to sleep longer than this (the loop has other work). */
#define REPLAY_MAX_WAIT_MS 1000
/* A paced replay skips a silence longer than this (wall time at the chosen speed). */
#define REPLAY_MAX_GAP_NS 10e9
/* A pipe, or a regular file up to REPLAY_WHOLE_MAX, is read whole, up to this size... */
#define REPLAY_READ_MAX (4ull << 30)
/* ...a bigger file is read through a window of REPLAY_WINDOW bytes at a time (a recording's
 * block, or a long line, can grow it), so that its size does not matter. 1 MiB, the biggest
 * block: 4 MiB read no faster, and its first fill faulted in three MiB more (issue 14). */
#define REPLAY_WHOLE_MAX (32u << 20)
#define REPLAY_WINDOW (1u << 20)
/* ...in steps of this size. */
#define STREAM_STEP (64u << 10)
/* Bytes looked at before any reader scans a file (perf.data magic, NUL bytes). */
#define SNIFF_BYTES 4096

struct replay {
	struct kt_source base;
	int is_rec;
	struct kt_rrec rec;
	struct kt_pscript ps;
	char *data; /* the file, read whole (not mapped: a file cut meanwhile would be SIGBUS) */
	size_t len;
	int fd; /* a file read through a window (data NULL), or -1 */
	char path[PATH_MAX];
	char event[KT_REC_EVENT_MAX + 1];
	double speed;
	uint32_t max_stack;
	uint64_t wall0, rec0, clock;
	int started, eof, have_pending;
	char shown[512]; /* the last decoder notice passed to refresh */
	struct kt_rp_event pending;
};

static int next_event(struct replay *r, struct kt_rp_event *ev)
{
	int got = r->is_rec ? kt_rrec_next(&r->rec, ev) : kt_pscript_next(&r->ps, ev);

	if (got && ev->type == KT_EV_SAMPLE && r->max_stack && ev->s.nr_frames > r->max_stack)
		ev->s.nr_frames = r->max_stack;
	return got;
}

static const char *decoder_notice(const struct replay *r)
{
	return r->is_rec ? r->rec.notice : r->ps.notice;
}

static void update_stats(struct replay *r)
{
	r->base.stats.skipped = r->is_rec ? r->rec.skipped : r->ps.skipped;
	r->base.stats.bytes = r->is_rec ? r->rec.pos : (r->ps.pos < r->len ? r->ps.pos : r->len);
}

static void deliver(struct replay *r, const struct kt_rp_event *ev, const struct kt_sink *k)
{
	switch (ev->type) {
	case KT_EV_SAMPLE:
		r->base.stats.samples++;
		if (k->sample)
			k->sample(k->ctx, &ev->s);
		break;
	case KT_EV_COMM:
		if (k->comm)
			k->comm(k->ctx, ev->pid, ev->tid, ev->comm, ev->time_ns);
		break;
	case KT_EV_LOST:
		r->base.stats.lost += ev->count;
		if (k->lost)
			k->lost(k->ctx, ev->cpu, ev->count, ev->time_ns);
		break;
	case KT_EV_THROTTLE:
		if (ev->throttled)
			r->base.stats.throttled++;
		if (k->throttle)
			k->throttle(k->ctx, ev->cpu, ev->throttled, ev->time_ns);
		break;
	case KT_EV_PROCSTAT:
		if (k->procstat)
			k->procstat(k->ctx, ev->ps);
		break;
	}
	if (ev->time_ns > r->clock)
		r->clock = ev->time_ns;
}

static uint64_t virtual_now(const struct replay *r)
{
	return r->rec0 + (uint64_t)((double)(kt_now_ns() - r->wall0) * r->speed);
}

static int rp_read(struct kt_source *s, const struct kt_sink *sink, int *timeout_ms, char *err,
		   size_t errlen)
{
	struct replay *r = (struct replay *)s;
	uint64_t vt = UINT64_MAX;
	unsigned n = 0;

	(void)err;
	(void)errlen;
	*timeout_ms = -1;
	if (r->eof)
		return KT_SOURCE_EOF;
	if (!r->started) {
		r->started = 1;
		r->wall0 = kt_now_ns();
	}
	if (r->speed > 0)
		vt = virtual_now(r);
	for (;;) {
		if (!r->have_pending) {
			if (!next_event(r, &r->pending)) {
				r->eof = 1;
				update_stats(r);
				if (decoder_notice(r)[0])
					snprintf(r->base.notice, sizeof(r->base.notice),
						 "%.150s: %.350s", r->path, decoder_notice(r));
				return KT_SOURCE_EOF;
			}
			r->have_pending = 1;
		}
		if (r->pending.time_ns > vt &&
		    (double)(r->pending.time_ns - vt) / r->speed > REPLAY_MAX_GAP_NS) {
			/* Samples never stop on a live system: a long silence is a joined or
			 * damaged file, and waiting it out would look like a hang. Skip it. */
			r->rec0 += r->pending.time_ns - vt;
			vt = r->pending.time_ns;
		}
		if (r->pending.time_ns > vt) {
			/* Wake when it is due, but not before KT_SOURCE_DRAIN_MS: the live
			 * loop drains its rings that often, and a wake per millisecond (the
			 * next sample of a busy machine is always that close) would cost the
			 * replay far more than the loop it stands for (issue 14). */
			double ms = (double)(r->pending.time_ns - vt) / r->speed / 1e6;

			*timeout_ms = ms >= REPLAY_MAX_WAIT_MS ? REPLAY_MAX_WAIT_MS
				      : ms < KT_SOURCE_DRAIN_MS ? KT_SOURCE_DRAIN_MS
								: (int)ms + 1;
			break;
		}
		r->have_pending = 0;
		deliver(r, &r->pending, sink);
		if (r->pending.type == KT_EV_SAMPLE && ++n >= REPLAY_BATCH) {
			*timeout_ms = 0;
			break;
		}
	}
	update_stats(r);
	return 0;
}

static uint64_t rp_now(const struct kt_source *s)
{
	const struct replay *r = (const struct replay *)s;
	uint64_t vt;

	if (!r->started)
		return r->rec0;
	if (r->speed <= 0 || r->eof)
		return r->clock ? r->clock : r->rec0;
	/* Paced: the virtual clock, but never past the next event not yet delivered. */
	vt = virtual_now(r);
	if (r->have_pending && vt > r->pending.time_ns)
		vt = r->pending.time_ns;
	return vt > r->clock ? vt : r->clock;
}

static int rp_pollfds(struct kt_source *s, struct pollfd *fds, int max)
{
	(void)s;
	(void)fds;
	(void)max;
	return 0;
}

/* Shows, once, what the decoder found on the way: a recording's summary of what it could not
 * read (complete at the end of the replay), or the skipped lines of a `perf script` file. */
static int rp_refresh(struct kt_source *s, char *msg, size_t msglen)
{
	struct replay *r = (struct replay *)s;
	const char *n = decoder_notice(r);

	if (!n[0] || strcmp(n, r->shown) == 0 || (!r->is_rec && !r->eof))
		return 0;
	snprintf(r->shown, sizeof(r->shown), "%s", n);
	snprintf(msg, msglen, "%.150s: %.350s", r->path, n);
	return 1;
}

static void rp_free(struct kt_source *s)
{
	struct replay *r = (struct replay *)s;

	if (!r)
		return;
	if (r->is_rec)
		kt_rrec_close(&r->rec);
	else
		kt_pscript_close(&r->ps);
	free(r->data);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

static const struct kt_source_ops replay_ops = {
    .name = "replay",
    .free = rp_free,
    .pollfds = rp_pollfds,
    .read = rp_read,
    .now = rp_now,
    .refresh = rp_refresh,
};

/* Refuses, from its first bytes, a file no reader can use, before anything scans it: perf's
 * binary perf.data, and binary data (NUL bytes in the first 4 KiB; text has none) that is no
 * kerntop recording. Returns 0 when a reader may try it. */
static int sniff(const char *b, size_t n, const char *path, char *err, size_t errlen)
{
	if (n >= 8 && (memcmp(b, "PERFILE2", 8) == 0 || memcmp(b, "PERFFILE", 8) == 0)) {
		snprintf(
		    err, errlen,
		    "%s: a perf.data file (perf record's binary format): run perf script first "
		    "(perf script -i %s > file.txt) and replay the text",
		    path, path);
		return -EINVAL;
	}
	if (!kt_rrec_is_recording(b, n) && memchr(b, 0, n < SNIFF_BYTES ? n : SNIFF_BYTES)) {
		snprintf(
		    err, errlen,
		    "%s: wrong magic: neither a kerntop recording nor `perf script` text (binary "
		    "data)",
		    path);
		return -EINVAL;
	}
	return 0;
}

/* An unlinked file in $TMPDIR (else /tmp) to hold a stream too big to keep in memory; -1
 * when none can be made there. dir gets the directory, for messages. */
static int spool_open(char *dir, size_t dirlen)
{
	const char *d = getenv("TMPDIR");
	char t[PATH_MAX];
	int fd;

	snprintf(dir, dirlen, "%s", d && *d ? d : "/tmp");
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) &&
	    snprintf(t, sizeof(t), "%s/kerntop-replay-XXXXXX", dir) < (int)sizeof(t)) {
		fd = mkostemp(t, O_CLOEXEC); /* a file system without O_TMPFILE */
		if (fd >= 0)
			unlink(t);
	}
	return fd;
}

static int write_all(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t got = write(fd, b, n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		b += got;
		n -= (size_t)got;
	}
	return 0;
}

static void spool_failed(const char *path, const char *dir, int e, char *err, size_t errlen)
{
	const char *fix =
	    e == -EFBIG ? "raise the file size limit (ulimit -f) or write the stream to a file"
	    : e == -ENOSPC || e == -EDQUOT
		? "free space there or set TMPDIR to a bigger file system"
		: "set TMPDIR to a writable file system or write the stream to a file";

	snprintf(err, errlen, "%s: keeping the stream in %s failed (%s); %s", path, dir,
		 strerror(-e), fix);
}

/* The file or pipe is read in bounded steps: the first ones are sniffed, and text stops at its
 * first NUL byte, so /dev/zero or a huge sparse text file fails at once instead of filling
 * memory or being scanned for minutes. A regular file is read, not mapped: one cut while it is
 * replayed would raise SIGBUS on a mapping; read, it is simply the bytes that were there.
 * size is a regular file's size (the first allocation), 0 for a pipe. A stream that passes
 * REPLAY_WHOLE_MAX goes on into an unlinked file (spool_open), replayed through the window
 * like a big regular file, so that its size does not matter either; where no such file can
 * be made it is held whole. */
static int read_stream(struct replay *r, int fd, size_t size, const char *path, char *err,
		       size_t errlen)
{
	size_t cap = STREAM_STEP, n = 0, ncap, spooled = 0;
	char *b = malloc(cap + 1), *nb, *nul, dir[PATH_MAX];
	int sniffed = 0, text = 0, e, spool = -1, tried = 0;

	if (!b)
		goto oom;
	for (;;) {
		ssize_t got;

		if (!size && sniffed && !tried && n >= REPLAY_WHOLE_MAX) {
			tried = 1;
			spool = spool_open(dir, sizeof(dir));
		}
		if (spool >= 0 && n >= STREAM_STEP) {
			e = write_all(spool, b, n);
			if (e < 0) {
				spool_failed(path, dir, e, err, errlen);
				close(spool);
				free(b);
				return e;
			}
			spooled += n;
			n = 0;
			if (cap > STREAM_STEP && (nb = realloc(b, STREAM_STEP + 1))) {
				b = nb; /* the memory held so far is given back */
				cap = STREAM_STEP;
			}
		}
		if (n == cap) {
			if (cap >= REPLAY_READ_MAX) {
				snprintf(err, errlen, "%s: larger than %llu bytes", path,
					 (unsigned long long)REPLAY_READ_MAX);
				free(b);
				return -EFBIG;
			}
			/* once sniffed, a regular file's buffer takes its size in one step (+1: the
			 * read that sees the end needs room) */
			ncap = sniffed && size >= cap * 2 && size < REPLAY_READ_MAX ? size + 1
										    : cap * 2;
			nb = realloc(b, ncap + 1);
			if (!nb)
				goto oom;
			b = nb;
			cap = ncap;
		}
		got = read(fd, b + n, cap - n < STREAM_STEP ? cap - n : STREAM_STEP);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = errno;
			snprintf(err, errlen, "%s: read failed (%s)", path, strerror(e));
			free(b);
			return -e;
		}
		if (!sniffed && (n + (size_t)got >= SNIFF_BYTES || got == 0)) {
			sniffed = 1;
			e = sniff(b, n + (size_t)got, path, err, errlen);
			if (e < 0) {
				free(b);
				return e;
			}
			text = !kt_rrec_is_recording(b, n + (size_t)got);
		}
		nul = text ? memchr(b + n, 0, (size_t)got) : NULL;
		if (nul) {
			snprintf(err, errlen,
				 "%s: binary data (a NUL byte at byte %zu of the text): not `perf "
				 "script` "
				 "output",
				 path, spooled + (size_t)(nul - b));
			if (spool >= 0)
				close(spool);
			free(b);
			return -EINVAL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (spool >= 0) {
		e = n ? write_all(spool, b, n) : 0;
		free(b);
		if (e < 0) {
			spool_failed(path, dir, e, err, errlen);
			close(spool);
			return e;
		}
		r->fd = spool;
		r->len = spooled + n;
		r->is_rec = !text;
		return 0;
	}
	b[n] = 0;
	r->data = b;
	r->len = n;
	return 0;
oom:
	free(b);
	snprintf(err, errlen, "%s: out of memory", path);
	return -ENOMEM;
}

/* A big regular file: sniffed, then kept open for the decoders' window. */
static int open_window(struct replay *r, int fd, const char *path, char *err, size_t errlen)
{
	char b[SNIFF_BYTES];
	ssize_t got;
	int e;

	do
		got = pread(fd, b, sizeof(b), 0);
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		e = errno;
		snprintf(err, errlen, "%s: read failed (%s)", path, strerror(e));
		return -e;
	}
	e = sniff(b, (size_t)got, path, err, errlen);
	if (e < 0)
		return e;
	r->fd = fd;
	r->is_rec = kt_rrec_is_recording(b, (size_t)got);
	return 0;
}

static int load(struct replay *r, const char *path, char *err, size_t errlen)
{
	char sp[KT_PATH_SHOWN + 1];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	/* A FIFO blocks here until a writer comes: the start is interruptible (main blocks the
	 * quit signals for its signalfd only once everything is loaded). */
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: cannot open replay file (%s)",
			 kt_short_path(path, sp, sizeof(sp)), strerror(e));
		return -e;
	}
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		e = S_ISDIR(st.st_mode) ? EISDIR : errno;
		close(fd);
		snprintf(err, errlen, "%s: cannot replay (%s)", kt_short_path(path, sp, sizeof(sp)),
			 strerror(e));
		return -e;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > REPLAY_WHOLE_MAX &&
	    (uint64_t)st.st_size <= SIZE_MAX) {
		r->len = (size_t)st.st_size;
		e = open_window(r, fd, path, err, errlen);
		if (e < 0)
			close(fd);
		return e;
	}
	e = read_stream(r, fd, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, path, err, errlen);
	close(fd);
	if (e == 0 && r->fd < 0)
		r->is_rec = r->len && kt_rrec_is_recording(r->data, r->len);
	return e;
}

int kt_source_replay_open(const struct kt_source_opts *o, struct kt_source **out, char *err,
			  size_t errlen)
{
	struct replay *r = calloc(1, sizeof(*r));
	const struct kt_rp_info *in;
	struct kt_rwin win;
	char msg[KT_ERRLEN];
	int e;

	*out = NULL;
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(r->path, sizeof(r->path), "%s", o->replay);
	r->fd = -1;
	e = load(r, o->replay, err, errlen);
	if (e < 0) {
		free(r);
		return e;
	}
	if (r->fd >= 0)
		kt_rwin_file(&win, r->fd, r->len, REPLAY_WINDOW);
	else
		kt_rwin_mem(&win, r->data, r->len);
	if (r->is_rec)
		e = kt_rrec_open_win(&r->rec, &win, 1, msg, sizeof(msg));
	else
		e = kt_pscript_open_win(&r->ps, &win, msg, sizeof(msg));
	if (e < 0) {
		snprintf(err, errlen, "%s: %s", o->replay, msg);
		rp_free(&r->base);
		return e;
	}
	in = r->is_rec ? &r->rec.info : &r->ps.info;
	r->base.ops = &replay_ops;
	r->speed = o->speed > 0 ? o->speed : 0;
	r->max_stack = o->max_stack;
	snprintf(r->event, sizeof(r->event), "%s", in->event);
	r->base.info = (struct kt_source_info){
	    .kind = "replay",
	    .event = r->event,
	    .freq_hz = in->freq_hz,
	    .period = in->period,
	    .ncpus = in->ncpus,
	    .cpus = in->cpus,
	    .max_cpu = in->max_cpu ? in->max_cpu : 1,
	    .callchain = in->callchain,
	    .user = in->user,
	    .path = r->path,
	    .kallsyms = in->kallsyms,
	    .kallsyms_len = in->kallsyms ? in->kallsyms_len : 0,
	    .modules = in->modules,
	    .modules_len = in->modules ? in->modules_len : 0,
	    .texts = in->texts,
	    .ntexts = in->ntexts,
	};
	if (decoder_notice(r)[0]) {
		snprintf(r->base.notice, sizeof(r->base.notice), "%.150s: %.350s", r->path,
			 decoder_notice(r));
		snprintf(r->shown, sizeof(r->shown), "%s", decoder_notice(r));
	}
	/* Peek the first event: it sets the replayed clock's origin. */
	if (next_event(r, &r->pending)) {
		r->have_pending = 1;
		r->rec0 = r->pending.time_ns;
	}
	r->clock = 0;
	*out = &r->base;
	return 0;
}
