/* Window tests: exact add/expire arithmetic, a property test against a brute-force recount,
 * stack and task interning, the sample logs, span and mode changes. Retirement and the
 * long-run memory bounds are in test_window_retire.c, the since-start runs' folds in
 * test_window_cum.c. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/window.h"
#include "tap.h"
#include "test_window_util.h"

static void test_basic(void)
{
	struct kt_window *w = mk(3 * S, 1 * S, 0);
	size_t n;
	uint64_t len;
	const struct kt_hit *h;

	kt_window_add(w, 100 * S, 5, 0, 0, 0, 2);
	kt_window_add(w, 100 * S + 500 * MS, 5, 0, 0, 0, 1);
	kt_window_add(w, 100 * S + 600 * MS, 6, 0, 1, 0, 4);
	is_int(kt_window_total(w), 7, "three adds total 7");
	is_int(hits_of(w, 5, 0, 0, 0), 3, "same tuple merges");
	h = kt_window_recent(w, &n, &len);
	is_int(n, 2, "before a complete slice, recent is the open slice");
	is_int(len, 600 * MS, "open slice length so far");
	is_int(kt_window_covered(w), 600 * MS, "covered: first to last sample");

	kt_window_add(w, 101 * S + 1, 6, 0, 1, 0, 1);
	h = kt_window_recent(w, &n, &len);
	is_int(n, 2, "recent = the newest complete slice");
	is_int(len, 1 * S, "its length is one slice");
	is_int(h[0].hits + h[1].hits, 7, "recent counts");
	kt_window_add(w, 102 * S, 7, 0, 0, 0, 10);
	is_int(kt_window_total(w), 18, "three slices held");
	kt_window_add_lost(w, 102 * S, 0, 3);
	is_int(kt_window_lost(w), 3, "lost counted");
	kt_window_advance(w, 103 * S);
	is_int(kt_window_total(w), 11, "slice 100 expired: 7 subtracted");
	is_int(hits_of(w, 5, 0, 0, 0), 0, "expired tuple gone");
	is_int(hits_of(w, 6, 0, 1, 0), 1, "later hit of a tuple survives");
	is_int(kt_window_covered(w), 2 * S, "covered = held slices up to now");
	kt_window_set_cumulative(w, 1);
	is_int(kt_window_total(w), 18, "cumulative: everything since start");
	is_int(hits_of(w, 5, 0, 0, 0), 3, "cumulative keeps expired tuples");
	is_int(kt_window_covered(w), 3 * S, "cumulative covered since start");
	kt_window_set_cumulative(w, 0);
	is_int(kt_window_total(w), 11, "back to the rolling window at once");
	kt_window_advance(w, 200 * S);
	is_int(kt_window_total(w), 0, "a long jump expires everything");
	is_int(kt_window_lost(w), 0, "lost expires too");
	kt_window_hits(w, &n);
	is_int(n, 0, "no tuples left");
	kt_window_add(w, 150 * S, 9, 0, 0, 0, 1);
	is_int(hits_of(w, 9, 0, 0, 0), 1, "a late sample counts in the newest slice");
	kt_window_free(w);
}

/* Brute force model: each sample is counted in slice max(newest, its own slice). */
struct smp {
	uint64_t slice;
	uint32_t loc, stack, cpu, task;
	uint64_t count;
};

#define KEY(l, s, c, t) ((((size_t)(l)*16 + (s)) * 3 + (c)) * 16 + (t))
#define NKEYS (7 * 16 * 3 * 16)

/* The newest complete slice's table by location (kt_window_slice_locs) against a recount of
 * the samples v[0, nv) gave that slice (locations below 7, context 0); 1 when it was kept. */
static int check_slice_locs(struct kt_window *w, const struct smp *v, size_t nv, int *bad)
{
	uint64_t no = kt_window_newest(w), want[7][2] = {{0}}, got[7][2] = {{0}};
	const struct kt_window_locent *e;
	uint32_t n;

	if (!no || !(e = kt_window_slice_locs(w, no - 1, &n)))
		return 0;
	for (size_t m = 0; m < nv; m++)
		if (v[m].slice == no - 1)
			want[v[m].loc][v[m].stack != 0] += v[m].count;
	for (uint32_t j = 0; j < n; j++) {
		if (e[j].loc >= 7 || e[j].ctx || !e[j].hits ||
		    got[e[j].loc][e[j].chain]) {
			(*bad)++; /* not a key of the test, or a key twice */
			continue;
		}
		got[e[j].loc][e[j].chain] = e[j].hits;
	}
	*bad += memcmp(want, got, sizeof(want)) != 0;
	return 1;
}

/* The newest complete slice's chained hits (kt_window_slice_stacks, made once the stacks'
 * totals are kept) against a recount of the samples v[0, nv) gave that slice; 1 when the
 * table was there. */
