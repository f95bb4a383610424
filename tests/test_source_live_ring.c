/* The ring reader on a ring the test writes itself: records that wrap the ring end (header
 * and body), every record type we ask for (SAMPLE with call chains, COMM, FORK, LOST,
 * LOST_SAMPLES, THROTTLE, UNTHROTTLE) and one we did not, checked with exact values that
 * the live kernel cannot be made to produce on demand. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../src/source_perf.h"
#include "tap.h"

#define DATA 4096

static unsigned char map[4096 + DATA] __attribute__((aligned(4096)));
static uint64_t head;

struct seen {
	int samples, user, comms, lost_calls, throttles, unthrottles;
	uint64_t lost, ip[8], frames[8][8], time[8];
	uint32_t nframes[8], cpu[8];
	int32_t tid[8];
	char comm[4][32];
	uint64_t comm_time[4];
};

static void put(const void *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		map[4096 + ((head + i) & (DATA - 1))] = ((const unsigned char *)src)[i];
	head += n;
}

static void put64(uint64_t v)
{
	put(&v, 8);
}

static void put32x2(uint32_t a, uint32_t b)
{
	put(&a, 4);
	put(&b, 4);
}

static void header(uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = {type, misc, size};

	put(&h, sizeof(h));
}

/* The sample_id_all trailer of our sample_type: pid/tid, time, cpu/res. */
static void trailer(uint32_t pid, uint32_t tid, uint64_t t, uint32_t cpu)
{
	put32x2(pid, tid);
	put64(t);
	put32x2(cpu, 0);
}

static void sample(uint16_t misc, uint64_t ip, uint32_t tid, uint64_t t, uint32_t cpu, int nr,
		   const uint64_t *chain)
{
	header(PERF_RECORD_SAMPLE, misc, (uint16_t)(8 + 40 + 8 + 8 * nr));
	put64(ip);
	put32x2(tid, tid);
	put64(t);
	put32x2(cpu, 0);
	put64(1003009);
	put64((uint64_t)nr);
	for (int i = 0; i < nr; i++)
		put64(chain[i]);
}

static void comm(uint32_t pid, uint32_t tid, const char *name, uint64_t t)
{
	char buf[16] = "";

	snprintf(buf, sizeof(buf), "%s", name);
	header(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 8 + 8 + 16 + 24);
	put32x2(pid, tid);
	put(buf, 16);
	trailer(pid, tid, t, 0);
}

static void on_sample(void *ctx, const struct kt_sample *s)
{
	struct seen *v = ctx;
	int i = v->samples++;

	if (i >= 8)
		return;
	v->ip[i] = s->ip;
	v->time[i] = s->time_ns;
	v->tid[i] = s->tid;
	v->cpu[i] = s->cpu;
	v->nframes[i] = s->nr_frames;
	for (uint32_t j = 0; j < s->nr_frames && j < 8; j++)
		v->frames[i][j] = s->frames[j];
	if (s->flags & KT_SAMPLE_USER)
		v->user++;
}

static void on_comm(void *ctx, int32_t pid, int32_t tid, const char *c, uint64_t t)
{
	struct seen *v = ctx;

	(void)pid;
	(void)tid;
	if (v->comms < 4) {
		snprintf(v->comm[v->comms], sizeof(v->comm[0]), "%s", c);
		v->comm_time[v->comms] = t;
	}
	v->comms++;
}

static void on_lost(void *ctx, uint32_t cpu, uint64_t n, uint64_t t)
{
	struct seen *v = ctx;

	(void)cpu;
	(void)t;
	v->lost += n;
	v->lost_calls++;
}

static void on_throttle(void *ctx, uint32_t cpu, int on, uint64_t t)
{
	struct seen *v = ctx;

	(void)cpu;
	(void)t;
	if (on)
		v->throttles++;
	else
		v->unthrottles++;
}

/* The ring-size rule (docs/sampling.md): half a second of samples at the requested rate,
 * a power of two pages, capped by perf_event_mlock_kb as perf does, never below the floor. */
