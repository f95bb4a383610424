/* The CPU view from tables kept between refreshes (issue 14). Its rows need each CPU's
 * kernel, user and idle hits, its recent rate and its top function and module: the (function,
 * CPU) pairs of the window, which on a big machine are nearly as many as its samples. Merged
 * from the window's logs on every refresh they were most of a 256-CPU batch report's cost.
 * Here per-CPU running sums by function and module, and by class, take each complete slice
 * in once, at the first query after it completes (a slice never changes once complete), and
 * give its hits back as it leaves the window, told by the window's expire hook and summed by
 * key per run of a CPU's hits the same way (so no slice's table is kept: only its class
 * counts, for the recent rate). A query reads
 * the open slice into a table of its own, whose keys' totals join the running sums as
 * candidates for each CPU's tops. Exact: the same rows as the projection path (test_agg_proj
 * compares them refresh after refresh while slices expire). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agg_impl.h"
#include "kerntop/util.h"

#define KEY_MODULE 0x80000000u /* a module key; a function's id has the bit clear */

enum { CLS_USER, CLS_IDLE, CLS_KERNEL, NCLS };

struct cent {
	uint32_t cpu, key, hits;
};

/* One slice's counts: per CPU its classes, and (the open slice's) its kernel hits by function
 * and module (a key may repeat within a CPU when its samples were not contiguous in the logs).
 * A complete slice keeps its classes only: its keys went into the running sums. */
struct cslice {
	uint64_t no;	/* slice number + 1; 0 = empty */
	uint64_t *cls;	/* NCLS per CPU */
	struct cent *e; /* sorted by CPU: CPU c's are e[off[c], off[c + 1]) */
	uint32_t *off;
	uint32_t n, cap;
	int odd;  /* a hit of a CPU past max_cpu, or a sum past 2^32: not answered here */
	int dups; /* a CPU's entries came in more than one run: a key may repeat */
};

/* One CPU's running sums by key: open addressing on key + 1 (0 empty), at most 3/4 full, 8
 * bytes a key (the running sums were most of a 256-CPU batch report's memory). A sum past
 * 2^32 hits (only a recording's weighted samples reach it) makes the view the projection's.
 * A slice's entries come in runs of one CPU, so applying a run stays in one small table. */
struct cslot {
	uint32_t key1, hits;
};

struct crun {
	struct cslot *slot;
	uint32_t mask, n; /* a key whose sum falls to zero leaves at once (crun_delete) */
	/* of each kind (function, module): the key with the largest sum (lowest name among
	 * equals; key + 1, 0: none) and a bound on every other key's sum, kept as sums change
	 * (crun_track) so that a query need not scan the table; known 0: rescan */
	uint32_t top[2], topsum[2], bound[2];
	int known;
};

struct kt_cputop {
	uint32_t ncpu;
	struct cslice *ring; /* complete slices' classes, slot slice number % nring */
	uint32_t nring;
	struct cslice open; /* the open slice, made per query */
	/* the running sums hold the slices [inc_lo, inc_hi) that have not left the window */
	uint64_t inc_lo, inc_hi;
	uint32_t unasked; /* slices taken in as they completed since the last query */
	/* the caller asks for the view at every refresh (kt_agg_cputop_expect): the sums
	 * follow the window from its first slice, not from the first query */
	int wanted;
	uint64_t added, early; /* slices taken in; by the move hook */
	uint64_t *cls;		 /* running class sums, NCLS per CPU */
	uint64_t *outcls;	 /* the answer's: with the open slice */
	struct crun *run;	 /* per CPU */
	/* dense scratch while a slice is read or expires: by function rank (locinfo fseen),
	 * then module; all zero between them */
	uint32_t *cnt, *touched;
	uint32_t cntcap;
	/* the expiring slice's run: its CPU, keys touched, and the function ranks then */
	uint32_t xcpu, xnt, xns;
	struct cent *sorted; /* scratch: a slice sorted by CPU, or a run going into the sums */
	uint32_t sortedcap;
	/* the answer */
	uint64_t *recent;
	uint32_t *topf, *topm;
};

/* A location's class: the same for a slice going in (slice_make) and a hit coming out
 * (on_expire), so the sums stay exact. */
static int loc_class(const struct locinfo *li)
{
	return (int)kt_agg_loc_class(li); /* the lkey's classes are the view's (loc_keys) */
}

