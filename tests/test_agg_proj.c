/* The aggregator's projections (issue 14, src/agg_proj.c) change no answer: every view under
 * every filter, sort, mode (rolling, since start, --irq-owner) gives exactly the rows the
 * full scan of the window's tuples gives, trend points included (read through the slice
 * entries' locations, or through each tuple), on random windows of many CPUs, tasks, contexts and
 * stacks; narrow ones (a few keys) and wide ones (a projection not worth keeping, read in
 * place) alike, while slices expire and the window moves between queries. A query with a
 * limit gives the first rows of the same query without one. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "kerntop/agg.h"
#include "kerntop/symbols.h"
#include "kerntop/window.h"
#include "tap.h"

#define S 1000000000ull
#define NCPU 8

static const uint64_t addrs[] = {
    0xffffffff81000120ull, 0xffffffff81000230ull, 0xffffffff81000310ull, 0xffffffff81000418ull,
    0xffffffff81000510ull, 0xffffffff81000550ull, 0xffffffff81000560ull, 0xffffffff81000608ull,
    0xffffffff8100070bull, 0xffffffffc0001040ull, 0xffffffffc0001220ull, 0xffffffffc0001410ull,
    0xffffffffc0010050ull, 0xffffffffc0010090ull, 0xffffffffc00100c8ull,
};
#define NADDR (sizeof(addrs) / sizeof(addrs[0]))

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Row by row, every column a view fills. */
static int same(const struct kt_result *x, const struct kt_result *y, uint32_t maxcpu)
{
	if (x->nrows != y->nrows || x->total_rows != y->total_rows ||
	    memcmp(&x->sum, &y->sum, sizeof(x->sum)))
		return 0;
	for (size_t i = 0; i < x->nrows; i++) {
		const struct kt_row *a = &x->rows[i], *b = &y->rows[i];

		if (!same_str(a->name, b->name) || !same_str(a->module, b->module) ||
		    a->id != b->id || a->hits != b->hits || a->ms != b->ms ||
		    a->pct_kernel != b->pct_kernel || a->pct_machine != b->pct_machine ||
		    a->per_s != b->per_s || a->recent_per_s != b->recent_per_s ||
		    a->idle != b->idle || a->pid != b->pid || a->tid != b->tid ||
		    a->kernel != b->kernel || a->user != b->user || a->idle_hits != b->idle_hits ||
		    !same_str(a->top_module, b->top_module) ||
		    !same_str(a->top_func, b->top_func) || a->depth != b->depth ||
		    a->parent != b->parent || a->nchildren != b->nchildren ||
		    a->pct_parent != b->pct_parent || a->addr != b->addr ||
		    a->nframes != b->nframes || a->ctx_kind != b->ctx_kind ||
		    a->irq_helper != b->irq_helper || !a->per_cpu != !b->per_cpu)
			return 0;
		if (a->nframes && memcmp(a->frames, b->frames, a->nframes * sizeof(*a->frames)))
			return 0;
		if (a->per_cpu && memcmp(a->per_cpu, b->per_cpu, maxcpu * sizeof(*a->per_cpu)))
			return 0;
		if (!a->trend != !b->trend || a->trend_peak != b->trend_peak ||
		    a->rising != b->rising ||
		    (a->trend &&
		     memcmp(a->trend, b->trend, x->sum.trend_points * sizeof(*a->trend))))
			return 0;
	}
	return 1;
}

/* Whether lim (a query with a limit) holds the first rows of all (the same query without):
 * a limit must cut the sorted rows, not change them. */
static int prefix(const struct kt_result *all, const struct kt_result *lim, size_t limit)
{
	size_t want = all->nrows < limit ? all->nrows : limit;

	if (lim->nrows != want || lim->total_rows != all->total_rows)
		return 0;
	for (size_t i = 0; i < want; i++) {
		const struct kt_row *a = &all->rows[i], *b = &lim->rows[i];

		if (!same_str(a->name, b->name) || a->id != b->id || a->hits != b->hits ||
		    a->recent_per_s != b->recent_per_s || a->nframes != b->nframes)
			return 0;
	}
	return 1;
}

