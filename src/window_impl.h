/* The window's private state, shared by window.c (slices, totals) and window_intern.c
 * (tasks and stacks). Nothing outside the window layer includes it. */
#ifndef KERNTOP_WINDOW_IMPL_H
#define KERNTOP_WINDOW_IMPL_H

#include "kerntop/window.h"
#include "util_idx.h"

/* A tuple with a non-zero count in the rolling window. Slices refer to it by index. */
struct wtuple {
	struct kt_hit h; /* key and rolling count; h.hits == 0 marks a free entry */
	uint32_t hash;
	uint32_t seq;  /* (slice number + 1) of the slice that last counted it */
	uint32_t sidx; /* its index in that slice; next free entry when free */
};

struct slice {
	struct kt_slice_hit *e;
	uint32_t n, cap;
	uint64_t hits, lost;
};

struct wstack {
	uint32_t *frames; /* NULL when free */
	uint32_t n;
	uint32_t hash;
	uint32_t ref;  /* tuples (rolling and since-start) holding it */
	uint32_t rref; /* of which rolling */
	uint32_t next; /* free list, or pending-reclaim list */
	uint64_t stamp; /* when only the since-start totals were left holding it */
	uint32_t tag;	/* kt_window_stack_tag */
	uint8_t pending;
	uint8_t drop;  /* being retired: the since-start totals let go of it */
};

enum { WTASK_FREE, WTASK_LIVE, WTASK_GROUP };

struct wtask {
	struct kt_task pub;
	char comm[48];	/* a group: "NAME [N tasks]" */
	char base[16];	/* a group: NAME, the command its members had */
	uint64_t stamp; /* when it was last left without rolling hits (retirement order) */
	uint32_t ref;	/* rolling tuples of this task */
	uint32_t next;	/* free list (id + 1) */
	uint32_t tag;	/* kt_window_task_tag */
	uint8_t state;
};

/* A retired task's name, so that it is not lost when the task is sampled again. */
struct wname {
	int32_t pid, tid;
	char comm[16];
};

struct addr_hits;

struct kt_window {
	struct addr_hits *addr; /* exact-address hits (window_addr.c), NULL until the first */
	uint64_t span_ns, slice_ns;
	int cumulative;
	uint32_t max_cum;

	/* time: slice k covers [origin + k*slice, origin + (k+1)*slice) */
	int started;
	uint64_t origin, end;
	uint64_t newest;    /* slice number of the newest slice */
	uint32_t nslices;   /* slices the rolling totals span */
	struct slice *ring; /* nslices entries, slot k % nslices */

	/* rolling totals */
	struct wtuple *tup;
	uint32_t ntup, tupcap, tupfree, tuplive;
	struct kt_idx tupidx;
	uint64_t total, lost;

	/* since-start totals of the expired slices: never shrink (folded past max_cum); the
	 * since-start view adds the rolling totals on top */
	struct kt_hit *cum;
	uint32_t ncum, cumcap;
	struct kt_idx cumidx;
	uint64_t base_total, base_lost;
	uint32_t other_task; /* group "[other]"; UINT32_MAX until first needed */

	/* dense copies handed out by kt_window_hits / kt_window_recent */
	struct kt_hit *out;
	uint32_t nout, outcap;
	int out_dirty;
	uint64_t gen; /* kt_window_gen: bumped whenever out_dirty is set */
	int out_cum; /* out[] holds the since-start merge */
	struct kt_hit *recent;
	uint32_t nrecent, recentcap;
	uint64_t recent_len;

	/* stacks */
	struct wstack *stk; /* id 0 is reserved for "no stack" */
	uint32_t nstk, stkcap, stkfree, stklive, stkpending;
	uint32_t stkidle, max_idle_stk; /* stacks only the since-start totals hold, and the cap */
	struct kt_idx stkidx;
	size_t stkmem;

	/* tasks */
	struct wtask *task;
	uint32_t ntask, taskcap, taskfree, tasklive;
	struct kt_idx taskidx;
	uint32_t max_idle, nidle; /* live tasks without rolling hits, and the cap on them */
	uint64_t stamp; /* retirement order of tasks and stacks */
	uint32_t group[KT_WINDOW_GROUPS], ngroup;
	struct wname *names; /* ring of KT_WINDOW_NAMES retired names */
	uint32_t namehead;
	struct kt_idx nameidx;
	uint64_t nomem; /* allocations that failed: what they held is missing (kt_window_nomem) */
};

/* window_intern.c: stacks */
void kt_window_stack_ref(struct kt_window *w, uint32_t stack, int rolling);
void kt_window_stack_unref(struct kt_window *w, uint32_t stack, int rolling);
void kt_window_stack_reclaim(struct kt_window *w);
void kt_window_stacks_free(struct kt_window *w);
size_t kt_window_stacks_mem(const struct kt_window *w);

/* window_tasks.c */
void kt_window_task_ref(struct kt_window *w, uint32_t task);
void kt_window_task_unref(struct kt_window *w, uint32_t task);
uint32_t kt_window_group(struct kt_window *w, const char *name);
void kt_window_task_free(struct kt_window *w, uint32_t id);
void kt_window_tasks_free(struct kt_window *w);
size_t kt_window_tasks_mem(const struct kt_window *w);

/* window_retire.c: past the caps, retires tasks and stacks only the since-start totals hold */
void kt_window_retire(struct kt_window *w);

/* window.c: re-keys the since-start totals by task_map (NULL: none) and drops the stacks
 * marked drop, merging what meets */
void kt_window_cum_remap(struct kt_window *w, const uint32_t *task_map);

/* window_addr.c */
void kt_window_addr_free(struct kt_window *w);

#endif
