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
	s->hash = h;
	w->stkmem += n * sizeof(*locs);
	w->stklive++;
	stack_pend(w, id);
	return id;
}

const uint32_t *kt_window_stack_frames(const struct kt_window *w, uint32_t stack, uint32_t *n)
{
	if (!stack || stack >= w->nstk || !w->stk[stack].frames) {
		*n = 0;
		return NULL;
	}
	*n = w->stk[stack].n;
	return w->stk[stack].frames;
}

uint32_t kt_window_stack_tag(const struct kt_window *w, uint32_t stack, unsigned which)
{
	return stack && stack < w->nstk && w->stk[stack].frames && which < KT_STACK_TAGS
		   ? w->stk[stack].tag[which]
		   : 0;
}

void kt_window_stack_set_tag(struct kt_window *w, uint32_t stack, unsigned which, uint32_t tag)
{
	if (stack && stack < w->nstk && w->stk[stack].frames && which < KT_STACK_TAGS)
		w->stk[stack].tag[which] = tag;
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

static struct wstack *stack_at(struct kt_window *w, uint32_t stack)
{
	return stack && stack < w->nstk && w->stk[stack].frames ? &w->stk[stack] : NULL;
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
}

size_t kt_window_stacks_mem(const struct kt_window *w)
{
	return (size_t)w->stkcap * sizeof(*w->stk) + w->stkmem + kt_idx_mem(&w->stkidx);
}