static const enum kt_view views[] = {
    KT_VIEW_MODULES, KT_VIEW_FUNCS,   KT_VIEW_TOPFUNCS, KT_VIEW_LINES,	KT_VIEW_CPUS,
    KT_VIEW_TASKS,   KT_VIEW_CALLERS, KT_VIEW_CALLEES,	KT_VIEW_STACKS, KT_VIEW_CONTEXTS,
};

/* Every view under filter f, projections on and off; returns the queries that differ. */
static int compare(struct kt_agg *a, const struct kt_filter *f, uint32_t func, uint32_t mod,
		   int *queries)
{
	struct kt_result x = {0}, y = {0}, z = {0};
	int bad = 0;

	for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
		for (int variant = 0; variant < 3; variant++) {
			struct kt_query q = {
			    .view = views[v], .module = mod, .func = func, .filter = *f};
			int rx, ry, cut = 1;

			q.sort = variant == 1	? KT_SORT_RATE
				 : variant == 2 ? KT_SORT_RISING
						: KT_SORT_HITS;
			q.trend = variant == 0 ? KT_TREND_MAX : variant == 1 ? 2 : 0;
			q.per_cpu = variant == 2;
			q.limit = variant == 2 ? 3 : 0;
			q.reverse = variant == 1;
			if (views[v] == KT_VIEW_STACKS && variant == 2)
				q.func = KT_ANY;
			kt_agg_set_projection(a, 1);
			rx = kt_agg_query(a, &q, &x);
			kt_agg_set_projection(a, 0);
			ry = kt_agg_query(a, &q, &y);
			kt_agg_set_projection(a, 1);
			(*queries)++;
			if (rx == 0 && !q.limit && views[v] != KT_VIEW_CALLERS &&
			    views[v] != KT_VIEW_CALLEES) {
				/* its first two and three rows, asked for with a limit (a
				 * tree keeps its limit hottest branches, not its first rows) */
				for (q.limit = 2; q.limit <= 3 && cut; q.limit++)
					cut = kt_agg_query(a, &q, &z) == 0 && prefix(&x, &z, q.limit);
				q.limit = 0;
			}
			if (rx != ry || !cut || (rx == 0 && !same(&x, &y, NCPU))) {
				bad++;
				if (bad <= 3)
					printf(
					    "# differs%s: view %s variant %d cpu %u task %u ctx %u "
					    "module %u hide_idle %d\n",
					    cut ? "" : " with a limit", kt_view_name(views[v]),
					    variant, f->cpu, f->task, f->ctx, f->module,
					    f->hide_idle);
			}
		}
	}
	kt_result_free(&x);
	kt_result_free(&y);
	kt_result_free(&z);
	return bad;
}

/* One random window: ntask tasks over NCPU CPUs, contexts, stacks of the fixture's
 * functions, hits over several slices; then every comparison at two points in time. */
