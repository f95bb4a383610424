/* The kerntoprc parser, writer, atomic save and path rules (src/settings.c): exact fields from
 * hand-written files, malformed and unknown lines skipped with one notice, a round trip, mode
 * 0600, no partial file, and the sudo and XDG path cases with fake passwd and stat lookups. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kerntop/settings.h"
#include "tap.h"

static int parse(const char *text, struct kt_settings *s, char *notice, size_t nlen)
{
	return kt_settings_parse(text, strlen(text), s, notice, nlen);
}

static void test_parse_all(void)
{
	struct kt_settings s;
	char notice[256];
	int r = parse("# a comment\n"
		      "\n"
		      "sort = rate\n"
		      "sort_reverse=yes\n"
		      "  hidden_columns =  CPU ms,Hits/s  \n"
		      "per_cpu = on\n"
		      "window = 30\n"
		      "cumulative = no\n"
		      "delay = 2.5\r\n"
		      "show_idle = false\n"
		      "color = 0\n"
		      "irq_owner = yes\n",
		      &s, notice, sizeof(notice));

	is_int(r, 0, "a complete file: nothing skipped");
	is_str(notice, "", "and no notice");
	is_int(s.set,
	       KT_SET_SORT | KT_SET_REVERSE | KT_SET_HIDDEN | KT_SET_PER_CPU | KT_SET_WINDOW |
		   KT_SET_CUMULATIVE | KT_SET_DELAY | KT_SET_SHOW_IDLE | KT_SET_COLOR |
		   KT_SET_IRQ_OWNER,
	       "every field marked as given");
	is_int(s.sort, 2, "sort = rate");
	is_int(s.reverse, 1, "sort_reverse = yes");
	is_str(s.hidden, "CPU ms,Hits/s", "hidden_columns trimmed, inner space kept");
	is_int(s.per_cpu, 1, "per_cpu = on");
	is_double(s.window_s, 30.0, 1e-9, "window = 30");
	is_int(s.cumulative, 0, "cumulative = no");
	is_double(s.delay_s, 2.5, 1e-9, "delay = 2.5 (CRLF line end)");
	is_int(s.show_idle, 0, "show_idle = false");
	is_int(s.color, 0, "color = 0");
	is_int(s.irq_owner, 1, "irq_owner = yes");
}

static void test_parse_bad(void)
{
	struct kt_settings s;
	char notice[256];
	int r;

	r = parse("sort = hits\nfrobnicate = 3\nwindow = 20\n", &s, notice, sizeof(notice));
	is_int(r, 1, "an unknown key is skipped");
	is_str(notice, "line 2 ('frobnicate'): unknown key, skipped", "with one notice naming it");
	is_int(s.set, KT_SET_SORT | KT_SET_WINDOW, "the other lines still count");
	is_double(s.window_s, 20.0, 1e-9, "window after the bad line");

	r = parse("window = 0.01\n"	    /* below the range */
		  "delay = fast\n"	    /* not a number */
		  "this is not a setting\n" /* no = */
		  "sort = size\n"	    /* no such sort */
		  "per_cpu = maybe\n"	    /* not a boolean */
		  "=\n"			    /* empty key */
		  "window = 1e999\n"	    /* overflow */
		  "delay = nan\n"	    /* not finite */
		  "color = yes\n",
		  &s, notice, sizeof(notice));
	is_int(r, 8, "eight malformed lines skipped");
	is_str(notice,
	       "line 1 ('window'): bad value (seconds from 0.1 to 86400), skipped (8 lines skipped "
	       "in all)",
	       "one notice: the first line, and the count");
	is_int(s.set, KT_SET_COLOR, "only the good line counts");
	is_int(s.color, 1, "color = yes");

	parse("this is not a setting\n", &s, notice, sizeof(notice));
	is_str(notice, "line 1: not key = value, skipped", "a line without = says so");

	/* a NUL byte, a line longer than the buffer, and no final newline */
	{
		char text[1200];
		size_t n = 0;

		memcpy(text, "sort = name\n", 12);
		n = 12;
		memset(text + n, 'x', 700);
		n += 700;
		memcpy(text + n, " = 1\nshow_idle = yes\0\ncolor = no", 32);
		n += 32;
		r = kt_settings_parse(text, n, &s, notice, sizeof(notice));
		is_int(r, 2, "a 700-byte line and a line with a NUL are skipped");
		is_int(s.set, KT_SET_SORT | KT_SET_COLOR, "the lines around them count");
		is_int(s.sort, 1, "sort = name");
		is_int(s.color, 0, "last line without a newline");
	}

	r = parse("", &s, notice, sizeof(notice));
	is_int(r + (int)s.set, 0, "an empty file: nothing set, nothing skipped");
}

