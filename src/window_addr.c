/* Exact-address hit counts for annotate: one open-addressing table of kernel IPs since
 * start, filled at ingest beside the window's tuples. The tuples keep one location per
 * --bucket slice (bounded by the code the kernel runs); this table holds one 16-byte slot
 * per distinct sampled instruction, capped at KT_WINDOW_ADDR_MAX. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "kerntop/window.h"
#include "window_impl.h"

struct addr_slot {
	uint64_t addr; /* 0: empty (address 0 is never kernel text) */
	uint64_t hits;
};

struct addr_hits {
	struct addr_slot *slot;
	uint32_t mask, n;
	uint64_t dropped; /* hits on new addresses past the cap */
};

static inline uint32_t hash64(uint64_t x, uint32_t mask)
{
	x ^= x >> 29;
	x *= 0x9E3779B97F4A7C15ull;
	return (uint32_t)(x >> 32) & mask;
}

static int grow(struct addr_hits *t)
{
	uint32_t ncap = t->slot ? (t->mask + 1) * 2 : 4096;
	struct addr_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (uint32_t i = 0; t->slot && i <= t->mask; i++) {
		uint32_t h;

		if (!t->slot[i].addr)
			continue;
		h = hash64(t->slot[i].addr, ncap - 1);
		while (ns[h].addr)
			h = (h + 1) & (ncap - 1);
		ns[h] = t->slot[i];
	}
	free(t->slot);
	t->slot = ns;
	t->mask = ncap - 1;
	return 0;
}

void kt_window_addr_add(struct kt_window *w, uint64_t addr, uint64_t hits)
{
	struct addr_hits *t = w->addr;
	uint32_t h;

	if (!addr)
		return;
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t || grow(t) < 0) {
			free(t); /* a table without slots would be read as one */
			w->nomem++;
			return;
		}
		w->addr = t;
	}
	for (h = hash64(addr, t->mask); t->slot[h].addr; h = (h + 1) & t->mask)
		if (t->slot[h].addr == addr) {
			t->slot[h].hits += hits;
			return;
		}
	if (t->n >= KT_WINDOW_ADDR_MAX) {
		t->dropped += hits;
		return;
	}
	if ((t->n + 1) * 2 > t->mask + 1 && grow(t) < 0) {
		w->nomem++;
		return;
	}
	for (h = hash64(addr, t->mask); t->slot[h].addr;)
		h = (h + 1) & t->mask;
	t->slot[h] = (struct addr_slot){addr, hits};
	t->n++;
}

uint64_t kt_window_addr_hits(const struct kt_window *w, uint64_t addr)
{
	const struct addr_hits *t = w->addr;

	if (!t || !addr)
		return 0;
	for (uint32_t h = hash64(addr, t->mask); t->slot[h].addr; h = (h + 1) & t->mask)
		if (t->slot[h].addr == addr)
			return t->slot[h].hits;
	return 0;
}

uint64_t kt_window_addr_range(const struct kt_window *w, uint64_t lo, uint64_t hi)
{
	const struct addr_hits *t = w->addr;
	uint64_t sum = 0;

	if (!t)
		return 0;
	if (hi - lo <= (uint64_t)t->n) {
		for (uint64_t a = lo; a < hi; a++)
			sum += kt_window_addr_hits(w, a);
		return sum;
	}
	for (uint32_t i = 0; i <= t->mask; i++)
		if (t->slot[i].addr >= lo && t->slot[i].addr < hi)
			sum += t->slot[i].hits;
	return sum;
}

void kt_window_addr_free(struct kt_window *w)
{
	if (!w->addr)
		return;
	free(w->addr->slot);
	free(w->addr);
	w->addr = NULL;
}
