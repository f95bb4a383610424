/* Call chains by id in recordings (format version 2, docs/recording-format.md "Call chains"):
 * the writer defines the callers of each distinct chain (its frames after the leaf's) once
 * per epoch and then names them by their id, the reader keeps the last ones defined in two
 * rings. With 32-frame chains the frames are most of a sample's bytes, and of the replay's
 * decoding. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "kerntop/util.h"
#include "source_replay_impl.h"

#define SLOTS (2 * KT_REC_CHAIN_IDS)

static uint32_t chain_hash(const uint64_t *f, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ f[i]) * 0xff51afd7ed558ccdull;
	return (uint32_t)(h ^ h >> 32);
}

static int wchains_alloc(struct kt_wchains *c)
{
	/* The frames array is touched as chains come: a recording with few chains uses little
	 * of it. */
	c->slot = calloc(SLOTS, sizeof(*c->slot));
	c->off = malloc(KT_REC_CHAIN_IDS * sizeof(*c->off));
	c->len = malloc(KT_REC_CHAIN_IDS * sizeof(*c->len));
	c->frames = malloc(KT_REC_CHAIN_FRAMES * sizeof(*c->frames));
	if (c->slot && c->off && c->len && c->frames)
		return 0;
	kt_wchains_free(c);
	c->failed = 1;
	return -1;
}

int kt_wchains_id(struct kt_wchains *c, const uint64_t *frames, uint32_t n, uint64_t *id)
{
	uint32_t h, i;

	if (c->failed || (!c->slot && wchains_alloc(c) < 0))
		return -1;
	h = chain_hash(frames, n);
	for (i = h & (SLOTS - 1); c->slot[i]; i = (i + 1) & (SLOTS - 1)) {
		uint32_t k = c->slot[i] - 1;

		if (c->len[k] == n &&
		    memcmp(c->frames + c->off[k], frames, n * sizeof(*frames)) == 0) {
			*id = c->base + k;
			return 1;
		}
	}
	if (c->n == KT_REC_CHAIN_IDS || n > KT_REC_CHAIN_FRAMES - c->nf) {
		kt_wchains_epoch(c);
		i = h & (SLOTS - 1);
	}
	c->off[c->n] = c->nf;
	c->len[c->n] = (uint16_t)n;
	memcpy(c->frames + c->nf, frames, n * sizeof(*frames));
	c->nf += n;
	c->slot[i] = ++c->n;
	*id = c->base + c->n - 1;
	return 0;
}

void kt_wchains_epoch(struct kt_wchains *c)
{
	/* its ids follow the last one, and every chain is defined again */
	c->base += c->n;
	c->n = c->nf = 0;
	if (c->slot)
		memset(c->slot, 0, SLOTS * sizeof(*c->slot));
}

void kt_wchains_free(struct kt_wchains *c)
{
	free(c->slot);
	free(c->off);
	free(c->len);
	free(c->frames);
	c->slot = c->off = NULL;
	c->len = NULL;
	c->frames = NULL;
}

#define COMPACT 0x80000000u /* in kt_rchain.n: one word a frame, the upper half in hi */
#define WMASK (KT_RCHAIN_WORDS - 1)

int kt_rchains_define(struct kt_rchains *c, uint64_t id, const uint64_t *frames, uint32_t n)
{
	struct kt_rchain *r;
	uint32_t hi = n ? (uint32_t)(frames[0] >> 32) : 0, compact = 1;

	if (id == UINT64_MAX || (c->last && id < c->last))
		return -1;
	c->last = id + 1;
	if (c->failed)
		return 0;
	if (!c->ring) {
		c->ring = calloc(KT_REC_CHAIN_IDS, sizeof(*c->ring));
		c->words = malloc(KT_RCHAIN_WORDS * sizeof(*c->words));
		if (!c->ring || !c->words) {
			kt_rchains_free(c);
			c->failed = 1;
			return 0;
		}
	}
	for (uint32_t k = 0; k < n; k++)
		compact &= (uint32_t)(frames[k] >> 32) == hi;
	r = &c->ring[id % KT_REC_CHAIN_IDS];
	r->id = id + 1;
	r->start = c->pos;
	r->n = n | (compact ? COMPACT : 0);
	r->hi = hi;
	for (uint32_t k = 0; k < n; k++) {
		c->words[c->pos++ & WMASK] = (uint32_t)frames[k];
		if (!compact)
			c->words[c->pos++ & WMASK] = (uint32_t)(frames[k] >> 32);
	}
	return 0;
}

void kt_rchains_prefetch(const struct kt_rchains *c, uint64_t id, int stage)
{
	const struct kt_rchain *r;

	if (!c->ring)
		return;
	r = &c->ring[id % KT_REC_CHAIN_IDS];
	if (!stage) {
		KT_PREFETCH(r);
	} else if (r->id == id + 1) {
		/* 31 compact words span two or three lines */
		KT_PREFETCH(&c->words[r->start & WMASK]);
		KT_PREFETCH(&c->words[(r->start + 16) & WMASK]);
		KT_PREFETCH(&c->words[(r->start + 32) & WMASK]);
	}
}

int kt_rchains_get(const struct kt_rchains *c, uint64_t id, uint64_t *out)
{
	const struct kt_rchain *r;
	const uint32_t *w = c->words;
	uint64_t at;
	uint32_t n;

	if (!c->ring || id == UINT64_MAX)
		return -1;
	r = &c->ring[id % KT_REC_CHAIN_IDS];
	/* Another id in its place, or words written since have overwritten some of its own. */
	if (r->id != id + 1 || c->pos - r->start > KT_RCHAIN_WORDS)
		return -1;
	n = r->n & ~COMPACT;
	at = r->start;
	if (r->n & COMPACT) {
		uint64_t hi = (uint64_t)r->hi << 32;

		for (uint32_t k = 0; k < n; k++)
			out[k] = hi | w[(at + k) & WMASK];
	} else {
		for (uint32_t k = 0; k < n; k++, at += 2)
			out[k] = w[at & WMASK] | (uint64_t)w[(at + 1) & WMASK] << 32;
	}
	return (int)n;
}

void kt_rchains_free(struct kt_rchains *c)
{
	free(c->ring);
	free(c->words);
	c->ring = NULL;
	c->words = NULL;
}
