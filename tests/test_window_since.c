/* The since-start narrow totals (window_since.c): (location, chain or not, context) summed
 * since start, kept as slices expire into the runs, past the runs' cap, and as retired tasks
 * and dropped stacks re-key records there; asked for first midway (made from the runs), then
 * kept while the rolling view is shown. Compared with the since-start tuples summed by the
 * same keys, and by (location, context) with a recount of every sample added. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/window.h"
#include "tap.h"
#include "test_window_util.h"

enum { NLOC = 40, NCTX = 4, NPID = 300 };

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Sums n hits stride bytes apart into by[loc][chain][ctx]; hits of a key out of range count
 * in *odd. */
static void sum_into(uint64_t by[NLOC][2][NCTX], const struct kt_hit *h, size_t n, size_t stride,
		     uint64_t *odd)
{
	for (size_t i = 0; i < n; i++) {
		const struct kt_hit *x = (const void *)((const char *)h + i * stride);

		if (!x->hits)
			continue;
		if (x->loc >= NLOC || x->ctx >= NCTX)
			*odd += x->hits;
		else
			by[x->loc][x->stack != 0][x->ctx] += x->hits;
	}
}

/* One run: samples over drifting tasks and many two-frame stacks, cumulative mode asked for
 * from sample ask on and left at check points; cap: the runs' (0: the default). */
static void run(const char *what, uint32_t cap, int ask)
{
	struct kt_window_opts o = {.span_ns = 2 * S,
				   .slice_ns = S / 2,
				   .max_cum_tuples = cap,
				   .max_idle_tasks = 16,
				   .max_idle_stacks = 8};
	struct kt_window *w = NULL;
	static uint64_t truth[NLOC][NCTX];
	uint64_t seed = 0x9e3779b97f4a7c15ull, t = 10 * S, total = 0;
	int bad_keys = 0, bad_truth = 0, checks = 0, folded = 0;

	memset(truth, 0, sizeof(truth));
	kt_window_new(&o, &w);
	for (int i = 0; i < 30000; i++) {
		uint32_t loc = (uint32_t)(rnd(&seed) % NLOC), ctx = (uint32_t)(rnd(&seed) % NCTX);
		int32_t pid = (int32_t)((i / 60 + rnd(&seed) % 20) % NPID); /* pids drift */
		uint32_t stack = 0, hits = 1 + (uint32_t)(rnd(&seed) % 3);

		t += (rnd(&seed) % 4) * MS;
		if (rnd(&seed) % 3) { /* a chain of a few hundred, many gone soon */
			uint32_t fr[2] = {loc, 1000 + (uint32_t)((i / 40 + rnd(&seed) % 50) % 700)};

			stack = kt_window_stack(w, fr, 2);
		}
		kt_window_add_ctx(w, t, loc, stack, (uint32_t)(rnd(&seed) % 3),
				  kt_window_task(w, pid, pid), ctx, hits);
		truth[loc][ctx] += hits;
		total += hits;
		if (i < ask || (i % 997 != 0 && i != 29999))
			continue;
		{
			static uint64_t got[NLOC][2][NCTX], want[NLOC][2][NCTX];
			uint64_t odd = 0;
			size_t n, stride;
			const struct kt_hit *h;

			memset(got, 0, sizeof(got));
			memset(want, 0, sizeof(want));
			kt_window_set_cumulative(w, 1);
			h = kt_window_narrow(w, &n, &stride);
			if (!h) {
				bad_keys++;
				kt_window_set_cumulative(w, 0);
				continue;
			}
			sum_into(got, h, n, stride, &odd);
			h = kt_window_hits(w, &n);
			sum_into(want, h, n, sizeof(*h), &odd);
			if (memcmp(got, want, sizeof(got)) || odd) {
				if (bad_keys < 3)
					printf("# %s: sample %d: the narrow sums differ from the "
					       "since-start tuples'\n",
					       what, i);
				bad_keys++;
			}
			for (uint32_t l = 0; l < NLOC; l++)
				for (uint32_t c = 0; c < NCTX; c++)
					if (got[l][0][c] + got[l][1][c] != truth[l][c])
						bad_truth++;
			if (kt_window_total(w) != total)
				bad_truth++;
			folded = 0;
			for (size_t k = 0; k < n; k++) {
				const struct kt_task *tt = kt_window_task_info(w, h[k].task);

				folded += tt && tt->pid < 0; /* a group: retired or past the cap */
			}
			checks++;
			kt_window_set_cumulative(w, i % 2); /* the rolling view between some checks */
		}
	}
	printf("# %s: %d checks, %u stacks, %u tasks, %d keys folded or grouped at the end\n",
	       what, checks, kt_window_nstacks(w), kt_window_ntasks(w), folded);
	is_int(bad_keys, 0, what);
	is_int(bad_truth, 0, "... and by (location, context) they are every sample added");
	ok(checks >= 15, "... checked at many points");
	kt_window_free(w);
}

int main(void)
{
	/* asked for from the start: kept as every slice expires */
	run("since start narrow sums, asked from the start", 0, 0);
	/* asked midway: made from the runs, then kept; stacks dropped and tasks retired */
	run("since start narrow sums, asked midway", 0, 15000);
	/* past a cap of 200 tuples: new keys fold into no stack, task [other] */
	run("since start narrow sums past the runs' cap", 200, 5000);
	return tap_done();
}
