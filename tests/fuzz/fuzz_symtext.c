/* Fuzz target of annotate's kernel text reader (symbols_text.c): the input is written as
 * <root>/proc/kcore and as the --module-dir file fakemod.ko of a small fixed kallsyms and
 * modules context, then the text of every function is read: from the kcore (an ELF core's
 * PT_LOAD segments), and from the .ko (its sections placed at the module base). Any bytes
 * must give text or a message, never a crash or a read outside the file. */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kerntop/symbols.h"
#include "fuzz_targets.h"

static const char text_kallsyms[] = "ffffffff81000000 T _text\n"
				    "ffffffff81000000 T _stext\n"
				    "ffffffff81000100 T do_work\n"
				    "ffffffff81000300 t do_more\n"
				    "ffffffff81001000 T _etext\n"
				    "ffffffffc0001000 t fake_mod_init\t[fakemod]\n"
				    "ffffffffc0001080 t fake_mod_xmit\t[fakemod]\n";

static const char text_modules[] = "fakemod 16384 0 - Live 0xffffffffc0001000\n";

static char root[PATH_MAX];
static volatile uint64_t sink;

/* One private directory per process (the corpus driver forks per file), removed at exit,
 * or by the driver's child before its _exit (which runs no atexit handler). */
void kt_fuzz_text_done(void)
{
	char p[PATH_MAX + 32];

	if (!root[0])
		return;
	snprintf(p, sizeof(p), "%s/proc/kcore", root);
	unlink(p);
	snprintf(p, sizeof(p), "%s/mods/fakemod.ko", root);
	unlink(p);
	snprintf(p, sizeof(p), "%s/proc", root);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/mods", root);
	rmdir(p);
	rmdir(root);
	root[0] = 0;
}

static int put(const char *rel, const uint8_t *data, size_t size)
{
	char p[PATH_MAX + 32];
	int fd, ok;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	ok = size == 0 || write(fd, data, size) == (ssize_t)size;
	close(fd);
	return ok ? 0 : -1;
}

int kt_fuzz_text(const uint8_t *data, size_t size)
{
	struct kt_sym_opts o = {.kallsyms_buf = text_kallsyms,
				.kallsyms_len = sizeof(text_kallsyms) - 1,
				.modules_buf = text_modules,
				.modules_len = sizeof(text_modules) - 1,
				.text_live = 1};
	char err[512], dir[PATH_MAX + 8];
	static uint8_t buf[4096];
	struct kt_symbols *s = NULL;
	int accepted = 0;

	if (!root[0]) {
		char p[PATH_MAX + 8];

		snprintf(root, sizeof(root), "%s/kerntop-fuzz-text.XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(root))
			return 0;
		atexit(kt_fuzz_text_done);
		snprintf(p, sizeof(p), "%s/proc", root);
		mkdir(p, 0700);
		snprintf(p, sizeof(p), "%s/mods", root);
		mkdir(p, 0700);
	}
	if (put("proc/kcore", data, size) < 0 || put("mods/fakemod.ko", data, size) < 0)
		return 0;
	snprintf(dir, sizeof(dir), "%s/mods", root);
	o.sysroot = root;
	o.module_dir = dir;
	if (kt_sym_new(&o, &s, err, sizeof(err)) < 0)
		return 0;
	for (uint32_t f = 0; f < kt_sym_nfuncs(s) && f < 64; f++) {
		const struct kt_sym_func *fn = kt_sym_func(s, f);
		uint64_t start = fn->start;
		size_t len = fn->size < sizeof(buf) ? (size_t)fn->size : sizeof(buf);
		int src, r;

		if (!len || fn->module == KT_MOD_USER || fn->module == KT_MOD_UNKNOWN)
			continue;
		err[0] = 0;
		r = kt_sym_text(s, start, &len, buf, &src, err, sizeof(err));
		if (r == 0) {
			if (src == KT_TEXT_NONE || len == 0 || len > sizeof(buf))
				__builtin_trap();
			for (size_t i = 0; i < len; i++)
				sink += buf[i];
			accepted = 1;
		} else if (!err[0]) {
			__builtin_trap(); /* a refusal always says why */
		}
	}
	kt_sym_free(s);
	return accepted;
}