/* What the loops over every hit read of location loc (below a->nli): its class, and when it
 * is keyed (counted by function and module), its function's rank and its module; 0 when it
 * is not keyed. Through its 8-byte lkey (its 24-byte info was a cache miss a hit at 256
 * CPUs), and through the info for the rare location whose lkey does not say it is keyed. */
static inline int loc_keys(const struct kt_agg *a, uint32_t loc, uint32_t nf, uint32_t nm,
			   int *cls, uint32_t *fseen, uint32_t *mod)
{
	uint64_t k = a->lkey[loc];
	const struct locinfo *li;

	_Static_assert((int)KT_LKEY_USER == (int)CLS_USER && (int)KT_LKEY_IDLE == (int)CLS_IDLE &&
			   (int)KT_LKEY_KERNEL == (int)CLS_KERNEL,
		       "an lkey's class is the view's");
	*cls = (int)kt_lkey_class(k);
	if (k & KT_LKEY_KEYED) {
		*fseen = kt_lkey_fseen(k);
		*mod = kt_lkey_module(k);
		return 1;
	}
	li = &a->li[loc];
	if (!kt_agg_loc_keyed(li, nf, nm))
		return 0;
	*fseen = li->fseen;
	*mod = li->module;
	return 1;
}

static uint32_t key_hash(uint32_t key)
{
	return (key + 1) * 0x9e3779b1u;
}

/* The slot of key in r (its own, or the empty one it would take). */
static uint32_t crun_slot(const struct crun *r, uint32_t key)
{
	uint32_t i = key_hash(key) & r->mask;

	while (r->slot[i].key1 && r->slot[i].key1 != key + 1)
		i = (i + 1) & r->mask;
	return i;
}

/* Rebuilds r with room for need keys (half full). */
static int crun_rebuild(struct crun *r, uint32_t need)
{
	uint32_t cap = 64, om = r->mask;
	struct cslot *old = r->slot;

	while (cap < need * 2)
		cap *= 2;
	r->slot = calloc(cap, sizeof(*r->slot));
	if (!r->slot) {
		r->slot = old;
		return -1;
	}
	r->mask = cap - 1;
	r->n = 0;
	for (uint32_t i = 0; old && i <= om; i++) {
		if (!old[i].key1 || !old[i].hits)
			continue;
		r->slot[crun_slot(r, old[i].key1 - 1)] = old[i];
		r->n++;
	}
	free(old);
	return 0;
}

/* Empties slot i of r, moving back the keys after it that probed past it (linear probing
 * keeps no tombstone: every key stays reachable from its home slot). */
static void crun_delete(struct crun *r, uint32_t i)
{
	for (uint32_t j = (i + 1) & r->mask; r->slot[j].key1; j = (j + 1) & r->mask) {
		uint32_t home = key_hash(r->slot[j].key1 - 1) & r->mask;

		/* the key at j may fill the hole at i when its home is not in (i, j] */
		if (((j - home) & r->mask) >= ((j - i) & r->mask)) {
			r->slot[i] = r->slot[j];
			i = j;
		}
	}
	r->slot[i].key1 = 0;
	r->slot[i].hits = 0;
	r->n--;
}

/* Key's sum became sum (sign: +1 it grew, -1 it shrank): the top and bound of its kind follow,
 * or are left to a rescan when the top may have changed hands (a tie, or the top shrinking
 * to the bound). */
static void crun_track(struct crun *r, uint32_t key, uint32_t sum, int sign)
{
	int m = !!(key & KEY_MODULE);

	if (!r->known)
		return;
	if (r->top[m] == key + 1) {
		r->topsum[m] = sum;
		if (sign < 0 && sum <= r->bound[m])
			r->known = 0;
	} else if (sign > 0) {
		if (sum > r->topsum[m]) {
			if (r->topsum[m] > r->bound[m])
				r->bound[m] = r->topsum[m];
			r->top[m] = key + 1;
			r->topsum[m] = sum;
		} else if (sum == r->topsum[m]) {
			r->known = 0; /* the names decide */
		} else if (sum > r->bound[m]) {
			r->bound[m] = sum;
		}
	}
}

static void slice_reset(struct cslice *s, uint32_t ncpu)
{
	s->no = 0;
	s->n = 0;
	s->odd = s->dups = 0;
	if (s->cls)
		memset(s->cls, 0, (size_t)ncpu * NCLS * sizeof(*s->cls));
}

static void slice_free(struct cslice *s)
{
	free(s->cls);
	free(s->e);
	free(s->off);
	memset(s, 0, sizeof(*s));
}

