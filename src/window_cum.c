/* The since-start totals of the expired slices, kept as the slices keep their samples: runs
 * of log records per log (per CPU), sorted by key (location, stack, task, context, CPU)
 * with each key once in a run. A record is 8 bytes for nearly every key of a run without -g
 * (16 with a stack, 32 past 65 535 hits), where a hashed table of full tuples took 48: on a
 * 256-CPU machine these totals were most of the viewer's memory.
 *
 * Two runs per log, as in a log-structured merge: past the cap an expiring slice's log is
 * sorted and merged into the small run, and the small run into the big one only once it
 * holds more than a quarter as much, so a slice costs what the small run holds, not the big
 * one (merging each slice into one run took a pass over every since-start record per slice:
 * past 6 M records at 256 CPUs, half the viewer's CPU). Below the cap, while the runs are
 * short, a slice goes straight into the big run. Past the cap, whether a new key already has
 * a record in the big run is answered by its filter or found through its index (every
 * CUM_IX_STEP-th record's location, stack, task and unit) instead of a pass. The since-start
 * view merges the two runs of each log as it decodes them and finds the rolling tuples in
 * them by binary search. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "window_impl.h"

/* past this many bytes the scratch arrays are given back after each use: a small machine's
 * runs may be long, and its viewer's memory small */
#define CUM_SCRATCH_KEEP (256u << 10)
/* the big run's index: one entry per this many records */
#define CUM_IX_STEP 32u
/* the small run joins the big one past CUM_DEL_MIN units and a quarter (>> CUM_DEL_SHIFT)
 * of the big one's */
#define CUM_DEL_MIN 64u
#define CUM_DEL_SHIFT 2
/* a merge fetches the stack of the key this many ahead */
#define CUM_REF_AHEAD 8u

/* Room for n decoded records in both scratch arrays. */
static int tmp_room(struct kt_window *w, uint32_t n)
{
	if (kt_grow((void **)&w->cumtmp, &w->cumtmpcap, n, sizeof(*w->cumtmp)) < 0 ||
	    kt_grow((void **)&w->cumtmp2, &w->cumtmp2cap, n, sizeof(*w->cumtmp2)) < 0)
		return -1;
	return 0;
}

/* Decodes log l's records (index li) into the scratch array; returns how many, or
 * UINT32_MAX out of memory. */
static uint32_t decode_all(struct kt_window *w, const struct wlog *l, uint32_t li)
{
	uint32_t n = 0;

	if (tmp_room(w, l->n) < 0)
		return UINT32_MAX;
	for (uint32_t pos = 0; pos < l->n; n++)
		pos += wlog_decode(l, li, pos, &w->cumtmp[n]);
	return n;
}

/* Makes the first out units of the scratch run r's records, with a quarter more room when it
 * grows (runs grow for the whole run: reallocating them to the unit would fragment the heap
 * by more than the quarter). */
static int run_store(struct kt_window *w, struct wlog *r, uint32_t out)
{
	if (kt_grow_snug((void **)&r->u, &r->cap, out, sizeof(*r->u)) < 0)
		return -1;
	if (out)
		memcpy(r->u, w->cumscr, (size_t)out * sizeof(*r->u));
	r->n = out;
	return 0;
}

/* Makes the first out units of the scratch run run r's records as run_store does, or, when
 * there is no room for a copy, the scratch run itself (what a merge counted and referenced
 * is then kept: nothing is lost out of memory). */
static void run_take(struct kt_window *w, struct wlog *r, uint32_t out)
{
	uint64_t *u = r->u;
	uint32_t cap = r->cap;

	if (run_store(w, r, out) == 0)
		return;
	w->nomem++;
	r->u = w->cumscr;
	r->cap = w->cumscrcap;
	r->n = out;
	w->cumscr = u;
	w->cumscrcap = cap;
}

/* The filter word and bits of h's key (its CPU is the run's). */
static inline uint64_t bloom_hash(const struct kt_hit *h)
{
	return kt_mix64(((uint64_t)h->loc << 32 | h->task) ^
			kt_mix64((uint64_t)h->stack << 32 | h->ctx));
}

