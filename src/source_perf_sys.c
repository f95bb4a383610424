/* The perf_event_open system call, alone in its object file: the link-time seam through
 * which tests (tests/test_source_auto.c) stand in for the kernel's answer, e.g. a PMU with
 * or without cycles, without any hook in the installed binary. */
#include "config.h"

#include <sys/syscall.h>
#include <unistd.h>

#include "source_perf.h"

int kt_perf_syscall(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
		    unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}
