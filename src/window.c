/* The rolling window: a ring of time slices, each a flat list of (tuple, count), over a
 * small table of the tuples with non-zero rolling counts. Ingest touches only that table
 * (one hash lookup, a few increments). The since-start totals are the expired counts (folded
 * in, with prefetching, when a slice expires) plus the rolling ones, so the big since-start
 * table stays off the per-sample path. */
#include "config.h"

#include <string.h>

#include "window_impl.h"

static uint32_t slices_for(uint64_t span, uint64_t slice)
{
	uint64_t n = (span + slice - 1) / slice;

	return n ? (n > 1000000 ? 1000000 : (uint32_t)n) : 1;
}

int kt_window_new(const struct kt_window_opts *o, struct kt_window **out)
{
	struct kt_window *w;

	*out = NULL;
	if (!o || !o->span_ns)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->span_ns = o->span_ns;
	w->slice_ns = o->slice_ns && o->slice_ns < o->span_ns ? o->slice_ns : o->span_ns;
	w->cumulative = !!o->cumulative;
	w->max_cum = o->max_cum_tuples ? o->max_cum_tuples : KT_WINDOW_CUM_MAX;
	w->other_task = UINT32_MAX;
	w->max_idle = o->max_idle_tasks ? o->max_idle_tasks : KT_WINDOW_IDLE_TASKS;
	w->max_idle_stk = o->max_idle_stacks ? o->max_idle_stacks : KT_WINDOW_IDLE_STACKS;
	w->nslices = slices_for(w->span_ns, w->slice_ns);
	w->ring = calloc(w->nslices, sizeof(*w->ring));
	if (!w->ring) {
		free(w);
		return -ENOMEM;
	}
	*out = w;
	return 0;
}

void kt_window_free(struct kt_window *w)
{
	if (!w)
		return;
	kt_window_addr_free(w);
	for (uint32_t i = 0; i < w->nslices; i++)
		free(w->ring[i].e);
	free(w->ring);
	free(w->tup);
	kt_idx_free(&w->tupidx);
	free(w->cum);
	kt_idx_free(&w->cumidx);
	free(w->out);
	free(w->recent);
	kt_window_stacks_free(w);
	kt_window_tasks_free(w);
	free(w);
}

struct hit_key {
	const struct kt_hit *base;
	size_t stride;
	uint32_t loc, stack, cpu, task, ctx;
};

/* The context is a function of the other four nearly always (a stack, or a kernel thread's
 * command); mixing it in keeps the rare exceptions apart. */
static inline uint32_t hit_hash(uint32_t loc, uint32_t stack, uint32_t cpu, uint32_t task,
				uint32_t ctx)
{
	return kt_hash4(loc, stack ^ (ctx * 0x9e3779b9u), cpu, task);
}

static int hit_eq(const void *ctx, uint32_t id)
{
	const struct hit_key *k = ctx;
	const struct kt_hit *h = (const void *)((const char *)k->base + (size_t)id * k->stride);

	return h->loc == k->loc && h->stack == k->stack && h->cpu == k->cpu && h->task == k->task &&
	       h->ctx == k->ctx;
}

/* The since-start entry for a key, created (and the stack referenced) when new. */
static uint32_t cum_entry(struct kt_window *w, uint32_t loc, uint32_t stack, uint32_t cpu,
			  uint32_t task, uint32_t ctx)
{
	struct hit_key k = {w->cum, sizeof(*w->cum), loc, stack, cpu, task, ctx};
	uint32_t h, pos, id;

	if (w->ncum >= w->max_cum && (stack || task != w->other_task)) {
		k.stack = stack = 0;
		k.task = task = kt_window_group(w, NULL);
	}
	h = hit_hash(loc, stack, cpu, task, ctx);
	id = kt_idx_find(&w->cumidx, h, hit_eq, &k, &pos);
	if (id != UINT32_MAX)
		return id;
	if (kt_grow((void **)&w->cum, &w->cumcap, w->ncum + 1, sizeof(*w->cum)) < 0)
		return UINT32_MAX;
	id = w->ncum;
	if (kt_idx_insert(&w->cumidx, h, id, pos) < 0)
		return UINT32_MAX;
	w->ncum++;
	w->cum[id] = (struct kt_hit){loc, stack, cpu, task, ctx, 0};
	kt_window_stack_ref(w, stack, 0);
	return id;
}

