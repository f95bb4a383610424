/* Recording and replay: the kt_rec_* writer and the replay source (kerntop recordings and
 * `perf script` text), driven through kt_source_replay_open and the ops table directly. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kerntop/util.h"
#include "seam/seam.h"
#include "source_impl.h"
#include "source_replay_impl.h"
#include "tap.h"
#include "test_replay_synth.h"

static char tmpdir[] = "/tmp/kt-test-replay.XXXXXX";

static const char *tmp(const char *name)
{
	static char buf[4][4096];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

/* A checking sink: compares every event with a regenerated synthetic stream. */
struct check {
	struct synth g;
	int callchain;
	uint32_t max_stack;
	uint64_t samples, comms, lost, throttles, mismatches;
	char first[256];
};

static void mismatch(struct check *c, const char *what)
{
	if (!c->mismatches++)
		snprintf(c->first, sizeof(c->first), "%s at sample %llu", what,
			 (unsigned long long)c->g.i);
}

static int expect(struct check *c, int type)
{
	if (!synth_next(&c->g, c->callchain)) {
		mismatch(c, "event after the end");
		return 0;
	}
	if (c->g.type != type) {
		mismatch(c, "event type");
		return 0;
	}
	return 1;
}

static void ck_sample(void *ctx, const struct kt_sample *s)
{
	struct check *c = ctx;
	const struct kt_sample *w = &c->g.s;
	uint32_t nf;

	c->samples++;
	if (!expect(c, SY_SAMPLE))
		return;
	nf = c->max_stack && w->nr_frames > c->max_stack ? c->max_stack : w->nr_frames;
	if (s->time_ns != w->time_ns || s->ip != w->ip || s->period != w->period ||
	    s->pid != w->pid || s->tid != w->tid || s->cpu != w->cpu || s->flags != w->flags ||
	    s->nr_frames != nf)
		mismatch(c, "sample field");
	else if (nf && memcmp(s->frames, w->frames, nf * sizeof(uint64_t)) != 0)
		mismatch(c, "frames");
}

static void ck_comm(void *ctx, int32_t pid, int32_t tid, const char *comm, uint64_t t)
{
	struct check *c = ctx;

	c->comms++;
	if (expect(c, SY_COMM) &&
	    (pid != c->g.s.pid || tid != c->g.s.tid || strcmp(comm, c->g.comm) || t != c->g.t))
		mismatch(c, "comm");
}

static void ck_lost(void *ctx, uint32_t cpu, uint64_t count, uint64_t t)
{
	struct check *c = ctx;

	c->lost++;
	if (expect(c, SY_LOST) && (cpu != c->g.cpu || count != c->g.count || t != c->g.t))
		mismatch(c, "lost");
}

static void ck_throttle(void *ctx, uint32_t cpu, int throttled, uint64_t t)
{
	struct check *c = ctx;

	c->throttles++;
	if (expect(c, SY_THROTTLE) &&
	    (cpu != c->g.cpu || throttled != c->g.throttled || t != c->g.t))
		mismatch(c, "throttle");
}

static struct kt_source *open_replay(const char *path, double speed, uint32_t max_stack, int *e,
				     char *err, size_t errlen)
{
	struct kt_source_opts o = {.replay = path, .speed = speed, .max_stack = max_stack};
	struct kt_source *s = NULL;

	*e = kt_source_replay_open(&o, &s, err, errlen);
	return s;
}

/* Reads to the end at full speed; returns the number of read calls or -1 on error. */
static int drain(struct kt_source *s, const struct kt_sink *k)
{
	char err[KT_ERRLEN];
	int calls = 0, r, to;

	do {
		r = s->ops->read(s, k, &to, err, sizeof(err));
		calls++;
		if (calls > 1000000)
			return -1;
	} while (r == 0);
	return r == KT_SOURCE_EOF ? calls : -1;
}

