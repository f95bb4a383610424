/* Window and aggregator benchmark:
 *  - ingest throughput (symbolize + intern task + window add) in samples/s on one core,
 *    without and with call chains (-g), vs a plain hash count of the raw addresses (the
 *    least any profiler does per sample);
 *  - the cost of one refresh query over 100k distinct (location, CPU, task) keys, vs
 *    sorting those 100k raw counts once (the floor of "rescan and sort").
 * Rates and times are per CPU second of this thread (CLOCK_THREAD_CPUTIME_ID), so that other
 * load on the machine does not change them; wall-clock rates are printed beside them.
 * Usage: bench_agg [KALLSYMS [MODULES]] (default /proc/kallsyms, /proc/modules; as root or
 * with kptr_restrict=0, else the tests/data/agg fixture is a fallback). Not run by make check. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kerntop/agg.h"
#include "kerntop/symbols.h"
#include "kerntop/window.h"

#define NSAMPLES 20000000u
#define NADDR 20000u
#define NSTACKS 4000u
#define DEPTH 12
#define RUNS 9
#define TARGET 20e6 /* samples/s on one core, with symbolization (issue 5) */

/* This thread's CPU time: what the ingest costs, whatever else runs on the machine. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Samples per second of CPU time and of wall time. */
struct rate {
	double cpu, wall;
};

static struct rate rate_of(double cpu0, double wall0)
{
	return (struct rate){NSAMPLES / (now_s() - cpu0), NSAMPLES / (wall_s() - wall0)};
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t xrand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), dcmp);
	return v[n / 2];
}

struct raw {
	uint64_t ip;
	uint32_t cpu, tid, stack;
};

/* A skewed pick: a few hot addresses, a long tail, like a real profile. */
static uint32_t skewed(uint32_t n)
{
	uint64_t r = xrand();
	uint32_t a = (uint32_t)(r % n), b = (uint32_t)((r >> 32) % n);

	return a < b ? a : b;
}

static struct kt_window *window(void)
{
	struct kt_window_opts wo = {.span_ns = 10000000000ull, .slice_ns = 1000000000ull};
	struct kt_window *w;

	if (kt_window_new(&wo, &w) < 0)
		exit(1);
	return w;
}

static struct rate ingest(struct kt_symbols *s, const struct raw *r, const uint64_t (*stk)[DEPTH],
			  int callchain, uint64_t *check)
{
	struct kt_window *w = window();
	uint64_t t = 1000000000ull, step = 1000000000ull / 997 / 2;
	uint32_t locs[DEPTH];
	double t0 = now_s(), w0 = wall_s();
	struct rate rt;

	for (uint32_t i = 0; i < NSAMPLES; i++) {
		const struct raw *x = &r[i];
		uint32_t loc = kt_sym_lookup(s, x->ip), st = 0, task;

		if (callchain) {
			locs[0] = loc;
			for (int j = 1; j < DEPTH; j++)
				locs[j] = kt_sym_lookup(s, stk[x->stack][j]);
			st = kt_window_stack(w, locs, DEPTH);
		}
		task = kt_window_task(w, (int32_t)x->tid, (int32_t)x->tid);
		t += step;
		kt_window_add(w, t, loc, st, x->cpu, task, 1);
	}
	rt = rate_of(t0, w0);
	*check = kt_window_total(w);
	kt_window_free(w);
	return rt;
}

/* The floor: count raw addresses in an open-addressing table, nothing else. */
static struct rate baseline(const struct raw *r, uint64_t *check)
{
	uint32_t cap = 1u << 21; /* > 4000 addresses x 2 CPUs x 64 tasks */
	uint64_t *key = calloc(cap, sizeof(*key)), *cnt = calloc(cap, sizeof(*cnt)), sum = 0;
	double t0 = now_s(), w0 = wall_s();
	struct rate rt;

	for (uint32_t i = 0; i < NSAMPLES; i++) {
		uint64_t k = r[i].ip ^ ((uint64_t)r[i].cpu << 56) ^ ((uint64_t)r[i].tid << 40);
		uint32_t h = (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 43);

		while (key[h] && key[h] != k)
			h = (h + 1) & (cap - 1);
		key[h] = k;
		cnt[h]++;
	}
	rt = rate_of(t0, w0);
	for (uint32_t i = 0; i < cap; i++)
		sum += cnt[i];
	*check = sum;
	free(key);
	free(cnt);
	return rt;
}

static int hcmp(const void *a, const void *b)
{
	const struct kt_hit *x = a, *y = b;

	return x->hits > y->hits ? -1 : x->hits < y->hits;
}

