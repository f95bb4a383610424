/* The aggregator's call-stack views: callers and callees trees of one function and the
 * hottest full stacks, built from the window's interned stacks with exact counts. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "agg_impl.h"
#include "kerntop/util.h"

/* A tree node: one function on one path from the root function. */
struct tnode {
	uint32_t func, parent;
	uint64_t hits, recent;
	uint32_t child, sibling; /* first child, next sibling (UINT32_MAX = none) */
	uint32_t depth;		 /* the root function's node is 0 */
	uint8_t shown;		 /* among the query's limit hottest nodes */
};

void kt_agg_tree_free(struct kt_agg *a)
{
	free(a->tn);
	kt_idx_free(&a->tidx);
	free(a->path);
	free(a->fp);
	free(a->fpframes);
	free(a->fpseen);
	kt_idx_free(&a->fpidx);
}

uint32_t kt_agg_path(struct kt_agg *a, const struct kt_hit *h)
{
	uint32_t n, k = 0, start = 0;
	const uint32_t *fr = kt_window_stack_frames(a->w, h->stack, &n);

	if (kt_grow((void **)&a->path, &a->pathcap, n + 1, sizeof(*a->path)) < 0) {
		a->nomem++;
		return 0;
	}
	/* --irq-owner moved a helper hit to its first caller outside the helpers: the path
	 * starts there too */
	if (a->irq_owner && n && kt_agg_loc(a, fr[0])->helper) {
		while (start < n && kt_agg_loc(a, fr[start])->helper)
			start++;
		if (start == n || fr[start] != h->loc)
			start = 0;
	}
	/* call chains usually start with the sampled address itself */
	if (!n || fr[start] != h->loc)
		a->path[k++] = kt_agg_loc(a, h->loc)->func;
	for (uint32_t i = start; i < n; i++)
		a->path[k++] = kt_agg_loc(a, fr[i])->func;
	return k;
}

struct tkey {
	const struct kt_agg *a;
	uint32_t parent, func;
};

static int tnode_eq(const void *ctx, uint32_t id)
{
	const struct tkey *k = ctx;

	return k->a->tn[id].parent == k->parent && k->a->tn[id].func == k->func;
}

static uint32_t tnode_get(struct kt_agg *a, uint32_t parent, uint32_t func)
{
	struct tkey k = {a, parent, func};
	uint32_t h = kt_hash64((uint64_t)parent << 32 | func), pos, id;
	struct tnode *t;

	id = kt_idx_find(&a->tidx, h, tnode_eq, &k, &pos);
	if (id != UINT32_MAX)
		return id;
	if (kt_grow((void **)&a->tn, &a->tncap, a->ntn + 1, sizeof(*a->tn)) < 0)
		return UINT32_MAX;
	id = a->ntn;
	if (kt_idx_insert(&a->tidx, h, id, pos) < 0)
		return UINT32_MAX;
	a->ntn++;
	t = &a->tn[id];
	*t = (struct tnode){func, parent, 0, 0, UINT32_MAX, UINT32_MAX, 0, 1};
	if (parent != UINT32_MAX) {
		t->depth = a->tn[parent].depth + 1;
		t->sibling = a->tn[parent].child;
		a->tn[parent].child = id;
	}
	return id;
}

/* Adds one hit's path to the tree; returns -ENOMEM on allocation failure. */
static int tree_add(struct kt_agg *a, const struct kt_query *q, const struct kt_hit *h, int recent)
{
	uint32_t len = kt_agg_path(a, h), node = 0, start, depth = 0;
	int64_t i;

	if (!len)
		return 0;
	if (q->view == KT_VIEW_CALLERS) {
		if (a->path[0] != q->func)
			return 0;
		start = 0;
	} else {
		for (i = (int64_t)len - 1; i >= 0 && a->path[i] != q->func; i--)
			;
		if (i < 0)
			return 0;
		start = (uint32_t)i;
	}
	if (recent)
		a->tn[0].recent += h->hits;
	else
		a->tn[0].hits += h->hits;
	for (;;) {
		uint32_t f;

		if (q->view == KT_VIEW_CALLERS) {
			if (++start >= len)
				break;
			f = a->path[start];
		} else {
			if (start-- == 0)
				break;
			f = a->path[start];
		}
		if (q->max_depth && ++depth > q->max_depth)
			break;
		node = tnode_get(a, node, f);
		if (node == UINT32_MAX)
			return -ENOMEM;
		if (recent)
			a->tn[node].recent += h->hits;
		else
			a->tn[node].hits += h->hits;
	}
	return 0;
}

