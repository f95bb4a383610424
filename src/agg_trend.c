/* The trend of flat rows (docs/history.md): each row's hits per complete slice of the rolling
 * window, read from the window's slice logs at query time, so ingest pays nothing. A row that
 * depends on the location alone is found through a per-location cache (an array read per
 * location), and each complete slice's hits by location are made once and kept (a complete
 * slice never changes), so a refresh decodes only the slice completed since the last one:
 * at 256 CPUs a tenth of the window's samples instead of all of them. Any other row costs a
 * group lookup per sample of every slice. Storage is rows x points, at most KT_TREND_MAX
 * points per row, and per complete slice its distinct (location, context, chain) keys (16
 * bytes each). */
#include "config.h"

#include <errno.h>
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

/* A trend point or a slice entry counts up to UINT32_MAX and stays there. */
static inline void add_sat(uint32_t *c, uint64_t v)
{
	*c = v > UINT32_MAX - *c ? UINT32_MAX : *c + (uint32_t)v;
}

struct tkey {
	const struct kt_tslice *t;
	uint32_t loc, ctx, chain;
};

static int tkey_eq(const void *ctx, uint32_t id)
{
	const struct tkey *k = ctx;
	const struct kt_window_locent *e = &k->t->e[id];

	return e->loc == k->loc && e->ctx == k->ctx && e->chain == k->chain;
}

const struct kt_tslice *kt_agg_slice_locs(struct kt_agg *a, uint64_t no)
{
	uint32_t done = kt_window_slices_done(a->w), nloc = kt_sym_nlocs(a->s), age;
	uint64_t newest = kt_window_newest(a->w), slice = kt_window_slice(a->w);
	/* a slot for every slice the span holds, so that slots are renumbered only when the
	 * span grows, not while the window fills */
	uint32_t want = (uint32_t)(slice ? kt_window_span(a->w) / slice + 2 : done + 1);
	struct kt_window_cursor cur;
	struct kt_hit buf[512];
	struct kt_tslice *t;
	const struct kt_window_locent *w;
	uint32_t nw;
	size_t n;

	if (want < done + 1)
		want = done + 1;
	if (want > a->ntslice) { /* the span grew: slots are renumbered */
		struct kt_tslice *nt = realloc(a->tslice, want * sizeof(*nt));

		if (!nt)
			return NULL;
		memset(nt + a->ntslice, 0, (want - a->ntslice) * sizeof(*nt));
		for (uint32_t i = 0; i < want; i++)
			nt[i].no = 0;
		a->tslice = nt;
		a->ntslice = want;
	}
	if (no >= newest || newest - no > done)
		return NULL; /* the open slice, or gone */
	age = (uint32_t)(newest - no);
	t = &a->tslice[a->trend_asked ? no % a->ntslice : 0];
	if (t->no == no + 1)
		return t;
	if (nloc > a->tposcap) {
		uint32_t old = a->tposcap;

		if (kt_grow((void **)&a->tpos, &a->tposcap, nloc, sizeof(*a->tpos)) < 0)
			return NULL;
		memset(a->tpos + old, 0, (a->tposcap - old) * sizeof(*a->tpos));
	}
	t->no = 0;
	t->n = 0;
	if ((w = kt_window_slice_locs(a->w, no, &nw))) {
		/* the newest complete slice: the window made its table as it completed */
		if (kt_grow((void **)&t->e, &t->cap, nw, sizeof(*t->e)) < 0)
			return NULL;
		if (nw)
			memcpy(t->e, w, (size_t)nw * sizeof(*t->e));
		t->n = nw;
		t->no = no + 1;
		return t;
	}
	kt_idx_clear(&a->tsidx);
	kt_window_cursor_slice(a->w, age, &cur);
	while ((n = kt_window_read(a->w, &cur, buf, sizeof(buf) / sizeof(buf[0])))) {
		for (size_t i = 0; i < n; i++) {
			uint32_t loc = buf[i].loc, chain = buf[i].stack != 0, *at, id;

			if (loc >= nloc)
				continue; /* interned after the query began: not a row of it */
			at = &a->tpos[loc];
			/* a location nearly always has one context: its last entry is tried first,
			 * then the hash (another context of the location, or a new key) */
			if (*at && *at <= t->n && t->e[*at - 1].loc == loc &&
			    t->e[*at - 1].ctx == buf[i].ctx && t->e[*at - 1].chain == chain) {
				id = *at - 1;
			} else {
				struct tkey k = {t, loc, buf[i].ctx, chain};
				uint32_t h = kt_hash4(loc, buf[i].ctx, chain, 0), pos;

				id = kt_idx_find(&a->tsidx, h, tkey_eq, &k, &pos);
				if (id == UINT32_MAX) {
					if (kt_grow((void **)&t->e, &t->cap, t->n + 1,
						    sizeof(*t->e)) < 0 ||
					    kt_idx_insert(&a->tsidx, h, t->n, pos) < 0)
						return NULL;
					id = t->n++;
					t->e[id] =
					    (struct kt_window_locent){loc, 0, buf[i].ctx, chain};
				}
				*at = id + 1;
			}
			add_sat(&t->e[id].hits, buf[i].hits);
		}
	}
	for (uint32_t i = 0; i < t->n; i++)
		a->tpos[t->e[i].loc] = 0;
	t->no = no + 1;
	return t;
}

void kt_agg_trend_free(struct kt_agg *a)
{
	for (uint32_t i = 0; i < a->ntslice; i++)
		free(a->tslice[i].e);
	free(a->tslice);
	free(a->tpos);
	kt_idx_free(&a->tsidx);
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
	a->trend_asked = 1;
	for (uint32_t age = 1; age <= npts * per; age++) {
		struct kt_window_cursor cur;
		uint32_t pt = npts - 1 - (age - 1) / per;
		size_t n;

		kt_window_cursor_slice(a->w, age, &cur);
		if (loc && !cur.done) {
			const struct kt_tslice *t = kt_agg_slice_locs(a, cur.slice);

			if (!t)
				return -ENOMEM;
			for (uint32_t i = 0; i < t->n; i++) {
				uint32_t ri =
				    t->e[i].loc < nloc ? loc_row(a, q, r, t->e[i].loc) : UINT32_MAX;

				if (ri != UINT32_MAX)
					add_sat(&p->trend[(size_t)ri * npts + pt], t->e[i].hits);
			}
			continue;
		}
		while ((n = kt_window_read(a->w, &cur, buf, sizeof(buf) / sizeof(buf[0])))) {
			for (size_t i = 0; i < n; i++) {
				uint32_t ri =
				    loc ? (buf[i].loc < nloc ? loc_row(a, q, r, buf[i].loc)
							     : UINT32_MAX)
					: hit_row(a, q, r, buf[i]);

				if (ri != UINT32_MAX)
					add_sat(&p->trend[(size_t)ri * npts + pt], buf[i].hits);
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
