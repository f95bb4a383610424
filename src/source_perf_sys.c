/* The live source's system calls, alone in their object: tests link tests/seam/perf_inject.c
 * in their place to make them fail (a link-time seam), and tests/test_source_auto.c to play a
 * PMU with or without cycles, so the installed kerntop has no hook. */
#include "config.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "source_perf.h"

int kt_perf_sys_open(struct perf_event_attr *attr, int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

void *kt_perf_sys_mmap(size_t len, int fd)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

int kt_perf_sys_probe(struct perf_event_attr *attr)
{
	return (int)syscall(SYS_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}
