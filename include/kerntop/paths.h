/* Every system path kerntop reads, in one place, and the one resolver that puts them under
 * --sysroot DIR (so tests point kerntop at a fixture tree). Any layer may use it; the paths
 * are printf formats where a pid, tid or name goes in. */
#ifndef KERNTOP_PATHS_H
#define KERNTOP_PATHS_H

#include <stddef.h>

/* symbols (under the sysroot) */
#define KT_PATH_KALLSYMS "/proc/kallsyms"
#define KT_PATH_MODULES "/proc/modules"
#define KT_PATH_BUILTIN_RANGES "/lib/modules/%s/modules.builtin.ranges" /* uname -r */
#define KT_PATH_MODULE_SECTION "/sys/module/%s/sections/%s"             /* module, section */
#define KT_PATH_MODULE_NOTES "/sys/module/%s/notes/.note.gnu.build-id"  /* module */
#define KT_PATH_KERNEL_NOTES "/sys/kernel/notes"
#define KT_PATH_KCORE "/proc/kcore"
#define KT_PATH_LOCKDOWN "/sys/kernel/security/lockdown"
/* why kallsyms reads as 0s (with KT_PATH_PERF_PARANOID, here under the sysroot) */
#define KT_PATH_KPTR_RESTRICT "/proc/sys/kernel/kptr_restrict"

/* the live source (CPU lists and task names under the sysroot; perf's limits are the real
 * machine's, read without it) */
#define KT_PATH_CPU_ONLINE "/sys/devices/system/cpu/online"
#define KT_PATH_CPU_POSSIBLE "/sys/devices/system/cpu/possible"
#define KT_PATH_TASK_COMM "/proc/%d/task/%d/comm" /* pid, tid */
#define KT_PATH_COMM "/proc/%d/comm"              /* tid */
#define KT_PATH_PERF_PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define KT_PATH_PERF_MAX_RATE "/proc/sys/kernel/perf_event_max_sample_rate"
#define KT_PATH_PERF_MAX_STACK "/proc/sys/kernel/perf_event_max_stack"
#define KT_PATH_PERF_MLOCK_KB "/proc/sys/kernel/perf_event_mlock_kb"

/* the /proc figures (under the sysroot) */
#define KT_PATH_PROC_STAT "/proc/stat"
#define KT_PATH_PROC_SOFTIRQS "/proc/softirqs"
#define KT_PATH_PROC_INTERRUPTS "/proc/interrupts"

/* kerntop's own memory, for the --log line, and whether its tables may ask for huge
 * pages (never under the sysroot) */
#define KT_PATH_SELF_STATM "/proc/self/statm"
#define KT_PATH_THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"

/* The one sysroot resolver: sysroot ("" or NULL for /) then the system path fmt (a KT_PATH_*
 * with its arguments) into out. 0, or -ENAMETOOLONG when the path does not fit (out then holds
 * a truncated path that names no file the caller wanted). */
int kt_sysroot_path(char *out, size_t len, const char *sysroot, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