static inline uint64_t bloom_bits(uint64_t x)
{
	return 1ull << (x >> 58) | 1ull << (x >> 52 & 63) | 1ull << (x >> 46 & 63);
}

/* Whether big run li may have h's key: 0 when it has not. */
static inline int bloom_maybe(const struct cumlv *v, const struct kt_hit *h)
{
	uint64_t x, b;

	if (!v->nbloom)
		return 1;
	x = bloom_hash(h);
	b = bloom_bits(x);
	return (v->bloom[x & (v->nbloom - 1)] & b) == b;
}

/* Whether h's key is of the shape past the cap folds into: no stack, task [other]. */
static inline int folded_shape(const struct kt_window *w, const struct kt_hit *h)
{
	return !h->stack && h->task == w->other_task;
}

/* Room for big run li's filter of up to nkeys keys not of the folded shape, cleared: 0, or
 * -1 when there is none (every key is then looked up). */
static int bloom_room(struct kt_window *w, uint32_t li, uint32_t nkeys)
{
	struct cumlv *v = &w->cumlv[li];
	uint32_t words = 1;

	while (words < nkeys / 8 + 1)
		words *= 2;
	if (words != v->nbloom) {
		free(v->bloom);
		v->nbloom = 0;
		v->bloom = malloc((size_t)words * sizeof(*v->bloom));
		if (!v->bloom) {
			w->nomem++;
			return -1;
		}
		v->nbloom = words;
	}
	memset(v->bloom, 0, (size_t)words * sizeof(*v->bloom));
	return 0;
}

/* Room for big run li's index of nrec records and its filter of at most own keys not of the
 * folded shape, both emptied: whether there is a filter (without the index neither is
 * used: big_has then reads the run from its start). */
static int index_room(struct kt_window *w, uint32_t li, uint32_t nrec, uint32_t own)
{
	struct cumlv *v = &w->cumlv[li];

	v->nix = 0;
	v->nown = 0;
	if (kt_grow_snug((void **)&v->ix, &v->ixcap, (nrec + CUM_IX_STEP - 1) / CUM_IX_STEP,
			 sizeof(*v->ix)) < 0) {
		w->nomem++;
		free(v->bloom);
		v->bloom = NULL;
		v->nbloom = 0;
		return 0;
	}
	return bloom_room(w, li, own) == 0;
}

/* Adds big run li's k-th record x, at unit at, to its index and filter. */
static inline void index_add(struct kt_window *w, uint32_t li, uint32_t k, uint32_t at,
			     const struct kt_hit *x, int filter)
{
	struct cumlv *v = &w->cumlv[li];

	if (k % CUM_IX_STEP == 0 && v->ix)
		v->ix[v->nix++] = (struct cumix){x->loc, x->stack, x->task, at};
	if (!folded_shape(w, x)) {
		v->nown++;
		if (filter) {
			uint64_t hx = bloom_hash(x);

			v->bloom[hx & (v->nbloom - 1)] |= bloom_bits(hx);
		}
	}
}

/* Makes big run li's index and filter from its records. */
static void big_index(struct kt_window *w, uint32_t li)
{
	const struct wlog *r = &w->cumrun[li];
	int filter = index_room(w, li, w->cumlv[li].nbig, w->cumlv[li].nbig);
	uint32_t k = 0;

	for (uint32_t pos = 0; pos < r->n; k++) {
		uint32_t at = pos;
		struct kt_hit x;

		pos += wlog_decode(r, li, pos, &x);
		index_add(w, li, k, at, &x, filter);
	}
	w->cumlv[li].indexed = 1;
}

/* Encodes h[0, n) (sorted, each key once) as big run li, through the scratch run (a record
 * takes one to four units: the run is sized to what they took). */
static int encode_run(struct kt_window *w, uint32_t li, const struct kt_hit *h, uint32_t n)
{
	uint32_t out = 0;

	if (kt_grow((void **)&w->cumscr, &w->cumscrcap, 4 * n, sizeof(*w->cumscr)) < 0)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		out += wlog_encode(&w->cumscr[out], li, &h[i], 0);
	if (run_store(w, &w->cumrun[li], out) < 0)
		return -1;
	w->cumlv[li].nbig = n;
	w->cumlv[li].indexed = 0; /* made when a lookup needs it */
	return 0;
}

