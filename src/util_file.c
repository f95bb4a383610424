/* Safe file creation and atomic no-clobber publishing for snapshots, reports and recordings;
 * the --log writer and the text filters' substring test. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kerntop/paths.h"
#include "kerntop/util.h"

char *kt_memdup_text(const char *p, size_t n)
{
	char *c = malloc(n + 1);

	if (c) {
		memcpy(c, p, n);
		c[n] = '\0';
	}
	return c;
}

int kt_contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	if (!n)
		return 1;
	for (; hay && *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return 0;
}

/* A directory that another user can rename entries in lets them swap dir for their own: each
 * ancestor of dir (resolved) must not be world-writable without the sticky bit. */
static int ancestors_check(const char *dir, char *err, size_t errlen)
{
	char real[PATH_MAX], *slash;
	struct stat st;

	if (!realpath(dir, real))
		return 0; /* the caller's own stat reports a missing directory */
	while ((slash = strrchr(real, '/')) != NULL) {
		if (slash == real)
			slash[1] = 0; /* "/" itself */
		else
			*slash = 0;
		if (stat(real, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & S_IWOTH) &&
		    !(st.st_mode & S_ISVTX)) {
			snprintf(err, errlen,
				 "world-writable directory without the sticky bit above the target "
				 "(%s), refusing to write under it; choose a private directory",
				 real);
			return -EPERM;
		}
		if (slash == real)
			break;
	}
	return 0;
}

const char *kt_short_path(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);

	/* the start says where, the end names the file; the middle goes */
	if (n <= KT_PATH_SHOWN || len < KT_PATH_SHOWN + 1)
		return path;
	snprintf(buf, len, "%.60s...%s", path, path + n - (KT_PATH_SHOWN - 63));
	return buf;
}

FILE *kt_log_open(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX], copy[PATH_MAX], sp[KT_PATH_SHOWN + 1];
	const char *shown = kt_short_path(path, sp, sizeof(sp));
	struct stat st;
	int fd, e;
	FILE *fp;

	if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy)) {
		snprintf(err, errlen, "--log %s: path too long", shown);
		return NULL;
	}
	snprintf(dir, sizeof(dir), "%s", dirname(copy));
	/* the checks of the other outputs, except that an existing log may be appended to */
	if (stat(dir, &st) == 0 && (st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		snprintf(err, errlen,
			 "--log %s: world-writable directory without the sticky bit, refusing to "
			 "write there; choose a private directory",
			 shown);
		return NULL;
	}
	if (ancestors_check(dir, err, errlen) < 0)
		return NULL;
	/* O_NONBLOCK: a FIFO planted at the path must not block the start */
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0) {
		e = errno;
		if (e == ENXIO) /* a FIFO without a reader */
			snprintf(err, errlen,
				 "--log %s: not a regular file (a FIFO); choose a regular file",
				 shown);
		else
			snprintf(err, errlen, "--log %s: cannot open (%s); choose a writable file",
				 shown, strerror(e));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))) {
		close(fd);
		snprintf(err, errlen,
			 "--log %s: not a regular file or a device; choose a regular file", shown);
		return NULL;
	}
	if (S_ISREG(st.st_mode) && st.st_uid != geteuid()) {
		close(fd);
		snprintf(err, errlen,
			 "--log %s: the file belongs to another user (uid %ld), not appending to "
			 "it; choose another name",
			 shown, (long)st.st_uid);
		return NULL;
	}
	fcntl(fd, F_SETFL, O_WRONLY | O_APPEND);
	fp = fdopen(fd, "a");
	if (!fp) {
		e = errno;
		close(fd);
		snprintf(err, errlen, "--log %s: cannot open (%s)", shown, strerror(e));
	}
	return fp;
}

uint64_t kt_unix_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int kt_log_vline(FILE *f, const char *who, const char *fmt, va_list ap)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	errno = 0;
	fprintf(f, "%lld.%06ld %s: ", (long long)ts.tv_sec, ts.tv_nsec / 1000, who);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	if (fflush(f) != 0 || ferror(f)) {
		int e = errno ? errno : EIO;

		clearerr(f);
		return -e;
	}
	return 0;
}

int kt_dir_check(const char *dir, char *err, size_t errlen)
{
	char sp[KT_PATH_SHOWN + 1];
	struct stat st;

	if (stat(dir, &st) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s; create the directory or choose another path", kt_short_path(dir, sp, sizeof(sp)),
			 strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory; choose a directory to write into", kt_short_path(dir, sp, sizeof(sp)));
		return -ENOTDIR;
	}
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		snprintf(err, errlen,
			 "%s: world-writable without the sticky bit, refusing to write there; "
			 "choose a private directory",
			 kt_short_path(dir, sp, sizeof(sp)));
		return -EPERM;
	}
	if (ancestors_check(dir, err, errlen) < 0)
		return -EPERM;
	/* The effective ids: under sudo the file is created as the user (kt_ids_assume). */
	if (faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: not writable (%s); choose a writable directory", kt_short_path(dir, sp, sizeof(sp)),
			 strerror(e));
		return -e;
	}
	return 0;
}

