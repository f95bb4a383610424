/* The /proc figures collector: reads /proc/stat, /proc/softirqs and /proc/interrupts under the
 * sysroot once per refresh (or takes snapshots fed back from a recording), keeps the last two
 * snapshots and derives the shares and rates between them. A missing or malformed file is a
 * notice for the caller to show, never an error: its figures are simply absent. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/paths.h"
#include "kerntop/procstat.h"
#include "kerntop/util.h"

/* Largest file read: /proc/interrupts of a big machine is a few hundred KiB. */
#define MAX_FILE (8u << 20)

struct kt_procstat {
	char sysroot[4096];
	uint32_t max_cpu;
	struct kt_ps_snap *snap[2]; /* latest, previous */
	int nsnap;
	unsigned bad; /* KT_PS_HAVE_* bits whose file failed at the last read */
	struct kt_ps_view view;
	int view_ok;
};

static const char *const stat_names[KT_PS_NSTAT] = {"us", "ni", "sy", "id", "wa", "hi", "si", "st"};

const char *kt_ps_stat_name(int i)
{
	return i >= 0 && i < KT_PS_NSTAT ? stat_names[i] : "?";
}

struct kt_ps_snap *kt_ps_snap_new(uint32_t max_cpu)
{
	struct kt_ps_snap *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->max_cpu = max_cpu ? max_cpu : 1;
	s->stat = calloc((size_t)s->max_cpu * KT_PS_NSTAT, sizeof(*s->stat));
	s->online = calloc(s->max_cpu, 1);
	s->softirq = calloc((size_t)KT_PS_MAX_VEC * s->max_cpu, sizeof(*s->softirq));
	s->irq = calloc(KT_PS_MAX_IRQ, sizeof(*s->irq));
	s->irqcnt = calloc((size_t)KT_PS_MAX_IRQ * s->max_cpu, sizeof(*s->irqcnt));
	if (!s->stat || !s->online || !s->softirq || !s->irq || !s->irqcnt) {
		kt_ps_snap_free(s);
		return NULL;
	}
	return s;
}

void kt_ps_snap_free(struct kt_ps_snap *s)
{
	if (!s)
		return;
	free(s->stat);
	free(s->online);
	free(s->softirq);
	free(s->irq);
	free(s->irqcnt);
	free(s);
}

void kt_ps_snap_copy(struct kt_ps_snap *d, const struct kt_ps_snap *s)
{
	uint32_t n = s->max_cpu < d->max_cpu ? s->max_cpu : d->max_cpu;

	d->time_ns = s->time_ns;
	d->have = s->have;
	memcpy(d->total, s->total, sizeof(d->total));
	memset(d->stat, 0, (size_t)d->max_cpu * KT_PS_NSTAT * sizeof(*d->stat));
	memset(d->online, 0, d->max_cpu);
	memcpy(d->stat, s->stat, (size_t)n * KT_PS_NSTAT * sizeof(*d->stat));
	memcpy(d->online, s->online, n);
	d->nvec = s->nvec < KT_PS_MAX_VEC ? s->nvec : KT_PS_MAX_VEC;
	memcpy(d->vec, s->vec, sizeof(d->vec));
	memset(d->softirq, 0, (size_t)KT_PS_MAX_VEC * d->max_cpu * sizeof(*d->softirq));
	for (uint32_t v = 0; v < d->nvec; v++)
		memcpy(d->softirq + (size_t)v * d->max_cpu, s->softirq + (size_t)v * s->max_cpu,
		       n * sizeof(*d->softirq));
	d->nirq = s->nirq < KT_PS_MAX_IRQ ? s->nirq : KT_PS_MAX_IRQ;
	memcpy(d->irq, s->irq, d->nirq * sizeof(*d->irq));
	for (uint32_t i = 0; i < d->nirq; i++) {
		memset(d->irqcnt + (size_t)i * d->max_cpu, 0, d->max_cpu * sizeof(*d->irqcnt));
		memcpy(d->irqcnt + (size_t)i * d->max_cpu, s->irqcnt + (size_t)i * s->max_cpu,
		       n * sizeof(*d->irqcnt));
	}
}

static int view_alloc(struct kt_ps_view *v, uint32_t max_cpu)
{
	memset(v, 0, sizeof(*v));
	v->max_cpu = max_cpu ? max_cpu : 1;
	v->cpu = calloc(v->max_cpu, sizeof(*v->cpu));
	v->softirq_per_s = calloc((size_t)KT_PS_MAX_VEC * v->max_cpu, sizeof(double));
	v->top_irq = calloc((size_t)v->max_cpu * KT_PS_TOP_IRQ, sizeof(*v->top_irq));
	v->irq_store = calloc(KT_PS_MAX_IRQ, sizeof(*v->irq_store));
	v->vec = v->vec_store;
	v->irq = v->irq_store;
	return v->cpu && v->softirq_per_s && v->top_irq && v->irq_store ? 0 : -ENOMEM;
}