/* What tnode_cmp sorts by, passed through qsort_r (no file-level state). */
struct tnode_order {
	const struct kt_agg *a;
	enum kt_sort sort;
};

static int tnode_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct tnode_order *o = ctx;
	const struct tnode *x = &o->a->tn[*(const uint32_t *)pa];
	const struct tnode *y = &o->a->tn[*(const uint32_t *)pb];
	enum kt_sort tsort = o->sort;

	if (tsort == KT_SORT_NAME) {
		const struct kt_sym_func *fx = kt_sym_func(o->a->s, x->func);
		const struct kt_sym_func *fy = kt_sym_func(o->a->s, y->func);
		int c = strcmp(fx && fx->name ? fx->name : "", fy && fy->name ? fy->name : "");

		if (c)
			return c;
	}
	if (tsort == KT_SORT_RATE && x->recent != y->recent)
		return x->recent > y->recent ? -1 : 1;
	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static int emit(struct kt_agg *a, const struct kt_query *q, struct kt_result *r, uint32_t node,
		int32_t parent, uint32_t depth)
{
	struct tnode *t = &a->tn[node];
	const struct kt_sym_func *f = kt_sym_func(a->s, t->func);
	struct tnode_order order = {a, q->sort};
	uint32_t nch = 0, *ch, i, c;
	struct kt_row *row;
	int32_t me;
	int err = 0;

	row = kt_agg_row_new(r);
	if (!row)
		return -ENOMEM;
	me = (int32_t)(r->nrows - 1);
	row->id = t->func;
	row->name = f && f->name ? f->name : "[unknown]";
	row->module = f ? kt_agg_module_name(a, f->module) : NULL;
	row->idle = f && f->idle;
	row->addr = f ? f->start : 0;
	row->hits = t->hits;
	row->depth = depth;
	row->parent = parent;
	row->pct_parent = a->tn[0].hits ? (double)t->hits / (double)a->tn[0].hits * 100.0 : 0;
	kt_agg_derive(a, q, r, row, t->recent);
	for (c = t->child; c != UINT32_MAX; c = a->tn[c].sibling)
		if (a->tn[c].hits && a->tn[c].shown)
			nch++;
	r->rows[me].nchildren = nch;
	if (!nch)
		return 0;
	ch = malloc(nch * sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	i = 0;
	for (c = t->child; c != UINT32_MAX; c = a->tn[c].sibling)
		if (a->tn[c].hits && a->tn[c].shown)
			ch[i++] = c;
	qsort_r(ch, nch, sizeof(*ch), tnode_cmp, &order);
	if (q->reverse)
		for (i = 0; i < nch / 2; i++) {
			uint32_t tmp = ch[i];

			ch[i] = ch[nch - 1 - i];
			ch[nch - 1 - i] = tmp;
		}
	for (i = 0; i < nch && !err; i++)
		err = emit(a, q, r, ch[i], me, depth + 1);
	free(ch);
	return err;
}

/* Orders nodes by depth, then by their functions from the node up to the root: the same
 * order whatever order the hits came in (node ids are first-seen), a parent first. */
static int path_cmp(const struct kt_agg *a, uint32_t x, uint32_t y)
{
	if (a->tn[x].depth != a->tn[y].depth)
		return a->tn[x].depth < a->tn[y].depth ? -1 : 1;
	while (x != y) {
		if (a->tn[x].func != a->tn[y].func)
			return a->tn[x].func < a->tn[y].func ? -1 : 1;
		x = a->tn[x].parent;
		y = a->tn[y].parent;
	}
	return 0;
}

static int hotter(const void *pa, const void *pb, void *ctx)
{
	const struct kt_agg *a = ctx;
	const struct tnode *x = &a->tn[*(const uint32_t *)pa];
	const struct tnode *y = &a->tn[*(const uint32_t *)pb];
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;

	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	return path_cmp(a, ia, ib);
}

/* With a row limit, the tree keeps its limit hottest branches, not the first rows in
 * pre-order (which would spend them on the hottest path and drop a hot direct caller). A
 * straight run (a node that is its parent's only caller, with all its hits) is shown with
 * its parent and not counted. A node has no more hits than its parent and a greater depth, so
 * the hottest set always holds its parents. */
static int pick_hottest(struct kt_agg *a, uint32_t limit)
{
	uint32_t *ids, *nch, n = 0;

	if (!limit || a->ntn <= limit)
		return 0;
	ids = malloc(a->ntn * sizeof(*ids));
	nch = calloc(a->ntn, sizeof(*nch));
	if (!ids || !nch) {
		free(ids);
		free(nch);
		return -ENOMEM;
	}
	for (uint32_t i = 1; i < a->ntn; i++)
		if (a->tn[i].hits)
			nch[a->tn[i].parent]++;
	for (uint32_t i = 1; i < a->ntn; i++) {
		const struct tnode *t = &a->tn[i];

		a->tn[i].shown = 0;
		if (t->hits && !(nch[t->parent] == 1 && t->hits == a->tn[t->parent].hits))
			ids[n++] = i;
	}
	qsort_r(ids, n, sizeof(*ids), hotter, a);
	for (uint32_t i = 0; i < n && i + 1 < limit; i++)
		a->tn[ids[i]].shown = 1;
	for (uint32_t i = 1; i < a->ntn; i++) { /* straight runs follow their parent */
		struct tnode *t = &a->tn[i];

		if (t->hits && nch[t->parent] == 1 && t->hits == a->tn[t->parent].hits)
			t->shown = a->tn[t->parent].shown;
	}
	free(ids);
	free(nch);
	return 0;
}

int kt_agg_tree(struct kt_agg *a, const struct kt_query *q, struct kt_result *r)
{
	unsigned need;
	size_t n;
	const struct kt_hit *h;
	uint64_t rlen;
	int err;

	if (!kt_sym_func(a->s, q->func))
		return -ENOENT;
	a->ntn = 0;
	kt_idx_clear(&a->tidx);
	if (tnode_get(a, UINT32_MAX, q->func) != 0)
		return -ENOMEM;
	need = kt_agg_filter_needs(&q->filter) | KT_NEED_STACK;
	h = kt_agg_proj(a, KT_PROJ_TOTALS, need, &n, NULL);
	for (size_t i = 0; i < n; i++)
		if (kt_agg_pass(a, &q->filter, &h[i], kt_agg_loc(a, h[i].loc)) &&
		    (err = tree_add(a, q, &h[i], 0)) < 0)
			return err;
	h = kt_agg_proj(a, KT_PROJ_RECENT, need, &n, &rlen);
	((struct rpriv *)r->priv)->recent_s = (double)rlen / 1e9;
	for (size_t i = 0; i < n; i++)
		if (kt_agg_pass(a, &q->filter, &h[i], kt_agg_loc(a, h[i].loc)) &&
		    (err = tree_add(a, q, &h[i], 1)) < 0)
			return err;
	err = pick_hottest(a, q->limit);
	if (!err)
		err = emit(a, q, r, 0, -1, 0);
	r->total_rows = a->ntn;
	return err;
}

/* --- hottest stacks --- */

struct fkey {
	const struct kt_agg *a;
	const uint32_t *path;
	uint32_t n;
};

static int fpath_eq(const void *ctx, uint32_t id)
{
	const struct fkey *k = ctx;
	const struct fpath *f = &k->a->fp[id];

	return f->len == k->n && !memcmp(k->a->fpframes + f->off, k->path, k->n * sizeof(*k->path));
}

/* The id of function path a->path[0..len), interned; UINT32_MAX when out of memory. */
static uint32_t fpath_intern(struct kt_agg *a, uint32_t len)
{
	struct fkey k = {a, a->path, len};
	uint32_t hash = kt_hash_u32s(a->path, len), pos, id;

	id = kt_idx_find(&a->fpidx, hash, fpath_eq, &k, &pos);
	if (id != UINT32_MAX)
		return id;
	if (len > UINT32_MAX - a->nfpframes || a->nfp == UINT32_MAX - 1 ||
	    kt_grow((void **)&a->fpframes, &a->fpframescap, a->nfpframes + len,
		    sizeof(*a->fpframes)) < 0 ||
	    kt_grow((void **)&a->fp, &a->fpcap, a->nfp + 1, sizeof(*a->fp)) < 0 ||
	    kt_idx_insert(&a->fpidx, hash, a->nfp, pos) < 0)
		return UINT32_MAX;
	memcpy(a->fpframes + a->nfpframes, a->path, len * sizeof(*a->path));
	a->fp[a->nfp] = (struct fpath){a->nfpframes, len, hash, 0, 0, 0, 0};
	a->nfpframes += len;
	return a->nfp++;
}

/* Hit h's function path. A stack that starts with the hit's location (as sampled chains
 * do) has one path whatever the hit, kept in the stack's tag; --irq-owner paths and the
 * others are made again each time. UINT32_MAX when out of memory or empty. */
static uint32_t hit_fpath(struct kt_agg *a, const struct kt_hit *h)
{
	uint32_t len, id, tag;
	int kept = !a->irq_owner && h->stack && kt_window_stack_leaf(a->w, h->stack) == h->loc;

	if (kept && (tag = kt_window_stack_tag(a->w, h->stack, KT_STACK_TAG_PATH)))
		return tag - 1;
	if (!(len = kt_agg_path(a, h)))
		return UINT32_MAX;
	id = fpath_intern(a, len);
	if (kept && id != UINT32_MAX)
		kt_window_stack_set_tag(a->w, h->stack, KT_STACK_TAG_PATH, id + 1);
	return id;
}

void kt_agg_stacks_moved(struct kt_agg *a)
{
	uint64_t newest = kt_window_newest(a->w);
	const struct kt_window_stkent *st;
	uint32_t n;

	if (!a->stacks_wanted || a->irq_owner || !newest ||
	    kt_window_slice_stacks(a->w, newest - 1, &st, &n) < 0)
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct kt_hit h = {st[i].loc, st[i].stack, 0, 0, st[i].ctx, st[i].hits};

		/* only the paths a stack keeps (one starting at the hit's location) */
		if (kt_window_stack_leaf(a->w, h.stack) == h.loc &&
		    !kt_window_stack_tag(a->w, h.stack, KT_STACK_TAG_PATH) &&
		    hit_fpath(a, &h) == UINT32_MAX)
			return; /* out of memory: the next query makes them, or fails */
	}
}