static int dir_of(const char *path, char *dir, size_t len)
{
	char copy[PATH_MAX];

	if (strlen(path) >= sizeof(copy))
		return -ENAMETOOLONG;
	strcpy(copy, path);
	snprintf(dir, len, "%s", dirname(copy));
	return 0;
}

int kt_file_create(const char *path, char *err, size_t errlen)
{
	char sp[KT_PATH_SHOWN + 1];
	char dir[PATH_MAX];
	int fd, r;

	if (dir_of(path, dir, sizeof(dir)) < 0) {
		snprintf(err, errlen, "%s: path too long", kt_short_path(path, sp, sizeof(sp)));
		return -ENAMETOOLONG;
	}
	r = kt_dir_check(dir, err, errlen);
	if (r < 0)
		return r;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = errno;
		if (e == EEXIST)
			snprintf(err, errlen,
				 "%s: already exists, not overwriting it; choose another name",
				 kt_short_path(path, sp, sizeof(sp)));
		else
			snprintf(err, errlen, "%s: cannot create (%s)", kt_short_path(path, sp, sizeof(sp)), strerror(e));
		return -e;
	}
	return fd;
}

int kt_user_groups(long uid, long gid)
{
	struct passwd *pw = getpwuid((uid_t)uid);
	gid_t one = (gid_t)gid, *list;
	int n = 64, r;

	/* the user's own supplementary groups, as a login gives them: a directory shared with
	 * the user's group is writable for them, so it must be for kerntop acting as them */
	if (!pw)
		return setgroups(1, &one);
	for (;;) {
		int got = n;

		list = calloc((size_t)n, sizeof(*list));
		if (!list)
			return -1;
		if (getgrouplist(pw->pw_name, (gid_t)gid, list, &got) >= 0) {
			r = setgroups((size_t)got, list);
			free(list);
			return r;
		}
		free(list);
		if (got <= n || got > 65536)
			return setgroups(1, &one);
		n = got;
	}
}

int kt_ids_assume(long uid, long gid, struct kt_ids *saved, char *err, size_t errlen)
{
	int n, e;

	memset(saved, 0, sizeof(*saved));
	if (uid <= 0)
		return 0;
	saved->euid = geteuid();
	saved->egid = getegid();
	n = getgroups(0, NULL);
	saved->groups = calloc(n > 0 ? (size_t)n : 1, sizeof(gid_t));
	if (n < 0 || !saved->groups || (saved->ngroups = getgroups(n, saved->groups)) < 0) {
		free(saved->groups);
		saved->groups = NULL;
		snprintf(err, errlen, "cannot read the process's groups");
		return -ENOMEM;
	}
	saved->active = 1;
	if (kt_user_groups(uid, gid) < 0 || setegid((gid_t)gid) < 0 || seteuid((uid_t)uid) < 0) {
		e = errno;
		kt_ids_restore(saved);
		snprintf(err, errlen, "cannot act as user %ld, group %ld (%s)", uid, gid,
			 strerror(e));
		return -e;
	}
	return 0;
}

int kt_ids_restore(struct kt_ids *saved)
{
	int r = 0;

	if (!saved->active)
		return 0;
	/* euid first: setting the groups and egid back needs root again. */
	if (seteuid(saved->euid) < 0 || setegid(saved->egid) < 0 ||
	    setgroups((size_t)saved->ngroups, saved->groups) < 0)
		r = -errno;
	free(saved->groups);
	saved->groups = NULL;
	saved->active = 0;
	return r;
}

int kt_atomic_open(struct kt_atomic *a, const char *path, char *err, size_t errlen)
{
	char sp[KT_PATH_SHOWN + 1];
	struct stat st;
	char dir[PATH_MAX];
	int fd, r;

	memset(a, 0, sizeof(*a));
	if (strlen(path) >= sizeof(a->path) || dir_of(path, dir, sizeof(dir)) < 0) {
		snprintf(err, errlen, "%s: path too long", kt_short_path(path, sp, sizeof(sp)));
		return -ENAMETOOLONG;
	}
	/* lstat: a dangling symlink is a taken name too, refused now rather than at the end. */
	if (lstat(path, &st) == 0) {
		snprintf(err, errlen, "%s: already exists, not overwriting it; choose another name",
			 kt_short_path(path, sp, sizeof(sp)));
		return -EEXIST;
	}
	strcpy(a->path, path);
	r = kt_dir_check(dir, err, errlen);
	if (r < 0)
		return r;
	for (int i = 0; i < 100; i++) {
		if (snprintf(a->tmp, sizeof(a->tmp), "%s/.kerntop-%ld-%d.tmp", dir, (long)getpid(),
			     i) >= (int)sizeof(a->tmp)) {
			snprintf(err, errlen, "%s: path too long", kt_short_path(path, sp, sizeof(sp)));
			a->tmp[0] = 0;
			return -ENAMETOOLONG;
		}
		fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			break;
		if (errno != EEXIST) {
			int e = errno;
			snprintf(err, errlen, "%s: cannot create a file there (%s)", dir,
				 strerror(e));
			a->tmp[0] = 0;
			return -e;
		}
	}
	if (fd < 0) {
		snprintf(err, errlen, "%s: too many stale kerntop temp files", dir);
		a->tmp[0] = 0;
		return -EEXIST;
	}
	a->fp = fdopen(fd, "w");
	if (!a->fp) {
		int e = errno;
		close(fd);
		unlink(a->tmp);
		a->tmp[0] = 0;
		snprintf(err, errlen, "%s: %s", kt_short_path(path, sp, sizeof(sp)), strerror(e));
		return -e;
	}
	return 0;
}

