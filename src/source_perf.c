/* The live source: one system-wide perf_event_open per sampled CPU, each with its own mmap
 * ring, drained from the caller's single poll() loop. This file opens and closes the CPUs
 * (hotplug included) and explains refusals; source_perf_ring.c reads. --record wraps it
 * (source_rec.c). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kerntop/paths.h"
#include "kerntop/util.h"
#include "source_perf.h"

/* Upper bound on CPU numbers we accept from sysfs or -C (kernel NR_CPUS is at most 8192). */
#define MAX_CPUS 8192

static const struct kt_source_ops perf_ops;

const char *kt_perf_auto_event(int period_given, char *notice, size_t len)
{
	struct perf_event_attr a;
	int fd;

	notice[0] = 0;
	if (period_given)
		return "cpu-clock";
	/* Counting this process's own user cycles needs no privilege: it asks the PMU only
	 * whether it has the event. */
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = kt_perf_sys_probe(&a);
	if (fd >= 0) {
		close(fd);
		return "cycles";
	}
	snprintf(notice, len, "-e auto: no cycles event here (%s): sampling cpu-clock",
		 errno == ENOENT      ? "no such hardware event"
		 : errno == ENODEV    ? "no PMU"
		 : errno == EOPNOTSUPP ? "not supported by the PMU"
				      : strerror(errno));
	return "cpu-clock";
}

static void path_in(const struct perf_source *p, const char *rel, char *buf, size_t len)
{
	kt_sysroot_path(buf, len, p->sysroot, "%s", rel);
}

/* Reads a small sysfs/procfs file into buf (NUL-terminated, trailing newline dropped). */
static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return 0;
}

/* Parses a CPU list "0,2-3" into mask (size MAX_CPUS). Returns the highest CPU + 1, or -EINVAL. */
static int parse_cpu_list(const char *s, uint8_t *mask)
{
	int top = 0;

	if (!*s)
		return 0;
	for (;;) {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0 || a >= MAX_CPUS)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= MAX_CPUS)
				return -EINVAL;
		}
		for (long c = a; c <= b; c++)
			mask[c] = 1;
		if (b + 1 > top)
			top = (int)b + 1;
		if (*end == '\0')
			return top;
		if (*end != ',')
			return -EINVAL;
		s = end + 1;
	}
}

/* Reads a sysfs CPU list under the sysroot, falling back to the real /sys for a fixture
 * tree that has no sys/ (the symbol fixtures) */
static int read_cpu_file(const struct perf_source *p, const char *rel, uint8_t *mask)
{
	char path[PATH_MAX + 64], buf[4096] = "";

	path_in(p, rel, path, sizeof(path));
	if (read_small(path, buf, sizeof(buf)) < 0 &&
	    (!p->sysroot[0] || read_small(rel, buf, sizeof(buf)) < 0))
		return -ENOENT;
	memset(mask, 0, MAX_CPUS);
	return parse_cpu_list(buf, mask);
}

static int is_clock(const char *event)
{
	return strcmp(event, "cycles") != 0;
}

static void set_event(struct perf_source *p, const char *event)
{
	snprintf(p->event, sizeof(p->event), "%s", event);
	if (strcmp(event, "cycles") == 0) {
		p->attr.type = PERF_TYPE_HARDWARE;
		p->attr.config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		p->attr.type = PERF_TYPE_SOFTWARE;
		p->attr.config = strcmp(event, "task-clock") == 0 ? PERF_COUNT_SW_TASK_CLOCK
								  : PERF_COUNT_SW_CPU_CLOCK;
	}
}

static void setup_attr(struct perf_source *p, const struct kt_source_opts *o)
{
	struct perf_event_attr *a = &p->attr;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	set_event(p, o->event ? o->event : "cpu-clock");
	if (o->freq_hz) {
		a->freq = 1;
		a->sample_freq = o->freq_hz;
	} else {
		a->sample_period = o->period ? o->period : 1000000;
	}
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD;
	if (o->callchain) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_user = 1;
		a->sample_max_stack = (uint16_t)(o->max_stack ? o->max_stack : 32);
	}
	a->exclude_user = !o->user;
	a->exclude_hv = 1;
	a->disabled = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;	      /* FORK records tell us a recycled tid needs its name again */
	a->sample_id_all = 1; /* COMM, LOST and THROTTLE carry time and CPU */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
}

