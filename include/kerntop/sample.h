/* The shared sample type: what every source hands to the rest of the pipeline.
 * Owned by no layer and included by all; it must not include any other kerntop header. */
#ifndef KERNTOP_SAMPLE_H
#define KERNTOP_SAMPLE_H

#include <stdint.h>

/* Hard cap on call-chain frames kept per sample (--max-stack cannot exceed it). */
#define KT_MAX_STACK 256

enum {
	KT_SAMPLE_USER = 1u << 0, /* ip is a user-mode address (only with --user) */
};

struct kt_sample {
	uint64_t time_ns;        /* source clock: CLOCK_MONOTONIC for live, recorded time for replay */
	uint64_t ip;
	uint64_t period;         /* events this sample stands for (ns for cpu-clock) */
	int32_t pid, tid;
	uint32_t cpu;
	uint32_t flags;          /* KT_SAMPLE_* */
	uint32_t nr_frames;      /* kernel call chain, leaf first, context markers removed */
	const uint64_t *frames;  /* valid only during the sink call */
};

struct kt_ps_snap; /* kerntop/procstat.h */

/* Where a source sends what it reads. Any callback may be NULL. */
struct kt_sink {
	void *ctx;
	void (*sample)(void *ctx, const struct kt_sample *s);
	void (*comm)(void *ctx, int32_t pid, int32_t tid, const char *comm, uint64_t time_ns);
	void (*lost)(void *ctx, uint32_t cpu, uint64_t count, uint64_t time_ns);
	void (*throttle)(void *ctx, uint32_t cpu, int throttled, uint64_t time_ns);
	/* A replayed /proc figures snapshot (valid only during the call). */
	void (*procstat)(void *ctx, const struct kt_ps_snap *snap);
};

#endif
