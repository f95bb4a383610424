/* Decoder of kerntop recordings (docs/recording-format.md) over a memory buffer. Everything
 * read from the file is bounds-checked: a torn block or a damaged length ends the replay, a block
 * whose checksum alone is bad is skipped, a bad record inside a good block skips the rest of
 * that block; each is counted, and the notice at the end says what was lost. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source_replay_impl.h"

int kt_rrec_is_recording(const void *buf, size_t len)
{
	/* The first five bytes are enough to call it ours (and then report a bad magic). */
	return len >= 5 && memcmp(buf, KT_REC_MAGIC, 5) == 0;
}

static int bad(char *err, size_t errlen, int e, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return e;
}

static int parse_header(struct kt_rrec *d, char *err, size_t errlen)
{
	const uint8_t *h = kt_rwin_at(&d->w, 0, d->w.len < 16 ? d->w.len : 16);
	uint32_t version, hlen, ncpus, evlen;
	struct kt_rp_info *in = &d->info;

	if (!h || d->w.len < KT_REC_MAGIC_LEN || memcmp(h, KT_REC_MAGIC, KT_REC_MAGIC_LEN) != 0)
		return bad(err, errlen, -EINVAL,
			   "not a kerntop recording: wrong magic (file damaged, or not written "
			   "by kerntop --record)");
	if (d->w.len < 16)
		return bad(err, errlen, -EINVAL, "kerntop recording truncated inside its header");
	version = kt_get_u32(h + 8);
	if (version > KT_REC_VERSION) {
		snprintf(err, errlen,
			 "kerntop recording format version %u is newer than this kerntop reads "
			 "(version %u): replay it with a newer kerntop",
			 version, KT_REC_VERSION);
		return -EPROTONOSUPPORT;
	}
	if (version == 0)
		return bad(err, errlen, -EINVAL, "kerntop recording has an invalid version 0");
	d->version = version;
	hlen = kt_get_u32(h + 12);
	if (hlen < KT_REC_HDR_FIXED + 4 || hlen > KT_REC_HDR_MAX)
		return bad(err, errlen, -EINVAL,
			   "kerntop recording header is corrupt (bad length)");
	if (hlen > d->w.len || !(h = kt_rwin_at(&d->w, 0, hlen)))
		return bad(err, errlen, -EINVAL, "kerntop recording truncated inside its header");
	if (d->check_crc && kt_crc32(0, h, hlen - 4) != kt_get_u32(h + hlen - 4))
		return bad(err, errlen, -EINVAL,
			   "kerntop recording header checksum mismatch: the file is corrupt");
	ncpus = kt_get_u32(h + 48);
	evlen = kt_get_u16(h + 52);
	in->max_cpu = kt_get_u32(h + 20);
	if (evlen > KT_REC_EVENT_MAX || ncpus > KT_REC_MAX_CPU || in->max_cpu > KT_REC_MAX_CPU ||
	    KT_REC_HDR_FIXED + evlen + 4 * ncpus + 4 > hlen)
		return bad(err, errlen, -EINVAL, "kerntop recording header is corrupt (fields)");
	in->callchain = !!(kt_get_u32(h + 16) & KT_REC_F_CALLCHAIN);
	in->user = !!(kt_get_u32(h + 16) & KT_REC_F_USER);
	in->freq_hz = kt_get_u64(h + 24);
	in->period = kt_get_u64(h + 32);
	memcpy(in->event, h + KT_REC_HDR_FIXED, evlen);
	in->event[evlen] = 0;
	for (uint32_t i = 0; i < evlen; i++)
		if (in->event[i] < 0x21 || in->event[i] > 0x7e)
			in->event[i] = '?';
	in->cpus = calloc(ncpus ? ncpus : 1, sizeof(*in->cpus));
	if (!in->cpus)
		return bad(err, errlen, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < ncpus; i++) {
		uint32_t c = kt_get_u32(h + KT_REC_HDR_FIXED + evlen + 4 * i);

		if (c >= KT_REC_MAX_CPU)
			return bad(err, errlen, -EINVAL,
				   "kerntop recording header is corrupt (cpu)");
		if (c >= in->max_cpu)
			in->max_cpu = c + 1;
		in->cpus[i] = c;
	}
	in->ncpus = ncpus;
	if (!in->max_cpu)
		in->max_cpu = 1;
	d->pos = hlen;
	return 0;
}