static int check_slice_stacks(struct kt_window *w, const struct smp *v, size_t nv, int *bad)
{
	uint64_t no = kt_window_newest(w), want[7][16] = {{0}}, got[7][16] = {{0}};
	const struct kt_window_stkent *e;
	uint32_t n;

	if (!no || kt_window_slice_stacks(w, no - 1, &e, &n) < 0)
		return 0;
	for (size_t m = 0; m < nv; m++)
		if (v[m].slice == no - 1 && v[m].stack)
			want[v[m].loc][v[m].stack] += v[m].count;
	for (uint32_t j = 0; j < n; j++) {
		if (e[j].loc >= 7 || !e[j].stack || e[j].stack >= 16 || e[j].ctx || !e[j].hits ||
		    got[e[j].loc][e[j].stack]) {
			(*bad)++; /* not a key of the test, or a key twice */
			continue;
		}
		got[e[j].loc][e[j].stack] = e[j].hits;
	}
	*bad += memcmp(want, got, sizeof(want)) != 0;
	return 1;
}

/* The rolling totals of chained hits by (location, stack, context) (kt_window_narrow_stacks)
 * against a recount of the held samples v[m] of slices lo on; 1 when they were there. */
static int check_stack_totals(struct kt_window *w, const struct smp *v, size_t nv, uint64_t lo,
			      int *bad)
{
	uint64_t want[7][16] = {{0}}, got[7][16] = {{0}};
	const struct kt_hit *h;
	size_t n, stride;

	if (kt_window_narrow_stacks(w, &h, &n, &stride) < 0)
		return 0;
	for (size_t m = 0; m < nv; m++)
		if (v[m].slice >= lo && v[m].stack)
			want[v[m].loc][v[m].stack] += v[m].count;
	for (size_t j = 0; j < n; j++) {
		const struct kt_hit *e = (const void *)((const char *)h + j * stride);

		if (!e->hits)
			continue; /* a free entry */
		if (e->loc >= 7 || !e->stack || e->stack >= 16 || e->cpu || e->task || e->ctx ||
		    got[e->loc][e->stack]) {
			(*bad)++; /* not a key of the test, or a key twice */
			continue;
		}
		got[e->loc][e->stack] = e->hits;
	}
	*bad += memcmp(want, got, sizeof(want)) != 0;
	return 1;
}

/* The stacks' totals kept from the middle of a slice (kt_window_keep_stacks): that slice has
 * no table of chained hits (its hits before were not counted as open), the next one has
 * its exact one, and a slice without chained hits an empty one. */
static void test_slice_stacks_start(void)
{
	struct kt_window *w = mk(4 * S, S, 0);
	uint32_t fa[2] = {1, 2}, fb[2] = {3, 2}, a, b, n = 9, task;
	const struct kt_window_stkent *e;
	int bad = 0;

	task = kt_window_task(w, 7, 7);
	a = kt_window_stack(w, fa, 2);
	kt_window_add(w, 10 * S, 1, a, 0, task, 2); /* slice 0, before */
	kt_window_keep_stacks(w);
	kt_window_add(w, 10 * S + 100 * MS, 1, a, 0, task, 3); /* slice 0, after */
	b = kt_window_stack(w, fb, 2); /* (a stack no hit holds yet may be taken again) */
	kt_window_add(w, 11 * S, 3, b, 1, task, 4);		/* slice 1 */
	kt_window_add(w, 11 * S + 5 * MS, 1, a, 2, task, 1);
	kt_window_add(w, 11 * S + 9 * MS, 5, 0, 2, task, 1); /* no chain */
	kt_window_advance(w, 11 * S + 500 * MS);
	ok(kt_window_slice_stacks(w, 0, &e, &n) == -ENOENT,
	   "the slice the stacks' totals were kept from the middle of has no table");
	kt_window_advance(w, 12 * S + 1);
	if (kt_window_slice_stacks(w, 1, &e, &n) < 0 || n != 2)
		bad++;
	for (uint32_t i = 0; !bad && i < n; i++)
		bad += e[i].stack == a ? e[i].loc != 1 || e[i].hits != 1
				       : e[i].stack != b || e[i].loc != 3 || e[i].hits != 4;
	is_int(bad, 0, "the next slice's table: each stack's hits in it, exact");
	kt_window_add(w, 12 * S + 9 * MS, 5, 0, 2, task, 1);
	kt_window_advance(w, 13 * S + 1);
	ok(kt_window_slice_stacks(w, 2, &e, &n) == 0 && n == 0,
	   "a slice without chained hits: an empty table");
	kt_window_free(w);
}

