/* Call chains by id in recordings (format version 2, docs/recording-format.md "Call chains"):
 * every sample written comes back with its own chain, through the writer's new epochs (past
 * its ids and past its frames), a damaged block's definitions cost the samples that name
 * them and nothing else, and hostile ids are counted, never followed. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kerntop/util.h"
#include "source_impl.h"
#include "source_replay_impl.h"
#include "tap.h"
#include "test_replay_synth.h"

static char tmpdir[] = "/tmp/kt-test-chains.XXXXXX";

static const char *tmp(const char *name)
{
	static char p[2][256];
	static int k;

	k ^= 1;
	snprintf(p[k], sizeof(p[k]), "%s/%s", tmpdir, name);
	return p[k];
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Sample i of a stream whose chains come from `chains` distinct caller lists of up to
 * `depth` frames (pick: which one sample i takes); frame k of chain c depends on (c, k) only,
 * and the leaf's frame is the ip, or now and then another address of the function. */
struct stream {
	uint64_t n, chains;
	uint32_t depth;
	int fixed_depth; /* every chain has depth frames */
	int mixed; /* 1: every other chain's frames differ in their upper halves, 2: every one's */
	uint64_t (*pick)(const struct stream *st, uint64_t i);
};

static uint64_t pick_random(const struct stream *st, uint64_t i)
{
	return mix(i * 0x9e3779b97f4a7c15ull + 1) % st->chains;
}

/* a new chain every other sample, between them one of the first 16: these are named from
 * the start of an epoch to its end, when its words have nearly gone round the reader's ring */
static uint64_t pick_hot(const struct stream *st, uint64_t i)
{
	return (i % 2 ? (i / 2) % 16 : i / 2) % st->chains;
}

/* chain i/2, then every fourth sample an older chain: ids pass the epoch's and come back */
static uint64_t pick_walk(const struct stream *st, uint64_t i)
{
	uint64_t c = i / 2;

	if (i % 4 == 3)
		c = c > 1000 ? c - 1000 : 0;
	return c % st->chains;
}

static void sample_of(const struct stream *st, uint64_t i, struct kt_sample *s, uint64_t *fr)
{
	uint64_t c = st->pick(st, i), h = mix(c + 77);
	uint32_t nf = st->fixed_depth ? st->depth : 1 + (uint32_t)(h % st->depth);

	memset(s, 0, sizeof(*s));
	s->time_ns = 1000000000ull + i * 1000;
	s->cpu = (i & 1) ? 3 : 0;
	s->pid = s->tid = 100 + (int32_t)(i % 7);
	s->period = 1003009;
	s->ip = 0xffffffff81000000ull + (mix(i) % 4096) * 4;
	fr[0] = (i % 5 == 4) ? s->ip + 0x40 : s->ip;
	for (uint32_t k = 1; k < nf; k++)
		fr[k] = (st->mixed == 2 || (st->mixed && c % 2))
			    ? 0xffff800000000000ull | mix(c * 1000003 + k) >> 20
			    : 0xffffffff81000000ull + mix(c * 1000003 + k) % 0x1000000;
	s->nr_frames = nf;
	s->frames = fr;
}

/* version: 0 the default, 1 chains whole (kt_rec_open_v1) */
static int write_stream(const char *path, const struct stream *st, int callchain, int version)
{
	struct kt_source_info in;
	struct kt_recorder *r;
	struct kt_sample s;
	uint64_t fr[KT_MAX_STACK];
	char err[KT_ERRLEN];
	int e;

	synth_info(&in, callchain);
	if ((e = (version == 1 ? kt_rec_open_v1 : kt_rec_open)(path, &in, NULL, NULL, &r, err,
							       sizeof(err))) < 0) {
		printf("# %s\n", err);
		return e;
	}
	for (uint64_t i = 0; i < st->n && !e; i++) {
		sample_of(st, i, &s, fr);
		e = kt_rec_sample(r, &s);
	}
	if (kt_rec_close(r, err, sizeof(err)) < 0 || e) {
		printf("# %s\n", err);
		return -1;
	}
	return 0;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	char *b = NULL, err[KT_ERRLEN];

	if (kt_read_file(path, 1u << 30, &b, len, err, sizeof(err)) < 0) {
		printf("# %s\n", err);
		return NULL;
	}
	return (uint8_t *)b;
}

/* What a decode delivered against the stream. */
struct result {
	uint8_t *seen; /* when not NULL: a byte per sample, set when it is delivered */
	uint64_t delivered, wrong, lost_chains, damaged_recs, bad_records, skipped;
	uint32_t version;
	char notice[512];
};

