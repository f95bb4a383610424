/* Projections of the window's hits (issue 14): a query reads only some of a hit's dimensions
 * (the location always; the CPU, task, context or stack only when its filter or its grouping
 * does), so the hits are merged once on the dimensions it does not read, and every query of
 * the same refresh that needs no more reads the short table instead of every (location,
 * stack, CPU, task, context) tuple. On a 256-CPU machine the tuples are about as many as the
 * samples of the window, the (location, context) pairs a few thousand. Cached per window
 * generation; first-seen order is kept, so rows come out in the order the full scan gives. */
#include "config.h"

#include <string.h>

#include "agg_impl.h"
#include "kerntop/util.h"

/* A projection is dropped when it would keep more than this share of the tuples: merging
 * would then cost more than it saves, and its copy would only add memory. */
#define PROJ_MAX_SHARE 8

unsigned kt_agg_filter_needs(const struct kt_filter *f)
{
	unsigned need = 0;

	if (f->cpu != KT_ANY || f->cpuset)
		need |= KT_NEED_CPU;
	if (f->task != KT_ANY)
		need |= KT_NEED_TASK;
	if (f->ctx != KT_ANY)
		need |= KT_NEED_CTX;
	return need;
}

/* The source a projection of which reads: the raw hits are the totals unless --irq-owner
 * re-keys the totals. */
static enum kt_proj_src proj_src(const struct kt_agg *a, enum kt_proj_src which)
{
	return which == KT_PROJ_RAW && !a->irq_owner ? KT_PROJ_TOTALS : which;
}

/* The dimensions a projection keeps for need: the context always ((location, context) pairs
 * are hardly more than the locations, and the contexts view then shares the modules' and
 * functions' projection). */
static unsigned proj_need(unsigned need)
{
	return (need & (KT_NEED_ALL | KT_NEED_FUNC)) | KT_NEED_CTX;
}

struct pkey {
	const struct kt_proj *p;
	const struct kt_hit *h;
};

static int pkey_eq(const void *ctx, uint32_t id)
{
	const struct pkey *k = ctx;
	const struct kt_hit *a = &k->p->h[id], *b = k->h;

	return a->loc == b->loc && a->stack == b->stack && a->cpu == b->cpu && a->task == b->task &&
	       a->ctx == b->ctx;
}

/* Merges hit k into p on the dimensions of need; -E2BIG when p would pass max entries. */
static inline void mask(struct kt_hit *k, unsigned need)
{
	if (!(need & KT_NEED_CPU))
		k->cpu = 0;
	if (!(need & KT_NEED_TASK))
		k->task = 0;
	if (!(need & KT_NEED_STACK))
		k->stack = k->stack != 0; /* only "had a chain" is read (the summary) */
}

/* Merges the masked hit k into p; its entry's id in *idp (when not NULL). */
static inline int merge_masked(struct kt_proj *p, const struct kt_hit *k, size_t max,
			       uint32_t *idp)
{
	struct pkey pk = {p, k};
	uint32_t pos, id, hh;

	hh = kt_hash4(k->loc, k->stack ^ k->ctx << 24, k->cpu, k->task);
	id = kt_idx_find(&p->idx, hh, pkey_eq, &pk, &pos);
	if (id != UINT32_MAX) {
		p->h[id].hits += k->hits;
		if (idp)
			*idp = id;
		return 0;
	}
	if (p->n >= max)
		return -E2BIG;
	if (kt_grow((void **)&p->h, &p->cap, p->n + 1, sizeof(*p->h)) < 0 ||
	    kt_idx_insert(&p->idx, hh, p->n, pos) < 0)
		return -ENOMEM;
	if (idp)
		*idp = p->n;
	p->h[p->n++] = *k;
	return 0;
}

static inline int merge(struct kt_proj *p, struct kt_hit k, unsigned need, size_t max)
{
	mask(&k, need);
	return merge_masked(p, &k, max, NULL);
}

/* Merges src (n entries stride bytes apart; those with no hits skipped) into p on the
 * dimensions of need; -E2BIG when the result is not worth keeping. */
static int build(struct kt_proj *p, const struct kt_hit *src, size_t n, size_t stride,
		 unsigned need, size_t max)
{
	int r;

	p->n = 0;
	kt_idx_clear(&p->idx);
	for (size_t i = 0; i < n; i++) {
		const struct kt_hit *k = (const struct kt_hit *)((const char *)src + i * stride);

		if (k->hits && (r = merge(p, *k, need, max)) < 0)
			return r;
	}
	return 0;
}

/* Copies the entries of src with hits into p: keys already distinct on the dimensions kept
 * (the narrow totals' own), so nothing is merged and no index is made. */
