/* The rolling window: a ring of time slices, each a log of its samples (16 bytes each, appended
 * without hashing), and the narrow rolling totals by (location, context, chain or not) kept
 * incrementally: added at ingest, subtracted when a slice expires. Those answer the unfiltered
 * queries directly; a query that needs the CPU, task or stack reads the logs (kt_window_read)
 * or the full tuples, materialized from them on demand. The since-start totals are the
 * expired counts (folded in when a slice expires) plus the rolling ones. */
#include "config.h"

#include <string.h>

#include "window_impl.h"

static void slice_free(struct slice *s);

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
	w->idle_scale = !o->max_idle_tasks;
	w->idle_scale_stk = !o->max_idle_stacks;
	w->no_cum = !!o->no_since_start && !w->cumulative;
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
		slice_free(&w->ring[i]);
	free(w->ring);
	free(w->nar.t);
	kt_idx_free(&w->nar.idx);
	free(w->nars.t);
	kt_idx_free(&w->nars.idx);
	free(w->opened.id);
	free(w->last);
	free(w->sopened.id);
	free(w->slast);
	free(w->narloc);
	free(w->full.t);
	kt_idx_free(&w->full.idx);
	kt_idx_free(&w->recentidx);
	kt_window_cum_free(w);
	kt_window_since_free(w);
	free(w->out);
	free(w->recent);
	kt_window_logidx_free(w);
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

/* The entry of a key in table t, created with no hits when new; UINT32_MAX when out of memory. */
static uint32_t table_entry(struct wtable *t, uint32_t loc, uint32_t stack, uint32_t cpu,
			    uint32_t task, uint32_t ctx)
{
	struct hit_key k = {(const struct kt_hit *)t->t, sizeof(*t->t), loc, stack, cpu, task, ctx};
	uint32_t h = hit_hash(loc, stack, cpu, task, ctx), pos, id;

	id = kt_idx_find(&t->idx, h, hit_eq, &k, &pos);
	if (id != UINT32_MAX)
		return id;
	if (t->free) {
		id = t->free - 1;
		t->free = t->t[id].next;
	} else {
		if (kt_grow((void **)&t->t, &t->cap, t->n + 1, sizeof(*t->t)) < 0)
			return UINT32_MAX;
		id = t->n++;
	}
	if (kt_idx_insert(&t->idx, h, id, pos) < 0) {
		t->t[id].h.hits = 0;
		t->t[id].next = t->free;
		t->free = id + 1;
		return UINT32_MAX;
	}
	t->t[id].h = (struct kt_hit){loc, stack, cpu, task, ctx, 0};
	t->t[id].hash = h;
	t->t[id].open = 0;
	t->live++;
	return id;
}

uint32_t kt_wtable_entry(struct wtable *t, uint32_t loc, uint32_t stack, uint32_t ctx)
{
	return table_entry(t, loc, stack, 0, 0, ctx);
}

static void table_release(struct wtable *t, uint32_t id)
{
	kt_idx_remove(&t->idx, t->t[id].hash, id);
	t->t[id].h.hits = 0;
	t->t[id].next = t->free;
	t->free = id + 1;
	t->live--;
}

static void table_clear(struct wtable *t)
{
	kt_idx_clear(&t->idx);
	t->n = 0;
	t->free = 0;
	t->live = 0;
}

void kt_wtable_clear(struct wtable *t)
{
	table_clear(t);
}

/* The entry of (loc, stack, ctx) in table t (CPU and task 0): first through *slot when
 * given, which holds an entry id + 1 (the usual key of its owner), checked before use, then
 * the hash; the slot is then set to the entry. create: make it when missing. UINT32_MAX when
 * missing (or out of memory). */
static uint32_t slot_entry(struct wtable *t, uint32_t *slot, uint32_t loc, uint32_t stack,
			   uint32_t ctx, int create)
{
	uint32_t id;

	if (slot && *slot) {
		const struct kt_hit *h = &t->t[*slot - 1].h;

		if (h->hits && h->loc == loc && h->stack == stack && h->ctx == ctx)
			return *slot - 1;
	}
	if (create) {
		id = table_entry(t, loc, stack, 0, 0, ctx);
	} else {
		struct hit_key k = {(const struct kt_hit *)t->t, sizeof(*t->t), loc, stack, 0, 0,
				    ctx};
		uint32_t at;

		id = kt_idx_find(&t->idx, hit_hash(loc, stack, 0, 0, ctx), hit_eq, &k, &at);
	}
	if (id != UINT32_MAX && slot)
		*slot = id + 1;
	return id;
}