/* Starts a stacks query: a new stamp for the paths' rows, and the paths forgotten when
 * stacks that left the window have made them a quarter more than the live stacks (+ 1024):
 * so their memory follows the live stacks and does not creep with call-path churn. */
static void fpath_begin(struct kt_agg *a)
{
	size_t live = kt_window_nstacks(a->w);

	if (a->nfp > live + live / 4 + 1024) {
		a->nfp = 0;
		a->nfpframes = 0;
		kt_idx_clear(&a->fpidx);
		kt_window_stack_clear_tags(a->w, KT_STACK_TAG_PATH);
	}
	if (++a->fpstamp == 0) { /* wrapped: every path's stamp is stale again */
		for (uint32_t i = 0; i < a->nfp; i++)
			a->fp[i].stamp = 0;
		a->fpstamp = 1;
	}
	a->nfpseen = 0;
}

static int stack_selected(const struct kt_query *q, const struct locinfo *li)
{
	if (q->func != KT_ANY)
		return li->func == q->func;
	return kt_agg_module_match(q->module, li);
}

/* Counts hit h in its path (listed when new, unless recent). */
static int stack_add(struct kt_agg *a, const struct kt_hit *h, int recent)
{
	uint32_t fp = hit_fpath(a, h);
	struct fpath *f;

	if (fp == UINT32_MAX)
		return -ENOMEM;
	f = &a->fp[fp];
	if (f->stamp != a->fpstamp) {
		if (recent)
			return 0;
		if (kt_grow((void **)&a->fpseen, &a->fpseencap, a->nfpseen + 1,
			    sizeof(*a->fpseen)) < 0)
			return -ENOMEM;
		a->fpseen[a->nfpseen++] = fp;
		f->stamp = a->fpstamp;
		f->hits = f->recent = 0;
		f->id = h->stack;
	}
	if (recent) {
		f->recent += h->hits;
	} else {
		f->hits += h->hits;
		if (h->stack < f->id) /* its id: the least stack, whatever the hits' order */
			f->id = h->stack;
	}
	return 0;
}

