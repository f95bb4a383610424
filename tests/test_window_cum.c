/* The since-start totals' runs (window_cum.c, window_cum_sort.c): a busy CPU's logs and the
 * two runs past the cap, then folds with big slices: each CPU's log of a slice holds
 * hundreds of records, so it is sorted by radix on its packed keys, with
 * and without stacks, over ids of several bytes (locations past 2^16, stacks and tasks past
 * 2^8), and by the merge sort when a count does not pack; the totals are compared, key by
 * key, with a recount of every sample added. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/window.h"
#include "tap.h"
#include "test_window_util.h"

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int by_key(const void *a, const void *b)
{
	const struct kt_hit *x = a, *y = b;
	uint32_t kx[5] = {x->loc, x->stack, x->task, x->ctx, x->cpu};
	uint32_t ky[5] = {y->loc, y->stack, y->task, y->ctx, y->cpu};

	for (int i = 0; i < 5; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return 0;
}

/* Sorts h[0, n) by key and adds up repeated keys; returns how many are left. */
static size_t fold(struct kt_hit *h, size_t n)
{
	size_t j = 0;

	qsort(h, n, sizeof(*h), by_key);
	for (size_t i = 0; i < n; i++) {
		if (j && !by_key(&h[j - 1], &h[i]))
			h[j - 1].hits += h[i].hits;
		else
			h[j++] = h[i];
	}
	return j;
}

/* The window's since-start tuples against the recount of v[0, nv): the number of keys that
 * differ (missing, extra, with other hits, or given more than once). */
static int compare(struct kt_window *w, const struct kt_hit *v, size_t nv)
{
	struct kt_hit *want = malloc((nv + 1) * sizeof(*want)), *got;
	const struct kt_hit *h;
	size_t nw, ng, i = 0, j = 0;
	int bad = 0;

	memcpy(want, v, nv * sizeof(*v));
	nw = fold(want, nv);
	kt_window_set_cumulative(w, 1);
	h = kt_window_hits(w, &ng);
	got = malloc((ng + 1) * sizeof(*got));
	memcpy(got, h, ng * sizeof(*h));
	qsort(got, ng, sizeof(*got), by_key);
	for (size_t k = 1; k < ng; k++)
		bad += !by_key(&got[k - 1], &got[k]); /* each key once */
	ng = fold(got, ng);
	kt_window_set_cumulative(w, 0);
	while (i < nw || j < ng) {
		int c = i == nw ? 1 : j == ng ? -1 : by_key(&want[i], &got[j]);

		if (c || want[i].hits != got[j].hits)
			bad++;
		i += c <= 0;
		j += c >= 0;
	}
	free(want);
	free(got);
	return bad;
}

/* Slices of 800 samples on 2 CPUs, a window of 2 slices: a CPU's log of a slice holds
 * hundreds of its 576 keys, and folds into the since-start runs at every slice, where the
 * same keys wait. chains: most samples have one of 8 of 600 stacks; big: some counts past
 * 2^32. */
static void run(const char *what, int chains, int big)
{
	struct kt_window_opts o = {.span_ns = 2 * S, .slice_ns = S};
	struct kt_window *w = NULL;
	enum { SLICES = 24, PER = 800, NSTK = 600, NTASK = 300 };
	struct kt_hit *v = calloc((size_t)SLICES * PER + NSTK, sizeof(*v));
	uint32_t stk[NSTK], task[NTASK];
	uint64_t s = 0x9e3779b97f4a7c15ull ^ (uint64_t)(chains * 2 + big);
	static const uint32_t pick_stk[8] = {0, 1, 255, 256, 300, 511, 512, 599};
	static const uint32_t pick_task[4] = {0, 100, 257, 299};
	size_t nv = 0;
	int bad = 0, checks = 0;

	kt_window_new(&o, &w);
	for (uint32_t i = 0; i < NTASK; i++)
		task[i] = kt_window_task(w, (int32_t)(100 + i), (int32_t)(100 + i));
	/* 600 stacks, each given a hit at once (an unreferenced one is freed at the next
	 * intern), so that ids run past 2^8 */
	for (uint32_t i = 0; i < NSTK; i++) {
		uint32_t fr[3] = {70000 + i % 40, 5 + i, 9 + i / 7};
		struct kt_hit *h = &v[nv++];

		stk[i] = kt_window_stack(w, fr, 3);
		*h = (struct kt_hit){65000, chains ? stk[i] : 0, 0, task[0], 0, 1};
		kt_window_add_ctx(w, S / 2, h->loc, h->stack, h->cpu, h->task, h->ctx, h->hits);
	}
	if (chains)
		ok(stk[NSTK - 1] >= NSTK, "stack ids past 2^8");
	for (uint32_t sl = 0; sl < SLICES; sl++) {
		for (uint32_t k = 0; k < PER; k++) {
			struct kt_hit *h = &v[nv++];
			uint64_t t = (1 + sl) * S + k * (S / PER);

			/* a few keys, so that every slice meets them again, of ids whose every
			 * byte the sort must order */
			h->stack = chains && rnd(&s) % 4 ? stk[pick_stk[rnd(&s) % 8]] : 0;
			h->loc = 65000 + (uint32_t)(rnd(&s) % 8) * 1850;
			h->cpu = k & 1;
			h->task = task[pick_task[rnd(&s) % 4]];
			h->ctx = (uint32_t)(rnd(&s) % 2);
			h->hits = big && rnd(&s) % 97 == 0 ? (1ull << 32) + rnd(&s) % 5 : 1;
			kt_window_add_ctx(w, t, h->loc, h->stack, h->cpu, h->task, h->ctx, h->hits);
		}
		if (sl >= 3 && sl % 3 == 0) {
			bad += compare(w, v, nv);
			checks++;
		}
	}
	kt_window_advance(w, (SLICES + 5) * S); /* everything expired into the runs */
	bad += compare(w, v, nv);
	is_int(bad, 0, what);
	ok(checks >= 7, "checked at every third slice");
	kt_window_free(w);
	free(v);
}

