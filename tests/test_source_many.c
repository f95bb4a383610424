/* 256 CPUs through the live source's one poll() loop, on a machine that has 2: this test
 * links its own perf system calls (the link-time seam of source_perf_sys.c). Each "event" is
 * an eventfd and each ring anonymous shared memory that a producer thread fills with sample
 * records the way the kernel does (data_head released after the records, data_tail read
 * back, a wakeup at the event's watermark), while the main thread runs the loop main.c runs:
 * poll() the source's fds with its timeout, then read the source. It checks what the count
 * of rings could break: every CPU opened and polled, every ring sized by the rule, every
 * sample delivered exactly once in order per CPU, watermark wakeups through poll().
 *
 *   test_source_many                      the TAP test (make check)
 *   test_source_many --bench CPUS HZ SECS  the producer paced at HZ per CPU in real time:
 *                                         prints the loop's own CPU time (make bench)
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kerntop/source.h"
#include "kerntop/util.h"
#include "source_perf.h"
#include "tap.h"
#include "test_sysroot.h"

#define MAX_FD 8192
#define MAX_RINGS 1024

struct ring {
	int fd;
	int cpu;
	uint32_t watermark;
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	uint64_t size;
	uint64_t woke_at; /* data_head at the last wakeup */
	uint64_t written, stalls, time_ns;
};

static struct ring rings[MAX_RINGS];
static int nrings;
static int ring_of_fd[MAX_FD]; /* index + 1 */
static uint64_t sample_type;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* The seam: an eventfd stands for the event (pollable, woken by the producer). */
int kt_perf_sys_open(struct perf_event_attr *attr, int cpu)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	if (fd < 0 || fd >= MAX_FD || nrings >= MAX_RINGS) {
		if (fd >= 0)
			close(fd);
		errno = EMFILE;
		return -1;
	}
	pthread_mutex_lock(&mu);
	sample_type = attr->sample_type;
	rings[nrings] = (struct ring){.fd = fd, .cpu = cpu, .watermark = attr->wakeup_watermark};
	ring_of_fd[fd] = ++nrings;
	pthread_mutex_unlock(&mu);
	return fd;
}

void *kt_perf_sys_mmap(size_t len, int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct ring *r;

	if (m == MAP_FAILED || fd < 0 || fd >= MAX_FD || !ring_of_fd[fd])
		return MAP_FAILED;
	r = &rings[ring_of_fd[fd] - 1];
	r->pc = m;
	r->pc->data_offset = (uint64_t)page;
	r->pc->data_size = len - (size_t)page;
	r->data = (unsigned char *)m + page;
	r->size = len - (size_t)page;
	return m;
}

int kt_perf_sys_probe(struct perf_event_attr *attr)
{
	(void)attr;
	errno = ENOENT;
	return -1;
}

/* --- the producer: the kernel's side of each ring --- */

struct producer {
	uint64_t per_cpu; /* samples to write on each ring */
	uint64_t hz;	  /* 0: as fast as the rings take them, else paced in real time */
	int done;
	uint64_t wakeups;
};

static void put(struct ring *r, uint64_t head, const void *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		r->data[(head + i) & (r->size - 1)] = ((const unsigned char *)src)[i];
}

/* One sample record (our sample_type: IP, TID, TIME, CPU, PERIOD), or 0 when the ring is
 * full (the caller waits, as a test that must not lose any; the kernel would count it). */
static int write_sample(struct ring *r, struct producer *pr)
{
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t period;
	} s;
	uint64_t head = r->pc->data_head;
	uint64_t tail = __atomic_load_n(&r->pc->data_tail, __ATOMIC_ACQUIRE);

	if (head - tail + sizeof(s) > r->size)
		return 0;
	memset(&s, 0, sizeof(s));
	s.h.type = PERF_RECORD_SAMPLE;
	s.h.misc = PERF_RECORD_MISC_KERNEL;
	s.h.size = sizeof(s);
	s.ip = 0xffffffff81000000ull + (r->written % 64) * 16;
	s.pid = s.tid = 1000 + (uint32_t)r->cpu % 8;
	s.time = ++r->time_ns;
	s.cpu = (uint32_t)r->cpu;
	s.period = 1000000;
	put(r, head, &s, sizeof(s));
	__atomic_store_n(&r->pc->data_head, head + sizeof(s), __ATOMIC_RELEASE);
	r->written++;
	if (r->watermark && head + sizeof(s) - r->woke_at >= r->watermark) {
		uint64_t one = 1;

		r->woke_at = head + sizeof(s);
		if (write(r->fd, &one, sizeof(one)) == sizeof(one))
			pr->wakeups++;
	}
	return 1;
}