static int copy_distinct(struct kt_proj *p, const struct kt_hit *src, size_t n, size_t stride)
{
	p->n = 0;
	kt_idx_clear(&p->idx);
	if (n > UINT32_MAX || kt_grow((void **)&p->h, &p->cap, (uint32_t)n, sizeof(*p->h)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct kt_hit *k = (const struct kt_hit *)((const char *)src + i * stride);

		if (k->hits)
			p->h[p->n++] = *k;
	}
	return 0;
}

size_t kt_agg_recent_stacks_read(const struct kt_recent_stacks *r, uint32_t *i, uint32_t *j,
				 struct kt_hit *out, size_t max)
{
	size_t k = 0;

	for (; *i < r->ne && k < max; (*i)++)
		if (!r->e[*i].chain && r->e[*i].hits)
			out[k++] = (struct kt_hit){r->e[*i].loc, 0, 0, 0, r->e[*i].ctx, r->e[*i].hits};
	for (; *i >= r->ne && *j < r->nst && k < max; (*j)++)
		if (r->st[*j].hits)
			out[k++] = (struct kt_hit){r->st[*j].loc, r->st[*j].stack, 0, 0,
						   r->st[*j].ctx, r->st[*j].hits};
	return k;
}

/* The newest complete slice's hits by (location, stack, context), distinct keys: a copy. */
static int copy_recent_stacks(struct kt_proj *p, const struct kt_recent_stacks *r)
{
	uint32_t i = 0, j = 0;

	kt_idx_clear(&p->idx);
	p->n = 0;
	if (kt_grow((void **)&p->h, &p->cap, r->ne + r->nst, sizeof(*p->h)) < 0)
		return -ENOMEM;
	p->n = (uint32_t)kt_agg_recent_stacks_read(r, &i, &j, p->h, (size_t)r->ne + r->nst);
	return 0;
}

/* The window's hits by (location, stack, context): the narrow totals' hits without a chain
 * and the stacks' totals, both kept by the window; their keys are distinct, so a copy. */
static int copy_stacks(struct kt_proj *p, const struct kt_hit *nar, size_t nn, size_t ns,
		       const struct kt_hit *stk, size_t sn, size_t ss)
{
	p->n = 0;
	kt_idx_clear(&p->idx);
	if (nn + sn > UINT32_MAX ||
	    kt_grow((void **)&p->h, &p->cap, (uint32_t)(nn + sn), sizeof(*p->h)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < nn; i++) {
		const struct kt_hit *k = (const struct kt_hit *)((const char *)nar + i * ns);

		if (k->hits && !k->stack)
			p->h[p->n++] = *k;
	}
	for (size_t i = 0; i < sn; i++) {
		const struct kt_hit *k = (const struct kt_hit *)((const char *)stk + i * ss);

		if (k->hits)
			p->h[p->n++] = *k;
	}
	return 0;
}

/* Merges n hits read from one log (or from all, when dense is NULL) into p; stamp marks the
 * entries of this log in the dense map. */
static int merge_read(struct kt_agg *a, struct kt_proj *p, struct kt_hit *buf, size_t n,
		      unsigned need, struct kt_dense *dense, uint32_t stamp)
{
	int r;

	for (size_t i = 0; i < n; i++) {
		struct kt_hit *k = &buf[i];
		struct kt_dense *d;
		uint32_t rep;

		if ((need & KT_NEED_FUNC) && (rep = kt_agg_loc(a, k->loc)->rep) != UINT32_MAX)
			k->loc = rep;
		mask(k, need);
		/* one CPU's log: most keys of a location are one entry, found through the
		 * location without hashing */
		d = dense && k->loc < a->densecap ? &dense[k->loc] : NULL;
		if (d && d->stamp == stamp) {
			struct kt_hit *e = &p->h[d->id];

			if (e->stack == k->stack && e->cpu == k->cpu && e->task == k->task &&
			    e->ctx == k->ctx) {
				e->hits += k->hits;
				continue;
			}
			d = NULL; /* a second key of the location: the hash */
		}
		if (d) {
			/* the location's first key in this log: new, so appended without a hash
			 * probe; it is found through d, and only other keys of the location go
			 * through the index */
			if (kt_grow((void **)&p->h, &p->cap, p->n + 1, sizeof(*p->h)) < 0)
				return -ENOMEM;
			d->id = p->n;
			p->h[p->n++] = *k;
			d->stamp = stamp;
		} else if ((r = merge_masked(p, k, SIZE_MAX, NULL)) < 0) {
			return r;
		}
	}
	return 0;
}

/* Merges the samples of cursor c's slices into p: no tuple table is made. With KT_NEED_FUNC
 * a location is replaced by its function's representative (kt_agg_loc). With the CPU or the
 * task needed, one CPU's log is merged at a time, so the table being probed holds one CPU's
 * keys and stays in the cache (a task without its CPU may then appear once per CPU it ran
 * on: every reader sums, and a task rarely leaves its CPU). cum: the since-start totals of
 * the slices that left the window too, log by log with the slices' (cumulative mode: no
 * since-start tuple table is made either). */
static int build_log(struct kt_agg *a, struct kt_proj *p, const struct kt_window_cursor *c0,
		     unsigned need, int cum)
{
	uint32_t nlog = need & (KT_NEED_CPU | KT_NEED_TASK) ? kt_window_logs(a->w) : 1;
	struct kt_hit buf[512];
	size_t n;
	int r;

	if (cum && nlog > 1 && kt_window_cum_logs(a->w) > nlog)
		nlog = kt_window_cum_logs(a->w);
	p->n = 0;
	kt_idx_clear(&p->idx);
	if (nlog > 1) {
		uint32_t old = a->densecap;

		if (kt_grow((void **)&a->dense, &a->densecap, kt_sym_nlocs(a->s) + 1,
			    sizeof(*a->dense)) < 0)
			return -ENOMEM;
		memset(a->dense + old, 0, (a->densecap - old) * sizeof(*a->dense)); /* stamp 0: none */
	}
	for (uint32_t log = 0; log < nlog; log++) {
		struct kt_window_cursor c = *c0;
		uint32_t before = p->n, stamp;
		struct kt_dense *dense = nlog > 1 ? a->dense : NULL;

		if (nlog > 1) {
			kt_window_cursor_log(&c, log);
			if (++a->dstamp == 0) { /* wrapped: every slot's stamp is stale again */
				memset(a->dense, 0, a->densecap * sizeof(*a->dense));
				a->dstamp = 1;
			}
		}
		stamp = a->dstamp;
		while ((n = kt_window_read(a->w, &c, buf, sizeof(buf) / sizeof(buf[0]))))
			if ((r = merge_read(a, p, buf, n, need, dense, stamp)) < 0)
				return r;
		if (cum) { /* since start: this log's records of the slices that left */
			struct kt_window_cumcur cc;

			kt_window_cum_cursor(a->w, nlog > 1 ? log : UINT32_MAX, &cc);
			while ((n = kt_window_cum_read(a->w, &cc, buf, sizeof(buf) / sizeof(buf[0]))))
				if ((r = merge_read(a, p, buf, n, need, dense, stamp)) < 0)
					return r;
		}
		if (p->n != before && log + 1 < nlog)
			kt_idx_clear(&p->idx);
	}
	return 0;
}

/* The slot of an older projection of the same which and need, else the least recently used
 * one, filled with which and need. The same kind goes back to its slot at each refresh: going
 * round the slots, each grew to the largest kind's size (four copies of the narrow totals). */
static struct kt_proj *proj_slot(struct kt_agg *a, enum kt_proj_src which, unsigned need,
				 uint64_t gen, uint64_t rlen)
{
	struct kt_proj *p = NULL;

	for (uint32_t i = 0; i < KT_AGG_NPROJ; i++) {
		struct kt_proj *c = &a->proj[i];

		if (c->valid && c->which == which && c->need == need &&
		    c->owner == a->irq_owner) {
			p = c;
			break;
		}
		if (!p || !c->valid || (p->valid && c->used < p->used))
			p = c;
	}
	p->valid = 1;
	p->gen = gen;
	p->which = which;
	p->need = need;
	p->owner = a->irq_owner;
	p->len_ns = rlen;
	p->used = ++a->proj_clock;
	p->pass = 0;
	return p;
}

/* A projection that could not be made (out of memory): the query fails, and it hands out no
 * rows, since its slot is the first one reused (a caller still holding the rows of a failed
 * projection while it asked for the next read them after they had moved). */
static void proj_failed(struct kt_agg *a, struct kt_proj *p)
{
	a->nomem++;
	p->valid = 0;
	p->n = 0;
}

const struct kt_hit *kt_agg_proj(struct kt_agg *a, enum kt_proj_src which, unsigned need, size_t *n,
				 uint64_t *len_ns)
{
	uint64_t gen = kt_window_gen(a->w), rlen = 0;
	struct kt_proj *p = NULL;
	const struct kt_hit *src;
	size_t sn, stride = sizeof(*src);
	struct kt_recent_stacks rs;

	need = proj_need(need);
	which = proj_src(a, which);
	for (uint32_t i = 0; i < KT_AGG_NPROJ; i++) {
		struct kt_proj *c = &a->proj[i];

		if (c->valid && c->gen == gen && c->which == which && c->need == need &&
		    c->owner == a->irq_owner) {
			c->used = ++a->proj_clock;
			if (len_ns)
				*len_ns = c->len_ns;
			if (c->pass)
				break; /* not worth projecting: the source, below */
			*n = c->n;
			return c->h;
		}
	}
	if ((need & KT_NEED_ALL) != KT_NEED_ALL && a->project && !a->irq_owner &&
	    which != KT_PROJ_RECENT && !(need & (KT_NEED_CPU | KT_NEED_TASK | KT_NEED_STACK)) &&
	    (src = kt_window_narrow(a->w, &sn, &stride))) {
		/* the narrow totals, kept by the window (since start too): their keys are the
		 * projection's, (location, context, chain or not), so a dense copy */
		p = proj_slot(a, which, need, gen, 0);
		if (copy_distinct(p, src, sn, stride) < 0) {
			proj_failed(a, p);
		}
		*n = p->n;
		return p->h;
	}
	/* the rest reads the window's slices (the newest one is the same since start), and since
	 * start also what left them */
	if ((need & KT_NEED_ALL) != KT_NEED_ALL && a->project && !a->irq_owner) {
		struct kt_window_cursor c;
		const struct kt_tslice *t;
		const struct kt_hit *stk;
		size_t ns, nstride;

		if (which != KT_PROJ_RECENT && (need & KT_NEED_STACK) && !kt_window_cumulative(a->w) &&
		    !(need & (KT_NEED_CPU | KT_NEED_TASK | KT_NEED_FUNC)) &&
		    (src = kt_window_narrow(a->w, &sn, &stride)) &&
		    kt_window_narrow_stacks(a->w, &stk, &ns, &nstride) == 0) {
			/* the stacks views' (location, stack, context): kept by the window too */
			p = proj_slot(a, which, need, gen, 0);
			if (copy_stacks(p, src, sn, stride, stk, ns, nstride) < 0) {
				proj_failed(a, p);
			}
			*n = p->n;
			return p->h;
		}
		if (which == KT_PROJ_RECENT && !(need & (KT_NEED_CPU | KT_NEED_TASK | KT_NEED_STACK)) &&
		    kt_window_cursor_recent(a->w, &c, &rlen) == 0 && !c.done) {
			/* the newest complete slice by location: the window's own table when it
			 * has it (made as the slice completed), else the one kept for the trend;
			 * made once, not once per refresh */
			uint32_t ne;
			const struct kt_window_locent *e = kt_window_slice_locs(a->w, c.slice, &ne);

			if (!e && (t = kt_agg_slice_locs(a, c.slice))) {
				e = t->e;
				ne = t->n;
			}
			if (e) {
				p = proj_slot(a, which, need, gen, rlen);
				p->n = 0;
				kt_idx_clear(&p->idx);
				/* its keys are distinct (location, context, chain or not): a copy */
				if (kt_grow((void **)&p->h, &p->cap, ne, sizeof(*p->h)) < 0) {
					proj_failed(a, p);
				} else {
					for (uint32_t i = 0; i < ne; i++) {
						struct kt_hit k = {e[i].loc, e[i].chain, 0, 0, e[i].ctx,
								   e[i].hits};

						p->h[p->n++] = k;
					}
				}
				if (len_ns)
					*len_ns = rlen;
				*n = p->n;
				return p->h;
			}
		}
		if (which == KT_PROJ_RECENT && kt_agg_proj_recent_stacks(a, need, &rs) == 0) {
			p = proj_slot(a, which, need, gen, rs.len_ns);
			if (copy_recent_stacks(p, &rs) < 0) {
				proj_failed(a, p);
			}
			if (len_ns)
				*len_ns = rs.len_ns;
			*n = p->n;
			return p->h;
		}
		if (which != KT_PROJ_RECENT || kt_window_cursor_recent(a->w, &c, &rlen) == 0) {
			/* the samples of the window merged once: no tuple table is made */
			if (which != KT_PROJ_RECENT)
				kt_window_cursor_rolling(a->w, &c);
			p = proj_slot(a, which, need, gen, rlen);
			if (build_log(a, p, &c, need,
				      which != KT_PROJ_RECENT && kt_window_cumulative(a->w)) < 0) {
				proj_failed(a, p);
			}
			if (len_ns)
				*len_ns = rlen;
			*n = p->n;
			return p->h;
		}
	}
	need &= KT_NEED_ALL; /* from here on, locations as they are */
	if (which == KT_PROJ_RECENT) {
		src = kt_agg_recent(a, &sn, &rlen);
	} else if (which == KT_PROJ_RAW) {
		src = kt_window_hits(a->w, &sn);
	} else {
		src = kt_agg_hits(a, &sn);
	}
	if (len_ns)
		*len_ns = rlen;
	*n = sn;
	if (need == KT_NEED_ALL || !a->project)
		return src;
	/* a projection too wide to be worth it is not rebuilt on every refresh */
	if (a->proj_wide[which][need] && a->proj_wide[which][need]++ % KT_AGG_PROJ_RETRY)
		return src;
	for (uint32_t i = 0; i < KT_AGG_NPROJ; i++) {
		const struct kt_proj *c = &a->proj[i];

		if (c->valid && c->gen == gen && c->which == which && c->need == need &&
		    c->owner == a->irq_owner)
			return src; /* found above as not worth it */
	}
	/* the least recently used slot: a query holds at most two projections at once */
	p = proj_slot(a, which, need, gen, rlen);
	p->pass = build(p, src, sn, stride, need, sn / PROJ_MAX_SHARE + 64) < 0;
	a->proj_wide[which][need] = p->pass;
	if (p->pass) {
		/* give the memory back: a table this wide is read as it is */
		free(p->h);
		p->h = NULL;
		p->cap = 0;
		p->n = 0;
		kt_idx_free(&p->idx);
		if (stride != sizeof(*src))
			return kt_agg_hits(a, n); /* the in-place tuples are not dense */
		return src;
	}
	*n = p->n;
	return p->h;
}

/* Whether a query of need reads what the window keeps (its narrow totals, or with stack its
 * stacks' totals) rather than its logs: neither the CPU nor the task (nor, with the stack,
 * the function's representative), the stack exactly when stack is set; projections on, no
 * --irq-owner re-keying; the rolling window, or without the stack since start too (the
 * window keeps its narrow totals since start once asked: window_since.c). */
static int window_tables(const struct kt_agg *a, unsigned need, int stack)
{
	unsigned deny = KT_NEED_CPU | KT_NEED_TASK | (stack ? KT_NEED_FUNC : 0);

	need = proj_need(need);
	return !!(need & KT_NEED_STACK) == !!stack && !(need & deny) && a->project &&
	       !a->irq_owner && (!stack || !kt_window_cumulative(a->w));
}

void kt_agg_proj_view(struct kt_agg *a, enum kt_proj_src which, unsigned need,
		      struct kt_hits_view *v)
{
	/* the narrow totals' keys are the projection's: a copy of them (40 k entries at 256
	 * CPUs) was fresh memory at the first refresh, and a megabyte copied at each */
	if (proj_src(a, which) == KT_PROJ_TOTALS && window_tables(a, need, 0) &&
	    (v->h = kt_window_narrow(a->w, &v->n, &v->stride)))
		return;
	v->h = kt_agg_proj(a, which, need, &v->n, NULL);
	v->stride = sizeof(*v->h);
}

int kt_agg_proj_recent_stacks(struct kt_agg *a, unsigned need, struct kt_recent_stacks *r)
{
	struct kt_window_cursor c;

	if (!window_tables(a, need, 1) || kt_window_cursor_recent(a->w, &c, &r->len_ns) < 0 ||
	    c.done)
		return -1;
	/* both made by the window as the slice completed (a pass over its samples was most of
	 * a 256-CPU -g batch refresh) */
	r->e = kt_window_slice_locs(a->w, c.slice, &r->ne);
	if (!r->e || kt_window_slice_stacks(a->w, c.slice, &r->st, &r->nst) < 0)
		return -1;
	return 0;
}

int kt_agg_proj_stacks(struct kt_agg *a, unsigned need, struct kt_hits_view part[2])
{
	if (!window_tables(a, need, 1))
		return -1;
	part[0].h = kt_window_narrow(a->w, &part[0].n, &part[0].stride);
	if (!part[0].h ||
	    kt_window_narrow_stacks(a->w, &part[1].h, &part[1].n, &part[1].stride) < 0)
		return -1;
	return 0;
}

void kt_agg_set_projection(struct kt_agg *a, int on)
{
	a->project = !!on;
	memset(a->proj_wide, 0, sizeof(a->proj_wide));
	for (uint32_t i = 0; i < KT_AGG_NPROJ; i++)
		a->proj[i].valid = 0;
}

void kt_agg_proj_free(struct kt_agg *a)
{
	free(a->dense);
	for (uint32_t i = 0; i < KT_AGG_NPROJ; i++) {
		free(a->proj[i].h);
		kt_idx_free(&a->proj[i].idx);
	}
}