static void decode(const uint8_t *buf, size_t len, const struct stream *st, struct result *r)
{
	struct kt_rrec d;
	struct kt_rp_event ev;
	struct kt_sample want;
	uint64_t fr[KT_MAX_STACK];
	char err[KT_ERRLEN];

	uint8_t *seen = r->seen;

	memset(r, 0, sizeof(*r));
	r->seen = seen;
	if (kt_rrec_open(&d, buf, len, 1, err, sizeof(err)) < 0) {
		printf("# %s\n", err);
		r->wrong = UINT64_MAX;
		return;
	}
	while (kt_rrec_next(&d, &ev)) {
		uint64_t i;

		if (ev.type != KT_EV_SAMPLE)
			continue;
		r->delivered++;
		i = (ev.s.time_ns - 1000000000ull) / 1000;
		if (!st || i >= st->n) {
			r->wrong++;
			continue;
		}
		if (seen)
			seen[i] = 1;
		sample_of(st, i, &want, fr);
		if (ev.s.cpu != want.cpu || ev.s.ip != want.ip || ev.s.pid != want.pid ||
		    ev.s.nr_frames != want.nr_frames ||
		    memcmp(ev.s.frames, fr, want.nr_frames * sizeof(*fr)) != 0) {
			if (r->wrong++ < 3)
				printf("# sample %llu differs (%u frames, want %u)\n",
				       (unsigned long long)i, ev.s.nr_frames, want.nr_frames);
		}
	}
	r->lost_chains = d.lost_chains;
	r->damaged_recs = d.damaged_recs;
	r->bad_records = d.bad_records;
	r->skipped = d.skipped;
	r->version = d.version;
	snprintf(r->notice, sizeof(r->notice), "%s", d.notice);
	kt_rrec_close(&d);
}

static void test_round_trip(void)
{
	struct stream st = {
	    .n = 20000, .chains = 300, .depth = 40, .pick = pick_random, .mixed = 1};
	struct result r = {0};
	struct stat a, b;
	size_t len;
	uint8_t *buf;

	ok(write_stream(tmp("v2.ktrec"), &st, 1, 0) == 0, "a recording with chains is written");
	ok(write_stream(tmp("v1.ktrec"), &st, 1, 1) == 0,
	   "the same samples in version 1 are written");
	ok(write_stream(tmp("none.ktrec"), &st, 0, 0) == 0,
	   "and without the call-chain flag (a live run without -g)");
	buf = slurp(tmp("v2.ktrec"), &len);
	ok(buf && kt_get_u32(buf + 8) == 2, "with call chains the file is version 2");
	decode(buf, len, &st, &r);
	is_int(r.delivered, st.n, "every sample comes back");
	is_int(r.wrong, 0, "each with its own ip, task, CPU and chain");
	ok(r.skipped == 0 && r.notice[0] == 0, "and nothing is skipped or told");
	free(buf);
	buf = slurp(tmp("v1.ktrec"), &len);
	ok(buf && kt_get_u32(buf + 8) == 1, "kt_rec_open_v1 writes version 1");
	decode(buf, len, &st, &r);
	ok(r.delivered == st.n && r.wrong == 0, "and its chains, written whole, come back too");
	free(buf);
	buf = slurp(tmp("none.ktrec"), &len);
	ok(buf && kt_get_u32(buf + 8) == 1, "without call chains the file stays version 1");
	free(buf);
	ok(stat(tmp("v2.ktrec"), &a) == 0 && stat(tmp("v1.ktrec"), &b) == 0 &&
	       a.st_size * 4 < b.st_size,
	   "chains by id take under a quarter of the bytes of chains written whole");
	printf("# %lld bytes by id, %lld whole\n", (long long)a.st_size, (long long)b.st_size);
}

/* More chains than an epoch's ids, then more frames than an epoch's: the writer starts new
 * epochs, defines again what it names, and the reader's rings follow. */
static void test_epochs(void)
{
	struct stream ids = {.n = 4 * (KT_REC_CHAIN_IDS + 5000),
			     .chains = 2 * (KT_REC_CHAIN_IDS + 5000),
			     .depth = 3,
			     .pick = pick_walk};
	struct stream frames = {.n = 3 * KT_REC_CHAIN_FRAMES / 128,
				.chains = 3 * KT_REC_CHAIN_FRAMES / 256,
				.depth = KT_MAX_STACK,
				.fixed_depth = 1,
				.mixed = 2,
				.pick = pick_hot};
	struct result r = {0};
	size_t len;
	uint8_t *buf;

	ok(write_stream(tmp("ids.ktrec"), &ids, 1, 0) == 0, "past an epoch's ids: written");
	buf = slurp(tmp("ids.ktrec"), &len);
	decode(buf, len, &ids, &r);
	ok(r.delivered == ids.n && r.wrong == 0 && r.skipped == 0,
	   "past an epoch's ids: every sample back with its chain");
	free(buf);
	ok(write_stream(tmp("frames.ktrec"), &frames, 1, 0) == 0,
	   "256-frame chains past an epoch's frames: written");
	buf = slurp(tmp("frames.ktrec"), &len);
	decode(buf, len, &frames, &r);
	ok(r.delivered == frames.n && r.wrong == 0 && r.skipped == 0,
	   "past an epoch's frames: every sample back with its chain");
	free(buf);
}