static void test_property(void)
{
	int bad = 0, badcum = 0, badtot = 0, badlast = 0, badstk = 0, checks = 0, lastchecks = 0;
	int stkchecks = 0, stkwant = 0, badslst = 0, slstchecks = 0, slstearly = 0;
	uint64_t *want = calloc(NKEYS, sizeof(*want));

	srand(12345);
	for (int run = 0; run < 30; run++) {
		uint64_t slice = (uint64_t)(1 + rand() % 5) * 100 * MS;
		uint32_t nsl = 1 + (uint32_t)(rand() % 8);
		struct kt_window *w = mk(slice * nsl, slice, run & 1);
		struct smp *v = calloc(4000, sizeof(*v));
		uint64_t t = 5 * S + (uint64_t)(rand() % 1000) * MS, origin = 0, newest = 0;
		int started = 0;
		size_t nv = 0;

		for (int i = 0; i < 4000; i++) {
			uint32_t fr[2] = {(uint32_t)(rand() % 3), (uint32_t)(rand() % 3)};
			uint64_t k, st;

			t += (uint64_t)(rand() % 60) * MS;
			if (rand() % 50 == 0)
				t += (uint64_t)(rand() % 5) * slice;
			if (rand() % 40 == 0) {
				kt_window_advance(w, t);
				if (!started) {
					started = 1;
					origin = t;
				}
				k = (t - origin) / slice;
				newest = k > newest ? k : newest;
			}
			v[nv].loc = (uint32_t)(rand() % 7);
			/* every third run without chains: the since-start totals' logs are then
			 * sorted by their packed keys (window_cum.c) */
			v[nv].stack = rand() % 3 && run % 3 != 2
					  ? kt_window_stack(w, fr, 1 + (uint32_t)(rand() % 2))
					  : 0;
			v[nv].cpu = (uint32_t)(rand() % 3);
			v[nv].task = kt_window_task(w, rand() % 4, rand() % 4);
			v[nv].count = 1 + (uint64_t)(rand() % 3);
			/* sometimes a sample from slightly in the past */
			st =
			    started && rand() % 10 == 0 && t > origin + 200 * MS ? t - 200 * MS : t;
			if (!started) {
				started = 1;
				origin = st;
			}
			k = (st - origin) / slice;
			newest = k > newest ? k : newest;
			v[nv].slice = newest;
			if (v[nv].stack >= 16)
				abort();
			kt_window_add(w, st, v[nv].loc, v[nv].stack, v[nv].cpu, v[nv].task,
				      v[nv].count);
			nv++;
			if (i % 97 != 0 && i != 3999)
				continue;
			lastchecks += check_slice_locs(w, v, nv, &badlast);
			/* the stacks' table: only once they are kept (the first check below),
			 * and not for the slice they started in the middle of */
			if (i < 97)
				slstearly += check_slice_stacks(w, v, nv, &badslst);
			else
				slstchecks += check_slice_stacks(w, v, nv, &badslst);
			for (int mode = 0; mode < 2; mode++) {
				size_t n;
				const struct kt_hit *h;
				uint64_t sum = 0, all = 0, lo;

				kt_window_set_cumulative(w, mode);
				h = kt_window_hits(w, &n);
				lo = mode || newest + 1 < nsl ? 0 : newest + 1 - nsl;
				memset(want, 0, NKEYS * sizeof(*want));
				for (size_t m = 0; m < nv; m++)
					if (v[m].slice >= lo) {
						want[KEY(v[m].loc, v[m].stack, v[m].cpu,
							 v[m].task)] += v[m].count;
						all += v[m].count;
					}
				for (size_t j = 0; j < n; j++) {
					size_t key = KEY(h[j].loc, h[j].stack, h[j].cpu, h[j].task);

					if (want[key] != h[j].hits || !h[j].hits)
						mode ? badcum++ : bad++;
					sum += h[j].hits;
				}
				if (all != sum || all != kt_window_total(w))
					badtot++;
				/* made from the logs at the first check with 98 samples, then
				 * kept */
				if (!mode && i >= 97) {
					stkwant++;
					stkchecks += check_stack_totals(w, v, nv, lo, &badstk);
				}
				checks++;
			}
			kt_window_set_cumulative(w, run & 1);
		}
		free(v);
		kt_window_free(w);
	}
	free(want);
	is_int(bad, 0, "rolling totals equal a brute-force recount of the held samples");
	is_int(badcum, 0, "since-start totals equal a recount of every sample");
	is_int(badtot, 0, "no tuple is missing: the sums and kt_window_total agree");
	ok(checks > 1000, "property checked many times");
	is_int(badlast, 0, "the newest complete slice's table by location equals a recount of it");
	printf("# the table was there at %d of %d checks\n", lastchecks, checks / 2);
	ok(lastchecks * 2 > checks / 2, "that table was there at most checks");
	is_int(badstk, 0, "the rolling totals by stack equal a recount of the chained samples");
	ok(stkchecks == stkwant && stkwant > 500, "they were there at every check");
	is_int(badslst, 0, "the newest complete slice's chained hits equal a recount of it");
	printf("# that table was there at %d of %d checks once kept, %d before\n", slstchecks,
	       stkwant, slstearly);
	ok(slstchecks > stkwant / 8 && !slstearly, "there once kept, and never before");
}

