/* The aggregator's flat views: modules, functions, top functions, lines, CPUs, tasks (the
 * summary figures are agg_summary.c's, the rows' order agg_sort.c's). Each query walks the
 * window's tuples once, groups them through a hash index, then derives columns, filters by
 * text, sorts and cuts. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "agg_impl.h"
#include "kerntop/util.h"

/* The window's move hook: a slice completed. What the aggregator keeps between refreshes
 * takes it in now, as the samples come, rather than at the next query. */
static void agg_moved(void *ctx)
{
	struct kt_agg *a = ctx;

	kt_agg_cputop_moved(a);
	kt_agg_stacks_moved(a);
}

int kt_agg_new(struct kt_window *w, struct kt_symbols *s, const struct kt_agg_params *p,
	       struct kt_agg **out)
{
	struct kt_agg *a;

	*out = NULL;
	if (!w || !s || !p)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->w = w;
	a->s = s;
	a->p = *p;
	a->project = 1;
	if (a->p.ncpus == 0)
		a->p.ncpus = 1;
	if (a->p.max_cpu < a->p.ncpus)
		a->p.max_cpu = a->p.ncpus;
	kt_window_set_move_hook(w, agg_moved, a);
	*out = a;
	return 0;
}

void kt_agg_free(struct kt_agg *a)
{
	if (!a)
		return;
	kt_window_set_move_hook(a->w, NULL, NULL);
	free(a->li);
	free(a->lkey);
	kt_idx_free(&a->funcrep);
	free(a->seenfunc);
	kt_idx_free(&a->g.idx);
	free(a->g.key);
	free(a->g.recent);
	kt_agg_tree_free(a);
	free(a->own);
	free(a->ownrec);
	kt_agg_proj_free(a);
	kt_agg_rollup_free(a);
	free(a->locrow);
	kt_agg_trend_free(a);
	kt_agg_cputop_free(a);
	kt_baseline_free(a->base);
	free(a);
}

void kt_agg_set_irq_owner(struct kt_agg *a, int on)
{
	a->irq_owner = !!on;
}

int kt_agg_irq_owner(const struct kt_agg *a)
{
	return a->irq_owner;
}

struct kt_symbols *kt_agg_symbols(const struct kt_agg *a)
{
	return a->s;
}

struct kt_window *kt_agg_window(const struct kt_agg *a)
{
	return a->w;
}

const struct kt_agg_params *kt_agg_params(const struct kt_agg *a)
{
	return &a->p;
}

void kt_filter_all(struct kt_filter *f)
{
	f->cpu = KT_ANY;
	f->cpuset = NULL;
	f->task = KT_ANY;
	f->module = KT_ANY;
	f->text = NULL;
	f->hide_idle = 0;
	f->ctx = KT_ANY;
}