static void *produce(void *arg)
{
	struct producer *pr = arg;
	uint64_t t0 = kt_now_ns();

	for (uint64_t k = 0; k < pr->per_cpu; k++) {
		if (pr->hz) { /* tick k is due at k / hz seconds */
			uint64_t due = t0 + k * 1000000000ull / pr->hz, t = kt_now_ns();

			if (due > t) {
				struct timespec d = {(time_t)((due - t) / 1000000000ull),
						     (long)((due - t) % 1000000000ull)};

				nanosleep(&d, NULL);
			}
		}
		for (int i = 0; i < nrings; i++) {
			struct ring *r = &rings[i];

			if (!r->pc)
				continue;
			while (!write_sample(r, pr)) {
				r->stalls++;
				sched_yield();
			}
		}
	}
	__atomic_store_n(&pr->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* --- the consumer: main.c's loop --- */

struct seen {
	uint64_t n, lost, order_errors;
	uint64_t per_cpu[MAX_RINGS];
	uint64_t last_time[MAX_RINGS];
};

static void on_sample(void *ctx, const struct kt_sample *s)
{
	struct seen *v = ctx;

	v->n++;
	if (s->cpu < MAX_RINGS) {
		if (s->time_ns <= v->last_time[s->cpu])
			v->order_errors++;
		v->last_time[s->cpu] = s->time_ns;
		v->per_cpu[s->cpu]++;
	}
}

static void on_lost(void *ctx, uint32_t cpu, uint64_t n, uint64_t t)
{
	(void)cpu;
	(void)t;
	((struct seen *)ctx)->lost += n;
}

static int make_sysroot(char *dir, size_t len, int cpus)
{
	char list[32];

	snprintf(dir, len, "/tmp/kt-many-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(list, sizeof(list), "0-%d\n", cpus - 1);
	return kt_test_cpu_sysroot(dir, list, list);
}

static void remove_sysroot(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", dir);
}

struct run {
	uint64_t polls, woken;	/* poll() calls, and those that returned a ready ring */
	uint64_t loop_cpu_ns;	/* the loop thread's CPU time */
	double wall_s;
	int npollfds;
};

/* Opens the source on the sysroot, runs producer and loop until every sample is drained. */
static int run(int cpus, uint64_t per_cpu, uint64_t hz, struct seen *v, struct producer *pr,
	       struct run *out, char *err, size_t errlen)
{
	char root[64];
	struct kt_source_opts o;
	struct kt_source *s;
	struct kt_sink sink = {.ctx = v, .sample = on_sample, .lost = on_lost};
	static struct pollfd fds[MAX_RINGS + 1];
	pthread_t th;
	struct timespec c0, c1;
	uint64_t t0;
	int r, timeout = 0;

	memset(v, 0, sizeof(*v));
	memset(out, 0, sizeof(*out));
	*pr = (struct producer){.per_cpu = per_cpu, .hz = hz};
	if (make_sysroot(root, sizeof(root), cpus) < 0) {
		snprintf(err, errlen, "cannot make a sysroot under /tmp");
		return -1;
	}
	memset(&o, 0, sizeof(o));
	o.event = "cpu-clock";
	o.freq_hz = 997;
	o.sysroot = root;
	r = kt_source_open(&o, &s, err, errlen);
	remove_sysroot(root);
	if (r < 0)
		return r;
	/* the first read enables the events (and drains nothing) */
	r = kt_source_read(s, &sink, &timeout, err, errlen);
	out->npollfds = kt_source_pollfds(s, fds, MAX_RINGS + 1);
	t0 = kt_now_ns();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	if (r == 0 && pthread_create(&th, NULL, produce, pr) != 0) {
		snprintf(err, errlen, "cannot start the producer thread");
		r = -1;
	}
	while (r == 0) {
		int done = __atomic_load_n(&pr->done, __ATOMIC_ACQUIRE);
		int n = kt_source_pollfds(s, fds, MAX_RINGS + 1), ready;

		ready = poll(fds, (nfds_t)n, timeout);
		out->polls++;
		if (ready > 0) {
			out->woken++;
			/* the kernel clears a perf fd's readiness when poll reports it */
			for (int i = 0; i < n; i++)
				if (fds[i].revents & POLLIN) {
					uint64_t x;

					if (read(fds[i].fd, &x, sizeof(x)) < 0)
						continue;
				}
		}
		r = kt_source_read(s, &sink, &timeout, err, errlen);
		if (done && v->n + v->lost >= per_cpu * (uint64_t)nrings)
			break;
		if (done && ready == 0 && v->n + v->lost < per_cpu * (uint64_t)nrings) {
			/* a full drain after the producer ended: anything missing is gone for good */
			r = kt_source_read(s, &sink, &timeout, err, errlen);
			break;
		}
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	out->wall_s = (double)(kt_now_ns() - t0) / 1e9;
	out->loop_cpu_ns = (uint64_t)(c1.tv_sec - c0.tv_sec) * 1000000000ull +
			   (uint64_t)(c1.tv_nsec - c0.tv_nsec);
	if (out->polls)
		pthread_join(th, NULL);
	kt_source_free(s);
	return r;
}

static int bench(int cpus, uint64_t hz, double secs)
{
	struct seen *v = calloc(1, sizeof(*v));
	struct producer pr;
	struct run o;
	char err[KT_ERRLEN];
	uint64_t stalls = 0;

	if (!v || cpus < 1 || cpus > MAX_RINGS || !hz || secs <= 0) {
		fprintf(stderr, "usage: test_source_many --bench CPUS(1-%d) HZ SECS\n", MAX_RINGS);
		return 2;
	}
	if (run(cpus, (uint64_t)((double)hz * secs), hz, v, &pr, &o, err, sizeof(err)) != 0 && err[0]) {
		fprintf(stderr, "test_source_many: %s\n", err);
		return 1;
	}
	for (int i = 0; i < nrings; i++)
		stalls += rings[i].stalls;
	printf("rings %d rate %" PRIu64 " Hz samples %" PRIu64 " delivered %" PRIu64
	       " lost %" PRIu64 " producer_stalls %" PRIu64 " polls %" PRIu64 " woken %" PRIu64
	       " wall_s %.3f loop_cpu_ms %.1f loop_cpu_pct %.3f ns_per_sample %.1f\n",
	       nrings, hz, (uint64_t)((double)hz * secs) * (uint64_t)nrings, v->n, v->lost, stalls,
	       o.polls, o.woken, o.wall_s, (double)o.loop_cpu_ns / 1e6,
	       100.0 * (double)o.loop_cpu_ns / 1e9 / o.wall_s,
	       v->n ? (double)o.loop_cpu_ns / (double)v->n : 0.0);
	free(v);
	return 0;
}

int main(int argc, char **argv)
{
	struct seen *v;
	struct producer pr;
	struct run o;
	char err[KT_ERRLEN] = "";
	int r, all_equal = 1, sized = 1, memcheck = getenv("KT_MEMCHECK") != NULL;
	uint64_t per_cpu = memcheck ? 3000 : 4000, stalls = 0;
	long page = sysconf(_SC_PAGESIZE);
	const uint64_t want_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

	if (argc == 5 && !strcmp(argv[1], "--bench"))
		return bench(atoi(argv[2]), strtoull(argv[3], NULL, 10), strtod(argv[4], NULL));
	v = calloc(1, sizeof(*v));
	if (!v)
		return 1;
	r = run(256, per_cpu, 0, v, &pr, &o, err, sizeof(err));
	is_int(r, 0, "256 CPUs: the source opens and runs");
	if (r)
		printf("# %s\n", err);
	is_int(nrings, 256, "one event opened per CPU of the sysroot's 0-255");
	ok(sample_type == want_type,
	   "the events sample ip, tid, time, cpu and period (the records this test writes)");
	is_int(o.npollfds, 256, "the source gives the loop all 256 ring fds to poll");
	for (int i = 0; i < nrings; i++) {
		if (rings[i].size !=
		    kt_perf_ring_pages(997, PERF_SAMPLE_BYTES, PERF_RING_MIN_BYTES, page, 0,
				       kt_perf_ring_priv_bytes(0, 256)) *
			(uint64_t)page)
			sized = 0;
		stalls += rings[i].stalls;
	}
	ok(sized, "every ring is sized by the rule (the floor at 997 Hz)");
	is_int(v->n, per_cpu * 256, "every sample written is delivered once");
	is_int(v->lost, 0, "nothing counted lost");
	for (int c = 0; c < 256; c++)
		if (v->per_cpu[c] != per_cpu)
			all_equal = 0;
	ok(all_equal, "each CPU delivers exactly its own samples");
	is_int(v->order_errors, 0, "in order on every CPU");
	ok(pr.wakeups > 0 && o.woken > 0,
	   "watermark wakeups reach the loop through poll() (rings written faster than drained)");
	printf("# %" PRIu64 " samples on %d rings, %" PRIu64 " polls (%" PRIu64
	       " woken by a ring), %" PRIu64 " producer waits for a full ring, %.0f ns of the "
	       "loop's CPU a sample\n",
	       v->n, nrings, o.polls, o.woken, stalls,
	       v->n ? (double)o.loop_cpu_ns / (double)v->n : 0.0);
	free(v);
	return tap_done();
}
