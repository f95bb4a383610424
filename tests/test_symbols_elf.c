/* Symbolizer with ELF files compiled here with $CC -g: a fake vmlinux executable (assembly
 * with a fixed layout, relocated as KASLR would) and fake .ko relocatable objects, checking
 * libelf symbols, their precedence over kallsyms, symbol-less ELF fallbacks, and libdwfl
 * source lines with exact file:line. */
#include "config.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kerntop/symbols.h"
#include "tap.h"

/* The fixtures keep one source line per C line, numbered: not reformatted. */
/* clang-format off */
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

/* A module with code outside .text: the loader places .text.unlikely apart (sysfs says
 * where), and the ELF alone cannot tell. */
static const char cold_c[] =
	"/* coldmod for test_symbols_elf: two hot functions in .text, one in .text.unlikely */\n"
	"__attribute__((aligned(64))) int hot1(int x) { return x * 3 + 1; }\n"
	"__attribute__((aligned(64))) int hot2(int x) { return x ^ 0x55; }\n"
	"__attribute__((section(\".text.unlikely\"), aligned(64))) int coldfn(int x) { return x - 7; }\n";

static const char cold_kallsyms[] =
	"ffffffffa0000000 T _stext\n"
	"ffffffffa00000c0 T _etext\n"
	"ffffffffc0020000 t hot1\t[coldmod]\n"
	"ffffffffc0020040 t hot2\t[coldmod]\n"
	"ffffffffc0021000 t ks_cold\t[coldmod]\n"
	"ffffffffc0030000 t outer\t[inlmod]\n";

static const char cold_modules[] =
	"coldmod 12288 0 - Live 0xffffffffc0020000\n"
	"inlmod 4096 0 - Live 0xffffffffc0030000\n";

/* -O2 inlining: helper() at two call sites of outer(), and through mid() into outer2().
 * Line numbers are asserted. */
static const char helper_h[] =
	"/* helper.h for test_symbols_elf: inlined, never called */\n" /* 1 */
	"static inline int helper(volatile int *p, int x)\n"           /* 2 */
	"{\n"                                                          /* 3 */
	"\tint y = *p;\n"                                              /* 4 */
	"\t*p = y * x + 1;\n"                                          /* 5 */
	"\treturn y;\n"                                                /* 6 */
	"}\n";                                                         /* 7 */

static const char inl_c[] =
	"/* inlmod for test_symbols_elf */\n"                          /* 1 */
	"#include \"helper.h\"\n"                                      /* 2 */
	"int outer(volatile int *p, int a, int b)\n"                   /* 3 */
	"{\n"                                                          /* 4 */
	"\tint r = helper(p, a);\n"                                    /* 5 */
	"\tr += helper(p, b);\n"                                       /* 6 */
	"\treturn r;\n"                                                /* 7 */
	"}\n"                                                          /* 8 */
	"static inline int mid(volatile int *p, int x)\n"              /* 9 */
	"{\n"                                                          /* 10 */
	"\treturn helper(p, x) * 2;\n"                                 /* 11 */
	"}\n"                                                          /* 12 */
	"int outer2(volatile int *p, int a)\n"                         /* 13 */
	"{\n"                                                          /* 14 */
	"\treturn mid(p, a) + 3;\n"                                    /* 15 */
	"}\n";                                                         /* 16 */

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
/* clang-format on */

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

static void like_str(const char *got, const char *re, const char *what)
{
	regex_t rx;
	int m =
	    regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) == 0 && regexec(&rx, got, 0, NULL, 0) == 0;

	regfree(&rx);
	ok(m, what);
	if (!m)
		printf("#   '%s' does not match /%s/\n", got, re);
}

static const struct kt_sym_func *func_at(struct kt_symbols *s, uint64_t addr)
{
	return kt_sym_func(s, kt_sym_loc(s, kt_sym_lookup(s, addr))->func);
}

static const char *name_at(struct kt_symbols *s, uint64_t addr)
{
	return func_at(s, addr)->name;
}

static void line_is(struct kt_symbols *s, uint64_t addr, const char *file, int line,
		    const char *what)
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
	struct kt_sym_opts o = {.kallsyms_buf = kallsyms,
				.kallsyms_len = sizeof(kallsyms) - 1,
				.modules_buf = modules,
				.modules_len = sizeof(modules) - 1,
				.vmlinux = vmlinux,
				.module_dir = mdir,
				.builtin_ranges = ranges};
	struct kt_symbols *s = NULL;

	if (kt_sym_new(&o, &s, err, sizeof(err)) < 0)
		printf("# kt_sym_new: %s\n", err);
	return s;
}

