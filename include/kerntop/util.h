/* Small shared helpers with no kerntop dependencies: safe file creation, atomic
 * no-clobber writes, clocks. Any layer may use them; they never print or exit. */
#ifndef KERNTOP_UTIL_H
#define KERNTOP_UTIL_H

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define KT_ERRLEN 512

/* A hint that p will be read soon: GCC and Clang fetch its cache line now; elsewhere
 * nothing. */
#if defined(__GNUC__)
#define KT_PREFETCH(p) __builtin_prefetch(p)
#else
#define KT_PREFETCH(p) ((void)(p))
#endif

/* Case-insensitive substring test of the / and text filters: 1 when needle is empty, 0 for
 * a NULL hay. */
int kt_contains_ci(const char *hay, const char *needle);

/* A malloc'd copy of n bytes of p with a NUL after them (a text buffer that may hold no NUL),
 * or NULL when out of memory. The caller frees it. */
char *kt_memdup_text(const char *p, size_t n);

/* Paths longer than this are shown shortened in messages, so that a 4000-byte path does not
 * push the reason out of the message. */
#define KT_PATH_SHOWN 160
/* path, or its first 60 and last bytes around "..." in buf (KT_PATH_SHOWN + 1 bytes). */
const char *kt_short_path(const char *path, char *buf, size_t len);

/* Opens the --log debug log for appending (created 0600, never through a symlink), with the
 * directory checks of the other outputs: refused in a world-writable directory without the
 * sticky bit (or under one), when the file belongs to another user, or is neither a regular
 * file nor a device. NULL with a message naming the file and the fix when it cannot. */
FILE *kt_log_open(const char *path, char *err, size_t errlen);
/* One line of the --log debug log: wall-clock time, "who: ", the message; flushed. 0, or
 * -errno when the line could not be written (a full disk, /dev/full). */
int kt_log_vline(FILE *f, const char *who, const char *fmt, va_list ap);

/* Monotonic clock in ns (the live source's sample clock too). */
uint64_t kt_now_ns(void);
/* Wall clock (Unix time) in ns, for profile timestamps; not a test seam. */
uint64_t kt_unix_now_ns(void);

/* Refuses (-EPERM) a directory that is world-writable without the sticky bit (or that has
 * such a directory above it), and
 * reports a missing or unwritable one (for the effective user); err gets a one-line message
 * naming dir and fix. */
int kt_dir_check(const char *dir, char *err, size_t errlen);

/* Creates path exclusively (O_EXCL|O_NOFOLLOW, mode 0600) after kt_dir_check on its directory.
 * Returns an fd, or -errno with a message in err. Never truncates an existing file. */
int kt_file_create(const char *path, char *err, size_t errlen);

/* Sets the supplementary groups of user uid (getgrouplist of its name; gid alone when it has
 * no passwd entry). 0, or -1 with errno. */
int kt_user_groups(long uid, long gid);

/* The identity a root process acts as for a moment: under sudo, files the user asked for
 * are created (and removed) as that user, so a directory the user cannot write is refused.
 * kt_ids_assume takes uid/gid as effective ids with the user's supplementary groups (uid <= 0:
 * a no-op) and fills *saved; kt_ids_restore goes back. Both return 0 or -errno. */
struct kt_ids {
	int active;
	uid_t euid;
	gid_t egid;
	int ngroups;
	gid_t *groups;
};
int kt_ids_assume(long uid, long gid, struct kt_ids *saved, char *err, size_t errlen);
int kt_ids_restore(struct kt_ids *saved);

/* A file written under a temporary name and published under its final name only when
 * complete, without ever replacing an existing file. */
struct kt_atomic {
	FILE *fp;
	char tmp[PATH_MAX];
	char path[PATH_MAX];
};

int kt_atomic_open(struct kt_atomic *a, const char *path, char *err, size_t errlen);
/* Flushes, fsyncs and publishes. When writing fails (e.g. ENOSPC) the temp file is removed;
 * when only publishing fails (the name was taken meanwhile: EEXIST) the complete temp file is
 * kept and the message names it. */
int kt_atomic_commit(struct kt_atomic *a, char *err, size_t errlen);
/* Drops the temp file; safe after a failed or successful commit. */
void kt_atomic_abort(struct kt_atomic *a);

/* gzip (RFC 1952) of in into a malloc'd *out, as pprof files are: 0 or -errno. */
int kt_gzip(const uint8_t *in, size_t len, uint8_t **out, size_t *outlen);

/* Opens a regular file for reading; a FIFO, pipe, socket or device is refused (-EINVAL) at
 * once, without blocking (a FIFO nobody writes would hang the start), a directory with
 * -EISDIR. Returns the fd or -errno with a message naming path and the fix. */
int kt_open_regular(const char *path, char *err, size_t errlen);

/* Reads a whole regular file (up to max bytes) into a NUL-terminated malloc'd buffer (see
 * kt_open_regular). */
int kt_read_file(const char *path, size_t max, char **buf, size_t *len, char *err, size_t errlen);

/* Optional libraries (Capstone for annotate, libcurl for --push) are loaded when first used,
 * not at start: mapped at start they cost the viewer about 8 MiB of resident memory that
 * most sessions never use. Opens the library SONAME once per process (never closed) and
 * returns its handle, or NULL with "SONAME: why; install PACKAGE" in err. */
void *kt_dl_open(const char *soname, const char *package, char *err, size_t errlen);
/* The address of function NAME in a handle of kt_dl_open, stored into *fn (a function
 * pointer's storage): 0, or -ENOENT with the name in err. */
int kt_dl_fn(void *lib, const char *soname, const char *name, void *fn, char *err, size_t errlen);

/* Transparent huge pages for the heap of a big machine's tables (util_mem.c). Whether the
 * kernel's setting file THP_ENABLED (/sys/kernel/mm/transparent_hugepage/enabled) allows
 * them to be asked for: "[always]" or "[madvise]". kt_mem_huge_begin: from now on the heap
 * grows 16 MiB at a time and kt_mem_huge_check, called where memory is taken often, marks
 * its new part MADV_HUGEPAGE; 1 when asked, 0 when the setting or glibc refused. */
int kt_mem_huge_usable(const char *thp_enabled);
int kt_mem_huge_begin(const char *thp_enabled);
void kt_mem_huge_check(void);
/* Marks the whole 2 MiB of block P (SIZE bytes) MADV_HUGEPAGE once kt_mem_huge_begin has
 * asked: glibc maps a block of 128 KiB or more apart from the heap, in 4 KiB pages. Callers
 * pass only blocks of KT_MEM_HUGE_MIN bytes or more (the big tables a sample reads). */
#define KT_MEM_HUGE_MIN ((size_t)4 << 20)
void kt_mem_huge_block(void *p, size_t size);

#endif
