/* Retirement: keeps the since-start totals bounded by what is in the window. Tasks and call
 * stacks that only the since-start totals still hold are counted; past a cap, the longest
 * gone half is retired in one pass over the since-start table: tasks move to the group of
 * their command name, stacks to "no stack". Location, CPU and total counts never change.
 * The default caps follow the window as it moves: half as many as the window itself holds
 * (tasks with rolling hits, stacks it references), never fewer than KT_WINDOW_IDLE_TASKS
 * and KT_WINDOW_IDLE_STACKS. The pass costs what the since-start totals hold, so a fixed
 * cap made it as frequent as the window was big (issue 14: at 256 CPUs with chains, 148 k
 * stacks in the window and thousands leaving it each second, a pass of a tenth of a second
 * every few seconds, more as the totals grew); now a pass comes each time a quarter as
 * many stacks (or tasks) as the window holds have left it, and what is kept is still bounded
 * by the window, not by the run's length. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "window_impl.h"

struct retiree {
	uint64_t stamp;
	uint32_t id;
};

static int by_stamp(const void *a, const void *b)
{
	const struct retiree *x = a, *y = b;

	if (x->stamp != y->stamp)
		return x->stamp < y->stamp ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The oldest of n candidates beyond keep, sorted first; returns how many to retire. */
static uint32_t oldest(struct retiree *r, uint32_t n, uint32_t keep)
{
	qsort(r, n, sizeof(*r), by_stamp);
	return n > keep ? n - keep : 0;
}

/* Picks the tasks to retire and fills map (old id -> group id); returns how many are in r. */
static uint32_t pick_tasks(struct kt_window *w, struct retiree *r, uint32_t *map, uint32_t ntask)
{
	uint32_t n = 0, nret;

	for (uint32_t i = 0; i < ntask; i++) {
		map[i] = i;
		if (w->task[i].state == WTASK_LIVE && !w->task[i].ref && n < w->nidle)
			r[n++] = (struct retiree){w->task[i].stamp, i};
	}
	nret = oldest(r, n, w->max_idle / 2);
	for (uint32_t i = 0; i < nret; i++) {
		uint32_t g = kt_window_group(w, w->task[r[i].id].comm);
		struct wtask *t = &w->task[g];

		map[r[i].id] = g;
		t->pub.folded++;
		snprintf(t->comm, sizeof(t->comm), "%s [%u tasks]", t->base, t->pub.folded);
	}
	return nret;
}

/* Marks the stacks to drop from the since-start totals. */
static void pick_stacks(struct kt_window *w, struct retiree *r)
{
	uint32_t n = 0, nret;

	for (uint32_t i = 1; i < w->nstk; i++) {
		const struct wstack *s = &w->stk[i];

		if (s->frames && s->ref && !s->rref && n < w->stkidle)
			r[n++] = (struct retiree){s->stamp, i};
	}
	nret = oldest(r, n, w->max_idle_stk / 2);
	for (uint32_t i = 0; i < nret; i++)
		w->stk[r[i].id].drop = 1;
}

/* max(floor, half of what the window itself holds) */
static uint32_t cap_of(uint32_t floor, uint32_t all, uint32_t idle)
{
	uint32_t half = all > idle ? (all - idle) / 2 : 0;

	return half > floor ? half : floor;
}

void kt_window_retire_caps(struct kt_window *w)
{
	if (w->idle_scale)
		w->max_idle = cap_of(KT_WINDOW_IDLE_TASKS, w->tasklive, w->nidle);
	if (w->idle_scale_stk)
		w->max_idle_stk = cap_of(KT_WINDOW_IDLE_STACKS, w->stklive, w->stkidle);
}

void kt_window_retire(struct kt_window *w)
{
	int tasks = w->nidle > w->max_idle, stacks = w->stkidle > w->max_idle_stk;
	uint32_t ntask = w->ntask, nt = 0;
	struct retiree *rt = NULL, *rs = NULL;
	uint32_t *map = NULL;

	if (!tasks && !stacks)
		return;
	if (tasks) {
		rt = malloc((size_t)w->nidle * sizeof(*rt));
		map = malloc((size_t)ntask * sizeof(*map));
		if (!rt || !map)
			goto out;
	}
	if (stacks && !(rs = malloc((size_t)w->stkidle * sizeof(*rs))))
		goto out;
	if (tasks)
		nt = pick_tasks(w, rt, map, ntask);
	if (stacks)
		pick_stacks(w, rs);
	kt_window_cum_remap(w, map);
	for (uint32_t i = 0; i < nt; i++)
		kt_window_task_free(w, rt[i].id);
out:
	free(rt);
	free(rs);
	free(map);
}
