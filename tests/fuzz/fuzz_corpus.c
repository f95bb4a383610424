/* The corpus-replay driver run by make check: feeds every file named on the command line to
 * every fuzz target, the replay readers, the symbolizer's parsers and the /proc readers (a crash or a sanitizer
 * report fails the test), and prints TAP. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "kerntop/util.h"
#include "fuzz_targets.h"

int main(int argc, char **argv)
{
	char err[KT_ERRLEN];
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		char *buf;
		size_t len;

		if (kt_read_file(argv[i], 16 << 20, &buf, &len, err, sizeof(err)) < 0) {
			printf("not ok %d - %s\n", i, err);
			failed++;
			continue;
		}
		kt_fuzz_recording((const uint8_t *)buf, len);
		kt_fuzz_perfscript((const uint8_t *)buf, len);
		kt_fuzz_kallsyms((const uint8_t *)buf, len);
		kt_fuzz_modules((const uint8_t *)buf, len);
		kt_fuzz_ranges((const uint8_t *)buf, len);
		kt_fuzz_procstat((const uint8_t *)buf, len);
		free(buf);
		printf("ok %d - %s\n", i, argv[i]);
	}
	printf("1..%d\n", argc - 1);
	return failed ? 1 : 0;
}
