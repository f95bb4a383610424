/* Transparent huge pages for the heap of a big machine's tables (issue 14). On a VM a page
 * fault is dear (11-14 us on the development VM, against 7-9 us a 4 KiB page faulted in as
 * part of a huge page), and a 256-CPU replay faulted its 47 MiB in 12 000 times: about a
 * sixth of its CPU. Once the source has said the machine is big, kt_mem_huge_begin makes
 * glibc's heap grow 16 MiB at a time, and kt_mem_huge_check, called where samples are
 * taken in, marks each whole 2 MiB of the heap's new part MADV_HUGEPAGE before
 * most of it is touched: later faults there take 2 MiB at once. The kernel's setting
 * decides: "never" (what many database servers set) leaves everything as it was, and a
 * small machine's process is not asked (its few MiB would round up to whole huge pages).
 * A block glibc maps apart from the heap (128 KiB or more, when the heap's top cannot
 * serve it) stays in 4 KiB pages unless marked too: kt_mem_huge_block, for the big tables
 * grown by kt_grow, the hash indexes and the exact-address and chain caches (the 256-CPU
 * replay at --speed max, whose tables are several times a paced run's: 2.7-2.8 s of CPU
 * against 3.0-4.1 with chains, 1.7-1.8 against 2.0-2.7 without; a paced run's big tables
 * are nearly all in the heap, and its CPU did not move). */
#include "config.h"

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kerntop/util.h"

#define HUGE_SZ ((uintptr_t)2 << 20)

static uintptr_t huge_end; /* the heap is marked up to here; 0: not asked */

int kt_mem_huge_usable(const char *thp_enabled)
{
	char buf[128];
	FILE *f = fopen(thp_enabled, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return strstr(buf, "[always]") || strstr(buf, "[madvise]");
}

int kt_mem_huge_begin(const char *thp_enabled)
{
	if (huge_end)
		return 1;
	if (!kt_mem_huge_usable(thp_enabled))
		return 0;
	/* mallopt returns 1 on success. Setting the pad also fixes glibc's mmap threshold where
	 * it is (128 KiB at the start): bigger blocks keep mappings of their own in 4 KiB pages.
	 * Serving them from the heap too (a threshold of 32 MiB) spared no more faults and put
	 * the viewer's peak at 63 MiB instead of 60 (their slack became resident). */
	if (!mallopt(M_TOP_PAD, 16 << 20))
		return 0;
	huge_end = ((uintptr_t)sbrk(0) + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
	kt_mem_huge_check();
	return 1;
}

void kt_mem_huge_check(void)
{
	uintptr_t end;

	if (!huge_end)
		return;
	end = (uintptr_t)sbrk(0) & ~(HUGE_SZ - 1); /* glibc's cached break: no system call */
	if (end <= huge_end)
		return;
	(void)madvise((void *)huge_end, end - huge_end, MADV_HUGEPAGE); /* a hint: may fail */
	huge_end = end;
}

void kt_mem_huge_block(void *p, size_t size)
{
	uintptr_t lo = ((uintptr_t)p + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
	uintptr_t hi = ((uintptr_t)p + size) & ~(HUGE_SZ - 1);

	if (huge_end && hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* a hint: may fail */
}
