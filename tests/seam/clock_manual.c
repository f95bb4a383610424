/* Test seam: a kt_now_ns that only moves when the test says so, linked in place of
 * src/util_clock.c, so that a test of pacing asserts on the time the code asked to wait, never
 * on how long this machine took. */
#include "config.h"

#include "kerntop/util.h"
#include "seam.h"

static uint64_t now_ns = 1000000000ull;

uint64_t kt_now_ns(void)
{
	return now_ns;
}

void kt_test_clock_advance(uint64_t ns)
{
	now_ns += ns;
}