static void run(struct kt_symbols *sym, uint32_t ntask, uint32_t nhits, const char *what)
{
	struct kt_window_opts wo = {.span_ns = 4 * S, .slice_ns = 1 * S};
	struct kt_agg_params ap = {
	    .freq_hz = 100, .ms_per_hit = 10, .ncpus = NCPU, .max_cpu = NCPU};
	struct kt_window *w;
	struct kt_agg *a;
	uint32_t task[512], nctx = kt_sym_nctx(sym), mods = kt_sym_nmodules(sym);
	uint64_t t = 100 * S;
	int bad = 0, queries = 0;

	kt_window_new(&wo, &w);
	kt_agg_new(w, sym, &ap, &a);
	for (uint32_t i = 0; i < ntask; i++) {
		char comm[16];

		task[i] = kt_window_task(w, (int32_t)(100 + i), (int32_t)(100 + i));
		snprintf(comm, sizeof(comm), "t%u", i % 37);
		kt_window_comm(w, (int32_t)(100 + i), (int32_t)(100 + i), comm);
	}
	for (int phase = 0; phase < 2; phase++) {
		for (uint32_t i = 0; i < nhits; i++) {
			uint32_t locs[6], n = 1 + rnd(5), st = 0, loc;

			for (uint32_t k = 0; k < n; k++)
				locs[k] = kt_sym_lookup(sym, addrs[rnd(NADDR)]);
			if (n > 1 && rnd(4))
				st = kt_window_stack(w, locs, n);
			loc = rnd(20) ? locs[0] : KT_LOC_USER;
			kt_window_add_ctx(w, t + (uint64_t)rnd(3) * S + rnd(1000), loc, st,
					  rnd(NCPU), task[rnd(ntask)], nctx ? rnd(nctx) : 0,
					  1 + rnd(3));
		}
		t += 3 * S;
		kt_window_advance(w, t);
		for (int cum = 0; cum < 2; cum++) {
			kt_window_set_cumulative(w, cum);
			for (int owner = 0; owner < 2; owner++) {
				struct kt_filter f;
				uint32_t fn =
				    kt_sym_loc(sym, kt_sym_lookup(sym, addrs[rnd(NADDR)]))->func;
				uint32_t md = kt_sym_func(sym, fn)->module;

				kt_agg_set_irq_owner(a, owner);
				kt_filter_all(&f);
				bad += compare(a, &f, fn, md, &queries);
				f.cpu = rnd(NCPU);
				bad += compare(a, &f, fn, md, &queries);
				kt_filter_all(&f);
				f.task = task[rnd(ntask)];
				bad += compare(a, &f, fn, md, &queries);
				kt_filter_all(&f);
				f.ctx = nctx ? rnd(nctx) : 0;
				f.hide_idle = 1;
				bad += compare(a, &f, fn, md, &queries);
				/* filters by location alone: the contexts view reads no
				 * rollup by context then (agg_rollup.c) */
				kt_filter_all(&f);
				f.hide_idle = 1;
				bad += compare(a, &f, fn, md, &queries);
				kt_filter_all(&f);
				f.module = mods ? rnd(mods) : KT_ANY;
				bad += compare(a, &f, fn, md, &queries);
				kt_filter_all(&f);
				f.module = mods ? rnd(mods) : KT_ANY;
				f.text = "_";
				bad += compare(a, &f, fn, md, &queries);
				{
					uint64_t set[1] = {0x5};

					kt_filter_all(&f);
					f.cpuset = set;
					f.task = task[rnd(ntask)];
					bad += compare(a, &f, fn, md, &queries);
				}
			}
		}
		kt_window_set_cumulative(w, 0);
		kt_agg_set_irq_owner(a, 0);
	}
	printf("# %s: %d queries compared\n", what, queries);
	is_int(bad, 0, what);
	kt_agg_free(a);
	kt_window_free(w);
}

/* The CPU view's kept tables (agg_cputop.c) follow the window refresh after refresh: slices
 * complete, expire, the span shrinks and grows, time jumps past the whole window, a CPU
 * falls silent, a weighted hit passes 2^32, a task filter leaves slices to expire unasked;
 * every refresh answers as the full scan does. expect: the caller says first that it will
 * ask at every refresh (batch reports), so the tables take slices in as they complete, and
 * have taken in the first ones before any query. */
