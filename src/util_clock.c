/* The monotonic clock, alone in its object: a test links its own kt_now_ns (a link-time seam,
 * tests/seam/clock_manual.c) to drive time by hand, and the installed binary has no hook. */
#include "config.h"

#include <time.h>

#include "kerntop/util.h"

uint64_t kt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