static void test_round_trip(void)
{
	const char *path = tmp("rt.ktrec");
	struct kt_sink k = {0};
	struct check c = {0};
	char err[KT_ERRLEN] = "", *ks, *mods;
	size_t kslen, modlen;
	struct kt_source *s;
	struct stat st;
	int e, to;
	uint64_t n = 150000;

	e = synth_write(path, n, 2000000000ull, 1, tap_data("replay/kallsyms"),
			tap_data("replay/modules"), 7000, err, sizeof(err));
	is_int(e, 0, "round trip: recording written");
	if (e)
		printf("# %s\n", err);
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "recording created with mode 0600");
	e = synth_write(path, 10, 1000, 0, NULL, NULL, 0, err, sizeof(err));
	is_int(e, -EEXIST, "an existing recording is never overwritten");

	s = open_replay(path, 0, 0, &e, err, sizeof(err));
	is_int(e, 0, "round trip: replay opens");
	if (!s)
		return;
	is_str(s->info.kind, "replay", "info kind");
	is_str(s->info.path, path, "info path");
	is_str(s->info.event, "cpu-clock", "info event");
	is_int(s->info.freq_hz, 997, "info freq");
	is_int(s->info.period, 1003009, "info period");
	is_int(s->info.ncpus, 2, "info ncpus");
	ok(s->info.cpus && s->info.cpus[0] == 0 && s->info.cpus[1] == 3, "info cpus 0,3");
	is_int(s->info.max_cpu, 4, "info max_cpu");
	is_int(s->info.callchain, 1, "info callchain");
	is_int(s->info.user, 1, "info user");
	kt_read_file(tap_data("replay/kallsyms"), 1 << 20, &ks, &kslen, err, sizeof(err));
	kt_read_file(tap_data("replay/modules"), 1 << 20, &mods, &modlen, err, sizeof(err));
	ok(s->info.kallsyms && s->info.kallsyms_len == kslen &&
	       memcmp(s->info.kallsyms, ks, kslen) == 0 && s->info.kallsyms[kslen] == 0,
	   "recorded kallsyms exposed in info, NUL-terminated");
	ok(s->info.modules && s->info.modules_len == modlen &&
	       memcmp(s->info.modules, mods, modlen) == 0,
	   "recorded modules exposed in info");
	free(ks);
	free(mods);
	synth_init(&c.g, n, 2000000000ull);
	synth_next(&c.g, 1);
	is_int(s->ops->now(s), c.g.t, "now() before reading is the first event's time");

	synth_init(&c.g, n, 2000000000ull);
	c.callchain = 1;
	k = (struct kt_sink){&c, ck_sample, ck_comm, ck_lost, ck_throttle, NULL};
	e = s->ops->read(s, &k, &to, err, sizeof(err));
	is_int(e, 0, "speed max: first read returns a batch");
	is_int(c.samples, 65536, "speed max: batch is bounded to 65536 samples");
	is_int(to, 0, "speed max: asks to be called again at once");
	ok(drain(s, &k) > 0, "replay reaches KT_SOURCE_EOF");
	is_int(c.samples, n, "every sample replayed");
	is_int(c.comms, 60, "every comm replayed");
	is_int(c.lost, n / 1000, "every lost record replayed");
	is_int(c.throttles, n / 5000, "every throttle record replayed");
	is_int(c.mismatches, 0,
	       "every field identical (time, ip, period, pid, tid, cpu, flags, frames)");
	if (c.mismatches)
		printf("# first mismatch: %s\n", c.first);
	ok(!synth_next(&c.g, 1), "nothing missing at the end");
	is_int(s->stats.samples, n, "stats.samples");
	is_int(s->stats.skipped, 0, "stats.skipped");
	is_int(s->stats.throttled, n / 5000 / 2, "stats.throttled counts throttle-on events");
	{
		uint64_t lost = 0;

		for (uint64_t i = 1; i <= n / 1000; i++)
			lost += i;
		is_int(s->stats.lost, lost, "stats.lost sums the lost counts");
	}
	ok(s->ops->now(s) >= 5000000000ull + (n - 1) * (2000000000ull / n) - 2000000000ull / n,
	   "now() after the end is the last sample time");
	is_str(s->notice, "", "no notice for a clean recording");
	is_int(s->ops->read(s, &k, &to, err, sizeof(err)), KT_SOURCE_EOF, "EOF is sticky");
	s->ops->free(s);

	/* --max-stack applies to replayed chains. */
	s = open_replay(path, 0, 32, &e, err, sizeof(err));
	memset(&c, 0, sizeof(c));
	synth_init(&c.g, n, 2000000000ull);
	c.callchain = 1;
	c.max_stack = 32;
	drain(s, &k);
	ok(c.samples == n && c.mismatches == 0, "--max-stack 32 truncates replayed chains");
	s->ops->free(s);
}

/* Offsets where the blocks of a recording end (from its headers). */
static int block_ends(const uint8_t *b, size_t len, size_t *ends, uint64_t *nsamp, int max)
{
	size_t pos = kt_get_u32(b + 12);
	int n = 0;
	uint64_t acc = 0;

	while (pos + KT_REC_BLK_HDR <= len && n < max) {
		uint32_t type = kt_get_u32(b + pos), blen = kt_get_u32(b + pos + 4);

		if (type == KT_BLK_SAMPLES)
			acc += kt_get_u32(b + pos + 8);
		pos += KT_REC_BLK_HDR + blen;
		ends[n] = pos;
		nsamp[n++] = acc;
	}
	return n;
}