/* The narrow entry of (loc, chain or not, ctx): a chained hit's through its stack's slot (a
 * stack has one leaf and nearly always one context, where a hot leaf has a context for each
 * path into it: one slot per location missed half the time on a 256-CPU replay with
 * chains), another through the location's slot (without a chain a location has one or two
 * contexts: idle, user, unknown). */
static uint32_t narrow_entry(struct kt_window *w, uint32_t loc, uint32_t stack, uint32_t ctx,
			     int create)
{
	if (stack && stack < w->nstk)
		return slot_entry(&w->nar, &w->stk[stack].nar, loc, 1, ctx, create);
	if (loc >= w->narloccap) {
		uint32_t old = w->narloccap;

		if (kt_grow((void **)&w->narloc, &w->narloccap, loc + 1, sizeof(*w->narloc)) == 0)
			memset(w->narloc + old, 0, (w->narloccap - old) * sizeof(*w->narloc));
	}
	return slot_entry(&w->nar, loc < w->narloccap ? &w->narloc[loc] : NULL, loc, stack != 0,
			  ctx, create);
}

void kt_window_loc_prefetch(const struct kt_window *w, uint32_t loc)
{
	if (loc < w->narloccap && w->narloc[loc])
		KT_PREFETCH(&w->nar.t[w->narloc[loc] - 1]);
}

/* The entry of a chained hit's (loc, stack, ctx) in the stacks' totals, through the stack's
 * slot (a stack's first frame is its location). */
static uint32_t nars_entry(struct kt_window *w, uint32_t loc, uint32_t stack, uint32_t ctx,
			   int create)
{
	return slot_entry(&w->nars, stack < w->nstk ? &w->stk[stack].nars : NULL, loc, stack, ctx,
			  create);
}

/* Reads up to max hits of slice s from log *li, record *pos on, through log end - 1. */
static size_t slice_read(const struct slice *s, uint32_t *li, uint32_t *pos, uint32_t end,
			 struct kt_hit *buf, size_t max)
{
	size_t n = 0;

	if (end > s->nlog)
		end = s->nlog;
	while (*li < end && n < max) {
		const struct wlog *l = &s->log[*li];

		while (*pos < l->n && n < max)
			*pos += wlog_decode(l, *li, *pos, &buf[n++]);
		if (*pos < l->n)
			break;
		*pos = 0;
		++*li;
	}
	return n;
}

static void slice_free(struct slice *s)
{
	for (uint32_t i = 0; i < s->nlog; i++)
		free(s->log[i].u);
	free(s->log);
	s->log = NULL;
	s->nlog = 0;
}

/* Counts hits of entry id of table t in the open slice, listing it in o when it is the
 * entry's first. */
static void open_count(struct wtable *t, struct wopen *o, uint32_t id, uint64_t hits)
{
	struct wtuple *e = &t->t[id];

	if (!e->open) {
		if (kt_grow((void **)&o->id, &o->cap, o->n + 1, sizeof(*o->id)) < 0)
			o->lost = 1;
		else
			o->id[o->n++] = id;
	}
	e->open = hits >= UINT32_MAX - e->open ? UINT32_MAX : e->open + (uint32_t)hits;
}

/* The open slice's counts of t start again from zero without a table of them: when not
 * every entry was listed, every live one is cleared (a live entry has hits). */
static void open_drop(struct wtable *t, struct wopen *o)
{
	if (o->lost)
		for (uint32_t i = 0; i < t->n; i++)
			if (t->t[i].h.hits)
				t->t[i].open = 0;
	for (uint32_t i = 0; !o->lost && i < o->n; i++)
		t->t[o->id[i]].open = 0;
	o->lost = 0;
	o->n = 0;
}

