/* Saved viewer settings, htop-style: the kerntoprc file (docs/settings.md) parsed into a plain
 * struct, written back atomically, and its path found (the invoking user's under sudo). Owns
 * nothing but the struct; never prints: a skipped line becomes one notice for the caller.
 * Used by main.c (window, delay, colour) and the ui layer (the rest, and the O key). */
#ifndef KERNTOP_SETTINGS_H
#define KERNTOP_SETTINGS_H

#include <limits.h>
#include <stddef.h>

#include "kerntop/util.h"

struct kt_options;

/* Which fields the file gave (struct kt_settings.set). */
enum {
	KT_SET_SORT = 1 << 0,
	KT_SET_REVERSE = 1 << 1,
	KT_SET_HIDDEN = 1 << 2,
	KT_SET_PER_CPU = 1 << 3,
	KT_SET_WINDOW = 1 << 4,
	KT_SET_CUMULATIVE = 1 << 5,
	KT_SET_DELAY = 1 << 6,
	KT_SET_SHOW_IDLE = 1 << 7,
	KT_SET_COLOR = 1 << 8,
	KT_SET_IRQ_OWNER = 1 << 9,
};

/* Longest hidden_columns value: column titles, comma-separated. */
#define KT_SETTINGS_HIDDEN_LEN 160

struct kt_settings {
	unsigned set;			     /* KT_SET_* of the fields below that hold a value */
	int sort;			     /* enum kt_sort: 0 hits, 1 name, 2 rate */
	int reverse;			     /* the sort order reversed (r) */
	char hidden[KT_SETTINGS_HIDDEN_LEN]; /* hidden column titles, "CPU ms,Hits/s" */
	int per_cpu;			     /* per-CPU hit columns (p) */
	double window_s;		     /* rolling window length (-w, + and -) */
	int cumulative;			     /* counting since start (z) */
	double delay_s;			     /* refresh delay (-d, d) */
	int show_idle;			     /* idle hits shown (i) */
	int color;			     /* 0: monochrome */
	int irq_owner;			     /* --irq-owner charging (o) */
};

/* The value ranges, shared with the command line's. */
#define KT_SETTINGS_WINDOW_MIN 0.1
#define KT_SETTINGS_WINDOW_MAX 86400.0
#define KT_SETTINGS_DELAY_MIN 0.05
#define KT_SETTINGS_DELAY_MAX 3600.0

/* "hits", "name", "rate" for an enum kt_sort; NULL for another value. */
const char *kt_settings_sort_name(int sort);

/* Parses the file's text (len bytes, need not be NUL-terminated) into *s (s->set says what
 * was given). Returns how many lines were skipped (unknown key, bad value, not key = value);
 * when any were, notice gets one line naming the first and the count of the others. */
int kt_settings_parse(const char *text, size_t len, struct kt_settings *s, char *notice,
		      size_t nlen);

/* Reads path and parses it. A missing file is no error (0, s->set == 0). Returns the number of
 * skipped lines (notice filled as above), or -errno with a message in notice when the file
 * exists but cannot be read. */
int kt_settings_load(const char *path, struct kt_settings *s, char *notice, size_t nlen);

/* The file's text for *s (every field, whatever s->set says), with a header comment. Returns
 * its length, or -ENOSPC when len is too small. */
int kt_settings_format(const struct kt_settings *s, char *buf, size_t len);

/* Writes *s to path atomically: creates the directories missing on the way (mode 0700), writes
 * a temp file (mode 0600) next to path, fsyncs it and renames it over path, so a reader sees
 * the old file or the new one, never a part. Returns 0 or -errno with a message in err. */
int kt_settings_save(const char *path, const struct kt_settings *s, char *err, size_t errlen);

/* Where the file lives, and whose it is. */
struct kt_settings_where {
	long euid;	      /* the process's effective uid */
	const char *sudo_uid; /* $SUDO_UID, or NULL */
	const char *sudo_gid; /* $SUDO_GID, or NULL */
	const char *xdg;      /* $XDG_CONFIG_HOME, or NULL */
	const char *home;     /* $HOME, or NULL */
	/* the home directory of uid (getpwuid's pw_dir), NULL when unknown */
	const char *(*home_of)(long uid);
	/* the owner of an existing directory, -1 when it does not exist (stat's st_uid) */
	long (*owner_of)(const char *dir);
};

/* Fills path with $XDG_CONFIG_HOME/kerntop/kerntoprc (~/.config when XDG_CONFIG_HOME is unset or
 * not absolute). Under sudo (euid 0 with SUDO_UID set) it is the invoking user's file: that
 * user's home, or XDG_CONFIG_HOME only when that directory is the user's; *uid and *gid are then
 * the ids to write it as (otherwise -1). Returns 0, or -ENOENT with a message in err when no
 * home is known. */
int kt_settings_locate(const struct kt_settings_where *w, char *path, size_t len, long *uid,
		       long *gid, char *err, size_t errlen);

/* kt_settings_locate for this process (its environment, getpwuid, stat). */
int kt_settings_default_path(char *path, size_t len, long *uid, long *gid, char *err,
			     size_t errlen);

/* The file as a run of the viewer uses it: where it is, whom to write it as, what it held. */
struct kt_settings_ctx {
	char path[PATH_MAX]; /* "" when no home is known; err says why */
	char err[KT_ERRLEN];
	long uid, gid;		/* write it as these ids (sudo), -1: as the process */
	struct kt_settings s;	/* what the file gave (s.set == 0: nothing, or not read) */
	char notice[KT_ERRLEN]; /* skipped lines or a read error: one status-line notice */
};

/* Finds the file for this process and, when read is set, loads it into c->s. Never fails:
 * problems end up in c->err (no path) or c->notice (lines skipped, unreadable file). */
void kt_settings_ctx_init(struct kt_settings_ctx *c, int read);

/* Applies the file's window, delay and colour to options not given on the command line:
 * -w wins over window and cumulative, --cumulative over cumulative, -d over delay, and
 * --no-color or NO_COLOR over color = yes. */
void kt_settings_apply(const struct kt_settings *s, struct kt_options *o);

#endif
