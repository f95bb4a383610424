/* A tiny TAP producer for kerntop's C tests (run by Automake's tap-driver.sh).
 * Each check prints "ok N - what" or "not ok N - what" with the failing values. */
#ifndef KERNTOP_TESTS_TAP_H
#define KERNTOP_TESTS_TAP_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *file, int line, const char *what)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tap_n, what);
	if (!cond)
		printf("#   failed at %s:%d\n", file, line);
	fflush(stdout);
	return cond;
}

#define ok(cond, what) tap_ok(!!(cond), __FILE__, __LINE__, (what))

#define is_int(got, want, what)                                                             \
	do {                                                                                \
		long long g_ = (long long)(got), w_ = (long long)(want);                    \
		if (!tap_ok(g_ == w_, __FILE__, __LINE__, (what)))                          \
			printf("#   got %lld, want %lld\n", g_, w_);                            \
	} while (0)

#define is_str(got, want, what)                                                             \
	do {                                                                                \
		const char *g_ = (got), *w_ = (want);                                       \
		int c_ = g_ && w_ ? strcmp(g_, w_) == 0 : g_ == w_;                         \
		if (!tap_ok(c_, __FILE__, __LINE__, (what)))                                \
			printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)",               \
			       w_ ? w_ : "(null)");                                          \
	} while (0)

#define is_double(got, want, eps, what)                                                     \
	do {                                                                                \
		double g_ = (got), w_ = (want);                                             \
		if (!tap_ok(g_ - w_ <= (eps) && w_ - g_ <= (eps), __FILE__, __LINE__, (what))) \
			printf("#   got %.6f, want %.6f\n", g_, w_);                            \
	} while (0)

/* Prints the plan last (TAP allows it) and returns the exit status. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* Path of a fixture under tests/data, honouring VPATH builds. */
static inline const char *tap_data(const char *name)
{
	static char buf[8][4096];
	static int i;
	const char *top = getenv("top_srcdir");

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/tests/data/%s", top ? top : ".", name);
	return buf[i];
}

#endif