/* The open slice (number no) completes: the stacks' entries' open counts become its table
 * of chained hits, and start again from zero. */
static void stacks_close(struct kt_window *w, uint64_t no)
{
	struct wopen *o = &w->sopened;

	w->slast_no = 0;
	w->nslast = 0;
	if (o->lost || no < w->snars_from ||
	    kt_grow((void **)&w->slast, &w->slastcap, o->n, sizeof(*w->slast)) < 0) {
		open_drop(&w->nars, o);
		return;
	}
	for (uint32_t i = 0; i < o->n; i++) {
		struct wtuple *e = &w->nars.t[o->id[i]];

		w->slast[i] = (struct kt_window_stkent){e->h.loc, e->h.stack, e->h.ctx, e->open};
		e->open = 0;
	}
	w->nslast = o->n;
	w->slast_no = no + 1;
	o->n = 0;
}

int kt_window_slice_stacks(const struct kt_window *w, uint64_t slice,
			   const struct kt_window_stkent **out, uint32_t *n)
{
	*out = NULL;
	*n = 0;
	if (!w->slast_no || w->slast_no != slice + 1)
		return -ENOENT;
	*out = w->slast;
	*n = w->nslast;
	return 0;
}

/* The open slice (number no) completes: its narrow entries' open counts become the last
 * complete slice's table, and start again from zero. */
static void narrow_close(struct kt_window *w, uint64_t no)
{
	struct wopen *o = &w->opened;

	w->last_no = 0;
	w->nlast = 0;
	if (o->lost || kt_grow((void **)&w->last, &w->lastcap, o->n, sizeof(*w->last)) < 0) {
		open_drop(&w->nar, o);
		return;
	}
	for (uint32_t i = 0; i < o->n; i++) {
		struct wtuple *e = &w->nar.t[o->id[i]];

		w->last[i] = (struct kt_window_locent){e->h.loc, e->open, e->h.ctx, e->h.stack};
		e->open = 0;
	}
	w->nlast = o->n;
	w->last_no = no + 1;
	o->n = 0;
}

const struct kt_window_locent *kt_window_slice_locs(const struct kt_window *w, uint64_t slice,
						    uint32_t *n)
{
	*n = 0;
	if (!w->last_no || w->last_no != slice + 1)
		return NULL;
	*n = w->nlast;
	return w->last;
}

/* Folds an expiring slice into the since-start totals and takes its samples off the narrow
 * rolling totals and the references of their tasks and stacks. */
static void slice_expire(struct kt_window *w, struct slice *s)
{
	uint32_t li = 0, pos = 0;
	struct kt_hit buf[16];
	size_t n;

	w->expiring = ++w->stamp;
	kt_window_addr_flush(w); /* the exact-address log waits at most a slice */
	if (!w->no_cum)
		kt_window_cum_fold(w, s); /* first: its stacks stay referenced throughout */
	while ((n = slice_read(s, &li, &pos, UINT32_MAX, buf, sizeof(buf) / sizeof(buf[0])))) {
		/* a few records at a time: their entries are fetched together (see ingest) */
		for (size_t i = 0; i < n; i++) {
			if (buf[i].stack && buf[i].stack < w->nstk)
				KT_PREFETCH(&w->stk[buf[i].stack]); /* its slots, its references */
			else
				kt_window_loc_prefetch(w, buf[i].loc);
			if (buf[i].task < w->ntask)
				KT_PREFETCH(&w->task[buf[i].task]);
		}
		if (w->on_expire && s->no)
			w->on_expire(w->on_expire_ctx, s->no - 1, buf, n);
		for (size_t i = 0; i < n; i++) {
			const struct kt_hit *h = &buf[i];
			uint32_t id;

			id = narrow_entry(w, h->loc, h->stack, h->ctx, 0);
			if (id != UINT32_MAX) {
				w->nar.t[id].h.hits -= h->hits;
				if (!w->nar.t[id].h.hits)
					table_release(&w->nar, id);
			}
			if (h->stack && w->nars_on &&
			    (id = nars_entry(w, h->loc, h->stack, h->ctx, 0)) != UINT32_MAX) {
				w->nars.t[id].h.hits -= h->hits;
				if (!w->nars.t[id].h.hits)
					table_release(&w->nars, id);
			}
			kt_window_stack_unref(w, h->stack, 1);
			kt_window_task_unref(w, h->task);
		}
	}
	if (w->on_expire && s->no)
		w->on_expire(w->on_expire_ctx, s->no - 1, NULL, 0);
	w->expiring = 0;
	w->total -= s->hits;
	w->lost -= s->lost;
	w->base_lost += s->lost;
	for (uint32_t i = 0; i < s->nlog; i++)
		s->log[i].n = 0;
	s->hits = 0;
	s->lost = 0;
	s->no = 0;
	w->out_dirty = 1;
	w->gen++;
}