static void test_round_trip(const char *dir)
{
	struct kt_settings a = {0}, b;
	char path[512], notice[256], text[1024];
	struct stat st;
	int r;

	a.sort = 1;
	a.reverse = 1;
	snprintf(a.hidden, sizeof(a.hidden), "%%Machine");
	a.per_cpu = 1;
	a.window_s = 0.5;
	a.cumulative = 1;
	a.delay_s = 0.25;
	a.show_idle = 0;
	a.color = 1;
	a.irq_owner = 1;
	snprintf(path, sizeof(path), "%s/cfg/kerntop/kerntoprc", dir);
	r = kt_settings_save(path, &a, notice, sizeof(notice));
	is_int(r, 0, "save into directories that do not exist yet");
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600, "the file is mode 0600");
	snprintf(text, sizeof(text), "%s/cfg/kerntop", dir);
	ok(stat(text, &st) == 0 && (st.st_mode & 07777) == 0700, "its new directory is mode 0700");
	r = kt_settings_load(path, &b, notice, sizeof(notice));
	is_int(r, 0, "the written file loads without a skipped line");
	is_int(b.set, 0x3ff, "with every field");
	ok(b.sort == 1 && b.reverse == 1 && !strcmp(b.hidden, "%Machine") && b.per_cpu == 1 &&
	       b.window_s == 0.5 && b.cumulative == 1 && b.delay_s == 0.25 && b.show_idle == 0 &&
	       b.color == 1 && b.irq_owner == 1,
	   "the same values back");

	/* saving again replaces the file in one rename: same content, no temp file left */
	a.sort = 2;
	chmod(path, 0644);
	r = kt_settings_save(path, &a, notice, sizeof(notice));
	is_int(r, 0, "save over an existing file");
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600, "mode 0600 again");
	kt_settings_load(path, &b, notice, sizeof(notice));
	is_int(b.sort, 2, "the new value");
	{
		DIR *d = opendir(text);
		struct dirent *e;
		int others = 0;

		while (d && (e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			    strcmp(e->d_name, "kerntoprc"))
				others++;
		if (d)
			closedir(d);
		is_int(others, 0, "no temp file left beside it");
	}

	/* a failed save leaves the old file whole: the directory made read-only (root would
	 * still write, so this only runs as another user) */
	kt_settings_format(&a, text, sizeof(text));
	r = kt_settings_load(dir, &b, notice, sizeof(notice));
	ok(r < 0 && strstr(notice, "not a regular file"), "a directory is not loaded as settings");
	snprintf(text, sizeof(text), "%s/missing/kerntoprc", dir);
	r = kt_settings_load(text, &b, notice, sizeof(notice));
	is_int(r + (int)b.set, 0, "a missing file is no error and sets nothing");
	snprintf(text, sizeof(text), "%s/file", dir);
	fclose(fopen(text, "w"));
	snprintf(path, sizeof(path), "%s/file/kerntop/kerntoprc", dir);
	r = kt_settings_save(path, &a, notice, sizeof(notice));
	ok(r == -ENOTDIR && strstr(notice, "cannot create"),
	   "a file where a directory should be: -ENOTDIR, named in the message");
}

/* The settings text is never half written: kt_settings_format fills the whole file or fails. */
static void test_format(void)
{
	struct kt_settings a = {0};
	char small[64], text[1024];
	int n;

	a.window_s = 10;
	a.delay_s = 1;
	a.show_idle = 1;
	a.color = 1;
	is_int(kt_settings_format(&a, small, sizeof(small)), -ENOSPC,
	       "too small a buffer: -ENOSPC");
	n = kt_settings_format(&a, text, sizeof(text));
	ok(n > 0 && strstr(text, "\nsort = hits\nsort_reverse = no\nhidden_columns = \nper_cpu = "
				 "no\nwindow = 10\ncumulative = no\ndelay = 1\nshow_idle = "
				 "yes\ncolor = yes\nirq_owner = no\n"),
	   "the defaults as written");
}