static void test_truncation(void)
{
	const char *path = tmp("small.ktrec"), *cut = tmp("cut.ktrec");
	char err[KT_ERRLEN], *buf;
	size_t len, ends[256];
	uint64_t nsamp[256];
	int nblk, e, bad_open = 0, bad_count = 0, bad_skip = 0, bad_msg = 0, opened = 0;

	e = synth_write(path, 300, 1000000, 1, tap_data("replay/kallsyms"), NULL, 40, err,
			sizeof(err));
	is_int(e, 0, "small recording written");
	kt_read_file(path, 1 << 20, &buf, &len, err, sizeof(err));
	nblk = block_ends((uint8_t *)buf, len, ends, nsamp, 256);
	ok(nblk > 10 && ends[nblk - 1] == len, "small recording has many blocks");
	for (size_t off = 0; off < len; off++) {
		struct kt_rrec d;
		struct kt_rp_event ev;
		uint64_t got = 0, want = 0;
		int boundary = 0;

		e = kt_rrec_open(&d, buf, off, 1, err, sizeof(err));
		if (e < 0) {
			if (off >= ends[1]) /* header and kallsyms block complete: must open */
				bad_open++;
			if (!err[0])
				bad_msg++;
			kt_rrec_close(&d);
			continue;
		}
		opened++;
		while (kt_rrec_next(&d, &ev))
			got += ev.type == KT_EV_SAMPLE;
		for (int i = 0; i < nblk; i++) {
			if (ends[i] <= off)
				want = nsamp[i];
			boundary |= ends[i] == off;
		}
		if (got != want)
			bad_count++;
		if (d.skipped !=
		    (uint64_t)(boundary || off == kt_get_u32((uint8_t *)buf + 12) ? 0 : 1))
			bad_skip++;
		if (!d.notice[0])
			bad_msg++;
		kt_rrec_close(&d);
	}
	is_int(bad_open, 0, "truncated anywhere after the symbols: still opens");
	ok(opened > 0 && opened < (int)len, "truncated inside the header: refused");
	is_int(bad_count, 0, "truncated at every offset: exactly the complete blocks are replayed");
	is_int(bad_skip, 0, "a torn block is one counted skip, a clean cut none");
	is_int(bad_msg, 0, "every truncation gives a message or a notice");

	/* Through the source: a file cut inside a sample block. */
	{
		int fd = open(cut, O_WRONLY | O_CREAT | O_EXCL, 0600);
		size_t off = ends[nblk / 2] - 5;
		struct kt_sink k = {0};
		struct kt_source *s;

		ok(fd >= 0 && write(fd, buf, off) == (ssize_t)off, "cut copy written");
		close(fd);
		s = open_replay(cut, 0, 0, &e, err, sizeof(err));
		is_int(e, 0, "cut recording opens");
		if (s) {
			ok(strstr(s->notice, "truncated") != NULL, "open announces the torn tail");
			ok(drain(s, &k) > 0, "cut recording replays to EOF");
			is_int(s->stats.samples, nsamp[nblk / 2 - 1],
			       "cut recording: complete blocks only");
			is_int(s->stats.skipped, 1, "cut recording: one counted skip");
			s->ops->free(s);
		}
	}
	free(buf);
}

static int write_file(const char *path, const void *b, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int ok_ = fd >= 0 && write(fd, b, n) == (ssize_t)n;

	if (fd >= 0)
		close(fd);
	return ok_ ? 0 : -1;
}