static uint32_t tuple_entry(struct kt_window *w, uint32_t loc, uint32_t stack, uint32_t cpu,
			    uint32_t task, uint32_t ctx)
{
	struct hit_key k = {
	    (const struct kt_hit *)w->tup, sizeof(*w->tup), loc, stack, cpu, task, ctx};
	uint32_t h = hit_hash(loc, stack, cpu, task, ctx), pos, id;
	struct wtuple *t;

	id = kt_idx_find(&w->tupidx, h, hit_eq, &k, &pos);
	if (id != UINT32_MAX)
		return id;
	if (w->tupfree) {
		id = w->tupfree - 1;
		w->tupfree = w->tup[id].sidx;
	} else {
		if (kt_grow((void **)&w->tup, &w->tupcap, w->ntup + 1, sizeof(*w->tup)) < 0)
			return UINT32_MAX;
		id = w->ntup++;
	}
	if (kt_idx_insert(&w->tupidx, h, id, pos) < 0) {
		w->tup[id].h.hits = 0;
		w->tup[id].sidx = w->tupfree;
		w->tupfree = id + 1;
		return UINT32_MAX;
	}
	t = &w->tup[id];
	t->h = (struct kt_hit){loc, stack, cpu, task, ctx, 0};
	t->hash = h;
	t->seq = 0;
	w->tuplive++;
	kt_window_stack_ref(w, stack, 1);
	kt_window_task_ref(w, task);
	return id;
}

static void tuple_release(struct kt_window *w, uint32_t id)
{
	struct wtuple *t = &w->tup[id];

	kt_idx_remove(&w->tupidx, t->hash, id);
	kt_window_stack_unref(w, t->h.stack, 1);
	kt_window_task_unref(w, t->h.task);
	t->sidx = w->tupfree;
	w->tupfree = id + 1;
	w->tuplive--;
}

/* The table only shrinks here, so the index never has to grow. */
void kt_window_cum_remap(struct kt_window *w, const uint32_t *map)
{
	uint32_t n = w->ncum;

	kt_idx_clear(&w->cumidx);
	w->ncum = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct kt_hit h = w->cum[i];
		struct hit_key k;
		uint32_t hash, pos, id;

		/* a retired task's hits keep their location and CPU, not their chains: the
		 * groups would otherwise multiply every stack by every command */
		if (map && map[h.task] != h.task) {
			h.task = map[h.task];
			kt_window_stack_unref(w, h.stack, 0);
			h.stack = 0;
		} else if (h.stack && w->stk[h.stack].drop) {
			kt_window_stack_unref(w, h.stack, 0);
			h.stack = 0;
		}
		k = (struct hit_key){w->cum, sizeof(*w->cum), h.loc, h.stack, h.cpu, h.task, h.ctx};
		hash = hit_hash(h.loc, h.stack, h.cpu, h.task, h.ctx);
		id = kt_idx_find(&w->cumidx, hash, hit_eq, &k, &pos);
		if (id != UINT32_MAX) {
			w->cum[id].hits += h.hits;
			kt_window_stack_unref(w, h.stack, 0);
		} else if (kt_idx_insert(&w->cumidx, hash, w->ncum, pos) == 0) {
			w->cum[w->ncum++] = h;
		}
	}
	for (uint32_t i = 1; i < w->nstk; i++)
		w->stk[i].drop = 0;
	w->out_dirty = 1;
	w->gen++;
}

/* Folds an expiring slice into the since-start totals. The lookups miss the cache (the
 * since-start table is large), so the index slots and entries are prefetched ahead. */
#define PF_SLOT 16
#define PF_ENTRY 8