/* Where to look for k's key in big run li: the unit of the last indexed record whose
 * location, stack and task are below k's (the index is a dense array: the search does not
 * wander over the run). */
static uint32_t big_from(const struct kt_window *w, uint32_t li, const struct kt_hit *k)
{
	const struct cumlv *v = &w->cumlv[li];
	uint32_t lo = 0, hi = v->nix;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct cumix *e = &v->ix[mid];
		int below = e->loc != k->loc	 ? e->loc < k->loc
			    : e->stack != k->stack ? e->stack < k->stack
						   : e->task < k->task;

		if (below)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? v->ix[lo - 1].pos : 0;
}

/* Whether big run li has a record of k's key, reading from unit pos (big_from) up to the
 * first record not below k. */
static int big_has(const struct kt_window *w, uint32_t li, uint32_t pos, const struct kt_hit *k)
{
	const struct wlog *r = &w->cumrun[li];
	struct kt_hit x;

	while (pos < r->n) {
		int c;

		pos += wlog_decode(r, li, pos, &x);
		c = kt_cum_key_cmp(&x, k);
		if (c >= 0)
			return !c;
	}
	return 0;
}

/* Whether a new key may have a record of its own: past max_cum only "no stack, task [other]"
 * keys may, the others fold into theirs. */
static int admitted(const struct kt_window *w, const struct kt_hit *h, uint32_t ncum)
{
	return ncum < w->max_cum || folded_shape(w, h);
}

/* Past the cap: folds the new keys of a[0, *n) (a scratch array) that neither of log li's
 * runs has a record of and that the cap does not admit (in key order) into "no stack, task
 * [other]", then sorts and adds them up again; returns the array that holds them. A key of
 * the big run only gets a record in the small one too: ncum counts records, so it counts
 * both. The keys to look up in the big run are listed first, with where to look, and read
 * a few apart with the lines ahead fetched (each is a cache miss on a big machine: a
 * pass over the run for each slice was half the viewer's CPU). */
static struct kt_hit *fold_new(struct kt_window *w, uint32_t li, struct kt_hit *a, uint32_t *n)
{
	const struct wlog *r = &w->cumlv[li].del;
	uint32_t i = 0, pos = 0, ncum = w->ncum, folded = 0, nq = 0;
	struct kt_hit x;
	int have = 0;

	if (kt_grow((void **)&w->cumq, &w->cumqcap, 2 * *n, sizeof(*w->cumq)) < 0)
		return a; /* admitted: the cap is a bound on growth, not on what is kept */
	if (!w->cumlv[li].indexed)
		big_index(w, li); /* the cap is passed: lookups from now on */
	/* the filter is a byte a key of the run: fetched whole, its lines come in parallel
	 * instead of one miss at a time as the keys ask */
	for (uint32_t k = 0; k < w->cumlv[li].nbloom; k += 8)
		KT_PREFETCH(&w->cumlv[li].bloom[k]);
	while (i < *n) {
		int c;

		if (!have && pos < r->n) {
			pos += wlog_decode(r, li, pos, &x);
			have = 1;
		}
		c = have ? kt_cum_key_cmp(&x, &a[i]) : 1;
		if (c <= 0)
			have = 0;
		if (c < 0)
			continue;
		if (c > 0) {
			if (admitted(w, &a[i], ncum)) {
				ncum++;
			} else if (!bloom_maybe(&w->cumlv[li], &a[i])) {
				/* past the cap from here on: admitted only if in the big run */
				a[i].stack = 0;
				a[i].task = kt_window_group(w, NULL);
				folded = 1;
			} else {
				w->cumq[2 * nq] = i;
				w->cumq[2 * nq + 1] = big_from(w, li, &a[i]);
				nq++;
			}
		}
		i++;
	}
	for (uint32_t q = 0; q < nq; q++) {
		struct kt_hit *h = &a[w->cumq[2 * q]];

		if (q + 8 < nq) {
			const uint64_t *u = &w->cumrun[li].u[w->cumq[2 * (q + 8) + 1]];

			KT_PREFETCH(u);
			KT_PREFETCH(u + 8);
		}
		if (!big_has(w, li, w->cumq[2 * q + 1], h)) {
			h->stack = 0;
			h->task = kt_window_group(w, NULL);
			folded = 1;
		}
	}
	return folded ? kt_window_cum_sort_merge(w, a, n) : a;
}