/* How a stacks row ranks by sort s before its name (kt_agg_sort's keys: a stack has no
 * trend and no baseline, so the rate sorts are by the newest slice, the others by hits):
 * > 0 when path x ranks below path y. */
struct fpath_order {
	const struct kt_agg *a;
	int by_recent;
};

static int fpath_below(const void *ctx, uint32_t x, uint32_t y)
{
	const struct fpath_order *o = ctx;
	const struct fpath *fx = &o->a->fp[x], *fy = &o->a->fp[y];

	if (o->by_recent && fx->recent != fy->recent)
		return fx->recent < fy->recent ? 1 : -1;
	if (fx->hits != fy->hits)
		return fx->hits < fy->hits ? 1 : -1;
	return 0;
}

/* Keeps in a->fpseen, in their order, only the paths that can make the first limit rows
 * sorted by q's order whatever their names (kt_agg_top_ids), so that rows are made for those
 * alone. Nothing is dropped without a limit, in reverse or by name. */
static void fpath_top(struct kt_agg *a, const struct kt_query *q, double recent_s)
{
	struct fpath_order o = {
	    a, (q->sort == KT_SORT_RATE || q->sort == KT_SORT_RISING) && recent_s > 0};

	if (!q->reverse && q->sort != KT_SORT_NAME)
		a->nfpseen =
		    (uint32_t)kt_agg_top_ids(a->fpseen, a->nfpseen, q->limit, fpath_below, &o);
}

