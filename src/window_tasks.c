/* Tasks for the window: interned by (pid, tid) with their names, reference-counted by
 * the rolling tuples, and the per-command groups that retired tasks are merged into. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
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

uint32_t kt_window_task_find(const struct kt_window *w, int32_t pid, int32_t tid)
{
	struct task_key k = {w, pid, tid};
	uint32_t pos;

	return kt_idx_find(&w->taskidx, task_hash(pid, tid), task_eq, &k, &pos);
}

/* Copies a name, cut to fit dst. */
static void name_copy(char *dst, size_t len, const char *src)
{
	size_t n;

	for (n = 0; n + 1 < len && src[n]; n++)
		dst[n] = src[n];
	dst[n] = 0;
}

static int name_eq(const void *ctx, uint32_t id)
{
	const struct task_key *k = ctx;

	return k->w->names[id].tid == k->tid && k->w->names[id].pid == k->pid;
}

/* Remembers a retired task's name in a ring of the last KT_WINDOW_NAMES. */
static void name_keep(struct kt_window *w, int32_t pid, int32_t tid, const char *comm)
{
	struct task_key k = {w, pid, tid};
	uint32_t h = task_hash(pid, tid), pos, id;
	struct wname *e;

	if (!comm[0])
		return;
	if (!w->names && !(w->names = calloc(KT_WINDOW_NAMES, sizeof(*w->names)))) {
		w->nomem++;
		return;
	}
	id = kt_idx_find(&w->nameidx, h, name_eq, &k, &pos);
	if (id == UINT32_MAX) {
		id = w->namehead;
		e = &w->names[id];
		if (e->comm[0])
			kt_idx_remove(&w->nameidx, task_hash(e->pid, e->tid), id);
		if (kt_idx_insert(&w->nameidx, h, id, pos) < 0) {
			e->comm[0] = 0;
			w->nomem++;
			return;
		}
		w->namehead = (id + 1) % KT_WINDOW_NAMES;
	}
	e = &w->names[id];
	e->pid = pid;
	e->tid = tid;
	name_copy(e->comm, sizeof(e->comm), comm);
}

static void name_restore(struct kt_window *w, struct wtask *t)
{
	struct task_key k = {w, t->pub.pid, t->pub.tid};
	uint32_t pos, id;

	if (!w->names)
		return;
	id = kt_idx_find(&w->nameidx, task_hash(k.pid, k.tid), name_eq, &k, &pos);
	if (id != UINT32_MAX)
		name_copy(t->comm, sizeof(t->comm), w->names[id].comm);
}

/* A free task slot (a retired id first); UINT32_MAX when out of memory. */
static uint32_t task_slot(struct kt_window *w)
{
	struct wtask *old = w->task;
	uint32_t id;

	if (w->taskfree) {
		id = w->taskfree - 1;
		w->taskfree = w->task[id].next;
		return id;
	}
	if (w->ntask == w->taskcap) { /* doubled, 64-byte aligned (struct wtask) */
		uint32_t cap = w->taskcap ? w->taskcap * 2 : 64;
		void *p;

		if (cap < w->taskcap || posix_memalign(&p, 64, (size_t)cap * sizeof(*w->task)))
			return UINT32_MAX;
		if (old)
			memcpy(p, old, (size_t)w->ntask * sizeof(*w->task));
		free(old);
		w->task = p;
		w->taskcap = cap;
		task_fix_comms(w);
	}
	return w->ntask++;
}

static uint32_t task_intern(struct kt_window *w, int32_t pid, int32_t tid, uint8_t state)
{
	struct task_key k = {w, pid, tid};
	uint32_t h = task_hash(pid, tid), pos, id;
	struct wtask *t;

	id = kt_idx_find(&w->taskidx, h, task_eq, &k, &pos);
	if (id != UINT32_MAX)
		return id;
	id = task_slot(w);
	if (id == UINT32_MAX) {
		w->nomem++;
		return 0;
	}
	t = &w->task[id];
	if (kt_idx_insert(&w->taskidx, h, id, pos) < 0) {
		t->state = WTASK_FREE;
		t->next = w->taskfree;
		w->taskfree = id + 1;
		w->nomem++;
		return 0;
	}
	memset(t, 0, sizeof(*t));
	t->pub.pid = pid;
	t->pub.tid = tid;
	t->pub.comm = t->comm;
	t->state = state;
	w->tasklive++;
	if (state == WTASK_LIVE) {
		t->stamp = w->expiring ? w->expiring : ++w->stamp;
		w->nidle++;
		name_restore(w, t);
	}
	return id;
}

void kt_window_task_prefetch(const struct kt_window *w, int32_t pid, int32_t tid, int fetched)
{
	uint32_t h = task_hash(pid, tid);
	const struct kt_idx_slot *x;

	if (!w->taskidx.slot)
		return;
	x = &w->taskidx.slot[h & w->taskidx.mask];
	if (!fetched)
		KT_PREFETCH(x);
	else if (x->id1 && x->hash == h)
		KT_PREFETCH(&w->task[x->id1 - 1]);
}

