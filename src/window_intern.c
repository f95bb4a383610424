/* Interning for the window: call stacks as ids per distinct sequence of location ids,
 * reference-counted by the tuples that use them (rolling and since-start apart, so that
 * stacks only the since-start totals hold can be retired). */
#include "config.h"

#include <string.h>

#include "window_impl.h"

struct stack_key {
	const struct kt_window *w;
	const uint32_t *locs;
	uint32_t n;
};

static int stack_eq(const void *ctx, uint32_t id)
{
	const struct stack_key *k = ctx;
	const struct wstack *s = &k->w->stk[id];

	return s->frames && s->n == k->n &&
	       memcmp(s->frames, k->locs, k->n * sizeof(*k->locs)) == 0;
}

/* A freshly interned stack has no reference yet: it waits on the pending list, so that an
 * id handed out just before an expiry is still valid for the kt_window_add that follows. */
static void stack_pend(struct kt_window *w, uint32_t id)
{
	struct wstack *s = &w->stk[id];

	if (s->pending)
		return;
	s->pending = 1;
	s->next = w->stkpending;
	w->stkpending = id;
}

/* The live stack behind an id; NULL for 0, an id past the table or a freed one. */
static struct wstack *stack_at(const struct kt_window *w, uint32_t stack)
{
	return stack && stack < w->nstk && w->stk[stack].frames ? &w->stk[stack] : NULL;
}

/* Forgets every cached chain; returns the first serial to give again. */
static uint32_t chain_flush(struct kt_window *w)
{
	if (w->chains)
		memset(w->chains, 0, w->nchains * sizeof(*w->chains));
	return 1;
}

/* One lane's step of the chain key, one multiply: a step is a bijection of the lane for a
 * given frame and of the frame for a given lane (a chain differing in one frame differs in
 * its lane), and the rotation brings the product's well-mixed high bits down for the next
 * (two multiplies a frame made the key 6.5 % of a -g replay's CPU). */
static inline uint64_t chain_round(uint64_t acc, uint64_t frame)
{
	acc = (acc ^ frame) * 0x9e3779b97f4a7c15ull;
	return acc << 31 | acc >> 33;
}

/* The chain's key: 128 bits of hash of its leaf location, length and callers' addresses,
 * four lanes apart so that the frames' multiplies overlap (issue 14: one chain of 31 serial
 * multiplies per sample was a sixth of the -g ingest). The leaf and the length go into their
 * lanes through a step of their own: XORed into the lane's seed, the next frame's XOR could
 * cancel them (leaf 65 under a caller at ...4ef and leaf 6 under one at ...4a8 gave one key,
 * 0x41 ^ 0xef = 0x06 ^ 0xa8: a replay counted a sample under another function's stack). */
struct kt_chain_key kt_window_chain_key(const uint64_t *frames, uint32_t n, uint32_t leaf)
{
	/* four named lanes, not an array: the compiler kept an array's lanes in memory, a
	 * store and a load in each step's chain of dependences */
	uint64_t v0 = chain_round(0x60ea27eeadc0b5d6ull, leaf),
		 v1 = chain_round(0xc2b2ae3d27d4eb4full, n), v2 = 0x165667b19e3779f9ull,
		 v3 = 0x61c8864e7a143579ull;
	uint32_t i = 1;

	for (; i + 4 <= n; i += 4) {
		v0 = chain_round(v0, frames[i]);
		v1 = chain_round(v1, frames[i + 1]);
		v2 = chain_round(v2, frames[i + 2]);
		v3 = chain_round(v3, frames[i + 3]);
	}
	if (i < n)
		v0 = chain_round(v0, frames[i++]);
	if (i < n)
		v1 = chain_round(v1, frames[i++]);
	if (i < n)
		v2 = chain_round(v2, frames[i++]);
	return (struct kt_chain_key){kt_mix64(v0 + (v1 << 7 | v1 >> 57) + (v2 << 12 | v2 >> 52) +
					      (v3 << 18 | v3 >> 46)),
				     kt_mix64((v0 ^ v2) * 0x9fb21c651e98df25ull + (v1 ^ v3))};
}

