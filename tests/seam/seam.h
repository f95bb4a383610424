/* Link-time test seams (the files of tests/seam): objects a test program links in place of a small
 * production object, so that tests drive time and faults while the installed kerntop has no
 * hook at all (docs/testing.md, "Test seams"). */
#ifndef KERNTOP_TEST_SEAM_H
#define KERNTOP_TEST_SEAM_H

#include <stddef.h>
#include <stdint.h>

/* clock_manual.c: kt_now_ns starts at 1 s and moves only by this. */
void kt_test_clock_advance(uint64_t ns);

#endif