uint32_t kt_window_task(struct kt_window *w, int32_t pid, int32_t tid)
{
	return task_intern(w, pid, tid, WTASK_LIVE);
}

void kt_window_comm(struct kt_window *w, int32_t pid, int32_t tid, const char *comm)
{
	uint32_t id;

	if (!comm)
		return;
	id = kt_window_task(w, pid, tid);
	if (id < w->ntask && w->task[id].state == WTASK_LIVE &&
	    strncmp(w->task[id].comm, comm, sizeof(w->task[id].comm) - 1) != 0) {
		name_copy(w->task[id].comm, sizeof(w->task[id].comm), comm);
		w->task[id].tag = 0; /* what the old name classified into */
	}
}

uint32_t kt_window_task_tag(const struct kt_window *w, uint32_t task)
{
	return task < w->ntask && w->task[task].state == WTASK_LIVE ? w->task[task].tag : 0;
}

void kt_window_task_set_tag(struct kt_window *w, uint32_t task, uint32_t tag)
{
	if (task < w->ntask && w->task[task].state == WTASK_LIVE)
		w->task[task].tag = tag;
}

uint32_t kt_window_ntasks(const struct kt_window *w)
{
	return w->tasklive;
}

const struct kt_task *kt_window_task_info(const struct kt_window *w, uint32_t task)
{
	return task < w->ntask && w->task[task].state != WTASK_FREE ? &w->task[task].pub : NULL;
}

void kt_window_task_ref(struct kt_window *w, uint32_t task)
{
	if (task < w->ntask && w->task[task].state == WTASK_LIVE && w->task[task].ref++ == 0)
		w->nidle--;
}

void kt_window_task_unref(struct kt_window *w, uint32_t task)
{
	struct wtask *t;

	if (task >= w->ntask)
		return;
	t = &w->task[task];
	if (t->state != WTASK_LIVE || !t->ref)
		return;
	if (--t->ref == 0) {
		w->nidle++;
		t->stamp = w->expiring ? w->expiring : ++w->stamp;
	}
}

static uint32_t group_new(struct kt_window *w, int32_t tid, const char *name)
{
	char copy[sizeof(w->task->comm)];
	uint32_t id;
	struct wtask *t;

	/* name may point into w->task, which task_intern can move */
	name_copy(copy, sizeof(copy), name);
	id = task_intern(w, -1, tid, WTASK_GROUP);
	t = &w->task[id];
	if (t->state != WTASK_GROUP)
		return id; /* out of memory: task 0 stands in */
	name_copy(t->base, sizeof(t->base), copy);
	name_copy(t->comm, sizeof(t->comm), copy);
	return id;
}

/* The group of retired tasks named name ("[other]" past KT_WINDOW_GROUPS names, or for NULL). */
uint32_t kt_window_group(struct kt_window *w, const char *name)
{
	uint32_t id;

	if (name) {
		if (!name[0])
			name = "[unnamed]";
		for (uint32_t i = 0; i < w->ngroup; i++)
			if (strncmp(w->task[w->group[i]].base, name, sizeof(w->task->base) - 1) ==
			    0)
				return w->group[i];
		if (w->ngroup < KT_WINDOW_GROUPS) {
			id = group_new(w, -2 - (int32_t)w->ngroup, name);
			if (w->task[id].state == WTASK_GROUP)
				w->group[w->ngroup++] = id;
			return id;
		}
	}
	if (w->other_task == UINT32_MAX)
		w->other_task = group_new(w, -1, "[other]");
	return w->other_task;
}

/* Retires a task without rolling hits: its name is remembered, its id freed for reuse. */
void kt_window_task_free(struct kt_window *w, uint32_t id)
{
	struct wtask *t = &w->task[id];

	name_keep(w, t->pub.pid, t->pub.tid, t->comm);
	kt_idx_remove(&w->taskidx, task_hash(t->pub.pid, t->pub.tid), id);
	t->state = WTASK_FREE;
	t->comm[0] = 0;
	t->next = w->taskfree;
	w->taskfree = id + 1;
	w->tasklive--;
	w->nidle--;
}

void kt_window_tasks_free(struct kt_window *w)
{
	free(w->task);
	kt_idx_free(&w->taskidx);
	free(w->names);
	kt_idx_free(&w->nameidx);
}

size_t kt_window_tasks_mem(const struct kt_window *w)
{
	return (size_t)w->taskcap * sizeof(*w->task) + kt_idx_mem(&w->taskidx) +
	       (w->names ? KT_WINDOW_NAMES * sizeof(*w->names) : 0) + kt_idx_mem(&w->nameidx);
}