/* The first slot of key k's set in a cache of n slots. */
static inline uint32_t chain_set(const struct kt_chain_key *k, uint32_t n)
{
	return (uint32_t)k->check & (n - 1) & ~(WCHAIN_WAYS - 1);
}

/* Puts chain e first in set c (its ways), the others one way down, the last one dropped. */
static void chain_put(struct chain_slot *c, const struct chain_slot *e)
{
	memmove(c + 1, c, (WCHAIN_WAYS - 1) * sizeof(*c));
	c[0] = *e;
}

/* The way of set c holding hash, or WCHAIN_WAYS. */
static inline uint32_t chain_way(const struct chain_slot *c, uint64_t hash)
{
	for (uint32_t i = 0; i < WCHAIN_WAYS && c[i].serial; i++)
		if (c[i].hash == hash)
			return i;
	return WCHAIN_WAYS;
}

/* A cache of twice the slots (WCHAIN_MIN for the first) holding the chains the old one held
 * (issue 14: emptied at each of its ten doublings, a 256-CPU replay with chains resolved and
 * interned again, from its second to its twelfth second, 190 000 chains it had cached); when
 * that fails, the cache stays as it is and is never grown again. A slot does not keep the
 * half of the key that picks its set: each chain goes to both sets its old one splits into,
 * the copy in the set that is not its own is never found (its hash is another set's) and
 * gives way as that set fills. */
static int chain_grow(struct kt_window *w)
{
	uint32_t want = w->chains ? 2 * w->nchains : WCHAIN_MIN;
	struct chain_slot *c = aligned_alloc(64, want * sizeof(*c)); /* a set in one line */

	if (!w->maxchains)
		w->maxchains = WCHAIN_MAX;
	if (!c) {
		w->maxchains = w->nchains ? w->nchains : 1; /* not 0: tried */
		return -1;
	}
	if (want * sizeof(*c) >= KT_MEM_HUGE_MIN)
		kt_mem_huge_block(c, want * sizeof(*c));
	/* every page written now: the cache's memory is all there from its growth on, rather
	 * than creeping up as its slots fill over the next minutes. Set s splits into s and
	 * s + nchains: the old sets go whole into both halves */
	if (w->chains) {
		memcpy(c, w->chains, w->nchains * sizeof(*c));
		memcpy(c + w->nchains, w->chains, w->nchains * sizeof(*c));
	} else {
		memset(c, 0, want * sizeof(*c));
	}
	free(w->chains);
	w->chains = c;
	w->nchains = want;
	return 0;
}

uint32_t kt_window_stack_cached_key(struct kt_window *w, const struct kt_chain_key *k,
				    uint32_t n, uint32_t leaf, uint32_t *slot)
{
	struct chain_slot *c;
	const struct wstack *s;
	uint32_t way;

	*slot = UINT32_MAX;
	if (n < 2 || n > KT_WINDOW_CHAIN_DEPTH)
		return 0;
	if ((!w->maxchains || (w->stklive > w->nchains / 2 && w->nchains < w->maxchains)) &&
	    chain_grow(w) < 0 && !w->chains)
		return 0; /* no cache: every chain is resolved */
	*slot = chain_set(k, w->nchains);
	c = &w->chains[*slot];
	if ((way = chain_way(c, k->hash)) == WCHAIN_WAYS)
		return 0;
	if (way) { /* the most recently used first, so that a new one replaces the coldest */
		struct chain_slot t = c[way];

		memmove(c + 1, c, way * sizeof(*c));
		c[0] = t;
	}
	s = stack_at(w, c->stack);
	/* the leaf and the length are in the key, and checked here too (the stack's line is
	 * read for its serial anyway): a key that let them cancel once gave a chain another
	 * leaf's stack */
	return s && s->serial == c->serial && s->leaf == leaf && s->n == n ? c->stack : 0;
}