static void view_release(struct kt_ps_view *v)
{
	free(v->cpu);
	free(v->softirq_per_s);
	free(v->top_irq);
	free(v->irq_store);
}

struct kt_ps_view *kt_ps_view_new(uint32_t max_cpu)
{
	struct kt_ps_view *v = malloc(sizeof(*v));

	if (v && view_alloc(v, max_cpu) < 0) {
		kt_ps_view_free(v);
		return NULL;
	}
	return v;
}

void kt_ps_view_free(struct kt_ps_view *v)
{
	if (!v)
		return;
	view_release(v);
	free(v);
}

void kt_ps_view_copy(struct kt_ps_view *d, const struct kt_ps_view *s)
{
	uint32_t n;

	d->stat_valid = d->softirqs_valid = d->interrupts_valid = 0;
	d->nvec = 0;
	if (!s)
		return;
	n = s->max_cpu < d->max_cpu ? s->max_cpu : d->max_cpu;
	d->stat_valid = s->stat_valid;
	d->softirqs_valid = s->softirqs_valid;
	d->interrupts_valid = s->interrupts_valid;
	d->interval_s = s->interval_s;
	memcpy(d->pct, s->pct, sizeof(d->pct));
	memset(d->cpu, 0, d->max_cpu * sizeof(*d->cpu));
	memcpy(d->cpu, s->cpu, n * sizeof(*d->cpu));
	d->nvec = s->nvec;
	memcpy(d->vec_store, s->vec, sizeof(d->vec_store));
	memcpy(d->vec_per_s, s->vec_per_s, sizeof(d->vec_per_s));
	for (uint32_t i = 0; i < KT_PS_MAX_VEC; i++) {
		memset(d->softirq_per_s + (size_t)i * d->max_cpu, 0, d->max_cpu * sizeof(double));
		memcpy(d->softirq_per_s + (size_t)i * d->max_cpu,
		       s->softirq_per_s + (size_t)i * s->max_cpu, n * sizeof(double));
	}
	for (size_t k = 0; k < (size_t)d->max_cpu * KT_PS_TOP_IRQ; k++)
		d->top_irq[k] = (struct kt_ps_top_irq){-1, 0};
	memcpy(d->top_irq, s->top_irq, (size_t)n * KT_PS_TOP_IRQ * sizeof(*d->top_irq));
	memcpy(d->irq_store, s->irq, KT_PS_MAX_IRQ * sizeof(*d->irq_store));
}