/* Copies the record at units [at, end) of run units u to the scratch run at out, as it is;
 * returns its units. */
static uint32_t copy_record(struct kt_window *w, uint32_t out, const uint64_t *u, uint32_t at,
			    uint32_t end)
{
	memcpy(&w->cumscr[out], &u[at], (end - at) * sizeof(*u));
	return end - at;
}

/* Merges a[0, n) (sorted, each key once) into log li's small run, or its big one when big is
 * set, through the scratch run: 0, or -1 when there is no scratch for it (nothing changed). */
static int merge_into(struct kt_window *w, uint32_t li, int big, const struct kt_hit *a,
		      uint32_t n)
{
	struct cumlv *v = &w->cumlv[li];
	struct wlog *r = big ? &w->cumrun[li] : &v->del;
	uint32_t i = 0, pos = 0, out = 0, xat = 0;
	struct kt_hit x, y;
	int have = 0;

	if (kt_grow((void **)&w->cumscr, &w->cumscrcap, r->n + 4 * n, sizeof(*w->cumscr)) < 0)
		return -1;
	for (;;) {
		int c;

		if (!have && pos < r->n) {
			xat = pos;
			pos += wlog_decode(r, li, pos, &x);
			have = 1;
		}
		if (!have && i >= n)
			break;
		c = !have ? 1 : i < n ? kt_cum_key_cmp(&x, &a[i]) : -1;
		if (c < 0) {
			/* a record the slice has no hits for, copied as it is (most of a big
			 * run's: decoded and encoded again they were a quarter of the fold) */
			out += copy_record(w, out, r->u, xat, pos);
			have = 0;
			continue;
		}
		if (c == 0) {
			y = x;
			have = 0;
		} else {
			y = a[i];
			y.hits = 0;
			w->ncum++;
			*(big ? &v->nbig : &v->ndel) += 1;
			kt_window_stack_ref(w, y.stack, 0);
		}
		y.hits += a[i].hits;
		w->base_total += a[i].hits;
		i++;
		/* the stack a new key will reference, a few keys ahead (in key order the stacks
		 * are anywhere: with chains at 256 CPUs a miss each, 7 % of the viewer's CPU) */
		if (i + CUM_REF_AHEAD < n && a[i + CUM_REF_AHEAD].stack &&
		    a[i + CUM_REF_AHEAD].stack < w->nstk)
			KT_PREFETCH(&w->stk[a[i + CUM_REF_AHEAD].stack]);
		out += wlog_encode(&w->cumscr[out], li, &y, 0);
	}
	run_take(w, r, out);
	if (big)
		v->indexed = 0;
	return 0;
}

/* A walk of log li's two runs in key order: each step has the big run's next record (x), the
 * small run's (y) or both, of one key. */
struct runs_walk {
	const struct wlog *b, *d;
	uint32_t li, pb, pd;
	uint32_t xat, yat; /* the units x and y start at */
	struct kt_hit x, y;
	int hx, hy;
};

static void walk_start(struct runs_walk *r, const struct kt_window *w, uint32_t li)
{
	*r = (struct runs_walk){.b = &w->cumrun[li], .d = &w->cumlv[li].del, .li = li};
}

/* The next step: 0 at the end, else -1 (x only), 1 (y only) or 2 (both: one key). */
static int walk_next(struct runs_walk *r)
{
	int c;

	if (!r->hx && r->pb < r->b->n) {
		r->xat = r->pb;
		r->pb += wlog_decode(r->b, r->li, r->pb, &r->x);
		r->hx = 1;
	}
	if (!r->hy && r->pd < r->d->n) {
		r->yat = r->pd;
		r->pd += wlog_decode(r->d, r->li, r->pd, &r->y);
		r->hy = 1;
	}
	if (!r->hx && !r->hy)
		return 0;
	c = !r->hx ? 1 : !r->hy ? -1 : kt_cum_key_cmp(&r->x, &r->y);
	r->hx = r->hx && c > 0;
	r->hy = r->hy && c < 0;
	return c ? c : 2;
}

