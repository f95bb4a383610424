/* Helpers shared by the window's unit tests (test_window.c, test_window_retire.c,
 * test_window_cum.c). */
#ifndef KT_TESTS_TEST_WINDOW_UTIL_H
#define KT_TESTS_TEST_WINDOW_UTIL_H

#include <stdint.h>
#include <stdlib.h>

#include "kerntop/window.h"

#define MS 1000000ull
#define S 1000000000ull

/* The hits of one (location, stack, CPU, task) among the window's tuples (any context). */
static inline uint64_t hits_of(struct kt_window *w, uint32_t loc, uint32_t stack, uint32_t cpu,
			       uint32_t task)
{
	size_t n;
	const struct kt_hit *h = kt_window_hits(w, &n);

	for (size_t i = 0; i < n; i++)
		if (h[i].loc == loc && h[i].stack == stack && h[i].cpu == cpu && h[i].task == task)
			return h[i].hits;
	return 0;
}

static inline struct kt_window *mk(uint64_t span, uint64_t slice, int cum)
{
	struct kt_window_opts o = {.span_ns = span, .slice_ns = slice, .cumulative = cum};
	struct kt_window *w = NULL;

	if (kt_window_new(&o, &w) < 0)
		abort();
	return w;
}

#endif
