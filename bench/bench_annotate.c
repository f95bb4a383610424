/* Annotate speed: opening the annotate screen of one function is kt_agg_annotate (read the
 * text, disassemble with Capstone, count each instruction's hits, find each source line with
 * libdw). Times the first open (libdw opened then) and the median of later opens, for a
 * function of an ELF file given as the vmlinux with kallsyms from it.
 * Usage: bench_annotate KALLSYMS MODULES VMLINUX FUNC [SAMPLES] */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/agg.h"
#include "kerntop/symbols.h"
#include "kerntop/util.h"
#include "kerntop/window.h"

#define RUNS 21

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct kt_sym_opts so = {0};
	struct kt_window_opts wo = {.span_ns = 10000000000ull, .slice_ns = 1000000000ull};
	struct kt_agg_params ap = {.freq_hz = 997, .ms_per_hit = 1.003, .ncpus = 1, .max_cpu = 1};
	struct kt_symbols *s;
	struct kt_window *w;
	struct kt_agg *a;
	struct kt_annotate an;
	char err[KT_ERRLEN];
	double t[RUNS], first;
	uint32_t f;
	uint64_t n, start, size, x = 88172645463325252ull;

	if (argc < 5) {
		fprintf(stderr, "usage: bench_annotate KALLSYMS MODULES VMLINUX FUNC [SAMPLES]\n");
		return 2;
	}
	n = argc > 5 ? strtoull(argv[5], NULL, 10) : 100000;
	so.kallsyms = argv[1];
	so.modules = argv[2];
	so.vmlinux = argv[3];
	argv += 1; /* FUNC is argv[3] below */
	if (kt_sym_new(&so, &s, err, sizeof(err)) < 0 || kt_window_new(&wo, &w) < 0 ||
	    kt_agg_new(w, s, &ap, &a) < 0) {
		fprintf(stderr, "bench_annotate: %s\n", err);
		return 1;
	}
	if (kt_agg_func_find(a, argv[3], &f, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_annotate: %s\n", err);
		return 1;
	}
	start = kt_sym_func(s, f)->start;
	size = kt_sym_func(s, f)->size;
	/* hits spread over the function (instruction starts or not: both are counted) */
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		kt_window_addr_add(w, start + x % size, 1);
	}
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = kt_now_ns();

		if (kt_agg_annotate(a, f, &an, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_annotate: %s\n", err);
			return 1;
		}
		t[r] = (double)(kt_now_ns() - t0) / 1e6;
		if (r == RUNS - 1)
			printf("annotate %s: %llu bytes, %zu instructions, %llu hits, text from %s\n",
			       argv[3], (unsigned long long)an.size, an.ninsns,
			       (unsigned long long)an.hits, kt_text_source_name(an.source));
		kt_annotate_free(&an);
	}
	first = t[0];
	qsort(t + 1, RUNS - 1, sizeof(t[0]), cmp);
	printf("annotate open, first (libdw opened): %.2f ms\n", first);
	printf("annotate open, median of %d later: %.2f ms\n", RUNS - 1, t[RUNS / 2]);
	kt_agg_free(a);
	kt_window_free(w);
	kt_sym_free(s);
	return 0;
}
