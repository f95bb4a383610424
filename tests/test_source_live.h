/* Shared by the live source tests: a counting sink, the caller's poll loop (as in main.c),
 * load processes and small file helpers. */
#ifndef KERNTOP_TEST_SOURCE_LIVE_H
#define KERNTOP_TEST_SOURCE_LIVE_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "kerntop/source.h"
#include "kerntop/util.h"
#include "tap.h"

#define KBASE 0xffff800000000000ull
#define UTOP 0x0000800000000000ull
#define NCPU 64
#define MAXLOAD 8

struct counts {
	uint64_t samples, per_cpu[NCPU], user, kernel_addr_bad, user_addr_bad;
	uint64_t with_frames, leaf_mismatch, frame_marker, frame_user, frames_over;
	uint64_t lost, lost_events, throttles, t_min, t_max, ip_sum, frame_sum, nframes;
	uint32_t max_stack;
	pid_t watch[MAXLOAD + 2];
	int nwatch;
	char watch_comm[MAXLOAD + 2][32];
	int watch_comms[MAXLOAD + 2];
	char first_comm[MAXLOAD + 2][32];
};

static inline void on_sample(void *ctx, const struct kt_sample *s)
{
	struct counts *c = ctx;

	c->samples++;
	c->ip_sum += s->ip ^ s->time_ns ^ (uint64_t)s->tid << 32 ^ s->period;
	c->nframes += s->nr_frames;
	for (uint32_t i = 0; i < s->nr_frames; i++)
		c->frame_sum += s->frames[i] * (i + 1);
	if (s->cpu < NCPU)
		c->per_cpu[s->cpu]++;
	if (!c->t_min || s->time_ns < c->t_min)
		c->t_min = s->time_ns;
	if (s->time_ns > c->t_max)
		c->t_max = s->time_ns;
	if (s->flags & KT_SAMPLE_USER) {
		c->user++;
		if (s->ip >= UTOP)
			c->user_addr_bad++;
	} else if (s->ip < KBASE) {
		c->kernel_addr_bad++;
	}
	if (s->nr_frames) {
		c->with_frames++;
		if (s->frames[0] != s->ip)
			c->leaf_mismatch++;
		if (c->max_stack && s->nr_frames > c->max_stack)
			c->frames_over++;
		for (uint32_t i = 0; i < s->nr_frames; i++) {
			if (s->frames[i] >= (uint64_t)PERF_CONTEXT_MAX)
				c->frame_marker++;
			else if (s->frames[i] < KBASE)
				c->frame_user++;
		}
	}
}

static inline void on_comm(void *ctx, int32_t pid, int32_t tid, const char *comm, uint64_t t)
{
	struct counts *c = ctx;

	(void)pid;
	(void)t;
	for (int i = 0; i < c->nwatch; i++) {
		if (c->watch[i] != tid)
			continue;
		if (!c->watch_comms[i]++)
			snprintf(c->first_comm[i], sizeof(c->first_comm[i]), "%s", comm);
		snprintf(c->watch_comm[i], sizeof(c->watch_comm[i]), "%s", comm);
	}
}

static inline void on_lost(void *ctx, uint32_t cpu, uint64_t count, uint64_t t)
{
	struct counts *c = ctx;

	(void)cpu;
	(void)t;
	c->lost += count;
	c->lost_events++;
}

static inline void on_throttle(void *ctx, uint32_t cpu, int on, uint64_t t)
{
	struct counts *c = ctx;

	(void)cpu;
	(void)t;
	c->throttles += on;
}

static inline struct kt_sink sink_for(struct counts *c)
{
	struct kt_sink k = {c, on_sample, on_comm, on_lost, on_throttle, NULL};

	return k;
}

/* Runs the caller's poll loop for ms milliseconds, as main.c does, over one source or two
 * sampling side by side (s2 may be NULL). */
static inline int pump2(struct kt_source *s, struct counts *c, struct kt_source *s2,
			struct counts *c2, int ms)
{
	struct kt_sink k = sink_for(c), k2 = sink_for(c2);
	uint64_t end = kt_now_ns() + (uint64_t)ms * 1000000u;
	char err[KT_ERRLEN];

	for (;;) {
		struct pollfd fds[2 * NCPU];
		int n = kt_source_pollfds(s, fds, NCPU), timeout = -1, t2 = -1, r;
		uint64_t now;

		r = kt_source_read(s, &k, &timeout, err, sizeof(err));
		if (r == 0 && s2) {
			n += kt_source_pollfds(s2, fds + n, NCPU);
			r = kt_source_read(s2, &k2, &t2, err, sizeof(err));
			if (t2 >= 0 && (timeout < 0 || t2 < timeout))
				timeout = t2;
		}
		if (r != 0) {
			printf("# read: %d %s\n", r, err);
			return r;
		}
		now = kt_now_ns();
		if (now >= end)
			return 0;
		if (timeout < 0 || (uint64_t)timeout * 1000000u > end - now)
			timeout = (int)((end - now) / 1000000u) + 1;
		poll(fds, (nfds_t)n, timeout);
	}
}

static inline int pump(struct kt_source *s, struct counts *c, int ms)
{
	return pump2(s, c, NULL, NULL, ms);
}

/* Pumps until done(c) holds or ms milliseconds pass (a bound, not a wait): 1 when done. */
static inline int pump_until(struct kt_source *s, struct counts *c,
			     int (*done)(const struct counts *), int ms)
{
	uint64_t end = kt_now_ns() + (uint64_t)ms * 1000000u;

	while (!done(c)) {
		if (kt_now_ns() >= end || pump(s, c, 50) != 0)
			return done(c);
	}
	return 1;
}

static inline struct kt_source_opts base_opts(void)
{
	struct kt_source_opts o;

	memset(&o, 0, sizeof(o));
	o.event = "cpu-clock";
	o.freq_hz = 997;
	o.max_stack = 32;
	o.sysroot = "";
	return o;
}

static inline pid_t spawn(int cpu, int what)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		dup2(null, 1);
		dup2(null, 2);
		if (what == 0)
			execlp("dd", "dd", "if=/dev/zero", "of=/dev/null", "bs=1M", (char *)NULL);
		if (what == 1) {
			volatile uint64_t x = 0;

			for (;;)
				x++;
		}
		_exit(127);
	}
	return pid;
}

/* Waits (bounded, 30 s) until pid runs under the name comm: a load spawned by exec is only
 * known by its name once the exec is done, whatever the machine's load. 1 when it is. */
static inline int wait_comm(pid_t pid, const char *comm)
{
	char path[64], b[32];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	for (int i = 0; i < 3000; i++) {
		int fd = open(path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, b, sizeof(b) - 1) : -1;

		if (fd >= 0)
			close(fd);
		if (n > 0) {
			b[n] = '\0';
			b[strcspn(b, "\n")] = '\0';
			if (strcmp(b, comm) == 0)
				return 1;
		}
		usleep(10000);
	}
	return 0;
}

static inline void stop(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static inline int online_cpus(int *list, int max)
{
	cpu_set_t set;
	int n = 0;

	sched_getaffinity(0, sizeof(set), &set);
	for (int i = 0; i < CPU_SETSIZE && n < max; i++)
		if (CPU_ISSET(i, &set))
			list[n++] = i;
	return n;
}

static inline int read_paranoid(void)
{
	char b[16] = "";
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY);

	if (fd >= 0) {
		if (read(fd, b, sizeof(b) - 1) < 0)
			b[0] = '\0';
		close(fd);
	}
	return atoi(b);
}

static inline void write_file(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		printf("# cannot write %s\n", path);
	if (fd >= 0)
		close(fd);
}

#endif
