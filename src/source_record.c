/* The --record writer: a versioned header, the symbol context, then checksummed blocks of
 * compact records (docs/recording-format.md). Records go into one 64 KiB buffer holding whole
 * blocks, written with one write(2) when full or on kt_rec_flush, so a crash or a full disk
 * leaves a file readable up to the last complete block. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "kerntop/util.h"
#include "source_impl.h"
#include "source_replay_impl.h"

#define REC_BUF (64u << 10)
/* Worst case of one record: a sample with KT_MAX_STACK frames and a chain id, all varints at
 * 10 bytes. */
#define REC_MAX (1 + 10 * 9 + 10 * KT_MAX_STACK)

struct kt_recorder {
	int fd;
	int error; /* sticky -errno after a failed write */
	char msg[KT_ERRLEN];
	char path[PATH_MAX];
	uint64_t written;
	uint8_t *buf;
	size_t used;
	size_t blk;    /* offset of the open block's header in buf */
	uint32_t type; /* of the open block, 0 when none */
	uint32_t nrec;
	uint64_t t, ip, period; /* delta state of the open block */
	uint32_t cpu;
	uint64_t nsamples, ncomm, nlost, nthrottle;
	uint8_t *psbuf; /* a PROCSTAT block being encoded (KT_REC_BLK_MAX, allocated once) */
	uint32_t version; /* 2 with call chains (written by id), else 1 */
	struct kt_wchains chains;
	uint64_t epoch_at; /* bytes of file when the chains' epoch began */
};

static int fail(struct kt_recorder *r, int e, const char *what)
{
	if (e == EFBIG)
		snprintf(r->msg, sizeof(r->msg),
			 "%.300s: the file size limit (ulimit -f) is reached after %llu bytes; the "
			 "recording is readable up to its last complete block: raise the limit or "
			 "record shorter",
			 r->path, (unsigned long long)r->written);
	else if (e == ENOSPC || e == EDQUOT)
		snprintf(r->msg, sizeof(r->msg),
			 "%.300s: disk full after %llu bytes (%s); the recording is readable up to "
			 "its last "
			 "complete block: free space or record to another filesystem",
			 r->path, (unsigned long long)r->written, strerror(e));
	else
		snprintf(r->msg, sizeof(r->msg), "%.300s: %s failed after %llu bytes (%s)", r->path,
			 what, (unsigned long long)r->written, strerror(e));
	r->error = -e;
	return -e;
}