static void running_reset(struct kt_cputop *t)
{
	memset(t->cls, 0, (size_t)t->ncpu * NCLS * sizeof(*t->cls));
	for (uint32_t c = 0; c < t->ncpu; c++) {
		free(t->run[c].slot);
		memset(&t->run[c], 0, sizeof(t->run[c]));
	}
	t->inc_lo = t->inc_hi = 0;
}

void kt_agg_cputop_free(struct kt_agg *a)
{
	struct kt_cputop *t = a->cputop;

	if (!t)
		return;
	kt_window_set_expire_hook(a->w, NULL, NULL);
	for (uint32_t i = 0; t->ring && i < t->nring; i++)
		slice_free(&t->ring[i]);
	free(t->ring);
	slice_free(&t->open);
	if (t->run && t->cls)
		running_reset(t);
	free(t->run);
	free(t->cls);
	free(t->outcls);
	free(t->cnt);
	free(t->touched);
	free(t->sorted);
	free(t->recent);
	free(t->topf);
	free(t->topm);
	free(t);
	a->cputop = NULL;
}

/* The state for ncpu CPUs and a ring of nring slices; a new one when either changed. */
static void on_expire(void *ctx, uint64_t no, const struct kt_hit *h, size_t n);

static struct kt_cputop *state(struct kt_agg *a, uint32_t ncpu, uint32_t nring)
{
	struct kt_cputop *t = a->cputop;

	if (t && t->ncpu == ncpu && t->nring >= nring)
		return t;
	kt_agg_cputop_free(a);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	a->cputop = t;
	t->ncpu = ncpu;
	t->nring = nring;
	t->ring = calloc(nring, sizeof(*t->ring));
	t->cls = calloc((size_t)ncpu * NCLS, sizeof(*t->cls));
	t->outcls = calloc((size_t)ncpu * NCLS, sizeof(*t->outcls));
	t->run = calloc(ncpu, sizeof(*t->run));
	t->recent = calloc(ncpu, sizeof(*t->recent));
	t->topf = calloc(ncpu, sizeof(*t->topf));
	t->topm = calloc(ncpu, sizeof(*t->topm));
	if (!t->ring || !t->cls || !t->outcls || !t->run || !t->recent || !t->topf || !t->topm) {
		kt_agg_cputop_free(a);
		return NULL;
	}
	kt_window_set_expire_hook(a->w, on_expire, a);
	return t;
}

static int run_apply(struct crun *r, const struct cent *e, uint32_t n, int sign);

/* Takes the touched dense counts of one CPU's run: added to (sign 1: a complete slice) or
 * taken from (-1: an expiring one) CPU cpu's running sums, or appended to s (0: the open
 * slice; a run that does not follow its CPU's predecessors' may repeat a key of an earlier
 * run of that CPU). */
static int flush_run(const struct kt_agg *a, struct kt_cputop *t, struct cslice *s, uint32_t cpu,
		     uint32_t nt, uint32_t ns, int sign)
{
	struct cent *e;

	if (sign) {
		if (kt_grow((void **)&t->sorted, &t->sortedcap, nt, sizeof(*t->sorted)) < 0)
			return -1;
		e = t->sorted;
	} else {
		if (kt_grow((void **)&s->e, &s->cap, s->n + nt, sizeof(*s->e)) < 0)
			return -1;
		if (s->n && s->e[s->n - 1].cpu >= cpu)
			s->dups = 1;
		e = s->e + s->n;
		s->n += nt;
	}
	for (uint32_t j = 0; j < nt; j++) {
		uint32_t k = t->touched[j];
		uint32_t key = k < ns ? a->seenfunc[k] : KEY_MODULE | (k - ns);

		e[j] = (struct cent){cpu, key, t->cnt[k]};
		t->cnt[k] = 0;
	}
	return sign ? run_apply(&t->run[cpu], e, nt, sign) : 0;
}

/* Sizes the dense scratch for ns function ranks, nm modules and the CPUs: -1 when it cannot. */
static int scratch_fit(struct kt_cputop *t, uint32_t ns, uint32_t nm)
{
	uint32_t cap;

	if (ns + nm + 1 <= t->cntcap && t->ncpu <= t->cntcap)
		return 0;
	cap = (ns + nm > t->ncpu ? ns + nm : t->ncpu) + 1024;
	free(t->cnt);
	free(t->touched);
	t->cnt = calloc(cap, sizeof(*t->cnt));
	t->touched = malloc(cap * sizeof(*t->touched));
	t->cntcap = t->cnt && t->touched ? cap : 0;
	return t->cntcap ? 0 : -1;
}

