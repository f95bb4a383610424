/* Exact-address hit counts for annotate: open-addressing tables of kernel IPs since start,
 * filled at ingest beside the window's tuples. The tuples keep one location per --bucket
 * slice (bounded by the code the kernel runs); these hold one 8-byte slot per distinct
 * sampled instruction (at most 3/4 full), capped at KT_WINDOW_ADDR_MAX. A slot keeps the low
 * half of its address: addresses are grouped by their high half (the kernel's text and
 * modules share one), one table per group. A count that would pass 2^32 (an idle loop's one
 * instruction on a big machine at a high rate, in minutes) moves to a short list of the
 * addresses that did. At 256 CPUs these tables were a sixth of the viewer's memory at 16
 * bytes a slot, half full. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "kerntop/window.h"
#include "util_idx.h"
#include "window_impl.h"

struct addr_slot {
	uint32_t lo;   /* the address's low half */
	uint32_t hits; /* 0: empty */
};

struct addr_group {
	uint32_t hi; /* the addresses' high half */
	uint32_t mask, n;
	struct addr_slot *slot;
};

struct addr_big {
	uint64_t addr, hits; /* hits moved out of a slot, 2^32 at a time at most */
};

struct addr_hits {
	struct addr_group *g;
	uint32_t ng, last; /* last: the group of the previous add */
	uint32_t n;	   /* addresses in all groups */
	struct addr_big *big;
	uint32_t nbig;
	uint64_t dropped; /* hits on new addresses past the cap */
};

/* A slot for an address's low half: kerntop's 64-bit finalizer (the multiply's bits 32 and
 * up alone clustered the near-consecutive addresses of a function: 4 extra probes an add at
 * 3/4 full on the 256-CPU replay, against 0.5 now) */
static inline uint32_t hash32(uint32_t x, uint32_t mask)
{
	return kt_hash64(x) & mask;
}

static int grow(struct addr_group *g)
{
	uint32_t ncap = g->slot ? (g->mask + 1) * 2 : 4096;
	struct addr_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (uint32_t i = 0; g->slot && i <= g->mask; i++) {
		uint32_t h;

		if (!g->slot[i].hits)
			continue;
		h = hash32(g->slot[i].lo, ncap - 1);
		while (ns[h].hits)
			h = (h + 1) & (ncap - 1);
		ns[h] = g->slot[i];
	}
	free(g->slot);
	g->slot = ns;
	g->mask = ncap - 1;
	return 0;
}

static const struct addr_group *group_find(const struct addr_hits *t, uint32_t hi)
{
	if (t->ng && t->g[t->last].hi == hi)
		return &t->g[t->last];
	for (uint32_t i = 0; i < t->ng; i++)
		if (t->g[i].hi == hi)
			return &t->g[i];
	return NULL;
}

/* The group of high half hi, made when new; NULL out of memory. */
static struct addr_group *group_of(struct addr_hits *t, uint32_t hi)
{
	struct addr_group *g = (struct addr_group *)group_find(t, hi), *ng;

	if (g) {
		t->last = (uint32_t)(g - t->g);
		return g;
	}
	ng = realloc(t->g, ((size_t)t->ng + 1) * sizeof(*ng));
	if (!ng)
		return NULL;
	t->g = ng;
	g = &t->g[t->ng];
	*g = (struct addr_group){hi, 0, 0, NULL};
	if (grow(g) < 0)
		return NULL;
	t->last = t->ng++;
	return g;
}

/* The hits moved out of addr's slot so far. */
static uint64_t big_hits(const struct addr_hits *t, uint64_t addr)
{
	for (uint32_t i = 0; i < t->nbig; i++)
		if (t->big[i].addr == addr)
			return t->big[i].hits;
	return 0;
}