static void run_refreshes(struct kt_symbols *sym, int expect)
{
	struct kt_window_opts wo = {.span_ns = 5 * S, .slice_ns = S / 2};
	struct kt_agg_params ap = {
	    .freq_hz = 100, .ms_per_hit = 10, .ncpus = NCPU, .max_cpu = NCPU};
	struct kt_window *w;
	struct kt_agg *a;
	uint32_t task = 0, nctx = kt_sym_nctx(sym);
	uint64_t t = 50 * S;
	int bad = 0, queries = 0;

	kt_window_new(&wo, &w);
	kt_agg_new(w, sym, &ap, &a);
	task = kt_window_task(w, 7, 7);
	if (expect) {
		struct kt_query q = {.view = KT_VIEW_CPUS, .sort = KT_SORT_NAME};

		kt_filter_all(&q.filter);
		kt_agg_expect(a, &q);
	}
	for (int step = 0; step < 120; step++) {
		struct kt_filter f;
		uint32_t silent = step >= 60 && step < 80 ? 3 : NCPU; /* CPU 3 falls silent */

		for (uint32_t i = 0; i < 40 + rnd(200); i++) {
			uint32_t cpu = rnd(NCPU), loc;

			if (cpu == silent)
				continue;
			loc = rnd(15) ? kt_sym_lookup(sym, addrs[rnd(NADDR - 1)]) : KT_LOC_USER;
			kt_window_add_ctx(w, t + rnd(S / 5), loc, 0, cpu, task,
					  nctx ? rnd(nctx) : 0, 1 + rnd(3));
		}
		if (step == 70 || step == 71) /* weighted hits summing to 2^32 (a recording's) */
			kt_window_add_ctx(w, t, kt_sym_lookup(sym, addrs[NADDR - 1]), 0, 2, task, 0,
					  1ull << 31);
		/* the first refresh comes after complete slices */
		t += step == 90 ? 20 * S : step == 0 ? 2 * S : S / 5 + rnd(S / 2);
		kt_window_advance(w, t);
		if (step == 0) {
			uint64_t done = kt_window_slices_done(w);

			printf("# %llu slices complete before the first query, %llu taken in\n",
			       (unsigned long long)done,
			       (unsigned long long)kt_agg_cputop_early(a));
			if (expect)
				ok(done && kt_agg_cputop_early(a) == done,
				   "expected: the complete slices were taken in before any query");
			else
				is_int((int)kt_agg_cputop_early(a), 0,
				       "not expected: no slice is taken in before a query asks");
		}
		if (step == 30)
			kt_window_set_span(w, 2 * S);
		if (step == 50)
			kt_window_set_span(w, 8 * S);
		kt_filter_all(&f);
		if (step % 3 == 1)
			f.cpu = rnd(NCPU);
		if (step % 11 == 4)
			f.task = task; /* answered by the projection: slices leave unasked */
		/* since start now and then: the since-start narrow totals (made at the first,
		 * then kept as slices expire between) and the newest slice as in the window */
		kt_window_set_cumulative(w, step % 4 == 3);
		/* the CPU view, and views by location read from the window's narrow totals in
		 * place (entries whose hits all left are free there: skipped) */
		for (int v = 0; v < 3; v++) {
			static const enum kt_view vv[] = {KT_VIEW_CPUS, KT_VIEW_LINES, KT_VIEW_MODULES};
			struct kt_query q = {.view = vv[v], .filter = f, .module = KT_ANY,
					     .func = KT_ANY};
			struct kt_result x = {0}, y = {0};
			int rx, ry;

			q.sort = step % 2 ? KT_SORT_RATE : KT_SORT_HITS;
			kt_agg_set_projection(a, 1);
			rx = kt_agg_query(a, &q, &x);
			kt_agg_set_projection(a, 0);
			ry = kt_agg_query(a, &q, &y);
			kt_agg_set_projection(a, 1);
			queries += !v;
			if (rx != ry || (rx == 0 && !same(&x, &y, NCPU))) {
				if (!bad++)
					printf("# refresh %d, view %s differs\n", step,
					       kt_view_name(vv[v]));
			}
			kt_result_free(&x);
			kt_result_free(&y);
		}
		kt_window_set_cumulative(w, 0);
	}
	printf("# %d refreshes compared, %llu answered from the kept tables\n", queries,
	       (unsigned long long)kt_agg_cputop_answers(a));
	is_int(bad, 0,
	       expect ? "expected: the kept tables answer as the full scan at every refresh"
		      : "the CPU view's kept tables, and the lines and modules read from the "
			"narrow totals in place, answer as the full scan at every refresh");
	ok(kt_agg_cputop_answers(a) >= (uint64_t)queries / 2,
	   "the kept tables answered most of those refreshes (not the full scan twice)");
	kt_agg_free(a);
	kt_window_free(w);
}

