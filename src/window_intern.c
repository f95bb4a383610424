/* Interning for the window: tasks by (pid, tid) with their names, and call stacks as ids
 * per distinct sequence of location ids, reference-counted by the tuples that use them. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "window_impl.h"

struct task_key {
	const struct kt_window *w;
	int32_t pid, tid;
};

static int task_eq(const void *ctx, uint32_t id)
{
	const struct task_key *k = ctx;

	return k->w->task[id].pub.tid == k->tid && k->w->task[id].pub.pid == k->pid;
}

static uint32_t task_hash(int32_t pid, int32_t tid)
{
	return kt_hash64((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid);
}

/* Re-points every comm after the array moved. */
static void task_fix_comms(struct kt_window *w)
{
	for (uint32_t i = 0; i < w->ntask; i++)
		w->task[i].pub.comm = w->task[i].comm;
}

uint32_t kt_window_task(struct kt_window *w, int32_t pid, int32_t tid)
{
	struct task_key k = {w, pid, tid};
	uint32_t h = task_hash(pid, tid), pos, id;
	struct wtask *old = w->task;
	struct wtask *t;

	id = kt_idx_find(&w->taskidx, h, task_eq, &k, &pos);
	if (id != UINT32_MAX)
		return id;
	if (kt_grow((void **)&w->task, &w->taskcap, w->ntask + 1, sizeof(*w->task)) < 0)
		return 0;
	if (w->task != old)
		task_fix_comms(w);
	id = w->ntask;
	if (kt_idx_insert(&w->taskidx, h, id, pos) < 0)
		return 0;
	w->ntask++;
	t = &w->task[id];
	memset(t, 0, sizeof(*t));
	t->pub.pid = pid;
	t->pub.tid = tid;
	t->pub.comm = t->comm;
	return id;
}

void kt_window_comm(struct kt_window *w, int32_t pid, int32_t tid, const char *comm)
{
	uint32_t id;

	if (!comm)
		return;
	id = kt_window_task(w, pid, tid);
	if (id < w->ntask)
		snprintf(w->task[id].comm, sizeof(w->task[id].comm), "%s", comm);
}

uint32_t kt_window_ntasks(const struct kt_window *w)
{
	return w->ntask;
}

const struct kt_task *kt_window_task_info(const struct kt_window *w, uint32_t task)
{
	return task < w->ntask ? &w->task[task].pub : NULL;
}

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
		if (kt_grow((void **)&w->stk, &w->stkcap, w->nstk + 1, sizeof(*w->stk)) < 0)
			return 0;
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

uint32_t kt_window_nstacks(const struct kt_window *w)
{
	return w->stklive;
}

void kt_window_stack_ref(struct kt_window *w, uint32_t stack)
{
	if (stack && stack < w->nstk && w->stk[stack].frames)
		w->stk[stack].ref++;
}

void kt_window_stack_unref(struct kt_window *w, uint32_t stack)
{
	if (!stack || stack >= w->nstk || !w->stk[stack].frames || !w->stk[stack].ref)
		return;
	if (--w->stk[stack].ref == 0)
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

void kt_window_intern_free(struct kt_window *w)
{
	for (uint32_t i = 1; i < w->nstk; i++)
		free(w->stk[i].frames);
	free(w->stk);
	kt_idx_free(&w->stkidx);
	free(w->task);
	kt_idx_free(&w->taskidx);
}

size_t kt_window_intern_mem(const struct kt_window *w)
{
	return (size_t)w->stkcap * sizeof(*w->stk) + w->stkmem + kt_idx_mem(&w->stkidx) +
	       (size_t)w->taskcap * sizeof(*w->task) + kt_idx_mem(&w->taskidx);
}
