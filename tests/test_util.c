/* Tests for the shared file helpers: exclusive 0600 creation, no-clobber atomic publishing,
 * refusal of world-writable directories, and whole-file reads; and the heap's huge pages. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kerntop/paths.h"
#include "kerntop/util.h"
#include "util_idx.h"
#include "tap.h"

static char dir[] = "/tmp/kt-util-XXXXXX";

static void test_create(void)
{
	char path[512], err[KT_ERRLEN];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/a.txt", dir);
	fd = kt_file_create(path, err, sizeof(err));
	ok(fd >= 0, "kt_file_create makes a new file");
	ok(fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0600, "created with mode 0600");
	close(fd);
	is_int(kt_file_create(path, err, sizeof(err)), -EEXIST, "second create refuses an existing file");
	ok(strstr(err, "already exists") != NULL, "message says the file exists");

	char link_path[512];
	snprintf(link_path, sizeof(link_path), "%s/link", dir);
	ok(symlink("/tmp/kt-util-target-never", link_path) == 0, "make a dangling symlink");
	ok(kt_file_create(link_path, err, sizeof(err)) < 0, "create through a symlink is refused");
	ok(access("/tmp/kt-util-target-never", F_OK) != 0, "symlink target not created");
}

static void test_dir_check(void)
{
	char sub[512], err[KT_ERRLEN], path[600];

	snprintf(sub, sizeof(sub), "%s/open", dir);
	mkdir(sub, 0777);
	chmod(sub, 0777);
	is_int(kt_dir_check(sub, err, sizeof(err)), -EPERM, "world-writable dir without sticky bit refused");
	ok(strstr(err, "sticky") != NULL, "message names the sticky bit");
	chmod(sub, 01777);
	is_int(kt_dir_check(sub, err, sizeof(err)), 0, "sticky world-writable dir accepted");
	is_int(kt_dir_check("/nonexistent-kt-dir", err, sizeof(err)), -ENOENT, "missing dir reported");
	snprintf(path, sizeof(path), "%s/open/x", dir);
	chmod(sub, 0777);
	ok(kt_file_create(path, err, sizeof(err)) < 0, "kt_file_create refuses a world-writable dir");
}

static void test_atomic(void)
{
	char path[512], err[KT_ERRLEN], *buf = NULL;
	struct kt_atomic a, b;
	size_t len = 0;
	struct stat st;

	snprintf(path, sizeof(path), "%s/snap.txt", dir);
	is_int(kt_atomic_open(&a, path, err, sizeof(err)), 0, "atomic open");
	fputs("hello\n", a.fp);
	ok(access(path, F_OK) != 0, "not visible before commit");
	is_int(kt_atomic_commit(&a, err, sizeof(err)), 0, "atomic commit");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "published with mode 0600");
	is_int(kt_read_file(path, 1 << 20, &buf, &len, err, sizeof(err)), 0, "read back");
	is_str(buf, "hello\n", "content intact");
	free(buf);
	is_int(kt_atomic_open(&b, path, err, sizeof(err)), -EEXIST, "existing file refused at open");

	/* a file appearing between open and commit is not clobbered */
	char p2[512];
	snprintf(p2, sizeof(p2), "%s/race.txt", dir);
	is_int(kt_atomic_open(&a, p2, err, sizeof(err)), 0, "atomic open for race");
	fputs("new\n", a.fp);
	FILE *f = fopen(p2, "w");
	fputs("old\n", f);
	fclose(f);
	is_int(kt_atomic_commit(&a, err, sizeof(err)), -EEXIST, "commit refuses to replace a new file");
	buf = NULL;
	kt_read_file(p2, 1 << 20, &buf, &len, err, sizeof(err));
	is_str(buf, "old\n", "the other file is untouched");
	free(buf);
	ok(access(a.tmp, F_OK) != 0, "temp file removed");
	is_int(kt_read_file("/nonexistent-kt", 10, &buf, &len, err, sizeof(err)), -ENOENT, "missing file");
	ok(strstr(err, "/nonexistent-kt") != NULL, "message names the file");
}

/* The one sysroot resolver: the root (none for /), then the path format with its values. */
static void test_sysroot_path(void)
{
	char p[64], small[24];

	is_int(kt_sysroot_path(p, sizeof(p), "", KT_PATH_KALLSYMS), 0, "sysroot \"\": ok");
	is_str(p, "/proc/kallsyms", "sysroot \"\" is /");
	is_int(kt_sysroot_path(p, sizeof(p), NULL, KT_PATH_MODULES), 0, "sysroot NULL: ok");
	is_str(p, "/proc/modules", "sysroot NULL is /");
	is_int(kt_sysroot_path(p, sizeof(p), "/fx", KT_PATH_TASK_COMM, 12, 34), 0, "a format: ok");
	is_str(p, "/fx/proc/12/task/34/comm", "the root, then the path with its values");
	is_int(kt_sysroot_path(p, sizeof(p), "/fx", KT_PATH_MODULE_SECTION, "e1000e", ".text"), 0,
	       "two names: ok");
	is_str(p, "/fx/sys/module/e1000e/sections/.text", "module and section filled in");
	/* "/fx" + "/proc/kallsyms" is 17 bytes and a NUL: 18 fits, 17 does not */
	is_int(kt_sysroot_path(small, 18, "/fx", KT_PATH_KALLSYMS), 0, "exactly fits");
	is_int(kt_sysroot_path(small, 17, "/fx", KT_PATH_KALLSYMS), -ENAMETOOLONG,
	       "one byte short: -ENAMETOOLONG");
	is_int(kt_sysroot_path(small, 3, "/fx", KT_PATH_KALLSYMS), -ENAMETOOLONG,
	       "a root longer than the buffer: -ENAMETOOLONG");
}

