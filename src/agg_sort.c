/* The aggregator's row order: a sort of a query's rows by the view's key (ties by name, then
 * id), and the top N of them by a bounded heap without sorting the rest (kt_agg_top,
 * kt_agg_top_ids). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agg_impl.h"

/* What row_cmp sorts by, passed through qsort_r (no file-level state). */
struct row_order {
	enum kt_sort key;
	int numeric_names;
};

/* row_cmp's order by the sort's own keys, without the name and id that break its ties (0:
 * tied; always for KT_SORT_NAME). */
static int row_cmp_keys(const struct kt_row *x, const struct kt_row *y, enum kt_sort key)
{
	switch (key) {
	case KT_SORT_DELTA:
		if (x->delta_pct != y->delta_pct)
			return x->delta_pct > y->delta_pct ? -1 : 1;
		break;
	case KT_SORT_RATIO:
		if (x->rate_ratio != y->rate_ratio)
			return x->rate_ratio > y->rate_ratio ? -1 : 1;
		break;
	case KT_SORT_RISING:
		if (x->rising != y->rising)
			return x->rising > y->rising ? -1 : 1;
		if (x->recent_per_s != y->recent_per_s)
			return x->recent_per_s > y->recent_per_s ? -1 : 1;
		break;
	case KT_SORT_RATE:
		if (x->recent_per_s != y->recent_per_s)
			return x->recent_per_s > y->recent_per_s ? -1 : 1;
		break;
	case KT_SORT_HITS:
		break;
	case KT_SORT_NAME:
		return 0;
	}
	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	return 0;
}

static int row_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct kt_row *x = pa, *y = pb;
	const struct row_order *o = ctx;
	int c = row_cmp_keys(x, y, o->key);

	if (c)
		return c;
	if (o->key == KT_SORT_NAME && o->numeric_names && x->id != y->id)
		return x->id < y->id ? -1 : 1;
	c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
	if (c)
		return c;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sift-down in a heap of ids whose root is the worst kept one. */
static void heap_sift(uint32_t *h, size_t n, size_t i, kt_agg_below_fn below, const void *ctx)
{
	for (;;) {
		size_t w = i, l = 2 * i + 1, r = l + 1;
		uint32_t t;

		if (l < n && below(ctx, h[l], h[w]) > 0)
			w = l;
		if (r < n && below(ctx, h[r], h[w]) > 0)
			w = r;
		if (w == i)
			return;
		t = h[i];
		h[i] = h[w];
		h[w] = t;
		i = w;
	}
}

size_t kt_agg_top_ids(uint32_t *ids, size_t n, size_t limit, kt_agg_below_fn below,
		      const void *ctx)
{
	uint32_t *h, last;
	size_t k = 0;

	if (!limit || limit >= n || !(h = malloc(limit * sizeof(*h))))
		return n;
	memcpy(h, ids, limit * sizeof(*h));
	for (size_t j = limit / 2 + 1; j-- > 0;)
		heap_sift(h, limit, j, below, ctx);
	for (size_t i = limit; i < n; i++)
		if (below(ctx, ids[i], h[0]) < 0) {
			h[0] = ids[i];
			heap_sift(h, limit, 0, below, ctx);
		}
	last = h[0];
	free(h);
	for (size_t i = 0; i < n; i++)
		if (below(ctx, ids[i], last) <= 0)
			ids[k++] = ids[i];
	return k;
}

struct row_keys {
	const struct kt_row *rows;
	enum kt_sort key;
};

static int row_below(const void *ctx, uint32_t x, uint32_t y)
{
	const struct row_keys *o = ctx;

	return row_cmp_keys(&o->rows[x], &o->rows[y], o->key);
}

size_t kt_agg_top(struct kt_row *rows, size_t n, enum kt_sort s, size_t limit)
{
	struct row_keys o = {rows, s};
	uint32_t *ids;
	size_t k;

	if (!limit || limit >= n || n > UINT32_MAX || s == KT_SORT_NAME ||
	    !(ids = malloc(n * sizeof(*ids))))
		return n;
	for (size_t i = 0; i < n; i++)
		ids[i] = (uint32_t)i;
	k = kt_agg_top_ids(ids, n, limit, row_below, &o);
	/* ids are increasing: row ids[j] is still where it was when row j is filled */
	for (size_t j = 0; j < k; j++) {
		struct kt_row t = rows[j];

		rows[j] = rows[ids[j]];
		rows[ids[j]] = t;
	}
	free(ids);
	return k;
}

/* Sorts rows in place. */
void kt_agg_sort(struct kt_row *rows, size_t n, enum kt_sort s, int reverse, int numeric)
{
	struct row_order o = {s, numeric};

	if (n < 2)
		return; /* rows may be NULL when empty: qsort must not see it */
	qsort_r(rows, n, sizeof(*rows), row_cmp, &o);
	if (reverse)
		for (size_t i = 0; i < n / 2; i++) {
			struct kt_row t = rows[i];

			rows[i] = rows[n - 1 - i];
			rows[n - 1 - i] = t;
		}
}