static void slice_expire(struct kt_window *w, struct slice *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		struct wtuple *t = &w->tup[s->e[i].tuple];
		uint32_t c;

		if (w->cumidx.slot && i + PF_SLOT < s->n) {
			const struct kt_hit *p = &w->tup[s->e[i + PF_SLOT].tuple].h;

			__builtin_prefetch(
			    &w->cumidx.slot[hit_hash(p->loc, p->stack, p->cpu, p->task, p->ctx) &
					    w->cumidx.mask]);
		}
		if (w->cumidx.slot && i + PF_ENTRY < s->n) {
			const struct kt_hit *p = &w->tup[s->e[i + PF_ENTRY].tuple].h;
			const struct kt_idx_slot *sl =
			    &w->cumidx.slot[hit_hash(p->loc, p->stack, p->cpu, p->task, p->ctx) &
					    w->cumidx.mask];

			if (sl->id1)
				__builtin_prefetch(&w->cum[sl->id1 - 1]);
		}
		c = cum_entry(w, t->h.loc, t->h.stack, t->h.cpu, t->h.task, t->h.ctx);
		if (c != UINT32_MAX) {
			w->cum[c].hits += s->e[i].count;
			w->base_total += s->e[i].count;
		} else {
			w->nomem++;
		}
		t->h.hits -= s->e[i].count;
		if (!t->h.hits)
			tuple_release(w, s->e[i].tuple);
	}
	w->total -= s->hits;
	w->lost -= s->lost;
	w->base_lost += s->lost;
	s->n = 0;
	s->hits = 0;
	s->lost = 0;
	w->out_dirty = 1;
	w->gen++;
}

/* Copies a slice as kt_hits: the recent rate survives the slice's own expiry. */
static void recent_from(struct kt_window *w, const struct slice *s, uint64_t len)
{
	w->nrecent = 0;
	w->recent_len = len;
	if (kt_grow((void **)&w->recent, &w->recentcap, s->n, sizeof(*w->recent)) < 0) {
		w->nomem++;
		return;
	}
	for (uint32_t i = 0; i < s->n; i++) {
		w->recent[i] = w->tup[s->e[i].tuple].h;
		w->recent[i].hits = s->e[i].count;
	}
	w->nrecent = s->n;
}

/* Moves the newest slice to number k, expiring what falls out of the span. */
static void rotate_to(struct kt_window *w, uint64_t k)
{
	uint64_t from = w->newest;

	if (k <= from)
		return;
	if (k == from + 1)
		recent_from(w, &w->ring[from % w->nslices], w->slice_ns);
	else {
		w->nrecent = 0; /* the newest complete slice is empty */
		w->recent_len = w->slice_ns;
	}
	if (k - from >= w->nslices) {
		for (uint32_t i = 0; i < w->nslices; i++)
			slice_expire(w, &w->ring[i]);
	} else {
		for (uint64_t j = from + 1; j <= k; j++)
			slice_expire(w, &w->ring[j % w->nslices]);
	}
	w->newest = k;
}

static void start_at(struct kt_window *w, uint64_t t)
{
	w->started = 1;
	w->origin = t;
	w->end = t;
	w->newest = 0;
}

void kt_window_advance(struct kt_window *w, uint64_t now_ns)
{
	if (!w->started)
		start_at(w, now_ns);
	else if (now_ns > w->end) {
		w->end = now_ns;
		rotate_to(w, (now_ns - w->origin) / w->slice_ns);
		kt_window_retire(w);
		w->out_dirty = 1;
		w->gen++;
	}
	kt_window_stack_reclaim(w);
}

void kt_window_add(struct kt_window *w, uint64_t time_ns, uint32_t loc, uint32_t stack,
		   uint32_t cpu, uint32_t task, uint64_t count)
{
	kt_window_add_ctx(w, time_ns, loc, stack, cpu, task, 0, count);
}

void kt_window_add_ctx(struct kt_window *w, uint64_t time_ns, uint32_t loc, uint32_t stack,
		       uint32_t cpu, uint32_t task, uint32_t ctx, uint64_t count)
{
	struct slice *s;
	struct wtuple *t;
	uint32_t id, seq;

	if (!count)
		return;
	if (!w->started)
		start_at(w, time_ns);
	else if (time_ns > w->end) {
		uint64_t k = (time_ns - w->origin) / w->slice_ns;

		w->end = time_ns;
		if (k > w->newest)
			rotate_to(w, k);
	}
	id = tuple_entry(w, loc, stack, cpu, task, ctx);
	if (id == UINT32_MAX) {
		w->nomem++; /* the hit is dropped, totals stay consistent; the caller is told */
		return;
	}
	s = &w->ring[w->newest % w->nslices];
	t = &w->tup[id];
	seq = (uint32_t)(w->newest + 1);
	if (t->seq == seq && t->sidx < s->n && s->e[t->sidx].tuple == id) {
		s->e[t->sidx].count += count;
	} else {
		if (kt_grow((void **)&s->e, &s->cap, s->n + 1, sizeof(*s->e)) < 0) {
			if (!t->h.hits)
				tuple_release(w, id);
			w->nomem++;
			return;
		}
		s->e[s->n] = (struct kt_slice_hit){id, loc, count};
		t->seq = seq;
		t->sidx = s->n++;
	}
	t->h.hits += count;
	s->hits += count;
	w->total += count;
	w->out_dirty = 1;
	w->gen++;
	/* tasks and stacks left the window as it moved; the caller's have a hit now */
	if (w->nidle > w->max_idle || w->stkidle > w->max_idle_stk)
		kt_window_retire(w);
}

