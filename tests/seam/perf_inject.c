/* Test seam: the live source's system calls (src/source_perf_sys.c) with injected refusals,
 * linked by the C live tests and by tests/kerntop_test, never by the installed kerntop.
 * kt_test_perf_errno(E): the next perf_event_open fails with E (once);
 * kt_test_perf_mmap_pages(N): a ring of more than N data pages fails with EPERM, as the mlock
 * limit makes it for an unprivileged user (0: no limit).
 * tests/kerntop_test takes them from KERNTOP_INJECT_PERF_ERRNO (an errno name or number) and
 * KERNTOP_INJECT_MMAP_PAGES, read at the first call. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../src/source_perf.h"
#include "seam.h"

static int set, inject_errno;
static size_t inject_pages;

static int errno_named(const char *v)
{
	static const struct {
		const char *name;
		int e;
	} names[] = {
	    {"EACCES", EACCES},		{"EPERM", EPERM},   {"ENOENT", ENOENT},
	    {"EOPNOTSUPP", EOPNOTSUPP}, {"ENODEV", ENODEV}, {"EMFILE", EMFILE},
	    {"EINVAL", EINVAL},		{"ENOSYS", ENOSYS}, {"EBUSY", EBUSY},
	    {"EOVERFLOW", EOVERFLOW},
	};
	char *end;
	long n;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(v, names[i].name) == 0)
			return names[i].e;
	n = strtol(v, &end, 10);
	return (*v && !*end && n > 0 && n < 4096) ? (int)n : 0;
}

static void from_env(void)
{
	const char *v;

	if (set)
		return;
	set = 1;
	v = getenv("KERNTOP_INJECT_PERF_ERRNO");
	inject_errno = v ? errno_named(v) : 0;
	v = getenv("KERNTOP_INJECT_MMAP_PAGES");
	inject_pages = v ? strtoul(v, NULL, 10) : 0;
}

void kt_test_perf_errno(int e)
{
	set = 1;
	inject_errno = e;
}

void kt_test_perf_mmap_pages(size_t pages)
{
	set = 1;
	inject_pages = pages;
}

int kt_perf_sys_open(struct perf_event_attr *attr, int cpu)
{
	from_env();
	if (inject_errno) {
		errno = inject_errno;
		inject_errno = 0;
		return -1;
	}
	return (int)syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

void *kt_perf_sys_mmap(size_t len, int fd)
{
	long page = sysconf(_SC_PAGESIZE);

	from_env();
	if (inject_pages && len / (size_t)page - 1 > inject_pages) {
		errno = EPERM;
		return MAP_FAILED;
	}
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

/* -e auto's probe asks the PMU for cycles: an injected refusal is meant for the sampling
 * events, so the probe goes to the kernel untouched. */
int kt_perf_sys_probe(struct perf_event_attr *attr)
{
	return (int)syscall(SYS_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}