uint32_t kt_window_stack_cached(struct kt_window *w, const uint64_t *frames, uint32_t n,
				uint32_t leaf, uint32_t *slot)
{
	struct kt_chain_key k = {0, 0};

	if (n >= 2 && n <= KT_WINDOW_CHAIN_DEPTH)
		k = kt_window_chain_key(frames, n, leaf);
	return kt_window_stack_cached_key(w, &k, n, leaf, slot);
}

void kt_window_chain_prefetch(const struct kt_window *w, const struct kt_chain_key *k,
			      int fetched)
{
	const struct chain_slot *c;
	uint32_t way;

	if (!w->chains)
		return;
	c = &w->chains[chain_set(k, w->nchains)];
	if (!fetched) {
		KT_PREFETCH(c); /* every way: one line */
		return;
	}
	if ((way = chain_way(c, k->hash)) < WCHAIN_WAYS && c[way].stack < w->nstk) {
		const struct wstack *s = &w->stk[c[way].stack];

		if (fetched == 1) {
			KT_PREFETCH(s);
			return;
		}
		if (s->nar && s->nar <= w->nar.n)
			KT_PREFETCH(&w->nar.t[s->nar - 1]);
		if (s->nars && s->nars <= w->nars.n)
			KT_PREFETCH(&w->nars.t[s->nars - 1]);
	}
}

void kt_window_stack_cache_put(struct kt_window *w, uint32_t slot, const uint64_t *frames,
			       uint32_t n, uint32_t leaf, uint32_t stack)
{
	const struct wstack *s = stack_at(w, stack);
	struct kt_chain_key k;

	if (slot >= w->nchains || n < 2 || n > KT_WINDOW_CHAIN_DEPTH || !s)
		return;
	k = kt_window_chain_key(frames, n, leaf);
	if (chain_set(&k, w->nchains) != slot)
		return; /* not the set of this chain (the cache grew meanwhile) */
	chain_put(&w->chains[slot], &(struct chain_slot){k.hash, stack, s->serial});
}

uint32_t kt_window_stack(struct kt_window *w, const uint32_t *locs, uint32_t n)
{
	struct stack_key k = {w, locs, n};
	uint32_t h, pos, id;
	struct wstack *s;

	if (!n)
		return 0;
	kt_window_stack_reclaim(w);
	h = kt_hash_u32s(locs, n);
	id = kt_idx_find(&w->stkidx, h, stack_eq, &k, &pos);
	if (id != UINT32_MAX)
		return id;
	if (w->stkfree) {
		id = w->stkfree;
		w->stkfree = w->stk[id].next;
	} else {
		if (!w->nstk)
			w->nstk = 1; /* id 0 = no stack */
		if (kt_grow((void **)&w->stk, &w->stkcap, w->nstk + 1, sizeof(*w->stk)) < 0) {
			w->nomem++;
			return 0;
		}
		id = w->nstk++;
	}
	s = &w->stk[id];
	memset(s, 0, sizeof(*s));
	s->frames = malloc(n * sizeof(*locs));
	if (!s->frames || kt_idx_insert(&w->stkidx, h, id, pos) < 0) {
		free(s->frames);
		s->frames = NULL;
		s->next = w->stkfree;
		w->stkfree = id;
		w->nomem++;
		return 0;
	}
	memcpy(s->frames, locs, n * sizeof(*locs));
	s->n = n;
	s->leaf = locs[0];
	s->hash = h;
	if (++w->stkserial == 0) /* wrapped: the chain cache's serials may repeat */
		w->stkserial = chain_flush(w);
	s->serial = w->stkserial;
	w->stkmem += n * sizeof(*locs);
	w->stklive++;
	stack_pend(w, id);
	return id;
}

