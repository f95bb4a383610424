/* Reading the live source's per-CPU mmap rings: records between data_tail and data_head are
 * parsed in place (copied once into a bounce buffer only when one wraps the ring end), turned
 * into kt_samples and accounting events, and handed to the sink (a --record decorator's sink
 * records them: this file knows nothing about recordings). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kerntop/paths.h"
#include "source_perf.h"

/* Trailer of non-sample records with sample_id_all and our sample_type: pid/tid, time, cpu. */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void emit_comm(struct perf_source *p, const struct kt_sink *sink, int32_t pid, int32_t tid,
		      const char *comm, uint64_t t)
{
	(void)p;
	if (sink && sink->comm)
		sink->comm(sink->ctx, pid, tid, comm, t);
}

static int tid_seen(const struct perf_source *p, uint32_t tid)
{
	return tid < PERF_TID_LIMIT && (p->tid_seen[tid / 64] >> (tid % 64) & 1);
}

static void tid_mark(struct perf_source *p, uint32_t tid, int seen)
{
	if (tid >= PERF_TID_LIMIT)
		return;
	if (seen)
		p->tid_seen[tid / 64] |= 1ull << (tid % 64);
	else
		p->tid_seen[tid / 64] &= ~(1ull << (tid % 64));
}

/* A task that was running before we started (no COMM record): read its name once. */
static void comm_fallback(struct perf_source *p, const struct kt_sink *sink, int32_t pid,
			  int32_t tid, uint64_t t)
{
	char path[PATH_MAX + 64], name[64];
	ssize_t n;
	int fd;

	tid_mark(p, (uint32_t)tid, 1);
	if (tid == 0) {
		emit_comm(p, sink, pid, tid, "swapper", t);
		return;
	}
	kt_sysroot_path(path, sizeof(path), p->sysroot, KT_PATH_TASK_COMM, pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		kt_sysroot_path(path, sizeof(path), p->sysroot, KT_PATH_COMM, tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return; /* gone already: the task stays nameless (shown by its pid) */
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return;
	if (name[n - 1] == '\n')
		n--;
	name[n] = '\0';
	emit_comm(p, sink, pid, tid, name, t);
}

static void on_sample(struct perf_source *p, const struct perf_event_header *h,
		      const unsigned char *b, const unsigned char *end, const struct kt_sink *sink)
{
	struct kt_sample s;
	uint64_t nr;
	uint16_t mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	/* ip, pid/tid, time, cpu/res, period: 40 bytes before the call chain. */
	if (end - b < 40)
		return;
	memset(&s, 0, sizeof(s));
	s.ip = rd64(b);
	s.pid = (int32_t)rd32(b + 8);
	s.tid = (int32_t)rd32(b + 12);
	s.time_ns = rd64(b + 16);
	s.cpu = rd32(b + 24);
	s.period = rd64(b + 32);
	b += 40;
	if (mode == PERF_RECORD_MISC_USER || mode == PERF_RECORD_MISC_GUEST_USER)
		s.flags |= KT_SAMPLE_USER;
	if (p->attr.sample_type & PERF_SAMPLE_CALLCHAIN) {
		int kernel = 1;

		if (end - b < 8)
			return;
		nr = rd64(b);
		b += 8;
		if (nr > (uint64_t)(end - b) / 8)
			return;
		/* Keep the kernel context only; the PERF_CONTEXT_* markers are not frames. */
		for (uint64_t i = 0; i < nr; i++) {
			uint64_t ip = rd64(b + 8 * i);

			if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
				kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
				continue;
			}
			if (kernel && s.nr_frames < KT_MAX_STACK)
				p->frames[s.nr_frames++] = ip;
		}
		s.frames = p->frames;
	}
	if (s.tid >= 0 && !tid_seen(p, (uint32_t)s.tid))
		comm_fallback(p, sink, s.pid, s.tid, s.time_ns);
	p->base.stats.samples++;
	if (sink && sink->sample)
		sink->sample(sink->ctx, &s);
}

static int trailer(const unsigned char *b, const unsigned char *end, struct sample_id *id)
{
	if (end - b < (long)sizeof(*id))
		return -1;
	memcpy(id, end - sizeof(*id), sizeof(*id));
	return 0;
}

static void on_lost(struct perf_source *p, uint32_t cpu, uint64_t n, uint64_t t,
		    const struct kt_sink *sink)
{
	p->base.stats.lost += n;
	if (sink && sink->lost)
		sink->lost(sink->ctx, cpu, n, t);
}

static void on_record(struct perf_source *p, uint32_t cpu, const unsigned char *rec,
		      const struct kt_sink *sink)
{
	const struct perf_event_header *h = (const void *)rec;
	const unsigned char *b = rec + sizeof(*h), *end = rec + h->size;
	struct sample_id id;
	char comm[32];
	size_t n;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(p, h, b, end, sink);
		break;
	case PERF_RECORD_COMM:
		/* pid, tid, NUL-terminated comm padded to 8, then the sample_id trailer */
		if (trailer(b + 8, end, &id) < 0)
			break;
		n = (size_t)(end - sizeof(id) - (b + 8));
		if (n >= sizeof(comm))
			n = sizeof(comm) - 1;
		memcpy(comm, b + 8, n);
		comm[n] = '\0';
		tid_mark(p, rd32(b + 4), 1);
		emit_comm(p, sink, (int32_t)rd32(b), (int32_t)rd32(b + 4), comm, id.time);
		break;
	case PERF_RECORD_FORK:
		/* pid, ppid, tid, ptid, time: a new (maybe recycled) tid needs its name again */
		if (end - b >= 16)
			tid_mark(p, rd32(b + 8), 0);
		break;
	case PERF_RECORD_LOST:
		/* id, lost: the ring was full */
		if (trailer(b + 16, end, &id) == 0)
			on_lost(p, cpu, rd64(b + 8), id.time, sink);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		/* lost: samples the kernel dropped before they reached the ring */
		if (trailer(b + 8, end, &id) == 0)
			on_lost(p, cpu, rd64(b), id.time, sink);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE: {
		/* time, id, stream_id */
		int on = h->type == PERF_RECORD_THROTTLE;

		if (end - b < 24)
			break;
		if (on)
			p->base.stats.throttled++;
		if (sink && sink->throttle)
			sink->throttle(sink->ctx, cpu, on, rd64(b));
		break;
	}
	default:
		break; /* EXIT and records we did not ask for */
	}
}

