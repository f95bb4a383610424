/* Test seam for tests/kerntop_test: the viewer's status-line clock (src/ui_clock.c) runs
 * ahead of kt_now_ns by the seconds written in the file that KERNTOP_TEST_CLOCK names (read
 * at every call; no file or no variable: no offset). A test writes 6 to age a status message
 * past its 5 s at once. The offset only grows, so the clock stays monotonic. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "kerntop/util.h"
#include "seam.h"

uint64_t ui_clock_ns(void);

uint64_t ui_clock_ns(void)
{
	const char *path = getenv("KERNTOP_TEST_CLOCK");
	double s = 0;
	FILE *f;

	if (path && (f = fopen(path, "re")) != NULL) {
		if (fscanf(f, "%lf", &s) != 1 || s < 0)
			s = 0;
		fclose(f);
	}
	return kt_now_ns() + (uint64_t)(s * 1e9);
}