static void test_bad_headers(void)
{
	const char *path = tmp("bad.ktrec");
	char err[KT_ERRLEN], *buf;
	size_t len, ends[256];
	uint64_t nsamp[256];
	struct kt_source *s;
	struct kt_sink k = {0};
	uint32_t hlen;
	int e, nblk, b;

	synth_write(tmp("good.ktrec"), 300, 1000000, 0, NULL, NULL, 50, err, sizeof(err));
	kt_read_file(tmp("good.ktrec"), 1 << 20, &buf, &len, err, sizeof(err));
	hlen = kt_get_u32((uint8_t *)buf + 12);

	buf[3] ^= 0x20;
	write_file(path, buf, len);
	s = open_replay(path, 0, 0, &e, err, sizeof(err));
	ok(!s && e == -EINVAL && strstr(err, "wrong magic"), "wrong magic: clear error");
	printf("# %s\n", err);
	buf[3] ^= 0x20;
	buf[6] = 0;
	write_file(path, buf, len);
	s = open_replay(path, 0, 0, &e, err, sizeof(err));
	ok(!s && e == -EINVAL && strstr(err, "wrong magic"),
	   "magic damaged at its end: clear error");
	printf("# %s\n", err);
	buf[6] = '\n';

	kt_put_u32((uint8_t *)buf + 8, KT_REC_VERSION + 1);
	kt_put_u32((uint8_t *)buf + hlen - 4, kt_crc32(0, buf, hlen - 4));
	write_file(path, buf, len);
	s = open_replay(path, 0, 0, &e, err, sizeof(err));
	ok(!s && e == -EPROTONOSUPPORT && strstr(err, "version 3 is newer"),
	   "future version: clear error");
	printf("# %s\n", err);
	kt_put_u32((uint8_t *)buf + 8, 1);
	kt_put_u32((uint8_t *)buf + hlen - 4, kt_crc32(0, buf, hlen - 4));

	buf[20] ^= 1;
	write_file(path, buf, len);
	s = open_replay(path, 0, 0, &e, err, sizeof(err));
	ok(!s && strstr(err, "header checksum"), "corrupt header: clear error");
	buf[20] ^= 1;

	/* A flipped byte in the payload of a sample block b (not the first): only it is lost. */
	nblk = block_ends((uint8_t *)buf, len, ends, nsamp, 256);
	for (b = 2; b + 2 < nblk && nsamp[b] == nsamp[b - 1]; b++)
		;
	ok(b + 2 < nblk && nsamp[b] > nsamp[b - 1] && nsamp[b - 1] > 0,
	   "good recording has several sample blocks");
	buf[ends[b - 1] + KT_REC_BLK_HDR + 3] ^= 0x40;
	write_file(path, buf, len);
	s = open_replay(path, 0, 0, &e, err, sizeof(err));
	is_int(e, 0, "bad block CRC: opens");
	if (s) {
		ok(drain(s, &k) > 0, "bad block CRC: replays to EOF");
		is_int(s->stats.samples, 300 - (nsamp[b] - nsamp[b - 1]),
		       "bad block CRC: every block but the damaged one is replayed");
		is_int(s->stats.skipped, 1, "bad block CRC: one counted skip");
		ok(strstr(s->notice, "1 block(s) with a bad checksum skipped") != NULL &&
		       strstr(s->notice, "the end marker says 300 samples") != NULL,
		   "bad block CRC: the notice counts the block and names what the end marker says");
		printf("# %s\n", s->notice);
		s->ops->free(s);
	}
	/* The next block damaged too: its own length cannot be trusted, so the replay stops. */
	buf[ends[b] + KT_REC_BLK_HDR + 3] ^= 0x40;
	write_file(path, buf, len);
	s = open_replay(path, 0, 0, &e, err, sizeof(err));
	if (s) {
		ok(drain(s, &k) > 0, "two damaged blocks in a row: replays to EOF");
		is_int(s->stats.samples, nsamp[b - 1],
		       "two damaged blocks in a row: stops at the first");
		is_int(s->stats.skipped, 1, "two damaged blocks in a row: one counted stop");
		ok(strstr(s->notice, "no valid block after it") != NULL,
		   "two damaged blocks: notice");
		s->ops->free(s);
	}
	buf[ends[b] + KT_REC_BLK_HDR + 3] ^= 0x40;
	buf[ends[b - 1] + KT_REC_BLK_HDR + 3] ^= 0x40;
	/* A damaged length: the blocks after it cannot be found. */
	kt_put_u32((uint8_t *)buf + ends[b - 1] + 4,
		   kt_get_u32((uint8_t *)buf + ends[b - 1] + 4) + 3);
	write_file(path, buf, len);
	s = open_replay(path, 0, 0, &e, err, sizeof(err));
	if (s) {
		ok(drain(s, &k) > 0, "damaged block length: replays to EOF");
		is_int(s->stats.samples, nsamp[b - 1],
		       "damaged block length: the blocks before it");
		is_int(s->stats.skipped, 1, "damaged block length: one counted stop");
		s->ops->free(s);
	}
	kt_put_u32((uint8_t *)buf + ends[b - 1] + 4,
		   kt_get_u32((uint8_t *)buf + ends[b - 1] + 4) - 3);
	/* The END block damaged: every sample, and the notice says it has no end marker. */
	buf[len - 1] ^= 1;
	write_file(path, buf, len);
	s = open_replay(path, 0, 0, &e, err, sizeof(err));
	if (s) {
		ok(drain(s, &k) > 0, "damaged end block: replays to EOF");
		is_int(s->stats.samples, 300, "damaged end block: every sample");
		is_int(s->stats.skipped, 1, "damaged end block: one counted skip");
		ok(strstr(s->notice, "no end marker") != NULL, "damaged end block: notice");
		s->ops->free(s);
	}
	free(buf);

	/* A damaged kallsyms block: every sample, and symbols must come from elsewhere. */
	synth_write(tmp("ks.ktrec"), 300, 1000000, 0, tap_data("replay/kallsyms"), NULL, 50, err,
		    sizeof(err));
	kt_read_file(tmp("ks.ktrec"), 1 << 20, &buf, &len, err, sizeof(err));
	hlen = kt_get_u32((uint8_t *)buf + 12);
	is_int(kt_get_u32((uint8_t *)buf + hlen), KT_BLK_KALLSYMS, "kallsyms is the first block");
	buf[hlen + KT_REC_BLK_HDR + 10] ^= 0x01;
	write_file(path, buf, len);
	s = open_replay(path, 0, 0, &e, err, sizeof(err));
	is_int(e, 0, "damaged kallsyms block: opens");
	if (s) {
		ok(s->info.kallsyms == NULL,
		   "damaged kallsyms block: not handed to the symbolizer");
		ok(strstr(s->notice, "kallsyms block is damaged") &&
		       strstr(s->notice, "/proc/kallsyms"),
		   "damaged kallsyms block: the open notice says the live /proc/kallsyms is used");
		ok(drain(s, &k) > 0, "damaged kallsyms block: replays to EOF");
		is_int(s->stats.samples, 300, "damaged kallsyms block: every sample");
		is_int(s->stats.skipped, 1, "damaged kallsyms block: one counted skip");
		ok(strstr(s->notice, "damaged kallsyms block") != NULL, "and the end notice too");
		s->ops->free(s);
	}
	free(buf);

	write_file(path, "", 0);
	s = open_replay(path, 0, 0, &e, err, sizeof(err));
	ok(!s && strstr(err, "empty"), "empty file: clear error");
	write_file(path, "KTRE", 4);
	s = open_replay(path, 0, 0, &e, err, sizeof(err));
	ok(!s && e < 0 && err[0], "4-byte file: clear error");
	s = open_replay(tap_data("replay/kallsyms"), 0, 0, &e, err, sizeof(err));
	ok(!s && strstr(err, "no sample line"), "non-perf text: clear error");
	printf("# %s\n", err);
	s = open_replay(tmp("missing"), 0, 0, &e, err, sizeof(err));
	ok(!s && e == -ENOENT && strstr(err, "cannot open"), "missing file: clear error");
	s = open_replay(tmpdir, 0, 0, &e, err, sizeof(err));
	ok(!s && e == -EISDIR, "directory: clear error");
}