static void queries(struct kt_symbols *s, const uint64_t *addr, uint32_t naddr, double freq)
{
	struct kt_window *w = window();
	struct kt_agg_params ap = {
	    .freq_hz = freq, .ms_per_hit = 1000.0 / freq, .ncpus = 8, .max_cpu = 8};
	struct kt_agg *a;
	struct kt_result res = {0};
	static const enum kt_view views[] = {KT_VIEW_MODULES, KT_VIEW_TOPFUNCS, KT_VIEW_FUNCS,
					     KT_VIEW_TASKS, KT_VIEW_CPUS};
	double v[RUNS], sortms;
	size_t n;
	const struct kt_hit *h;
	struct kt_hit *copy;

	/* 100k distinct keys: locations x 8 CPUs x tasks */
	n = 0;
	for (uint32_t i = 0; n < 100000; i++) {
		uint32_t loc = kt_sym_lookup(s, addr[i % naddr]);
		uint32_t task = kt_window_task(w, (int32_t)(i / naddr), (int32_t)(i / naddr));

		kt_window_add(w, 2000000000ull, loc, 0, (i / 7) % 8, task, 1 + xrand() % 50);
		if (i % 1024 == 0)
			kt_window_hits(w, &n);
	}
	kt_window_advance(w, 3000000000ull);
	kt_agg_new(w, s, &ap, &a);
	h = kt_window_hits(w, &n);
	copy = malloc(n * sizeof(*copy));
	for (int r = 0; r < RUNS; r++) {
		double t0;

		memcpy(copy, h, n * sizeof(*copy));
		t0 = now_s();
		qsort(copy, n, sizeof(*copy), hcmp);
		v[r] = (now_s() - t0) * 1e3;
	}
	sortms = median(v, RUNS);
	printf("refresh query over %zu distinct keys (median of %d, CPU time):\n", n, RUNS);
	printf("  %-14s %8.3f ms   (peer: qsort of the raw keys by hits)\n", "qsort raw", sortms);
	for (size_t k = 0; k < sizeof(views) / sizeof(views[0]); k++) {
		struct kt_query q = {
		    .view = views[k], .module = KT_MOD_VMLINUX, .func = KT_ANY, .limit = 50};

		kt_filter_all(&q.filter);
		for (int r = 0; r < RUNS; r++) {
			double t0 = now_s();

			kt_agg_query(a, &q, &res);
			v[r] = (now_s() - t0) * 1e3;
		}
		printf("  %-14s %8.3f ms   %5.2fx the peer, %zu rows\n", kt_view_name(views[k]),
		       median(v, RUNS), median(v, RUNS) / sortms, res.total_rows);
	}
	free(copy);
	kt_result_free(&res);
	kt_agg_free(a);
	kt_window_free(w);
}

/* The Trend's cost (docs/history.md): the same queries with and without trend points, over
 * 100k keys each hit in every one of 10 slices (the worst case: every tuple in every slice). */