static void test_stacks_tasks(void)
{
	struct kt_window *w = mk(2 * S, 1 * S, 0);
	uint32_t a[3] = {10, 11, 12}, b[3] = {10, 11, 13}, n;
	uint32_t sa, sb;
	const uint32_t *f;
	uint32_t t1, t2;

	/* the contract: an id is used by kt_window_add before the next kt_window_stack */
	sa = kt_window_stack(w, a, 3);
	kt_window_add(w, 1 * S, 1, sa, 0, 0, 1);
	sb = kt_window_stack(w, b, 3);
	kt_window_add(w, 1 * S, 1, sb, 0, 0, 1);
	ok(sa && sb && sa != sb, "distinct stacks get distinct non-zero ids");
	is_int(kt_window_stack(w, a, 3), sa, "same frames, same id");
	is_int(kt_window_stack(w, a, 0), 0, "empty stack is 0");
	is_int(kt_window_stack(w, a, 2) != sa, 1, "a prefix is another stack");
	f = kt_window_stack_frames(w, sb, &n);
	ok(n == 3 && f && f[2] == 13, "frames come back leaf first");
	kt_window_stack(w, b, 1); /* reclaims the unused prefix stack */
	is_int(kt_window_nstacks(w), 3, "unused stacks are reclaimed, referenced ones stay");
	kt_window_set_cumulative(w, 0);
	kt_window_advance(w, 10 * S);
	is_int(kt_window_nstacks(w), 2, "since-start totals still hold the referenced stacks");
	kt_window_free(w);

	/* with since-start totals folded from the start, expired stacks are freed and reused */
	struct kt_window_opts o = {.span_ns = 2 * S, .slice_ns = S, .max_cum_tuples = 1};
	kt_window_new(&o, &w);
	kt_window_add(w, 1 * S, 1, 0, 0, 0, 1); /* fills the since-start cap */
	sa = kt_window_stack(w, a, 3);
	kt_window_add(w, 1 * S, 2, sa, 0, kt_window_task(w, 5, 6), 4);
	is_int(kt_window_nstacks(w), 1, "one live stack");
	kt_window_advance(w, 10 * S);
	kt_window_advance(w, 11 * S);
	is_int(kt_window_nstacks(w), 0, "expired and folded: the stack is freed");
	f = kt_window_stack_frames(w, sa, &n);
	ok(!f && n == 0, "a freed stack id has no frames");
	is_int(kt_window_stack(w, b, 3), sa, "its id is reused");
	kt_window_set_cumulative(w, 1);
	is_int(kt_window_total(w), 5, "folding keeps since-start counts exact");
	is_int(hits_of(w, 2, 0, 0, kt_window_task(w, -1, -1)), 4,
	       "folded into task [other], no stack");
	is_str(kt_window_task_info(w, kt_window_task(w, -1, -1))->comm, "[other]",
	       "[other] task named");
	kt_window_free(w);

	w = mk(2 * S, 1 * S, 0);
	t1 = kt_window_task(w, 100, 101);
	t2 = kt_window_task(w, 100, 102);
	ok(t1 == 0 && t2 == 1, "task ids are dense from 0");
	is_int(kt_window_task(w, 100, 101), t1, "same task, same id");
	is_str(kt_window_task_info(w, t1)->comm, "", "comm empty until known");
	for (int i = 0; i < 1000; i++)
		kt_window_task(w, 1000 + i, 1000 + i);
	kt_window_comm(w, 100, 101, "dd");
	kt_window_comm(w, 7, 7, "sshd-with-a-long-name-beyond-sixteen");
	is_str(kt_window_task_info(w, t1)->comm, "dd", "comm recorded (after the table grew)");
	is_int(kt_window_task_info(w, t2)->tid, 102, "tid kept");
	is_int(kt_window_ntasks(w), 1003, "comm of an unseen task interns it");
	ok(kt_window_task_info(w, 5000) == NULL, "out-of-range task is NULL");
	kt_window_free(w);
}

/* The chain cache: a chain's stack comes back for the same leaf location and callers' return
 * addresses, whatever the leaf's own address; a freed stack, another leaf or another caller
 * is a miss; chains it does not keep get no slot. */