int kt_atomic_commit(struct kt_atomic *a, char *err, size_t errlen)
{
	int e = 0;

	if (!a->fp)
		return -EBADF;
	if (fflush(a->fp) != 0 || ferror(a->fp))
		e = errno ? errno : EIO;
	else if (fsync(fileno(a->fp)) < 0)
		e = errno;
	if (fclose(a->fp) != 0 && !e)
		e = errno;
	a->fp = NULL;
	if (!e && link(a->tmp, a->path) < 0) {
		/* Complete and synced, only the name is refused (taken while we ran): keep the
		 * data under the temporary name rather than discard hours of reports. */
		e = errno;
		if (e == EEXIST)
			snprintf(err, errlen,
				 "%s: created by someone else while kerntop ran, not overwriting "
				 "it; the "
				 "reports are kept in %s: rename it",
				 a->path, a->tmp);
		else
			snprintf(err, errlen, "%s: cannot publish (%s); the reports are kept in %s",
				 a->path, strerror(e), a->tmp);
		a->tmp[0] = 0;
		return -e;
	}
	unlink(a->tmp);
	a->tmp[0] = 0;
	if (e) {
		if (e == EEXIST)
			snprintf(err, errlen,
				 "%s: already exists, not overwriting it; choose another name",
				 a->path);
		else if (e == ENOSPC)
			snprintf(err, errlen,
				 "%s: no space left on the device; free space or write elsewhere",
				 a->path);
		else if (e == EFBIG)
			snprintf(err, errlen,
				 "%s: the file size limit (ulimit -f) is reached; nothing was kept: "
				 "raise the limit or write less",
				 a->path);
		else
			snprintf(err, errlen, "%s: write failed (%s)", a->path, strerror(e));
		return -e;
	}
	return 0;
}

void kt_atomic_abort(struct kt_atomic *a)
{
	if (a->fp)
		fclose(a->fp);
	a->fp = NULL;
	if (a->tmp[0])
		unlink(a->tmp);
	a->tmp[0] = 0;
}

int kt_open_regular(const char *path, char *err, size_t errlen)
{
	char sp[KT_PATH_SHOWN + 1];
	struct stat st;
	int fd, e;

	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: cannot open (%s)", kt_short_path(path, sp, sizeof(sp)),
			 strerror(e));
		return -e;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(fd);
		snprintf(err, errlen, "%s: %s; give a regular file",
			 kt_short_path(path, sp, sizeof(sp)),
			 e == EISDIR ? "a directory" : "not a regular file (a FIFO, pipe or device)");
		return -e;
	}
	fcntl(fd, F_SETFL, O_RDONLY);
	return fd;
}

int kt_read_file(const char *path, size_t max, char **buf, size_t *len, char *err, size_t errlen)
{
	char sp[KT_PATH_SHOWN + 1];
	int fd = kt_open_regular(path, err, errlen);
	size_t cap = 1 << 16, n = 0;
	char *b;

	if (fd < 0)
		return fd;
	b = malloc(cap + 1);
	if (!b) {
		close(fd);
		snprintf(err, errlen, "%s: out of memory", kt_short_path(path, sp, sizeof(sp)));
		return -ENOMEM;
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap >= max) {
				free(b);
				close(fd);
				snprintf(err, errlen, "%s: larger than %zu bytes", kt_short_path(path, sp, sizeof(sp)), max);
				return -EFBIG;
			}
			cap *= 2;
			nb = realloc(b, cap + 1);
			if (!nb) {
				free(b);
				close(fd);
				snprintf(err, errlen, "%s: out of memory", kt_short_path(path, sp, sizeof(sp)));
				return -ENOMEM;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0) {
			int e = errno;
			if (e == EINTR)
				continue;
			free(b);
			close(fd);
			snprintf(err, errlen, "%s: read failed (%s)", kt_short_path(path, sp, sizeof(sp)), strerror(e));
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

int kt_sysroot_path(char *out, size_t len, const char *sysroot, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(out, len, "%s", sysroot ? sysroot : ""), m;

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	m = vsnprintf(out + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	return m < 0 || (size_t)m >= len - (size_t)n ? -ENAMETOOLONG : 0;
}
