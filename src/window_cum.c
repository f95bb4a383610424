/* The since-start totals of the expired slices, kept as the slices keep their samples: one
 * run of log records per log (per CPU), sorted by key (location, stack, task, context, CPU)
 * with each key once. A record is 8 bytes for nearly every key of a run without -g (16 with
 * a stack, 32 past 65 535 hits), where a hashed table of full tuples took 48: on a 256-CPU
 * machine these totals were most of the viewer's memory. An expiring slice's log is sorted
 * and merged into its run in one pass; the since-start view decodes the runs and finds the
 * rolling tuples in them by binary search. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "window_impl.h"

/* past this many bytes the scratch arrays are given back after each use: a small machine's
 * runs may be long, and its viewer's memory small */
#define CUM_SCRATCH_KEEP (256u << 10)

static inline int key_cmp(const struct kt_hit *a, const struct kt_hit *b)
{
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	if (a->stack != b->stack)
		return a->stack < b->stack ? -1 : 1;
	if (a->task != b->task)
		return a->task < b->task ? -1 : 1;
	if (a->ctx != b->ctx)
		return a->ctx < b->ctx ? -1 : 1;
	return a->cpu < b->cpu ? -1 : a->cpu > b->cpu;
}

/* Sorts h[0, n) by key, through t (room for n): a bottom-up merge sort over runs of 8 sorted
 * by insertion, O(n log n) whatever the samples (qsort's calls were a tenth of the viewer's
 * time at 256 CPUs). Returns the array that holds the result, h or t. */
static struct kt_hit *sort_keys(struct kt_hit *h, struct kt_hit *t, uint32_t n)
{
	for (uint32_t lo = 0; lo < n; lo += 8) {
		uint32_t hi = n - lo < 8 ? n : lo + 8;

		for (uint32_t i = lo + 1; i < hi; i++) {
			struct kt_hit x = h[i];
			uint32_t j = i;

			for (; j > lo && key_cmp(&h[j - 1], &x) > 0; j--)
				h[j] = h[j - 1];
			h[j] = x;
		}
	}
	for (uint32_t width = 8; width < n; width *= 2) {
		struct kt_hit *swap;

		for (uint32_t lo = 0; lo < n; lo += 2 * width) {
			uint32_t mid = n - lo < width ? n : lo + width;
			uint32_t hi = n - mid < width ? n : mid + width, i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				t[k++] = key_cmp(&h[j], &h[i]) < 0 ? h[j++] : h[i++];
			while (i < mid)
				t[k++] = h[i++];
			while (j < hi)
				t[k++] = h[j++];
		}
		swap = h;
		h = t;
		t = swap;
	}
	return h;
}

/* A record without a stack, of one CPU, packed in one 64-bit key of the same order as
 * key_cmp's (location, task, context) when its task and context fit, with its hits. */
struct cum_packed {
	uint64_t key, hits;
};

#define PACK_TASK_BITS 20
#define PACK_CTX_BITS 12

/* Sorts a few packed records p[0, n) by key, in place, by insertion. */
static void insert_packed(struct cum_packed *p, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		struct cum_packed x = p[i];
		uint32_t j = i;

		for (; j > 0 && p[j - 1].key > x.key; j--)
			p[j] = p[j - 1];
		p[j] = x;
	}
}

/* Sorts p[0, n) by key through t (room for n), least significant byte first, skipping the
 * bytes every key shares (a log's keys differ in a few: the location's and the task's low
 * ones): a few passes over the records where a merge sort compares log2(n) times each;
 * returns the array that holds the result, p or t. */
static struct cum_packed *radix_packed(struct cum_packed *p, struct cum_packed *t, uint32_t n)
{
	uint32_t cnt[8][256];

	memset(cnt, 0, sizeof(cnt));
	for (uint32_t i = 0; i < n; i++)
		for (unsigned d = 0; d < 8; d++)
			cnt[d][(p[i].key >> (8 * d)) & 255]++;
	for (unsigned d = 0; d < 8; d++) {
		struct cum_packed *swap;
		uint32_t sum = 0;

		if (cnt[d][(p[0].key >> (8 * d)) & 255] == n)
			continue; /* every key has this byte */
		for (unsigned b = 0; b < 256; b++) {
			uint32_t c = cnt[d][b];

			cnt[d][b] = sum;
			sum += c;
		}
		for (uint32_t i = 0; i < n; i++)
			t[cnt[d][(p[i].key >> (8 * d)) & 255]++] = p[i];
		swap = p;
		p = t;
		t = swap;
	}
	return p;
}

/* Sorts h[0, n) by key in place when every record packs (no stack, one CPU, task and
 * context small: a log of a run without -g, nearly always), comparing one 64-bit key instead
 * of five fields (the sort was a seventh of the 256-CPU viewer's CPU): 0, or -1 when the
 * records do not pack or the packed arrays cannot be had (h is unchanged). */
