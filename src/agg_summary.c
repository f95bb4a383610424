/* The aggregator's summary figures: the kernel, user and idle hits the filter passes (kept
 * per window generation and filter), the CPUs it keeps, the machine's shares over the
 * window's capacity, and the newest slice's busy and idle split. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "agg_impl.h"

/* CPUs the filter keeps: the machine's capacity for %Machine. */
static uint32_t filter_ncpus(const struct kt_agg *a, const struct kt_filter *f)
{
	uint32_t n = 0;

	if (f->cpu != KT_ANY)
		return !f->cpuset || (f->cpu < a->p.max_cpu && kt_cpuset_has(f->cpuset, f->cpu));
	if (!f->cpuset)
		return a->p.ncpus;
	for (uint32_t c = 0; c < a->p.max_cpu; c++)
		n += kt_cpuset_has(f->cpuset, c);
	return n < a->p.ncpus ? n : a->p.ncpus;
}

/* Whether the memo holds the sums of filter f now (a CPU set may change behind its pointer:
 * never kept). */
static int memo_fits(const struct kt_agg *a, const struct kt_filter *f)
{
	const struct sum_memo *m = &a->memo;

	return m->ok && !f->cpuset && m->gen == kt_window_gen(a->w) && m->nomem == a->nomem &&
	       m->irq_owner == a->irq_owner && m->project == a->project && m->f.cpu == f->cpu &&
	       m->f.task == f->task && m->f.module == f->module && m->f.hide_idle == f->hide_idle &&
	       m->f.ctx == f->ctx;
}

/* The sums of the hits filter f passes, into sum and *denom (made once per window generation
 * and filter: memo). */
static void summary_sums(struct kt_agg *a, const struct kt_filter *f, struct kt_summary *sum,
			 uint64_t *denom)
{
	struct sum_memo *m = &a->memo;
	struct kt_filter nf = *f;
	unsigned need = kt_agg_filter_needs(f);
	struct kt_hits_view v;
	uint64_t nomem = a->nomem;

	if (memo_fits(a, f)) {
		sum->irq_helper = m->irq_helper;
		sum->stacked = m->stacked;
		sum->user = m->user;
		sum->idle = m->idle;
		sum->kernel = m->kernel;
		*denom = m->denom;
		return;
	}
	kt_agg_proj_view(a, KT_PROJ_RAW, need, &v);
	nf.hide_idle = 0;
	*denom = 0;
	/* the helpers' raw share, which the IRQ-off notice is about, whatever the mode */
	for (size_t i = 0; i < v.n; i++) {
		const struct kt_hit *h = kt_hv_at(&v, i);
		const struct locinfo *li;

		if (!h->hits)
			continue; /* a free entry of the window's table */
		li = kt_agg_loc(a, h->loc);
		if (kt_agg_pass(a, &nf, h, li)) {
			if (li->helper)
				sum->irq_helper += h->hits;
			if (h->stack)
				sum->stacked += h->hits;
		}
	}
	kt_agg_proj_view(a, KT_PROJ_TOTALS, need, &v);
	for (size_t i = 0; i < v.n; i++) {
		const struct kt_hit *h = kt_hv_at(&v, i);
		const struct locinfo *li;

		if (!h->hits)
			continue;
		li = kt_agg_loc(a, h->loc);
		if (!kt_agg_pass(a, &nf, h, li))
			continue;
		if (li->user)
			sum->user += h->hits;
		else if (li->idle)
			sum->idle += h->hits;
		else
			sum->kernel += h->hits;
		if (!(f->hide_idle && li->idle))
			*denom += h->hits;
	}
	/* kept unless a CPU set or a failure to allocate made it */
	m->ok = !f->cpuset && a->nomem == nomem;
	m->irq_owner = a->irq_owner;
	m->project = a->project;
	m->gen = kt_window_gen(a->w);
	m->nomem = a->nomem;
	m->f = *f;
	m->irq_helper = sum->irq_helper;
	m->stacked = sum->stacked;
	m->user = sum->user;
	m->idle = sum->idle;
	m->kernel = sum->kernel;
	m->denom = *denom;
}

void kt_agg_base_summary(struct kt_agg *a, const struct kt_filter *f, struct kt_summary *sum,
			 uint64_t *denom)
{
	double cap;

	memset(sum, 0, sizeof(*sum));
	summary_sums(a, f, sum, denom);
	sum->irq_owner = a->irq_owner;
	sum->samples = sum->kernel + sum->user + sum->idle;
	sum->lost = kt_window_lost(a->w);
	sum->covered_s = (double)kt_window_covered(a->w) / 1e9;
	sum->ncpus = filter_ncpus(a, f);
	sum->max_cpu = a->p.max_cpu;
	sum->freq_hz = a->p.freq_hz;
	sum->ms_per_hit = a->p.ms_per_hit;
	sum->cumulative = kt_window_cumulative(a->w);
	cap = sum->covered_s * sum->freq_hz * sum->ncpus;
	if (cap > 0) {
		sum->busy_pct = (double)sum->kernel / cap * 100.0;
		sum->idle_pct = (double)sum->idle / cap * 100.0;
		sum->user_pct = (double)sum->user / cap * 100.0;
	}
	sum->user_sampled = a->p.user_sampled || sum->user;
	if (!sum->user_sampled && cap > 0 && sum->busy_pct + sum->idle_pct < 100.0)
		sum->unsampled_pct = 100.0 - sum->busy_pct - sum->idle_pct;
	if (sum->covered_s > 0)
		sum->samples_per_s = (double)sum->samples / sum->covered_s;
}

int kt_agg_recent_split(struct kt_agg *a, double *busy_pct, double *idle_pct)
{
	size_t n;
	uint64_t len = 0, busy = 0, idle = 0;
	/* by location only: the newest slice's kept projection, not a copy of its tuples */
	const struct kt_hit *h = kt_agg_proj(a, KT_PROJ_RECENT, 0, &n, &len);
	double cap = (double)len / 1e9 * a->p.freq_hz * a->p.ncpus;

	*busy_pct = *idle_pct = 0;
	if (!len || cap <= 0)
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		const struct locinfo *li = kt_agg_loc(a, h[i].loc);

		if (li->idle)
			idle += h[i].hits;
		else if (!li->user)
			busy += h[i].hits;
	}
	*busy_pct = (double)busy / cap * 100.0;
	*idle_pct = (double)idle / cap * 100.0;
	return 0;
}

void kt_agg_summary(struct kt_agg *a, const struct kt_filter *f, struct kt_summary *sum)
{
	uint64_t denom;
	struct kt_filter all;

	if (!f) {
		kt_filter_all(&all);
		f = &all;
	}
	kt_agg_base_summary(a, f, sum, &denom);
}
