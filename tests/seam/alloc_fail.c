/* Test seam: kerntop's own allocations with an injected failure, linked only into
 * tests/kerntop_allocfail with -Wl,--wrap for malloc, calloc, realloc and strdup, so every call
 * from kerntop's objects comes here (libc's and the libraries' own calls do not). The installed
 * kerntop has no such hook (docs/testing.md, "Test seams").
 * KERNTOP_ALLOC_FAIL=N: the Nth call (from 1) returns NULL with ENOMEM; "N+": the Nth and every
 * later call do, as an exhausted address space (ulimit -v) does. KERNTOP_ALLOC_COUNT=FILE: the
 * number of calls is written there at exit, so a test knows how many to iterate over. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static unsigned long calls, fail_at;
static int fail_after, set;

static void from_env(void)
{
	const char *v = getenv("KERNTOP_ALLOC_FAIL");
	char *end;

	set = 1;
	if (!v)
		return;
	fail_at = strtoul(v, &end, 10);
	fail_after = *end == '+';
}

/* 1 when this call is to fail; the counter is atomic for the push worker thread */
static int fails(void)
{
	unsigned long n;

	if (!set)
		from_env();
	n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	if (fail_at && (n == fail_at || (fail_after && n > fail_at))) {
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

void *__wrap_malloc(size_t n)
{
	return fails() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
	return fails() ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fails() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fails() ? NULL : __real_strdup(s);
}

__attribute__((destructor)) static void write_count(void)
{
	const char *path = getenv("KERNTOP_ALLOC_COUNT");
	char buf[32];
	int fd, len;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	len = snprintf(buf, sizeof(buf), "%lu\n", __atomic_load_n(&calls, __ATOMIC_RELAXED));
	if (write(fd, buf, (size_t)len) != len)
		(void)unlink(path);
	close(fd);
}