static struct kt_symbols *load_cold(const char *sysroot, const char *mdir)
{
	struct kt_sym_opts o = {.sysroot = sysroot, .module_dir = mdir};
	struct kt_symbols *s = NULL;

	if (!sysroot) {
		o.kallsyms_buf = cold_kallsyms;
		o.kallsyms_len = sizeof(cold_kallsyms) - 1;
		o.modules_buf = cold_modules;
		o.modules_len = sizeof(cold_modules) - 1;
	}
	if (kt_sym_new(&o, &s, err, sizeof(err)) < 0)
		printf("# kt_sym_new: %s\n", err);
	return s;
}

/* Code outside .text: without sysfs the .ko cannot place .text.unlikely, so kallsyms keeps
 * naming it (before, the last .text function stretched over it); with sysfs it is placed. */
static void test_cold_sections(void)
{
	char mdir[300], root[300], src[300], cmd[1400];
	struct kt_symbols *s;
	const char *f = NULL;
	int l = 0;

	snprintf(mdir, sizeof(mdir), "%s/cold", dir);
	snprintf(root, sizeof(root), "%s/coldroot", dir);
	snprintf(src, sizeof(src), "%s/cold/coldmod.c", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' '%s/proc' '%s/sys/module/coldmod/sections'", mdir,
		 root, root);
	is_int(system(cmd), 0, "coldmod directories");
	write_file("cold/coldmod.c", cold_c);
	snprintf(cmd, sizeof(cmd), "-g -O0 -fno-toplevel-reorder -c %s -o cold/coldmod.ko", src);
	is_int(run(cmd), 0, "compile a module with .text.unlikely");

	s = load_cold(NULL, mdir);
	ok(s != NULL, "coldmod loads without sysfs");
	if (s) {
		is_str(name_at(s, 0xffffffffc0020044ull), "hot2", "hot2 from the ELF");
		ok(func_at(s, 0xffffffffc0020044ull)->size < 0x40, "hot2 ends at its st_size");
		is_str(name_at(s, 0xffffffffc0021004ull), "ks_cold",
		       "an address in the unplaced .text.unlikely keeps its kallsyms symbol, not "
		       "hot2");
		is_str(name_at(s, 0xffffffffc0020800ull), "coldmod+0x800",
		       "between .text and the cold code: a bucket, not hot2");
		line_is(s, 0xffffffffc0020040ull, src, 3, "hot2 entry");
		is_int(kt_sym_srcline(s, 0xffffffffc0021004ull, &f, &l), -ENOENT,
		       "no line for code the ELF cannot place");
		kt_sym_free(s);
	}

	write_file("coldroot/proc/kallsyms", cold_kallsyms);
	write_file("coldroot/proc/modules", cold_modules);
	write_file("coldroot/sys/module/coldmod/sections/.text", "0xffffffffc0020000\n");
	write_file("coldroot/sys/module/coldmod/sections/.text.unlikely", "0xffffffffc0021000\n");
	s = load_cold(root, mdir);
	ok(s != NULL, "coldmod loads with sysfs sections");
	if (s) {
		is_str(name_at(s, 0xffffffffc0021004ull), "coldfn",
		       "sysfs places .text.unlikely: the ELF name wins there");
		is_str(
		    kt_sym_module(s, kt_sym_loc(s, kt_sym_lookup(s, 0xffffffffc0021004ull))->module)
			->name,
		    "coldmod", "in its module");
		is_str(name_at(s, 0xffffffffc0020044ull), "hot2", "hot2 still from the ELF");
		line_is(s, 0xffffffffc0021000ull, src, 4, "coldfn entry, in .text.unlikely");
		is_int(kt_sym_loc(s, kt_sym_lookup(s, 0xffffffffc0020045ull))->addr,
		       0xffffffffc0020045ull,
		       "with source lines a location keeps the exact address (lines differ "
		       "inside a slice)");
		kt_sym_free(s);
	}
}