/* Aggregates slice s into the recent copy: the recent rate survives the slice's own expiry. */
static void recent_from(struct kt_window *w, const struct slice *s, uint64_t len)
{
	struct hit_key k = {NULL, sizeof(*w->recent), 0, 0, 0, 0, 0};

	w->nrecent = 0;
	w->recent_len = len;
	w->recent_slice = 0;
	kt_idx_clear(&w->recentidx);
	for (uint32_t li = 0, at = 0;;) {
		struct kt_hit h;
		uint32_t hash, pos, id;

		if (!slice_read(s, &li, &at, UINT32_MAX, &h, 1))
			break;
		k.base = w->recent;
		k.loc = h.loc;
		k.stack = h.stack;
		k.cpu = h.cpu;
		k.task = h.task;
		k.ctx = h.ctx;
		hash = hit_hash(h.loc, h.stack, h.cpu, h.task, h.ctx);
		id = kt_idx_find(&w->recentidx, hash, hit_eq, &k, &pos);
		if (id != UINT32_MAX) {
			w->recent[id].hits += h.hits;
			continue;
		}
		if (kt_grow((void **)&w->recent, &w->recentcap, w->nrecent + 1,
			    sizeof(*w->recent)) < 0 ||
		    kt_idx_insert(&w->recentidx, hash, w->nrecent, pos) < 0) {
			w->nomem++;
			return;
		}
		w->recent[w->nrecent++] = h;
	}
}

/* Makes the recent copy of the newest complete slice if it is still to be made. */
static void recent_now(struct kt_window *w)
{
	if (w->recent_slice)
		recent_from(w, &w->ring[(w->recent_slice - 1) % w->nslices], w->slice_ns);
}

/* Moves the newest slice to number k, expiring what falls out of the span. */
static void rotate_to(struct kt_window *w, uint64_t k)
{
	uint64_t from = w->newest;

	if (k <= from)
		return;
	narrow_close(w, from); /* before anything expires: a one-slice window expires it */
	if (w->nars_on)
		stacks_close(w, from);
	if (k == from + 1 && w->nslices > 1) {
		w->recent_slice = from + 1; /* made when asked for (kt_window_recent) */
	} else if (k == from + 1) {
		recent_from(w, &w->ring[from % w->nslices], w->slice_ns);
	} else {
		w->nrecent = 0; /* the newest complete slice is empty */
		w->recent_len = w->slice_ns;
		w->recent_slice = 0;
	}
	if (k - from >= w->nslices) {
		for (uint32_t i = 0; i < w->nslices; i++)
			slice_expire(w, &w->ring[i]);
	} else {
		for (uint64_t j = from + 1; j <= k; j++)
			slice_expire(w, &w->ring[j % w->nslices]);
	}
	w->newest = k;
	/* samples go to the newest slice only, so only it needs its number (for the expire
	 * hook); the slices skipped on the way stay empty */
	w->ring[k % w->nslices].no = k + 1;
	kt_window_retire_caps(w);
	if (w->on_move)
		w->on_move(w->on_move_ctx);
}

static void start_at(struct kt_window *w, uint64_t t)
{
	w->started = 1;
	w->origin = t;
	w->end = t;
	w->newest = 0;
	w->ring[0].no = 1;
}

void kt_window_set_expire_hook(struct kt_window *w, kt_window_expire_fn fn, void *ctx)
{
	w->on_expire = fn;
	w->on_expire_ctx = ctx;
}