/* Merges log li's small run into its big one, which then holds each key once; the small run
 * is empty after. 0, or -1 when there is no scratch for it (nothing changed). */
static int compact(struct kt_window *w, uint32_t li)
{
	struct wlog *b = &w->cumrun[li];
	struct cumlv *v = &w->cumlv[li];
	struct wlog *d = &v->del;
	uint32_t out = 0, nrec = 0;
	struct runs_walk r;
	int filter, c;

	if (!d->n)
		return 0;
	if (kt_grow((void **)&w->cumscr, &w->cumscrcap, b->n + 4 * d->n, sizeof(*w->cumscr)) < 0)
		return -1;
	/* the new run's index and filter are made as its records are written */
	filter = index_room(w, li, v->nbig + v->ndel, (v->indexed ? v->nown : v->nbig) + v->ndel);
	walk_start(&r, w, li);
	while ((c = walk_next(&r))) {
		const struct kt_hit *h = c == 1 ? &r.y : &r.x;

		if (c == 2) {
			/* one key in both: one record, the small run's reference to its stack
			 * given back (the big run's holds it) */
			r.x.hits += r.y.hits;
			kt_window_stack_unref(w, r.y.stack, 0);
			w->ncum--;
		}
		index_add(w, li, nrec++, out, h, filter);
		if (c == 2)
			out += wlog_encode(&w->cumscr[out], li, h, 0);
		else if (c == 1) /* a key of one run only: its record as it is */
			out += copy_record(w, out, d->u, r.yat, r.pd);
		else
			out += copy_record(w, out, b->u, r.xat, r.pb);
	}
	run_take(w, b, out);
	v->nbig = nrec;
	v->indexed = 1;
	d->n = 0; /* its room is kept: it grows back to a quarter of the big run */
	v->ndel = 0;
	return 0;
}

static void scratch_trim(struct kt_window *w)
{
	if ((size_t)w->cumtmpcap * sizeof(*w->cumtmp) > CUM_SCRATCH_KEEP) {
		free(w->cumtmp);
		free(w->cumtmp2);
		w->cumtmp = w->cumtmp2 = NULL;
		w->cumtmpcap = w->cumtmp2cap = 0;
	}
	if (!w->cumtmp || (size_t)w->cumpkcap * 2 * sizeof(*w->cumpk) > CUM_SCRATCH_KEEP) {
		free(w->cumpk);
		w->cumpk = NULL;
		w->cumpkcap = 0;
	}
	if ((size_t)w->cumqcap * sizeof(*w->cumq) > CUM_SCRATCH_KEEP) {
		free(w->cumq);
		w->cumq = NULL;
		w->cumqcap = 0;
	}
	if ((size_t)w->cumscrcap * sizeof(*w->cumscr) > CUM_SCRATCH_KEEP) {
		free(w->cumscr);
		w->cumscr = NULL;
		w->cumscrcap = 0;
	}
}

/* Room for log li's runs. */
static int run_room(struct kt_window *w, uint32_t li)
{
	uint32_t old = w->ncumrun;
	struct cumlv *v;

	if (li < old)
		return 0;
	if (kt_grow((void **)&w->cumrun, &w->ncumrun, li + 1, sizeof(*w->cumrun)) < 0)
		return -1;
	memset(w->cumrun + old, 0, (w->ncumrun - old) * sizeof(*w->cumrun));
	v = realloc(w->cumlv, (size_t)w->ncumrun * sizeof(*v));
	if (!v) {
		w->ncumrun = old; /* the runs past old are empty: forget them */
		return -1;
	}
	memset(v + old, 0, (w->ncumrun - old) * sizeof(*v));
	w->cumlv = v;
	return 0;
}

