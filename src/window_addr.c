/* Exact-address hit counts for annotate: open-addressing tables of kernel IPs since start,
 * filled at ingest beside the window's tuples. The tuples keep one location per --bucket
 * slice (bounded by the code the kernel runs); these hold one 8-byte slot per distinct
 * sampled instruction (at most 3/4 full), capped at KT_WINDOW_ADDR_MAX. A slot keeps the low
 * half of its address: addresses are grouped by their high half (the kernel's text and
 * modules share one), one table per group. A count that would pass 2^32 (an idle loop's one
 * instruction on a big machine at a high rate, in minutes) moves to a short list of the
 * addresses that did. At 256 CPUs these tables were a sixth of the viewer's memory at 16
 * bytes a slot, half full.
 *
 * Single hits (every live sample) wait in a log of low halves of one high half, taken into
 * the table when the log is full, when a slice leaves the window and before any read, in slot
 * order: a slot is the top bits of the address's hash, so the log counted out by the hash's
 * top 12 bits walks the table from its start to its end, and a hot address's repeats follow
 * each other. One add at a time, in the samples' order, each was a miss at a random line of
 * the 8 MiB table of the 256-CPU replay: the add and its prefetch were 14 % of the viewer's
 * CPU there, against 11-12 % with the log. The log never holds more than the table has room
 * for, so taking it in never doubles the table midway. */
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
	uint32_t shift; /* 32 - log2(mask + 1): a slot is the top bits of the 32-bit hash */
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
	/* single hits not yet in the tables: the low halves of addresses of one high half (the
	 * kernel's text and modules share one); tmp: the log in slot order */
	uint32_t *log, *tmp;
	uint32_t nlog, caplog, loghi;
	uint32_t loglim; /* the log is taken in at this many: room left in loghi's table */
};

/* The log's entries: 8 bytes each with tmp, at most 256 KiB (an eighth of a second's samples
 * at 256 CPUs) */
#define ADDR_LOG_MAX 32768u
#define ADDR_LOG_MIN 1024u
#define ADDR_SORT_BITS 12
/* taking the log in fetches the slot of the address this many ahead */
#define ADDR_AHEAD 16u

/* An address's low half hashed by kerntop's 64-bit finalizer (the multiply's bits 32 and up
 * alone clustered the near-consecutive addresses of a function: 4 extra probes an add at 3/4
 * full on the 256-CPU replay, against 0.5 with the finalizer); its slot is the hash's top
 * bits (0.8 probes an add for that replay's 640 000 addresses in 1 Mi slots, as with its low
 * bits), so that one order of the hashes is the order of the slots in a table of any size. */
static inline uint32_t hash32(uint32_t x)
{
	return (uint32_t)(kt_mix64(x) >> 32);
}

static inline uint32_t slot_of(const struct addr_group *g, uint32_t lo)
{
	return hash32(lo) >> g->shift;
}