static void count_lost(void *ctx, uint32_t cpu, uint64_t count, uint64_t t)
{
	uint64_t *c = ctx;

	(void)t;
	c[0] += count;
	if (cpu >= 4)
		c[2]++;
}

static void count_throttle(void *ctx, uint32_t cpu, int throttled, uint64_t t)
{
	uint64_t *c = ctx;

	(void)throttled;
	(void)t;
	c[1]++;
	if (cpu >= 4)
		c[2]++;
}

/* Lost and throttle records of a CPU beyond the header's max_cpu never reach the sink. */
static void test_bad_cpu_events(void)
{
	const char *path = tmp("badcpu.ktrec");
	struct kt_source_info in;
	struct kt_recorder *rec;
	struct kt_sink k = {0};
	struct kt_source *s;
	char err[KT_ERRLEN];
	uint64_t c[3] = {0, 0, 0};
	struct kt_sample smp = {.time_ns = 1000,
				.ip = 0xffffffff81000000ull,
				.period = 1000000,
				.pid = 1,
				.tid = 1,
				.cpu = 1};
	int e;

	synth_info(&in, 0);
	e = kt_rec_open(path, &in, NULL, NULL, &rec, err, sizeof(err));
	is_int(e, 0, "bad-CPU recording opened");
	if (e)
		return;
	kt_rec_sample(rec, &smp);
	kt_rec_lost(rec, 1, 7, 2000);
	kt_rec_lost(rec, 4, 100, 2001);
	kt_rec_lost(rec, 4000000, 100, 2002);
	kt_rec_throttle(rec, 3, 1, 3000);
	kt_rec_throttle(rec, 9999, 1, 3001);
	is_int(kt_rec_close(rec, err, sizeof(err)), 0, "bad-CPU recording written");
	s = open_replay(path, 0, 0, &e, err, sizeof(err));
	if (!s)
		return;
	k.ctx = c;
	k.lost = count_lost;
	k.throttle = count_throttle;
	ok(drain(s, &k) > 0, "bad-CPU recording: replays to EOF");
	is_int(c[2], 0, "no lost or throttle event of a CPU >= max_cpu reaches the sink");
	is_int(c[0], 7, "the valid lost record is delivered");
	is_int(c[1], 1, "the valid throttle record is delivered");
	is_int(s->stats.lost, 7, "stats.lost counts the delivered one");
	is_int(s->stats.skipped, 3, "the three bad-CPU records are counted as skipped");
	ok(strstr(s->notice, "3 record(s) of a CPU the header does not list skipped") != NULL,
	   "the notice counts them");
	s->ops->free(s);
}