/* Orders s's entries by CPU (the logs are read a CPU at a time, so they nearly always are)
 * and sets its per-CPU offsets. */
static int sort_by_cpu(struct kt_cputop *t, struct cslice *s)
{
	uint32_t *off = s->off, sorted = 1;

	memset(off, 0, ((size_t)t->ncpu + 1) * sizeof(*off));
	for (uint32_t i = 0; i < s->n; i++) {
		off[s->e[i].cpu + 1]++;
		sorted &= !i || s->e[i - 1].cpu <= s->e[i].cpu;
	}
	for (uint32_t c = 0; c < t->ncpu; c++)
		off[c + 1] += off[c];
	if (sorted)
		return 0;
	if (kt_grow((void **)&t->sorted, &t->sortedcap, s->n, sizeof(*t->sorted)) < 0)
		return -1;
	{
		uint32_t *at = t->touched; /* free once the runs are flushed; slice_make sizes it
					    * for ncpu as well */

		memcpy(at, off, (size_t)t->ncpu * sizeof(*at));
		for (uint32_t i = 0; i < s->n; i++)
			t->sorted[at[s->e[i].cpu]++] = s->e[i];
		memcpy(s->e, t->sorted, (size_t)s->n * sizeof(*s->e));
	}
	return 0;
}

/* Reads the slices the cursor covers into s; direct: their keys go into the running sums
 * instead (s keeps the classes). */
static int slice_make(struct kt_agg *a, struct kt_cputop *t, struct cslice *s,
		      struct kt_window_cursor *c, int direct)
{
	uint32_t nf = kt_sym_nfuncs(a->s), nm = kt_sym_nmodules(a->s), nloc = kt_sym_nlocs(a->s);
	uint32_t ns;
	uint32_t cpu = UINT32_MAX, nt = 0;
	struct kt_hit buf[512];
	size_t n;

	if (!s->cls && !(s->cls = calloc((size_t)t->ncpu * NCLS, sizeof(*s->cls))))
		return -1;
	if (!direct && !s->off && !(s->off = calloc((size_t)t->ncpu + 1, sizeof(*s->off))))
		return -1;
	slice_reset(s, t->ncpu);
	/* every location of the query has its info, so no function gets a rank while it runs */
	if (nloc)
		kt_agg_loc(a, nloc - 1);
	ns = a->nseen;
	if (scratch_fit(t, ns, nm) < 0)
		return -1;
	while ((n = kt_window_read(a->w, c, buf, sizeof(buf) / sizeof(buf[0])))) {
		for (size_t i = 0; i < n; i++) {
			uint32_t k[2], fseen, mod;
			int cls, keyed;

			/* a location's key is a miss at 256 CPUs: fetched 8 records ahead (the
			 * keys made do not move while this runs) */
			if (i + 8 < n && buf[i + 8].loc < a->nli)
				KT_PREFETCH(&a->lkey[buf[i + 8].loc]);
			if (buf[i].cpu != cpu && nt) {
				int e = flush_run(a, t, s, cpu, nt, ns, direct);

				if (e < 0)
					goto fail;
				s->odd |= e;
				nt = 0;
			}
			cpu = buf[i].cpu;
			if (buf[i].cpu >= t->ncpu) {
				s->odd = 1;
				continue;
			}
			if (buf[i].loc >= nloc)
				continue; /* interned after the query began: not counted by it */
			if (buf[i].loc >= a->nli) { /* no info (out of memory): unknown */
				const struct locinfo *li = kt_agg_loc(a, buf[i].loc);

				s->cls[(size_t)buf[i].cpu * NCLS + loc_class(li)] += buf[i].hits;
				continue;
			}
			keyed = loc_keys(a, buf[i].loc, nf, nm, &cls, &fseen, &mod);
			s->cls[(size_t)buf[i].cpu * NCLS + cls] += buf[i].hits;
			if (!keyed)
				continue;
			if (fseen >= ns) {
				s->odd = 1; /* no rank (out of memory) */
				continue;
			}
			k[0] = fseen;
			k[1] = ns + mod;
			for (int m = 0; m < 2; m++) {
				if (buf[i].hits > UINT32_MAX - t->cnt[k[m]]) {
					s->odd = 1; /* 2^32 hits of a (CPU, key) in one slice */
					continue;
				}
				if (!t->cnt[k[m]])
					t->touched[nt++] = k[m];
				t->cnt[k[m]] += (uint32_t)buf[i].hits;
			}
		}
	}
	if (nt) {
		int e = flush_run(a, t, s, cpu, nt, ns, direct);

		if (e < 0)
			goto fail;
		s->odd |= e;
	}
	if (!direct)
		return sort_by_cpu(t, s);
	for (size_t i = 0; i < (size_t)t->ncpu * NCLS; i++)
		t->cls[i] += s->cls[i];
	return 0;
fail:
	memset(t->cnt, 0, t->cntcap * sizeof(*t->cnt));
	return -1;
}

