/* The kerntoprc settings file: a line-oriented "key = value" parser that skips what it does
 * not understand (a newer kerntop's keys, a typo) instead of failing, the writer, the atomic
 * save and the path rules (XDG, sudo). docs/settings.md describes the format. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kerntop/options.h"
#include "kerntop/settings.h"

/* Bigger is not a settings file: refused rather than read into memory. */
#define SETTINGS_MAX_BYTES (64 * 1024)

static const char *const sort_names[] = {"hits", "name", "rate", "rising"};

const char *kt_settings_sort_name(int sort)
{
	if (sort < 0 || sort >= (int)(sizeof(sort_names) / sizeof(sort_names[0])))
		return NULL;
	return sort_names[sort];
}

static int parse_bool(const char *v, int *out)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(v, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(v, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

static int parse_secs(const char *v, double min, double max, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(d) || d < min || d > max)
		return -1;
	*out = d;
	return 0;
}

/* Column titles: printable, no '=' or '#', commas between them. */
static int parse_hidden(const char *v, char *out, size_t len)
{
	if (strlen(v) >= len)
		return -1;
	for (const char *p = v; *p; p++)
		if (*p < 32 || *p > 126 || *p == '#')
			return -1;
	memcpy(out, v, strlen(v) + 1);
	return 0;
}

/* One "key = value" (both trimmed). Returns 0, or -1 with why in *why. */
static int set_key(struct kt_settings *s, const char *key, const char *val, const char **why)
{
	int b;

	*why = "bad value";
	if (!strcmp(key, "sort")) {
		for (int i = 0; kt_settings_sort_name(i); i++)
			if (!strcmp(val, kt_settings_sort_name(i))) {
				s->sort = i;
				s->set |= KT_SET_SORT;
				return 0;
			}
		*why = "bad value (hits, name or rate)";
		return -1;
	}
	if (!strcmp(key, "hidden_columns")) {
		if (parse_hidden(val, s->hidden, sizeof(s->hidden)) < 0)
			return -1;
		s->set |= KT_SET_HIDDEN;
		return 0;
	}
	if (!strcmp(key, "window")) {
		if (parse_secs(val, KT_SETTINGS_WINDOW_MIN, KT_SETTINGS_WINDOW_MAX, &s->window_s) <
		    0) {
			*why = "bad value (seconds from 0.1 to 86400)";
			return -1;
		}
		s->set |= KT_SET_WINDOW;
		return 0;
	}
	if (!strcmp(key, "delay")) {
		if (parse_secs(val, KT_SETTINGS_DELAY_MIN, KT_SETTINGS_DELAY_MAX, &s->delay_s) <
		    0) {
			*why = "bad value (seconds from 0.05 to 3600)";
			return -1;
		}
		s->set |= KT_SET_DELAY;
		return 0;
	}
	{
		static const struct {
			const char *key;
			size_t off;
			unsigned bit;
		} bools[] = {
		    {"sort_reverse", offsetof(struct kt_settings, reverse), KT_SET_REVERSE},
		    {"per_cpu", offsetof(struct kt_settings, per_cpu), KT_SET_PER_CPU},
		    {"cumulative", offsetof(struct kt_settings, cumulative), KT_SET_CUMULATIVE},
		    {"show_idle", offsetof(struct kt_settings, show_idle), KT_SET_SHOW_IDLE},
		    {"color", offsetof(struct kt_settings, color), KT_SET_COLOR},
		    {"irq_owner", offsetof(struct kt_settings, irq_owner), KT_SET_IRQ_OWNER},
		};

		for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
			if (strcmp(key, bools[i].key))
				continue;
			if (parse_bool(val, &b) < 0) {
				*why = "bad value (yes or no)";
				return -1;
			}
			*(int *)(void *)((char *)s + bools[i].off) = b;
			s->set |= bools[i].bit;
			return 0;
		}
	}
	*why = "unknown key";
	return -1;
}

static char *trim(char *p)
{
	char *e;

	while (*p == ' ' || *p == '\t')
		p++;
	e = p + strlen(p);
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return p;
}