/* Copies the frames of r's rows into r's own store: the paths' store changes with the next
 * query, the result must not. */
static int result_frames(struct kt_result *r)
{
	struct rpriv *p = r->priv;
	size_t need = 0;

	for (size_t i = 0; i < r->nrows; i++)
		need += r->rows[i].nframes;
	if (need > p->framescap) {
		uint32_t *nf = realloc(p->frames, need * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		p->frames = nf;
		p->framescap = need;
	}
	p->nframes = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		struct kt_row *row = &r->rows[i];

		memcpy(p->frames + p->nframes, row->frames, row->nframes * sizeof(*row->frames));
		row->frames = p->frames + p->nframes;
		p->nframes += row->nframes;
	}
	return 0;
}

/* Fetches what stack_add will read for the hits of v a little after entry i: the stack's line
 * (its leaf and tags) 16 hits ahead, the path its tag names 8 ahead (issue 14: at 256 CPUs
 * with chains each of 150 k hits was two cache misses in a row). */
static void stack_prefetch(const struct kt_agg *a, const struct kt_hits_view *v, size_t i)
{
	uint32_t tag;

	if (i + 16 < v->n)
		kt_window_stack_prefetch(a->w, kt_hv_at(v, i + 16)->stack);
	if (i + 8 < v->n &&
	    (tag = kt_window_stack_tag(a->w, kt_hv_at(v, i + 8)->stack, KT_STACK_TAG_PATH)) &&
	    tag - 1 < a->nfp)
		KT_PREFETCH(&a->fp[tag - 1]);
}

/* Counts the hits of v (of no hits, or with a chain when chainless, skipped) that q selects
 * into their paths: 0 or -errno. */
static int stacks_count(struct kt_agg *a, const struct kt_query *q, const struct kt_hits_view *v,
			int chainless, int recent)
{
	int err;

	for (size_t i = 0; i < v->n; i++) {
		const struct kt_hit *x = kt_hv_at(v, i);
		const struct locinfo *li;

		stack_prefetch(a, v, i);
		if (!x->hits || (chainless && x->stack))
			continue;
		li = kt_agg_loc(a, x->loc);
		if (kt_agg_pass(a, &q->filter, x, li) && stack_selected(q, li) &&
		    (err = stack_add(a, x, recent)) < 0)
			return err;
	}
	return 0;
}