static int grow(struct addr_group *g)
{
	uint32_t ncap = g->slot ? (g->mask + 1) * 2 : 4096;
	uint32_t shift = 32 - (uint32_t)__builtin_ctz(ncap);
	struct addr_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	if (ncap * sizeof(*ns) >= KT_MEM_HUGE_MIN)
		kt_mem_huge_block(ns, ncap * sizeof(*ns));
	for (uint32_t i = 0; g->slot && i <= g->mask; i++) {
		uint32_t h;

		if (!g->slot[i].hits)
			continue;
		h = hash32(g->slot[i].lo) >> shift;
		while (ns[h].hits)
			h = (h + 1) & (ncap - 1);
		ns[h] = g->slot[i];
	}
	free(g->slot);
	g->slot = ns;
	g->mask = ncap - 1;
	g->shift = shift;
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
	*g = (struct addr_group){hi, 0, 0, 0, NULL};
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

/* Adds hits (below 2^32) of addr to the tables. */
static void put(struct kt_window *w, struct addr_hits *t, uint64_t addr, uint32_t hits)
{
	struct addr_group *g;
	uint32_t lo = (uint32_t)addr, h;

	g = group_of(t, (uint32_t)(addr >> 32));
	if (!g) {
		w->nomem++;
		return;
	}
	for (h = slot_of(g, lo); g->slot[h].hits; h = (h + 1) & g->mask)
		if (g->slot[h].lo == lo) {
			slot_add(w, t, &g->slot[h], addr, hits);
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
		for (h = slot_of(g, lo); g->slot[h].hits;)
			h = (h + 1) & g->mask;
	}
	g->slot[h] = (struct addr_slot){lo, hits};
	g->n++;
	t->n++;
}

static inline uint32_t bucket_of(uint32_t lo)
{
	return hash32(lo) >> (32 - ADDR_SORT_BITS);
}

/* The n low halves of a into out, ordered by the top ADDR_SORT_BITS of their hashes (in
 * place, each entry swapped into its bucket, the sort took three times as long: a chain of
 * dependent loads). */
static void sort_by_slot(const uint32_t *a, uint32_t *out, uint32_t n)
{
	uint32_t at[1u << ADDR_SORT_BITS] = {0};

	for (uint32_t i = 0; i < n; i++)
		at[bucket_of(a[i])]++;
	for (uint32_t b = 0, sum = 0; b < (1u << ADDR_SORT_BITS); b++) {
		uint32_t c = at[b];

		at[b] = sum;
		sum += c;
	}
	for (uint32_t i = 0; i < n; i++)
		out[at[bucket_of(a[i])]++] = a[i];
}

/* The log into the tables in slot order (a sum does not depend on the order of its adds;
 * which new address a full table turns away may). */
static void flush(struct kt_window *w, struct addr_hits *t)
{
	uint32_t n = t->nlog, *a = t->log;
	uint64_t hi = (uint64_t)t->loghi << 32;

	t->loglim = 0; /* the next add measures the room again */
	if (!n)
		return;
	t->nlog = 0;
	if (n >= 256) { /* below, not worth the count */
		sort_by_slot(t->log, t->tmp, n);
		a = t->tmp;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (i + ADDR_AHEAD < n) {
			const struct addr_group *g = &t->g[t->last];

			if (t->ng && g->hi == t->loghi)
				KT_PREFETCH(&g->slot[slot_of(g, a[i + ADDR_AHEAD])]);
		}
		put(w, t, hi | a[i], 1);
	}
}

void kt_window_addr_flush(struct kt_window *w)
{
	if (w->addr)
		flush(w, w->addr);
}

/* Room in the log for one more address of high half hi: when the log is full or of another
 * high half it is taken in first, then grown up to ADDR_LOG_MAX, but never past the room
 * left in hi's table: taking the log in must never double the table midway (adds in slot
 * order into a table too small for them pile up at its start: 362 probes an add on the
 * 256-CPU replay, seen in the first try). 0: add at once (no room, or out of memory). */
static int log_room(struct kt_window *w, struct addr_hits *t, uint32_t hi)
{
	const struct addr_group *g;
	uint32_t room, ncap, *nl, *nt;

	if (t->nlog < t->loglim && t->loghi == hi)
		return 1;
	flush(w, t);
	g = group_of(t, hi);
	if (!g)
		return 0;
	t->loghi = hi;
	room = (g->mask + 1) / 4 * 3 - g->n; /* put's doubling rule */
	if (t->caplog < ADDR_LOG_MAX && t->caplog < room) {
		ncap = t->caplog ? t->caplog * 2 : ADDR_LOG_MIN;
		if ((nl = realloc(t->log, ncap * sizeof(*nl))))
			t->log = nl;
		if ((nt = realloc(t->tmp, ncap * sizeof(*nt))))
			t->tmp = nt;
		if (nl && nt)
			t->caplog = ncap;
	}
	t->loglim = t->caplog < room ? t->caplog : room;
	return t->loglim > 0;
}

void kt_window_addr_add(struct kt_window *w, uint64_t addr, uint64_t hits)
{
	struct addr_hits *t = w->addr;

	if (!addr || !hits)
		return;
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t) {
			w->nomem++;
			return;
		}
		w->addr = t;
	}
	if (hits == 1 && log_room(w, t, (uint32_t)(addr >> 32))) {
		t->log[t->nlog++] = (uint32_t)addr;
		return;
	}
	flush(w, t); /* the adds before it first: a full table turns away the same addresses */
	while (hits > UINT32_MAX) { /* a recording's weighted sample: 2^32 - 1 a slot add */
		put(w, t, addr, UINT32_MAX);
		hits -= UINT32_MAX;
	}
	put(w, t, addr, (uint32_t)hits);
}

uint64_t kt_window_addr_hits(struct kt_window *w, uint64_t addr)
{
	const struct addr_hits *t = w->addr;
	const struct addr_group *g;
	uint32_t lo = (uint32_t)addr;

	kt_window_addr_flush(w);
	if (!t || !addr || !(g = group_find(t, (uint32_t)(addr >> 32))))
		return 0;
	for (uint32_t h = slot_of(g, lo); g->slot[h].hits; h = (h + 1) & g->mask)
		if (g->slot[h].lo == lo)
			return g->slot[h].hits + (t->nbig ? big_hits(t, addr) : 0);
	return 0;
}

uint64_t kt_window_addr_range(struct kt_window *w, uint64_t lo, uint64_t hi)
{
	const struct addr_hits *t = w->addr;
	uint64_t sum = 0;

	kt_window_addr_flush(w);
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
	m = sizeof(*t) + (size_t)t->ng * sizeof(*t->g) + (size_t)t->nbig * sizeof(*t->big) +
	    (size_t)t->caplog * (sizeof(*t->log) + sizeof(*t->tmp));
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
	free(t->log);
	free(t->tmp);
	free(t);
	w->addr = NULL;
}