static void test_dl(void)
{
	char err[256] = "";
	size_t (*len)(const char *) = NULL;
	void *h = kt_dl_open("libkerntop-none.so.0", "the none package", err, sizeof(err));
	void *h2;
	int r;

	ok(h == NULL, "kt_dl_open of a library that is not there: NULL");
	ok(strstr(err, "libkerntop-none.so.0 cannot be loaded (") &&
		   strstr(err, "; install the none package"),
	   "its message names the library, the loader's reason and the package");
	h = kt_dl_open("libc.so.6", "libc6", err, sizeof(err));
	ok(h != NULL, "kt_dl_open of libc.so.6");
	h2 = kt_dl_open("libc.so.6", "libc6", err, sizeof(err));
	ok(h2 == h, "a second kt_dl_open gives the same handle");
	r = kt_dl_fn(h, "libc.so.6", "strlen", &len, err, sizeof(err));
	ok(r == 0 && len && len("four") == 4, "kt_dl_fn stores a callable function pointer");
	r = kt_dl_fn(h, "libc.so.6", "kt_no_such_function", &len, err, sizeof(err));
	is_int(r, -ENOENT, "a missing function: -ENOENT");
	ok(strstr(err, "libc.so.6 has no function kt_no_such_function") != NULL,
	   "its message names the library and the function");
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Whether a mapping of this process with VmFlags "hg" (MADV_HUGEPAGE) covers addr. */
static int marked_huge(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long lo = 0, hi = 0, a = (unsigned long)addr;
	int in = 0, found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long x, y;

		if (sscanf(line, "%lx-%lx ", &x, &y) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			lo = x;
			hi = y;
			in = a >= lo && a < hi;
		} else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			found = strstr(line, " hg") != NULL;
		}
	}
	fclose(f);
	return found;
}

static void test_huge(void)
{
	char path[300], *piece[512];
	int usable, asked, marked = 0;

	snprintf(path, sizeof(path), "%s/thp", dir);
	put(path, "always [madvise] never\n");
	ok(kt_mem_huge_usable(path) == 1, "huge pages: [madvise] allows them");
	put(path, "[always] madvise never\n");
	ok(kt_mem_huge_usable(path) == 1, "huge pages: [always] allows them");
	put(path, "always madvise [never]\n");
	ok(kt_mem_huge_usable(path) == 0, "huge pages: [never] does not");
	ok(kt_mem_huge_begin(path) == 0, "huge pages: not asked for when the setting is never");
	put(path, "");
	ok(kt_mem_huge_usable(path) == 0, "huge pages: an empty setting file does not");
	snprintf(path, sizeof(path), "%s/thp-none", dir);
	ok(kt_mem_huge_usable(path) == 0, "huge pages: no setting file (a kernel without them)");

	/* this machine's own setting: the heap's part grown after the start is marked */
	usable = kt_mem_huge_usable(KT_PATH_THP_ENABLED);
	if (!usable) {
		printf("# skip: the kernel's %s does not allow huge pages\n", KT_PATH_THP_ENABLED);
		return;
	}
	asked = kt_mem_huge_begin(KT_PATH_THP_ENABLED);
	if (!asked) { /* a sanitizer's or valgrind's allocator takes no mallopt */
		printf("# skip: this allocator refused mallopt; the heap is not glibc's\n");
		return;
	}
	ok(kt_mem_huge_begin(KT_PATH_THP_ENABLED) == 1, "huge pages: asking twice is harmless");
	for (int i = 0; i < 512; i++) { /* 32 MiB in blocks the heap serves */
		piece[i] = malloc(64 << 10);
		if (piece[i])
			memset(piece[i], 1, 64 << 10);
		kt_mem_huge_check();
	}
	if (!piece[100] || (void *)piece[100] >= sbrk(0)) { /* valgrind's blocks are mmapped */
		printf("# skip: this allocator does not serve blocks from the heap (brk)\n");
		for (int i = 0; i < 512; i++)
			free(piece[i]);
		return;
	}
	/* the first 2 MiB after the start may be the unmarked rest of the old heap's last one */
	for (int i = 64; i < 512; i++)
		marked += piece[i] && marked_huge(piece[i]);
	printf("# %d of 448 blocks in a mapping marked for huge pages\n", marked);
	ok(marked >= 400, "huge pages: the heap's new part is marked MADV_HUGEPAGE");
	for (int i = 0; i < 512; i++)
		free(piece[i]);

	/* a big table grown by kt_grow, past what the heap's top holds, is a mapping of its own
	 * (glibc's mmap threshold): marked too */
	{
		char *big = NULL;
		uint32_t cap = 0;

		ok(kt_grow((void **)&big, &cap, 256, 1 << 20) == 0, "huge pages: a table grown");
		if (big && (void *)big < sbrk(0))
			printf("# skip: this allocator served 256 MiB from the heap\n");
		else if (big)
			ok(marked_huge(big + 128 * (1 << 20)),
			   "huge pages: a table of 256 MiB grown by kt_grow is marked");
		free(big);
	}
}

int main(void)
{
	ok(mkdtemp(dir) != NULL, "temp dir");
	chmod(dir, 0700);
	test_create();
	test_dir_check();
	test_atomic();
	test_sysroot_path();
	test_dl();
	test_huge();
	ok(kt_now_ns() > 0, "monotonic clock");
	{
		char *t = kt_memdup_text("abcdef", 3);

		ok(t && strcmp(t, "abc") == 0, "kt_memdup_text: n bytes, then a NUL");
		free(t);
		t = kt_memdup_text("", 0);
		ok(t && t[0] == '\0', "kt_memdup_text of 0 bytes: an empty string");
		free(t);
	}
	if (system(NULL)) {
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return tap_done();
}