int kt_settings_parse(const char *text, size_t len, struct kt_settings *s, char *notice,
		      size_t nlen)
{
	size_t pos = 0;
	int lineno = 0, skipped = 0, first = 0;
	char first_why[64] = "", first_key[40] = "";

	memset(s, 0, sizeof(*s));
	if (nlen)
		notice[0] = 0;
	while (pos < len) {
		char line[512], *key, *eq;
		size_t n = 0;
		const char *why = NULL;

		lineno++;
		/* a line longer than the buffer is cut: its tail never parses as another line */
		while (pos < len && text[pos] != '\n') {
			if (!text[pos])
				why = "not text (a NUL byte)";
			else if (n + 1 < sizeof(line))
				line[n++] = text[pos];
			else
				why = "line too long";
			pos++;
		}
		pos++;
		line[n] = 0;
		key = trim(line);
		if (!why && (!*key || *key == '#'))
			continue;
		eq = strchr(key, '=');
		if (!why && !eq)
			why = "not key = value";
		if (!why) {
			const char *val;

			*eq = 0;
			val = trim(eq + 1);
			key = trim(key);
			if (set_key(s, key, val, &why) == 0)
				continue;
		}
		if (!skipped++) {
			first = lineno;
			snprintf(first_why, sizeof(first_why), "%s", why);
			snprintf(first_key, sizeof(first_key), "%s", eq ? key : "");
		}
	}
	if (skipped && nlen) {
		char more[48] = "";

		if (skipped > 1)
			snprintf(more, sizeof(more), " (%d lines skipped in all)", skipped);
		snprintf(notice, nlen, "line %d%s%s%s: %s, skipped%s", first,
			 first_key[0] ? " ('" : "", first_key, first_key[0] ? "')" : "", first_why,
			 more);
	}
	return skipped;
}

int kt_settings_load(const char *path, struct kt_settings *s, char *notice, size_t nlen)
{
	char *buf;
	size_t len;
	char err[KT_ERRLEN];
	int r, fd;
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (nlen)
		notice[0] = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		snprintf(notice, nlen, "%s: cannot read (%s); settings not loaded", path,
			 strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SETTINGS_MAX_BYTES) {
		close(fd);
		snprintf(notice, nlen,
			 "%s: not a regular file of at most 64 KiB; settings not loaded", path);
		return -EINVAL;
	}
	close(fd);
	r = kt_read_file(path, SETTINGS_MAX_BYTES, &buf, &len, err, sizeof(err));
	if (r < 0) {
		snprintf(notice, nlen, "%s; settings not loaded", err);
		return r;
	}
	{
		char why[KT_ERRLEN];

		r = kt_settings_parse(buf, len, s, why, sizeof(why));
		if (r > 0)
			snprintf(notice, nlen, "%s %s", path, why);
	}
	free(buf);
	return r;
}

static const char *yes_no(int b)
{
	return b ? "yes" : "no";
}

int kt_settings_format(const struct kt_settings *s, char *buf, size_t len)
{
	const char *sort = kt_settings_sort_name(s->sort);
	int n = snprintf(buf, len,
			 "# kerntop settings, written by the O key of the viewer (%s %s).\n"
			 "# One key = value a line; command-line options win; kerntop --no-config\n"
			 "# ignores this file. Format: docs/settings.md, kerntop(1) FILES.\n"
			 "sort = %s\n"
			 "sort_reverse = %s\n"
			 "hidden_columns = %s\n"
			 "per_cpu = %s\n"
			 "window = %g\n"
			 "cumulative = %s\n"
			 "delay = %g\n"
			 "show_idle = %s\n"
			 "color = %s\n"
			 "irq_owner = %s\n",
			 PACKAGE_NAME, PACKAGE_VERSION, sort ? sort : "hits", yes_no(s->reverse),
			 s->hidden, yes_no(s->per_cpu), s->window_s, yes_no(s->cumulative),
			 s->delay_s, yes_no(s->show_idle), yes_no(s->color), yes_no(s->irq_owner));

	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	return n;
}

/* Creates every missing directory of dir (mode 0700, as XDG asks for its base directories). */
static int make_dirs(const char *dir, char *err, size_t errlen)
{
	char p[PATH_MAX];
	size_t n = strlen(dir);

	if (n >= sizeof(p)) {
		snprintf(err, errlen, "%s: path too long", dir);
		return -ENAMETOOLONG;
	}
	memcpy(p, dir, n + 1);
	for (char *c = p + 1;; c++) {
		if (*c != '/' && *c)
			continue;
		char was = *c;

		*c = 0;
		if (mkdir(p, 0700) < 0 && errno != EEXIST) {
			int e = errno;

			snprintf(err, errlen,
				 "cannot create %s (%s); create it or set XDG_CONFIG_HOME", p,
				 strerror(e));
			return -e;
		}
		*c = was;
		if (!was)
			return 0;
	}
}

