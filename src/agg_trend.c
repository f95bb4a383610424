/* The trend of flat rows (docs/history.md): each row's hits per complete slice of the rolling
 * window, read from the window's slice logs at query time, so ingest pays nothing. A row that
 * depends on the location alone is found through a per-location cache (an array read per
 * sample); any other costs a group lookup per sample. Storage is rows x points, at most
 * KT_TREND_MAX points per row. */
#include "config.h"

#include <string.h>

#include "agg_impl.h"

#define ROW_UNSET (UINT32_MAX - 1)

/* The row of hit h (a sample of a slice's log) for a query that is not by_loc. */
static uint32_t hit_row(struct kt_agg *a, const struct kt_query *q, struct kt_result *r,
			struct kt_hit h)
{
	if (a->irq_owner && h.stack && kt_agg_loc(a, h.loc)->helper)
		h.loc = kt_agg_owner_loc(a, &h);
	return kt_agg_row_of(a, q, r, &h);
}

/* Whether a row of q depends on a hit's location alone (a flat view keyed by location, no
 * filter on the CPU, task or context, no --irq-owner charging through the stack): then the
 * slice entries are mapped through their location, without reading each tuple (issue 14:
 * 1.5 M tuples at 256 CPUs, a cache miss each). Off with the projections (the comparison
 * test reads both ways). */
static int by_loc(const struct kt_agg *a, const struct kt_query *q)
{
	return a->project && !a->irq_owner && !kt_agg_filter_needs(&q->filter) &&
	       (q->view == KT_VIEW_MODULES || q->view == KT_VIEW_FUNCS ||
		q->view == KT_VIEW_TOPFUNCS || q->view == KT_VIEW_LINES);
}

/* The row of location loc for a by_loc query, cached for the query in progress. */
static uint32_t loc_row(struct kt_agg *a, const struct kt_query *q, struct kt_result *r,
			uint32_t loc)
{
	struct kt_hit h = {.loc = loc};

	if (a->locrow[loc] != ROW_UNSET)
		return a->locrow[loc];
	return a->locrow[loc] = kt_agg_row_of(a, q, r, &h);
}

/* Rising, in hits/s: the newest third of the points (at least one) against the rest. */
static double rising(const uint32_t *v, uint32_t n, double point_s)
{
	uint32_t k = (n + 2) / 3;
	double hi = 0, lo = 0;

	if (n < 2 || point_s <= 0)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		if (i >= n - k)
			hi += v[i];
		else
			lo += v[i];
	}
	return (hi / k - lo / (n - k)) / point_s;
}

int kt_agg_trend(struct kt_agg *a, const struct kt_query *q, struct kt_result *r)
{
	struct rpriv *p = r->priv;
	uint32_t done = kt_window_slices_done(a->w), want = q->trend ? q->trend : KT_TREND_MAX;
	uint32_t per, npts, nloc = 0;
	struct kt_hit buf[512];
	int loc;
	size_t need;

	if (want > KT_TREND_MAX)
		want = KT_TREND_MAX;
	/* past want slices, per neighbouring slices make a point; the oldest leftovers that do
	 * not fill a point are left out, so every point covers the same time */
	per = done > want ? (done + want - 1) / want : 1;
	npts = done / per;
	r->sum.trend_points = npts;
	r->sum.trend_point_s = (double)kt_window_slice(a->w) * per / 1e9;
	if (!npts || !r->nrows)
		return 0;
	need = r->nrows * npts;
	if (need > p->trendcap) {
		uint32_t *nt = realloc(p->trend, need * sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		p->trend = nt;
		p->trendcap = need;
	}
	memset(p->trend, 0, need * sizeof(*p->trend));
	loc = by_loc(a, q);
	if (loc) {
		nloc = kt_sym_nlocs(a->s);
		if (kt_grow((void **)&a->locrow, &a->locrowcap, nloc ? nloc : 1,
			    sizeof(*a->locrow)) < 0)
			return -ENOMEM;
		for (uint32_t i = 0; i < nloc; i++)
			a->locrow[i] = ROW_UNSET;
	}
	for (uint32_t age = 1; age <= npts * per; age++) {
		struct kt_window_cursor cur;
		uint32_t pt = npts - 1 - (age - 1) / per;
		size_t n;

		kt_window_cursor_slice(a->w, age, &cur);
		while ((n = kt_window_read(a->w, &cur, buf, sizeof(buf) / sizeof(buf[0])))) {
			for (size_t i = 0; i < n; i++) {
				uint32_t ri = loc ? (buf[i].loc < nloc ? loc_row(a, q, r, buf[i].loc)
								       : UINT32_MAX)
						  : hit_row(a, q, r, buf[i]);
				uint32_t *c;

				if (ri == UINT32_MAX)
					continue;
				c = &p->trend[(size_t)ri * npts + pt];
				*c = buf[i].hits > UINT32_MAX - *c ? UINT32_MAX
								   : *c + (uint32_t)buf[i].hits;
			}
		}
	}
	return 0;
}

void kt_agg_trend_row(const struct kt_result *r, struct kt_row *row, size_t i)
{
	const struct rpriv *p = r->priv;
	uint32_t n = r->sum.trend_points;
	const uint32_t *v;

	row->trend = NULL;
	row->trend_peak = 0;
	row->rising = 0;
	if (!n || !p->trend)
		return;
	v = p->trend + i * n;
	row->trend = v;
	for (uint32_t k = 0; k < n; k++)
		if (v[k] > row->trend_peak)
			row->trend_peak = v[k];
	row->rising = rising(v, n, r->sum.trend_point_s);
}