/* The offset of the n-th block (0: the first after the header) of type `type`. */
static size_t block_of(const uint8_t *b, size_t len, uint32_t type, int n)
{
	size_t pos = kt_get_u32(b + 12);

	while (pos + KT_REC_BLK_HDR <= len) {
		if (kt_get_u32(b + pos) == type && n-- == 0)
			return pos;
		pos += KT_REC_BLK_HDR + kt_get_u32(b + pos + 4);
	}
	return 0;
}

/* The first block's definitions are lost with it: the samples naming them are skipped up to
 * the writer's next epoch (KT_REC_CHAIN_EPOCH_BYTES on), not to the end of the file. */
static void test_damaged(void)
{
	struct stream st = {.n = 1700000, .chains = 3000, .depth = 8, .pick = pick_random};
	struct result r = {0};
	uint64_t before = 0, last_lost = 0;
	size_t len, at, pos;
	uint8_t *buf;

	ok(write_stream(tmp("dmg.ktrec"), &st, 1, 0) == 0, "damaged: written");
	buf = slurp(tmp("dmg.ktrec"), &len);
	at = buf ? block_of(buf, len, KT_BLK_SAMPLES, 0) : 0;
	ok(at && len > KT_REC_CHAIN_EPOCH_BYTES + (2u << 20),
	   "damaged: the file passes the writer's epoch");
	if (!at || !(r.seen = calloc(st.n, 1)))
		return;
	/* the samples before the first block that starts past the epoch's bytes */
	for (pos = at; pos + KT_REC_BLK_HDR <= len && pos <= KT_REC_CHAIN_EPOCH_BYTES + 65536;
	     pos += KT_REC_BLK_HDR + kt_get_u32(buf + pos + 4))
		if (kt_get_u32(buf + pos) == KT_BLK_SAMPLES)
			before += kt_get_u32(buf + pos + 8);
	buf[at + 12] ^= 0x55; /* its checksum */
	decode(buf, len, &st, &r);
	ok(r.damaged_recs > 0 && r.lost_chains > 0,
	   "the first block's chains are lost with it: samples naming them are skipped");
	is_int(r.wrong, 0, "no sample comes back with another chain");
	is_int(r.delivered + r.lost_chains + r.damaged_recs, st.n,
	       "every sample is delivered or counted");
	for (uint64_t i = r.damaged_recs; i < st.n; i++)
		if (!r.seen[i])
			last_lost = i;
	ok(last_lost > r.damaged_recs && last_lost < before,
	   "the losses end at the writer's next epoch");
	printf("# last sample lost %llu, %llu samples before the epoch's bytes\n",
	       (unsigned long long)last_lost, (unsigned long long)before);
	ok(strstr(r.notice, "sample(s) skipped whose call chain was defined in a damaged block") !=
	       NULL,
	   "the notice says why");
	printf("# %s\n", r.notice);
	free(r.seen);
	free(buf);
}

/* A recording of the header of `from` and one SAMPLES block of n records rec[]. */
static size_t craft(uint8_t *out, const uint8_t *from, uint32_t version, const uint8_t *rec,
		    size_t rlen, uint32_t n)
{
	size_t h = kt_get_u32(from + 12);

	memcpy(out, from, h);
	kt_put_u32(out + 8, version);
	kt_put_u32(out + h - 4, kt_crc32(0, out, h - 4));
	kt_put_u32(out + h, KT_BLK_SAMPLES);
	kt_put_u32(out + h + 4, (uint32_t)rlen);
	kt_put_u32(out + h + 8, n);
	memcpy(out + h + KT_REC_BLK_HDR, rec, rlen);
	kt_put_u32(out + h + 12,
		   kt_crc32(kt_crc32(0, out + h, 12), out + h + KT_REC_BLK_HDR, rlen));
	return h + KT_REC_BLK_HDR + rlen;
}

/* A sample record on CPU 0, pid 1, ip 0xffffffff81000000 (the first of a block: full), of
 * flags h: with KT_RS_FRAMES nf frames (the callers 8 bytes apart), with KT_RS_CHAIN an id
 * (after the leaf's frame when without frames). */