/* Busy CPUs without chains: each CPU's expiring log has thousands of records, which the
 * since-start fold sorts by their packed keys a byte at a time (window_cum.c). Every key's
 * since-start total must equal a recount, and appear once. */
static void test_cum_busy(void)
{
	enum { LOCS = 1000, TASKS = 8, CPUS = 2, CTXS = 4 };
	struct kt_window *w = mk(2 * S, 1 * S, 0);
	uint64_t *want = calloc((size_t)LOCS * TASKS * CPUS * CTXS, sizeof(*want));
	uint32_t task[TASKS], seed = 99;
	uint64_t all = 0, sum = 0;
	int bad = 0, dup = 0;
	size_t n;
	const struct kt_hit *h;

	for (uint32_t i = 0; i < TASKS; i++) /* pids far apart: their ids are not their order */
		task[i] = kt_window_task(w, (int32_t)(100000 - 977 * i), (int32_t)(100000 - 977 * i));
	for (uint64_t t = 1 * S; t < 12 * S; t += S / 4000) {
		for (uint32_t cpu = 0; cpu < CPUS; cpu++) {
			uint32_t loc, tk, ctx;

			seed = seed * 1103515245u + 12345u;
			loc = (seed >> 8) % LOCS;
			tk = (seed >> 18) % TASKS;
			ctx = (seed >> 24) % CTXS;
			kt_window_add_ctx(w, t, loc, 0, cpu, task[tk], ctx, 1);
			want[((size_t)(loc * TASKS + tk) * CPUS + cpu) * CTXS + ctx]++;
			all++;
		}
	}
	kt_window_set_cumulative(w, 1);
	h = kt_window_hits(w, &n);
	for (size_t i = 0; i < n; i++) {
		uint32_t tk = TASKS;
		size_t k;

		for (uint32_t j = 0; j < TASKS; j++)
			if (task[j] == h[i].task)
				tk = j;
		if (tk == TASKS || h[i].loc >= LOCS || h[i].cpu >= CPUS || h[i].ctx >= CTXS ||
		    h[i].stack) {
			bad++;
			continue;
		}
		k = ((size_t)(h[i].loc * TASKS + tk) * CPUS + h[i].cpu) * CTXS + h[i].ctx;
		if (!want[k])
			dup++; /* seen before (zeroed below), or never added */
		else if (want[k] != h[i].hits)
			bad++;
		want[k] = 0;
		sum += h[i].hits;
	}
	is_int(bad, 0, "busy CPUs: every since-start key's total equals a recount");
	is_int(dup, 0, "each key once");
	is_int(sum, all, "and none is missing");
	printf("# busy CPUs: %zu since-start keys\n", n);
	ok(n > (size_t)LOCS * TASKS, "many keys");
	free(want);
	kt_window_free(w);
}

/* Past the since-start cap a key that already has a record keeps its own, wherever it is:
 * in the small run the slices merge into or, once that has joined the big one, in the big
 * run (found through its index); a key new past the cap folds into "no stack, task
 * [other]". */