static int sort_fast(struct kt_window *w, struct kt_hit *h, uint32_t n)
{
	uint32_t cpu = n ? h[0].cpu : 0;
	struct cum_packed *r;

	for (uint32_t i = 0; i < n; i++)
		if (h[i].stack || h[i].cpu != cpu || h[i].task >> PACK_TASK_BITS ||
		    h[i].ctx >> PACK_CTX_BITS)
			return -1;
	if (n > w->cumpkcap) { /* as big as the scratch arrays: it grows and shrinks with them */
		uint32_t cap = n > w->cumtmpcap ? n : w->cumtmpcap;
		struct cum_packed *p = malloc((size_t)2 * cap * sizeof(*p));

		if (!p)
			return -1;
		free(w->cumpk);
		w->cumpk = p;
		w->cumpkcap = cap;
	}
	for (uint32_t i = 0; i < n; i++)
		w->cumpk[i] = (struct cum_packed){(uint64_t)h[i].loc << 32 |
						      (uint64_t)h[i].task << PACK_CTX_BITS | h[i].ctx,
						  h[i].hits};
	r = w->cumpk;
	if (n < 32)
		insert_packed(r, n);
	else
		r = radix_packed(r, r + n, n);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t k = r[i].key;

		h[i] = (struct kt_hit){(uint32_t)(k >> 32), 0, cpu,
				       (uint32_t)(k >> PACK_CTX_BITS) & ((1u << PACK_TASK_BITS) - 1),
				       (uint32_t)k & ((1u << PACK_CTX_BITS) - 1), r[i].hits};
	}
	return 0;
}

/* Sorts the n records of one scratch array (cumtmp or cumtmp2) by key and adds up repeated
 * keys; returns the array that holds them, and their number in *n. (Keys that meet in a
 * run's remap or a fold have no stack: no stack reference is merged away.) */
static struct kt_hit *sort_merge(struct kt_window *w, struct kt_hit *h, uint32_t *n)
{
	uint32_t j = 0;

	if (sort_fast(w, h, *n) < 0)
		h = sort_keys(h, h == w->cumtmp ? w->cumtmp2 : w->cumtmp, *n);
	for (uint32_t i = 0; i < *n; i++) {
		if (j && !key_cmp(&h[j - 1], &h[i]))
			h[j - 1].hits += h[i].hits;
		else
			h[j++] = h[i];
	}
	*n = j;
	return h;
}

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

/* Makes the first out units of the scratch run run li's records. */
static int run_store(struct kt_window *w, uint32_t li, uint32_t out)
{
	struct wlog *r = &w->cumrun[li];

	if (kt_grow_snug((void **)&r->u, &r->cap, out, sizeof(*r->u)) < 0)
		return -1;
	if (out)
		memcpy(r->u, w->cumscr, (size_t)out * sizeof(*r->u));
	r->n = out;
	return 0;
}

/* Encodes h[0, n) (sorted, each key once) as run li, through the scratch run (a record takes
 * one to four units: the run is sized to what they took). */
static int encode_run(struct kt_window *w, uint32_t li, const struct kt_hit *h, uint32_t n)
{
	uint32_t out = 0;

	if (kt_grow((void **)&w->cumscr, &w->cumscrcap, 4 * n, sizeof(*w->cumscr)) < 0)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		out += wlog_encode(&w->cumscr[out], li, &h[i], 0);
	return run_store(w, li, out);
}

/* Whether a new key may have a record of its own: past max_cum only "no stack, task [other]"
 * keys may, the others fold into theirs. */
static int admitted(const struct kt_window *w, const struct kt_hit *h, uint32_t ncum)
{
	return ncum < w->max_cum || (!h->stack && h->task == w->other_task);
}

/* Past the cap: folds the new keys of a[0, *n) (a scratch array) that run r has no record of
 * and that the cap does not admit (in key order, as the merge meets them) into "no stack,
 * task [other]", then sorts and adds them up again; returns the array that holds them. */
static struct kt_hit *fold_new(struct kt_window *w, const struct wlog *r, uint32_t li,
			       struct kt_hit *a, uint32_t *n)
{
	uint32_t i = 0, pos = 0, ncum = w->ncum, folded = 0;
	struct kt_hit x;
	int have = 0;

	while (i < *n) {
		int c;

		if (!have && pos < r->n) {
			pos += wlog_decode(r, li, pos, &x);
			have = 1;
		}
		c = have ? key_cmp(&x, &a[i]) : 1;
		if (c <= 0)
			have = 0;
		if (c < 0)
			continue;
		if (c > 0) {
			if (admitted(w, &a[i], ncum)) {
				ncum++;
			} else {
				a[i].stack = 0;
				a[i].task = kt_window_group(w, NULL);
				folded = 1;
			}
		}
		i++;
	}
	return folded ? sort_merge(w, a, n) : a;
}

