/* The newest slice's logs are kept aggregated as they are written (issue 14): per CPU, a small
 * index finds the record of a sample's (location, stack, task, context) in the newest slice,
 * and a repeated key adds to its count instead of taking 16 more bytes. Every reader of the
 * window merges the logs (the projections, Trend, the recent copy, expiry), so a refresh reads
 * distinct keys instead of samples: at 100 kHz on a few CPUs a few hundred records per CPU and
 * slice instead of a hundred thousand, and the window's memory follows the keys, not the rate.
 * A record counts in its count field (count - 1, at most WREC_NARROW_MAX, or WREC_COMPACT_MAX
 * in a compact record; a full record gives way to a new one); wide records are never merged. The index of a CPU is cleared when
 * the newest slice moves on: complete slices are only read. Where a CPU's samples hardly
 * repeat (a big machine at 997 Hz: ~1000 samples a slice over thousands of functions and
 * tasks), the probe would only cost: a CPU whose last measured slice merged fewer than one
 * sample in LOG_MERGE_MIN (told at its LOG_EARLY-th sample: a measured slice stops probing
 * there) appends unmerged, and is measured again every LOG_REMEASURE slices,
 * or from its LOG_OFF_MAX-th record in a slice on (a CPU that got busy does not wait for the
 * period to merge: its log in a slice stays near LOG_OFF_MAX records until it is measured).
 * At 256 CPUs the probes of the measured slices (two cache misses each) were 7 % of the
 * replay's CPU with a period of 8 slices. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "kerntop/util.h"
#include "window_impl.h"

#define LOG_MERGE_MIN 4
#define LOG_EARLY 256 /* samples a measured slice takes to tell a CPU that will not merge */
#define LOG_REMEASURE 32
#define LOG_OFF_MAX 4096 /* records */
#define LOG_IDX_KEEP (1u << 16) /* slots */

static inline int same_key(const struct wlog *l, uint32_t at, const struct kt_hit *k)
{
	struct kt_hit h;

	wlog_decode(l, 1, at, &h);
	return h.loc == k->loc && h.stack == k->stack && h.task == k->task && h.ctx == k->ctx;
}

static inline uint32_t *slot_of(const struct wlogidx *x, const struct wlog *l, const struct kt_hit *k)
{
	uint32_t h = kt_hash4(k->loc, k->stack, k->task, k->ctx), *slot;

	for (;; h++) {
		slot = &x->slot[h & x->mask];
		if (!*slot || same_key(l, *slot - 1, k))
			return slot;
	}
}

/* Adds a sample to the (narrow or compact) record at unit at: 0 when it is full. */
static int bump(struct wlog *l, uint32_t at)
{
	uint64_t u;
	struct wrec r;

	memcpy(&u, &l->u[at], sizeof(u));
	if (u & WREC_COMPACT) {
		if (((u >> WREC_CNT_SHIFT) & WREC_COMPACT_MAX) == WREC_COMPACT_MAX)
			return 0;
		u += 1ull << WREC_CNT_SHIFT;
		memcpy(&l->u[at], &u, sizeof(u));
		return 1;
	}
	memcpy(&r, &l->u[at], sizeof(r));
	if (r.cpu >= WREC_NARROW_MAX)
		return 0;
	r.cpu++;
	memcpy(&l->u[at], &r, sizeof(r));
	return 1;
}

/* Sizes x to cap slots, empty, and enters the narrow records of l again (the later of two
 * records of one key wins: the earlier is full). */