const uint32_t *kt_window_stack_frames(const struct kt_window *w, uint32_t stack, uint32_t *n)
{
	const struct wstack *s = stack_at(w, stack);

	*n = s ? s->n : 0;
	return s ? s->frames : NULL;
}

uint32_t kt_window_stack_tag(const struct kt_window *w, uint32_t stack, unsigned which)
{
	const struct wstack *s = stack_at(w, stack);

	return s && which < KT_STACK_TAGS ? s->tag[which] : 0;
}

void kt_window_stack_set_tag(struct kt_window *w, uint32_t stack, unsigned which, uint32_t tag)
{
	struct wstack *s = stack_at(w, stack);

	if (s && which < KT_STACK_TAGS)
		s->tag[which] = tag;
}

uint32_t kt_window_stack_leaf(const struct kt_window *w, uint32_t stack)
{
	const struct wstack *s = stack_at(w, stack);

	return s ? s->leaf : 0;
}

void kt_window_stack_prefetch(const struct kt_window *w, uint32_t stack)
{
	if (stack && stack < w->nstk)
		KT_PREFETCH(&w->stk[stack]);
}

void kt_window_stack_clear_tags(struct kt_window *w, unsigned which)
{
	for (uint32_t i = 1; i < w->nstk && which < KT_STACK_TAGS; i++)
		w->stk[i].tag[which] = 0;
}

uint32_t kt_window_nstacks(const struct kt_window *w)
{
	return w->stklive;
}

/* A stack only the since-start totals hold: a candidate for retirement. */
static int stack_idle(const struct wstack *s)
{
	return s->frames && s->ref && !s->rref;
}


void kt_window_stack_ref(struct kt_window *w, uint32_t stack, int rolling)
{
	struct wstack *s = stack_at(w, stack);
	int was;

	if (!s)
		return;
	was = stack_idle(s);
	s->ref++;
	s->rref += !!rolling;
	if (stack_idle(s) != was) {
		w->stkidle += was ? -1 : 1;
		s->stamp = w->expiring ? w->expiring : ++w->stamp;
	}
}

void kt_window_stack_unref(struct kt_window *w, uint32_t stack, int rolling)
{
	struct wstack *s = stack_at(w, stack);
	int was;

	if (!s || !s->ref || (rolling && !s->rref))
		return;
	was = stack_idle(s);
	s->ref--;
	s->rref -= !!rolling;
	if (stack_idle(s) != was) {
		w->stkidle += was ? -1 : 1;
		s->stamp = w->expiring ? w->expiring : ++w->stamp;
	}
	if (!s->ref)
		stack_pend(w, stack);
}

/* Frees the pending stacks nobody took a reference to. */
void kt_window_stack_reclaim(struct kt_window *w)
{
	uint32_t id = w->stkpending;

	w->stkpending = 0;
	while (id) {
		struct wstack *s = &w->stk[id];
		uint32_t next = s->next;

		s->pending = 0;
		if (!s->ref && s->frames) {
			kt_idx_remove(&w->stkidx, s->hash, id);
			w->stkmem -= s->n * sizeof(*s->frames);
			free(s->frames);
			s->frames = NULL;
			s->n = 0;
			s->next = w->stkfree;
			w->stkfree = id;
			w->stklive--;
		}
		id = next;
	}
}

void kt_window_stacks_free(struct kt_window *w)
{
	for (uint32_t i = 1; i < w->nstk; i++)
		free(w->stk[i].frames);
	free(w->stk);
	kt_idx_free(&w->stkidx);
	free(w->chains);
}

size_t kt_window_stacks_mem(const struct kt_window *w)
{
	return (size_t)w->stkcap * sizeof(*w->stk) + w->stkmem + kt_idx_mem(&w->stkidx) +
	       (size_t)w->nchains * sizeof(*w->chains);
}