static void explain_denied(const struct perf_source *p, uint32_t cpu, int e, char *err,
			   size_t errlen)
{
	char v[32];

	if (read_small(KT_PATH_PERF_PARANOID, v, sizeof(v)) < 0)
		snprintf(v, sizeof(v), "unreadable");
	snprintf(err, errlen,
		 "perf_event_open %s on cpu %u: %s; system-wide sampling needs "
		 "kernel.perf_event_paranoid <= 0 "
		 "(it is %s: sysctl -w kernel.perf_event_paranoid=0), or CAP_PERFMON "
		 "(setcap cap_perfmon+ep kerntop), or running as root",
		 p->event, cpu, e == EPERM ? "operation not permitted" : "permission denied", v);
}

/* Turns a refused perf_event_open into the one-line message and the code main exits with. */
static int open_error(const struct perf_source *p, uint32_t cpu, int e, char *err, size_t errlen)
{
	char v[32];

	switch (e) {
	case EACCES:
	case EPERM:
		explain_denied(p, cpu, e, err, errlen);
		return -EACCES;
	case ENOSYS:
		snprintf(err, errlen,
			 "perf_event_open: this kernel has no perf events (CONFIG_PERF_EVENTS); "
			 "use --replay FILE instead");
		return -ENOSYS;
	case EMFILE:
	case ENFILE:
		snprintf(err, errlen,
			 "perf_event_open on cpu %u: too many open files; raise the limit "
			 "(ulimit -n) to at least one per CPU, or sample fewer CPUs with -C",
			 cpu);
		return -e;
	case EOVERFLOW:
		if (read_small(KT_PATH_PERF_MAX_STACK, v, sizeof(v)) < 0)
			snprintf(v, sizeof(v), "unknown");
		snprintf(err, errlen,
			 "perf_event_open: --max-stack %u exceeds kernel.perf_event_max_stack "
			 "(%s); lower --max-stack or raise the sysctl",
			 p->attr.sample_max_stack, v);
		return -e;
	case EINVAL:
		if (p->attr.freq) {
			if (read_small(KT_PATH_PERF_MAX_RATE, v, sizeof(v)) < 0)
				snprintf(v, sizeof(v), "unknown");
			snprintf(err, errlen,
				 "perf_event_open %s on cpu %u: invalid argument; -F %llu may "
				 "exceed kernel.perf_event_max_sample_rate (%s): lower -F",
				 p->event, cpu, (unsigned long long)p->attr.sample_freq, v);
			return -e;
		}
		/* fall through */
	default:
		snprintf(err, errlen, "perf_event_open %s on cpu %u failed (%s)", p->event, cpu,
			 strerror(e));
		return -e;
	}
}

static size_t pow2_up(size_t n)
{
	size_t v = 1;

	while (v < n && v < ((size_t)1 << (sizeof(size_t) * 8 - 2)))
		v <<= 1;
	return v;
}

size_t kt_perf_ring_priv_bytes(uint64_t cap_eff, uint32_t ncpus)
{
	const int cap_ipc_lock = 14; /* linux/capability.h */

	if (!(cap_eff >> cap_ipc_lock & 1))
		return 0;
	if (ncpus && PERF_RING_PRIV_TOTAL / ncpus < PERF_RING_PRIV_MAX)
		return PERF_RING_PRIV_TOTAL / ncpus;
	return PERF_RING_PRIV_MAX;
}

uint64_t kt_perf_cap_effective(void)
{
	char line[256];
	uint64_t v = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7)) {
			v = strtoull(line + 7, NULL, 16);
			break;
		}
	fclose(f);
	return v;
}