/* Inlined code: each call site of helper() gets its own line label. */
static void test_inline(void)
{
	char mdir[300], src[300], cmd[1400];
	struct kt_symbols *s;
	const char *site5 = NULL, *site6 = NULL, *nested = NULL, *plain = NULL;
	int n5 = 0, n6 = 0, n15 = 0, bad = 0;

	snprintf(mdir, sizeof(mdir), "%s/inl", dir);
	snprintf(src, sizeof(src), "%s/inl/inl.c", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", mdir);
	is_int(system(cmd), 0, "inlmod directory");
	write_file("inl/helper.h", helper_h);
	write_file("inl/inl.c", inl_c);
	snprintf(cmd, sizeof(cmd), "-g -O2 -c %s -o inl/inlmod.ko", src);
	is_int(run(cmd), 0, "compile an -O2 module that inlines");
	s = load_cold(NULL, mdir);
	ok(s != NULL, "inlmod loads");
	if (!s)
		return;
	for (uint64_t a = 0xffffffffc0030000ull; a < 0xffffffffc0030200ull; a++) {
		const struct kt_sym_func *fn = func_at(s, a);
		const char *f = NULL;
		int l = 0;

		if (fn->bucket || kt_sym_srcline(s, a, &f, &l) < 0)
			continue;
		if (!strcmp(fn->name, "outer") && strstr(f, " inlined in ")) {
			if (strncmp(f, "helper.h:", 9) ||
			    !strstr(f, " inlined in outer at inl.c") || (l != 5 && l != 6)) {
				printf("# unexpected label in outer: %s:%d\n", f, l);
				bad++;
			} else if (l == 5) {
				site5 = f;
				n5++;
			} else {
				site6 = f;
				n6++;
			}
		} else if (!strcmp(fn->name, "outer2") && strstr(f, " inlined in ")) {
			if (strstr(f, "helper.h:") == f && l == 15)
				nested = f;
			n15++;
		} else if (!strcmp(fn->name, "outer") && !strcmp(f, src)) {
			plain = f;
		}
	}
	ok(n5 > 0, "helper's code at the call site on line 5 says so");
	ok(n6 > 0, "helper's code at the call site on line 6 says so");
	if (site5)
		like_str(site5, "^helper\\.h:[45] inlined in outer at inl\\.c$",
			 "label of call site 5");
	is_int(bad, 0,
	       "every inlined address in outer names helper.h and one of the two call sites");
	ok(plain != NULL, "outer's own code has a plain inl.c line");
	ok(n15 > 0 && nested != NULL, "nested inlining in outer2 (helper in mid in outer2)");
	if (nested)
		like_str(nested,
			 "^helper\\.h:[45] inlined in mid at inl\\.c:11, in outer2 at inl\\.c$",
			 "the nested label names both levels");
	{
		const char *f1 = NULL, *f2 = NULL;
		int l1 = 0, l2 = 0;

		/* the same label from two addresses is one pointer: the lines view groups by it */
		for (uint64_t a = 0xffffffffc0030000ull; a < 0xffffffffc0030200ull && !f2; a++) {
			const char *f = NULL;
			int l = 0;

			if (kt_sym_srcline(s, a, &f, &l) < 0 || !strstr(f, " inlined in outer "))
				continue;
			if (!f1) {
				f1 = f;
				l1 = l;
			} else if (!strcmp(f, f1) && a) {
				f2 = f;
				l2 = l;
			}
		}
		ok(f1 && f2 && f1 == f2 && l1 >= 5 && l2 >= 5,
		   "equal labels are one interned pointer");
	}
	printf("# call site 5: %s:%d; call site 6: %s:%d; nested: %s:15\n", site5 ? site5 : "-", 5,
	       site6 ? site6 : "-", 6, nested ? nested : "-");
	kt_sym_free(s);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)n)))
		*len = fread(b, 1, (size_t)n, f);
	fclose(f);
	return b;
}

static uint32_t rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Variant i of an ELF image: the first quarter truncated at evenly spread lengths, the rest
 * with 1 to 8 bytes replaced, half of them in the headers (ELF header, section headers). */
static size_t corrupt(const unsigned char *in, size_t len, unsigned char *out, int i, int n,
		      uint32_t *seed)
{
	size_t shoff = len > 64 ? len - len / 8 : 0; /* the section header table is at the end */

	memcpy(out, in, len);
	if (i < n / 4)
		return len * (size_t)i / (size_t)(n / 4);
	for (int k = 0, flips = 1 + (int)(rnd(seed) % 8); k < flips; k++) {
		size_t at;

		switch (rnd(seed) % 4) {
		case 0:
			at = rnd(seed) % (len < 64 ? len : 64);
			break;
		case 1:
			at = shoff + rnd(seed) % (len - shoff);
			break;
		default:
			at = rnd(seed) % len;
			break;
		}
		out[at] = (unsigned char)rnd(seed);
	}
	return len;
}

/* Looks up and asks lines for every address of [lo, lo + span): each must land inside the
 * function or bucket it names. Returns the number of violations. */