static void drain_cpu(struct perf_source *p, uint32_t cpu, const struct kt_sink *sink)
{
	struct perf_cpu *c = &p->cpu[cpu];
	uint64_t mask = c->data_size - 1, tail, head;

	if (!c->map)
		return;
	/* Acquire pairs with the kernel's release of data_head: the records before it are set. */
	head = __atomic_load_n(&c->pc->data_head, __ATOMIC_ACQUIRE);
	tail = c->pc->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail & mask;
		const unsigned char *rec;

		if (head - tail < sizeof(h))
			break;
		if (off + sizeof(h) <= c->data_size) {
			memcpy(&h, c->data + off, sizeof(h));
		} else {
			size_t first = (size_t)(c->data_size - off);

			memcpy(&h, c->data + off, first);
			memcpy((unsigned char *)&h + first, c->data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || h.size > head - tail)
			break; /* cannot happen with a sane kernel: resync at head */
		if (off + h.size <= c->data_size) {
			rec = c->data + off;
		} else {
			size_t first = (size_t)(c->data_size - off);

			memcpy(p->bounce, c->data + off, first);
			memcpy(p->bounce + first, c->data, h.size - first);
			rec = p->bounce;
		}
		on_record(p, cpu, rec, sink);
		tail += h.size;
	}
	p->base.stats.bytes += head - c->pc->data_tail;
	/* Release: our reads of the records happen before the kernel may overwrite them. */
	__atomic_store_n(&c->pc->data_tail, head, __ATOMIC_RELEASE);
}

void kt_perf_drain(struct perf_source *p, const struct kt_sink *sink)
{
	for (uint32_t i = 0; i < p->base.info.ncpus; i++)
		drain_cpu(p, p->sampled[i], sink);
}

void kt_perf_close_cpu(struct perf_source *p, uint32_t cpu, const struct kt_sink *sink)
{
	struct perf_cpu *c = &p->cpu[cpu];

	if (c->fd < 0)
		return;
	drain_cpu(p, cpu, sink);
	munmap(c->map, c->map_len);
	close(c->fd);
	c->map = NULL;
	c->fd = -1;
}
