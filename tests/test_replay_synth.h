/* A deterministic synthetic event stream for the recording tests: the writer side feeds it to
 * kt_rec_*, the checker side regenerates it and compares what replay delivers field by field. */
#ifndef KERNTOP_TESTS_REPLAY_SYNTH_H
#define KERNTOP_TESTS_REPLAY_SYNTH_H

#include <string.h>

#include "kerntop/sample.h"
#include "source_impl.h"

enum { SY_SAMPLE = 1, SY_COMM, SY_LOST, SY_THROTTLE };

struct synth {
	uint64_t rng, i, n, step, base;
	int comm_pending;
	/* the current event */
	int type;
	struct kt_sample s;
	uint64_t frames[KT_MAX_STACK];
	char comm[16];
	uint32_t cpu;
	uint64_t count;
	int throttled;
	uint64_t t;
	uint8_t seen_tid[64];
};

static const uint32_t synth_cpus[] = { 0, 3 };

static inline uint64_t synth_rand(struct synth *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

/* n samples spread over span_ns. */
static inline void synth_init(struct synth *g, uint64_t n, uint64_t span_ns)
{
	memset(g, 0, sizeof(*g));
	g->rng = 0x9e3779b97f4a7c15ull;
	g->n = n;
	g->step = n ? span_ns / n : 0;
	g->base = 5000000000ull;
}

static inline void synth_info(struct kt_source_info *in, int callchain)
{
	memset(in, 0, sizeof(*in));
	in->kind = "live";
	in->event = "cpu-clock";
	in->freq_hz = 997;
	in->period = 1003009;
	in->ncpus = 2;
	in->cpus = synth_cpus;
	in->max_cpu = 4;
	in->callchain = callchain;
	in->user = 1;
}

/* Next event; 0 at the end. A new tid's comm comes before its first sample; every 1000th
 * sample is followed by a lost record, every 5000th by a throttle/unthrottle. */
static inline int synth_next(struct synth *g, int callchain)
{
	uint64_t r;
	int32_t tid;

	if (g->comm_pending) {
		g->comm_pending = 0;
		g->type = SY_SAMPLE;
		return 1;
	}
	if (g->i && g->i % 1000 == 0 && g->type == SY_SAMPLE) {
		g->type = SY_LOST;
		g->cpu = synth_cpus[g->i / 1000 % 2];
		g->count = g->i / 1000;
		g->t = g->s.time_ns;
		return 1;
	}
	if (g->i && g->i % 5000 == 0 && g->type == SY_LOST) {
		g->type = SY_THROTTLE;
		g->cpu = 3;
		g->throttled = (int)(g->i / 5000 % 2);
		g->t = g->s.time_ns + 1;
		return 1;
	}
	if (g->i >= g->n)
		return 0;
	r = synth_rand(g);
	memset(&g->s, 0, sizeof(g->s));
	g->s.cpu = synth_cpus[r & 1];
	/* CPU 3 runs half a step behind: the stream is not time-ordered, as per-CPU rings are. */
	g->s.time_ns = g->base + g->i * g->step - ((r & 1) ? g->step / 2 : 0);
	tid = (int32_t)(100 + (r >> 8) % 60);
	g->s.tid = tid;
	g->s.pid = (r >> 16) % 7 == 0 ? tid - 1 : tid;
	if ((r >> 20) % 10 == 0) {
		g->s.flags = KT_SAMPLE_USER;
		g->s.ip = 0x7f0000000000ull + (r >> 24) % 0x100000;
	} else {
		g->s.ip = 0xffffffff81000000ull + (r >> 24) % 0x1000000;
	}
	if ((r >> 30) % 100 == 0)
		g->s.flags |= 1u << 5;
	g->s.period = (r >> 34) % 50 == 0 ? (r >> 40) % 5000000 : 1003009;
	if (callchain && !(g->s.flags & KT_SAMPLE_USER)) {
		uint32_t nf = (uint32_t)((r >> 44) % 48);

		for (uint32_t k = 0; k < nf; k++)
			g->frames[k] = k ? 0xffffffff81000000ull + synth_rand(g) % 0x1000000 : g->s.ip;
		g->s.nr_frames = nf;
		g->s.frames = nf ? g->frames : NULL;
	}
	g->i++;
	if (!g->seen_tid[tid - 100]) {
		g->seen_tid[tid - 100] = 1;
		g->comm_pending = 1;
		g->type = SY_COMM;
		snprintf(g->comm, sizeof(g->comm), "task-%d", tid);
		g->t = g->s.time_ns;
		return 1;
	}
	g->type = SY_SAMPLE;
	return 1;
}

/* Writes the stream with kt_rec_*, flushing every flush_every samples (0: never). */
static inline int synth_write(const char *path, uint64_t n, uint64_t span_ns, int callchain,
			      const char *kallsyms, const char *modules, uint64_t flush_every,
			      char *err, size_t errlen)
{
	struct kt_source_info in;
	struct kt_recorder *rec;
	struct synth g;
	int e;

	synth_info(&in, callchain);
	e = kt_rec_open(path, &in, kallsyms, modules, &rec, err, errlen);
	if (e < 0)
		return e;
	synth_init(&g, n, span_ns);
	while (synth_next(&g, callchain)) {
		switch (g.type) {
		case SY_SAMPLE:
			e = kt_rec_sample(rec, &g.s);
			if (!e && flush_every && g.i % flush_every == 0)
				e = kt_rec_flush(rec, err, errlen);
			break;
		case SY_COMM:
			e = kt_rec_comm(rec, g.s.pid, g.s.tid, g.comm, g.t);
			break;
		case SY_LOST:
			e = kt_rec_lost(rec, g.cpu, g.count, g.t);
			break;
		case SY_THROTTLE:
			e = kt_rec_throttle(rec, g.cpu, g.throttled, g.t);
			break;
		}
		if (e < 0)
			break;
	}
	if (e < 0) {
		char tmp[KT_ERRLEN];

		kt_rec_flush(rec, err, errlen);
		kt_rec_close(rec, tmp, sizeof(tmp));
		return e;
	}
	return kt_rec_close(rec, err, errlen);
}

#endif