void kt_window_cum_fold(struct kt_window *w, const struct slice *s)
{
	for (uint32_t li = 0; li < s->nlog; li++) {
		const struct wlog *l = &s->log[li];
		struct kt_hit *a;
		uint32_t n;
		int direct;

		if (!l->n)
			continue;
		n = decode_all(w, l, li);
		if (n == UINT32_MAX || run_room(w, li) < 0) {
			w->nomem++;
			continue;
		}
		a = kt_window_cum_sort_merge(w, w->cumtmp, &n);
		/* below the cap the runs are small (2 M records over the CPUs): a slice goes
		 * straight into the big run, as a small one would hold nearly as many keys and
		 * need merging at once */
		direct = w->ncum + n <= w->max_cum && !w->cumlv[li].del.n;
		if (w->ncum + n > w->max_cum)
			a = fold_new(w, li, a, &n);
		if (merge_into(w, li, direct, a, n) < 0) {
			w->nomem++;
			continue;
		}
		for (uint32_t i = 0; w->cnar_on && i < n; i++) /* as they joined the runs */
			kt_window_since_add(w, &a[i], (int64_t)a[i].hits);
		if (w->cumlv[li].del.n > CUM_DEL_MIN + (w->cumrun[li].n >> CUM_DEL_SHIFT) &&
		    compact(w, li) < 0)
			w->nomem++; /* the small run stays as it is */
	}
	scratch_trim(w);
}

void kt_window_cum_remap(struct kt_window *w, const uint32_t *map)
{
	w->ncum = 0;
	for (uint32_t li = 0; li < w->ncumrun; li++) {
		uint32_t n;
		struct kt_hit *a;

		if (compact(w, li) < 0 || (n = decode_all(w, &w->cumrun[li], li)) == UINT32_MAX) {
			w->nomem++; /* the runs stay as they were */
			w->ncum += w->cumlv[li].nbig + w->cumlv[li].ndel;
			continue;
		}
		for (uint32_t i = 0; i < n; i++) {
			struct kt_hit *h = &w->cumtmp[i];

			/* a retired task's hits keep their location and CPU, not their chains:
			 * the groups would otherwise multiply every stack by every command */
			if ((map && map[h->task] != h->task) || (h->stack && w->stk[h->stack].drop)) {
				if (map)
					h->task = map[h->task];
				if (h->stack) { /* its hits move to "no chain" in the narrow sums */
					kt_window_since_add(w, h, -(int64_t)h->hits);
					kt_window_stack_unref(w, h->stack, 0);
					h->stack = 0;
					kt_window_since_add(w, h, (int64_t)h->hits);
				}
			}
		}
		a = kt_window_cum_sort_merge(w, w->cumtmp, &n);
		if (encode_run(w, li, a, n) < 0) {
			w->nomem++;
			w->ncum += w->cumlv[li].nbig;
			continue;
		}
		w->ncum += n;
	}
	for (uint32_t i = 1; i < w->nstk; i++)
		w->stk[i].drop = 0;
	scratch_trim(w);
	w->out_dirty = 1;
	w->gen++;
}

/* Decodes log li's two runs into out, merged: each key once, in key order; returns how many
 * records. */
static uint32_t decode_both(const struct kt_window *w, uint32_t li, struct kt_hit *out)
{
	struct runs_walk r;
	uint32_t j = 0;
	int c;

	walk_start(&r, w, li);
	while ((c = walk_next(&r))) {
		out[j] = c == 1 ? r.y : r.x;
		if (c == 2)
			out[j].hits += r.y.hits;
		j++;
	}
	return j;
}

/* The since-start tuples into out (room for ncum + nt): the runs' records, then each of the
 * rolling tuples t[0, nt) (stride apart, hits 0 skipped) added to its key's record or
 * appended; returns how many. */