void kt_window_set_move_hook(struct kt_window *w, kt_window_move_fn fn, void *ctx)
{
	w->on_move = fn;
	w->on_move_ctx = ctx;
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
	struct wlog *l;
	struct kt_hit h = {loc, stack, cpu, task, ctx, count};
	uint32_t id, sid = 0, nrec, li, *slot = NULL;
	int wide;

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
	s = &w->ring[w->newest % w->nslices];
	li = cpu < WLOG_CPUS ? cpu + 1 : 0;
	wide = count != 1 || !li || ctx >= WREC_WIDE;
	if (stack >= 1u << 31) {
		w->nomem++; /* cannot happen: 2^31 stacks would not fit in memory */
		return;
	}
	nrec = wlog_units(li, &h, wide);
	if (li >= s->nlog) {
		uint32_t old = s->nlog;

		if (kt_grow((void **)&s->log, &s->nlog, li + 1, sizeof(*s->log)) < 0) {
			w->nomem++; /* the hit is dropped, totals stay consistent; the caller is told */
			return;
		}
		memset(s->log + old, 0, (s->nlog - old) * sizeof(*s->log));
		if (s->nlog > w->nlog)
			w->nlog = s->nlog;
	}
	l = &s->log[li];
	if (kt_grow((void **)&l->u, &l->cap, l->n + nrec, sizeof(*l->u)) < 0) {
		w->nomem++;
		return;
	}
	id = narrow_entry(w, loc, stack, ctx, 1);
	if (id == UINT32_MAX ||
	    (stack && w->nars_on && (sid = nars_entry(w, loc, stack, ctx, 1)) == UINT32_MAX)) {
		w->nomem++;
		return;
	}
	if (stack && w->nars_on) {
		w->nars.t[sid].h.hits += count;
		open_count(&w->nars, &w->sopened, sid, count);
	}
	if (!wide) {
		struct kt_hit k = {.loc = loc, .stack = stack, .task = task, .ctx = ctx};

		if (kt_window_log_merge(w, l, li, &k, &slot)) {
			w->nar.t[id].h.hits++;
			open_count(&w->nar, &w->opened, id, 1);
			goto counted; /* its record holds the stack and the task already */
		}
	}
	w->nar.t[id].h.hits += count;
	open_count(&w->nar, &w->opened, id, count);
	l->n += wlog_encode(&l->u[l->n], li, &h, wide);
	if (slot)
		kt_window_log_added(w, l, li, slot, l->n - nrec);
	kt_window_stack_ref(w, stack, 1);
	kt_window_task_ref(w, task);
counted:
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
	recent_now(w); /* the slice it is made of may move or expire */
	keep = n < o ? n : o;
	/* old slot i holds slice newest - d; the oldest fall out when shrinking */
	for (uint32_t i = 0; i < o; i++) {
		uint64_t d = (w->newest % o + o - i) % o;

		if (d > w->newest) {
			slice_free(&w->ring[i]);
		} else if (d < keep) {
			ring[(w->newest - d) % n] = w->ring[i];
		} else {
			slice_expire(w, &w->ring[i]);
			slice_free(&w->ring[i]);
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

/* Every record of the rolling window aggregated into the full tuples (once per generation). */
static const struct kt_hit *full_tuples(struct kt_window *m, size_t *n, size_t *stride)
{
	*stride = sizeof(*m->full.t);
	if (m->full_gen != m->gen + 1) {
		struct kt_window_cursor c;
		struct kt_hit buf[512];
		size_t k;

		/* in time order, as kt_window_read gives them: rows first seen in the same order */
		table_clear(&m->full);
		kt_window_cursor_rolling(m, &c);
		while ((k = kt_window_read(m, &c, buf, sizeof(buf) / sizeof(buf[0])))) {
			for (size_t i = 0; i < k; i++) {
				uint32_t id = table_entry(&m->full, buf[i].loc, buf[i].stack,
							  buf[i].cpu, buf[i].task, buf[i].ctx);

				if (id == UINT32_MAX) {
					m->nomem++;
					continue;
				}
				m->full.t[id].h.hits += buf[i].hits;
			}
		}
		m->full_gen = m->gen + 1;
	}
	*n = m->full.n;
	return m->full.t ? &m->full.t[0].h : NULL;
}

/* Since start = the expired counts plus the rolling ones, merged into the output copy. */
static const struct kt_hit *cum_hits(struct kt_window *m, size_t *n)
{
	if (m->out_dirty || !m->out_cum) {
		size_t nt, stride;
		const struct kt_hit *t = full_tuples(m, &nt, &stride);

		if (kt_grow((void **)&m->out, &m->outcap, m->ncum + m->full.live, sizeof(*m->out)) <
		    0) {
			m->nomem++;
			*n = 0;
			return NULL;
		}
		m->nout = (uint32_t)kt_window_cum_merge(m, m->out, t, nt, stride);
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
	return full_tuples((struct kt_window *)w, n, stride); /* a cache */
}

const struct kt_hit *kt_window_narrow(const struct kt_window *w, size_t *n, size_t *stride)
{
	*n = 0;
	if (w->cumulative) /* a cache: made once per generation */
		return kt_window_since_narrow((struct kt_window *)w, n, stride);
	*n = w->nar.n;
	*stride = sizeof(*w->nar.t);
	return w->nar.t ? &w->nar.t[0].h : NULL;
}

int kt_window_narrow_stacks(const struct kt_window *w, const struct kt_hit **out, size_t *n,
			    size_t *stride)
{
	struct kt_window *m = (struct kt_window *)w; /* made once, then kept: a cache */

	*out = NULL;
	*n = 0;
	*stride = sizeof(*w->nars.t);
	if (w->cumulative)
		return -EINVAL;
	if (!w->nars_on) {
		struct kt_window_cursor c;
		struct kt_hit buf[512];
		size_t k;

		table_clear(&m->nars);
		kt_window_cursor_rolling(m, &c);
		while ((k = kt_window_read(m, &c, buf, sizeof(buf) / sizeof(buf[0]))))
			for (size_t i = 0; i < k; i++) {
				uint32_t id;

				if (!buf[i].stack)
					continue;
				id = nars_entry(m, buf[i].loc, buf[i].stack, buf[i].ctx, 1);
				if (id == UINT32_MAX) {
					table_clear(&m->nars);
					return -ENOMEM;
				}
				m->nars.t[id].h.hits += buf[i].hits;
			}
		m->nars_on = 1;
		/* the open slice's hits so far are not in the open counts */
		m->snars_from = m->started ? m->newest + 1 : 0;
		m->sopened.n = 0;
	}
	*n = w->nars.n;
	*out = w->nars.t ? &w->nars.t[0].h : NULL;
	return 0;
}

void kt_window_keep_stacks(struct kt_window *w)
{
	const struct kt_hit *h;
	size_t n, stride;

	/* cumulative, or no memory: they are made when first asked, as without the word */
	(void)kt_window_narrow_stacks(w, &h, &n, &stride);
}

const struct kt_hit *kt_window_hits(const struct kt_window *w, size_t *n)
{
	struct kt_window *m = (struct kt_window *)w; /* the dense copy is a cache */
	uint32_t j = 0;

	if (w->cumulative)
		return cum_hits(m, n);
	if (m->out_dirty || m->out_cum) {
		size_t nt, stride;
		const struct kt_hit *t = full_tuples(m, &nt, &stride);

		if (kt_grow((void **)&m->out, &m->outcap, m->full.live, sizeof(*m->out)) < 0) {
			m->nomem++;
			*n = 0;
			return NULL;
		}
		for (size_t i = 0; i < nt; i++) {
			const struct kt_hit *h = (const void *)((const char *)t + i * stride);

			if (h->hits)
				m->out[j++] = *h;
		}
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
	else
		recent_now(m);
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

	for (uint32_t i = 0; i < w->nslices; i++) {
		m += (size_t)w->ring[i].nlog * sizeof(*w->ring[i].log);
		for (uint32_t j = 0; j < w->ring[i].nlog; j++)
			m += (size_t)w->ring[i].log[j].cap * sizeof(*w->ring[i].log[j].u);
	}
	m += (size_t)w->nar.cap * sizeof(*w->nar.t) + kt_idx_mem(&w->nar.idx) +
	     (size_t)w->narloccap * sizeof(*w->narloc) +
	     (size_t)w->opened.cap * sizeof(*w->opened.id) + (size_t)w->lastcap * sizeof(*w->last);
	m += (size_t)w->nars.cap * sizeof(*w->nars.t) + kt_idx_mem(&w->nars.idx) +
	     (size_t)w->sopened.cap * sizeof(*w->sopened.id) +
	     (size_t)w->slastcap * sizeof(*w->slast);
	m += (size_t)w->full.cap * sizeof(*w->full.t) + kt_idx_mem(&w->full.idx);
	m += kt_window_cum_mem(w) + kt_window_since_mem(w);
	m += (size_t)w->outcap * sizeof(*w->out) + (size_t)w->recentcap * sizeof(*w->recent) +
	     kt_idx_mem(&w->recentidx) + kt_window_logidx_mem(w);
	return m + kt_window_stacks_mem(w) + kt_window_tasks_mem(w) + kt_window_addr_mem(w);
}

uint64_t kt_window_gen(const struct kt_window *w)
{
	return w->gen;
}

uint64_t kt_window_slice(const struct kt_window *w)
{
	return w->slice_ns;
}

int kt_window_slice_phase(const struct kt_window *w, uint64_t t, uint64_t *phase)
{
	if (!w->started || !w->slice_ns)
		return -1;
	*phase = t >= w->origin ? (t - w->origin) % w->slice_ns
				: w->slice_ns - 1 - (w->origin - t - 1) % w->slice_ns;
	return 0;
}

uint64_t kt_window_end(const struct kt_window *w)
{
	return w->end;
}

uint64_t kt_window_newest(const struct kt_window *w)
{
	return w->newest;
}

uint32_t kt_window_slices_done(const struct kt_window *w)
{
	if (!w->started)
		return 0;
	return w->newest < w->nslices - 1 ? (uint32_t)w->newest : w->nslices - 1;
}

void kt_window_cursor_rolling(const struct kt_window *w, struct kt_window_cursor *c)
{
	*c = (struct kt_window_cursor){0};
	c->slice = w->newest + 1 > w->nslices ? w->newest + 1 - w->nslices : 0;
	c->last = w->started ? w->newest : 0;
	c->log_end = UINT32_MAX;
	c->done = !w->started;
}

void kt_window_cursor_slice(const struct kt_window *w, uint32_t age, struct kt_window_cursor *c)
{
	*c = (struct kt_window_cursor){0};
	c->log_end = UINT32_MAX;
	c->done = !age || age > kt_window_slices_done(w);
	c->slice = c->last = c->done ? 0 : w->newest - age;
}

int kt_window_cursor_recent(const struct kt_window *w, struct kt_window_cursor *c,
			    uint64_t *len_ns)
{
	*c = (struct kt_window_cursor){0};
	c->log_end = UINT32_MAX;
	if (w->started && w->newest == 0) {
		*len_ns = w->end - w->origin;
		return 0;
	}
	if (!w->recent_slice)
		return -1;
	c->slice = c->last = w->recent_slice - 1;
	*len_ns = w->slice_ns;
	return 0;
}

uint32_t kt_window_logs(const struct kt_window *w)
{
	return w->nlog;
}

void kt_window_cursor_log(struct kt_window_cursor *c, uint32_t log)
{
	c->log = c->log_first = log;
	c->log_end = log + 1;
	c->pos = 0;
}

size_t kt_window_read(const struct kt_window *w, struct kt_window_cursor *c, struct kt_hit *buf,
		      size_t max)
{
	size_t n = 0;

	while (!c->done && n < max) {
		const struct slice *s = &w->ring[c->slice % w->nslices];
		uint32_t end = c->log_end < s->nlog ? c->log_end : s->nlog;

		n += slice_read(s, &c->log, &c->pos, end, buf + n, max - n);
		if (c->log < end)
			break; /* buf is full */
		c->log = c->log_first;
		c->pos = 0;
		if (c->slice++ == c->last)
			c->done = 1;
	}
	return n;
}