static void test_pacing(void)
{
	const char *path = tmp("pace.ktrec");
	char err[KT_ERRLEN];
	struct kt_sink k = {0};
	struct check c = {0};
	struct kt_source *s;
	uint64_t t0, dt, prev = 0;
	int e, to, r, backwards = 0, waits = 0, shortest = INT32_MAX;

	/* 1000 samples over ten seconds, replayed at 10x: one due every millisecond. */
	e = synth_write(path, 1000, 10000000000ull, 0, NULL, NULL, 0, err, sizeof(err));
	is_int(e, 0, "10-second recording written");
	s = open_replay(path, 10, 0, &e, err, sizeof(err));
	if (!s)
		return;
	synth_init(&c.g, 1000, 10000000000ull);
	k = (struct kt_sink){&c, ck_sample, ck_comm, ck_lost, ck_throttle, NULL};
	/* The clock is the manual one of tests/seam/clock_manual.c: it moves only by the waits
	 * the replay asks for, so the time measured is the replay's pacing, not this machine's
	 * speed (a loaded machine or memcheck made a wall-time bound flaky). */
	t0 = kt_now_ns();
	for (int i = 0; i < 100000; i++) {
		uint64_t now;

		r = s->ops->read(s, &k, &to, err, sizeof(err));
		now = s->ops->now(s);
		backwards += now < prev;
		prev = now;
		if (r != 0)
			break;
		if (to > 0) {
			waits++;
			shortest = to < shortest ? to : shortest;
			kt_test_clock_advance((uint64_t)to * 1000000u);
		}
	}
	dt = kt_now_ns() - t0;
	is_int(r, KT_SOURCE_EOF, "paced replay ends");
	/* 10 s of samples at 10x: 1 s of waits, each at least the live loop's drain period
	 * (a sample due every millisecond does not wake the loop every millisecond) */
	ok(dt >= 990000000ull && dt <= 1020000000ull, "--speed 10 on 10 s waits 1 s");
	printf("# paced replay waited %.3f s in %d waits, the shortest %d ms\n", (double)dt / 1e9,
	       waits, shortest);
	ok(waits >= 9 && waits <= 11, "paced replay waits about every 100 ms");
	ok(shortest >= KT_SOURCE_DRAIN_MS, "no wait is shorter than the drain period");
	is_int(backwards, 0, "replayed clock never goes backwards");
	is_int(c.samples, 1000, "paced replay delivers every sample");
	is_int(c.mismatches, 0, "paced replay delivers identical samples");
	s->ops->free(s);

	/* Two joined perf script files: a 1000 s silence is skipped, not waited out. */
	{
		static const char two[] = "dd 1 [000] 100.000000: 1003009 cpu-clock:  "
					  "ffffffff81d7d697 read_zero+0x77 ([kernel.kallsyms])\n"
					  "dd 1 [000] 100.001000: 1003009 cpu-clock:  "
					  "ffffffff81d7d697 read_zero+0x77 ([kernel.kallsyms])\n"
					  "dd 1 [000] 1100.000000: 1003009 cpu-clock:  "
					  "ffffffff81d7d697 read_zero+0x77 ([kernel.kallsyms])\n";
		struct kt_sink k2 = {0};

		write_file(tmp("gap.txt"), two, sizeof(two) - 1);
		s = open_replay(tmp("gap.txt"), 1, 0, &e, err, sizeof(err));
		if (!s)
			return;
		t0 = kt_now_ns();
		for (int i = 0; i < 100000; i++) {
			r = s->ops->read(s, &k2, &to, err, sizeof(err));
			if (r != 0)
				break;
			if (to > 0)
				kt_test_clock_advance((uint64_t)to * 1000000u);
		}
		dt = kt_now_ns() - t0;
		is_int(r, KT_SOURCE_EOF, "replay across a silence ends");
		/* the two first samples are 1 ms apart (one drain period's wait); the silence
		 * costs nothing more */
		ok(dt <= (KT_SOURCE_DRAIN_MS + 2) * 1000000ull,
		   "a 1000 s silence is skipped at --speed 1");
		printf("# replay across the silence waited %.3f s\n", (double)dt / 1e9);
		is_int(s->stats.samples, 3, "samples around the silence delivered");
		is_int(s->ops->now(s), 1100000000000ull, "clock reaches the last sample");
		s->ops->free(s);
	}
}

