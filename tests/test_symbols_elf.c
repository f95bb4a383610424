/* Symbolizer with ELF files compiled here with $CC -g: a fake vmlinux executable (assembly
 * with a fixed layout, relocated as KASLR would) and fake .ko relocatable objects, checking
 * libelf symbols, their precedence over kallsyms, symbol-less ELF fallbacks, and libdwfl
 * source lines with exact file:line. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kerntop/symbols.h"
#include "tap.h"

/* Line numbers below are asserted: keep one instruction per line. */
static const char vmlinux_s[] =
	"/* fake vmlinux for test_symbols_elf: fixed layout, one instruction per line */\n" /* 1 */
	"\t.text\n"                                    /* 2 */
	"\t.globl _stext\n"                            /* 3 */
	"_stext:\n"                                    /* 4 */
	"\t.globl fv_alpha\n"                          /* 5 */
	"\t.type fv_alpha, @function\n"                /* 6 */
	"fv_alpha:\n"                                  /* 7 */
	"\tnop\n"                                      /* 8 */
	"\tnop\n"                                      /* 9 */
	"\tret\n"                                      /* 10 */
	"\t.size fv_alpha, .-fv_alpha\n"               /* 11 */
	"\t.p2align 6\n"                               /* 12 */
	"\t.globl default_idle\n"                      /* 13 */
	"\t.type default_idle, @function\n"            /* 14 */
	"default_idle:\n"                              /* 15 */
	"\thlt\n"                                      /* 16 */
	"\tret\n"                                      /* 17 */
	"\t.size default_idle, .-default_idle\n"       /* 18 */
	"\t.p2align 6\n"                               /* 19 */
	"\t.type fv_beta, @function\n"                 /* 20 */
	"fv_beta:\n"                                   /* 21 */
	"\tpause\n"                                    /* 22 */
	"\tret\n"                                      /* 23 */
	"\t.size fv_beta, .-fv_beta\n"                 /* 24 */
	"\t.p2align 6\n"                               /* 25 */
	"\t.globl _etext\n"                            /* 26 */
	"_etext:\n"                                    /* 27 */
	"\tnop\n";                                     /* 28 */

static const char module_c[] =
	"/* fake module for test_symbols_elf */\n"
	"__attribute__((aligned(64))) int fm_first(int x) { return x + 1; }\n"
	"__attribute__((aligned(64))) int fm_second(int x) { int y = x * 2; return y + fm_first(x); }\n"
	"__attribute__((aligned(64))) static int fm_local(int x) { return x - 1; }\n"
	"int (*fm_keep)(int) = fm_local;\n";

static const char kallsyms[] =
	"ffffffffa0000000 T _stext\n"
	"ffffffffa0000000 T ks_wrong\n"
	"ffffffffa0000040 T ks_wrong2\n"
	"ffffffffa00000c0 T _etext\n"
	"ffffffffc0001000 t ks_mod_name\t[fake_mod]\n"
	"ffffffffc0009000 t ks_kept\t[keepsyms]\n";

static const char modules[] =
	"fake_mod 16384 0 - Live 0xffffffffc0001000\n"
	"nosyms 8192 0 - Live 0xffffffffc0005000\n"
	"keepsyms 4096 0 - Live 0xffffffffc0009000\n"
	"broken 4096 0 - Live 0xffffffffc000b000\n";

static char dir[64], err[512];

static int write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Runs "$CC ARGS" inside the temp dir. */
static int run(const char *args)
{
	char cmd[2048];
	const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";

	snprintf(cmd, sizeof(cmd), "cd '%s' && %s %s", dir, cc, args);
	return system(cmd);
}

static const struct kt_sym_func *func_at(struct kt_symbols *s, uint64_t addr)
{
	return kt_sym_func(s, kt_sym_loc(s, kt_sym_lookup(s, addr))->func);
}

static const char *name_at(struct kt_symbols *s, uint64_t addr)
{
	return func_at(s, addr)->name;
}

static void line_is(struct kt_symbols *s, uint64_t addr, const char *file, int line, const char *what)
{
	const char *f = NULL;
	int l = 0, r = kt_sym_srcline(s, addr, &f, &l);
	char buf[300];

	snprintf(buf, sizeof(buf), "%s: srcline found", what);
	is_int(r, 0, buf);
	snprintf(buf, sizeof(buf), "%s: file", what);
	is_str(f, file, buf);
	snprintf(buf, sizeof(buf), "%s: line", what);
	is_int(l, line, buf);
}

