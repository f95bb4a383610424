/* The fuzz targets: decode the input as a kerntop recording (with and without checksum checks,
 * so that the fuzzer reaches the record decoder) and as `perf script` text, touching every
 * field of every event so that sanitizers see any bad read. */
#include "config.h"

#include <string.h>

#include "kerntop/procstat.h"
#include "source_replay_impl.h"
#include "fuzz_targets.h"

static volatile uint64_t sink;

static void touch(const struct kt_rp_event *ev)
{
	uint64_t x = ev->time_ns ^ ev->s.ip ^ ev->s.period ^ (uint64_t)ev->s.pid ^ ev->s.cpu;

	for (uint32_t i = 0; i < ev->s.nr_frames; i++)
		x ^= ev->s.frames[i];
	if (ev->type == KT_EV_COMM)
		x ^= strlen(ev->comm);
	if (ev->type == KT_EV_PROCSTAT)
		x ^= ev->ps->total[0] ^ ev->ps->nvec ^ ev->ps->nirq ^ strlen(ev->ps->irq[0].desc);
	sink ^= x;
}

int kt_fuzz_recording(const uint8_t *data, size_t size)
{
	char err[256];
	int accepted = 0;

	for (int crc = 0; crc < 2; crc++) {
		struct kt_rrec d;
		struct kt_rp_event ev;

		if (kt_rrec_open(&d, data, size, crc, err, sizeof(err)) == 0) {
			accepted = 1;
			for (uint32_t i = 0; i < d.info.ncpus; i++)
				sink ^= d.info.cpus[i];
			if (d.info.kallsyms_len)
				sink ^= (uint8_t)d.info.kallsyms[d.info.kallsyms_len - 1];
			while (kt_rrec_next(&d, &ev))
				touch(&ev);
		}
		kt_rrec_close(&d);
	}
	return accepted;
}

int kt_fuzz_perfscript(const uint8_t *data, size_t size)
{
	struct kt_pscript d;
	struct kt_rp_event ev;
	char err[256];
	int accepted = 0;

	if (kt_pscript_open(&d, (const char *)data, size, err, sizeof(err)) == 0) {
		uint64_t n = 0;

		accepted = 1;
		while (kt_pscript_next(&d, &ev)) {
			touch(&ev);
			n += ev.type == KT_EV_SAMPLE;
		}
		/* The replay never finds a sample line the pre-scan missed (it may drop a sample
		 * line whose address is missing, which the pre-scan counts). */
		if (n > d.nsamples)
			__builtin_trap();
	}
	kt_pscript_close(&d);
	return accepted;
}

/* The input as each of the three files, whole (the first reading) and from its middle (the
 * second), then the view between them and its formatted rows, as the viewer would draw them. */
static int parse_all(struct kt_ps_snap *s, const char *p, size_t n)
{
	char err[256];
	int a = kt_ps_parse_stat(s, p, n, err, sizeof(err)) == 0;

	a |= kt_ps_parse_softirqs(s, p, n, err, sizeof(err)) == 0;
	a |= kt_ps_parse_interrupts(s, p, n, err, sizeof(err)) == 0;
	return a;
}

int kt_fuzz_procstat(const uint8_t *data, size_t size)
{
	struct kt_ps_snap *a = kt_ps_snap_new(4), *b = kt_ps_snap_new(4);
	const struct kt_ps_view *v;
	struct kt_procstat *p = NULL;
	char buf[512];
	int accepted = 0;

	if (!a || !b || kt_procstat_new("", 4, &p) < 0)
		goto out;
	accepted = parse_all(a, (const char *)data, size);
	parse_all(b, (const char *)data + size / 2, size - size / 2);
	a->time_ns = 1000000000;
	b->time_ns = 2000000000;
	kt_procstat_feed(p, a);
	kt_procstat_feed(p, b);
	v = kt_procstat_view(p);
	for (int c = -1; v && c < 4; c++) {
		kt_ps_fmt_softirqs(v, c, 3, buf, sizeof(buf));
		sink ^= strlen(buf);
		if (c >= 0) {
			kt_ps_fmt_irqs(v, (uint32_t)c, buf, sizeof(buf));
			sink ^= strlen(buf) ^ (uint64_t)v->cpu[c].pct[KT_PS_SOFTIRQ];
		}
	}
out:
	kt_procstat_free(p);
	kt_ps_snap_free(a);
	kt_ps_snap_free(b);
	return accepted;
}