/* A CPU's top function hands over when its hits leave the window: A tops CPU 0 (5 hits
 * against B's 4) when asked; its slice expires, and the next answer's top is B (3), not C, the
 * one key the new complete slice adds (1): the kept tops must be made again when the top
 * shrinks to what another key may have. */
static void run_top_handover(struct kt_symbols *sym)
{
	struct kt_window_opts wo = {.span_ns = 3 * S, .slice_ns = S};
	struct kt_agg_params ap = {
	    .freq_hz = 100, .ms_per_hit = 10, .ncpus = NCPU, .max_cpu = NCPU};
	struct kt_query q = {.view = KT_VIEW_CPUS, .sort = KT_SORT_NAME};
	uint32_t fa = kt_sym_lookup(sym, addrs[0]), fb = kt_sym_lookup(sym, addrs[1]),
		 fc = kt_sym_lookup(sym, addrs[2]), task;
	struct kt_result x = {0}, y = {0};
	struct kt_window *w;
	struct kt_agg *a;
	uint64_t t = 100 * S;
	int bad = 0;

	kt_window_new(&wo, &w);
	kt_agg_new(w, sym, &ap, &a);
	task = kt_window_task(w, 7, 7);
	kt_filter_all(&q.filter);
	kt_window_add_ctx(w, t + S / 10, fa, 0, 0, task, 0, 5);
	kt_window_add_ctx(w, t + S / 10, fb, 0, 0, task, 0, 1);
	kt_window_add_ctx(w, t + S + S / 10, fb, 0, 0, task, 0, 3);
	kt_window_add_ctx(w, t + 2 * S + S / 10, fc, 0, 0, task, 0, 1);
	for (int step = 0; step < 2; step++) {
		int rx, ry;

		if (step) /* slice 0 leaves: A's hits go */
			kt_window_add_ctx(w, t + 3 * S + S / 10, fc, 0, 1, task, 0, 1);
		kt_agg_set_projection(a, 1);
		rx = kt_agg_query(a, &q, &x);
		kt_agg_set_projection(a, 0);
		ry = kt_agg_query(a, &q, &y);
		kt_agg_set_projection(a, 1);
		bad += rx != ry || rx || !same(&x, &y, NCPU);
		ok(x.nrows && x.rows[0].top_func &&
		       !strcmp(x.rows[0].top_func,
			       kt_sym_func(sym, kt_sym_loc(sym, step ? fb : fa)->func)->name),
		   step ? "CPU 0's top is B once A's slice has left" : "CPU 0's top is A first");
	}
	is_int(bad, 0, "the kept tops answer as the full scan when the top hands over");
	kt_result_free(&x);
	kt_result_free(&y);
	kt_agg_free(a);
	kt_window_free(w);
}

/* The stacks views read the window's tables (the stacks' totals and the newest complete
 * slice's chained hits) where the window keeps them (a batch report's caller expects them
 * from the first sample, and their paths are made as each slice completes): refresh after
 * refresh, sorted by hits and by rate (the newest slice's hits), with and without a context
 * filter, they give the full scan's rows. */
