/* Private to the live source: the per-CPU ring state shared by source_perf.c (opening,
 * hotplug, errors) and source_perf_ring.c (draining records into the sink). */
#ifndef KERNTOP_SOURCE_PERF_H
#define KERNTOP_SOURCE_PERF_H

#include <limits.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "source_impl.h"

/* -e auto: "cycles" where the PMU counts them (NMI-driven, it samples inside IRQ-off code),
 * else "cpu-clock" with a one-line notice in notice. With -c (period_given) always
 * "cpu-clock": the count keeps its meaning of nanoseconds whatever the machine. */
const char *kt_perf_auto_event(int period_given, char *notice, size_t len);

/* The kernel's hard pid limit on 64-bit (PID_MAX_LIMIT): sizes the seen-tid bitmap. */
#define PERF_TID_LIMIT (4u * 1024 * 1024)

/* A record's size is a u16, so one bounce buffer holds any record that wraps the ring end. */
#define PERF_MAX_RECORD 65536

struct perf_cpu {
	int fd;	    /* -1 when this CPU is not sampled */
	int failed; /* open refused at a refresh: notice given once */
	int gone;   /* went offline: closed by the next read, with its sink */
	uint32_t watermark; /* wakeup_watermark the event was opened with: half its ring */
	void *map;  /* control page + data pages */
	size_t map_len;
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	uint64_t data_size; /* a power of two */
};

struct perf_source {
	struct kt_source base; /* first: the dispatcher casts */
	struct perf_event_attr attr;
	struct perf_cpu *cpu; /* indexed by CPU number, info.max_cpu entries */
	uint32_t *sampled;    /* CPU numbers now sampled (info.cpus) */
	uint8_t *wanted;      /* CPUs of -C, or every possible CPU */
	size_t pages;	      /* data pages per ring */
	size_t pages_wanted;  /* what ring_pages asked for, before the mlock limit halved it */
	int started;	      /* events enabled (by the first read) */
	char sysroot[PATH_MAX];
	char event[32];
	char pending[256];  /* notice found while reading, given at the next refresh */
	uint64_t *tid_seen; /* bitmap: a comm was emitted (or tried) for this tid */
	uint64_t frames[KT_MAX_STACK];
	unsigned char bounce[PERF_MAX_RECORD];
};

/* The two system calls of the live source, alone in source_perf_sys.c so that a test links
 * its own (tests/seam/perf_inject.c) to inject refusals: a link-time seam, no hook in kerntop.
 * kt_perf_sys_open: perf_event_open system-wide on cpu (close-on-exec), an fd or -1 with errno;
 * kt_perf_sys_mmap: maps len bytes of the event fd's ring, or MAP_FAILED with errno. */
int kt_perf_sys_open(struct perf_event_attr *attr, int cpu);
void *kt_perf_sys_mmap(size_t len, int fd);
/* kt_perf_sys_probe: perf_event_open of a counting event on this process (pid 0, any CPU),
 * which needs no privilege: -e auto asks the PMU with it whether it has cycles. */
int kt_perf_sys_probe(struct perf_event_attr *attr);

/* Bytes of one sample record with our sample_type: header, ip, pid/tid, time, cpu, period;
 * with a call chain add nr and up to max_stack frames (+ 2 context markers). */
#define PERF_SAMPLE_BYTES 48
/* Smallest ring, whatever the rate: room for bursts of COMM/FORK records at low rates. */
#define PERF_RING_MIN_BYTES (256u * 1024)
#define PERF_RING_MIN_BYTES_CG (512u * 1024)
/* A ring holds at least this long of samples at the requested rate: a caller busy that long
 * (a slow refresh, a stalled terminal) loses nothing; perf record's 512 KiB at 20000 Hz. */
#define PERF_RING_HOLD_MS 500
/* A process with CAP_IPC_LOCK is not held to perf_event_mlock_kb (the kernel lets it lock
 * more): its rings may grow to this many bytes each, and all of them together to
 * PERF_RING_PRIV_TOTAL, so a 256-CPU machine keeps perf's 512 KiB. At 100 kHz with call
 * chains 512 KiB is 10-20 ms of samples, less than a busy machine may keep kerntop from
 * running (a third of the samples lost under two dd loads here; none with 4 MiB). */
#define PERF_RING_PRIV_MAX (4u * 1024 * 1024)
#define PERF_RING_PRIV_TOTAL (64u * 1024 * 1024)

/* Data pages of each CPU's ring (a power of two): PERF_RING_HOLD_MS of samples of
 * sample_bytes at rate_hz (0: unknown rate), rounded up to a power of two pages, capped
 * like perf does by kernel.perf_event_mlock_kb (minus the control page, rounded down to a
 * power of two; mlock_kb <= 0: the kernel default 516), or by priv_bytes rounded down to
 * a power of two pages when that is larger (a privileged process, see
 * PERF_RING_PRIV_MAX; 0 otherwise), never below min_bytes. */
size_t kt_perf_ring_pages(uint64_t rate_hz, size_t sample_bytes, size_t min_bytes, long page,
			  long mlock_kb, size_t priv_bytes);
/* The per-ring cap a privileged process allows itself for ncpus rings: PERF_RING_PRIV_MAX,
 * or PERF_RING_PRIV_TOTAL / ncpus when smaller; 0 without CAP_IPC_LOCK (cap_eff is the
 * CapEff mask of /proc/self/status). */
size_t kt_perf_ring_priv_bytes(uint64_t cap_eff, uint32_t ncpus);
/* This process's effective capabilities (CapEff of /proc/self/status), 0 when unreadable. */
uint64_t kt_perf_cap_effective(void);

/* Drains every open ring into sink (source_perf_ring.c). */
void kt_perf_drain(struct perf_source *p, const struct kt_sink *sink);
/* Drains and closes one CPU's ring. */
void kt_perf_close_cpu(struct perf_source *p, uint32_t cpu, const struct kt_sink *sink);

#endif
