/* The since-start narrow totals: the since-start view's modules, functions, contexts and
 * summary read (location, chain or not, context) alone, as the rolling view's do, but had
 * only the since-start tuples to read them from: every record of the runs merged with the
 * rolling window's full tuples, made again at each refresh. At 256 CPUs that was 0.3-1 s a
 * refresh and 270 MB more of window after 15 s. Here the runs' records are summed by those
 * keys once, when the since-start view first asks, and kept as records join the runs (each
 * expiring slice's, window_cum.c) or change key in them (a retired stack's hits keep their
 * location, not their chain); a query adds the rolling narrow totals to them, once per
 * window generation. The sums then cost an expiring record a table add, so they are not
 * kept before they are asked for: a session that never shows the since-start view does
 * not pay for it. */
#include "config.h"

#include "window_impl.h"

void kt_window_since_add(struct kt_window *w, const struct kt_hit *h, int64_t hits)
{
	uint32_t id;

	if (!w->cnar_on || !hits)
		return;
	id = kt_wtable_entry(&w->cnar, h->loc, h->stack != 0, h->ctx);
	if (id == UINT32_MAX) {
		w->nomem++;
		w->cnar_on = 0; /* short of these hits: made again from the runs when asked */
		return;
	}
	w->cnar.t[id].h.hits += (uint64_t)hits; /* taken off: what was added before */
}

/* Adds table t's entries with hits to the output table; -1 out of memory. */
static int add_all(struct kt_window *w, const struct wtable *t)
{
	for (uint32_t i = 0; i < t->n; i++) {
		const struct kt_hit *h = &t->t[i].h;
		uint32_t id;

		if (!h->hits)
			continue; /* a free entry */
		id = kt_wtable_entry(&w->cnout, h->loc, h->stack, h->ctx);
		if (id == UINT32_MAX)
			return -1;
		w->cnout.t[id].h.hits += h->hits;
	}
	return 0;
}

const struct kt_hit *kt_window_since_narrow(struct kt_window *w, size_t *n, size_t *stride)
{
	*n = 0;
	*stride = sizeof(*w->cnout.t);
	if (!w->cnar_on) {
		kt_wtable_clear(&w->cnar);
		w->cnar_on = 1;
		if (kt_window_cum_narrow(w) < 0) {
			w->cnar_on = 0; /* made again at the next query */
			return NULL;
		}
		w->cnout_gen = 0;
	}
	if (w->cnout_gen != w->gen + 1) {
		kt_wtable_clear(&w->cnout);
		if (add_all(w, &w->cnar) < 0 || add_all(w, &w->nar) < 0) {
			w->nomem++;
			return NULL;
		}
		w->cnout_gen = w->gen + 1;
	}
	*n = w->cnout.n;
	return w->cnout.t ? &w->cnout.t[0].h : NULL;
}

size_t kt_window_since_mem(const struct kt_window *w)
{
	return ((size_t)w->cnar.cap + w->cnout.cap) * sizeof(*w->cnar.t) +
	       kt_idx_mem(&w->cnar.idx) + kt_idx_mem(&w->cnout.idx);
}

void kt_window_since_free(struct kt_window *w)
{
	free(w->cnar.t);
	kt_idx_free(&w->cnar.idx);
	free(w->cnout.t);
	kt_idx_free(&w->cnout.idx);
}