/* Merges a[0, n) (sorted, each key once) into run li through the scratch run. */
static int merge_run(struct kt_window *w, uint32_t li, const struct kt_hit *a, uint32_t n)
{
	struct wlog *r = &w->cumrun[li];
	uint32_t i = 0, pos = 0, out = 0;
	struct kt_hit x, y;
	int have = 0;

	if (kt_grow((void **)&w->cumscr, &w->cumscrcap, r->n + 4 * n, sizeof(*w->cumscr)) < 0)
		return -1;
	for (;;) {
		int c;

		if (!have && pos < r->n) {
			pos += wlog_decode(r, li, pos, &x);
			have = 1;
		}
		if (!have && i >= n)
			break;
		c = !have ? 1 : i < n ? key_cmp(&x, &a[i]) : -1;
		if (c <= 0) {
			y = x;
			have = 0;
		} else {
			y = a[i];
			y.hits = 0;
			w->ncum++;
			kt_window_stack_ref(w, y.stack, 0);
		}
		if (c >= 0) {
			y.hits += a[i].hits;
			w->base_total += a[i].hits;
			i++;
		}
		out += wlog_encode(&w->cumscr[out], li, &y, 0);
	}
	return run_store(w, li, out);
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
	if ((size_t)w->cumscrcap * sizeof(*w->cumscr) > CUM_SCRATCH_KEEP) {
		free(w->cumscr);
		w->cumscr = NULL;
		w->cumscrcap = 0;
	}
}

/* Room for run li. */
static int run_room(struct kt_window *w, uint32_t li)
{
	uint32_t old = w->ncumrun;

	if (li < old)
		return 0;
	if (kt_grow((void **)&w->cumrun, &w->ncumrun, li + 1, sizeof(*w->cumrun)) < 0)
		return -1;
	memset(w->cumrun + old, 0, (w->ncumrun - old) * sizeof(*w->cumrun));
	return 0;
}

void kt_window_cum_fold(struct kt_window *w, const struct slice *s)
{
	for (uint32_t li = 0; li < s->nlog; li++) {
		const struct wlog *l = &s->log[li];
		struct kt_hit *a;
		uint32_t n;

		if (!l->n)
			continue;
		n = decode_all(w, l, li);
		if (n == UINT32_MAX || run_room(w, li) < 0) {
			w->nomem++;
			continue;
		}
		a = sort_merge(w, w->cumtmp, &n);
		if (w->ncum + n > w->max_cum)
			a = fold_new(w, &w->cumrun[li], li, a, &n);
		if (merge_run(w, li, a, n) < 0)
			w->nomem++;
	}
	scratch_trim(w);
}

void kt_window_cum_remap(struct kt_window *w, const uint32_t *map)
{
	w->ncum = 0;
	for (uint32_t li = 0; li < w->ncumrun; li++) {
		uint32_t n = decode_all(w, &w->cumrun[li], li);
		struct kt_hit *a;

		if (n == UINT32_MAX) {
			w->nomem++; /* the run stays as it was */
			for (uint32_t pos = 0; pos < w->cumrun[li].n; w->ncum++)
				pos += wlog_decode(&w->cumrun[li], li, pos, &(struct kt_hit){0});
			continue;
		}
		for (uint32_t i = 0; i < n; i++) {
			struct kt_hit *h = &w->cumtmp[i];

			/* a retired task's hits keep their location and CPU, not their chains:
			 * the groups would otherwise multiply every stack by every command */
			if ((map && map[h->task] != h->task) || (h->stack && w->stk[h->stack].drop)) {
				if (map)
					h->task = map[h->task];
				kt_window_stack_unref(w, h->stack, 0);
				h->stack = 0;
			}
		}
		a = sort_merge(w, w->cumtmp, &n);
		if (encode_run(w, li, a, n) < 0) {
			w->nomem++;
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
		const struct wlog *r = &w->cumrun[li];

		off[li] = (uint32_t)j;
		for (uint32_t pos = 0; pos < r->n;)
			pos += wlog_decode(r, li, pos, &out[j++]);
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

			if (key_cmp(&out[mid], h) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (li < w->ncumrun && lo < off[li + 1] && !key_cmp(&out[lo], h))
			out[lo].hits += h->hits;
		else
			out[j++] = *h;
	}
	free(off);
	return j;
}

size_t kt_window_cum_mem(const struct kt_window *w)
{
	size_t m = ((size_t)w->cumtmpcap + w->cumtmp2cap) * sizeof(*w->cumtmp) +
		   (size_t)w->cumpkcap * 2 * sizeof(*w->cumpk) +
		   (size_t)w->cumscrcap * sizeof(*w->cumscr) +
		   (size_t)w->ncumrun * sizeof(*w->cumrun);

	for (uint32_t li = 0; li < w->ncumrun; li++)
		m += (size_t)w->cumrun[li].cap * sizeof(*w->cumrun[li].u);
	return m;
}

void kt_window_cum_free(struct kt_window *w)
{
	for (uint32_t li = 0; li < w->ncumrun; li++)
		free(w->cumrun[li].u);
	free(w->cumrun);
	free(w->cumtmp);
	free(w->cumtmp2);
	free(w->cumscr);
	free(w->cumpk);
	w->cumpk = NULL;
	w->cumpkcap = 0;
	w->cumrun = NULL;
	w->cumtmp = w->cumtmp2 = NULL;
	w->cumscr = NULL;
	w->ncumrun = w->cumtmpcap = w->cumtmp2cap = w->cumscrcap = 0;
}