static void trend_cost(struct kt_symbols *s, const uint64_t *addr, uint32_t naddr, double freq)
{
	struct kt_window *w = window();
	struct kt_agg_params ap = {
	    .freq_hz = freq, .ms_per_hit = 1000.0 / freq, .ncpus = 8, .max_cpu = 8};
	struct kt_agg *a;
	struct kt_result res = {0};
	static const enum kt_view views[] = {KT_VIEW_MODULES, KT_VIEW_TOPFUNCS, KT_VIEW_TASKS,
					     KT_VIEW_CPUS};
	double v[RUNS], off = 0, on = 0;
	size_t n = 0;

	for (uint32_t sl = 0; sl < 10; sl++)
		for (uint32_t i = 0; i < 100000; i++) {
			uint32_t loc = kt_sym_lookup(s, addr[i % naddr]);
			uint32_t task = kt_window_task(w, (int32_t)(i / naddr), (int32_t)(i / naddr));

			kt_window_add(w, 2000000000ull + sl * 1000000000ull, loc, 0, (i / 7) % 8, task,
				      1 + xrand() % 50);
		}
	kt_window_advance(w, 11500000000ull);
	kt_window_hits(w, &n);
	kt_agg_new(w, s, &ap, &a);
	printf("trend: the same query without / with 10 trend points, %zu keys in each of %u "
	       "complete slices (median of %d, CPU time):\n",
	       n, kt_window_slices_done(w), RUNS);
	for (size_t k = 0; k < sizeof(views) / sizeof(views[0]); k++) {
		struct kt_query q = {.view = views[k], .func = KT_ANY, .limit = 50};

		kt_filter_all(&q.filter);
		for (int pass = 0; pass < 2; pass++) {
			q.trend = pass ? 10 : 0;
			for (int r = 0; r < RUNS; r++) {
				double t0 = now_s();

				kt_agg_query(a, &q, &res);
				v[r] = (now_s() - t0) * 1e3;
			}
			if (pass)
				on = median(v, RUNS);
			else
				off = median(v, RUNS);
		}
		printf("  %-14s %8.3f ms without (peer), %8.3f ms with the trend: %5.2fx\n",
		       kt_view_name(views[k]), off, on, on / off);
	}
	kt_result_free(&res);
	kt_agg_free(a);
	kt_window_free(w);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct kt_sym_opts so = {.kallsyms = argc > 1 ? argv[1] : NULL,
				 .modules = argc > 2 ? argv[2] : NULL};
	struct kt_symbols *s;
	char err[512];
	uint64_t *addr, (*stk)[DEPTH], c1, c2, c3;
	struct raw *r;
	uint32_t nf, naddr = 0;
	struct rate base, plain, g, at[2];

	if (kt_sym_new(&so, &s, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_agg: %s\n", err);
		return 1;
	}
	nf = kt_sym_nfuncs(s);
	addr = malloc(NADDR * sizeof(*addr));
	/* distinct addresses inside real functions */
	for (uint32_t i = 0; naddr < NADDR && i < NADDR * 20; i++) {
		const struct kt_sym_func *f = kt_sym_func(s, (uint32_t)(xrand() % nf));

		if (f && f->size && f->start && f->module != KT_MOD_USER)
			addr[naddr++] = f->start + xrand() % f->size;
	}
	if (!naddr) {
		fprintf(stderr, "bench_agg: no function addresses (kptr_restrict? run as root)\n");
		return 1;
	}
	stk = malloc(NSTACKS * sizeof(*stk));
	for (uint32_t i = 0; i < NSTACKS; i++)
		for (int j = 0; j < DEPTH; j++)
			stk[i][j] = addr[skewed(naddr)];
	r = malloc(NSAMPLES * sizeof(*r));
	printf("symbols: %u functions, %u distinct sample addresses, %u samples, 2 CPUs\n", nf,
	       naddr, NSAMPLES);
	for (int dist = 0; dist < 2; dist++) {
		/* hot: 90 % of samples on 64 stacks and 4 tasks per CPU, like a loaded machine;
		 * wide: every stack and 64 tasks, nearly every sample a new tuple in the window */
		for (uint32_t i = 0; i < NSAMPLES; i++) {
			int hot = dist == 0 && xrand() % 10 != 0;

			r[i].stack = hot ? skewed(64) : skewed(NSTACKS);
			r[i].ip = stk[r[i].stack][0];
			r[i].cpu = i & 1;
			r[i].tid =
			    hot ? (uint32_t)(r[i].cpu * 4 + xrand() % 4) : (uint32_t)skewed(64);
		}
		base = baseline(r, &c1);
		plain = ingest(s, r, stk, 0, &c2);
		g = ingest(s, r, stk, 1, &c3);
		if (c1 != NSAMPLES || c2 > NSAMPLES || c3 > NSAMPLES)
			fprintf(stderr, "bench_agg: count mismatch\n");
		at[dist] = plain;
		printf("ingest, one core (symbolize + task + window add), %s profile, per CPU "
		       "second (wall clock in brackets):\n",
		       dist ? "wide" : "hot");
		printf("  %-22s %7.1f M samples/s (%5.1f wall)   (peer)\n",
		       "raw address hash count", base.cpu / 1e6, base.wall / 1e6);
		printf("  %-22s %7.1f M samples/s (%5.1f wall)   %.2fx the peer\n", "kerntop",
		       plain.cpu / 1e6, plain.wall / 1e6, plain.cpu / base.cpu);
		printf(
		    "  %-22s %7.1f M samples/s (%5.1f wall)   %.2fx without -g (%d frames each)\n",
		    "kerntop -g", g.cpu / 1e6, g.wall / 1e6, g.cpu / plain.cpu, DEPTH);
	}
	for (int dist = 0; dist < 2; dist++)
		printf("target > %.0f M samples/s per CPU second, %s profile: %.1f M/s, %s\n",
		       TARGET / 1e6, dist ? "wide" : "hot ", at[dist].cpu / 1e6,
		       at[dist].cpu > TARGET ? "meets it" : "BELOW it");
	queries(s, addr, naddr, 997);
	trend_cost(s, addr, naddr, 997);
	free(r);
	free(stk);
	free(addr);
	kt_sym_free(s);
	return 0;
}