void kt_window_add_lost(struct kt_window *w, uint64_t time_ns, uint32_t cpu, uint64_t count)
{
	if (!count)
		return;
	kt_window_advance(w, time_ns);
	w->ring[w->newest % w->nslices].lost += count;
	w->lost += count;
}

void kt_window_set_span(struct kt_window *w, uint64_t span_ns)
{
	uint32_t n, o = w->nslices, keep;
	struct slice *ring;

	if (!span_ns || span_ns == w->span_ns)
		return;
	n = slices_for(span_ns, w->slice_ns);
	if (n == o) {
		w->span_ns = span_ns;
		return;
	}
	ring = calloc(n, sizeof(*ring));
	if (!ring) {
		w->nomem++;
		return;
	}
	keep = n < o ? n : o;
	/* old slot i holds slice newest - d; the oldest fall out when shrinking */
	for (uint32_t i = 0; i < o; i++) {
		uint64_t d = (w->newest % o + o - i) % o;

		if (d > w->newest) {
			free(w->ring[i].e);
		} else if (d < keep) {
			ring[(w->newest - d) % n] = w->ring[i];
		} else {
			slice_expire(w, &w->ring[i]);
			free(w->ring[i].e);
		}
	}
	free(w->ring);
	w->ring = ring;
	w->nslices = n;
	w->span_ns = span_ns;
	w->out_dirty = 1;
	w->gen++;
}

uint64_t kt_window_span(const struct kt_window *w)
{
	return w->span_ns;
}

void kt_window_set_cumulative(struct kt_window *w, int on)
{
	w->cumulative = !!on;
	w->out_dirty = 1;
	w->gen++;
}

int kt_window_cumulative(const struct kt_window *w)
{
	return w->cumulative;
}

struct cum_key {
	const struct kt_window *w;
	const struct kt_hit *h;
};

static int cum_eq(const void *ctx, uint32_t id)
{
	const struct cum_key *k = ctx;
	const struct kt_hit *a = &k->w->cum[id], *b = k->h;

	return a->loc == b->loc && a->stack == b->stack && a->cpu == b->cpu && a->task == b->task &&
	       a->ctx == b->ctx;
}

/* Since start = the expired counts plus the rolling ones, merged into the output copy. */
static const struct kt_hit *cum_hits(struct kt_window *m, size_t *n)
{
	if (m->out_dirty || !m->out_cum) {
		uint32_t j = m->ncum;

		if (kt_grow((void **)&m->out, &m->outcap, m->ncum + m->tuplive, sizeof(*m->out)) <
		    0) {
			m->nomem++;
			*n = 0;
			return NULL;
		}
		if (m->ncum)
			memcpy(m->out, m->cum, m->ncum * sizeof(*m->out));
		for (uint32_t i = 0; i < m->ntup; i++) {
			const struct kt_hit *h = &m->tup[i].h;
			struct cum_key k = {m, h};
			uint32_t pos, id;

			if (!h->hits)
				continue;
			id = kt_idx_find(&m->cumidx,
					 hit_hash(h->loc, h->stack, h->cpu, h->task, h->ctx),
					 cum_eq, &k, &pos);
			if (id != UINT32_MAX)
				m->out[id].hits += h->hits;
			else
				m->out[j++] = *h;
		}
		m->nout = j;
		m->out_dirty = 0;
		m->out_cum = 1;
	}
	*n = m->nout;
	return m->out;
}