/* Counts the newest complete slice's hits (the window's tables of it) into their paths as
 * recent hits, a few hundred at a time through a buffer rather than a copy of them all (5 MB
 * at 256 CPUs with 32-frame chains): 0 or -errno. */
static int recent_count(struct kt_agg *a, const struct kt_query *q,
			const struct kt_recent_stacks *rs)
{
	struct kt_hit buf[512];
	struct kt_hits_view v = {buf, 0, sizeof(*buf)};
	uint32_t i = 0, j = 0;
	int err;

	while (i < rs->ne || j < rs->nst) {
		v.n = kt_agg_recent_stacks_read(rs, &i, &j, buf, sizeof(buf) / sizeof(buf[0]));
		if ((err = stacks_count(a, q, &v, 0, 1)) < 0)
			return err;
	}
	return 0;
}

int kt_agg_stacks(struct kt_agg *a, const struct kt_query *q, struct kt_result *r)
{
	struct rpriv *p = r->priv;
	struct kt_hits_view hv = {NULL, 0, sizeof(struct kt_hit)};
	uint64_t rlen;
	char buf[8192];
	int err;

	fpath_begin(a);
	for (int pass = 0; pass < 2; pass++) {
		unsigned need = kt_agg_filter_needs(&q->filter) | KT_NEED_STACK;
		struct kt_hits_view part[2];
		struct kt_recent_stacks rs;

		/* the totals read where the window keeps them: a copy of them (150 k entries
		 * at 256 CPUs with 32-frame chains) was a fresh 5 MB at the first refresh */
		if (!pass && kt_agg_proj_stacks(a, need, part) == 0) {
			if ((err = stacks_count(a, q, &part[0], 1, 0)) < 0 ||
			    (err = stacks_count(a, q, &part[1], 0, 0)) < 0)
				return err;
			continue;
		}
		if (pass && kt_agg_proj_recent_stacks(a, need, &rs) == 0) {
			p->recent_s = (double)rs.len_ns / 1e9;
			if ((err = recent_count(a, q, &rs)) < 0)
				return err;
			continue;
		}
		hv.h = kt_agg_proj(a, pass ? KT_PROJ_RECENT : KT_PROJ_TOTALS, need, &hv.n, &rlen);
		if (pass)
			p->recent_s = (double)rlen / 1e9;
		if ((err = stacks_count(a, q, &hv, 0, pass)) < 0)
			return err;
	}
	r->total_rows = a->nfpseen;
	/* a report's top stacks: rows are made for the paths that can make it alone (150 k
	 * paths of 32 frames at 256 CPUs, 20 of them printed) */
	fpath_top(a, q, p->recent_s);
	for (uint32_t i = 0; i < a->nfpseen; i++) {
		const struct fpath *f = &a->fp[a->fpseen[i]];
		struct kt_row *row = kt_agg_row_new(r);
		const struct kt_sym_func *leaf;

		if (!row)
			return -ENOMEM;
		/* the paths are all interned: rows may point at their frames until the end */
		row->frames = a->fpframes + f->off;
		row->nframes = f->len;
		row->hits = f->hits;
		row->id = f->id;
		leaf = kt_sym_func(a->s, row->frames[0]);
		row->module = leaf ? kt_agg_module_name(a, leaf->module) : NULL;
		row->idle = leaf && leaf->idle;
		kt_agg_derive(a, q, r, row, f->recent);
	}
	for (size_t i = 0; i < r->nrows; i++) {
		struct kt_row *row = &r->rows[i];
		uint32_t len = row->nframes;
		const uint32_t *fr = row->frames;
		size_t used = 0;

		buf[0] = 0;
		for (uint32_t j = len; j-- > 0 && used + 2 < sizeof(buf);) {
			const struct kt_sym_func *f = kt_sym_func(a->s, fr[j]);

			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s",
						 j + 1 < len ? ";" : "",
						 f && f->name ? f->name : "[unknown]");
		}
		if (used >= sizeof(buf))
			buf[sizeof(buf) - 1] = 0;
		row->name = kt_agg_strdup(r, buf);
	}
	kt_agg_sort(r->rows, r->nrows, q->sort, q->reverse, 0);
	if (q->limit && r->nrows > q->limit)
		r->nrows = q->limit;
	return result_frames(r);
}