size_t kt_window_cum_merge(struct kt_window *w, struct kt_hit *out, const struct kt_hit *t,
			   size_t nt, size_t stride)
{
	uint32_t *off = malloc(((size_t)w->ncumrun + 1) * sizeof(*off));
	size_t j = 0;

	if (!off && w->ncumrun) {
		w->nomem++;
		return 0;
	}
	for (uint32_t li = 0; li < w->ncumrun; li++) {
		off[li] = (uint32_t)j;
		j += decode_both(w, li, out + j);
	}
	if (off)
		off[w->ncumrun] = (uint32_t)j;
	for (size_t i = 0; i < nt; i++) {
		const struct kt_hit *h = (const void *)((const char *)t + i * stride);
		uint32_t li = h->cpu < WLOG_CPUS ? h->cpu + 1 : 0, lo, hi;

		if (!h->hits)
			continue;
		lo = li < w->ncumrun ? off[li] : 0;
		hi = li < w->ncumrun ? off[li + 1] : 0;
		while (lo < hi) { /* the first record not below h */
			uint32_t mid = lo + (hi - lo) / 2;

			if (kt_cum_key_cmp(&out[mid], h) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (li < w->ncumrun && lo < off[li + 1] && !kt_cum_key_cmp(&out[lo], h))
			out[lo].hits += h->hits;
		else
			out[j++] = *h;
	}
	free(off);
	return j;
}

uint32_t kt_window_cum_logs(const struct kt_window *w)
{
	return w->ncumrun;
}

void kt_window_cum_cursor(const struct kt_window *w, uint32_t log, struct kt_window_cumcur *c)
{
	*c = (struct kt_window_cumcur){0, w->ncumrun, 0, 0};
	if (log != UINT32_MAX) {
		c->li = log < w->ncumrun ? log : w->ncumrun;
		c->li_end = log < w->ncumrun ? log + 1 : w->ncumrun;
	}
}

size_t kt_window_cum_read(const struct kt_window *w, struct kt_window_cumcur *c,
			  struct kt_hit *buf, size_t max)
{
	size_t n = 0;

	while (c->li < c->li_end && n < max) {
		const struct wlog *r = c->run ? &w->cumlv[c->li].del : &w->cumrun[c->li];

		while (c->pos < r->n && n < max)
			c->pos += wlog_decode(r, c->li, c->pos, &buf[n++]);
		if (c->pos < r->n)
			break; /* buf is full */
		c->pos = 0;
		if (c->run++) {
			c->run = 0;
			c->li++;
		}
	}
	return n;
}

int kt_window_cum_narrow(struct kt_window *w)
{
	uint64_t nomem = w->nomem;
	struct kt_window_cumcur c;
	struct kt_hit buf[256];
	size_t n;

	kt_window_cum_cursor(w, UINT32_MAX, &c);
	while ((n = kt_window_cum_read(w, &c, buf, sizeof(buf) / sizeof(buf[0]))))
		for (size_t i = 0; i < n; i++)
			kt_window_since_add(w, &buf[i], (int64_t)buf[i].hits);
	return w->nomem == nomem ? 0 : -1;
}

size_t kt_window_cum_mem(const struct kt_window *w)
{
	size_t m = ((size_t)w->cumtmpcap + w->cumtmp2cap) * sizeof(*w->cumtmp) +
		   (size_t)w->cumpkcap * 2 * sizeof(*w->cumpk) +
		   (size_t)w->cumscrcap * sizeof(*w->cumscr) + (size_t)w->cumqcap * sizeof(*w->cumq) +
		   (size_t)w->ncumrun * (sizeof(*w->cumrun) + sizeof(*w->cumlv));

	for (uint32_t li = 0; li < w->ncumrun; li++)
		m += ((size_t)w->cumrun[li].cap + w->cumlv[li].del.cap) * sizeof(*w->cumrun[li].u) +
		     (size_t)w->cumlv[li].ixcap * sizeof(*w->cumlv[li].ix) +
		     (size_t)w->cumlv[li].nbloom * sizeof(*w->cumlv[li].bloom);
	return m;
}

void kt_window_cum_free(struct kt_window *w)
{
	for (uint32_t li = 0; li < w->ncumrun; li++) {
		free(w->cumrun[li].u);
		free(w->cumlv[li].del.u);
		free(w->cumlv[li].ix);
		free(w->cumlv[li].bloom);
	}
	free(w->cumrun);
	free(w->cumlv);
	w->cumlv = NULL;
	free(w->cumtmp);
	free(w->cumtmp2);
	free(w->cumscr);
	free(w->cumpk);
	free(w->cumq);
	w->cumq = NULL;
	w->cumqcap = 0;
	w->cumpk = NULL;
	w->cumpkcap = 0;
	w->cumrun = NULL;
	w->cumtmp = w->cumtmp2 = NULL;
	w->cumscr = NULL;
	w->ncumrun = w->cumtmpcap = w->cumtmp2cap = w->cumscrcap = 0;
}