static struct kt_symbols *load(const char *vmlinux, const char *mdir, const char *ranges)
{
	struct kt_sym_opts o = { .kallsyms_buf = kallsyms, .kallsyms_len = sizeof(kallsyms) - 1,
				 .modules_buf = modules, .modules_len = sizeof(modules) - 1,
				 .vmlinux = vmlinux, .module_dir = mdir, .builtin_ranges = ranges };
	struct kt_symbols *s = NULL;

	if (kt_sym_new(&o, &s, err, sizeof(err)) < 0)
		printf("# kt_sym_new: %s\n", err);
	return s;
}

int main(void)
{
	char vmlinux[256], stripped[256], src_s[256], src_c[256], ranges[256], cmd[600];
	struct kt_symbols *s;
	struct kt_sym_stats st;
	const char *f1 = NULL, *f2 = NULL;
	int l1, l2, m;

	strcpy(dir, "/tmp/kt-symelf.XXXXXX");
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	snprintf(vmlinux, sizeof(vmlinux), "%s/vmlinux", dir);
	snprintf(stripped, sizeof(stripped), "%s/vmlinux-stripped", dir);
	snprintf(src_s, sizeof(src_s), "%s/fake_vmlinux.S", dir);
	snprintf(src_c, sizeof(src_c), "%s/fake_mod.c", dir);
	write_file("fake_vmlinux.S", vmlinux_s);
	write_file("fake_mod.c", module_c);
	write_file("empty.c", "/* no functions */\n");
	snprintf(cmd, sizeof(cmd), "-g -c %s -o fake_vmlinux.o", src_s);
	is_int(run(cmd), 0, "assemble the fake vmlinux with -g");
	is_int(run("-nostdlib -static -no-pie -Wl,-e,fv_alpha -Wl,--build-id=none fake_vmlinux.o -o vmlinux"),
	       0, "link it as an executable");
	is_int(run("-s -nostdlib -static -no-pie -Wl,-e,fv_alpha fake_vmlinux.o -o vmlinux-stripped"), 0,
	       "and a stripped copy");
	snprintf(cmd, sizeof(cmd), "-g -O0 -fno-toplevel-reorder -c %s -o fake-mod.ko", src_c);
	is_int(run(cmd), 0, "compile the fake module with -g");
	/* a /lib/modules-like tree: the .ko two levels down, a symlink loop, a broken .ko */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && mkdir -p kernel/drivers && mv fake-mod.ko kernel/drivers/ && ln -s .. kernel/loop",
		 dir);
	is_int(system(cmd), 0, "module tree");
	write_file("broken.ko", "not an ELF object\n");
	is_int(run("-c empty.c -o nosyms.ko"), 0, "a module object without functions");
	is_int(run("-c empty.c -o keepsyms.ko"), 0, "another one");

	write_file("builtin.ranges", ".text 00000000-00000000 = _stext\n.text 00000080-000000c0 fakebuiltin\n");
	snprintf(ranges, sizeof(ranges), "%s/builtin.ranges", dir);
	s = load(vmlinux, dir, ranges);
	ok(s != NULL, "loads with --vmlinux and --module-dir");
	if (!s)
		goto out;
	kt_sym_stats(s, &st);
	is_int(st.elf_modules, 2, "vmlinux and fake_mod symbols from ELF");
	is_int(st.elf_nosyms, 3, "two ELF files without symbols and a broken one");
	ok(kt_sym_notice(s) && strstr(kt_sym_notice(s), "3 ELF files without symbols or unreadable"),
	   "noticed once");
	ok(!strstr(kt_sym_notice(s), "no NAME.ko matches"), "the module dir matched: no such notice");

	is_str(name_at(s, 0xffffffffa0000001ull), "fv_alpha", "ELF symbol relocated by the kallsyms _stext");
	is_str(name_at(s, 0xffffffffa0000041ull), "default_idle", "ELF beats kallsyms (ks_wrong2)");
	is_int(func_at(s, 0xffffffffa0000041ull)->idle, 1, "ELF symbols get idle flags");
	is_str(name_at(s, 0xffffffffa0000082ull), "fv_beta", "local ELF function");
	is_int(func_at(s, 0xffffffffa0000082ull)->size, 0x40, "up to _etext");
	is_str(kt_sym_module(s, kt_sym_loc(s, kt_sym_lookup(s, 0xffffffffa00000c0ull))->module)->name,
	       "[unknown]", "_etext ends vmlinux");
	is_int(kt_sym_module(s, KT_MOD_VMLINUX)->has_lines, 1, "vmlinux has lines");
	line_is(s, 0xffffffffa0000000ull, src_s, 8, "fv_alpha entry");
	line_is(s, 0xffffffffa0000041ull, src_s, 17, "default_idle ret");
	line_is(s, 0xffffffffa0000080ull, src_s, 22, "fv_beta pause");
	is_str(kt_sym_module(s, kt_sym_loc(s, kt_sym_lookup(s, 0xffffffffa0000082ull))->module)->name,
	       "fakebuiltin", "a builtin range over the ELF symbols");
	m = kt_sym_module_find(s, "fakebuiltin");
	is_int(m >= 0 ? kt_sym_module(s, (uint32_t)m)->has_lines : -1, 1,
	       "a builtin module has vmlinux's lines");

	m = kt_sym_module_find(s, "fake_mod");
	ok(m >= 0, "fake_mod known");
	is_int(kt_sym_module(s, (uint32_t)m)->nfuncs, 3, "three functions from fake-mod.ko");
	is_int(kt_sym_module(s, (uint32_t)m)->has_lines, 1, "fake_mod has lines");
	is_str(name_at(s, 0xffffffffc0001000ull), "fm_first",
	       "ET_REL symbol placed at the module text (found in a subdirectory, - for _)");
	is_str(name_at(s, 0xffffffffc000b010ull), "broken+0x0", "a broken .ko: buckets");
	is_str(name_at(s, 0xffffffffc0001044ull), "fm_second", "second function");
	is_str(name_at(s, 0xffffffffc0001084ull), "fm_local", "static function");
	line_is(s, 0xffffffffc0001000ull, src_c, 2, "fm_first entry");
	line_is(s, 0xffffffffc0001040ull, src_c, 3, "fm_second entry");
	line_is(s, 0xffffffffc0001080ull, src_c, 4, "fm_local entry");
	is_int(kt_sym_srcline(s, 0xffffffffc0001040ull, &f1, &l1), 0, "cached srcline");
	is_int(kt_sym_srcline(s, 0xffffffffc0001040ull, &f2, &l2), 0, "cached srcline again");
	ok(f1 == f2 && l1 == l2, "the cache answers with the same string");

	is_str(name_at(s, 0xffffffffc0005010ull), "nosyms+0x0", "ELF without symbols: buckets");
	is_int(kt_sym_srcline(s, 0xffffffffc0005010ull, &f1, &l1), -ENOENT, "no lines there");
	is_str(name_at(s, 0xffffffffc0009004ull), "ks_kept", "ELF without symbols keeps kallsyms names");
	is_int(kt_sym_srcline(s, 0xffffffffc0009004ull, &f1, &l1), -ENOENT, "no lines for kallsyms only");
	is_int(kt_sym_srcline(s, 0x1000, &f1, &l1), -ENOENT, "no lines for [unknown]");
	{
		uint32_t nf = kt_sym_nfuncs(s), nl = kt_sym_nlocs(s);

		kt_sym_srcline(s, 0xffffffffc0005800ull, &f1, &l1);
		kt_sym_srcline(s, 0xffffffffc0001050ull, &f1, &l1);
		is_int(kt_sym_nfuncs(s), nf, "srcline on unseen addresses creates no bucket");
		is_int(kt_sym_nlocs(s), nl, "nor a location");
	}
	kt_sym_free(s);

	s = load(stripped, NULL, NULL);
	ok(s != NULL, "loads with a stripped --vmlinux");
	if (s) {
		kt_sym_stats(s, &st);
		is_int(st.elf_nosyms, 1, "stripped vmlinux has no symbols");
		is_str(name_at(s, 0xffffffffa0000041ull), "ks_wrong2", "falls back to kallsyms names");
		is_int(kt_sym_module(s, KT_MOD_VMLINUX)->has_lines, 0, "and no lines");
		is_str(name_at(s, 0xffffffffc0001004ull), "ks_mod_name", "modules from kallsyms");
		kt_sym_free(s);
	}
out:
	{
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return tap_done();
}