/* Adds (sign 1) or subtracts (sign -1) one CPU's entries of a slice to its running sums: 0,
 * 1 when a sum would pass 2^32 (not added), -1 out of memory. */
static int run_apply(struct crun *r, const struct cent *e, uint32_t n, int sign)
{
	/* room for all of them at once: one rebuild, not one per doubling (a new CPU's first
	 * slice took six) */
	if (sign > 0 && n > 1 &&
	    (!r->slot || ((uint64_t)r->n + n) * 4 > ((uint64_t)r->mask + 1) * 3) &&
	    crun_rebuild(r, r->n + n) < 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct cslot *x;
		uint32_t at;

		/* a few keys ahead: a CPU's table is not in the cache since its last slice */
		if (i + 8 < n && r->slot)
			KT_PREFETCH(&r->slot[key_hash(e[i + 8].key) & r->mask]);
		if (sign > 0 && (!r->slot || (r->n + 1) * 4 > (r->mask + 1) * 3) &&
		    crun_rebuild(r, r->n + 1) < 0)
			return -1;
		if (!r->slot)
			return 0; /* subtracting from nothing: cannot happen */
		at = crun_slot(r, e[i].key);
		x = &r->slot[at];
		if (!x->key1) {
			if (sign < 0)
				continue; /* cannot happen: added before */
			x->key1 = e[i].key + 1;
			x->hits = 0;
			r->n++;
		}
		if (sign > 0 && x->hits > UINT32_MAX - e[i].hits)
			return 1;
		if (sign > 0) {
			x->hits += e[i].hits;
			crun_track(r, e[i].key, x->hits, 1);
		} else if (x->hits > e[i].hits) {
			x->hits -= e[i].hits;
			crun_track(r, e[i].key, x->hits, -1);
		} else {
			crun_delete(r, at);
			crun_track(r, e[i].key, 0, -1);
		}
	}
	return 0;
}

static int slice_apply(struct kt_cputop *t, const struct cslice *s, uint32_t c, int sign)
{
	const uint64_t *x = s->cls + (size_t)c * NCLS;
	uint64_t *y = t->cls + (size_t)c * NCLS;

	for (int k = 0; k < NCLS; k++)
		y[k] = sign > 0 ? y[k] + x[k] : y[k] - x[k];
	return run_apply(&t->run[c], s->e + s->off[c], s->off[c + 1] - s->off[c], sign);
}

/* Takes (id, h) as the new top of its kind when it has more hits, or as many and a lower
 * name (as the projection path picks them). */
static void consider(struct kt_agg *a, uint64_t *best, uint32_t *top, uint32_t key, uint64_t h)
{
	uint32_t id = key & ~KEY_MODULE;
	int m = !!(key & KEY_MODULE);

	if (!h || h < best[m])
		return;
	if (h == best[m] && top[m] != UINT32_MAX) {
		const char *x = m ? kt_agg_module_name(a, id) : kt_agg_func_name(a, id);
		const char *y = m ? kt_agg_module_name(a, top[m]) : kt_agg_func_name(a, top[m]);

		if (strcmp(x, y) >= 0)
			return;
	}
	best[m] = h;
	top[m] = id;
}

/* The top of each kind among r's sums, and the largest of the others: made again when a
 * change of the sums left them unknown. */