int kt_settings_save(const char *path, const struct kt_settings *s, char *err, size_t errlen)
{
	char text[1024], dir[PATH_MAX], tmp[PATH_MAX + 16];
	const char *slash = strrchr(path, '/');
	int len = kt_settings_format(s, text, sizeof(text)), fd, r, e;
	ssize_t w;

	if (len < 0 || !slash || (size_t)(slash - path) >= sizeof(dir)) {
		snprintf(err, errlen, "%s: cannot write settings there", path);
		return -EINVAL;
	}
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = 0;
	r = make_dirs(dir[0] ? dir : "/", err, errlen);
	if (r < 0)
		return r;
	/* the temp name is ours alone (O_EXCL); a crash leaves it beside the file, never a part
	 * of the file itself */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "cannot write %s (%s); check the directory's permissions",
			 tmp, strerror(e));
		return -e;
	}
	w = write(fd, text, (size_t)len);
	e = w < 0 ? errno : ENOSPC;
	if (w != len || fchmod(fd, 0600) < 0 || fsync(fd) < 0) {
		if (w == len)
			e = errno;
		close(fd);
		unlink(tmp);
		snprintf(err, errlen, "cannot write %s (%s); settings not saved", tmp, strerror(e));
		return -e;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		e = errno;
		unlink(tmp);
		snprintf(err, errlen, "cannot replace %s (%s); settings not saved", path,
			 strerror(e));
		return -e;
	}
	return 0;
}

static long parse_id(const char *v)
{
	char *end;
	long id;

	if (!v || !*v)
		return -1;
	errno = 0;
	id = strtol(v, &end, 10);
	return errno || *end || id < 0 ? -1 : id;
}

int kt_settings_locate(const struct kt_settings_where *w, char *path, size_t len, long *uid,
		       long *gid, char *err, size_t errlen)
{
	long su = parse_id(w->sudo_uid), sg = parse_id(w->sudo_gid);
	const char *home = w->home, *xdg = w->xdg && w->xdg[0] == '/' ? w->xdg : NULL;
	int n;

	*uid = *gid = -1;
	/* sudo from a user (not from root): that user's file, written as that user */
	if (w->euid == 0 && su > 0 && sg >= 0) {
		*uid = su;
		*gid = sg;
		home = w->home_of ? w->home_of(su) : NULL;
		/* sudo may keep the user's XDG_CONFIG_HOME, or carry root's: only the user's counts
		 */
		if (xdg && (!w->owner_of || w->owner_of(xdg) != su))
			xdg = NULL;
	}
	if (!xdg && (!home || home[0] != '/')) {
		snprintf(err, errlen,
			 "no home directory to keep settings in; set HOME or XDG_CONFIG_HOME");
		return -ENOENT;
	}
	if (xdg)
		n = snprintf(path, len, "%s/kerntop/kerntoprc", xdg);
	else
		n = snprintf(path, len, "%s%s.config/kerntop/kerntoprc", home,
			     home[strlen(home) - 1] == '/' ? "" : "/");
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "the settings path is too long; set XDG_CONFIG_HOME");
		return -ENAMETOOLONG;
	}
	return 0;
}

static const char *passwd_home(long uid)
{
	struct passwd *pw = getpwuid((uid_t)uid);

	return pw ? pw->pw_dir : NULL;
}

static long dir_owner(const char *dir)
{
	struct stat st;

	return stat(dir, &st) < 0 ? -1 : (long)st.st_uid;
}

int kt_settings_default_path(char *path, size_t len, long *uid, long *gid, char *err, size_t errlen)
{
	struct kt_settings_where w = {
	    .euid = (long)geteuid(),
	    .sudo_uid = getenv("SUDO_UID"),
	    .sudo_gid = getenv("SUDO_GID"),
	    .xdg = getenv("XDG_CONFIG_HOME"),
	    .home = getenv("HOME"),
	    .home_of = passwd_home,
	    .owner_of = dir_owner,
	};

	if (!w.home || !*w.home)
		w.home = passwd_home((long)getuid());
	return kt_settings_locate(&w, path, len, uid, gid, err, errlen);
}

void kt_settings_ctx_init(struct kt_settings_ctx *c, int read)
{
	memset(c, 0, sizeof(*c));
	if (kt_settings_default_path(c->path, sizeof(c->path), &c->uid, &c->gid, c->err,
				     sizeof(c->err)) < 0) {
		c->path[0] = 0;
		return;
	}
	if (read)
		kt_settings_load(c->path, &c->s, c->notice, sizeof(c->notice));
}

void kt_settings_apply(const struct kt_settings *s, struct kt_options *o)
{
	if (!o->window_given) {
		if (s->set & KT_SET_WINDOW)
			o->window_s = s->window_s;
		if ((s->set & KT_SET_CUMULATIVE) && !o->cumulative)
			o->cumulative = s->cumulative;
	}
	if ((s->set & KT_SET_DELAY) && !o->delay_given)
		o->delay_s = s->delay_s;
	if (s->set & KT_SET_COLOR)
		o->color = o->color && s->color;
}