static int probe(struct kt_symbols *s, uint64_t lo, uint64_t span)
{
	int bad = 0;

	for (uint64_t a = lo; a < lo + span; a++) {
		const struct kt_sym_func *f = func_at(s, a);
		const char *file;
		int line;

		if (!f || !f->name || (f->size && (a < f->start || a - f->start >= f->size)))
			bad++;
		if (kt_sym_srcline(s, a, &file, &line) == 0 && (!file || !*file || line <= 0))
			bad++;
	}
	return bad;
}

/* Truncated and bit-flipped copies of the vmlinux and of a .ko: a --vmlinux loads or fails
 * with -ENOEXEC and a message naming it; a broken .ko is counted and falls back to kallsyms
 * or buckets; lookups and line queries over them never crash (ASan build) and stay sane. */
static void test_corrupt_elves(const char *vmlinux, const char *ko)
{
	enum { N = 160 };
	size_t vlen, klen;
	unsigned char *v = slurp(vmlinux, &vlen), *k = slurp(ko, &klen), *buf;
	char path[300], mdir[300], kpath[340];
	int vload = 0, vrefused = 0, vother = 0, kload = 0, kfallback = 0, kother = 0, bad = 0;
	uint32_t seed = 0x9e3779b9u;

	ok(v && k && vlen > 256 && klen > 256, "read the vmlinux and the .ko to corrupt");
	if (!v || !k || vlen <= 256 || klen <= 256) {
		free(v);
		free(k);
		return;
	}
	buf = malloc(vlen > klen ? vlen : klen);
	snprintf(path, sizeof(path), "%s/corrupt-vmlinux", dir);
	snprintf(mdir, sizeof(mdir), "%s/corrupt-ko", dir);
	snprintf(kpath, sizeof(kpath), "%s/fake_mod.ko", mdir);
	snprintf(err, sizeof(err), "mkdir -p '%s'", mdir);
	is_int(system(err), 0, "a directory for the corrupt .ko");
	for (int i = 0; i < N && buf; i++) {
		struct kt_sym_opts o = {.kallsyms_buf = kallsyms,
					.kallsyms_len = sizeof(kallsyms) - 1,
					.modules_buf = modules,
					.modules_len = sizeof(modules) - 1};
		struct kt_symbols *s = NULL;
		size_t n = corrupt(v, vlen, buf, i, N, &seed);
		FILE *f = fopen(path, "wb");
		int r;

		if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0)
			break;
		o.vmlinux = path;
		err[0] = 0;
		r = kt_sym_new(&o, &s, err, sizeof(err));
		if (r == 0) {
			vload++;
			bad += probe(s, 0xffffffffa0000000ull, 0x100);
			kt_sym_free(s);
		} else if (r == -ENOEXEC && !s && strstr(err, path) && strstr(err, "--vmlinux")) {
			vrefused++;
		} else {
			printf("# vmlinux variant %d: %d %s\n", i, r, err);
			vother++;
		}

		n = corrupt(k, klen, buf, i, N, &seed);
		f = fopen(kpath, "wb");
		if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0)
			break;
		o.vmlinux = NULL;
		o.module_dir = mdir;
		s = NULL;
		r = kt_sym_new(&o, &s, err, sizeof(err));
		if (r == 0) {
			struct kt_sym_stats st;

			kt_sym_stats(s, &st);
			kload++;
			kfallback += st.elf_nosyms == 1;
			bad += probe(s, 0xffffffffc0001000ull, 0x100);
			kt_sym_free(s);
		} else {
			printf("# .ko variant %d: %d %s\n", i, r, err);
			kother++;
		}
	}
	is_int(vload + vrefused, N,
	       "every corrupt --vmlinux loads or is refused (-ENOEXEC, naming it)");
	is_int(vother, 0, "no other outcome for a corrupt --vmlinux");
	ok(vload > 0 && vrefused > 0, "both happen: the headers matter, some payload does not");
	is_int(kload, N, "every corrupt .ko loads: a broken module file is never fatal");
	ok(kfallback > N / 4, "the unreadable ones fall back (counted in the notice)");
	is_int(bad, 0, "lookups and lines over corrupt ELF files stay inside their functions");
	printf("# vmlinux: %d loaded, %d refused; .ko: %d loaded, %d fell back\n", vload, vrefused,
	       kload, kfallback);
	free(buf);
	free(v);
	free(k);
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
	is_int(run("-nostdlib -static -no-pie -Wl,-e,fv_alpha -Wl,--build-id=none fake_vmlinux.o "
		   "-o vmlinux"),
	       0, "link it as an executable");
	is_int(
	    run("-s -nostdlib -static -no-pie -Wl,-e,fv_alpha fake_vmlinux.o -o vmlinux-stripped"),
	    0, "and a stripped copy");
	snprintf(cmd, sizeof(cmd), "-g -O0 -fno-toplevel-reorder -c %s -o fake-mod.ko", src_c);
	is_int(run(cmd), 0, "compile the fake module with -g");
	/* a /lib/modules-like tree: the .ko two levels down, a symlink loop, a broken .ko */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && mkdir -p kernel/drivers && mv fake-mod.ko kernel/drivers/ && ln -s .. "
		 "kernel/loop",
		 dir);
	is_int(system(cmd), 0, "module tree");
	write_file("broken.ko", "not an ELF object\n");
	is_int(run("-c empty.c -o nosyms.ko"), 0, "a module object without functions");
	is_int(run("-c empty.c -o keepsyms.ko"), 0, "another one");

	write_file("builtin.ranges",
		   ".text 00000000-00000000 = _stext\n.text 00000080-000000c0 fakebuiltin\n");
	snprintf(ranges, sizeof(ranges), "%s/builtin.ranges", dir);
	s = load(vmlinux, dir, ranges);
	ok(s != NULL, "loads with --vmlinux and --module-dir");
	if (!s)
		goto out;
	kt_sym_stats(s, &st);
	is_int(st.elf_modules, 2, "vmlinux and fake_mod symbols from ELF");
	is_int(st.elf_nosyms, 3, "two ELF files without symbols and a broken one");
	ok(kt_sym_notice(s) &&
	       strstr(kt_sym_notice(s), "3 ELF files without symbols or unreadable"),
	   "noticed once");
	ok(!strstr(kt_sym_notice(s), "no NAME.ko matches"),
	   "the module dir matched: no such notice");

	is_str(name_at(s, 0xffffffffa0000001ull), "fv_alpha",
	       "ELF symbol relocated by the kallsyms _stext");
	is_str(name_at(s, 0xffffffffa0000041ull), "default_idle", "ELF beats kallsyms (ks_wrong2)");
	is_int(func_at(s, 0xffffffffa0000041ull)->idle, 1, "ELF symbols get idle flags");
	is_str(name_at(s, 0xffffffffa0000082ull), "fv_beta", "local ELF function");
	is_int(func_at(s, 0xffffffffa0000082ull)->size, 3, "an ELF function ends at its st_size");
	is_str(name_at(s, 0xffffffffa0000090ull), "fakebuiltin+0x0",
	       "the alignment padding after it is a bucket, not fv_beta");
	is_int(func_at(s, 0xffffffffa0000090ull)->bucket, 1, "a bucket");
	is_str(
	    kt_sym_module(s, kt_sym_loc(s, kt_sym_lookup(s, 0xffffffffa00000c0ull))->module)->name,
	    "[unknown]", "_etext ends vmlinux");
	is_int(kt_sym_module(s, KT_MOD_VMLINUX)->has_lines, 1, "vmlinux has lines");
	line_is(s, 0xffffffffa0000000ull, src_s, 8, "fv_alpha entry");
	line_is(s, 0xffffffffa0000041ull, src_s, 17, "default_idle ret");
	line_is(s, 0xffffffffa0000080ull, src_s, 22, "fv_beta pause");
	is_str(
	    kt_sym_module(s, kt_sym_loc(s, kt_sym_lookup(s, 0xffffffffa0000082ull))->module)->name,
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
	is_str(name_at(s, 0xffffffffc0009004ull), "ks_kept",
	       "ELF without symbols keeps kallsyms names");
	is_int(kt_sym_srcline(s, 0xffffffffc0009004ull, &f1, &l1), -ENOENT,
	       "no lines for kallsyms only");
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
		is_str(name_at(s, 0xffffffffa0000041ull), "ks_wrong2",
		       "falls back to kallsyms names");
		is_int(kt_sym_module(s, KT_MOD_VMLINUX)->has_lines, 0, "and no lines");
		is_str(name_at(s, 0xffffffffc0001004ull), "ks_mod_name", "modules from kallsyms");
		kt_sym_free(s);
	}
	{
		char ko[300];

		snprintf(ko, sizeof(ko), "%s/kernel/drivers/fake-mod.ko", dir);
		test_corrupt_elves(vmlinux, ko);
	}
	test_cold_sections();
	test_inline();
out : {
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
}
	return tap_done();
}