const struct kt_hit *kt_window_tuples(const struct kt_window *w, size_t *n, size_t *stride)
{
	if (w->cumulative) {
		*n = 0;
		return NULL;
	}
	*n = w->ntup;
	*stride = sizeof(*w->tup);
	return w->tup ? &w->tup[0].h : NULL; /* no tuple yet: no table (UBSan: no &NULL->h) */
}

const struct kt_hit *kt_window_hits(const struct kt_window *w, size_t *n)
{
	struct kt_window *m = (struct kt_window *)w; /* the dense copy is a cache */
	uint32_t j = 0;

	if (w->cumulative)
		return cum_hits(m, n);
	if (m->out_dirty || m->out_cum) {
		if (kt_grow((void **)&m->out, &m->outcap, w->tuplive, sizeof(*m->out)) < 0) {
			m->nomem++;
			*n = 0;
			return NULL;
		}
		for (uint32_t i = 0; i < w->ntup; i++)
			if (w->tup[i].h.hits)
				m->out[j++] = w->tup[i].h;
		m->nout = j;
		m->out_dirty = 0;
		m->out_cum = 0;
	}
	*n = m->nout;
	return m->out;
}

uint64_t kt_window_nomem(const struct kt_window *w)
{
	return w->nomem;
}

uint64_t kt_window_total(const struct kt_window *w)
{
	return w->cumulative ? w->base_total + w->total : w->total;
}

uint64_t kt_window_lost(const struct kt_window *w)
{
	return w->cumulative ? w->base_lost + w->lost : w->lost;
}

uint64_t kt_window_covered(const struct kt_window *w)
{
	uint64_t lo;

	if (!w->started)
		return 0;
	if (w->cumulative)
		return w->end - w->origin;
	lo = w->newest + 1 > w->nslices ? w->newest + 1 - w->nslices : 0;
	lo = w->origin + lo * w->slice_ns;
	return w->end > lo ? w->end - lo : 0;
}

const struct kt_hit *kt_window_recent(const struct kt_window *w, size_t *n, uint64_t *len_ns)
{
	struct kt_window *m = (struct kt_window *)w; /* the partial-slice copy is a cache */

	if (w->started && w->newest == 0) /* no complete slice yet: the open one so far */
		recent_from(m, &w->ring[0], w->end - w->origin);
	*n = w->nrecent;
	*len_ns = w->recent_len;
	return w->recent;
}

uint32_t kt_window_ncum(const struct kt_window *w)
{
	return w->ncum;
}

size_t kt_window_mem(const struct kt_window *w)
{
	size_t m = sizeof(*w) + (size_t)w->nslices * sizeof(*w->ring);

	for (uint32_t i = 0; i < w->nslices; i++)
		m += (size_t)w->ring[i].cap * sizeof(*w->ring[i].e);
	m += (size_t)w->tupcap * sizeof(*w->tup) + kt_idx_mem(&w->tupidx);
	m += (size_t)w->cumcap * sizeof(*w->cum) + kt_idx_mem(&w->cumidx);
	m += (size_t)w->outcap * sizeof(*w->out) + (size_t)w->recentcap * sizeof(*w->recent);
	return m + kt_window_stacks_mem(w) + kt_window_tasks_mem(w);
}

uint64_t kt_window_gen(const struct kt_window *w)
{
	return w->gen;
}

uint64_t kt_window_slice(const struct kt_window *w)
{
	return w->slice_ns;
}

uint64_t kt_window_end(const struct kt_window *w)
{
	return w->end;
}

uint32_t kt_window_slices_done(const struct kt_window *w)
{
	if (!w->started)
		return 0;
	return w->newest < w->nslices - 1 ? (uint32_t)w->newest : w->nslices - 1;
}

const struct kt_slice_hit *kt_window_slice_hits(const struct kt_window *w, uint32_t age,
						size_t *n)
{
	const struct slice *s;

	*n = 0;
	if (!age || age > kt_window_slices_done(w))
		return NULL;
	s = &w->ring[(w->newest - age) % w->nslices];
	*n = s->n;
	return s->e;
}

uint32_t kt_window_ntuples(const struct kt_window *w)
{
	return w->ntup;
}

const struct kt_hit *kt_window_tuple(const struct kt_window *w, uint32_t id)
{
	return id < w->ntup && w->tup[id].h.hits ? &w->tup[id].h : NULL;
}
