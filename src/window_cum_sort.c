/* The since-start totals' sorts (window_cum.c): an expiring slice's log records, or a run
 * re-keyed by a remap, ordered by key (location, stack, task, context, CPU) with repeated
 * keys added up. Nearly every log packs its keys in 64 bits (96 with a stack) and is sorted
 * by radix; any other by a merge sort. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "window_impl.h"

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

			for (; j > lo && kt_cum_key_cmp(&h[j - 1], &x) > 0; j--)
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
				t[k++] = kt_cum_key_cmp(&h[j], &h[i]) < 0 ? h[j++] : h[i++];
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

/* One radix pass's counts of a digit into the offsets its records go to: 0, or -1 when
 * every record has the digit first has (the pass is skipped). */
static int radix_offsets(uint32_t cnt[256], uint32_t n, unsigned first)
{
	uint32_t sum = 0;

	if (cnt[first] == n)
		return -1;
	for (unsigned b = 0; b < 256; b++) {
		uint32_t c = cnt[b];

		cnt[b] = sum;
		sum += c;
	}
	return 0;
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

		if (radix_offsets(cnt[d], n, (p[0].key >> (8 * d)) & 255) < 0)
			continue; /* every key has this byte */
		for (uint32_t i = 0; i < n; i++)
			t[cnt[d][(p[i].key >> (8 * d)) & 255]++] = p[i];
		swap = p;
		p = t;
		t = swap;
	}
	return p;
}

/* Sorts p[0, n) as radix_packed does, by the 12 bytes of their keys: lo's first (the least
 * significant), then hi's. */
static inline unsigned stk_digit(const struct cum_packed_stk *p, unsigned d)
{
	return d < 4 ? p->lo >> (8 * d) & 255 : (unsigned)(p->hi >> (8 * (d - 4))) & 255;
}

static void insert_stk(struct cum_packed_stk *p, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		struct cum_packed_stk x = p[i];
		uint32_t j = i;

		for (; j > 0 && (p[j - 1].hi > x.hi || (p[j - 1].hi == x.hi && p[j - 1].lo > x.lo));
		     j--)
			p[j] = p[j - 1];
		p[j] = x;
	}
}

static struct cum_packed_stk *radix_stk(struct cum_packed_stk *p, struct cum_packed_stk *t,
					uint32_t n)
{
	uint32_t cnt[12][256];

	memset(cnt, 0, sizeof(cnt));
	for (uint32_t i = 0; i < n; i++)
		for (unsigned d = 0; d < 12; d++)
			cnt[d][stk_digit(&p[i], d)]++;
	for (unsigned d = 0; d < 12; d++) {
		struct cum_packed_stk *swap;

		if (radix_offsets(cnt[d], n, stk_digit(&p[0], d)) < 0)
			continue; /* every key has this byte */
		for (uint32_t i = 0; i < n; i++)
			t[cnt[d][stk_digit(&p[i], d)]++] = p[i];
		swap = p;
		p = t;
		t = swap;
	}
	return p;
}

/* Room for the packed sort's two arrays of n records: 0, or -1. */
static int packed_room(struct kt_window *w, uint32_t n)
{
	uint32_t cap;
	struct cum_packed *p;

	if (n <= w->cumpkcap)
		return 0;
	cap = n > w->cumtmpcap ? n : w->cumtmpcap; /* it grows and shrinks with the scratch */
	p = malloc((size_t)2 * cap * sizeof(*p));
	if (!p)
		return -1;
	free(w->cumpk);
	w->cumpk = p;
	w->cumpkcap = cap;
	return 0;
}

/* Sorts h[0, n) by key in place when every record packs (one CPU, task and context small,
 * and with a stack, hits under 2^32: a slice's log, nearly always), comparing one 64-bit key
 * (or, with stacks, 96 bits) instead of five fields, by radix (the merge sort was a seventh
 * of the 256-CPU viewer's CPU without chains, and with them a third of the since-start fold):
 * 0, or -1 when the records do not pack or the packed arrays cannot be had (h is
 * unchanged). */
static int sort_fast(struct kt_window *w, struct kt_hit *h, uint32_t n)
{
	uint32_t cpu = n ? h[0].cpu : 0;
	int stk = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (h[i].cpu != cpu || h[i].task >> PACK_TASK_BITS || h[i].ctx >> PACK_CTX_BITS)
			return -1;
		stk |= h[i].stack != 0;
	}
	for (uint32_t i = 0; stk && i < n; i++)
		if (h[i].hits > UINT32_MAX)
			return -1;
	if (packed_room(w, n) < 0)
		return -1;
	if (stk) {
		struct cum_packed_stk *r = (struct cum_packed_stk *)w->cumpk;

		for (uint32_t i = 0; i < n; i++)
			r[i] = (struct cum_packed_stk){(uint64_t)h[i].loc << 32 | h[i].stack,
						       h[i].task << PACK_CTX_BITS | h[i].ctx,
						       (uint32_t)h[i].hits};
		if (n < 32)
			insert_stk(r, n);
		else
			r = radix_stk(r, r + n, n);
		for (uint32_t i = 0; i < n; i++)
			h[i] = (struct kt_hit){(uint32_t)(r[i].hi >> 32), (uint32_t)r[i].hi, cpu,
					       r[i].lo >> PACK_CTX_BITS,
					       r[i].lo & ((1u << PACK_CTX_BITS) - 1), r[i].hits};
		return 0;
	}
	{
		struct cum_packed *r = w->cumpk;

		for (uint32_t i = 0; i < n; i++)
			r[i] = (struct cum_packed){(uint64_t)h[i].loc << 32 |
						       (uint64_t)h[i].task << PACK_CTX_BITS |
						       h[i].ctx,
						   h[i].hits};
		if (n < 32)
			insert_packed(r, n);
		else
			r = radix_packed(r, r + n, n);
		for (uint32_t i = 0; i < n; i++) {
			uint64_t k = r[i].key;

			h[i] = (struct kt_hit){(uint32_t)(k >> 32), 0, cpu,
					       (uint32_t)(k >> PACK_CTX_BITS) &
						   ((1u << PACK_TASK_BITS) - 1),
					       (uint32_t)k & ((1u << PACK_CTX_BITS) - 1), r[i].hits};
		}
	}
	return 0;
}

/* Sorts the n records of one scratch array (cumtmp or cumtmp2) by key and adds up repeated
 * keys; returns the array that holds them, and their number in *n. (Keys that meet in a
 * run's remap or a fold have no stack: no stack reference is merged away.) */
struct kt_hit *kt_window_cum_sort_merge(struct kt_window *w, struct kt_hit *h, uint32_t *n)
{
	uint32_t j = 0;

	if (sort_fast(w, h, *n) < 0)
		h = sort_keys(h, h == w->cumtmp ? w->cumtmp2 : w->cumtmp, *n);
	for (uint32_t i = 0; i < *n; i++) {
		if (j && !kt_cum_key_cmp(&h[j - 1], &h[i]))
			h[j - 1].hits += h[i].hits;
		else
			h[j++] = h[i];
	}
	*n = j;
	return h;
}
