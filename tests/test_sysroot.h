/* Shared by the source tests: a --sysroot fixture whose sys/devices/system/cpu lists the
 * possible and online CPUs given (e.g. "0-1\n"). */
#ifndef KERNTOP_TEST_SYSROOT_H
#define KERNTOP_TEST_SYSROOT_H

#include <stdio.h>
#include <sys/stat.h>

/* Makes DIR/sys/devices/system/cpu/{possible,online} under the existing dir: 0, or -1 when a
 * file cannot be written (said on stdout as a TAP comment). */
static inline int kt_test_cpu_sysroot(const char *dir, const char *possible, const char *online)
{
	static const char *const sub[] = {"/sys", "/sys/devices", "/sys/devices/system",
					  "/sys/devices/system/cpu"};
	const char *name[] = {"possible", "online"}, *text[] = {possible, online};
	char p[4096];

	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", dir, sub[i]);
		mkdir(p, 0755);
	}
	for (int i = 0; i < 2; i++) {
		FILE *f;

		snprintf(p, sizeof(p), "%s/sys/devices/system/cpu/%s", dir, name[i]);
		if (!(f = fopen(p, "w")) || fputs(text[i], f) < 0 || fclose(f) != 0) {
			printf("# cannot write %s\n", p);
			return -1;
		}
	}
	return 0;
}

#endif