static int idx_rebuild(struct wlogidx *x, const struct wlog *l, uint32_t cap)
{
	if (!x->slot || cap > x->mask + 1) {
		uint32_t *s = realloc(x->slot, (size_t)cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		x->slot = s;
	}
	x->mask = cap - 1;
	memset(x->slot, 0, (size_t)cap * sizeof(*x->slot));
	for (uint32_t i = 0, k; i < l->n; i += k) {
		struct kt_hit h;

		k = wlog_decode(l, 1, i, &h);
		if (k < 4) /* not a wide record */
			*slot_of(x, l, &h) = i + 1;
	}
	return 0;
}

/* Log li's index, emptied if it was of an older slice; NULL when it cannot be had. */
static struct wlogidx *idx_for(struct kt_window *w, const struct wlog *l, uint32_t li)
{
	struct wlogidx *x;
	uint32_t cap = 64;

	if (li >= w->nlidx) {
		uint32_t old = w->nlidx;

		if (kt_grow((void **)&w->lidx, &w->nlidx, li + 1, sizeof(*w->lidx)) < 0)
			return NULL;
		memset(w->lidx + old, 0, (w->nlidx - old) * sizeof(*w->lidx));
	}
	x = &w->lidx[li];
	if (x->slice == w->newest + 1) {
		if (x->off && l->n < LOG_OFF_MAX)
			return NULL;
		if (x->off) { /* this busy: measured from here on, its records so far indexed */
			x->off = 0;
			x->seen = x->merged = 0;
		} else if (x->slot) {
			return x;
		}
	} else { /* a new slice: merge in it or not */
		if (!x->off)
			x->off = x->seen > 64 && x->merged * LOG_MERGE_MIN < x->seen &&
				 w->newest % LOG_REMEASURE;
		else
			x->off = w->newest % LOG_REMEASURE != 0;
		x->slice = w->newest + 1;
		if (x->off)
			return NULL;
		x->seen = x->merged = 0;
	}
	/* the index, empty or of the records already appended: at least twice their number,
	 * kept at the size the last slice left it unless one burst made it big */
	while (cap < 2 * l->n + 64)
		cap *= 2;
	if (x->slot && x->mask + 1 >= cap && x->mask + 1 <= LOG_IDX_KEEP)
		cap = x->mask + 1;
	else {
		free(x->slot);
		x->slot = NULL;
	}
	if (idx_rebuild(x, l, cap) < 0)
		return NULL;
	return x;
}

int kt_window_log_merge(struct kt_window *w, struct wlog *l, uint32_t li, const struct kt_hit *k,
			uint32_t **slotp)
{
	struct wlogidx *x = idx_for(w, l, li);
	uint32_t *slot;

	*slotp = NULL;
	if (!x)
		return 0; /* appended unmerged: every reader still counts it right */
	slot = slot_of(x, l, k);
	x->seen++;
	if (*slot && bump(l, *slot - 1)) {
		x->merged++;
		return 1;
	}
	/* told early (not once busy: that measure runs to the slice's end) */
	if (x->seen == LOG_EARLY && l->n < LOG_OFF_MAX && x->merged * LOG_MERGE_MIN < x->seen) {
		x->off = 1; /* the rest of this slice appended unmerged, as if measured whole */
		return 0;
	}
	*slotp = slot;
	return 0;
}

void kt_window_log_added(struct kt_window *w, struct wlog *l, uint32_t li, uint32_t *slot,
			 uint32_t at)
{
	struct wlogidx *x = &w->lidx[li];

	*slot = at + 1; /* the record just appended */
	if (l->n * 2 > x->mask && idx_rebuild(x, l, (x->mask + 1) * 2) < 0)
		x->off = 1; /* the rest of this slice is appended unmerged */
}

size_t kt_window_logidx_mem(const struct kt_window *w)
{
	size_t m = (size_t)w->nlidx * sizeof(*w->lidx);

	for (uint32_t i = 0; i < w->nlidx; i++)
		if (w->lidx[i].slot)
			m += ((size_t)w->lidx[i].mask + 1) * sizeof(*w->lidx[i].slot);
	return m;
}

void kt_window_logidx_free(struct kt_window *w)
{
	for (uint32_t i = 0; i < w->nlidx; i++)
		free(w->lidx[i].slot);
	free(w->lidx);
	w->lidx = NULL;
	w->nlidx = 0;
}