size_t kt_perf_ring_pages(uint64_t rate_hz, size_t sample_bytes, size_t min_bytes, long page,
			  long mlock_kb, size_t priv_bytes)
{
	size_t min_pages = pow2_up((min_bytes + (size_t)page - 1) / (size_t)page);
	size_t cap = 1, want, limit;
	uint64_t bytes;

	if (mlock_kb <= 0)
		mlock_kb = 516;
	/* perf's perf_event_mlock_kb_in_pages(): the limit covers the control page too. */
	limit = (size_t)mlock_kb * 1024 > (size_t)page
		    ? ((size_t)mlock_kb * 1024 - (size_t)page) / (size_t)page
		    : 1;
	if (priv_bytes / (size_t)page > limit)
		limit = priv_bytes / (size_t)page;
	while (cap * 2 <= limit)
		cap *= 2;
	if (rate_hz > 100000000)
		rate_hz = 100000000; /* far above any kernel's max_sample_rate: no overflow */
	bytes = rate_hz * sample_bytes * PERF_RING_HOLD_MS / 1000;
	want = pow2_up((size_t)((bytes + (uint64_t)page - 1) / (uint64_t)page));
	if (want > cap)
		want = cap;
	return want > min_pages ? want : min_pages;
}

/* Samples per second per CPU we asked for, or 0 when it is not known (-c with cycles). */
static uint64_t sample_rate(const struct perf_source *p)
{
	if (p->attr.freq)
		return p->attr.sample_freq;
	if (is_clock(p->event) && p->attr.sample_period)
		return 1000000000ull / p->attr.sample_period;
	return 0;
}

/* Ring size for this session (see kt_perf_ring_pages and docs/sampling.md). */
static size_t ring_pages(const struct perf_source *p)
{
	size_t sz = PERF_SAMPLE_BYTES;
	char v[32] = "";
	long kb = 0;
	uint32_t ncpus = 0;

	for (uint32_t c = 0; c < p->base.info.max_cpu; c++)
		ncpus += p->wanted[c] ? 1 : 0;

	if (p->attr.sample_type & PERF_SAMPLE_CALLCHAIN)
		sz += 8 + 8 * ((size_t)p->attr.sample_max_stack + 2);
	if (read_small(KT_PATH_PERF_MLOCK_KB, v, sizeof(v)) == 0)
		kb = strtol(v, NULL, 10);
	return kt_perf_ring_pages(sample_rate(p), sz,
				  p->attr.sample_type & PERF_SAMPLE_CALLCHAIN
				      ? PERF_RING_MIN_BYTES_CG
				      : PERF_RING_MIN_BYTES,
				  sysconf(_SC_PAGESIZE), kb,
				  kt_perf_ring_priv_bytes(kt_perf_cap_effective(), ncpus));
}

/* Maps p->pages data pages of c's ring: 0, or -errno of mmap. */
static int map_ring(struct perf_source *p, struct perf_cpu *c)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (p->pages + 1) * (size_t)page;
	void *m;

	m = kt_perf_sys_mmap(len, c->fd);
	if (m == MAP_FAILED)
		return -errno;
	c->map = m;
	c->map_len = len;
	c->pc = m;
	/* data_offset/data_size exist since 4.1; older kernels leave them 0. */
	c->data = (unsigned char *)m + (c->pc->data_offset ? c->pc->data_offset : (uint64_t)page);
	c->data_size = c->pc->data_size ? c->pc->data_size : (uint64_t)p->pages * (uint64_t)page;
	return 0;
}

static void unmap_cpu(struct perf_cpu *c)
{
	if (c->map)
		munmap(c->map, c->map_len);
	if (c->fd >= 0)
		close(c->fd);
	c->map = NULL;
	c->fd = -1;
}