static void test_chain_cache(void)
{
	struct kt_window_opts o = {.span_ns = 2 * S, .slice_ns = S, .max_cum_tuples = 1};
	struct kt_window *w;
	uint64_t fr[3] = {0xffffffff81000010ull, 0xffffffff81000200ull, 0xffffffff81000300ull};
	uint64_t deep[KT_WINDOW_CHAIN_DEPTH + 1] = {0};
	uint32_t locs[3] = {10, 11, 12}, slot, slot2, st, hits = 0;

	kt_window_new(&o, &w);
	kt_window_add(w, 1 * S, 1, 0, 0, 0, 1); /* fills the since-start cap: stacks get freed */
	is_int(kt_window_stack_cached(w, fr, 3, 10, &slot), 0, "an empty cache: a miss");
	ok(slot != UINT32_MAX, "with a slot to fill");
	st = kt_window_stack(w, locs, 3);
	kt_window_stack_cache_put(w, slot, fr, 3, 10, st);
	kt_window_add(w, 1 * S, 10, st, 0, 0, 1);
	is_int(kt_window_stack_cached(w, fr, 3, 10, &slot2), st, "the same chain: its stack");
	fr[0] += 4; /* another instruction of the leaf's location */
	is_int(kt_window_stack_cached(w, fr, 3, 10, &slot2), st,
	       "another leaf address, same location");
	is_int(kt_window_stack_cached(w, fr, 3, 9, &slot2), 0, "another leaf location: a miss");
	fr[2] += 8;
	is_int(kt_window_stack_cached(w, fr, 3, 10, &slot2), 0, "another caller's address: a miss");
	fr[2] -= 8;
	is_int(kt_window_stack_cached(w, fr, 2, 10, &slot2), 0, "a shorter chain: a miss");
	kt_window_stack_cached(w, fr, 1, 10, &slot2);
	is_int(slot2, UINT32_MAX, "a one-frame chain is not kept");
	kt_window_stack_cached(w, deep, KT_WINDOW_CHAIN_DEPTH + 1, 10, &slot2);
	is_int(slot2, UINT32_MAX, "nor one deeper than KT_WINDOW_CHAIN_DEPTH");
	kt_window_advance(w, 10 * S);
	kt_window_advance(w, 11 * S);
	is_int(kt_window_nstacks(w), 0, "the stack expired and was freed");
	is_int(kt_window_stack_cached(w, fr, 3, 10, &slot2), 0, "its chain is a miss");
	/* the freed id is reused by another stack: the cached chain must not find it */
	locs[2] = 13;
	is_int(kt_window_stack(w, locs, 3), st, "another stack takes the freed id");
	is_int(kt_window_stack_cached(w, fr, 3, 10, &slot2), 0, "the old chain still misses");
	/* many chains: the cache grows with the live stacks and still answers */
	for (uint32_t i = 0; i < 6000; i++) {
		uint64_t c[3] = {0xffffffff81000010ull, 0xffffffff82000000ull + 16 * i, 7};
		uint32_t l[3] = {10, 20 + i, 5};

		st = kt_window_stack(w, l, 3);
		kt_window_add(w, 12 * S, 10, st, 0, 0, 1);
		if (!kt_window_stack_cached(w, c, 3, 10, &slot))
			kt_window_stack_cache_put(w, slot, c, 3, 10, st);
		hits += kt_window_stack_cached(w, c, 3, 10, &slot) == st;
	}
	is_int(hits, 6000, "6000 chains, each found right after it was kept");
	/* the cache doubled six times on the way (256 to 16 384 slots) and kept its chains,
	 * but for those the four ways of a set could not hold (5307 found; 5238 with two
	 * ways); emptied at each doubling, only those kept after its last one (the 4097th
	 * chain on) were (1888) */
	hits = 0;
	for (uint32_t i = 0; i < 6000; i++) {
		uint64_t c[3] = {0xffffffff81000010ull, 0xffffffff82000000ull + 16 * i, 7};

		hits += kt_window_stack_cached(w, c, 3, 10, &slot) != 0;
	}
	printf("# %u of the 6000 chains still cached\n", hits);
	ok(hits >= 4500, "three in four of them are still found once the cache has grown");
	{
		/* a chain is known by its key: every frame and their order are in it */
		uint64_t d[KT_WINDOW_CHAIN_DEPTH], t;
		uint32_t l[KT_WINDOW_CHAIN_DEPTH], bad = 0;
		struct kt_chain_key k;

		for (uint32_t i = 0; i < KT_WINDOW_CHAIN_DEPTH; i++) {
			d[i] = 0xffffffff81000000ull + 0x100 * i;
			l[i] = 30000 + i;
		}
		st = kt_window_stack(w, l, KT_WINDOW_CHAIN_DEPTH);
		kt_window_add(w, 12 * S, l[0], st, 0, 0, 1);
		k = kt_window_chain_key(d, KT_WINDOW_CHAIN_DEPTH, l[0]);
		kt_window_stack_cached_key(w, &k, KT_WINDOW_CHAIN_DEPTH, l[0], &slot);
		kt_window_stack_cache_put(w, slot, d, KT_WINDOW_CHAIN_DEPTH, l[0], st);
		is_int(kt_window_stack_cached(w, d, KT_WINDOW_CHAIN_DEPTH, l[0], &slot2), st,
		       "a 32-frame chain put by its key is found by its frames");
		for (uint32_t i = 1; i < KT_WINDOW_CHAIN_DEPTH; i++) {
			d[i] ^= 1ull << (i * 2 % 64);
			bad += kt_window_stack_cached(w, d, KT_WINDOW_CHAIN_DEPTH, l[0], &slot2) != 0;
			d[i] ^= 1ull << (i * 2 % 64);
			t = d[i], d[i] = d[i % 31 + 1], d[i % 31 + 1] = t;
			bad += kt_window_stack_cached(w, d, KT_WINDOW_CHAIN_DEPTH, l[0], &slot2) != 0;
			t = d[i], d[i] = d[i % 31 + 1], d[i % 31 + 1] = t;
		}
		is_int(bad, 0, "one bit of any frame, or two frames swapped: a miss");
		is_int(kt_window_stack_cached(w, d, KT_WINDOW_CHAIN_DEPTH, l[0], &slot2), st,
		       "and the chain put back is found again");
	}
	{
		/* the leaf and the first caller changed together, their XOR the same: a live
		 * run's vfs_write sample (leaf 65, caller ...4ef) took the stack of an fdget_pos
		 * one (leaf 6, caller ...4a8) when the leaf was XORed into the first caller's lane */
		uint64_t a[4] = {0xffffffff816dcecbull, 0xffffffff816dd4efull, 0xffffffff8223df91ull,
				 0xffffffff81000130ull};
		uint64_t b[4] = {0xffffffff8170f0ebull, 0xffffffff816dd4a8ull, 0xffffffff8223df91ull,
				 0xffffffff81000130ull};
		uint32_t la[4] = {65, 70, 71, 72}, lb[4] = {6, 70, 71, 72}, sa, same = 0;
		struct kt_chain_key k[64];

		sa = kt_window_stack(w, la, 4);
		kt_window_add(w, 12 * S, 65, sa, 0, 0, 1);
		st = kt_window_stack(w, lb, 4);
		kt_window_add(w, 12 * S, 6, st, 0, 0, 1);
		if (!kt_window_stack_cached(w, b, 4, 6, &slot))
			kt_window_stack_cache_put(w, slot, b, 4, 6, st);
		is_int(kt_window_stack_cached(w, b, 4, 6, &slot), st, "the fdget_pos chain: its stack");
		ok(kt_window_stack_cached(w, a, 4, 65, &slot) != st,
		   "the vfs_write chain (the same leaf ^ first caller) is not taken for it");
		/* 64 leaves, each under a caller that gives the same leaf ^ caller: 64 keys */
		for (uint32_t i = 0; i < 64; i++) {
			a[1] = 0xffffffff816dd400ull ^ i;
			k[i] = kt_window_chain_key(a, 4, i);
			for (uint32_t j = 0; j < i; j++)
				same += k[j].hash == k[i].hash || k[j].check == k[i].check;
		}
		is_int(same, 0, "leaves whose XOR with the first caller is the same: distinct keys");
	}
	kt_window_free(w);
}