int kt_procstat_new(const char *sysroot, uint32_t max_cpu, struct kt_procstat **out)
{
	struct kt_procstat *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	snprintf(p->sysroot, sizeof(p->sysroot), "%s", sysroot ? sysroot : "");
	p->max_cpu = max_cpu ? max_cpu : 1;
	p->snap[0] = kt_ps_snap_new(p->max_cpu);
	p->snap[1] = kt_ps_snap_new(p->max_cpu);
	if (view_alloc(&p->view, p->max_cpu) < 0 || !p->snap[0] || !p->snap[1]) {
		kt_procstat_free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

void kt_procstat_free(struct kt_procstat *p)
{
	if (!p)
		return;
	kt_ps_snap_free(p->snap[0]);
	kt_ps_snap_free(p->snap[1]);
	view_release(&p->view);
	free(p);
}

static void shares(const uint64_t *a, const uint64_t *b, double *pct)
{
	uint64_t d[KT_PS_NSTAT], sum = 0;

	for (int i = 0; i < KT_PS_NSTAT; i++) {
		/* counters never go back; a CPU that went offline and came back may */
		d[i] = b[i] >= a[i] ? b[i] - a[i] : 0;
		sum += d[i];
	}
	for (int i = 0; i < KT_PS_NSTAT; i++)
		pct[i] = sum ? (double)d[i] * 100.0 / (double)sum : 0;
}

/* Index of the vector or irq line named name in the previous snapshot, or -1. */
static int find_vec(const struct kt_ps_snap *s, const char *name, uint32_t hint)
{
	if (hint < s->nvec && !strcmp(s->vec[hint], name))
		return (int)hint;
	for (uint32_t i = 0; i < s->nvec; i++)
		if (!strcmp(s->vec[i], name))
			return (int)i;
	return -1;
}

static int find_irq(const struct kt_ps_snap *s, const char *name, uint32_t hint)
{
	if (hint < s->nirq && !strcmp(s->irq[hint].name, name))
		return (int)hint;
	for (uint32_t i = 0; i < s->nirq; i++)
		if (!strcmp(s->irq[i].name, name))
			return (int)i;
	return -1;
}

static void top_insert(struct kt_ps_top_irq *top, int32_t line, double rate)
{
	int k = KT_PS_TOP_IRQ;

	while (k > 0 && (top[k - 1].line < 0 || top[k - 1].per_s < rate))
		k--;
	if (k >= KT_PS_TOP_IRQ)
		return;
	memmove(top + k + 1, top + k, (size_t)(KT_PS_TOP_IRQ - 1 - k) * sizeof(*top));
	top[k] = (struct kt_ps_top_irq){line, rate};
}

static void derive(struct kt_procstat *p)
{
	const struct kt_ps_snap *b = p->snap[0], *a = p->snap[1];
	struct kt_ps_view *v = &p->view;
	uint32_t n = p->max_cpu;
	double dt;

	p->view_ok = 0;
	v->stat_valid = v->softirqs_valid = v->interrupts_valid = 0;
	if (p->nsnap < 2 || b->time_ns <= a->time_ns)
		return;
	dt = (double)(b->time_ns - a->time_ns) / 1e9;
	v->interval_s = dt;
	memset(v->cpu, 0, n * sizeof(*v->cpu));
	if ((a->have & b->have & KT_PS_HAVE_STAT)) {
		v->stat_valid = 1;
		shares(a->total, b->total, v->pct);
		for (uint32_t c = 0; c < n; c++) {
			if (!a->online[c] || !b->online[c])
				continue;
			v->cpu[c].valid = 1;
			shares(a->stat + (size_t)c * KT_PS_NSTAT, b->stat + (size_t)c * KT_PS_NSTAT,
			       v->cpu[c].pct);
		}
	}
	v->nvec = 0;
	if ((a->have & b->have & KT_PS_HAVE_SOFTIRQS)) {
		v->softirqs_valid = 1;
		v->nvec = b->nvec;
		memcpy(v->vec_store, b->vec, sizeof(v->vec_store));
		memset(v->softirq_per_s, 0, (size_t)KT_PS_MAX_VEC * n * sizeof(double));
		for (uint32_t i = 0; i < b->nvec; i++) {
			int j = find_vec(a, b->vec[i], i);

			v->vec_per_s[i] = 0;
			for (uint32_t c = 0; j >= 0 && c < n; c++) {
				uint64_t x = b->softirq[(size_t)i * n + c],
					 y = a->softirq[(size_t)j * n + c];
				double r = x >= y ? (double)(x - y) / dt : 0;

				v->softirq_per_s[(size_t)i * n + c] = r;
				v->vec_per_s[i] += r;
			}
		}
	}
	for (size_t k = 0; k < (size_t)n * KT_PS_TOP_IRQ; k++)
		v->top_irq[k] = (struct kt_ps_top_irq){-1, 0};
	if ((a->have & b->have & KT_PS_HAVE_INTERRUPTS)) {
		v->interrupts_valid = 1;
		memcpy(v->irq_store, b->irq, b->nirq * sizeof(*v->irq_store));
		for (uint32_t i = 0; i < b->nirq; i++) {
			int j = find_irq(a, b->irq[i].name, i);

			for (uint32_t c = 0; j >= 0 && c < n; c++) {
				uint64_t x = b->irqcnt[(size_t)i * n + c],
					 y = a->irqcnt[(size_t)j * n + c];

				if (x > y)
					top_insert(v->top_irq + (size_t)c * KT_PS_TOP_IRQ,
						   (int32_t)i, (double)(x - y) / dt);
			}
		}
	}
	p->view_ok = v->stat_valid || v->softirqs_valid || v->interrupts_valid;
}

static void rotate(struct kt_procstat *p)
{
	struct kt_ps_snap *t = p->snap[1];

	p->snap[1] = p->snap[0];
	p->snap[0] = t;
	if (p->nsnap < 2)
		p->nsnap++;
}

/* Reads one file under the sysroot into its part of s; 0, or -errno with a reason. */
static int read_part(struct kt_procstat *p, struct kt_ps_snap *s, const char *rel,
		     int (*parse)(struct kt_ps_snap *, const char *, size_t, char *, size_t),
		     char *why, size_t whylen)
{
	char path[4200], err[KT_ERRLEN];
	char *buf = NULL;
	size_t len = 0;
	int r;

	kt_sysroot_path(path, sizeof(path), p->sysroot, "%s", rel);
	r = kt_read_file(path, MAX_FILE, &buf, &len, err, sizeof(err));
	if (r < 0) {
		snprintf(why, whylen, "%.300s: %s", path, strerror(-r));
		return r;
	}
	r = parse(s, buf, len, why, whylen);
	free(buf);
	return r;
}

int kt_procstat_read(struct kt_procstat *p, uint64_t time_ns, char *msg, size_t msglen)
{
	static const struct {
		const char *rel;
		int (*parse)(struct kt_ps_snap *, const char *, size_t, char *, size_t);
		unsigned bit;
	} files[] = {
	    {KT_PATH_PROC_STAT, kt_ps_parse_stat, KT_PS_HAVE_STAT},
	    {KT_PATH_PROC_SOFTIRQS, kt_ps_parse_softirqs, KT_PS_HAVE_SOFTIRQS},
	    {KT_PATH_PROC_INTERRUPTS, kt_ps_parse_interrupts, KT_PS_HAVE_INTERRUPTS},
	};
	struct kt_ps_snap *s;
	unsigned bad = 0;
	size_t used = 0;

	rotate(p);
	s = p->snap[0];
	s->time_ns = time_ns;
	s->have = 0;
	msg[0] = 0;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char why[KT_ERRLEN];

		if (read_part(p, s, files[i].rel, files[i].parse, why, sizeof(why)) >= 0)
			continue;
		bad |= files[i].bit;
		/* said once when it breaks, not at every refresh */
		if (!(p->bad & files[i].bit) && used < msglen)
			used += (size_t)snprintf(msg + used, msglen - used, "%s%s",
						 used ? "; " : "", why);
	}
	if (used && used < msglen)
		snprintf(msg + used, msglen - used, " (its figures are left out)");
	if (!bad && p->bad)
		snprintf(msg, msglen,
			 "/proc/stat, /proc/softirqs and /proc/interrupts readable again");
	p->bad = bad;
	derive(p);
	return msg[0] != 0;
}

const struct kt_ps_snap *kt_procstat_latest(const struct kt_procstat *p)
{
	return p->nsnap ? p->snap[0] : NULL;
}

void kt_procstat_feed(struct kt_procstat *p, const struct kt_ps_snap *s)
{
	rotate(p);
	kt_ps_snap_copy(p->snap[0], s);
	derive(p);
}

const struct kt_ps_view *kt_procstat_view(const struct kt_procstat *p)
{
	return p->view_ok ? &p->view : NULL;
}

void kt_ps_fmt_softirqs(const struct kt_ps_view *v, int cpu, int n, char *buf, size_t len)
{
	int used[KT_PS_MAX_VEC] = {0};
	size_t at = 0;

	buf[0] = 0;
	for (int k = 0; k < n && v->softirqs_valid; k++) {
		int best = -1;
		double br = 0;

		for (uint32_t i = 0; i < v->nvec; i++) {
			double r = cpu < 0
				       ? v->vec_per_s[i]
				       : v->softirq_per_s[(size_t)i * v->max_cpu + (uint32_t)cpu];

			if (!used[i] && r > br) {
				best = (int)i;
				br = r;
			}
		}
		if (best < 0 || at >= len)
			break;
		used[best] = 1;
		at += (size_t)snprintf(buf + at, len - at, "%s%s %.0f/s", k ? ", " : "",
				       v->vec[best], br);
	}
}

void kt_ps_fmt_irqs(const struct kt_ps_view *v, uint32_t cpu, char *buf, size_t len)
{
	const struct kt_ps_top_irq *t = v->top_irq + (size_t)cpu * KT_PS_TOP_IRQ;
	size_t at = 0;

	buf[0] = 0;
	for (int k = 0; v->interrupts_valid && k < KT_PS_TOP_IRQ && t[k].line >= 0 && at < len;
	     k++) {
		const struct kt_ps_irq *q = &v->irq[t[k].line];
		const char *dev = "";

		/* a numbered line is known by its device, the last word of its description */
		if (q->name[0] >= '0' && q->name[0] <= '9') {
			dev = strrchr(q->desc, ' ');
			dev = dev ? dev + 1 : q->desc;
		}
		at += (size_t)snprintf(buf + at, len - at, "%s%s%s%s %.0f/s", k ? ", " : "",
				       q->name, dev[0] ? " " : "", dev, t[k].per_s);
	}
}