static const char *fake_home(long uid)
{
	return uid == 1000 ? "/home/alice" : uid == 0 ? "/root" : NULL;
}

static long fake_owner(const char *dir)
{
	return !strcmp(dir, "/home/alice/xdg") ? 1000 : !strcmp(dir, "/root/.xdg") ? 0 : -1;
}

static void test_locate(void)
{
	struct kt_settings_where w = {.home_of = fake_home, .owner_of = fake_owner};
	char path[256], err[256];
	long uid, gid;
	int r;

	w.euid = 1000;
	w.home = "/home/alice";
	r = kt_settings_locate(&w, path, sizeof(path), &uid, &gid, err, sizeof(err));
	is_str(path, "/home/alice/.config/kerntop/kerntoprc",
	       "a user: ~/.config/kerntop/kerntoprc");
	ok(r == 0 && uid == -1 && gid == -1, "written as the process itself");
	w.xdg = "/home/alice/xdg";
	kt_settings_locate(&w, path, sizeof(path), &uid, &gid, err, sizeof(err));
	is_str(path, "/home/alice/xdg/kerntop/kerntoprc", "XDG_CONFIG_HOME wins over HOME");
	w.xdg = "relative/xdg";
	kt_settings_locate(&w, path, sizeof(path), &uid, &gid, err, sizeof(err));
	is_str(path, "/home/alice/.config/kerntop/kerntoprc",
	       "a relative XDG_CONFIG_HOME is ignored (XDG spec)");

	/* sudo from alice: her file, not root's, written as her */
	w.euid = 0;
	w.home = "/root";
	w.xdg = NULL;
	w.sudo_uid = "1000";
	w.sudo_gid = "1001";
	r = kt_settings_locate(&w, path, sizeof(path), &uid, &gid, err, sizeof(err));
	is_str(path, "/home/alice/.config/kerntop/kerntoprc", "sudo: the invoking user's home");
	ok(r == 0 && uid == 1000 && gid == 1001, "written as SUDO_UID/SUDO_GID");
	w.xdg = "/root/.xdg";
	kt_settings_locate(&w, path, sizeof(path), &uid, &gid, err, sizeof(err));
	is_str(path, "/home/alice/.config/kerntop/kerntoprc",
	       "sudo: root's XDG_CONFIG_HOME is not the user's");
	w.xdg = "/home/alice/xdg";
	kt_settings_locate(&w, path, sizeof(path), &uid, &gid, err, sizeof(err));
	is_str(path, "/home/alice/xdg/kerntop/kerntoprc", "sudo: the user's own XDG_CONFIG_HOME");

	/* sudo from root, or a SUDO_UID that is not a number: root's own file */
	w.xdg = NULL;
	w.sudo_uid = "0";
	r = kt_settings_locate(&w, path, sizeof(path), &uid, &gid, err, sizeof(err));
	ok(r == 0 && !strcmp(path, "/root/.config/kerntop/kerntoprc") && uid == -1,
	   "sudo from root: root's file");
	w.sudo_uid = "12x";
	kt_settings_locate(&w, path, sizeof(path), &uid, &gid, err, sizeof(err));
	is_str(path, "/root/.config/kerntop/kerntoprc", "a malformed SUDO_UID is not trusted");

	/* a sudo user without a passwd entry, and no home at all */
	w.sudo_uid = "4242";
	r = kt_settings_locate(&w, path, sizeof(path), &uid, &gid, err, sizeof(err));
	ok(r == -ENOENT && strstr(err, "set HOME or XDG_CONFIG_HOME"),
	   "no home for the sudo user: -ENOENT with the fix");
	w.euid = 1000;
	w.sudo_uid = NULL;
	w.home = NULL;
	r = kt_settings_locate(&w, path, sizeof(path), &uid, &gid, err, sizeof(err));
	is_int(r, -ENOENT, "no HOME and no XDG_CONFIG_HOME: -ENOENT");
}

int main(void)
{
	char dir[] = "/tmp/kerntop-settings.XXXXXX";
	char cmd[64];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_parse_all();
	test_parse_bad();
	test_format();
	test_round_trip(dir);
	test_locate();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
