/* Sources of samples: live perf_event_open on every sampled CPU, or replay of a kerntop
 * recording or `perf script` text. A source hands raw samples and accounting events to a
 * kt_sink; the rest of the program never knows which source it has. It may use sample.h
 * and util.h only: no symbols, window, aggregator or UI. */
#ifndef KERNTOP_SOURCE_H
#define KERNTOP_SOURCE_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "kerntop/procstat.h"
#include "kerntop/sample.h"

struct kt_source;

struct kt_source_opts {
	const char *event;    /* "auto" (or NULL), "cpu-clock", "task-clock", "cycles" */
	uint64_t freq_hz;     /* 0 when period is used */
	uint64_t period;
	const char *cpus;     /* "0,2-3" or NULL for every online CPU */
	int user;             /* also sample user mode */
	int callchain;        /* PERF_SAMPLE_CALLCHAIN, kernel frames only */
	uint32_t max_stack;
	const char *record;   /* write a recording while sampling live, or NULL */
	long record_uid;      /* > 0: create the recording as this user (sudo), not as root */
	long record_gid;
	const char *replay;   /* replay this file instead of sampling, or NULL */
	double speed;         /* replay pacing factor; 0 = as fast as possible */
	const char *sysroot;  /* for /sys/devices/system/cpu/online, /proc/PID/comm */
	/* Symbol context written into a recording (snapshot of kallsyms and modules text). */
	const char *kallsyms_path;
	const char *modules_path;
};

/* One function's text bytes carried by a recording (annotate on another machine). */
struct kt_source_text {
	uint64_t addr;
	const uint8_t *bytes; /* copied from the replayed file, valid as long as the source */
	size_t len;
};

struct kt_source_info {
	const char *kind;     /* "live" or "replay" */
	const char *event;    /* the event actually sampled */
	uint64_t freq_hz;     /* 0 when sampling by period */
	uint64_t period;      /* the period, or the nominal one for a frequency (ns for clocks) */
	uint32_t ncpus;       /* CPUs sampled */
	const uint32_t *cpus; /* their numbers */
	uint32_t max_cpu;     /* highest CPU number + 1 (array size for per-CPU tables) */
	int callchain;
	int user;
	const char *path;     /* replay file, or NULL */
	/* Symbol context carried by a kerntop recording, or NULL/0 (use the live files). */
	const char *kallsyms;
	size_t kallsyms_len;
	const char *modules;
	size_t modules_len;
	/* Function texts carried by a kerntop recording (TEXT blocks), or NULL/0. */
	const struct kt_source_text *texts;
	size_t ntexts;
};

struct kt_source_stats {
	uint64_t samples;     /* delivered to the sink */
	uint64_t lost;        /* PERF_RECORD_LOST counts */
	uint64_t throttled;   /* PERF_RECORD_THROTTLE events */
	uint64_t skipped;     /* replay: malformed lines or records skipped */
	uint64_t bytes;       /* replay: bytes read; live: bytes drained */
};

/* Shortest period of the clock events (cpu-clock, task-clock) in ns: the kernel's hrtimer
 * floor; a shorter -c is silently raised to it by the kernel, so it is refused. */
#define KT_SOURCE_MIN_CLOCK_PERIOD 10000

/* Return of kt_source_read when a replay has delivered its last sample. */
#define KT_SOURCE_EOF 1

/* Opens the source described by o (replay when o->replay is set); live sampling starts at
 * the first kt_source_read, so setup time is never lost to full rings. Returns 0, or -errno
 * with a one-line message naming the cause and the fix (e.g. perf_event_paranoid); -EINVAL
 * for a clock period below KT_SOURCE_MIN_CLOCK_PERIOD, or for -c with cycles where the PMU
 * has no cycles (the count would silently become nanoseconds of cpu-clock). */
int kt_source_open(const struct kt_source_opts *o, struct kt_source **out, char *err, size_t errlen);
void kt_source_free(struct kt_source *s);

const struct kt_source_info *kt_source_info(const struct kt_source *s);
void kt_source_stats(const struct kt_source *s, struct kt_source_stats *st);

/* Fills up to max pollfds to wait on (perf ring fds; none for replay). Returns the count. */
int kt_source_pollfds(struct kt_source *s, struct pollfd *fds, int max);

/* Drains what is ready into sink. *timeout_ms gets the longest the caller may wait before
 * calling again (-1: only when a pollfd is ready). Returns 0, KT_SOURCE_EOF, or -errno with
 * a message in err. A replay at speed 0 delivers a bounded batch per call. */
int kt_source_read(struct kt_source *s, const struct kt_sink *sink, int *timeout_ms,
		   char *err, size_t errlen);

/* The source clock now: CLOCK_MONOTONIC for live, the replayed time for a replay. */
uint64_t kt_source_now(const struct kt_source *s);

/* Called once per refresh: live sources re-check CPU hotplug. A notice for the status
 * line ("cpu 3 went offline") is written to msg when something changed (returns 1). */
int kt_source_refresh(struct kt_source *s, char *msg, size_t msglen);

/* Ends sampling and closes a --record file, reporting a late write failure (ENOSPC on the
 * last block...) as -errno with a message. kt_source_free does the same silently; call this
 * first to tell the user. Returns 0 for replay sources or when nothing was recorded. */
int kt_source_finish(struct kt_source *s, char *err, size_t errlen);

/* Writes a /proc figures snapshot into the --record file as a PROCSTAT event (a live source
 * recording; 0 and nothing done otherwise). Returns 0 or -errno (the recording's error). */
int kt_source_procstat(struct kt_source *s, const struct kt_ps_snap *snap);
/* --record: stores the text bytes of one function (a TEXT block, after the samples so far) so
 * that a replay elsewhere can annotate it. Returns 0 (also when not recording) or -errno; a
 * write failure is also reported by kt_source_finish. */
int kt_source_record_text(struct kt_source *s, uint64_t addr, const void *bytes, size_t len);
/* Whether samples are being recorded (--record of a live source). */
int kt_source_recording(const struct kt_source *s);

/* One-line notice from opening (e.g. "cycles not supported here: sampling cpu-clock"), or NULL. */
const char *kt_source_notice(const struct kt_source *s);

#endif