static void test_cum_cap_levels(void)
{
	enum { KEYS = 3000, NEW = 500 };
	struct kt_window_opts o = {.span_ns = 1 * S, .slice_ns = 1 * S, .max_cum_tuples = KEYS};
	struct kt_window *w = NULL;
	uint32_t ta, tb, other, fr[2] = {7, 8}, st;
	int bad = 0, badnew = 0, leak = 0;

	if (kt_window_new(&o, &w) < 0)
		abort();
	ta = kt_window_task(w, 10, 10);
	tb = kt_window_task(w, 20, 20);
	st = kt_window_stack(w, fr, 2);
	for (uint32_t i = 0; i < KEYS; i++) /* fills the cap; the slice joins the big run */
		kt_window_add(w, 1 * S, i, i == 5 ? st : 0, 0, ta, 1);
	kt_window_advance(w, 3 * S);
	/* the same keys again, and new ones past the cap: the first 100 old keys in a slice of
	 * their own, so they are in the small run when the rest come */
	for (uint32_t i = 0; i < 100; i++)
		kt_window_add(w, 3 * S, i, i == 5 ? st : 0, 0, ta, 2);
	kt_window_advance(w, 5 * S);
	kt_window_set_cumulative(w, 1);
	for (uint32_t i = 0; i < KEYS; i++) /* read from the two runs, merged */
		bad += hits_of(w, i, i == 5 ? st : 0, 0, ta) != (i < 100 ? 3u : 1u);
	is_int(bad, 0, "a key in both runs: one tuple with both counts");
	kt_window_set_cumulative(w, 0);
	for (uint32_t i = 0; i < KEYS; i++)
		kt_window_add(w, 5 * S, i, i == 5 ? st : 0, 0, ta, 4);
	for (uint32_t i = 0; i < NEW; i++)
		kt_window_add(w, 5 * S, i, 0, 0, tb, 1);
	kt_window_advance(w, 7 * S);
	kt_window_advance(w, 9 * S);
	kt_window_set_cumulative(w, 1);
	other = kt_window_task(w, -1, -1);
	for (uint32_t i = 0; i < KEYS; i++)
		bad += hits_of(w, i, i == 5 ? st : 0, 0, ta) != (i < 100 ? 7u : 5u);
	for (uint32_t i = 0; i < NEW; i++)
		badnew += hits_of(w, i, 0, 0, other) != 1 || hits_of(w, i, 0, 0, tb) != 0;
	is_int(bad, 0, "past the cap, keys of the big and the small run keep their records");
	is_int(badnew, 0, "new keys fold into task [other]");
	is_int(kt_window_total(w), KEYS * 5 + 200 + NEW, "every hit counted once");
	{
		size_t n;
		const struct kt_hit *h = kt_window_hits(w, &n);

		for (size_t i = 0; i < n; i++)
			leak += h[i].task == tb;
		is_int(n, KEYS + NEW, "each key once");
	}
	is_int(leak, 0, "no record of the new task");
	is_int(kt_window_nstacks(w), 1, "the stack is held once by the since-start totals");
	kt_window_free(w);
}

/* Past the cap, the small run joining the big one copies the records of a key only one run
 * has as they are: records of every width (a compact one; two units, for a stack or a count
 * past WREC_COMPACT_MAX; four, for a count past 65 535) must come out with their key and
 * count, beside the keys both runs have, whose counts are added. */
static uint64_t first_hits(uint32_t i)
{
	return i % 5 == 0 ? 70000 : i % 5 == 1 ? 9000 : 1 + i % 3;
}

static void test_cum_compact_widths(void)
{
	enum { KEYS = 400, BOTH = 200, NEW = 50 };
	struct kt_window_opts o = {.span_ns = 1 * S, .slice_ns = 1 * S, .max_cum_tuples = KEYS};
	struct kt_window *w = NULL;
	uint32_t ta, tb, other, st[4];
	uint64_t all = 0;
	int bad = 0, badnew = 0;

	if (kt_window_new(&o, &w) < 0)
		abort();
	ta = kt_window_task(w, 10, 10);
	tb = kt_window_task(w, 20, 20);
	for (uint32_t k = 0; k < 4; k++) {
		uint32_t fr[2] = {7 + k, 8};

		st[k] = kt_window_stack(w, fr, 2);
	}
#define STK_OF(i) ((i) % 3 == 0 ? st[(i) % 4] : 0)
	for (uint32_t i = 0; i < KEYS; i++) { /* the cap's keys: straight into the big run */
		kt_window_add(w, 1 * S, i, STK_OF(i), 0, ta, first_hits(i));
		all += first_hits(i);
	}
	kt_window_advance(w, 3 * S);
	/* past the cap: half the keys again, and new ones that fold into task [other], all
	 * into the small run, which is then more than a quarter of the big one */
	for (uint32_t i = 0; i < BOTH; i++)
		kt_window_add(w, 3 * S, i, STK_OF(i), 0, ta, 1);
	for (uint32_t j = 0; j < NEW; j++)
		kt_window_add(w, 3 * S, 1000 + j, 0, 0, tb, 9000);
	all += BOTH + (uint64_t)NEW * 9000;
	kt_window_advance(w, 5 * S);
	kt_window_set_cumulative(w, 1);
	other = kt_window_task(w, -1, -1);
	for (uint32_t i = 0; i < KEYS; i++)
		bad += hits_of(w, i, STK_OF(i), 0, ta) != first_hits(i) + (i < BOTH);
	for (uint32_t j = 0; j < NEW; j++)
		badnew += hits_of(w, 1000 + j, 0, 0, other) != 9000;
#undef STK_OF
	is_int(bad, 0, "runs joined: every width of record keeps its key and count");
	is_int(badnew, 0, "and the small run's own records theirs");
	is_int(kt_window_total(w), all, "every hit counted once");
	kt_window_free(w);
}

int main(void)
{
	test_cum_busy();
	test_cum_cap_levels();
	test_cum_compact_widths();
	run("without chains: since-start totals equal a recount", 0, 0);
	run("with chains: since-start totals by stack equal a recount", 1, 0);
	run("with chains and counts past 2^32: equal a recount", 1, 1);
	return tap_done();
}