static void run_kept_stacks(struct kt_symbols *sym)
{
	struct kt_window_opts wo = {.span_ns = 4 * S, .slice_ns = 1 * S};
	struct kt_agg_params ap = {
	    .freq_hz = 100, .ms_per_hit = 10, .ncpus = NCPU, .max_cpu = NCPU};
	uint32_t nctx = kt_sym_nctx(sym), task;
	struct kt_result x = {0}, y = {0};
	struct kt_window *w;
	struct kt_agg *a;
	uint64_t t = 100 * S;
	int bad = 0, queries = 0, tables = 0, keyed = 0, withpath = 0;

	kt_window_new(&wo, &w);
	kt_agg_new(w, sym, &ap, &a);
	{
		struct kt_query q = {.view = KT_VIEW_STACKS, .module = KT_ANY, .func = KT_ANY};

		kt_filter_all(&q.filter);
		kt_agg_expect(a, &q); /* as a batch report with chains does */
	}
	task = kt_window_task(w, 7, 7);
	for (int step = 0; step < 12; step++) {
		const struct kt_window_stkent *e;
		uint32_t ne;

		for (uint32_t i = 0; i < 300; i++) { /* in time order, this second */
			uint32_t locs[4], n = 1 + rnd(4), st = 0;

			for (uint32_t k = 0; k < n; k++)
				locs[k] = kt_sym_lookup(sym, addrs[rnd(NADDR)]);
			if (n > 1 && rnd(5))
				st = kt_window_stack(w, locs, n);
			kt_window_add_ctx(w, t + i * (S / 300), locs[0], st, rnd(NCPU), task,
					  nctx ? rnd(nctx) : 0, 1 + rnd(2));
		}
		t += S;
		kt_window_advance(w, t);
		if (kt_window_slice_stacks(w, kt_window_newest(w) - 1, &e, &ne) == 0) {
			tables++;
			/* their paths were made as the slice completed, before any query */
			for (uint32_t i = 0; i < ne; i++) {
				if (kt_window_stack_leaf(w, e[i].stack) != e[i].loc)
					continue;
				withpath += kt_window_stack_tag(w, e[i].stack, KT_STACK_TAG_PATH) != 0;
				keyed++;
			}
		}
		for (int v = 0; v < 4; v++) {
			struct kt_query q = {.view = KT_VIEW_STACKS, .module = KT_ANY, .func = KT_ANY};
			int rx, ry;

			kt_filter_all(&q.filter);
			q.sort = v & 1 ? KT_SORT_RATE : KT_SORT_HITS;
			if (v & 2)
				q.filter.ctx = nctx ? rnd(nctx) : 0;
			kt_agg_set_projection(a, 1);
			rx = kt_agg_query(a, &q, &x);
			kt_agg_set_projection(a, 0);
			ry = kt_agg_query(a, &q, &y);
			kt_agg_set_projection(a, 1);
			queries++;
			if (rx != ry || (rx == 0 && (!same(&x, &y, NCPU) || !x.nrows))) {
				if (!bad++)
					printf("# refresh %d, variant %d differs\n", step, v);
			}
		}
	}
	printf("# %d stacks queries compared, the newest slice's table there at %d of 12\n",
	       queries, tables);
	ok(tables >= 11, "the window kept the newest complete slice's chained hits");
	printf("# %d of its %d stacks had their path before the query\n", withpath, keyed);
	ok(keyed > 100 && withpath == keyed,
	   "the expected stacks view made their paths as each slice completed");
	is_int(bad, 0, "the stacks views read from the window's tables answer as the full scan");
	kt_result_free(&x);
	kt_result_free(&y);
	kt_agg_free(a);
	kt_window_free(w);
}

/* The hottest stacks with a row limit are the first rows of the whole sorted list, by every
 * sort order, when hits tie at the limit (rows are made only for the paths that can make it,
 * agg_tree.c): paths of (total, newest slice) hits 10/0, 5/5, 5/1, 5/0, 3/3, 5/5, 1/1. */