static void ring_sizes(void)
{
	const size_t cg = PERF_SAMPLE_BYTES + 8 + 8 * (32 + 2); /* -g, --max-stack 32 */

	is_int(kt_perf_ring_pages(997, 48, PERF_RING_MIN_BYTES, 4096, 516, 0), 64,
	       "997 Hz: the 256 KiB floor (24 KB of samples in 0.5 s)");
	is_int(kt_perf_ring_pages(5000, 48, PERF_RING_MIN_BYTES, 4096, 516, 0), 64,
	       "5000 Hz: 120 KB in 0.5 s, still the floor");
	is_int(kt_perf_ring_pages(20000, 48, PERF_RING_MIN_BYTES, 4096, 516, 0), 128,
	       "20000 Hz: 480 KB in 0.5 s, 512 KiB (perf record's size)");
	is_int(kt_perf_ring_pages(20000, 48, PERF_RING_MIN_BYTES, 4096, 0, 0), 128,
	       "mlock_kb unreadable: the kernel default 516");
	is_int(kt_perf_ring_pages(50000, 48, PERF_RING_MIN_BYTES, 4096, 516, 0), 128,
	       "50000 Hz: 1.2 MB wanted, capped at 512 KiB by mlock_kb 516");
	is_int(kt_perf_ring_pages(50000, 48, PERF_RING_MIN_BYTES, 4096, 2052, 0), 512,
	       "50000 Hz with mlock_kb 2052: 2 MiB");
	is_int(kt_perf_ring_pages(20000, 48, PERF_RING_MIN_BYTES, 4096, 132, 0), 64,
	       "a cap below the floor: the floor (map_ring halves if refused)");
	is_int(kt_perf_ring_pages(0, 48, PERF_RING_MIN_BYTES, 4096, 516, 0), 64,
	       "unknown rate (-c with cycles): the floor");
	is_int(kt_perf_ring_pages(997, cg, PERF_RING_MIN_BYTES_CG, 4096, 516, 0), 128,
	       "-g at 997 Hz: the 512 KiB floor");
	is_int(kt_perf_ring_pages(20000, cg, PERF_RING_MIN_BYTES_CG, 4096, 4100, 0), 1024,
	       "-g at 20000 Hz with mlock_kb 4100: 3.3 MB wanted, 4 MiB");
	is_int(kt_perf_ring_pages(20000, 48, PERF_RING_MIN_BYTES, 65536, 516, 0), 4,
	       "64 KiB pages: 8 wanted, mlock_kb 516 allows 7, rounded down to 4");
	/* a privileged process (CAP_IPC_LOCK) is not held to mlock_kb: up to 4 MiB a ring,
	 * 64 MiB for all of them */
	const size_t priv2 = kt_perf_ring_priv_bytes(1ull << 14, 2);

	is_int((long)priv2, 4 << 20, "CAP_IPC_LOCK, 2 CPUs: 4 MiB a ring");
	is_int((long)kt_perf_ring_priv_bytes(1ull << 14, 256), 256 << 10,
	       "CAP_IPC_LOCK, 256 CPUs: 64 MiB / 256 = 256 KiB a ring");
	is_int((long)kt_perf_ring_priv_bytes(1ull << 14, 0), 4 << 20,
	       "CAP_IPC_LOCK, CPU count unknown: 4 MiB");
	is_int((long)kt_perf_ring_priv_bytes(~(1ull << 14), 2), 0,
	       "every capability but CAP_IPC_LOCK: held to mlock_kb (0)");
	is_int(kt_perf_ring_pages(100000, cg, PERF_RING_MIN_BYTES_CG, 4096, 516, priv2), 1024,
	       "-g at 100 kHz as root on 2 CPUs: 15 MB wanted, 4 MiB (mlock_kb's 512 KiB lost a third)");
	is_int(kt_perf_ring_pages(100000, cg, PERF_RING_MIN_BYTES_CG, 4096, 516, 0), 128,
	       "the same without CAP_IPC_LOCK: mlock_kb's 512 KiB");
	is_int(kt_perf_ring_pages(997, cg, PERF_RING_MIN_BYTES_CG, 4096, 516, priv2), 128,
	       "-g at 997 Hz as root: still the 512 KiB floor (a ring grows only with the rate)");
	is_int(kt_perf_ring_pages(100000, cg, PERF_RING_MIN_BYTES_CG, 4096, 516,
				  kt_perf_ring_priv_bytes(1ull << 14, 256)), 128,
	       "as root on 256 CPUs: mlock_kb's 512 KiB is more than the 256 KiB share");
}