/* Why a file ended early when a read failed ("" when it did not). */
static const char *read_error(struct kt_rrec *d)
{
	if (!d->w.err)
		return "";
	snprintf(d->rerr, sizeof(d->rerr), " (a read failed: %s)", strerror(d->w.err));
	return d->rerr;
}

static uint32_t block_max(uint32_t type)
{
	return type == KT_BLK_KALLSYMS || type == KT_BLK_MODULES ? KT_REC_SYMS_MAX : KT_REC_BLK_MAX;
}

/* A whole block at pos whose length fits and whose checksum matches. */
static int block_good(struct kt_rrec *d, size_t pos)
{
	const uint8_t *h = kt_rwin_at(&d->w, pos, KT_REC_BLK_HDR);
	uint32_t blen;

	if (!h)
		return 0;
	blen = kt_get_u32(h + 4);
	if (blen > block_max(kt_get_u32(h)) ||
	    !(h = kt_rwin_at(&d->w, pos, KT_REC_BLK_HDR + (size_t)blen)))
		return 0;
	return !d->check_crc ||
	       kt_crc32(kt_crc32(0, h, 12), h + KT_REC_BLK_HDR, blen) == kt_get_u32(h + 12);
}

/* Validates the block at d->pos. Returns 1 with its header fields, 0 at the clean end of the
 * data, 2 for a bad checksum whose length still leads to a good block or to the end of the
 * data (the caller skips it), -1 for a torn block or a damaged length (stop set, counted). */
static int block_at(struct kt_rrec *d, uint32_t *type, uint32_t *blen, uint32_t *nrec)
{
	const uint8_t *h;
	size_t left = d->w.len - d->pos, next;

	if (!left)
		return 0;
	h = kt_rwin_at(&d->w, d->pos, KT_REC_BLK_HDR);
	left = d->w.len - d->pos; /* a file cut while it is read is shorter now */
	if (!h && !left && !d->w.err)
		return 0;
	if (!h) {
		snprintf(d->stop, sizeof(d->stop),
			 "truncated at byte %zu (torn last block, %zu bytes ignored)%s", d->pos,
			 left, read_error(d));
		d->skipped++;
		return -1;
	}
	*type = kt_get_u32(h);
	*blen = kt_get_u32(h + 4);
	*nrec = kt_get_u32(h + 8);
	if (*blen > block_max(*type) || *blen > left - KT_REC_BLK_HDR ||
	    !(h = kt_rwin_at(&d->w, d->pos, KT_REC_BLK_HDR + (size_t)*blen))) {
		left = d->w.len - d->pos;
		snprintf(
		    d->stop, sizeof(d->stop),
		    "truncated or corrupt at byte %zu (a block of %u bytes, %zu left): the rest "
		    "is not replayed%s",
		    d->pos, *blen, left >= KT_REC_BLK_HDR ? left - KT_REC_BLK_HDR : 0,
		    read_error(d));
		d->skipped++;
		return -1;
	}
	if (!d->check_crc ||
	    kt_crc32(kt_crc32(0, h, 12), h + KT_REC_BLK_HDR, *blen) == kt_get_u32(h + 12))
		return 1;
	/* Only the checksum is wrong: if the length still lands on a good block, the damage
	 * is inside this one, and the blocks after it decode on their own. */
	next = d->pos + KT_REC_BLK_HDR + (size_t)*blen;
	if (next == d->w.len || block_good(d, next))
		return 2;
	snprintf(d->stop, sizeof(d->stop),
		 "bad checksum at byte %zu and no valid block after it: the remaining %zu bytes "
		 "are not replayed",
		 d->pos, left);
	d->skipped++;
	return -1;
}

