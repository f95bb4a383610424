/* Symbolizer benchmark on this machine's live /proc/kallsyms (or --kallsyms FILE):
 *  - load time of kt_sym_new vs `cat /proc/kallsyms > /dev/null` (median of runs);
 *  - kt_sym_resolve (no interning) on 10 M random kernel text addresses, vs a plain
 *    binary search over the sorted function starts;
 *  - kt_sym_lookup (interning cache) in steady state over a pool of distinct addresses,
 *    and its first-sight cost.
 * Usage: bench_symbols [KALLSYMS] (default /proc/kallsyms). Not run by make check. */
#include "config.h"

#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "kerntop/symbols.h"

#define NADDR 10000000u
#define POOL 65536u
#define RUNS 15

extern char **environ;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
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

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t xrand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double cat_ms(const char *path)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = {"cat", (char *)path, NULL};
	double t0, t1;
	pid_t pid;
	int st;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	t0 = now_ms();
	if (posix_spawnp(&pid, "cat", &fa, NULL, argv, environ) != 0)
		return -1;
	waitpid(pid, &st, 0);
	t1 = now_ms();
	posix_spawn_file_actions_destroy(&fa);
	return t1 - t0;
}

static int ucmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/proc/kallsyms";
	struct kt_sym_opts o = {.kallsyms = path};
	struct kt_symbols *s = NULL;
	char err[512];
	double load[RUNS], cat[RUNS], t0, t1, ms_load, ms_cat;
	uint64_t *addrs, *starts, sink = 0;
	uint32_t nf, nreal = 0, *real;
	struct kt_sym_stats st;

	for (int i = 0; i < RUNS; i++) {
		cat[i] = cat_ms(path);
		t0 = now_ms();
		if (kt_sym_new(&o, &s, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_symbols: %s\n", err);
			return 1;
		}
		load[i] = now_ms() - t0;
		if (i + 1 < RUNS)
			kt_sym_free(s);
	}
	ms_load = median(load, RUNS);
	ms_cat = median(cat, RUNS);
	kt_sym_stats(s, &st);
	printf("kallsyms: %llu lines, %u functions, %u modules\n",
	       (unsigned long long)st.kallsyms_lines, st.nfuncs, st.nmodules);
	printf("load: %.1f ms (median of %d); cat %s: %.1f ms; ratio %.2fx\n", ms_load, RUNS, path,
	       ms_cat, ms_cat > 0 ? ms_load / ms_cat : 0);

	/* random addresses inside real functions, uniform over functions */
	nf = kt_sym_nfuncs(s);
	real = malloc(nf * sizeof(*real));
	starts = malloc(nf * sizeof(*starts));
	for (uint32_t f = 0; f < nf; f++) {
		const struct kt_sym_func *fn = kt_sym_func(s, f);

		if (!fn->bucket && fn->size) {
			starts[nreal] = fn->start;
			real[nreal++] = f;
		}
	}
	if (!nreal) {
		fprintf(stderr, "bench_symbols: no functions (kptr_restrict? run as root)\n");
		return 1;
	}
	qsort(starts, nreal, sizeof(*starts), ucmp);
	addrs = malloc(NADDR * sizeof(*addrs));
	if (!addrs)
		return 1;
	for (uint32_t i = 0; i < NADDR; i++) {
		const struct kt_sym_func *fn = kt_sym_func(s, real[xrand() % nreal]);

		addrs[i] = fn->start + xrand() % fn->size;
	}

	t0 = now_ms();
	for (uint32_t i = 0; i < NADDR; i++)
		sink += kt_sym_resolve(s, addrs[i]);
	t1 = now_ms();
	{
		double ns_res = (t1 - t0) * 1e6 / NADDR, ns_bs;

		t0 = now_ms();
		for (uint32_t i = 0; i < NADDR; i++) {
			uint32_t lo = 0, hi = nreal - 1;

			while (lo < hi) {
				uint32_t mid = (lo + hi + 1) / 2;

				if (starts[mid] <= addrs[i])
					lo = mid;
				else
					hi = mid - 1;
			}
			sink += lo;
		}
		t1 = now_ms();
		ns_bs = (t1 - t0) * 1e6 / NADDR;
		printf("resolve: %.1f ns/address over %u M random addresses; plain binary search "
		       "%.1f ns; "
		       "ratio %.2fx\n",
		       ns_res, NADDR / 1000000, ns_bs, ns_res / ns_bs);
	}

	/* interning lookups: first sight of a pool, then steady state drawn from it */
	t0 = now_ms();
	for (uint32_t i = 0; i < POOL; i++)
		sink += kt_sym_lookup(s, addrs[i]);
	t1 = now_ms();
	printf("lookup first sight: %.1f ns/address (%u distinct)\n", (t1 - t0) * 1e6 / POOL, POOL);
	for (uint32_t i = 0; i < NADDR; i++)
		addrs[i] = addrs[xrand() % POOL];
	t0 = now_ms();
	for (uint32_t i = 0; i < NADDR; i++)
		sink += kt_sym_lookup(s, addrs[i]);
	t1 = now_ms();
	printf("lookup steady state: %.1f ns/lookup over %u M lookups of %u distinct addresses "
	       "(target < 50 ns); locations %u\n",
	       (t1 - t0) * 1e6 / NADDR, NADDR / 1000000, POOL, kt_sym_nlocs(s));
	kt_sym_free(s);
	free(addrs);
	free(starts);
	free(real);
	return sink == 42 ? 2 : 0;
}
