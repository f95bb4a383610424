/* -e auto without the hardware: this test links its own system calls (the link-time seam of
 * source_perf_sys.c) in place of the kernel's, as a PMU with cycles, without one, or a
 * hypervisor that hides it, and checks the event kerntop picks and the notice it gives. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "source_perf.h"
#include "tap.h"

static int answer; /* 0: open succeeds, else the errno to fail with */
static int calls;
static struct perf_event_attr asked;
/* The sampling events are not opened here: only the probe may be called. */
int kt_perf_sys_open(struct perf_event_attr *attr, int cpu)
{
	(void)attr;
	(void)cpu;
	errno = ENOSYS;
	return -1;
}

void *kt_perf_sys_mmap(size_t len, int fd)
{
	(void)len;
	(void)fd;
	errno = ENOSYS;
	return MAP_FAILED;
}

int kt_perf_sys_probe(struct perf_event_attr *attr)
{
	calls++;
	asked = *attr;
	if (answer) {
		errno = answer;
		return -1;
	}
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

int main(void)
{
	char note[256];
	const char *ev;

	answer = 0;
	ev = kt_perf_auto_event(0, note, sizeof(note));
	is_str(ev, "cycles", "a PMU with cycles: cycles");
	is_str(note, "", "no notice");
	is_int(calls, 1, "one probe");
	ok(asked.type == PERF_TYPE_HARDWARE && asked.config == PERF_COUNT_HW_CPU_CYCLES,
	   "the probe asks for hardware cycles");
	ok(asked.exclude_kernel && asked.disabled && !asked.sample_period,
	   "the probe counts its own user cycles, disabled (needs no privilege, samples nothing)");

	answer = ENOENT;
	ev = kt_perf_auto_event(0, note, sizeof(note));
	is_str(ev, "cpu-clock", "no cycles event (a VM like this one): cpu-clock");
	is_str(note, "-e auto: no cycles event here (no such hardware event): sampling cpu-clock",
	       "one-line notice");

	answer = ENODEV;
	ev = kt_perf_auto_event(0, note, sizeof(note));
	is_str(ev, "cpu-clock", "no PMU: cpu-clock");
	is_str(note, "-e auto: no cycles event here (no PMU): sampling cpu-clock", "says no PMU");

	answer = EOPNOTSUPP;
	ev = kt_perf_auto_event(0, note, sizeof(note));
	is_str(ev, "cpu-clock", "PMU without cycles: cpu-clock");
	ok(strstr(note, "not supported by the PMU") != NULL, "says not supported");

	answer = 0;
	calls = 0;
	ev = kt_perf_auto_event(1, note, sizeof(note));
	is_str(ev, "cpu-clock", "-c N keeps meaning nanoseconds: cpu-clock");
	is_int(calls, 0, "-c: no probe");
	is_str(note, "", "-c: no notice");
	return tap_done();
}