/* Opens and maps one CPU; returns 0 or -errno (the raw errno of perf_event_open). An
 * unprivileged user is held to kernel.perf_event_mlock_kb: the ring is halved until it fits,
 * and the event reopened each time, since the kernel takes the wakeup watermark (half the
 * ring) from the attributes at mmap and clamps a too-large one to the whole ring. The next
 * CPUs start from the size that fitted. */
static int open_cpu(struct perf_source *p, uint32_t cpu, int enable)
{
	struct perf_cpu *c = &p->cpu[cpu];
	long page = sysconf(_SC_PAGESIZE);
	int r;

	for (;;) {
		p->attr.wakeup_watermark = (uint32_t)(p->pages * (size_t)page / 2);
		c->fd = kt_perf_sys_open(&p->attr, (int)cpu);
		if (c->fd < 0) {
			r = -errno;
			c->fd = -1;
			return r;
		}
		c->watermark = p->attr.wakeup_watermark;
		r = map_ring(p, c);
		if (r == 0)
			break;
		unmap_cpu(c);
		if ((r != -EPERM && r != -ENOMEM) || p->pages / 2 < 4)
			return r == -EPERM ? -ENOMEM : r;
		p->pages /= 2;
	}
	if (enable)
		ioctl(c->fd, PERF_EVENT_IOC_ENABLE, 0);
	return 0;
}

static void rebuild_cpu_list(struct perf_source *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->base.info.max_cpu; i++)
		if (p->cpu[i].fd >= 0)
			p->sampled[n++] = i;
	p->base.info.ncpus = n;
}

/* First CPU: probes the event, falling back from cycles to cpu-clock where there is no PMU. */
static int open_first(struct perf_source *p, uint32_t cpu, char *err, size_t errlen)
{
	int r = open_cpu(p, cpu, 0);

	if ((r == -ENOENT || r == -EOPNOTSUPP || r == -ENODEV) && !is_clock(p->event)) {
		const char *why = r == -ENOENT	 ? "no such hardware event"
				  : r == -ENODEV ? "no PMU"
						 : "not supported by the PMU";
		char msg[160];

		if (!p->attr.freq) {
			/* -c counted cycles: as a cpu-clock period it would mean nanoseconds. */
			snprintf(
			    err, errlen,
			    "-e %s is not supported here (%s), and -c %llu counts cycles: sample "
			    "cpu-clock with -F HZ, or with -c NS (nanoseconds, at least %u)",
			    p->event, why, (unsigned long long)p->attr.sample_period,
			    KT_SOURCE_MIN_CLOCK_PERIOD);
			return -EINVAL;
		}
		snprintf(msg, sizeof(msg), "%s not supported here (%s): sampling cpu-clock",
			 p->event, why);
		kt_source_add_notice(p->base.notice, sizeof(p->base.notice), msg);
		set_event(p, "cpu-clock");
		/* The ring was sized for the first event: size it again for this one. */
		p->pages = p->pages_wanted = ring_pages(p);
		r = open_cpu(p, cpu, 0);
	}
	if (r == -ENOMEM) {
		snprintf(err, errlen,
			 "cannot map the perf ring of cpu %u (out of locked memory: "
			 "raise kernel.perf_event_mlock_kb or run as root)",
			 cpu);
		return r;
	}
	if (r < 0)
		return open_error(p, cpu, -r, err, errlen);
	return 0;
}