static void test_span(void)
{
	struct kt_window *w = mk(4 * S, 1 * S, 0);

	for (int s = 0; s < 4; s++)
		kt_window_add(w, (uint64_t)s * S + 1, (uint32_t)s, 0, 0, 0, (uint64_t)(s + 1));
	is_int(kt_window_total(w), 10, "4 slices: 1+2+3+4");
	kt_window_set_span(w, 2 * S);
	is_int(kt_window_total(w), 7, "shrinking to 2 slices drops the oldest two");
	is_int(kt_window_span(w), 2 * S, "span reported");
	kt_window_set_span(w, 5 * S);
	is_int(kt_window_total(w), 7, "growing keeps what is held");
	kt_window_add(w, 4 * S + 1, 9, 0, 0, 0, 5);
	is_int(kt_window_total(w), 12, "grown window holds slices 2..4");
	kt_window_advance(w, 7 * S + 1);
	is_int(kt_window_total(w), 9, "at 7 s it holds slices 3..7");
	kt_window_advance(w, 8 * S + 1);
	is_int(kt_window_total(w), 5, "slice 3 expires at 8 s");
	kt_window_set_cumulative(w, 1);
	is_int(kt_window_total(w), 15, "cumulative unaffected by span changes");
	kt_window_free(w);
}

/* The sample logs (issue 14): a CPU past the per-CPU logs, a context past 16 bits and a count
 * other than 1 take a wide record; the narrow totals, the materialized tuples and the cursor
 * read back exactly what was added, and expiry takes it all off again. */
static void test_logs(void)
{
	struct kt_window *w = mk(2 * S, 1 * S, 0);
	struct kt_window_cursor c;
	struct kt_hit buf[2];
	size_t n, stride, got, total = 0;
	const struct kt_hit *h;
	uint64_t sum = 0, len;
	int wide = 0;

	kt_window_add_ctx(w, 10 * S, 3, 0, 5, 1, 2, 1);
	kt_window_add_ctx(w, 10 * S, 3, 0, 9000, 1, 2, 1);
	kt_window_add_ctx(w, 10 * S, 3, 7, 5, 1, 70000, 3);
	kt_window_add_ctx(w, 10 * S, 4, 0, 5, 2, 2, 1);
	is_int(hits_of(w, 3, 0, 5, 1) + hits_of(w, 3, 0, 9000, 1), 2, "CPU 9000 kept apart, exact");
	is_int(hits_of(w, 3, 7, 5, 1), 3, "a count of 3 with context 70000");
	h = kt_window_narrow(w, &n, &stride);
	for (size_t i = 0; i < n; i++) {
		const struct kt_hit *e = (const void *)((const char *)h + i * stride);

		sum += e->hits;
		if (e->hits && e->loc == 3 && e->stack == 1 && e->ctx == 70000 && e->hits == 3)
			wide = 1;
	}
	is_int(sum, 6, "the narrow totals hold every hit");
	ok(wide, "narrow: (location 3, chain, context 70000) = 3");
	ok(kt_window_logs(w) > 5, "a log per CPU up to the highest below 8192");
	kt_window_cursor_rolling(w, &c);
	while ((got = kt_window_read(w, &c, buf, 2)))
		for (size_t i = 0; i < got; i++)
			total += buf[i].hits;
	is_int(total, 6, "the cursor reads every hit, two at a time");
	kt_window_cursor_rolling(w, &c);
	kt_window_cursor_log(&c, 0);
	got = kt_window_read(w, &c, buf, 2);
	is_int(got, 1, "log 0 holds the CPU past 8191");
	is_int(buf[0].cpu, 9000, "with its CPU");
	kt_window_add_ctx(w, 11 * S + 1, 4, 0, 5, 2, 2, 1);
	is_int(kt_window_cursor_recent(w, &c, &len), 0, "the newest complete slice is read from its log");
	total = 0;
	while ((got = kt_window_read(w, &c, buf, 2)))
		for (size_t i = 0; i < got; i++)
			total += buf[i].hits;
	is_int(total, 6, "all of it");
	kt_window_add(w, 20 * S, 1, 0, 0, 0, 1); /* the rest expires */
	h = kt_window_narrow(w, &n, &stride);
	sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += ((const struct kt_hit *)(const void *)((const char *)h + i * stride))->hits;
	is_int(sum, 1, "expiry took every expired hit off the narrow totals");
	is_int(kt_window_total(w), 1, "and off the total");
	kt_window_free(w);
}