int main(void)
{
	static struct perf_source p;
	static uint32_t sampled[1] = {0};
	static struct perf_cpu cpu;
	struct perf_event_mmap_page *pc = (void *)map;
	struct seen v;
	struct kt_sink sink = {&v, on_sample, on_comm, on_lost, on_throttle, NULL};
	const uint64_t K = 0xffffffff81000000ull;
	uint64_t chain[6] = {(uint64_t)PERF_CONTEXT_KERNEL, K + 0x10, K + 0x20, K + 0x30,
			     (uint64_t)PERF_CONTEXT_USER,   0x401000};
	uint64_t start;

	memset(&v, 0, sizeof(v));
	p.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			     PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	p.base.info.ncpus = 1;
	p.base.info.max_cpu = 1;
	p.sampled = sampled;
	p.cpu = &cpu;
	p.tid_seen = calloc(PERF_TID_LIMIT / 64, sizeof(uint64_t));
	snprintf(p.sysroot, sizeof(p.sysroot), "/nonexistent-sysroot");
	cpu.fd = -1;
	cpu.map = map;
	cpu.pc = pc;
	cpu.data = map + 4096;
	cpu.data_size = DATA;

	/* First drain: start 4 bytes before the end of the ring, after many laps, so the first
	 * record's header is split; a filler record then leaves the next one's body to wrap. */
	head = 7 * (uint64_t)DATA + DATA - 4;
	start = head;
	pc->data_tail = head;
	comm(100, 101, "worker", 5000);
	header(PERF_RECORD_MMAP2, 0, DATA - 52 - 48); /* not asked for: skipped */
	for (int i = 0; i < DATA - 52 - 48 - 8; i++)
		put("", 1);
	__atomic_store_n(&pc->data_head, head, __ATOMIC_RELEASE);
	kt_perf_drain(&p, &sink);
	is_int(pc->data_tail, head, "split header: data_tail advanced to data_head");
	is_int(v.comms, 1, "split header: the COMM record is read");
	is_str(v.comm[0], "worker", "split header: comm name");
	is_int(v.comm_time[0], 5000, "comm time from the sample_id trailer");

	is_int(head & (DATA - 1), DATA - 48, "the next record starts 48 bytes before the end");
	sample(0, K + 0x10, 101, 6000, 3, 6, chain); /* body wraps */
	sample(PERF_RECORD_MISC_USER, 0x401000, 101, 7000, 3, 0, NULL);
	header(PERF_RECORD_LOST, 0, 8 + 16 + 24);
	put64(42);
	put64(17);
	trailer(0, 0, 8000, 3);
	header(PERF_RECORD_LOST_SAMPLES, 0, 8 + 8 + 24);
	put64(3);
	trailer(0, 0, 8500, 3);
	header(PERF_RECORD_THROTTLE, 0, 8 + 24 + 24);
	put64(9000);
	put64(42);
	put64(42);
	trailer(0, 0, 9000, 3);
	header(PERF_RECORD_UNTHROTTLE, 0, 8 + 24 + 24);
	put64(9500);
	put64(42);
	put64(42);
	trailer(0, 0, 9500, 3);
	header(PERF_RECORD_MMAP2, 0, 8 + 8); /* not asked for: skipped */
	put64(0);
	/* FORK re-using tid 101: its next sample needs the name again (from /proc: none here). */
	header(PERF_RECORD_FORK, 0, 8 + 24 + 24);
	put32x2(100, 100);
	put32x2(101, 100);
	put64(9800);
	trailer(100, 100, 9800, 3);
	comm(100, 101, "renamed", 9900);
	sample(0, K + 0x40, 101, 10000, 3, 0, NULL);
	/* The kernel publishes head with release; we read it with acquire. */
	__atomic_store_n(&pc->data_head, head, __ATOMIC_RELEASE);

	kt_perf_drain(&p, &sink);

	is_int(pc->data_tail, head, "data_tail advanced to data_head");
	is_int(p.base.stats.bytes, head - start, "stats.bytes counts every drained byte");
	is_int(v.samples, 3, "three samples");
	is_int(p.base.stats.samples, 3, "stats.samples");
	is_int(v.ip[0], K + 0x10, "wrapped sample: ip");
	is_int(v.tid[0], 101, "wrapped sample: tid");
	is_int(v.time[0], 6000, "wrapped sample: time");
	is_int(v.cpu[0], 3, "wrapped sample: cpu");
	is_int(v.nframes[0], 3, "wrapped sample: kernel frames only, markers removed");
	is_int(v.frames[0][0], K + 0x10, "frame 0 is the leaf (the ip)");
	is_int(v.frames[0][2], K + 0x30, "frame 2 is the outermost kernel frame");
	is_int(v.user, 1, "user sample flagged");
	is_int(v.ip[1], 0x401000, "user sample ip");
	is_int(v.nframes[1], 0, "user sample: no frames");
	is_int(v.comms, 2, "COMM records reach the sink, no /proc read for a named tid");
	is_str(v.comm[1], "renamed", "a second COMM renames");
	is_int(v.lost, 17 + 3, "LOST and LOST_SAMPLES counts reach the sink");
	is_int(v.lost_calls, 2, "two lost events");
	is_int(p.base.stats.lost, 17 + 3, "stats.lost");
	is_int(v.throttles, 1, "throttle reaches the sink");
	is_int(v.unthrottles, 1, "unthrottle reaches the sink");
	is_int(p.base.stats.throttled, 1, "stats.throttled counts THROTTLE");

	/* A second drain with nothing new does nothing. */
	memset(&v, 0, sizeof(v));
	kt_perf_drain(&p, &sink);
	is_int(v.samples + v.comms + v.lost_calls + v.throttles, 0,
	       "empty ring: nothing delivered");

	/* A record claiming more bytes than were published is not read past data_head. */
	start = head;
	header(PERF_RECORD_SAMPLE, 0, 200);
	put64(K);
	__atomic_store_n(&pc->data_head, head, __ATOMIC_RELEASE);
	kt_perf_drain(&p, &sink);
	is_int(v.samples, 0, "truncated record: not delivered");
	is_int(pc->data_tail, head, "truncated record: skipped to head");
	free(p.tid_seen);
	ring_sizes();
	return tap_done();
}