/* Moves hits of addr out of its slot; -ENOMEM when they could not be kept. */
static int big_add(struct addr_hits *t, uint64_t addr, uint64_t hits)
{
	struct addr_big *nb;

	for (uint32_t i = 0; i < t->nbig; i++)
		if (t->big[i].addr == addr) {
			t->big[i].hits += hits;
			return 0;
		}
	nb = realloc(t->big, ((size_t)t->nbig + 1) * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	t->big = nb;
	t->big[t->nbig++] = (struct addr_big){addr, hits};
	return 0;
}

/* Adds hits (below 2^32) to addr's slot s, moving its count out first when the sum would
 * not fit. */
static void slot_add(struct kt_window *w, struct addr_hits *t, struct addr_slot *s, uint64_t addr,
		     uint32_t hits)
{
	if (s->hits > UINT32_MAX - hits) {
		if (big_add(t, addr, s->hits) < 0) {
			w->nomem++;
			return;
		}
		s->hits = 0;
	}
	s->hits += hits;
}

void kt_window_addr_add(struct kt_window *w, uint64_t addr, uint64_t hits)
{
	struct addr_hits *t = w->addr;
	struct addr_group *g;
	uint32_t lo = (uint32_t)addr, h;

	if (!addr || !hits)
		return;
	if (hits > UINT32_MAX) { /* a recording's weighted sample: the rest in the slot */
		kt_window_addr_add(w, addr, hits - UINT32_MAX);
		hits = UINT32_MAX;
	}
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t) {
			w->nomem++;
			return;
		}
		w->addr = t;
	}
	g = group_of(t, (uint32_t)(addr >> 32));
	if (!g) {
		w->nomem++;
		return;
	}
	for (h = hash32(lo, g->mask); g->slot[h].hits; h = (h + 1) & g->mask)
		if (g->slot[h].lo == lo) {
			slot_add(w, t, &g->slot[h], addr, (uint32_t)hits);
			return;
		}
	if (t->n >= KT_WINDOW_ADDR_MAX) {
		t->dropped += hits;
		return;
	}
	if ((g->n + 1) * 4 > (g->mask + 1) * 3) {
		if (grow(g) < 0) {
			w->nomem++;
			return;
		}
		for (h = hash32(lo, g->mask); g->slot[h].hits;)
			h = (h + 1) & g->mask;
	}
	g->slot[h] = (struct addr_slot){lo, (uint32_t)hits};
	g->n++;
	t->n++;
}

void kt_window_addr_prefetch(const struct kt_window *w, uint64_t addr)
{
	const struct addr_hits *t = w->addr;

	/* the last group only: a search of the others is not worth a hint */
	if (t && t->ng && t->g[t->last].hi == (uint32_t)(addr >> 32))
		KT_PREFETCH(&t->g[t->last].slot[hash32((uint32_t)addr, t->g[t->last].mask)]);
}

uint64_t kt_window_addr_hits(const struct kt_window *w, uint64_t addr)
{
	const struct addr_hits *t = w->addr;
	const struct addr_group *g;
	uint32_t lo = (uint32_t)addr;

	if (!t || !addr || !(g = group_find(t, (uint32_t)(addr >> 32))))
		return 0;
	for (uint32_t h = hash32(lo, g->mask); g->slot[h].hits; h = (h + 1) & g->mask)
		if (g->slot[h].lo == lo)
			return g->slot[h].hits + (t->nbig ? big_hits(t, addr) : 0);
	return 0;
}

uint64_t kt_window_addr_range(const struct kt_window *w, uint64_t lo, uint64_t hi)
{
	const struct addr_hits *t = w->addr;
	uint64_t sum = 0;

	if (!t || hi <= lo)
		return 0;
	if (hi - lo <= (uint64_t)t->n) {
		for (uint64_t a = lo; a < hi; a++)
			sum += kt_window_addr_hits(w, a);
		return sum;
	}
	for (uint32_t k = 0; k < t->ng; k++) {
		const struct addr_group *g = &t->g[k];
		uint64_t base = (uint64_t)g->hi << 32;

		if (base + UINT32_MAX < lo || base >= hi)
			continue;
		for (uint32_t i = 0; i <= g->mask; i++) {
			uint64_t a = base | g->slot[i].lo;

			if (g->slot[i].hits && a >= lo && a < hi)
				sum += g->slot[i].hits;
		}
	}
	for (uint32_t i = 0; i < t->nbig; i++)
		if (t->big[i].addr >= lo && t->big[i].addr < hi)
			sum += t->big[i].hits;
	return sum;
}

size_t kt_window_addr_mem(const struct kt_window *w)
{
	const struct addr_hits *t = w->addr;
	size_t m;

	if (!t)
		return 0;
	m = sizeof(*t) + (size_t)t->ng * sizeof(*t->g) + (size_t)t->nbig * sizeof(*t->big);
	for (uint32_t i = 0; i < t->ng; i++)
		m += ((size_t)t->g[i].mask + 1) * sizeof(*t->g[i].slot);
	return m;
}

void kt_window_addr_free(struct kt_window *w)
{
	struct addr_hits *t = w->addr;

	if (!t)
		return;
	for (uint32_t i = 0; i < t->ng; i++)
		free(t->g[i].slot);
	free(t->g);
	free(t->big);
	free(t);
	w->addr = NULL;
}
