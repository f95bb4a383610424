/* Rollups of a projection for the flat views (issue 14: the -g batch's refresh at 256 CPUs).
 * The projection the modules and functions views read keeps the context and the address of
 * every hit: with call chains at 256 CPUs 100 000 entries for 25 000 locations of 5 000
 * functions, and each of a refresh's flat queries walked them all, a group lookup each.
 * When a query reads neither the context, the CPU, the task nor the address, the
 * projection's hits are summed once per window generation by function (KT_ROLL_FUNC: by the
 * location that stands for the locations of the same locinfo, kt_agg_loc's rep); the
 * contexts view without a filter on a location's module or idleness reads them summed by
 * context (KT_ROLL_CTX, a few hundred entries). The query's code is the same for every
 * source: only the entries it walks are fewer. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "agg_impl.h"
#include "kerntop/util.h"

int kt_agg_rollup_kind(const struct kt_agg *a, const struct kt_query *q, unsigned dims)
{
	if (!a->project)
		return -1; /* the full scan, which the comparison test reads against */
	if (!dims && (q->view == KT_VIEW_MODULES || q->view == KT_VIEW_FUNCS ||
		      q->view == KT_VIEW_TOPFUNCS))
		return KT_ROLL_FUNC;
	if (dims == KT_NEED_CTX && q->view == KT_VIEW_CONTEXTS && q->filter.ctx == KT_ANY &&
	    q->filter.module == KT_ANY && !q->filter.hide_idle)
		return KT_ROLL_CTX; /* every entry passes: its location is read for nothing */
	return -1;
}

/* The key of hit x in a rollup of kind: its context, or its location's representative. */
static inline uint32_t roll_key(struct kt_agg *a, const struct kt_hit *x, int kind)
{
	uint32_t rep;

	if (kind == KT_ROLL_CTX)
		return x->ctx;
	rep = kt_agg_loc(a, x->loc)->rep;
	return rep != UINT32_MAX ? rep : x->loc;
}

/* Sums src's entries with hits into r by key, in the order the keys first appear;
 * a->rollslot[kind][key]: the key's entry + 1 in r while it is made, all 0 again after.
 * -ENOMEM, or -ERANGE for a key past the symbolizer's (the query reads src itself). */
static int roll(struct kt_agg *a, struct kt_rollup *r, const struct kt_hits_view *src, int kind)
{
	uint32_t lim = kind == KT_ROLL_CTX ? kt_sym_nctx(a->s) : kt_sym_nlocs(a->s);
	uint32_t **slot = &a->rollslot[kind], *capp = &a->rollslotcap[kind];
	int err = 0;

	r->n = 0;
	if (lim > *capp) {
		uint32_t old = *capp;

		if (kt_grow((void **)slot, capp, lim, sizeof(**slot)) < 0)
			return -ENOMEM;
		memset(*slot + old, 0, (*capp - old) * sizeof(**slot));
	}
	for (size_t i = 0; i < src->n; i++) {
		const struct kt_hit *x = kt_hv_at(src, i);
		uint32_t key, *s;

		if (!x->hits)
			continue;
		key = roll_key(a, x, kind);
		if (key >= lim) {
			err = -ERANGE;
			break;
		}
		s = &(*slot)[key];
		if (*s) {
			r->h[*s - 1].hits += x->hits;
			continue;
		}
		if (kt_grow((void **)&r->h, &r->cap, r->n + 1, sizeof(*r->h)) < 0) {
			err = -ENOMEM;
			break;
		}
		r->h[r->n] = (struct kt_hit){
		    .loc = kind == KT_ROLL_CTX ? x->loc : key, .ctx = x->ctx, .hits = x->hits};
		*s = ++r->n;
	}
	for (uint32_t i = 0; i < r->n; i++)
		(*slot)[kind == KT_ROLL_CTX ? r->h[i].ctx : r->h[i].loc] = 0;
	if (err)
		r->n = 0;
	return err;
}

int kt_agg_rollup(struct kt_agg *a, enum kt_proj_src which, int kind, struct kt_hits_view *v,
		  uint64_t *len_ns)
{
	struct kt_rollup *r = &a->roll[which == KT_PROJ_RECENT][kind];
	uint64_t gen = kt_window_gen(a->w), rlen = 0;
	int cum = kt_window_cumulative(a->w);

	if (!(r->valid && r->gen == gen && r->owner == a->irq_owner && r->cum == cum)) {
		/* the projection the query would read (dims 0, or the context alone) */
		struct kt_hits_view src = {NULL, 0, sizeof(struct kt_hit)};
		unsigned need = kind == KT_ROLL_CTX ? KT_NEED_CTX : 0;
		uint64_t nomem = a->nomem;
		int err;

		if (which == KT_PROJ_RECENT)
			src.h = kt_agg_proj(a, which, need, &src.n, &rlen);
		else
			kt_agg_proj_view(a, which, need, &src);
		r->valid = 0;
		if ((err = roll(a, r, &src, kind)) < 0) {
			if (err == -ENOMEM)
				a->nomem++; /* the query fails; made again at the next */
			return -1;
		}
		r->valid = a->nomem == nomem; /* made from a source short of memory: not kept */
		r->gen = gen;
		r->owner = a->irq_owner;
		r->cum = cum;
		r->len_ns = rlen;
	}
	v->h = r->h;
	v->n = r->n;
	v->stride = sizeof(*r->h);
	if (len_ns)
		*len_ns = r->len_ns;
	return 0;
}

void kt_agg_rollup_free(struct kt_agg *a)
{
	for (int i = 0; i < 2; i++) {
		free(a->rollslot[i]);
		for (int k = 0; k < 2; k++)
			free(a->roll[i][k].h);
	}
}