static void rescan(struct kt_agg *a, struct crun *r)
{
	uint64_t best[2] = {0, 0};
	uint32_t top[2] = {UINT32_MAX, UINT32_MAX};

	for (uint32_t i = 0; r->slot && i <= r->mask; i++)
		if (r->slot[i].key1)
			consider(a, best, top, r->slot[i].key1 - 1, r->slot[i].hits);
	r->top[0] = top[0] != UINT32_MAX ? top[0] + 1 : 0;
	r->top[1] = top[1] != UINT32_MAX ? (KEY_MODULE | top[1]) + 1 : 0;
	for (int m = 0; m < 2; m++) {
		r->topsum[m] = (uint32_t)best[m];
		r->bound[m] = 0;
	}
	for (uint32_t i = 0; r->slot && i <= r->mask; i++) {
		const struct cslot *x = &r->slot[i];
		int m = !!((x->key1 - 1) & KEY_MODULE);

		if (x->key1 && x->key1 != r->top[m] && x->hits > r->bound[m])
			r->bound[m] = x->hits;
	}
	r->known = 1;
}

/* CPU c's top function and module over its running sums plus the open slice's n entries e
 * (keys not repeated): each key's running sum, and for the open slice's keys their total,
 * are candidates; a key's total is its largest, so the largest candidate is the top. */
static void tops(struct kt_agg *a, struct kt_cputop *t, uint32_t c, const struct cent *e,
		 uint32_t n)
{
	struct crun *r = &t->run[c];
	uint64_t best[2] = {0, 0};
	uint32_t top[2] = {UINT32_MAX, UINT32_MAX};

	if (!r->known)
		rescan(a, r);
	/* every other key's sum is below its kind's top's: the tops are the sums' */
	for (int m = 0; m < 2; m++)
		if (r->top[m])
			consider(a, best, top, r->top[m] - 1, r->topsum[m]);
	/* a key of the open slice: its sum plus its open hits (any other key's total is its
	 * sum, at most its kind's top's) */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t h = e[i].hits;

		if (r->slot) {
			const struct cslot *x = &r->slot[crun_slot(r, e[i].key)];

			if (x->key1)
				h += x->hits;
		}
		consider(a, best, top, e[i].key, h);
	}
	t->topf[c] = top[0];
	t->topm[c] = top[1];
}

/* Takes the complete slice no into the running sums, keeping its classes in the ring: 0, 1
 * when it has a CPU past max_cpu, -1 out of memory (the sums are then partly made). */
static int add_slice(struct kt_agg *a, struct kt_cputop *t, uint64_t no)
{
	struct cslice *s = &t->ring[no % t->nring];
	struct kt_window_cursor c;

	kt_window_cursor_slice(a->w, (uint32_t)(kt_window_newest(a->w) - no), &c);
	if (slice_make(a, t, s, &c, 1) < 0) {
		slice_reset(s, t->ncpu);
		return -1;
	}
	s->no = no + 1;
	t->added++;
	return s->odd;
}

/* The expiring slice's run so far leaves CPU xcpu's running sums: 0, or -1 when the sums
 * could not take it (they start over at the next query). */
static int expire_flush(struct kt_agg *a, struct kt_cputop *t)
{
	int e = 0;

	if (t->xnt && flush_run(a, t, NULL, t->xcpu, t->xnt, t->xns, -1) != 0)
		e = -1;
	t->xnt = 0;
	return e;
}

/* The window's expire hook: n hits of slice no leave the window (n 0: the slice is done);
 * one of the running sums' slices gives them back, by key per run of a CPU's hits (a run
 * of a CPU's hits shares its functions and modules: one update a key, not one a hit). Their
 * slice was read by add_slice, so their locations' info and ranks are made. */