static int open_cpus(struct perf_source *p, const uint8_t *online, char *err, size_t errlen)
{
	char skipped[128] = "";
	int first = 1, r;

	for (uint32_t i = 0; i < p->base.info.max_cpu; i++) {
		if (!p->wanted[i])
			continue;
		if (!online[i]) {
			size_t n = strlen(skipped);

			snprintf(skipped + n, sizeof(skipped) - n, "%s%u", n ? "," : "", i);
			continue;
		}
		if (first) {
			r = open_first(p, i, err, errlen);
			if (r < 0)
				return r;
			first = 0;
			continue;
		}
		r = open_cpu(p, i, 0);
		if (r == -ENODEV) { /* went offline since we read the online list */
			size_t n = strlen(skipped);

			snprintf(skipped + n, sizeof(skipped) - n, "%s%u", n ? "," : "", i);
			continue;
		}
		if (r < 0)
			return open_error(p, i, -r, err, errlen);
	}
	rebuild_cpu_list(p);
	if (!p->base.info.ncpus) {
		snprintf(err, errlen, "no CPU to sample: cpu %s %s offline (see %s)", skipped,
			 strchr(skipped, ',') ? "are" : "is", KT_PATH_CPU_ONLINE);
		return -ENODEV;
	}
	if (skipped[0]) {
		char msg[200];

		snprintf(msg, sizeof(msg), "cpu %s offline: not sampled until it comes online",
			 skipped);
		kt_source_add_notice(p->base.notice, sizeof(p->base.notice), msg);
	}
	if (p->pages < p->pages_wanted) {
		/* as perf says when its mmap is refused: the limit, and what to change */
		long page = sysconf(_SC_PAGESIZE);
		uint64_t rate = sample_rate(p);
		char msg[240];

		snprintf(msg, sizeof(msg),
			 "perf rings cut from %zu to %zu KiB per CPU by the locked-memory limit "
			 "(kernel.perf_event_mlock_kb); at this rate a ring holds %llu ms: if samples "
			 "are lost, raise it or run as root",
			 p->pages_wanted * (size_t)page / 1024, p->pages * (size_t)page / 1024,
			 rate ? (unsigned long long)((uint64_t)p->pages * (uint64_t)page * 1000 /
						     (rate * PERF_SAMPLE_BYTES))
			      : 0ull);
		kt_source_add_notice(p->base.notice, sizeof(p->base.notice), msg);
	}
	return 0;
}

