/* Shared utility (any layer may include it): a small open-addressing hash index from a key to
 * a dense u32 id, used by the window and the aggregator. The index stores only (id, hash); keys live in the caller's own arrays and
 * are compared through a callback, so one index type serves tuples, stacks and tasks.
 * Linear probing with backward-shift deletion: no tombstones, so it never degrades. */
#ifndef KERNTOP_UTIL_IDX_H
#define KERNTOP_UTIL_IDX_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "kerntop/util.h"

struct kt_idx_slot {
	uint32_t id1; /* id + 1; 0 = empty */
	uint32_t hash;
};

struct kt_idx {
	struct kt_idx_slot *slot;
	uint32_t mask; /* capacity - 1 (capacity is a power of two) */
	uint32_t count;
};

/* A 64-bit finalizer: every input bit changes each output bit with odds near one half. */
static inline uint64_t kt_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ x >> 33;
}

static inline uint32_t kt_hash64(uint64_t x)
{
	return (uint32_t)kt_mix64(x);
}

static inline uint32_t kt_hash4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	uint64_t x = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ull;

	x ^= ((uint64_t)c << 32 | d) + 0x632be59bd9b4e019ull + (x << 6) + (x >> 2);
	return kt_hash64(x);
}

static inline uint32_t kt_hash_u32s(const uint32_t *v, uint32_t n)
{
	uint64_t x = 0x84222325cbf29ce4ull ^ n;

	for (uint32_t i = 0; i < n; i++)
		x = (x ^ v[i]) * 0x100000001b3ull;
	return kt_hash64(x);
}

static inline void kt_idx_free(struct kt_idx *ix)
{
	free(ix->slot);
	ix->slot = NULL;
	ix->mask = 0;
	ix->count = 0;
}

static inline size_t kt_idx_mem(const struct kt_idx *ix)
{
	return ix->slot ? ((size_t)ix->mask + 1) * sizeof(*ix->slot) : 0;
}

static inline void kt_idx_clear(struct kt_idx *ix)
{
	if (ix->slot)
		for (uint32_t i = 0; i <= ix->mask; i++)
			ix->slot[i].id1 = 0;
	ix->count = 0;
}

static inline int kt_idx_grow(struct kt_idx *ix)
{
	uint32_t ncap = ix->slot ? (ix->mask + 1) * 2 : 64;
	struct kt_idx_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	if (ncap * sizeof(*ns) >= KT_MEM_HUGE_MIN)
		kt_mem_huge_block(ns, ncap * sizeof(*ns));
	if (ix->slot) {
		for (uint32_t i = 0; i <= ix->mask; i++) {
			uint32_t j;

			if (!ix->slot[i].id1)
				continue;
			for (j = ix->slot[i].hash & (ncap - 1); ns[j].id1; j = (j + 1) & (ncap - 1))
				;
			ns[j] = ix->slot[i];
		}
		free(ix->slot);
	}
	ix->slot = ns;
	ix->mask = ncap - 1;
	return 0;
}

/* Returns the id whose key matches (eq(ctx, id) true) among entries with this hash, or
 * UINT32_MAX. *pos gets the slot where the key would be inserted. */
static inline uint32_t kt_idx_find(const struct kt_idx *ix, uint32_t hash,
				   int (*eq)(const void *ctx, uint32_t id), const void *ctx,
				   uint32_t *pos)
{
	uint32_t i;

	if (!ix->slot) {
		*pos = UINT32_MAX;
		return UINT32_MAX;
	}
	for (i = hash & ix->mask; ix->slot[i].id1; i = (i + 1) & ix->mask)
		if (ix->slot[i].hash == hash && eq(ctx, ix->slot[i].id1 - 1))
			return ix->slot[i].id1 - 1;
	*pos = i;
	return UINT32_MAX;
}

/* Inserts id under hash at pos (from a failed kt_idx_find), growing when 3/4 full. */
static inline int kt_idx_insert(struct kt_idx *ix, uint32_t hash, uint32_t id, uint32_t pos)
{
	if (!ix->slot || (ix->count + 1) * 4 > (ix->mask + 1) * 3) {
		if (kt_idx_grow(ix) < 0)
			return -ENOMEM;
		for (pos = hash & ix->mask; ix->slot[pos].id1; pos = (pos + 1) & ix->mask)
			;
	}
	ix->slot[pos].id1 = id + 1;
	ix->slot[pos].hash = hash;
	ix->count++;
	return 0;
}

/* Removes id (stored under hash), shifting later entries of the run back. */
static inline void kt_idx_remove(struct kt_idx *ix, uint32_t hash, uint32_t id)
{
	uint32_t i, j;

	if (!ix->slot)
		return;
	for (i = hash & ix->mask; ix->slot[i].id1; i = (i + 1) & ix->mask)
		if (ix->slot[i].id1 == id + 1)
			break;
	if (!ix->slot[i].id1)
		return;
	ix->count--;
	for (j = (i + 1) & ix->mask; ix->slot[j].id1; j = (j + 1) & ix->mask) {
		uint32_t home = ix->slot[j].hash & ix->mask;

		/* j may move to the hole at i only if its home is not in (i, j] cyclically */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		ix->slot[i] = ix->slot[j];
		i = j;
	}
	ix->slot[i].id1 = 0;
}

/* Grows a flat array to hold at least need elements; returns 0 or -ENOMEM. */
static inline int kt_grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t ncap = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, (size_t)ncap * elem);
	if (!np)
		return -ENOMEM;
	if ((size_t)ncap * elem >= KT_MEM_HUGE_MIN)
		kt_mem_huge_block(np, (size_t)ncap * elem);
	*p = np;
	*cap = ncap;
	return 0;
}

/* As kt_grow, to need and a quarter more: for arrays that grow for the whole run and are
 * many (the since-start runs, one per CPU), where doubling's slack, a third on average, adds
 * up. */
static inline int kt_grow_snug(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint64_t ncap = (uint64_t)need + need / 4 + 16;
	void *np;

	if (need <= *cap)
		return 0;
	if (ncap > UINT32_MAX)
		ncap = need;
	np = realloc(*p, (size_t)ncap * elem);
	if (!np)
		return -ENOMEM;
	if ((size_t)ncap * elem >= KT_MEM_HUGE_MIN)
		kt_mem_huge_block(np, (size_t)ncap * elem);
	*p = np;
	*cap = (uint32_t)ncap;
	return 0;
}

#endif