static void on_expire(void *ctx, uint64_t no, const struct kt_hit *h, size_t n)
{
	struct kt_agg *a = ctx;
	struct kt_cputop *t = a->cputop;
	uint32_t nf, nm, ns;

	if (!t || no < t->inc_lo || no >= t->inc_hi)
		return;
	if (!n) {
		if (expire_flush(a, t) < 0)
			running_reset(t);
		return;
	}
	nf = kt_sym_nfuncs(a->s);
	nm = kt_sym_nmodules(a->s);
	if (!t->xnt) { /* between runs: the scratch may move */
		t->xns = a->nseen;
		if (scratch_fit(t, t->xns, nm) < 0)
			goto reset;
	}
	ns = t->xns;
	for (size_t i = 0; i < n; i++) /* their location keys are misses: fetched together */
		if (h[i].loc < a->nli)
			KT_PREFETCH(&a->lkey[h[i].loc]);
	for (size_t i = 0; i < n; i++) {
		uint32_t k[2], fseen, mod;
		int cls, keyed;

		if (h[i].cpu >= t->ncpu)
			continue;
		if (h[i].loc >= a->nli)
			goto reset; /* cannot happen */
		if (h[i].cpu != t->xcpu && expire_flush(a, t) < 0)
			goto reset;
		t->xcpu = h[i].cpu;
		keyed = loc_keys(a, h[i].loc, nf, nm, &cls, &fseen, &mod);
		t->cls[(size_t)h[i].cpu * NCLS + cls] -= h[i].hits;
		if (!keyed)
			continue;
		if (fseen >= ns || ns + mod >= t->cntcap)
			goto reset; /* cannot happen: add_slice ranked it */
		k[0] = fseen;
		k[1] = ns + mod;
		for (int m = 0; m < 2; m++) {
			if (h[i].hits > UINT32_MAX - t->cnt[k[m]])
				goto reset; /* cannot happen: it came in as a sum below 2^32 */
			if (!t->cnt[k[m]])
				t->touched[t->xnt++] = k[m];
			t->cnt[k[m]] += (uint32_t)h[i].hits;
		}
	}
	return;
reset:
	for (uint32_t j = 0; j < t->xnt; j++)
		t->cnt[t->touched[j]] = 0;
	t->xnt = 0;
	running_reset(t);
}

/* Whether the kept tables can answer this CPU view: a filter on CPUs only, the rolling
 * window, no baseline, no per-CPU columns. */
static int applies(const struct kt_agg *a, const struct kt_query *q)
{
	const struct kt_filter *f = &q->filter;

	return a->project && !a->irq_owner && !a->base && !q->per_cpu &&
	       !kt_window_cumulative(a->w) && f->task == KT_ANY && f->module == KT_ANY &&
	       f->ctx == KT_ANY && !f->hide_idle && a->p.max_cpu;
}

/* Brings the running sums to the complete slices [lo, hi) of the window: those that left
 * gave their hits back as they expired; those that completed since are added now. 0, 1 when
 * a slice has a CPU past max_cpu, -1 out of memory (then the sums start over next time). A
 * window reaching back past the sums' first slice (a longer span) or with none of their
 * slices left starts over. */
static int prepare(struct kt_agg *a, struct kt_cputop *t, uint64_t lo, uint64_t hi)
{
	if (lo < t->inc_lo || t->inc_hi > hi || t->inc_hi <= lo) {
		running_reset(t);
		t->inc_lo = t->inc_hi = lo;
	}
	t->inc_lo = lo;
	for (uint64_t no = t->inc_hi; no < hi; no++) {
		int e = add_slice(a, t, no);

		if (e) {
			running_reset(t);
			return e;
		}
		t->inc_hi = no + 1;
	}
	return 0;
}

/* The slices the window holds complete: [newest - done, newest) in *lo, *hi; the ring the
 * sums need for them. */
static uint32_t complete(const struct kt_agg *a, uint64_t *lo, uint64_t *hi)
{
	uint64_t newest = kt_window_newest(a->w), slice = kt_window_slice(a->w);
	uint32_t done = kt_window_slices_done(a->w);
	uint32_t nring = (uint32_t)(slice ? kt_window_span(a->w) / slice : 0) + 4;

	*lo = newest - done;
	*hi = newest;
	return nring > done + 2 ? nring : done + 2;
}

/* A slice completed (the window's move hook, agg.c): the slices that completed are taken
 * into the running sums now, as
 * the samples come, instead of in the next refresh (issue 14: two slices of a 256-CPU
 * machine were 8 of a batch refresh's 15 ms). Only while the CPU view is asked for: after
 * UNASKED_MAX slices without a query the sums wait, and the next query catches up. A caller
 * that asks at every refresh (kt_agg_cputop_expect: batch reports) has them follow the window
 * from its first slice, so that the first report does not take in every slice so far. */
#define UNASKED_MAX 4
void kt_agg_cputop_moved(struct kt_agg *a)
{
	struct kt_cputop *t = a->cputop;
	uint64_t lo, hi, n0;
	int e;

	if (!t || (t->inc_hi == t->inc_lo && !t->wanted) || t->unasked >= UNASKED_MAX ||
	    complete(a, &lo, &hi) > t->nring)
		return; /* not in use, not asked for lately, or a longer span: the query sees to it */
	t->unasked++;
	n0 = t->added;
	e = prepare(a, t, lo, hi);
	t->early += t->added - n0;
	if (e != 0) {
		running_reset(t);
		if (e > 0)
			t->wanted = 0; /* a CPU past max_cpu: the queries answer from the logs */
		return;
	}
	/* the tops the new slice left unknown, found now rather than by the next query */
	for (uint32_t c = 0; c < t->ncpu; c++)
		if (!t->run[c].known)
			rescan(a, &t->run[c]);
}