/* Reads the whole rolling window: its records, their hits and the largest count of one; bad
 * (when not NULL) counts records whose context is neither ctx0 nor ctx1. */
static size_t census(struct kt_window *w, uint64_t *total, uint64_t *big, size_t *bad,
		     uint32_t ctx0, uint32_t ctx1)
{
	struct kt_window_cursor c;
	struct kt_hit buf[8];
	size_t got, recs = 0;

	*total = *big = 0;
	kt_window_cursor_rolling(w, &c);
	while ((got = kt_window_read(w, &c, buf, 8)))
		for (size_t i = 0; i < got; i++) {
			recs++;
			*total += buf[i].hits;
			if (buf[i].hits > *big)
				*big = buf[i].hits;
			if (bad && buf[i].ctx != ctx0 && buf[i].ctx != ctx1)
				++*bad;
		}
	return recs;
}

/* The newest slice's logs are merged as they are written: a repeated key adds to its record
 * (a full one, past 65535, gives way to a new record), keys differing in any dimension stay
 * apart, the next slice starts its own records, and expiry takes every hit off again. */
static void test_log_merge(void)
{
	struct kt_window *w = mk(4 * S, 1 * S, 0);
	struct kt_window_cursor c;
	struct kt_hit buf[8];
	size_t got, recs = 0, bad;
	uint64_t total = 0, big = 0, mem;
	const uint32_t frames[2] = {11, 12};
	uint32_t stk = kt_window_stack(w, frames, 2);

	for (uint32_t i = 0; i < 70000; i++) {
		kt_window_add_ctx(w, 10 * S + i, 3, stk, 1, 4, 2, 1);
		if (i % 700 == 0) {
			kt_window_add_ctx(w, 10 * S + i, 3, stk, 1, 4, 5, 1); /* another context */
			kt_window_add_ctx(w, 10 * S + i, 3, 0, 1, 4, 2, 1);   /* no chain */
			kt_window_add_ctx(w, 10 * S + i, 3, stk, 1, 6, 2, 1); /* another task */
		}
	}
	is_int(hits_of(w, 3, stk, 1, 4), 70000, "one key's 70000 samples, exact");
	is_int(hits_of(w, 3, 0, 1, 4), 100, "the key without a chain kept apart");
	is_int(hits_of(w, 3, stk, 1, 6), 100, "another task kept apart");
	recs = census(w, &total, &big, NULL, 0, 0);
	is_int(total, 70300, "the logs hold every sample");
	is_int(recs, 5, "in one record per key, two for the key past 65535");
	is_int(big, 65535, "a record counts up to 65535");
	mem = kt_window_mem(w);
	ok(mem < 70300 * 16 / 4, "the window's memory follows the keys, not the samples");
	if (mem >= 70300 * 16 / 4)
		printf("# window memory %llu bytes\n", (unsigned long long)mem);
	kt_window_add_ctx(w, 11 * S + 1, 3, stk, 1, 4, 2, 1);
	is_int(hits_of(w, 3, stk, 1, 4), 70001, "the next slice adds to the same total");
	kt_window_cursor_rolling(w, &c);
	recs = 0;
	while ((got = kt_window_read(w, &c, buf, 8)))
		recs += got;
	is_int(recs, 6, "in a record of its own slice");
	kt_window_add(w, 30 * S, 1, 0, 0, 0, 1); /* the rest expires */
	is_int(kt_window_total(w), 1, "expiry took every merged hit off the total");
	is_int(hits_of(w, 3, stk, 1, 4), 0, "and off its key");
	kt_window_free(w);

	/* a CPU whose samples did not repeat in a slice appends the next unmerged (the probe
	 * would only cost), and the counts still read the same */
	w = mk(4 * S, 1 * S, 0);
	for (uint32_t i = 0; i < 200; i++)
		kt_window_add_ctx(w, 41 * S + i, 100 + i, 0, 2, 4, 2, 1);
	for (uint32_t i = 0; i < 200; i++)
		kt_window_add_ctx(w, 42 * S + i, 7, 0, 2, 4, 2, 1);
	kt_window_cursor_rolling(w, &c);
	recs = 0;
	while ((got = kt_window_read(w, &c, buf, 8)))
		recs += got;
	is_int(recs, 400, "after a slice without repeats the next is logged unmerged");
	is_int(hits_of(w, 7, 0, 2, 4), 200, "and counted the same");
	/* unless it gets busy: from its 4096th record in a slice on, a CPU merges again */
	for (uint32_t i = 0; i < 200; i++)
		kt_window_add_ctx(w, 43 * S + i, 100 + i, 0, 2, 4, 2, 1);
	for (uint32_t i = 0; i < 30000; i++)
		kt_window_add_ctx(w, 44 * S + i, 7 + i % 3, 0, 2, 4, 2, 1);
	kt_window_cursor_rolling(w, &c);
	c.slice = c.last = kt_window_newest(w); /* the open slice */
	recs = 0;
	while ((got = kt_window_read(w, &c, buf, 8)))
		recs += got;
	ok(recs >= 4096 && recs <= 4096 + 3, "a busy CPU's unmerged slice stops growing at 4096");
	if (recs < 4096 || recs > 4096 + 3)
		printf("# %zu records\n", recs);
	is_int(hits_of(w, 8, 0, 2, 4), 10000, "and counts the same");
	kt_window_free(w);

	/* told early: a measured slice whose first 256 samples hardly repeat stops probing there
	 * and appends the rest unmerged; one whose first 256 repeat enough goes on merging */
	for (int half = 0; half < 2; half++) {
		w = mk(4 * S, 1 * S, 0);
		for (uint32_t i = 0; i < 256; i++)
			kt_window_add_ctx(w, 45 * S + i, 100 + (half ? i % 128 : i), 0, 2, 4, 2, 1);
		for (uint32_t i = 0; i < 300; i++)
			kt_window_add_ctx(w, 45 * S + 256 + i, 7, 0, 2, 4, 2, 1);
		kt_window_cursor_rolling(w, &c);
		c.slice = c.last = kt_window_newest(w);
		recs = 0;
		while ((got = kt_window_read(w, &c, buf, 8)))
			recs += got;
		if (half)
			is_int(recs, 129, "repeats in the first 256 samples: the slice goes on merging");
		else
			is_int(recs, 556, "no repeat in the first 256 samples: the rest unmerged");
		is_int(hits_of(w, 7, 0, 2, 4), 300, "and counted the same");
		kt_window_free(w);
	}

	/* a sample without a chain takes an 8-byte compact record, which counts up to 8192 and
	 * then gives way; a context id past 63 does not fit one and takes a full record */
	w = mk(4 * S, 1 * S, 0);
	for (uint32_t i = 0; i < 10000; i++)
		kt_window_add_ctx(w, 50 * S + i, 9, 0, 1, 4, 2, 1);
	for (uint32_t i = 0; i < 300; i++)
		kt_window_add_ctx(w, 50 * S + i, 9, 0, 1, 4, 70, 1);
	bad = 0;
	recs = census(w, &total, &big, &bad, 2, 70);
	is_int(total, 10300, "compact and full records hold every sample");
	is_int(recs, 3, "in two compact records and a full one");
	is_int(bad, 0, "each with its context");
	is_int(big, 8192, "a compact record counts up to 8192");
	kt_window_add(w, 60 * S, 1, 0, 0, 0, 1);
	is_int(kt_window_total(w), 1, "expiry took them all off the total");
	kt_window_free(w);
}