/* A collecting sink for the perf script fixtures. */
#define COL_MAX 32
struct col {
	int n, ncomm;
	struct kt_sample s[COL_MAX];
	uint64_t frames[COL_MAX][8];
	char comm[COL_MAX][32];
	int32_t comm_tid[COL_MAX];
	int comm_before[COL_MAX]; /* samples delivered before this comm */
};

static void col_sample(void *ctx, const struct kt_sample *s)
{
	struct col *c = ctx;

	if (c->n >= COL_MAX)
		return;
	c->s[c->n] = *s;
	for (uint32_t i = 0; i < s->nr_frames && i < 8; i++)
		c->frames[c->n][i] = s->frames[i];
	c->n++;
}

static void col_comm(void *ctx, int32_t pid, int32_t tid, const char *comm, uint64_t t)
{
	struct col *c = ctx;

	(void)pid;
	(void)t;
	if (c->ncomm >= COL_MAX)
		return;
	snprintf(c->comm[c->ncomm], sizeof(c->comm[0]), "%s", comm);
	c->comm_tid[c->ncomm] = tid;
	c->comm_before[c->ncomm++] = c->n;
}

static void test_perf_script_fixtures(void)
{
	static struct col c;
	struct kt_sink k = {&c, col_sample, col_comm, NULL, NULL, NULL};
	char err[KT_ERRLEN];
	struct kt_source *s;
	int e;

	s = open_replay(tap_data("replay/perf-script-g.txt"), 0, 0, &e, err, sizeof(err));
	is_int(e, 0, "perf script -g fixture opens");
	if (!s)
		return;
	is_str(s->info.kind, "replay", "perf script: kind");
	is_str(s->info.event, "cpu-clock", "perf script: event from the sample lines");
	is_int(s->info.period, 1003009, "perf script: period column");
	is_int(s->info.ncpus, 2, "perf script: 2 cpus");
	is_int(s->info.max_cpu, 2, "perf script: max_cpu");
	is_int(s->info.callchain, 1, "perf script: call chains detected");
	is_int(s->info.user, 1, "perf script: user samples detected");
	ok(s->info.kallsyms == NULL, "perf script: no recorded symbol context");
	ok(strstr(s->notice, "2 line(s)") != NULL, "perf script: garbage lines announced");
	ok(drain(s, &k) > 0, "perf script -g fixture replays to EOF");
	is_int(c.n, 8, "perf script -g: exactly 8 samples");
	is_int(s->stats.samples, 8, "perf script -g: stats.samples");
	is_int(s->stats.skipped, 4,
	       "perf script -g: 4 garbage lines counted (2 lines, 1 stray frame, 1 bad frame)");
	is_int(c.s[0].time_ns, 966294147000ull, "sample 0 time");
	is_int(c.s[0].cpu, 0, "sample 0 cpu");
	ok(c.s[0].pid == 12448 && c.s[0].tid == 12448, "sample 0 pid/tid (tid alone: pid = tid)");
	ok(c.s[0].ip == 0xffffffff815fc5adull && c.s[0].flags == 0,
	   "sample 0 kernel ip from the first frame");
	is_int(c.s[0].period, 1003009, "sample 0 period");
	is_int(c.s[0].nr_frames, 5, "sample 0: the 5 kernel frames, the user one dropped");
	ok(c.frames[0][0] == 0xffffffff815fc5adull && c.frames[0][1] == 0xffffffff815fd6fdull &&
	       c.frames[0][4] == 0xffffffff81000130ull,
	   "sample 0 frames leaf first");
	ok(c.s[1].cpu == 1 && c.s[1].tid == 12445 && c.s[1].ip == 0xffffffff81d7d697ull,
	   "sample 1");
	ok(c.s[2].flags == KT_SAMPLE_USER && c.s[2].ip == 0x150af && c.s[2].nr_frames == 0,
	   "sample 2: user-mode leaf, no kernel frames");
	ok(c.s[3].tid == 4242 && c.s[3].cpu == 1 && c.s[3].nr_frames == 2,
	   "sample 3 (comm with a blank)");
	ok(c.s[4].nr_frames == 3 && c.frames[4][1] == 0xffffffffc0a0105aull,
	   "sample 4: module frame kept as kernel");
	ok(c.s[5].tid == 0 && c.s[5].cpu == 1, "sample 5: swapper");
	ok(c.s[6].flags == KT_SAMPLE_USER && c.s[6].ip == 0xffffffffff600000ull,
	   "sample 6: [vsyscall] is user mode");
	ok(c.s[7].tid == 5518 && c.s[7].nr_frames == 2 && c.frames[7][1] == 0xffffffff817d28efull,
	   "sample 7: a bad frame line is skipped, the chain continues");
	is_int(c.ncomm, 7, "perf script -g: 7 comm events (sleep replaces perf-exec on tid 12448)");
	is_str(c.comm[0], "perf-exec", "comm 0");
	ok(strcmp(c.comm[2], "sleep") == 0 && c.comm_tid[2] == 12448 && c.comm_before[2] == 2,
	   "comm change on exec comes before the sample");
	is_str(c.comm[3], "Web Content", "comm with a blank");
	is_str(c.comm[6], "memfd:sealed-91", "comm with a colon");
	is_int(s->ops->now(s), 967192821000ull, "now() is the last sample's time");
	s->ops->free(s);

	memset(&c, 0, sizeof(c));
	s = open_replay(tap_data("replay/perf-script-F.txt"), 0, 0, &e, err, sizeof(err));
	is_int(e, 0, "perf script -F fixture opens");
	if (!s)
		return;
	drain(s, &k);
	is_int(c.n, 6, "perf script -F: 6 samples");
	is_int(s->stats.skipped, 1, "perf script -F: 1 garbage line");
	is_int(s->info.callchain, 0, "perf script -F: no chains");
	ok(c.s[0].flags == KT_SAMPLE_USER && c.s[0].ip == 0x7f2310a73f38ull, "-F sample 0 user");
	ok(c.s[2].pid == 12445 && c.s[2].tid == 12446 && c.s[2].cpu == 1 &&
	       c.s[2].ip == 0xffffffff81d7d697ull && c.s[2].time_ns == 973930100000ull,
	   "-F sample 2: pid/tid, cpu, ip, time");
	is_int(c.s[2].period, s->info.period, "-F: no period column, the estimate is used");
	is_str(c.comm[3], "kworker/1:2-ev", "-F comm 3");
	s->ops->free(s);

	memset(&c, 0, sizeof(c));
	s = open_replay(tap_data("replay/perf-script-nog.txt"), 0, 0, &e, err, sizeof(err));
	is_int(e, 0, "perf script without -g opens");
	if (!s)
		return;
	drain(s, &k);
	ok(c.n == 3 && c.s[1].ip == 0xffffffff822613ebull && c.s[1].flags == 0 &&
	       c.s[0].flags == KT_SAMPLE_USER && s->stats.skipped == 0,
	   "perf script without -g: 3 samples, ip on the sample line");
	s->ops->free(s);
}