const char *kt_view_name(enum kt_view v)
{
	static const char *const names[] = {
	    [KT_VIEW_MODULES] = "modules",
	    [KT_VIEW_FUNCS] = "functions",
	    [KT_VIEW_TOPFUNCS] = "top functions",
	    [KT_VIEW_LINES] = "lines",
	    [KT_VIEW_CPUS] = "cpus",
	    [KT_VIEW_TASKS] = "tasks",
	    [KT_VIEW_CALLERS] = "callers",
	    [KT_VIEW_CALLEES] = "callees",
	    [KT_VIEW_STACKS] = "stacks",
	    [KT_VIEW_CONTEXTS] = "contexts",
	};

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

struct rep_key {
	const struct locinfo *li;
	uint32_t func;
};

static int rep_eq(const void *ctx, uint32_t id)
{
	const struct rep_key *k = ctx;

	return k->li[id].func == k->func;
}

/* The representative of location i (locinfo rep): its function's first location when that
 * one's fields are the same, else itself. Sets c->fseen. */
static uint32_t loc_rep(struct kt_agg *a, uint32_t i, struct locinfo *c)
{
	struct rep_key k = {a->li, c->func};
	uint32_t h = kt_hash64(c->func), pos, r = kt_idx_find(&a->funcrep, h, rep_eq, &k, &pos);
	const struct locinfo *f;

	if (r == UINT32_MAX) {
		/* out of memory: i is its own rep, and a query reading fseen declines */
		c->fseen = UINT32_MAX;
		if (kt_grow((void **)&a->seenfunc, &a->seencap, a->nseen + 1,
			    sizeof(*a->seenfunc)) < 0 ||
		    kt_idx_insert(&a->funcrep, h, i, pos) < 0)
			return i;
		a->seenfunc[a->nseen] = c->func;
		c->fseen = a->nseen++;
		return i;
	}
	f = &a->li[r];
	c->fseen = f->fseen;
	return f->module == c->module && f->realmod == c->realmod && f->idle == c->idle &&
		       f->user == c->user && f->helper == c->helper
		   ? r
		   : i;
}

/* Extends the per-location cache to every location the symbolizer has interned. */
const struct locinfo *kt_agg_loc(struct kt_agg *a, uint32_t loc)
{
	static const struct locinfo unknown = {0, KT_MOD_UNKNOWN, KT_MOD_UNKNOWN, 0, 0,
					       0, UINT32_MAX, UINT32_MAX};

	if (loc >= a->nli) {
		uint32_t n = kt_sym_nlocs(a->s);

		if (loc >= n)
			return &unknown;
		uint32_t nf = kt_sym_nfuncs(a->s), nm = kt_sym_nmodules(a->s);

		if (kt_grow((void **)&a->li, &a->licap, n, sizeof(*a->li)) < 0 ||
		    kt_grow((void **)&a->lkey, &a->lkeycap, n, sizeof(*a->lkey)) < 0) {
			a->nomem++; /* a query in progress fails rather than count it as unknown */
			return &unknown;
		}
		for (uint32_t i = a->nli; i < n; i++) {
			const struct kt_sym_loc *l = kt_sym_loc(a->s, i);
			struct locinfo *c = &a->li[i];

			c->func = l->func;
			c->realmod = l->module;
			c->user = l->module == KT_MOD_USER || i == KT_LOC_USER;
			c->idle = l->idle && !c->user;
			c->module = c->idle ? KT_AGG_IDLE_MODULE : l->module;
			c->helper = !c->user && kt_sym_irq_helper(a->s, l->func);
			c->rep = loc_rep(a, i, c);
			a->lkey[i] = (uint64_t)c->fseen << 32 | kt_agg_loc_class(c);
			if (kt_agg_loc_keyed(c, nf, nm) && c->module < 1u << 29)
				a->lkey[i] |= KT_LKEY_KEYED | (uint64_t)c->module << 3;
		}
		a->nli = n;
	}
	return &a->li[loc];
}

int kt_agg_module_match(uint32_t want, const struct locinfo *li)
{
	return want == KT_ANY || li->module == want || (want == li->realmod && !li->idle);
}

int kt_agg_pass(const struct kt_agg *a, const struct kt_filter *f, const struct kt_hit *h,
		const struct locinfo *li)
{
	if (f->cpu != KT_ANY && h->cpu != f->cpu)
		return 0;
	if (f->cpuset && (h->cpu >= a->p.max_cpu || !kt_cpuset_has(f->cpuset, h->cpu)))
		return 0;
	if (f->task != KT_ANY && h->task != f->task)
		return 0;
	if (f->ctx != KT_ANY && h->ctx != f->ctx)
		return 0;
	if (f->hide_idle && li->idle)
		return 0;
	return kt_agg_module_match(f->module, li);
}

/* --- --irq-owner --- */

/* The location a helper hit is charged to: the first frame of its chain outside the
 * helpers; the hit's own location when there is no such frame. */
uint32_t kt_agg_owner_loc(struct kt_agg *a, const struct kt_hit *h)
{
	uint32_t n;
	const uint32_t *fr = kt_window_stack_frames(a->w, h->stack, &n);

	for (uint32_t i = 0; i < n; i++)
		if (!kt_agg_loc(a, fr[i])->helper)
			return fr[i];
	return h->loc;
}

static const struct kt_hit *owner_copy(struct kt_agg *a, const struct kt_hit *h, size_t n,
				       struct kt_hit **buf, uint32_t *cap)
{
	if (!a->irq_owner || !n)
		return h;
	if (kt_grow((void **)buf, cap, (uint32_t)n, sizeof(**buf)) < 0) {
		a->nomem++; /* raw counts rather than none, and the query fails */
		return h;
	}
	for (size_t i = 0; i < n; i++) {
		(*buf)[i] = h[i];
		if (h[i].stack && kt_agg_loc(a, h[i].loc)->helper)
			(*buf)[i].loc = kt_agg_owner_loc(a, &h[i]);
	}
	return *buf;
}

const struct kt_hit *kt_agg_hits(struct kt_agg *a, size_t *n)
{
	const struct kt_hit *h = kt_window_hits(a->w, n);

	return owner_copy(a, h, *n, &a->own, &a->owncap);
}

const struct kt_hit *kt_agg_recent(struct kt_agg *a, size_t *n, uint64_t *len_ns)
{
	const struct kt_hit *h = kt_window_recent(a->w, n, len_ns);

	return owner_copy(a, h, *n, &a->ownrec, &a->ownreccap);
}

/* --- derived columns --- */

void kt_agg_derive(const struct kt_agg *a, const struct kt_query *q, struct kt_result *r,
		   struct kt_row *row, uint64_t recent_hits)
{
	const struct rpriv *p = r->priv;
	double hits = (double)row->hits;

	row->ms = hits * a->p.ms_per_hit;
	row->pct_kernel = p->denom ? hits / (double)p->denom * 100.0 : 0;
	row->pct_machine = p->capacity > 0 ? hits / p->capacity * 100.0 : 0;
	row->per_s = r->sum.covered_s > 0 ? hits / r->sum.covered_s : 0;
	row->recent_per_s = p->recent_s > 0 ? (double)recent_hits / p->recent_s : 0;
}

/* --- grouping --- */

struct gkey_ctx {
	const struct group *g;
	uint64_t k0, k1;
};

static int gkey_eq(const void *ctx, uint32_t id)
{
	const struct gkey_ctx *c = ctx;

	return c->g->key[id][0] == c->k0 && c->g->key[id][1] == c->k1;
}

/* The row of a group key, created when absent (NULL on allocation failure). */
struct kt_row *kt_agg_group_row(struct kt_agg *a, struct kt_result *r, uint64_t k0, uint64_t k1,
				uint32_t *rowi, int create)
{
	struct group *g = &a->g;
	struct gkey_ctx c = {g, k0, k1};
	uint32_t h = kt_hash64(k0 * 0x9e3779b97f4a7c15ull ^ k1), pos, id;

	id = kt_idx_find(&g->idx, h, gkey_eq, &c, &pos);
	if (id != UINT32_MAX) {
		*rowi = id;
		return &r->rows[id];
	}
	if (!create)
		return NULL;
	id = (uint32_t)r->nrows;
	if (kt_grow((void **)&g->key, &g->keycap, id + 1, sizeof(*g->key)) < 0 ||
	    kt_grow((void **)&g->recent, &g->recentcap, id + 1, sizeof(*g->recent)) < 0 ||
	    !kt_agg_row_new(r))
		return NULL;
	if (kt_idx_insert(&g->idx, h, id, pos) < 0) {
		r->nrows--;
		return NULL;
	}
	g->key[id][0] = k0;
	g->key[id][1] = k1;
	g->recent[id] = 0;
	*rowi = id;
	return &r->rows[id];
}

/* The group of a hit for flat view q; 0 when the hit is not part of the view. */
static int group_of(struct kt_agg *a, const struct kt_query *q, const struct kt_hit *h,
		    const struct locinfo *li, uint64_t *k0, uint64_t *k1)
{
	*k1 = 0;
	switch (q->view) {
	case KT_VIEW_MODULES:
		*k0 = li->module;
		return 1;
	case KT_VIEW_FUNCS:
		if (li->module != q->module)
			return 0;
		*k0 = li->func;
		return 1;
	case KT_VIEW_TOPFUNCS:
		*k0 = li->func;
		return 1;
	case KT_VIEW_CPUS:
		*k0 = h->cpu;
		return 1;
	case KT_VIEW_TASKS:
		*k0 = h->task;
		return 1;
	case KT_VIEW_CONTEXTS:
		*k0 = h->ctx;
		return 1;
	case KT_VIEW_LINES: {
		const struct kt_sym_loc *l;
		const struct kt_sym_func *fn;
		const struct kt_sym_module *m;
		const char *file;
		int line;
		uint32_t b;

		if (li->func != q->func)
			return 0;
		l = kt_sym_loc(a->s, h->loc);
		fn = kt_sym_func(a->s, li->func);
		m = fn ? kt_sym_module(a->s, fn->module) : NULL;
		if (!l || !fn)
			return 0;
		if (m && m->has_lines && kt_sym_srcline(a->s, l->addr, &file, &line) == 0) {
			*k0 = (uint64_t)(uintptr_t)file;
			*k1 = (uint64_t)(uint32_t)line | 1ull << 32;
			return 1;
		}
		b = kt_sym_bucket(a->s);
		if (!b)
			b = 64;
		*k0 = l->addr >= fn->start ? (l->addr - fn->start) / b * b : 0;
		*k1 = 0;
		return 1;
	}
	default:
		return 0;
	}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

const char *kt_agg_module_name(const struct kt_agg *a, uint32_t module)
{
	const struct kt_sym_module *m;

	if (module == KT_AGG_IDLE_MODULE)
		return "[idle]";
	m = kt_sym_module(a->s, module);
	return m && m->name ? m->name : "[unknown]";
}

const char *kt_agg_func_name(const struct kt_agg *a, uint32_t func)
{
	const struct kt_sym_func *f = kt_sym_func(a->s, func);

	return f && f->name ? f->name : "[unknown]";
}

/* Names a flat row from its group key; the strings live in the symbolizer or the pool. */
static void name_row(struct kt_agg *a, const struct kt_query *q, struct kt_result *r,
		     struct kt_row *row, uint64_t k0, uint64_t k1)
{
	char buf[256];

	switch (q->view) {
	case KT_VIEW_MODULES:
		row->id = (uint32_t)k0;
		row->name = kt_agg_module_name(a, row->id);
		row->idle = row->id == KT_AGG_IDLE_MODULE;
		break;
	case KT_VIEW_FUNCS:
	case KT_VIEW_TOPFUNCS: {
		const struct kt_sym_func *f = kt_sym_func(a->s, (uint32_t)k0);

		row->id = (uint32_t)k0;
		row->name = kt_agg_func_name(a, row->id);
		row->module = f ? kt_agg_module_name(a, f->module) : NULL;
		row->idle = f && f->idle && f->module != KT_MOD_USER;
		row->addr = f ? f->start : 0;
		row->irq_helper = f && f->module != KT_MOD_USER && kt_sym_irq_helper(a->s, row->id);
		break;
	}
	case KT_VIEW_CONTEXTS: {
		const struct kt_sym_ctx *c = kt_sym_ctx(a->s, (uint32_t)k0);

		row->id = (uint32_t)k0;
		row->name = c ? c->label : "unknown";
		row->ctx_kind = c ? c->kind : KT_CTX_UNKNOWN;
		row->idle = row->ctx_kind == KT_CTX_IDLE;
		break;
	}
	case KT_VIEW_LINES: {
		const struct kt_sym_func *f = kt_sym_func(a->s, q->func);

		row->id = q->func;
		row->module = f ? kt_agg_module_name(a, f->module) : NULL;
		row->idle = f && f->idle;
		if (k1) {
			snprintf(buf, sizeof(buf), "%s:%u", base_name((const char *)(uintptr_t)k0),
				 (uint32_t)k1);
		} else if (f && f->bucket && !k0) { /* a bucket is its own only bucket */
			snprintf(buf, sizeof(buf), "%s", kt_agg_func_name(a, q->func));
			row->addr = f->start;
		} else {
			snprintf(buf, sizeof(buf), "%s+0x%llx", kt_agg_func_name(a, q->func),
				 (unsigned long long)k0);
			row->addr = (f ? f->start : 0) + k0;
		}
		row->name = kt_agg_strdup(r, buf);
		break;
	}
	case KT_VIEW_CPUS:
		row->id = (uint32_t)k0;
		snprintf(buf, sizeof(buf), "cpu%u", row->id);
		row->name = kt_agg_strdup(r, buf);
		break;
	case KT_VIEW_TASKS: {
		const struct kt_task *t = kt_window_task_info(a->w, (uint32_t)k0);

		row->id = (uint32_t)k0;
		row->pid = t ? t->pid : -1;
		row->tid = t && t->pid >= 0 ? t->tid : -1; /* a group of merged tasks: -1 */
		if (t && t->comm[0]) {
			row->name = t->comm;
		} else {
			snprintf(buf, sizeof(buf), "[%d]", row->tid);
			row->name = kt_agg_strdup(r, buf);
		}
		break;
	}
	default:
		break;
	}
}

uint32_t kt_agg_row_of(struct kt_agg *a, const struct kt_query *q, struct kt_result *r,
		       const struct kt_hit *h)
{
	const struct locinfo *li = kt_agg_loc(a, h->loc);
	uint64_t k0, k1;
	uint32_t ri;

	if (!kt_agg_pass(a, &q->filter, h, li) || !group_of(a, q, h, li, &k0, &k1) ||
	    !kt_agg_group_row(a, r, k0, k1, &ri, 0))
		return UINT32_MAX;
	return ri;
}

/* --- the flat query --- */

static int flat_query(struct kt_agg *a, const struct kt_query *q, struct kt_result *r)
{
	struct rpriv *p = r->priv;
	size_t n, rn;
	unsigned dims = kt_agg_filter_needs(&q->filter) | (q->per_cpu ? KT_NEED_CPU : 0) |
			(q->view == KT_VIEW_CPUS ? KT_NEED_CPU : 0) |
			(q->view == KT_VIEW_TASKS ? KT_NEED_TASK : 0) |
			(q->view == KT_VIEW_CONTEXTS ? KT_NEED_CTX : 0) |
			(q->view == KT_VIEW_CPUS || q->view == KT_VIEW_TASKS ? KT_NEED_FUNC : 0);
	const struct kt_hit *h = NULL;
	const struct kt_hit *rh = NULL;
	uint64_t rlen;
	uint32_t maxcpu = a->p.max_cpu;
	uint64_t viewsum = 0;
	size_t keep;
	struct kt_cpuview cv;
	struct kt_hits_view hv = {NULL, 0, sizeof(struct kt_hit)};
	int kept = 0, roll = kt_agg_rollup_kind(a, q, dims);

	kt_idx_clear(&a->g.idx);
	if (q->view == KT_VIEW_CPUS && (kept = kt_agg_cpu_rows_kept(a, q, r, &cv)) < 0)
		return kept;
	n = 0;
	if (!kept) {
		/* in place when they are the window's narrow totals; dense (h, n) whenever
		 * the CPU is needed, which the CPU view and per-CPU columns below read */
		if (roll < 0 || kt_agg_rollup(a, KT_PROJ_TOTALS, roll, &hv, NULL) < 0)
			kt_agg_proj_view(a, KT_PROJ_TOTALS, dims, &hv);
		h = hv.h;
		n = hv.n;
	}
	for (size_t i = 0; i < n; i++) {
		const struct kt_hit *x = kt_hv_at(&hv, i);
		const struct locinfo *li;
		struct kt_row *row;
		uint64_t k0, k1;
		uint32_t ri;

		if (!x->hits)
			continue; /* a free entry of the window's table */
		li = kt_agg_loc(a, x->loc);
		if (!kt_agg_pass(a, &q->filter, x, li) || !group_of(a, q, x, li, &k0, &k1))
			continue;
		row = kt_agg_group_row(a, r, k0, k1, &ri, 1);
		if (!row)
			return -ENOMEM;
		row->hits += x->hits;
		if (q->view == KT_VIEW_CPUS) {
			if (li->user)
				row->user += x->hits;
			else if (li->idle)
				row->idle_hits += x->hits;
			else
				row->kernel += x->hits;
		}
		if (q->view == KT_VIEW_LINES &&
		    (!row->addr || kt_sym_loc(a->s, x->loc)->addr < row->addr))
			row->addr = kt_sym_loc(a->s, x->loc)->addr;
	}
	if (q->view == KT_VIEW_CPUS && kt_agg_cpu_rows_all(a, q, r, h, n) < 0)
		return -ENOMEM;
	rn = 0;
	if (!kept) {
		struct kt_hits_view rv;

		if (roll >= 0 && kt_agg_rollup(a, KT_PROJ_RECENT, roll, &rv, &rlen) == 0) {
			rh = rv.h;
			rn = rv.n;
		} else {
			rh = kt_agg_proj(a, KT_PROJ_RECENT, dims, &rn, &rlen);
		}
		p->recent_s = (double)rlen / 1e9;
	}
	for (size_t i = 0; i < rn; i++) {
		const struct locinfo *li = kt_agg_loc(a, rh[i].loc);
		uint64_t k0, k1;
		uint32_t ri;

		if (kt_agg_pass(a, &q->filter, &rh[i], li) &&
		    group_of(a, q, &rh[i], li, &k0, &k1) && kt_agg_group_row(a, r, k0, k1, &ri, 0))
			a->g.recent[ri] += rh[i].hits;
	}
	if (q->per_cpu && r->nrows) {
		size_t need = r->nrows * maxcpu;

		if (need > p->percpucap) {
			uint64_t *np = realloc(p->percpu, need * sizeof(*np));

			if (!np)
				return -ENOMEM;
			p->percpu = np;
			p->percpucap = need;
		}
		memset(p->percpu, 0, need * sizeof(*p->percpu));
		for (size_t i = 0; i < n; i++) {
			const struct locinfo *li = kt_agg_loc(a, h[i].loc);
			uint64_t k0, k1;
			uint32_t ri;

			if (h[i].cpu < maxcpu && kt_agg_pass(a, &q->filter, &h[i], li) &&
			    group_of(a, q, &h[i], li, &k0, &k1) &&
			    kt_agg_group_row(a, r, k0, k1, &ri, 0))
				p->percpu[(size_t)ri * maxcpu + h[i].cpu] += h[i].hits;
		}
	}
	if ((q->trend || q->sort == KT_SORT_RISING) && kt_agg_trend(a, q, r) < 0)
		return -ENOMEM;
	/* name, derive and text-filter, compacting in place */
	keep = 0;
	for (size_t i = 0; i < r->nrows; i++)
		viewsum += r->rows[i].hits;
	for (size_t i = 0; i < r->nrows; i++) {
		struct kt_row *row = &r->rows[i];
		uint64_t k0 = a->g.key[i][0], k1 = a->g.key[i][1];
		uint64_t rec = a->g.recent[i];

		name_row(a, q, r, row, k0, k1);
		kt_agg_derive(a, q, r, row, rec);
		row->pct_parent = viewsum ? (double)row->hits / (double)viewsum * 100.0 : 0;
		if (q->per_cpu)
			row->per_cpu = p->percpu + i * maxcpu;
		kt_agg_trend_row(r, row, i);
		if (q->filter.text && !kt_contains_ci(row->name, q->filter.text))
			continue;
		if (keep != i)
			r->rows[keep] = *row;
		keep++;
	}
	r->nrows = keep;
	if (a->base && kt_agg_baseline_rows(a, q, r) < 0)
		return -ENOMEM;
	r->total_rows = r->nrows;
	/* with a limit, only the rows that can make it are sorted: the top functions are a
	 * few of 5 000, most of the rest tied on their hits and compared by name */
	if (q->limit && !q->reverse)
		r->nrows = kt_agg_top(r->rows, r->nrows, q->sort, q->limit);
	kt_agg_sort(r->rows, r->nrows, q->sort, q->reverse,
		    q->view == KT_VIEW_CPUS || q->view == KT_VIEW_TASKS);
	if (q->limit && r->nrows > q->limit)
		r->nrows = q->limit;
	if (kept)
		kt_agg_cpu_tops_kept(a, r, &cv);
	else if (q->view == KT_VIEW_CPUS)
		kt_agg_cpu_tops(a, q, r, h, n);
	return 0;
}

static int query(struct kt_agg *a, const struct kt_query *q, struct kt_result *r);

/* A query that could not allocate something (a row name, a copy of the window's hits, a
 * path) fails as a whole: rows that miss part of the counts would be a wrong table. */
void kt_agg_expect(struct kt_agg *a, const struct kt_query *q)
{
	if (q->view == KT_VIEW_CPUS)
		kt_agg_cputop_expect(a, q);
	/* the stacks view's projection of (location, stack, context) reads the window's
	 * stacks' totals (agg_proj.c): kept from the first sample, not made at the first
	 * report (a 256-CPU -g batch's first refresh read every chained sample of it) */
	if (q->view == KT_VIEW_STACKS && a->project && !a->irq_owner &&
	    !(kt_agg_filter_needs(&q->filter) & (KT_NEED_CPU | KT_NEED_TASK))) {
		kt_window_keep_stacks(a->w);
		a->stacks_wanted = 1; /* and their paths made as each slice completes */
	}
}

int kt_agg_query(struct kt_agg *a, const struct kt_query *q, struct kt_result *r)
{
	uint64_t wnomem;
	int ret;

	if (!a || !q || !r)
		return -EINVAL;
	a->nomem = 0;
	wnomem = kt_window_nomem(a->w);
	ret = query(a, q, r);
	if (ret == 0 && (a->nomem || kt_window_nomem(a->w) != wnomem ||
			 (r->priv && ((struct rpriv *)r->priv)->nomem)))
		ret = -ENOMEM;
	return ret;
}

static int query(struct kt_agg *a, const struct kt_query *q, struct kt_result *r)
{
	struct rpriv *p;
	uint64_t denom;

	kt_agg_result_reset(r);
	p = kt_agg_priv(r);
	if (!p)
		return -ENOMEM;
	kt_agg_base_summary(a, &q->filter, &r->sum, &denom);
	p->denom = denom;
	p->capacity = r->sum.covered_s * r->sum.freq_hz * r->sum.ncpus;
	p->recent_s = 0;
	switch (q->view) {
	case KT_VIEW_CALLERS:
	case KT_VIEW_CALLEES:
		return kt_agg_tree(a, q, r);
	case KT_VIEW_STACKS:
		return kt_agg_stacks(a, q, r);
	case KT_VIEW_MODULES:
	case KT_VIEW_FUNCS:
	case KT_VIEW_TOPFUNCS:
	case KT_VIEW_LINES:
	case KT_VIEW_CPUS:
	case KT_VIEW_TASKS:
	case KT_VIEW_CONTEXTS:
		return flat_query(a, q, r);
	}
	return -EINVAL;
}