void kt_agg_cputop_expect(struct kt_agg *a, const struct kt_query *q)
{
	uint64_t lo, hi;
	uint32_t nring;
	struct kt_cputop *t;

	if (!applies(a, q))
		return;
	nring = complete(a, &lo, &hi);
	t = state(a, a->p.max_cpu, nring);
	if (t)
		t->wanted = 1;
}

int kt_agg_cputop(struct kt_agg *a, const struct kt_query *q, struct kt_cpuview *v)
{
	uint64_t newest = kt_window_newest(a->w), rlen, lo, hi;
	uint32_t ncpu = a->p.max_cpu, nring = complete(a, &lo, &hi);
	struct kt_window_cursor c, rc;
	struct kt_cputop *t;
	const struct cslice *rs = NULL;
	int e;

	/* the recent slice: the open one, a complete one still in the window, or the copy
	 * kt_window_recent made (a one-slice window, a span change, a jump in time) */
	if (!applies(a, q))
		return 0;
	if (kt_window_cursor_recent(a->w, &rc, &rlen) < 0)
		rc.slice = UINT64_MAX;
	else if (rc.slice != newest && (rc.slice < lo || rc.slice >= hi))
		return 0;
	t = state(a, ncpu, nring);
	if (!t)
		return -1;
	t->unasked = 0;
	e = prepare(a, t, lo, hi);
	if (e) {
		running_reset(t);
		return e < 0 ? -1 : 0;
	}
	/* the open slice, for this answer only */
	kt_window_cursor_rolling(a->w, &c);
	c.slice = c.last = newest;
	if (slice_make(a, t, &t->open, &c, 0) < 0)
		return -1;
	if (t->open.odd)
		return 0;
	if (rc.slice == newest)
		rs = &t->open;
	else if (rc.slice != UINT64_MAX && (rs = &t->ring[rc.slice % t->nring])->no != rc.slice + 1)
		return 0; /* cannot happen: [lo, hi) were just added */
	/* a CPU at a time: its tops among the running sums and the open slice's totals */
	for (uint32_t cpu = 0; cpu < ncpu; cpu++) {
		const uint64_t *x = rs ? rs->cls + (size_t)cpu * NCLS : NULL;
		struct crun *r = &t->run[cpu];

		/* a table left far too big by a burst of keys is made smaller */
		if (r->mask >= 256 && (uint64_t)r->n * 8 < (uint64_t)r->mask + 1 &&
		    crun_rebuild(r, r->n) < 0)
			goto nomem;
		for (int k = 0; k < NCLS; k++)
			t->outcls[(size_t)cpu * NCLS + k] =
			    t->cls[(size_t)cpu * NCLS + k] + t->open.cls[(size_t)cpu * NCLS + k];
		if (!t->open.dups) {
			tops(a, t, cpu, t->open.e + t->open.off[cpu],
			     t->open.off[cpu + 1] - t->open.off[cpu]);
		} else if ((e = slice_apply(t, &t->open, cpu, 1)) != 0) {
			running_reset(t); /* in part: the sums start over next time */
			return e < 0 ? -1 : 0;
		} else {
			/* a key may repeat: the open slice in and out of the sums around them */
			tops(a, t, cpu, NULL, 0);
			slice_apply(t, &t->open, cpu, -1);
		}
		t->recent[cpu] = x ? x[CLS_USER] + x[CLS_IDLE] + x[CLS_KERNEL] : 0;
	}
	if (!rs) {
		size_t nr;
		const struct kt_hit *h = kt_window_recent(a->w, &nr, &rlen);

		for (size_t i = 0; i < nr; i++)
			if (h[i].cpu < ncpu)
				t->recent[h[i].cpu] += h[i].hits;
	}
	*v = (struct kt_cpuview){ncpu, t->outcls, t->recent, rlen, t->topf, t->topm};
	a->cputop_answers++;
	return 1;
nomem:
	running_reset(t);
	return -1;
}

uint64_t kt_agg_cputop_early(const struct kt_agg *a)
{
	return a->cputop ? a->cputop->early : 0;
}

uint64_t kt_agg_cputop_answers(const struct kt_agg *a)
{
	return a->cputop_answers;
}