static uint8_t *rec_of(uint8_t *p, uint8_t h, uint32_t nf, uint64_t id)
{
	*p++ = h | KT_RS_PID_IS_TID;
	p = kt_put_var(p, kt_zig(1000));
	p = kt_put_var(p, 0);
	p = kt_put_var(p, kt_zig(1));
	p = kt_put_var(p, kt_zig((int64_t)0xffffffff81000000ull));
	p = kt_put_var(p, 1003009);
	if (h & KT_RS_FRAMES) {
		p = kt_put_var(p, nf);
		for (uint32_t k = 0; k < nf; k++)
			p = kt_put_var(p, kt_zig(k ? 8 : 0));
	} else if (h & KT_RS_CHAIN) {
		p = kt_put_var(p, kt_zig(0)); /* the leaf's frame: the ip */
	}
	if (h & KT_RS_CHAIN)
		p = kt_put_var(p, id);
	return p;
}

enum { DEF = KT_RS_FRAMES | KT_RS_CHAIN, REF = KT_RS_CHAIN, WHOLE = KT_RS_FRAMES };

static void test_hostile(void)
{
	struct stream st = {.n = 10, .chains = 2, .depth = 4, .pick = pick_random};
	uint8_t rec[512], out[8192], *p, *hdr;
	struct result r = {0};
	size_t len, n;

	ok(write_stream(tmp("h.ktrec"), &st, 1, 0) == 0, "hostile: a header to start from");
	hdr = slurp(tmp("h.ktrec"), &len);
	if (!hdr || kt_get_u32(hdr + 12) > 4096)
		return;

	p = rec_of(rec, REF, 0, 5);
	p = rec_of(p, WHOLE, 3, 0);
	n = craft(out, hdr, 2, rec, (size_t)(p - rec), 2);
	decode(out, n, NULL, &r);
	ok(r.lost_chains == 1 && r.delivered == 1 && r.bad_records == 0,
	   "an id never defined: that sample skipped, counted, the next one read");

	p = rec_of(rec, DEF, 3, 7);
	p = rec_of(p, REF, 0, 7);
	p = rec_of(p, REF, 0, 8);
	n = craft(out, hdr, 2, rec, (size_t)(p - rec), 3);
	decode(out, n, NULL, &r);
	ok(r.delivered == 2 && r.lost_chains == 1, "a defined id is followed, the next is not");

	p = rec_of(rec, DEF, 3, 9);
	p = rec_of(p, DEF, 3, 4);
	p = rec_of(p, WHOLE, 3, 0);
	n = craft(out, hdr, 2, rec, (size_t)(p - rec), 3);
	decode(out, n, NULL, &r);
	ok(r.delivered == 1 && r.bad_records == 1,
	   "a definition whose id goes back: malformed, the rest of its block skipped");

	p = rec_of(rec, DEF, 3, UINT64_MAX);
	p = rec_of(p, REF, 0, UINT64_MAX);
	n = craft(out, hdr, 2, rec, (size_t)(p - rec), 2);
	decode(out, n, NULL, &r);
	ok(r.delivered == 0 && r.bad_records == 1, "the id 2^64-1 is never defined");
	p = rec_of(rec, REF, 0, UINT64_MAX);
	n = craft(out, hdr, 2, rec, (size_t)(p - rec), 1);
	decode(out, n, NULL, &r);
	ok(r.delivered == 0 && r.lost_chains == 1, "nor followed");

	p = rec_of(rec, DEF, 0, 3);
	n = craft(out, hdr, 2, rec, (size_t)(p - rec), 1);
	decode(out, n, NULL, &r);
	ok(r.delivered == 0 && r.bad_records == 1, "a definition without frames: malformed");
	p = rec_of(rec, DEF, 1, 3);
	p = rec_of(p, REF, 0, 3);
	n = craft(out, hdr, 2, rec, (size_t)(p - rec), 2);
	decode(out, n, NULL, &r);
	ok(r.delivered == 2 && r.bad_records == 0 && r.lost_chains == 0,
	   "a one-frame chain with an id: its callers are none, and it is followed");

	p = rec_of(rec, DEF, 3, 1);
	n = craft(out, hdr, 1, rec, (size_t)(p - rec), 1);
	decode(out, n, NULL, &r);
	ok(r.delivered == 0 && r.bad_records == 1 && r.version == 1,
	   "KT_RS_CHAIN in a version 1 file: malformed");
	free(hdr);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_round_trip();
	test_epochs();
	test_damaged();
	test_hostile();
	{
		static const char *const files[] = {"v2.ktrec",	 "v1.ktrec",	 "none.ktrec",
						    "ids.ktrec", "frames.ktrec", "dmg.ktrec",
						    "h.ktrec"};

		for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++)
			unlink(tmp(files[i]));
		if (rmdir(tmpdir) < 0)
			printf("# could not remove %s\n", tmpdir);
	}
	return tap_done();
}
