/* The CPU view's rows and extras (each CPU's top function and module among its kernel work):
 * from the query's projection (any filter), or from the tables agg_cputop.c keeps (a filter on
 * CPUs only). flat_query (agg.c) calls these. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agg_impl.h"
#include "kerntop/util.h"

/* The hits a CPU row's top module and function count: its kernel work under the filter. */
static int top_counts(struct kt_agg *a, const struct kt_query *q, const struct kt_hit *h,
		      uint32_t nf, uint32_t nm)
{
	const struct locinfo *li = kt_agg_loc(a, h->loc);

	return h->cpu < a->p.max_cpu && kt_agg_loc_keyed(li, nf, nm) &&
	       kt_agg_pass(a, &q->filter, h, li);
}

/* A CPU's kernel hit as kt_agg_cpu_tops counts it. */
struct top_hit {
	uint32_t func, module;
	uint64_t hits;
};

/* The hits' function and module grouped by CPU (a counting sort into one array, so each
 * CPU's are read in sequence), then for each CPU row dense per-function and per-module counts
 * and their maxima (the lowest name among equal counts): cache-friendly on a many-CPU window,
 * where a (CPU, function) hash missed on every hit. */
void kt_agg_cpu_tops(struct kt_agg *a, const struct kt_query *q, struct kt_result *r,
		     const struct kt_hit *h, size_t n)
{
	uint32_t maxcpu = a->p.max_cpu, nf = kt_sym_nfuncs(a->s), nm = kt_sym_nmodules(a->s);
	uint32_t *start = calloc((size_t)maxcpu + 1, sizeof(*start));
	uint32_t *at = calloc((size_t)maxcpu + 1, sizeof(*at));
	struct top_hit *th = NULL;
	uint32_t *touched = malloc(((size_t)nf + nm + 1) * sizeof(*touched));
	uint64_t *cnt = calloc((size_t)nf + nm + 1, sizeof(*cnt));

	if (!start || !at || !touched || !cnt) {
		a->nomem++;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (top_counts(a, q, &h[i], nf, nm))
			start[h[i].cpu + 1]++;
	for (uint32_t c = 0; c < maxcpu; c++) {
		start[c + 1] += start[c];
		at[c] = start[c];
	}
	th = malloc(((size_t)start[maxcpu] + 1) * sizeof(*th));
	if (!th) {
		a->nomem++;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct locinfo *li;

		if (!top_counts(a, q, &h[i], nf, nm))
			continue;
		li = kt_agg_loc(a, h[i].loc);
		th[at[h[i].cpu]++] = (struct top_hit){li->func, li->module, h[i].hits};
	}
	for (size_t ri = 0; ri < r->nrows; ri++) {
		struct kt_row *row = &r->rows[ri];
		uint32_t cpu = row->id, nt = 0;
		uint64_t bestf = 0, bestm = 0;

		if (cpu >= maxcpu)
			continue;
		for (uint32_t j = start[cpu]; j < start[cpu + 1]; j++) {
			uint32_t k[2] = {th[j].func, nf + th[j].module};

			for (int m = 0; m < 2; m++) {
				if (!cnt[k[m]])
					touched[nt++] = k[m];
				cnt[k[m]] += th[j].hits;
			}
		}
		for (uint32_t j = 0; j < nt; j++) {
			uint32_t k = touched[j];

			if (k < nf) {
				const char *name = kt_agg_func_name(a, k);

				if (cnt[k] > bestf || (cnt[k] == bestf && row->top_func &&
						       strcmp(name, row->top_func) < 0)) {
					bestf = cnt[k];
					row->top_func = name;
				}
			} else {
				const char *name = kt_agg_module_name(a, k - nf);

				if (cnt[k] > bestm || (cnt[k] == bestm && row->top_module &&
						       strcmp(name, row->top_module) < 0)) {
					bestm = cnt[k];
					row->top_module = name;
				}
			}
			cnt[k] = 0;
		}
	}
out:
	free(start);
	free(at);
	free(th);
	free(touched);
	free(cnt);
}

/* Under a task, module or idle filter the CPU view keeps every CPU with hits in the window
 * (those without a matching hit at 0), as htop lists every CPU: the CPU screen can still
 * select and tag them. The CPU and CPU-set filters still apply. */
int kt_agg_cpu_rows_all(struct kt_agg *a, const struct kt_query *q, struct kt_result *r,
			const struct kt_hit *h, size_t n)
{
	struct kt_filter f = q->filter;
	uint32_t ri;

	if (f.task == KT_ANY && f.module == KT_ANY && f.ctx == KT_ANY && !f.hide_idle)
		return 0;
	f.task = KT_ANY;
	f.module = KT_ANY;
	f.ctx = KT_ANY;
	f.hide_idle = 0;
	for (size_t i = 0; i < n; i++)
		if (kt_agg_pass(a, &f, &h[i], kt_agg_loc(a, h[i].loc)) &&
		    !kt_agg_group_row(a, r, h[i].cpu, 0, &ri, 1))
			return -ENOMEM;
	return 0;
}

/* The CPU view's rows from the tables agg_cputop.c keeps: the same rows, counts, recent
 * rates and tops as the projection path below. 1 when answered, 0 when not, -ENOMEM. */
int kt_agg_cpu_rows_kept(struct kt_agg *a, const struct kt_query *q, struct kt_result *r,
			 struct kt_cpuview *v)
{
	struct rpriv *p = r->priv;
	int e = kt_agg_cputop(a, q, v);

	if (e <= 0)
		return e < 0 ? -ENOMEM : 0;
	for (uint32_t c = 0; c < v->ncpu; c++) {
		const uint64_t *x = v->cls + (size_t)c * 3;
		struct kt_hit h = {0};
		struct kt_row *row;
		uint32_t ri;

		h.cpu = c;
		if (!(x[0] + x[1] + x[2]) || !kt_agg_pass(a, &q->filter, &h, kt_agg_loc(a, 0)))
			continue;
		row = kt_agg_group_row(a, r, c, 0, &ri, 1);
		if (!row)
			return -ENOMEM;
		row->user = x[0];
		row->idle_hits = x[1];
		row->kernel = x[2];
		row->hits = x[0] + x[1] + x[2];
		a->g.recent[ri] += v->recent[c];
	}
	p->recent_s = (double)v->recent_ns / 1e9;
	return 1;
}

/* The kept tables' tops on the CPU rows left after sorting and the limit. */
void kt_agg_cpu_tops_kept(struct kt_agg *a, struct kt_result *r, const struct kt_cpuview *v)
{
	for (size_t i = 0; i < r->nrows; i++) {
		struct kt_row *row = &r->rows[i];

		if (row->id >= v->ncpu)
			continue;
		if (v->topf[row->id] != UINT32_MAX)
			row->top_func = kt_agg_func_name(a, v->topf[row->id]);
		if (v->topm[row->id] != UINT32_MAX)
			row->top_module = kt_agg_module_name(a, v->topm[row->id]);
	}
}