int kt_source_perf_open(const struct kt_source_opts *o, struct kt_source **out, char *err,
			size_t errlen)
{
	struct perf_source *p;
	uint8_t *online;
	int top, r;

	*out = NULL;
	if (!o->freq_hz && o->period && o->period < KT_SOURCE_MIN_CLOCK_PERIOD &&
	    is_clock(o->event ? o->event : "cpu-clock")) {
		snprintf(err, errlen,
			 "-c %llu: %s samples at most every %u ns (the kernel's timer floor): use "
			 "-c %u or more, or -F HZ",
			 (unsigned long long)o->period, o->event ? o->event : "cpu-clock",
			 KT_SOURCE_MIN_CLOCK_PERIOD, KT_SOURCE_MIN_CLOCK_PERIOD);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	online = calloc(MAX_CPUS, 1);
	if (!p || !online) {
		free(p);
		free(online);
		snprintf(err, errlen, "out of memory opening the perf source");
		return -ENOMEM;
	}
	p->base.ops = &perf_ops;
	snprintf(p->sysroot, sizeof(p->sysroot), "%s", o->sysroot ? o->sysroot : "");
	if (!o->event || !strcmp(o->event, "auto")) {
		struct kt_source_opts ao = *o;
		char note[160];

		ao.event = kt_perf_auto_event(!o->freq_hz && o->period, note, sizeof(note));
		if (note[0])
			kt_source_add_notice(p->base.notice, sizeof(p->base.notice), note);
		setup_attr(p, &ao);
	} else {
		setup_attr(p, o);
	}

	/* Per-CPU tables are sized by the possible CPUs, so a CPU coming online later fits. */
	top = read_cpu_file(p, KT_PATH_CPU_POSSIBLE, online);
	r = read_cpu_file(p, KT_PATH_CPU_ONLINE, online);
	if (r < 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		memset(online, 0, MAX_CPUS);
		for (long i = 0; i < n && i < MAX_CPUS; i++)
			online[i] = 1;
		r = (int)(n > 0 ? n : 1);
	}
	if (r > top)
		top = r;
	p->wanted = calloc(MAX_CPUS, 1);
	if (!p->wanted) {
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory opening the perf source");
		goto fail;
	}
	if (o->cpus) {
		int c = parse_cpu_list(o->cpus, p->wanted);

		if (c <= 0) {
			r = -EINVAL;
			snprintf(err, errlen, "invalid CPU list '%s' for -C (use e.g. 0,2-3)",
				 o->cpus);
			goto fail;
		}
		if (c > top) {
			r = -ENODEV;
			snprintf(err, errlen, "-C %s: this machine has CPUs 0-%d only", o->cpus,
				 top - 1);
			goto fail;
		}
	} else {
		memset(p->wanted, 1, (size_t)top);
	}
	p->base.info.max_cpu = (uint32_t)top;
	/* after the CPU list: a privileged process's rings share a total (ring_pages) */
	p->pages = p->pages_wanted = ring_pages(p);
	p->cpu = calloc((size_t)top, sizeof(*p->cpu));
	p->sampled = calloc((size_t)top, sizeof(*p->sampled));
	p->tid_seen = calloc(PERF_TID_LIMIT / 64, sizeof(uint64_t));
	if (!p->cpu || !p->sampled || !p->tid_seen) {
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory opening the perf source");
		goto fail;
	}
	for (int i = 0; i < top; i++)
		p->cpu[i].fd = -1;

	r = open_cpus(p, online, err, errlen);
	if (r < 0)
		goto fail;
	p->base.info.kind = "live";
	p->base.info.event = p->event;
	p->base.info.freq_hz = o->freq_hz;
	p->base.info.period = o->freq_hz ? (is_clock(p->event) ? 1000000000ull / o->freq_hz : 0)
					 : p->attr.sample_period;
	p->base.info.cpus = p->sampled;
	p->base.info.callchain = !!o->callchain;
	p->base.info.user = !!o->user;
	/* Enabled by the first read, not here: the caller loads its symbol tables (and the
	 * viewer) between open and its first read, 120-290 ms measured on a busy 2-CPU machine,
	 * during which nothing drains the rings (see docs/sampling.md). */
	free(online);
	*out = &p->base;
	return 0;
fail:
	free(online);
	p->base.ops->free(&p->base);
	return r;
}

static void perf_free(struct kt_source *s)
{
	struct perf_source *p = (struct perf_source *)s;

	for (uint32_t i = 0; p->cpu && i < p->base.info.max_cpu; i++)
		unmap_cpu(&p->cpu[i]);
	free(p->cpu);
	free(p->sampled);
	free(p->wanted);
	free(p->tid_seen);
	free(p);
}

/* The --record decorator's kt_source_finish: samples still in the rings were never shown and
 * are never delivered, so the recording holds exactly what this session's sink saw. */
static void perf_stop(struct kt_source *s)
{
	struct perf_source *p = (struct perf_source *)s;

	for (uint32_t i = 0; i < p->base.info.ncpus; i++)
		ioctl(p->cpu[p->sampled[i]].fd, PERF_EVENT_IOC_DISABLE, 0);
}

static int perf_pollfds(struct kt_source *s, struct pollfd *fds, int max)
{
	struct perf_source *p = (struct perf_source *)s;
	int n = 0;

	for (uint32_t i = 0; i < p->base.info.ncpus && n < max; i++)
		fds[n++] = (struct pollfd){.fd = p->cpu[p->sampled[i]].fd, .events = POLLIN};
	return n;
}

/* A ring whose event the kernel ended (POLLHUP) would make every poll() return at once:
 * drain it and stop sampling that CPU, telling the user at the next refresh. */
static void reap_hung(struct perf_source *p, const struct kt_sink *sink)
{
	struct pollfd fds[64];

	for (uint32_t i = 0; i < p->base.info.ncpus; i += 64) {
		uint32_t n = p->base.info.ncpus - i < 64 ? p->base.info.ncpus - i : 64;

		for (uint32_t j = 0; j < n; j++)
			fds[j] =
			    (struct pollfd){.fd = p->cpu[p->sampled[i + j]].fd, .events = POLLIN};
		if (poll(fds, n, 0) <= 0)
			continue;
		for (uint32_t j = 0; j < n; j++) {
			char msg[96];

			if (!(fds[j].revents & (POLLHUP | POLLERR | POLLNVAL)))
				continue;
			snprintf(msg, sizeof(msg), "cpu %u stopped delivering samples (offline?)",
				 p->sampled[i + j]);
			kt_source_add_notice(p->pending, sizeof(p->pending), msg);
			kt_perf_close_cpu(p, p->sampled[i + j], sink);
		}
	}
	rebuild_cpu_list(p);
}

static int perf_read(struct kt_source *s, const struct kt_sink *sink, int *timeout_ms, char *err,
		     size_t errlen)
{
	struct perf_source *p = (struct perf_source *)s;
	int closed = 0;

	/* CPUs found offline at the last refresh: their last samples still go to the sink. */
	for (uint32_t i = 0; i < p->base.info.ncpus; i++) {
		struct perf_cpu *c = &p->cpu[p->sampled[i]];

		if (c->gone) {
			kt_perf_close_cpu(p, p->sampled[i], sink);
			c->gone = 0;
			closed = 1;
		}
	}
	if (closed)
		rebuild_cpu_list(p);
	reap_hung(p, sink);
	kt_perf_drain(p, sink);
	/* The first read starts sampling (after draining: the rings are empty until now). */
	if (!p->started) {
		for (uint32_t i = 0; i < p->base.info.ncpus; i++)
			ioctl(p->cpu[p->sampled[i]].fd, PERF_EVENT_IOC_ENABLE, 0);
		p->started = 1;
	}
	*timeout_ms = KT_SOURCE_DRAIN_MS;
	return 0;
}

static uint64_t perf_now(const struct kt_source *s)
{
	(void)s;
	return kt_now_ns();
}

static void hotplug(struct perf_source *p, char *msg, size_t msglen)
{
	uint8_t online[MAX_CPUS];
	char line[200];

	if (read_cpu_file(p, KT_PATH_CPU_ONLINE, online) < 0)
		return;
	for (uint32_t i = 0; i < p->base.info.max_cpu; i++) {
		struct perf_cpu *c = &p->cpu[i];
		int r;

		if (c->fd >= 0 && online[i]) {
			c->gone = 0;
		} else if (c->fd >= 0) {
			if (c->gone)
				continue;
			c->gone = 1;
			snprintf(line, sizeof(line), "cpu %u went offline: no longer sampled", i);
			kt_source_add_notice(msg, msglen, line);
		} else if (c->fd < 0 && online[i] && p->wanted[i]) {
			r = open_cpu(p, i, p->started);
			if (r == 0) {
				rebuild_cpu_list(p);
				c->failed = 0;
				snprintf(line, sizeof(line), "cpu %u came online: now sampling it",
					 i);
				kt_source_add_notice(msg, msglen, line);
			} else if (!c->failed) {
				c->failed = 1;
				snprintf(line, sizeof(line),
					 "cpu %u came online but cannot be sampled (%s%s)", i,
					 strerror(-r),
					 (r == -EACCES || r == -EPERM)
					     ? ": kerntop dropped root after start; restart it to "
					       "sample this CPU"
					     : "");
				kt_source_add_notice(msg, msglen, line);
			}
		} else if (!online[i]) {
			c->failed = 0;
		}
	}
}

static int perf_refresh(struct kt_source *s, char *msg, size_t msglen)
{
	struct perf_source *p = (struct perf_source *)s;

	if (p->pending[0]) {
		kt_source_add_notice(msg, msglen, p->pending);
		p->pending[0] = '\0';
	}
	hotplug(p, msg, msglen);
	return msg[0] ? 1 : 0;
}

static const struct kt_source_ops perf_ops = {
    .name = "live",
    .free = perf_free,
    .pollfds = perf_pollfds,
    .read = perf_read,
    .now = perf_now,
    .refresh = perf_refresh,
    .stop = perf_stop,
};