static void add_part(char *dst, size_t len, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add_part(char *dst, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*n >= len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(dst + *n, len - *n, fmt, ap);
	va_end(ap);
	if (w > 0)
		*n += (size_t)w;
}

/* The end-of-replay notice: what was read and every reason some of the file was not. */
static void summarize(struct kt_rrec *d)
{
	size_t n = 0;

	d->notice[0] = 0;
	if (!d->skipped && d->have_end && d->end_samples == d->samples)
		return;
	add_part(d->notice, sizeof(d->notice), &n, "replayed %llu samples",
		 (unsigned long long)d->samples);
	/* told in full at open */
	if (d->syms_bad)
		add_part(d->notice, sizeof(d->notice), &n,
			 "; symbols from this machine's /proc (damaged %s block)",
			 d->syms_bad == 3   ? "kallsyms and modules"
			 : d->syms_bad == 1 ? "kallsyms"
					    : "modules");
	if (d->damaged)
		add_part(d->notice, sizeof(d->notice), &n,
			 "; %llu block(s) with a bad checksum skipped (first at byte %zu, %llu "
			 "records lost)",
			 (unsigned long long)d->damaged, d->first_damaged,
			 (unsigned long long)d->damaged_recs);
	if (d->stop[0])
		add_part(d->notice, sizeof(d->notice), &n, "; %s", d->stop);
	else if (!d->have_end)
		add_part(d->notice, sizeof(d->notice), &n,
			 "; no end marker (kerntop was killed, or its disk or size limit filled)");
	if (d->bad_records)
		add_part(d->notice, sizeof(d->notice), &n,
			 "; %llu malformed record(s): rest of their block skipped",
			 (unsigned long long)d->bad_records);
	if (d->bad_cpu)
		add_part(d->notice, sizeof(d->notice), &n,
			 "; %llu record(s) of a CPU the header does not list skipped",
			 (unsigned long long)d->bad_cpu);
	if (d->lost_chains)
		add_part(d->notice, sizeof(d->notice), &n,
			 "; %llu sample(s) skipped whose call chain was defined in a damaged block",
			 (unsigned long long)d->lost_chains);
	if (d->unknown_blocks)
		add_part(d->notice, sizeof(d->notice), &n,
			 "; %llu block(s) of an unknown type skipped (a newer kerntop wrote them)",
			 (unsigned long long)d->unknown_blocks);
	if (d->have_end && d->end_samples != d->samples)
		add_part(d->notice, sizeof(d->notice), &n, "; the end marker says %llu samples",
			 (unsigned long long)d->end_samples);
}

/* A damaged kallsyms or modules block: the symbolizer reads this machine's files instead. */
static void syms_damaged(struct kt_rrec *d, uint32_t type)
{
	const char *what = type == KT_BLK_KALLSYMS ? "kallsyms" : "modules";

	d->skipped++;
	d->syms_bad |= type == KT_BLK_KALLSYMS ? 1 : 2;
	if (d->syms_bad == 3)
		snprintf(d->syms, sizeof(d->syms),
			 "the kallsyms and modules blocks are damaged (bad checksum): symbols come "
			 "from this machine's /proc files, give --kallsyms and --modules of the "
			 "recorded machine if it differs");
	else
		snprintf(
		    d->syms, sizeof(d->syms),
		    "the %s block is damaged (bad checksum at byte %zu): symbols come from this "
		    "machine's /proc/%s, give --%s FILE of the recorded machine if it differs",
		    what, d->pos, what, what);
}

/* A TEXT block at pos with a good checksum: one more text for annotate, copied (a damaged one
 * is left out here and counted when the replay passes it). Read aside from the window, which
 * stays where the replay starts. */
static void add_text(struct kt_rrec *d, size_t pos, uint32_t blen)
{
	struct kt_rp_info *in = &d->info;
	uint8_t h[KT_REC_BLK_HDR + 8], *text;
	size_t n = (size_t)blen - 8;

	if (blen <= 8 || n > KT_REC_TEXT_MAX || kt_rwin_copy(&d->w, pos, h, sizeof(h)) < 0)
		return;
	if (in->ntexts == in->captexts) {
		size_t cap = in->captexts ? in->captexts * 2 : 64;
		struct kt_source_text *v = realloc(in->texts, cap * sizeof(*v));

		if (!v)
			return;
		in->texts = v;
		in->captexts = cap;
	}
	text = malloc(n);
	if (!text || kt_rwin_copy(&d->w, pos + sizeof(h), text, n) < 0 ||
	    (d->check_crc && kt_crc32(kt_crc32(kt_crc32(0, h, 12), h + KT_REC_BLK_HDR, 8), text,
				      n) != kt_get_u32(h + 12))) {
		free(text);
		return;
	}
	in->texts[in->ntexts++] = (struct kt_source_text){kt_get_u64(h + KT_REC_BLK_HDR), text, n};
}

/* A kallsyms or modules payload, copied with a NUL after it. */
static int keep_syms(struct kt_rrec *d, uint32_t type, uint32_t blen)
{
	const uint8_t *p = kt_rwin_at(&d->w, d->pos + KT_REC_BLK_HDR, blen);
	char *c = p ? malloc((size_t)blen + 1) : NULL;

	if (!c)
		return -ENOMEM;
	memcpy(c, p, blen);
	c[blen] = 0;
	if (type == KT_BLK_KALLSYMS) {
		free(d->syms_copy[0]);
		d->syms_copy[0] = c;
		d->info.kallsyms = c;
		d->info.kallsyms_len = blen;
	} else {
		free(d->syms_copy[1]);
		d->syms_copy[1] = c;
		d->info.modules = c;
		d->info.modules_len = blen;
	}
	return 0;
}

int kt_rrec_open(struct kt_rrec *d, const void *buf, size_t len, int check_crc, char *err,
		 size_t errlen)
{
	struct kt_rwin w;

	kt_rwin_mem(&w, buf, len);
	return kt_rrec_open_win(d, &w, check_crc, err, errlen);
}

int kt_rrec_open_win(struct kt_rrec *d, const struct kt_rwin *w, int check_crc, char *err,
		     size_t errlen)
{
	int e;

	memset(d, 0, sizeof(*d));
	d->w = *w;
	d->check_crc = check_crc;
	e = parse_header(d, err, errlen);
	if (e < 0)
		return e;
	/* The symbol context comes first; stop at the first other block. */
	for (;;) {
		uint32_t type, blen, nrec;
		int r = block_at(d, &type, &blen, &nrec);

		if (r <= 0 || (type != KT_BLK_KALLSYMS && type != KT_BLK_MODULES))
			break;
		if (r == 2) {
			syms_damaged(d, type);
		} else if (keep_syms(d, type, blen) < 0) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		d->pos += KT_REC_BLK_HDR + (size_t)blen;
	}
	/* The symbol blocks may have grown the window to their size: the events need less. */
	kt_rwin_shrink(&d->w);
	/* A torn block found here is found again (and counted once) when replay reaches it. */
	if (d->stop[0]) {
		d->skipped--;
		d->stop[0] = 0;
	}
	if (d->syms[0])
		snprintf(d->notice, sizeof(d->notice), "%s", d->syms);
	/* Walk the block headers (lengths only) so that a torn tail is announced at open. */
	for (size_t pos = d->pos; pos < d->w.len;) {
		size_t left = d->w.len - pos, n = strlen(d->notice);
		uint8_t h[KT_REC_BLK_HDR];
		uint32_t blen;

		if (left < KT_REC_BLK_HDR || kt_rwin_copy(&d->w, pos, h, sizeof(h)) < 0) {
			add_part(
			    d->notice, sizeof(d->notice), &n,
			    "%srecording truncated at byte %zu (torn last block): replaying the "
			    "complete blocks before it",
			    n ? "; " : "", pos);
			break;
		}
		blen = kt_get_u32(h + 4);
		if (blen > KT_REC_SYMS_MAX || blen > left - KT_REC_BLK_HDR) {
			add_part(d->notice, sizeof(d->notice), &n,
				 "%srecording truncated or corrupt at byte %zu: replaying the "
				 "complete blocks before it",
				 n ? "; " : "", pos);
			break;
		}
		if (kt_get_u32(h) == KT_BLK_END)
			break;
		if (kt_get_u32(h) == KT_BLK_TEXT)
			add_text(d, pos, blen);
		pos += KT_REC_BLK_HDR + (size_t)blen;
	}
	return 0;
}

static int next_block(struct kt_rrec *d)
{
	for (;;) {
		uint32_t type, blen, nrec;
		int r;

		if (d->done)
			return 0;
		r = block_at(d, &type, &blen, &nrec);
		if (r <= 0) {
			d->done = 1;
			summarize(d);
			return 0;
		}
		/* block_at read the whole block into the window */
		d->p = kt_rwin_at(&d->w, d->pos + KT_REC_BLK_HDR, blen);
		d->end = d->p + blen;
		if (r == 2) {
			d->skipped++;
			if (!d->damaged++)
				d->first_damaged = d->pos;
			d->damaged_recs += nrec;
			d->pos += KT_REC_BLK_HDR + (size_t)blen;
			d->p = d->end;
			continue;
		}
		d->pos += KT_REC_BLK_HDR + (size_t)blen;
		d->type = type;
		d->t = d->ip = d->period = 0;
		d->cpu = 0;
		switch (type) {
		case KT_BLK_SAMPLES:
		case KT_BLK_COMM:
		case KT_BLK_LOST:
		case KT_BLK_THROTTLE:
		case KT_BLK_PROCSTAT:
			return 1;
		case KT_BLK_END: {
			uint64_t n;

			if (kt_get_var(d->p, d->end, &n)) {
				d->end_samples = n;
				d->have_end = 1;
			}
			d->done = 1;
			d->p = d->end;
			summarize(d);
			return 0;
		}
		case KT_BLK_KALLSYMS:
		case KT_BLK_MODULES:
			/* Only the leading context counts; a later one is ignored. */
		case KT_BLK_TEXT:
			/* read at open (kt_rrec_open) */
			break;
		default:
			/* A block type from a compatible newer writer: skip it, counted. */
			d->skipped++;
			d->unknown_blocks++;
			break;
		}
		d->p = d->end;
	}
}

static int record_error(struct kt_rrec *d)
{
	d->skipped++;
	d->bad_records++;
	d->p = d->end;
	return 0;
}

/* Decodes the sample record at d->p into *s and *q: 1, or 0 when it is skipped (counted). A
 * reference to a chain is left to resolve (q->ref): its callers are copied when it is
 * delivered (rrec_sample). Inlined at both its calls: a call took a sample of a recording
 * without chains from 16.2 to 18.5 ns. */
static inline __attribute__((always_inline)) int
decode_sample(struct kt_rrec *d, struct kt_sample *s, struct kt_rrec_ref *q)
{
	const uint8_t *p = d->p, *end = d->end;
	uint64_t v, nf, id = 0;
	uint8_t h = *p++;

	if (h & ~(d->version >= 2 ? KT_RS_KNOWN : KT_RS_KNOWN_V1))
		return record_error(d);
	memset(s, 0, sizeof(*s));
	if (!(p = kt_get_var(p, end, &v)))
		return record_error(d);
	s->time_ns = d->t + (uint64_t)kt_unzig(v);
	if (h & KT_RS_SAME_CPU) {
		s->cpu = d->cpu;
	} else {
		if (!(p = kt_get_var(p, end, &v)) || v > UINT32_MAX)
			return record_error(d);
		s->cpu = (uint32_t)v;
	}
	if (!(p = kt_get_var(p, end, &v)))
		return record_error(d);
	s->pid = (int32_t)kt_unzig(v);
	if (h & KT_RS_PID_IS_TID) {
		s->tid = s->pid;
	} else {
		if (!(p = kt_get_var(p, end, &v)))
			return record_error(d);
		s->tid = (int32_t)kt_unzig(v);
	}
	if (!(p = kt_get_var(p, end, &v)))
		return record_error(d);
	s->ip = d->ip + (uint64_t)kt_unzig(v);
	if (h & KT_RS_SAME_PERIOD) {
		s->period = d->period;
	} else {
		if (!(p = kt_get_var(p, end, &v)))
			return record_error(d);
		s->period = v;
	}
	if (h & KT_RS_XFLAGS) {
		if (!(p = kt_get_var(p, end, &v)) || v > UINT32_MAX)
			return record_error(d);
		s->flags = (uint32_t)v;
	}
	if (h & KT_RS_USER)
		s->flags |= KT_SAMPLE_USER;
	if (h & KT_RS_FRAMES) {
		uint64_t prev = s->ip;

		if (!(p = kt_get_var(p, end, &nf)) || nf > KT_MAX_STACK)
			return record_error(d);
		for (uint64_t i = 0; i < nf; i++) {
			if (!(p = kt_get_var(p, end, &v)))
				return record_error(d);
			prev += (uint64_t)kt_unzig(v);
			d->frames[i] = prev;
		}
		s->nr_frames = (uint32_t)nf;
		s->frames = d->frames;
	}
	q->ref = (h & (KT_RS_CHAIN | KT_RS_FRAMES)) == KT_RS_CHAIN;
	if (q->ref) {
		/* the leaf's frame here, its callers by id below */
		if (!(p = kt_get_var(p, end, &v)))
			return record_error(d);
		q->leaf = s->ip + (uint64_t)kt_unzig(v);
	}
	if (h & KT_RS_CHAIN) {
		if (!(p = kt_get_var(p, end, &id)))
			return record_error(d);
		if ((h & KT_RS_FRAMES) &&
		    (!s->nr_frames ||
		     kt_rchains_define(&d->chains, id, d->frames + 1, s->nr_frames - 1) < 0))
			return record_error(d);
	}
	d->p = p;
	d->t = s->time_ns;
	d->ip = s->ip;
	d->period = s->period;
	d->cpu = s->cpu;
	d->samples++;
	/* Per-CPU tables downstream are sized by the header: never hand them a bigger CPU. */
	if (s->cpu >= d->info.max_cpu) {
		d->skipped++;
		d->bad_cpu++;
		return 0;
	}
	q->id = id;
	return 1;
}

/* Delivers q (a sample decoded ahead): 1, or 0 when its chain cannot be followed. */
static int rrec_sample(struct kt_rrec *d, const struct kt_rrec_ahead *q, struct kt_rp_event *ev)
{
	ev->s = q->s;
	if (q->r.ref) {
		int n = kt_rchains_get(&d->chains, q->r.id, d->frames + 1);

		if (n < 0) {
			/* Its callers were defined in a damaged block: the sample without them
			 * would be counted where its callers are not. */
			d->skipped++;
			d->lost_chains++;
			return 0;
		}
		d->frames[0] = q->r.leaf;
		ev->s.nr_frames = (uint32_t)n + 1;
		ev->s.frames = d->frames;
	}
	ev->type = KT_EV_SAMPLE;
	ev->time_ns = ev->s.time_ns;
	return 1;
}

/* The next sample of the block: the records are decoded up to KT_RREC_AHEAD ahead, and the
 * chains their references name fetched meanwhile (issue 14: copying a reference's callers out
 * of the rings, two cache misses a sample, was a sixth of a 256-CPU replay with chains). A
 * record that carries frames (a definition, a whole chain) is decoded only once those before
 * it are delivered: the frames go to d->frames, and a definition writes the rings, which
 * may not change under a reference waiting to be resolved. 1, or 0 at the block's end. */
static int rrec_next_sample(struct kt_rrec *d, struct kt_rp_event *ev)
{
	for (;;) {
		struct kt_rrec_ahead *q;

		while (d->qn < KT_RREC_AHEAD && d->p < d->end &&
		       !(d->qn && (*d->p & KT_RS_FRAMES))) {
			uint8_t h = *d->p;

			if (!d->qn && !(h & KT_RS_CHAIN)) {
				/* no chain by id and none waiting: decoded where it is delivered */
				struct kt_rrec_ref r;

				if (decode_sample(d, &ev->s, &r) == 1) {
					ev->type = KT_EV_SAMPLE;
					ev->time_ns = ev->s.time_ns;
					return 1;
				}
				continue;
			}
			q = &d->q[(d->qhead + d->qn) % KT_RREC_AHEAD];
			if (decode_sample(d, &q->s, &q->r) == 1) {
				if (q->r.ref)
					kt_rchains_prefetch(&d->chains, q->r.id, 0);
				d->qn++;
			}
			if ((h & KT_RS_FRAMES) && d->qn)
				break; /* its frames are in d->frames: delivered before any other */
		}
		if (!d->qn)
			return 0; /* the block's end */
		/* half the queue ahead, the chain's entry has come: its frames are fetched */
		q = &d->q[(d->qhead + KT_RREC_AHEAD / 2) % KT_RREC_AHEAD];
		if (d->qn > KT_RREC_AHEAD / 2 && q->r.ref)
			kt_rchains_prefetch(&d->chains, q->r.id, 1);
		q = &d->q[d->qhead];
		d->qhead = (d->qhead + 1) % KT_RREC_AHEAD;
		d->qn--;
		if (rrec_sample(d, q, ev))
			return 1;
	}
}

static int decode_other(struct kt_rrec *d, struct kt_rp_event *ev)
{
	const uint8_t *p = d->p, *end = d->end;
	uint64_t a, b, t;

	memset(ev, 0, sizeof(*ev));
	if (d->type == KT_BLK_COMM) {
		if (!(p = kt_get_var(p, end, &a)) || !(p = kt_get_var(p, end, &b)) ||
		    !(p = kt_get_var(p, end, &t)) || p >= end || (size_t)(end - p) < 1u + *p)
			return record_error(d);
		memcpy(d->comm, p + 1, *p);
		d->comm[*p] = 0;
		p += 1 + *p;
		ev->type = KT_EV_COMM;
		ev->pid = (int32_t)kt_unzig(a);
		ev->tid = (int32_t)kt_unzig(b);
		ev->comm = d->comm;
	} else if (d->type == KT_BLK_LOST) {
		if (!(p = kt_get_var(p, end, &a)) || a > UINT32_MAX ||
		    !(p = kt_get_var(p, end, &b)) || !(p = kt_get_var(p, end, &t)))
			return record_error(d);
		ev->type = KT_EV_LOST;
		ev->cpu = (uint32_t)a;
		ev->count = b;
	} else {
		if (!(p = kt_get_var(p, end, &a)) || a > UINT32_MAX || p >= end || *p > 1)
			return record_error(d);
		ev->throttled = *p++;
		if (!(p = kt_get_var(p, end, &t)))
			return record_error(d);
		ev->type = KT_EV_THROTTLE;
		ev->cpu = (uint32_t)a;
	}
	ev->time_ns = t;
	d->p = p;
	/* Like samples: per-CPU tables downstream are sized by the header. */
	if (ev->type != KT_EV_COMM && ev->cpu >= d->info.max_cpu) {
		d->skipped++;
		d->bad_cpu++;
		return 0;
	}
	return 1;
}

/* A length-prefixed name of at most max - 1 printable bytes into out. */
static const uint8_t *get_name(const uint8_t *p, const uint8_t *end, char *out, size_t max)
{
	if (p >= end || *p >= max || (size_t)(end - p) < 1u + *p)
		return NULL;
	for (unsigned i = 0; i < *p; i++)
		out[i] = p[1 + i] < 0x20 || p[1 + i] > 0x7e ? '?' : (char)p[1 + i];
	out[*p] = 0;
	return p + 1 + *p;
}

/* One /proc figures snapshot (docs/recording-format.md, PROCSTAT); its CPUs are the header's
 * max_cpu, so the snapshot is sized once. */
static int decode_procstat(struct kt_rrec *d, struct kt_rp_event *ev)
{
	const uint8_t *p = d->p, *end = d->end;
	struct kt_ps_snap *s;
	uint64_t v, n;
	uint32_t mc = d->info.max_cpu;

	if (!d->ps && !(d->ps = kt_ps_snap_new(mc)))
		return record_error(d);
	s = d->ps;
	memset(ev, 0, sizeof(*ev));
	if (!(p = kt_get_var(p, end, &v)))
		return record_error(d);
	s->time_ns = v;
	if (!(p = kt_get_var(p, end, &v)) || v > 7)
		return record_error(d);
	s->have = (uint32_t)v;
	s->nvec = s->nirq = 0;
	memset(s->online, 0, mc);
	memset(s->stat, 0, (size_t)mc * KT_PS_NSTAT * sizeof(*s->stat));
	if (s->have & KT_PS_HAVE_STAT) {
		for (int i = 0; i < KT_PS_NSTAT; i++)
			if (!(p = kt_get_var(p, end, &s->total[i])))
				return record_error(d);
		if (!(p = kt_get_var(p, end, &n)) || n > mc)
			return record_error(d);
		for (uint64_t r = 0; r < n; r++) {
			if (!(p = kt_get_var(p, end, &v)) || v >= mc)
				return record_error(d);
			s->online[v] = 1;
			for (int i = 0; i < KT_PS_NSTAT; i++)
				if (!(p = kt_get_var(p, end, &s->stat[v * KT_PS_NSTAT + i])))
					return record_error(d);
		}
	}
	if (s->have & KT_PS_HAVE_SOFTIRQS) {
		if (!(p = kt_get_var(p, end, &n)) || n > KT_PS_MAX_VEC)
			return record_error(d);
		for (uint32_t i = 0; i < n; i++) {
			if (!(p = get_name(p, end, s->vec[i], KT_PS_VEC_NAME)))
				return record_error(d);
			for (uint32_t c = 0; c < mc; c++)
				if (!(p = kt_get_var(p, end, &s->softirq[(size_t)i * mc + c])))
					return record_error(d);
		}
		s->nvec = (uint32_t)n;
	}
	if (s->have & KT_PS_HAVE_INTERRUPTS) {
		if (!(p = kt_get_var(p, end, &n)) || n > KT_PS_MAX_IRQ)
			return record_error(d);
		for (uint32_t i = 0; i < n; i++) {
			if (!(p = get_name(p, end, s->irq[i].name, KT_PS_IRQ_NAME)) ||
			    !(p = get_name(p, end, s->irq[i].desc, KT_PS_IRQ_DESC)))
				return record_error(d);
			for (uint32_t c = 0; c < mc; c++)
				if (!(p = kt_get_var(p, end, &s->irqcnt[(size_t)i * mc + c])))
					return record_error(d);
		}
		s->nirq = (uint32_t)n;
	}
	d->p = p;
	d->procstat++;
	ev->type = KT_EV_PROCSTAT;
	ev->time_ns = s->time_ns;
	ev->ps = s;
	return 1;
}

int kt_rrec_next(struct kt_rrec *d, struct kt_rp_event *ev)
{
	for (;;) {
		int r;

		/* samples decoded ahead are delivered before the block is left */
		if (!d->qn && d->p >= d->end && !next_block(d))
			return 0;
		if (!d->qn && d->p >= d->end)
			continue;
		if (d->qn || d->type == KT_BLK_SAMPLES)
			r = rrec_next_sample(d, ev);
		else if (d->type == KT_BLK_PROCSTAT)
			r = decode_procstat(d, ev);
		else
			r = decode_other(d, ev);
		if (r == 1)
			return 1;
	}
}

void kt_rrec_close(struct kt_rrec *d)
{
	kt_ps_snap_free(d->ps);
	d->ps = NULL;
	free(d->info.cpus);
	for (size_t i = 0; i < d->info.ntexts; i++)
		free((void *)d->info.texts[i].bytes);
	free(d->info.texts);
	free(d->syms_copy[0]);
	free(d->syms_copy[1]);
	kt_rchains_free(&d->chains);
	kt_rwin_free(&d->w);
	memset(&d->info, 0, sizeof(d->info));
	d->syms_copy[0] = d->syms_copy[1] = NULL;
}