static void run_stack_limits(struct kt_symbols *sym)
{
	static const uint32_t total[] = {10, 5, 5, 5, 3, 5, 1}, recent[] = {0, 5, 1, 0, 3, 5, 1};
	static const enum kt_sort sorts[] = {KT_SORT_HITS, KT_SORT_RATE, KT_SORT_RISING,
					     KT_SORT_NAME, KT_SORT_DELTA};
	struct kt_window_opts wo = {.span_ns = 4 * S, .slice_ns = 1 * S};
	struct kt_agg_params ap = {
	    .freq_hz = 100, .ms_per_hit = 10, .ncpus = NCPU, .max_cpu = NCPU};
	struct kt_window *w;
	struct kt_agg *a;
	struct kt_result all = {0}, top = {0};
	uint32_t locs[NADDR], nloc = 0, bad = 0, queries = 0;

	kt_window_new(&wo, &w);
	kt_agg_new(w, sym, &ap, &a);
	for (uint32_t i = 0; i < NADDR; i++) { /* locations of distinct functions */
		uint32_t l = kt_sym_lookup(sym, addrs[i]), dup = 0;

		for (uint32_t j = 0; j < nloc; j++)
			dup |= kt_sym_loc(sym, locs[j])->func == kt_sym_loc(sym, l)->func;
		if (!dup)
			locs[nloc++] = l;
	}
	ok(nloc >= 8, "the fixture has 8 functions for the paths");
	/* the older slice's hits first: a sample older than the newest slice counts in it */
	for (int phase = 0; phase < 2; phase++)
		for (uint32_t i = 0; i < 7 && nloc >= 8; i++) {
			uint32_t fr[2] = {locs[6 - i], locs[7]}, st = kt_window_stack(w, fr, 2);

			kt_window_add(w, (10 + (uint64_t)phase) * S, locs[6 - i], st, 0, 0,
				      phase ? recent[i] : total[i] - recent[i]);
		}
	kt_window_advance(w, 12 * S);
	for (size_t s = 0; s < sizeof(sorts) / sizeof(sorts[0]); s++) {
		struct kt_query q = {.view = KT_VIEW_STACKS, .module = KT_ANY, .func = KT_ANY,
				     .sort = sorts[s]};

		kt_filter_all(&q.filter);
		if (kt_agg_query(a, &q, &all) < 0 || all.nrows != 7) {
			bad++;
			continue;
		}
		for (uint32_t l = 1; l <= 7; l++) {
			q.limit = l;
			queries++;
			if (kt_agg_query(a, &q, &top) < 0 || top.nrows != l || top.total_rows != 7) {
				bad++;
				continue;
			}
			for (uint32_t i = 0; i < l; i++)
				if (!same_str(top.rows[i].name, all.rows[i].name) ||
				    top.rows[i].hits != all.rows[i].hits ||
				    top.rows[i].id != all.rows[i].id ||
				    top.rows[i].recent_per_s != all.rows[i].recent_per_s) {
					bad++;
					break;
				}
		}
	}
	printf("# %u limited stacks queries against the full list\n", queries);
	is_int(bad, 0, "the hottest stacks with a limit are the first rows of all of them");
	kt_result_free(&all);
	kt_result_free(&top);
	kt_agg_free(a);
	kt_window_free(w);
}

int main(void)
{
	struct kt_sym_opts so = {.kallsyms = tap_data("agg/kallsyms"),
				 .modules = tap_data("agg/modules")};
	struct kt_symbols *sym;
	char err[512];

	if (kt_sym_new(&so, &sym, err, sizeof(err)) < 0) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	run(sym, 3, 300, "few tasks: narrow projections answer as the full scan does");
	run(sym, 40, 3000, "40 tasks: the same");
	run(sym, 500, 6000,
	    "500 tasks, nearly every tuple distinct (wide, read in place): the same");
	run_refreshes(sym, 0);
	run_refreshes(sym, 1);
	run_top_handover(sym);
	run_stack_limits(sym);
	run_kept_stacks(sym);
	kt_sym_free(sym);
	return tap_done();
}