static int write_all(struct kt_recorder *r, struct iovec *iov, int n)
{
	uint64_t start = r->written;

	while (n > 0) {
		ssize_t w = writev(r->fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			/* Cut the part of this block that fit: the file then ends at its last
			 * complete block, with no torn one (a full disk, a ulimit -f limit). */
			if (r->written > start && ftruncate(r->fd, (off_t)start) == 0)
				r->written = start;
			return fail(r, errno, "write");
		}
		if (w == 0)
			return fail(r, EIO, "write");
		r->written += (uint64_t)w;
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

static void blk_header(uint8_t *h, uint32_t type, uint32_t len, uint32_t nrec, const void *payload)
{
	kt_put_u32(h, type);
	kt_put_u32(h + 4, len);
	kt_put_u32(h + 8, nrec);
	kt_put_u32(h + 12, kt_crc32(kt_crc32(0, h, 12), payload, len));
}

static void close_block(struct kt_recorder *r)
{
	uint8_t *h = r->buf + r->blk;

	if (!r->type)
		return;
	blk_header(h, r->type, (uint32_t)(r->used - r->blk - KT_REC_BLK_HDR), r->nrec,
		   h + KT_REC_BLK_HDR);
	r->type = 0;
}

static int write_buf(struct kt_recorder *r)
{
	struct iovec iov = {r->buf, r->used};
	int e;

	close_block(r);
	if (!r->used)
		return 0;
	e = write_all(r, &iov, 1);
	r->used = 0;
	return e;
}

/* Makes room for one record of a block of type t and opens that block if needed. */
static uint8_t *reserve(struct kt_recorder *r, uint32_t type)
{
	if (r->error)
		return NULL;
	if (r->used + REC_MAX > REC_BUF) {
		if (write_buf(r) < 0)
			return NULL;
	}
	if (r->type != type) {
		close_block(r);
		r->blk = r->used;
		r->used += KT_REC_BLK_HDR;
		r->type = type;
		r->nrec = 0;
		r->t = r->ip = r->period = 0;
		r->cpu = 0;
	}
	return r->buf + r->used;
}

int kt_rec_sample(struct kt_recorder *r, const struct kt_sample *s)
{
	uint8_t *p0, *p, *hdr;
	uint32_t nf = s->nr_frames > KT_MAX_STACK ? KT_MAX_STACK : s->nr_frames;
	uint32_t xflags = s->flags & ~(uint32_t)KT_SAMPLE_USER;
	uint8_t h = 0;
	uint64_t id = 0;
	int known = -1;

	if (!r)
		return 0;
	p0 = p = reserve(r, KT_BLK_SAMPLES);
	if (!p)
		return r->error;
	hdr = p++;
	if (nf > 1 && s->frames && r->version >= 2) {
		if (r->written + r->used - r->epoch_at > KT_REC_CHAIN_EPOCH_BYTES) {
			kt_wchains_epoch(&r->chains);
			r->epoch_at = r->written + r->used;
		}
		known = kt_wchains_id(&r->chains, s->frames + 1, nf - 1, &id);
		if (known >= 0)
			h |= KT_RS_CHAIN;
	}
	if (s->flags & KT_SAMPLE_USER)
		h |= KT_RS_USER;
	if (r->nrec && s->period == r->period)
		h |= KT_RS_SAME_PERIOD;
	if (s->pid == s->tid)
		h |= KT_RS_PID_IS_TID;
	if (nf && s->frames && known != 1)
		h |= KT_RS_FRAMES;
	if (r->nrec && s->cpu == r->cpu)
		h |= KT_RS_SAME_CPU;
	if (xflags)
		h |= KT_RS_XFLAGS;
	*hdr = h;
	p = kt_put_var(p, kt_zig((int64_t)(s->time_ns - r->t)));
	if (!(h & KT_RS_SAME_CPU))
		p = kt_put_var(p, s->cpu);
	p = kt_put_var(p, kt_zig(s->pid));
	if (!(h & KT_RS_PID_IS_TID))
		p = kt_put_var(p, kt_zig(s->tid));
	p = kt_put_var(p, kt_zig((int64_t)(s->ip - r->ip)));
	if (!(h & KT_RS_SAME_PERIOD))
		p = kt_put_var(p, s->period);
	if (xflags)
		p = kt_put_var(p, xflags);
	if (known == 1)
		p = kt_put_var(p, kt_zig((int64_t)(s->frames[0] - s->ip)));
	if (h & KT_RS_FRAMES) {
		uint64_t prev = s->ip;

		p = kt_put_var(p, nf);
		for (uint32_t i = 0; i < nf; i++) {
			p = kt_put_var(p, kt_zig((int64_t)(s->frames[i] - prev)));
			prev = s->frames[i];
		}
	}
	if (h & KT_RS_CHAIN)
		p = kt_put_var(p, id);
	r->used += (size_t)(p - p0);
	r->nrec++;
	r->t = s->time_ns;
	r->ip = s->ip;
	r->period = s->period;
	r->cpu = s->cpu;
	r->nsamples++;
	return 0;
}

int kt_rec_comm(struct kt_recorder *r, int32_t pid, int32_t tid, const char *comm, uint64_t t)
{
	uint8_t *p0, *p;
	size_t n = comm ? strnlen(comm, 255) : 0;

	if (!r)
		return 0;
	p0 = p = reserve(r, KT_BLK_COMM);
	if (!p)
		return r->error;
	p = kt_put_var(p, kt_zig(pid));
	p = kt_put_var(p, kt_zig(tid));
	p = kt_put_var(p, t);
	*p++ = (uint8_t)n;
	memcpy(p, comm ? comm : "", n);
	p += n;
	r->used += (size_t)(p - p0);
	r->nrec++;
	r->ncomm++;
	return 0;
}

int kt_rec_lost(struct kt_recorder *r, uint32_t cpu, uint64_t count, uint64_t t)
{
	uint8_t *p0, *p;

	if (!r)
		return 0;
	p0 = p = reserve(r, KT_BLK_LOST);
	if (!p)
		return r->error;
	p = kt_put_var(p, cpu);
	p = kt_put_var(p, count);
	p = kt_put_var(p, t);
	r->used += (size_t)(p - p0);
	r->nrec++;
	r->nlost++;
	return 0;
}

int kt_rec_throttle(struct kt_recorder *r, uint32_t cpu, int throttled, uint64_t t)
{
	uint8_t *p0, *p;

	if (!r)
		return 0;
	p0 = p = reserve(r, KT_BLK_THROTTLE);
	if (!p)
		return r->error;
	p = kt_put_var(p, cpu);
	*p++ = throttled ? 1 : 0;
	p = kt_put_var(p, t);
	r->used += (size_t)(p - p0);
	r->nrec++;
	r->nthrottle++;
	return 0;
}

/* Worst case of n varints plus a name of len bytes and its length byte. */
#define VARS(n) ((size_t)(n) * 10)

static uint8_t *put_name(uint8_t *p, const char *s, size_t max)
{
	size_t n = strnlen(s, max - 1);

	*p++ = (uint8_t)n;
	memcpy(p, s, n);
	return p + n;
}

int kt_rec_procstat(struct kt_recorder *r, const struct kt_ps_snap *s)
{
	uint32_t n = s->max_cpu, rows = 0, nirq = 0;
	uint8_t *p, *end, *at;
	struct iovec iov;

	if (!r)
		return 0;
	if (r->error || write_buf(r) < 0)
		return r->error;
	if (!r->psbuf && !(r->psbuf = malloc(KT_REC_BLK_MAX)))
		return fail(r, ENOMEM, "allocation");
	p = r->psbuf + KT_REC_BLK_HDR;
	end = r->psbuf + KT_REC_BLK_MAX;
	/* time, have, the stat rows and the softirqs fit: at most 8192 CPUs * 10 varints */
	for (uint32_t c = 0; c < n; c++)
		rows += s->online[c];
	if (VARS(3 + KT_PS_NSTAT + (size_t)rows * (1 + KT_PS_NSTAT)) +
		VARS((size_t)KT_PS_MAX_VEC * n) + KT_PS_MAX_VEC * KT_PS_VEC_NAME + 64 >
	    (size_t)(end - p))
		return 0; /* more CPUs than a block can hold: not recorded */
	p = kt_put_var(p, s->time_ns);
	p = kt_put_var(p, s->have & 7u);
	if (s->have & KT_PS_HAVE_STAT) {
		for (int i = 0; i < KT_PS_NSTAT; i++)
			p = kt_put_var(p, s->total[i]);
		p = kt_put_var(p, rows);
		for (uint32_t c = 0; c < n; c++) {
			if (!s->online[c])
				continue;
			p = kt_put_var(p, c);
			for (int i = 0; i < KT_PS_NSTAT; i++)
				p = kt_put_var(p, s->stat[(size_t)c * KT_PS_NSTAT + i]);
		}
	}
	if (s->have & KT_PS_HAVE_SOFTIRQS) {
		p = kt_put_var(p, s->nvec);
		for (uint32_t v = 0; v < s->nvec; v++) {
			p = put_name(p, s->vec[v], KT_PS_VEC_NAME);
			for (uint32_t c = 0; c < n; c++)
				p = kt_put_var(p, s->softirq[(size_t)v * n + c]);
		}
	}
	if (s->have & KT_PS_HAVE_INTERRUPTS) {
		/* the line count goes in front once known: reserve its (short) varint */
		at = p;
		p += 2;
		while (nirq < s->nirq && nirq < KT_PS_MAX_IRQ &&
		       (size_t)(end - p) > 2 + KT_PS_IRQ_NAME + KT_PS_IRQ_DESC + VARS(n)) {
			p = put_name(p, s->irq[nirq].name, KT_PS_IRQ_NAME);
			p = put_name(p, s->irq[nirq].desc, KT_PS_IRQ_DESC);
			for (uint32_t c = 0; c < n; c++)
				p = kt_put_var(p, s->irqcnt[(size_t)nirq * n + c]);
			nirq++;
		}
		/* two-byte varint, KT_PS_MAX_IRQ < 16384 */
		at[0] = (uint8_t)(nirq | 0x80);
		at[1] = (uint8_t)(nirq >> 7);
	}
	blk_header(r->psbuf, KT_BLK_PROCSTAT, (uint32_t)(p - r->psbuf - KT_REC_BLK_HDR), 1,
		   r->psbuf + KT_REC_BLK_HDR);
	iov = (struct iovec){r->psbuf, (size_t)(p - r->psbuf)};
	return write_all(r, &iov, 1);
}

int kt_rec_flush(struct kt_recorder *r, char *err, size_t errlen)
{
	if (!r)
		return 0;
	if (!r->error)
		write_buf(r);
	if (r->error) {
		snprintf(err, errlen, "%s", r->msg);
		return r->error;
	}
	return 0;
}

int kt_rec_text(struct kt_recorder *r, uint64_t addr, const void *bytes, size_t len)
{
	uint8_t h[KT_REC_BLK_HDR + 8];
	struct iovec iov[2] = {{h, sizeof(h)}, {(void *)bytes, len}};
	uint32_t crc;

	if (r->error)
		return r->error;
	if (!len || len > KT_REC_TEXT_MAX)
		return -EINVAL;
	/* the open block goes first: blocks keep their order */
	if (write_buf(r) < 0)
		return r->error;
	kt_put_u64(h + KT_REC_BLK_HDR, addr);
	kt_put_u32(h, KT_BLK_TEXT);
	kt_put_u32(h + 4, (uint32_t)(len + 8));
	kt_put_u32(h + 8, 1);
	crc = kt_crc32(kt_crc32(kt_crc32(0, h, 12), h + KT_REC_BLK_HDR, 8), bytes, len);
	kt_put_u32(h + 12, crc);
	return write_all(r, iov, 2);
}

int kt_rec_close(struct kt_recorder *r, char *err, size_t errlen)
{
	uint8_t end[KT_REC_BLK_HDR + 40], *p = end + KT_REC_BLK_HDR;
	int e;

	if (!r)
		return 0;
	if (!r->error && write_buf(r) == 0) {
		struct iovec iov;

		p = kt_put_var(p, r->nsamples);
		p = kt_put_var(p, r->ncomm);
		p = kt_put_var(p, r->nlost);
		p = kt_put_var(p, r->nthrottle);
		blk_header(end, KT_BLK_END, (uint32_t)(p - end - KT_REC_BLK_HDR), 0,
			   end + KT_REC_BLK_HDR);
		iov = (struct iovec){end, (size_t)(p - end)};
		if (write_all(r, &iov, 1) == 0 && fsync(r->fd) < 0 && errno != EINVAL)
			fail(r, errno, "fsync");
	}
	if (close(r->fd) < 0 && !r->error)
		fail(r, errno, "close");
	e = r->error;
	if (e)
		snprintf(err, errlen, "%s", r->msg);
	free(r->buf);
	free(r->psbuf);
	kt_wchains_free(&r->chains);
	free(r);
	return e;
}

/* Reads a symbol-context file; a missing modules file means a kernel without modules. */
static int read_ctx(const char *path, int missing_ok, char **buf, size_t *len, char *err,
		    size_t errlen)
{
	int e;

	*buf = NULL;
	*len = 0;
	if (!path)
		return 0;
	e = kt_read_file(path, KT_REC_SYMS_MAX, buf, len, err, errlen);
	if (e == -ENOENT && missing_ok) {
		*buf = NULL;
		*len = 0;
		return 1;
	}
	return e;
}

static int write_header(struct kt_recorder *r, const struct kt_source_info *info,
			uint32_t version)
{
	const char *ev = info->event ? info->event : "";
	size_t evlen = strnlen(ev, KT_REC_EVENT_MAX);
	uint32_t ncpus = info->cpus ? info->ncpus : 0, flags = 0, max_cpu = info->max_cpu;
	size_t hlen = KT_REC_HDR_FIXED + evlen + 4 * (size_t)ncpus + 4;
	struct timespec ts;
	struct iovec iov;
	uint8_t *h, *p;
	int e;

	if (ncpus > KT_REC_MAX_CPU)
		ncpus = 0;
	for (uint32_t i = 0; i < ncpus; i++)
		if (info->cpus[i] >= max_cpu)
			max_cpu = info->cpus[i] + 1;
	h = calloc(1, hlen);
	if (!h)
		return fail(r, ENOMEM, "allocation");
	clock_gettime(CLOCK_REALTIME, &ts);
	if (info->callchain)
		flags |= KT_REC_F_CALLCHAIN;
	if (info->user)
		flags |= KT_REC_F_USER;
	memcpy(h, KT_REC_MAGIC, KT_REC_MAGIC_LEN);
	/* Without call chains nothing needs version 2: older kerntops still read the file. */
	r->version = version ? version : info->callchain ? KT_REC_VERSION : 1;
	kt_put_u32(h + 8, r->version);
	kt_put_u32(h + 12, (uint32_t)hlen);
	kt_put_u32(h + 16, flags);
	kt_put_u32(h + 20, max_cpu);
	kt_put_u64(h + 24, info->freq_hz);
	kt_put_u64(h + 32, info->period);
	kt_put_u64(h + 40, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
	kt_put_u32(h + 48, ncpus);
	kt_put_u16(h + 52, (uint16_t)evlen);
	memcpy(h + KT_REC_HDR_FIXED, ev, evlen);
	p = h + KT_REC_HDR_FIXED + evlen;
	for (uint32_t i = 0; i < ncpus; i++, p += 4)
		kt_put_u32(p, info->cpus[i]);
	kt_put_u32(p, kt_crc32(0, h, (size_t)(p - h)));
	iov = (struct iovec){h, hlen};
	e = write_all(r, &iov, 1);
	free(h);
	return e;
}

static int write_syms(struct kt_recorder *r, uint32_t type, const char *text, size_t len)
{
	uint8_t h[KT_REC_BLK_HDR];
	struct iovec iov[2] = {{h, sizeof(h)}, {(void *)text, len}};

	blk_header(h, type, (uint32_t)len, 0, text ? text : "");
	return write_all(r, iov, len ? 2 : 1);
}

/* Creates path as uid:gid (see kt_ids_assume), or as the process for uid <= 0. */
static int create_as(const char *path, long uid, long gid, char *err, size_t errlen)
{
	struct kt_ids saved;
	int fd = kt_ids_assume(uid, gid, &saved, err, errlen);

	if (fd < 0)
		return fd;
	fd = kt_file_create(path, err, errlen);
	if (kt_ids_restore(&saved) < 0) {
		/* Never go on with a half-restored identity. */
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		snprintf(err, errlen, "%s: cannot return to root after creating it", path);
		return -EPERM;
	}
	return fd;
}

static void unlink_as(const char *path, long uid, long gid)
{
	struct kt_ids saved;
	char err[KT_ERRLEN];

	if (kt_ids_assume(uid, gid, &saved, err, sizeof(err)) == 0) {
		unlink(path);
		kt_ids_restore(&saved);
	}
}

static int rec_open(const char *path, const struct kt_source_info *info,
		    const char *kallsyms_path, const char *modules_path, long uid, long gid,
		    uint32_t version, struct kt_recorder **out, char *err, size_t errlen)
{
	struct kt_recorder *r;
	char *ks = NULL, *mods = NULL;
	size_t kslen = 0, modlen = 0;
	int e, nomods;

	*out = NULL;
	e = read_ctx(kallsyms_path, 0, &ks, &kslen, err, errlen);
	if (e < 0)
		return e;
	nomods = read_ctx(modules_path, 1, &mods, &modlen, err, errlen);
	if (nomods < 0) {
		free(ks);
		return nomods;
	}
	r = calloc(1, sizeof(*r));
	if (r)
		r->buf = malloc(REC_BUF);
	if (!r || !r->buf) {
		free(r);
		free(ks);
		free(mods);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->fd = create_as(path, uid, gid, err, errlen);
	if (r->fd < 0) {
		e = r->fd;
		free(r->buf);
		free(r);
		free(ks);
		free(mods);
		return e;
	}
	e = write_header(r, info, version);
	if (!e && kallsyms_path)
		e = write_syms(r, KT_BLK_KALLSYMS, ks, kslen);
	if (!e && modules_path)
		e = write_syms(r, KT_BLK_MODULES, mods, modlen);
	free(ks);
	free(mods);
	if (e) {
		/* Nothing usable was written yet: say so, and remove the stub. */
		if (e == -ENOSPC || e == -EDQUOT || e == -EFBIG)
			snprintf(
			    err, errlen,
			    "%.300s: %s before the recording could start (%s); nothing was "
			    "kept: %s",
			    path, e == -EFBIG ? "file size limit (ulimit -f) reached" : "disk full",
			    strerror(-e),
			    e == -EFBIG ? "raise the limit" : "free space or record to another filesystem");
		else
			snprintf(err, errlen, "%s; nothing was kept", r->msg);
		close(r->fd);
		unlink_as(path, uid, gid);
		free(r->buf);
		free(r);
		return e;
	}
	*out = r;
	return 0;
}

int kt_rec_open(const char *path, const struct kt_source_info *info, const char *kallsyms_path,
		const char *modules_path, struct kt_recorder **out, char *err, size_t errlen)
{
	return rec_open(path, info, kallsyms_path, modules_path, 0, 0, 0, out, err, errlen);
}

int kt_rec_open_as(const char *path, const struct kt_source_info *info, const char *kallsyms_path,
		   const char *modules_path, long uid, long gid, struct kt_recorder **out,
		   char *err, size_t errlen)
{
	return rec_open(path, info, kallsyms_path, modules_path, uid, gid, 0, out, err, errlen);
}

int kt_rec_open_v1(const char *path, const struct kt_source_info *info, const char *kallsyms_path,
		   const char *modules_path, struct kt_recorder **out, char *err, size_t errlen)
{
	return rec_open(path, info, kallsyms_path, modules_path, 0, 0, 1, out, err, errlen);
}