/* The narrow totals by (location, chain or not, context) of samples whose stacks take
 * turns between contexts (a chained hit's entry is found through its stack's slot, which
 * then misses at every other sample), beside chainless ones of the same location: equal to a
 * recount while the slices fill, after one expires, and empty once all have. */
static int narrow_differs(struct kt_window *w, const uint64_t want[2][10])
{
	uint64_t got[2][10] = {{0}};
	const struct kt_hit *h = NULL;
	size_t n = 0, stride = 0;
	int bad = 0;

	h = kt_window_narrow(w, &n, &stride);
	for (size_t j = 0; h && j < n; j++) {
		const struct kt_hit *e = (const void *)((const char *)h + j * stride);

		if (!e->hits)
			continue;
		if (e->loc != 3 || e->stack > 1 || e->ctx >= 10 || e->cpu || e->task ||
		    got[e->stack][e->ctx])
			bad++; /* not a key of the test, or a key twice */
		else
			got[e->stack][e->ctx] = e->hits;
	}
	return bad + (memcmp(want, got, sizeof(got)) != 0);
}

static void test_narrow_contexts(void)
{
	struct kt_window *w = mk(4 * S, 1 * S, 0);
	const uint32_t fa[2] = {11, 12}, fb[2] = {11, 13};
	uint32_t sa = kt_window_stack(w, fa, 2), sb = kt_window_stack(w, fb, 2);
	uint64_t all[2][10] = {{0}}, late[2][10] = {{0}}, none[2][10] = {{0}};
	int bad = 0;

	for (uint32_t i = 0; i < 3000; i++) {
		uint64_t t = 10 * S + (uint64_t)i * MS;
		uint32_t ca = i % 3, cn = i % 2 ? 0 : 9;

		kt_window_add_ctx(w, t, 3, sa, i % 2, 1, ca, 1);
		kt_window_add_ctx(w, t, 3, sb, 0, 2, 7, 2);
		kt_window_add_ctx(w, t, 3, 0, 1, 1, cn, 1);
		all[1][ca]++;
		all[1][7] += 2;
		all[0][cn]++;
		if (i >= 1000) {
			late[1][ca]++;
			late[1][7] += 2;
			late[0][cn]++;
		}
		if (i % 250 == 249)
			bad += narrow_differs(w, all);
	}
	is_int(bad, 0, "narrow totals of stacks in turning contexts equal a recount as they fill");
	kt_window_advance(w, 14 * S + 1); /* the slice of 10 s expires */
	is_int(narrow_differs(w, late), 0, "and after their first slice expired");
	kt_window_advance(w, 30 * S);
	is_int(narrow_differs(w, none), 0, "none is left once every slice expired");
	kt_window_free(w);
}

int main(void)
{
	test_basic();
	test_narrow_contexts();
	test_logs();
	test_log_merge();
	test_property();
	test_slice_stacks_start();
	test_stacks_tasks();
	test_chain_cache();
	test_span();
	return tap_done();
}