/* Varints of every length, alone at the end of the data (read a byte at a time) and with
 * more bytes after them (read 8 at a time): the same values, the same lengths. */
static void test_varints(void)
{
	uint8_t buf[32];
	uint64_t v = 0, x = 1;
	unsigned bad = 0, n = 0;

	for (unsigned bits = 0; bits <= 64; bits++, x = x * 3 + 1) {
		uint64_t want = bits == 64 ? x | 1ull << 63 : bits ? (x & ((1ull << bits) - 1)) |
									  1ull << (bits - 1) : 0;
		uint8_t *e = kt_put_var(buf, want);
		size_t len = (size_t)(e - buf);

		memset(e, 0xff, sizeof(buf) - len); /* continuation bits after it: must not count */
		bad += kt_get_var(buf, buf + sizeof(buf), &v) != e || v != want;
		bad += kt_get_var(buf, e, &v) != e || v != want;
		bad += kt_get_var(buf, e - 1, &v) != NULL;
		n++;
	}
	is_int(bad, 0, "varints of 0 to 64 bits: read back alike, with and without bytes after");
	memset(buf, 0xff, sizeof(buf));
	ok(kt_get_var(buf, buf + sizeof(buf), &v) == NULL && n == 65,
	   "a varint of more than 10 bytes is refused");
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_varints();
	test_round_trip();
	test_truncation();
	test_bad_headers();
	test_bad_cpu_events();
	test_pacing();
	test_perf_script_fixtures();
	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
	}
	return tap_done();
}
