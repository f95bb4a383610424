/* Link-time test seams (the files of tests/seam): objects a test program links in place of a small
 * production object, so that tests drive time and faults while the installed kerntop has no
 * hook at all (docs/testing.md, "Test seams"). */
#ifndef KERNTOP_TEST_SEAM_H
#define KERNTOP_TEST_SEAM_H

#include <stddef.h>
#include <stdint.h>

/* clock_manual.c: kt_now_ns starts at 1 s and moves only by this. */
void kt_test_clock_advance(uint64_t ns);

/* perf_inject.c: the next perf_event_open fails with errno e (once); rings of more than
 * pages data pages fail to map with EPERM (0: no limit). */
void kt_test_perf_errno(int e);
void kt_test_perf_mmap_pages(size_t pages);

/* ui_clock_offset.c (tests/kerntop_test): the viewer's clock runs ahead of kt_now_ns by the
 * seconds written in the file named by KERNTOP_TEST_CLOCK, so a test skips a 5 s or 15 s
 * status timeout at once. */

#endif
