/* Symbolizer on fixtures: kallsyms + modules + builtin ranges files, buckets, idle, the
 * location cache, recordings' buffers, a sysroot, and every bad input. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kerntop/symbols.h"
#include "tap.h"

static char err[512];

static const struct kt_sym_func *func_at(struct kt_symbols *s, uint64_t addr)
{
	return kt_sym_func(s, kt_sym_loc(s, kt_sym_lookup(s, addr))->func);
}

static const char *name_at(struct kt_symbols *s, uint64_t addr)
{
	return func_at(s, addr)->name;
}

static const char *module_at(struct kt_symbols *s, uint64_t addr)
{
	return kt_sym_module(s, kt_sym_loc(s, kt_sym_lookup(s, addr))->module)->name;
}

static struct kt_symbols *load(struct kt_sym_opts *o)
{
	struct kt_symbols *s = NULL;
	int r = kt_sym_new(o, &s, err, sizeof(err));

	if (r < 0)
		printf("# kt_sym_new: %d %s\n", r, err);
	return s;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc((size_t)n + 1);
	*len = fread(b, 1, (size_t)n, f);
	fclose(f);
	return b;
}

static void test_fixture(void)
{
	struct kt_sym_opts o = {.kallsyms = tap_data("symbols/kallsyms"),
				.modules = tap_data("symbols/modules"),
				.builtin_ranges = tap_data("symbols/builtin.ranges")};
	struct kt_symbols *s = load(&o);
	struct kt_sym_stats st;
	const struct kt_sym_module *m;
	const struct kt_sym_func *f;
	const struct kt_sym_loc *l;
	uint32_t a, b, n0;
	int id;

	ok(s != NULL, "fixture loads");
	if (!s)
		return;
	kt_sym_stats(s, &st);
	is_int(st.kallsyms_lines, 32, "kallsyms lines counted");
	is_int(st.kallsyms_skipped, 6, "malformed kallsyms lines skipped and counted");
	is_int(st.modules_lines, 5, "modules lines counted (blank line ignored)");
	is_int(st.modules_skipped, 3, "malformed modules lines skipped and counted");
	is_int(st.ranges_lines, 7, "builtin ranges lines counted");
	is_int(st.ranges_skipped, 2, "garbage and anchor-less ranges skipped");
	is_int(st.builtin_modules, 2, "two builtin modules");
	is_int(st.kptr_restricted, 0, "not kptr restricted");
	is_int(kt_sym_nmodules(s), 8, "modules: 3 fixed + fakemod nosyms bpf tcp_cubic e1000");
	is_int(kt_sym_nfuncs(s), 17, "functions: [user] [unknown] and 15 symbols");
	ok(kt_sym_notice(s) && strstr(kt_sym_notice(s), "6 malformed lines skipped") &&
	       strstr(kt_sym_notice(s), "3 malformed lines skipped") &&
	       strstr(kt_sym_notice(s), "modules.builtin.ranges: 2 lines skipped"),
	   "one notice sums up the skipped lines");

	is_str(kt_sym_module(s, KT_MOD_VMLINUX)->name, "vmlinux", "module 0 is vmlinux");
	is_str(kt_sym_module(s, KT_MOD_USER)->name, "[user]", "module 1 is [user]");
	is_str(kt_sym_module(s, KT_MOD_UNKNOWN)->name, "[unknown]", "module 2 is [unknown]");
	m = kt_sym_module(s, KT_MOD_VMLINUX);
	is_int(m->base, 0xffffffff81000000ull, "vmlinux base is _stext");
	is_int(m->size, 0x1000, "vmlinux size is _etext - _stext");
	is_int(m->nfuncs, 8, "vmlinux keeps 8 functions after builtin carving and dedup");
	id = kt_sym_module_find(s, "fakemod");
	is_int(id, 3, "fakemod is the first real module");
	m = kt_sym_module(s, (uint32_t)id);
	is_int(m->base, 0xffffffffc0001000ull, "fakemod base from /proc/modules");
	is_int(m->size, 16384, "fakemod size from /proc/modules");
	is_int(m->nfuncs, 2, "fakemod text symbols (data symbol ignored)");
	m = kt_sym_module(s, (uint32_t)kt_sym_module_find(s, "nosyms"));
	is_int(m->nfuncs, 0, "nosyms has no symbols");
	m = kt_sym_module(s, (uint32_t)kt_sym_module_find(s, "e1000"));
	is_int(m->builtin, 1, "e1000 is builtin");
	is_int(m->base, 0xffffffff81000600ull, "e1000 base from its range and the _text anchor");
	is_int(m->size, 0x100, "e1000 size from its range");
	is_int(m->nfuncs, 2, "e1000 owns its two functions");
	is_int(kt_sym_module_find(s, "tcp_bbr"), -1, "a shared range goes to the first module");
	is_int(kt_sym_module_find(s, "no_anchor_mod"), -1, "no module without a resolvable anchor");
	m = kt_sym_module(s, (uint32_t)kt_sym_module_find(s, "bpf"));
	is_int(m->base, 0xffffffffc0100000ull, "bpf pseudo-module starts at its first program");
	is_int(m->size, 0x1400, "bpf pseudo-module spans to the last program + 4096");

	is_str(name_at(s, 0xffffffff81000000ull), "startup_64",
	       "alias: no leading underscore wins");
	is_str(name_at(s, 0xffffffff81000105ull), "startup_64",
	       "__pfx_ padding joins the previous function");
	is_str(name_at(s, 0xffffffff81000110ull), "do_work", "exact start");
	f = func_at(s, 0xffffffff81000205ull);
	is_str(f->name, "memcpy", "memcpy beats __memcpy and the weak alias");
	is_int(f->start, 0xffffffff81000200ull, "function start");
	is_int(f->size, 0x100, "size up to the next symbol");
	is_int(f->bucket, 0, "a real symbol is no bucket");
	f = func_at(s, 0xffffffff81000400ull);
	is_str(f->name, "do_idle", "do_idle");
	is_int(f->size, 0x100, "do_idle ends where the builtin range starts");
	is_int(f->idle, 0, "do_idle is not idle");
	is_int(func_at(s, 0xffffffff81000300ull)->idle, 1, "default_idle is idle");
	is_int(func_at(s, 0xffffffff81000350ull)->idle, 1,
	       "a .isra clone of cpu_idle_poll is idle");
	l = kt_sym_loc(s, kt_sym_lookup(s, 0xffffffff81000301ull));
	is_int(l->idle, 1, "the location carries the idle flag");
	is_int(l->module, KT_MOD_VMLINUX, "the location carries its module");
	is_int(l->addr, 0xffffffff81000300ull,
	       "without source lines a location stands for its 64-byte slice of the function");

	is_str(name_at(s, 0xffffffff81000510ull), "tcp_cong_avoid",
	       "symbol inside a builtin range");
	is_str(module_at(s, 0xffffffff81000510ull), "tcp_cubic", "belongs to the builtin module");
	is_int(func_at(s, 0xffffffff81000510ull)->size, 0x80, "clipped at the range end");
	f = func_at(s, 0xffffffff81000590ull);
	is_str(f->name, "vmlinux+0x580", "symbol-less gap after a range: vmlinux bucket");
	is_int(f->bucket, 1, "flagged as a bucket");
	is_int(f->start, 0xffffffff81000580ull, "bucket start");
	is_int(f->size, 64, "bucket size");
	is_str(module_at(s, 0xffffffff81000690ull), "e1000", "e1000_clean is in e1000");
	is_str(name_at(s, 0xffffffff81000690ull), "e1000_clean", "e1000_clean");
	is_str(name_at(s, 0xffffffff81000fffull), "net_rx_action", "last function runs to _etext");
	is_str(name_at(s, 0xffffffff82000050ull), "init_foo", "init text is vmlinux");
	is_str(name_at(s, 0xffffffff81001000ull), "[unknown]+0xffffffff81001000",
	       "_etext itself is no function: [unknown] bucket");
	is_str(module_at(s, 0xffffffff81001000ull), "[unknown]", "in [unknown]");
	is_str(name_at(s, 0xffffffffc0001090ull), "fake_mod_xmit", "module symbol");
	is_str(module_at(s, 0xffffffffc0001090ull), "fakemod", "module symbol's module");
	is_int(func_at(s, 0xffffffffc0001090ull)->size, 0x2f80,
	       "fakemod's range is clipped where nosyms starts");
	is_str(name_at(s, 0xffffffffc0004050ull), "nosyms+0x40", "module without symbols: bucket");
	is_str(module_at(s, 0xffffffffc0004050ull), "nosyms", "bucket's module");
	is_str(name_at(s, 0xffffffffc0100010ull), "bpf_prog_6deef7357e7b4530_sd_fw", "bpf program");
	is_str(module_at(s, 0xffffffffc0100010ull), "bpf", "bpf pseudo-module");
	is_str(name_at(s, 0xffffffffc0101500ull), "[unknown]+0xffffffffc0101500",
	       "past the last bpf program");
	is_str(name_at(s, 0x1234), "[unknown]+0x1200", "user-space-looking address: [unknown]");

	/* location interning */
	a = kt_sym_lookup(s, 0xffffffff81000111ull);
	b = kt_sym_lookup(s, 0xffffffff81000152ull);
	ok(a != b, "two slices of a function, two locations");
	is_int(kt_sym_loc(s, a)->func, kt_sym_loc(s, b)->func, "same function");
	is_int(kt_sym_lookup(s, 0xffffffff81000111ull), a, "same address, same location");
	is_int(kt_sym_lookup(s, 0xffffffff8100013full), a,
	       "another address of the same 64-byte slice, same location");
	is_int(kt_sym_loc(s, b)->addr, 0xffffffff81000150ull,
	       "the location is the slice's start, 64-byte slices from do_work's start");
	n0 = kt_sym_nlocs(s);
	for (int i = 0; i < 3; i++)
		kt_sym_lookup(s, 0xffffffff81000112ull);
	is_int(kt_sym_nlocs(s), n0, "repeated lookups intern nothing new");
	ok(a >= 2 && b >= 2, "interned ids are above [user] and the fallback");
	is_str(kt_sym_func(s, kt_sym_loc(s, KT_LOC_USER)->func)->name, "[user]",
	       "location 0 is [user]");
	is_int(kt_sym_loc(s, KT_LOC_USER)->module, KT_MOD_USER, "location 0 is in [user]");
	is_int(kt_sym_resolve(s, 0xffffffff81000113ull), kt_sym_loc(s, a)->func,
	       "resolve gives the function without a location");
	is_int(kt_sym_nlocs(s), n0, "resolve interns no location");
	is_int(kt_sym_resolve(s, 0xffffffffc0004051ull),
	       kt_sym_loc(s, kt_sym_lookup(s, 0xffffffffc0004050ull))->func,
	       "resolve reuses an existing bucket");
	{
		/* enough distinct addresses to grow the hash several times */
		uint32_t first = kt_sym_lookup(s, 0xffffffffc0004000ull), okc = 1, seen[21];
		uint32_t n1 = kt_sym_nlocs(s);

		for (uint64_t i = 0; i < 20000; i++) {
			uint32_t li = kt_sym_lookup(s, 0xffffffff81000000ull + i);

			if (i % 997 == 0)
				seen[i / 997] = li;
		}
		for (uint64_t i = 0; i < 20000; i += 997) {
			uint64_t x = 0xffffffff81000000ull + i;
			uint32_t li = kt_sym_lookup(s, x);
			const struct kt_sym_loc *lo = kt_sym_loc(s, li);

			okc &= li == seen[i / 997] && lo->addr <= x && x - lo->addr < 64 &&
			       lo->func == kt_sym_resolve(s, x);
		}
		ok(okc, "locations survive hash growth: same ids, each within its slice");
		ok(kt_sym_nlocs(s) - n1 < 20000 / 32,
		   "20000 addresses: a location per 64-byte slice, not per address");
		is_int(kt_sym_lookup(s, 0xffffffffc0004000ull), first, "old ids stay");
	}
	is_int(kt_sym_bucket(s), 64, "default bucket 64");
	kt_sym_free(s);
}

static void test_options(void)
{
	struct kt_sym_opts o = {.kallsyms = tap_data("symbols/kallsyms"),
				.modules = tap_data("symbols/modules"),
				.idle_symbols = "do_idle, net_* ,nosyms*",
				.bucket = 256};
	struct kt_symbols *s = load(&o);

	ok(s != NULL, "loads with --idle-symbols and --bucket 256");
	if (!s)
		return;
	is_int(func_at(s, 0xffffffff81000400ull)->idle, 1, "--idle-symbols: do_idle now idle");
	is_int(func_at(s, 0xffffffff81000700ull)->idle, 1, "--idle-symbols: net_* prefix");
	is_int(func_at(s, 0xffffffff81000300ull)->idle, 0,
	       "--idle-symbols replaces the default list");
	is_str(name_at(s, 0xffffffffc0004150ull), "nosyms+0x100", "256-byte buckets");
	is_int(func_at(s, 0xffffffffc0004150ull)->idle, 1,
	       "nosyms* makes a symbol-less module idle");
	is_int(func_at(s, 0xffffffffc0001000ull)->idle, 0, "other modules stay busy");
	is_int(kt_sym_bucket(s), 256, "bucket size reported");
	is_int(kt_sym_module_find(s, "e1000"), -1, "no ranges file: no builtin modules");
	is_str(module_at(s, 0xffffffff81000690ull), "vmlinux", "then e1000 code is vmlinux");
	kt_sym_free(s);

	o.idle_symbols = "+do_idle, net_*";
	s = load(&o);
	ok(s != NULL, "loads with --idle-symbols +LIST");
	if (s) {
		is_int(func_at(s, 0xffffffff81000300ull)->idle, 1,
		       "+LIST keeps the built-in list (default_idle)");
		is_int(func_at(s, 0xffffffff81000340ull)->idle, 1,
		       "+LIST keeps the built-in list (cpu_idle_poll clone)");
		is_int(func_at(s, 0xffffffff81000400ull)->idle, 1, "+LIST adds do_idle");
		is_int(func_at(s, 0xffffffff81000700ull)->idle, 1, "+LIST adds the net_* prefix");
		is_int(func_at(s, 0xffffffff81000110ull)->idle, 0, "others stay busy");
		kt_sym_free(s);
	}
	o.idle_symbols = "+";
	s = load(&o);
	ok(s && func_at(s, 0xffffffff81000300ull)->idle && !func_at(s, 0xffffffff81000400ull)->idle,
	   "a lone + is the built-in list");
	kt_sym_free(s);
	o.idle_symbols = "";
	s = load(&o);
	ok(s && !func_at(s, 0xffffffff81000300ull)->idle, "an empty list marks nothing idle");
	kt_sym_free(s);
	{
		char list[2048];

		snprintf(list, sizeof(list), ",%s,", kt_sym_default_idle());
		ok(strstr(list, ",pv_native_safe_halt,") && strstr(list, ",intel_idle*,") &&
		       strstr(list, ",cpuidle_enter_state,") && !strstr(list, ",do_idle,"),
		   "default idle list: halt, intel_idle family, cpuidle_enter_state; not do_idle");
	}
}

static void test_buffers(void)
{
	struct kt_sym_opts o = {0};
	struct kt_symbols *s, *f;
	size_t kl, ml;
	char *kb = slurp(tap_data("symbols/kallsyms"), &kl),
	     *mb = slurp(tap_data("symbols/modules"), &ml);

	o.kallsyms_buf = kb;
	o.kallsyms_len = kl;
	o.modules_buf = mb;
	o.modules_len = ml;
	o.kallsyms = "/nonexistent/ignored";
	s = load(&o);
	ok(s != NULL, "recording buffers replace the files");
	memset(&o, 0, sizeof(o));
	o.kallsyms = tap_data("symbols/kallsyms");
	o.modules = tap_data("symbols/modules");
	f = load(&o);
	if (s && f) {
		struct kt_sym_stats a, b;

		kt_sym_stats(s, &a);
		kt_sym_stats(f, &b);
		is_int(a.kallsyms_skipped, b.kallsyms_skipped, "same skipped count as the file");
		is_int(kt_sym_nfuncs(s), kt_sym_nfuncs(f), "same functions as the file");
		is_int(kt_sym_nmodules(s), kt_sym_nmodules(f), "same modules as the file");
		is_str(name_at(s, 0xffffffffc0001090ull), name_at(f, 0xffffffffc0001090ull),
		       "same lookup");
		is_str(name_at(s, 0xffffffffc0004050ull), "nosyms+0x40", "modules from the buffer");
		ok(strstr(kt_sym_notice(s), "recorded kallsyms: 6 malformed"),
		   "notice names the recording");
	}
	kt_sym_free(s);
	kt_sym_free(f);
	free(kb);
	free(mb);
}

static void test_sysroot(void)
{
	struct kt_sym_opts o = {.sysroot = tap_data("symbols/sysroot")};
	struct kt_symbols *s = load(&o);
	const struct kt_sym_module *m;

	ok(s != NULL, "sysroot loads proc/kallsyms and proc/modules");
	if (!s)
		return;
	m = kt_sym_module(s, (uint32_t)kt_sym_module_find(s, "sysmod"));
	is_int(m->base, 0xffffffffc0002000ull,
	       "sys/module/NAME/sections/.text gives the text base");
	is_int(m->size, 0x4000, "size counted from the text base");
	is_str(name_at(s, 0xffffffffc0002004ull), "sysmod_fn", "module symbol");
	is_str(module_at(s, 0xffffffffc0001500ull), "[unknown]", "before .text: unknown");
	is_str(name_at(s, 0xffffffff81000020ull), "sys_func", "core symbol");
	kt_sym_free(s);
}

/* The default modules.builtin.ranges belongs to the running kernel: a tree in tmp stands in
 * for /lib/modules so that the host's files play no part. */
static void test_default_ranges(const char *tmp)
{
	static char root[4096], cmd[32768];
	struct kt_sym_opts o = {0};
	struct kt_symbols *s;
	struct utsname u;

	snprintf(root, sizeof(root), "%s/root", tmp);
	if (uname(&u) < 0) {
		ok(0, "uname");
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/proc' '%s/lib/modules/%s' && cp '%s' '%s/proc/kallsyms' && "
		 "cp '%s' '%s/proc/modules' && cp '%s' '%s/lib/modules/%s/modules.builtin.ranges'",
		 root, root, u.release, tap_data("symbols/kallsyms"), root,
		 tap_data("symbols/modules"), root, tap_data("symbols/builtin.ranges"), root,
		 u.release);
	is_int(system(cmd), 0, "a sysroot with lib/modules/RELEASE/modules.builtin.ranges");
	o.sysroot = root;
	s = load(&o);
	ok(s && kt_sym_module_find(s, "e1000") >= 0,
	   "the sysroot's default ranges file applies to its own kallsyms");
	kt_sym_free(s);
	o.kallsyms = tap_data("symbols/kallsyms");
	s = load(&o);
	ok(s && kt_sym_module_find(s, "e1000") < 0,
	   "but not to an explicit --kallsyms FILE (maybe another machine's)");
	if (s)
		is_str(module_at(s, 0xffffffff81000690ull), "vmlinux",
		       "so e1000 code stays vmlinux");
	kt_sym_free(s);
	o.builtin_ranges = tap_data("symbols/builtin.ranges");
	s = load(&o);
	ok(s && kt_sym_module_find(s, "e1000") >= 0, "unless --builtin-ranges is given too");
	kt_sym_free(s);
}

static int expect_fail(struct kt_sym_opts *o, int want, const char *needle, const char *what)
{
	struct kt_symbols *s = (struct kt_symbols *)1;
	int r;

	err[0] = 0;
	r = kt_sym_new(o, &s, err, sizeof(err));
	is_int(r, want, what);
	ok(s == NULL, "no session on failure");
	if (!strstr(err, needle)) {
		ok(0, "error message names the cause");
		printf("#   message '%s' lacks '%s'\n", err, needle);
	} else {
		ok(1, "error message names the cause");
	}
	return r;
}

static void test_bad(const char *tmp)
{
	char empty[4096], junk[4096];
	struct kt_sym_opts o;
	struct kt_symbols *s;
	FILE *fp;
	static const char kptr[] = "0000000000000000 T _stext\n0000000000000000 t foo\n"
				   "0000000000000000 t bar\t[mod]\n";

	snprintf(empty, sizeof(empty), "%s/empty", tmp);
	snprintf(junk, sizeof(junk), "%s/junk", tmp);
	fp = fopen(empty, "w");
	fclose(fp);
	fp = fopen(junk, "w");
	fputs("not kallsyms\nat all\n", fp);
	fclose(fp);

	memset(&o, 0, sizeof(o));
	o.kallsyms = "/nonexistent/kallsyms";
	expect_fail(&o, -ENOENT, "/nonexistent/kallsyms: cannot open", "missing kallsyms");
	o.kallsyms = empty;
	expect_fail(&o, -ENODATA, "empty file; pass --kallsyms", "empty kallsyms");
	o.kallsyms = junk;
	expect_fail(&o, -EINVAL, "no valid kallsyms line (2 malformed)",
		    "kallsyms without one valid line");
	o.kallsyms = tap_data("symbols/kallsyms");
	o.modules = "/nonexistent/modules";
	expect_fail(&o, -ENOENT, "/nonexistent/modules: cannot open", "missing --modules");
	o.modules = empty;
	expect_fail(&o, -ENODATA, "pass --modules", "empty --modules");
	o.modules = NULL;
	o.builtin_ranges = empty;
	expect_fail(&o, -ENODATA, "pass --builtin-ranges", "empty --builtin-ranges");
	o.builtin_ranges = NULL;
	o.vmlinux = "/nonexistent/vmlinux";
	expect_fail(&o, -ENOENT, "--vmlinux needs", "missing --vmlinux");
	o.vmlinux = junk;
	expect_fail(&o, -ENOEXEC, "not an ELF file", "--vmlinux that is not ELF");
	o.vmlinux = empty;
	expect_fail(&o, -ENOEXEC, "empty: not an ELF file; --vmlinux needs", "empty --vmlinux");
	ok(!strchr(err, '('), "without a parenthesised cause when libelf has none");
	o.vmlinux = NULL;
	o.module_dir = "/nonexistent/dir";
	expect_fail(&o, -ENOENT, "--module-dir", "missing --module-dir");
	o.module_dir = NULL;
	o.bucket = 100;
	expect_fail(&o, -EINVAL, "power of two", "--bucket 100");
	o.bucket = 0;
	o.kallsyms = NULL;
	o.kallsyms_buf = "";
	o.kallsyms_len = 0;
	expect_fail(&o, -ENODATA, "recording's kallsyms is empty", "empty recorded kallsyms");

	memset(&o, 0, sizeof(o));
	o.kallsyms_buf = kptr;
	o.kallsyms_len = sizeof(kptr) - 1;
	s = load(&o);
	ok(s != NULL, "kptr_restrict zeroes do not fail");
	if (s) {
		struct kt_sym_stats st;

		kt_sym_stats(s, &st);
		is_int(st.kptr_restricted, 1, "kptr_restrict detected");
		ok(kt_sym_notice(s) && strstr(kt_sym_notice(s), "kernel.kptr_restrict=0") &&
		       strstr(kt_sym_notice(s), "run as root"),
		   "the notice explains the fix");
		is_str(module_at(s, 0xffffffff81000000ull), "[unknown]", "hits land in [unknown]");
		is_int(kt_sym_module(s, KT_MOD_VMLINUX)->nfuncs, 0, "no bogus symbols at 0");
		kt_sym_free(s);
	}
	kt_sym_free(NULL);
}

/* Addresses spread over the whole 64-bit space: the coarse index's last slots wrap. */
static void test_wide(void)
{
	static const char k[] = "0000000000001000 T low_fn\n"
				"ffffffff81000000 T _stext\n"
				"ffffffff81000010 T mid_fn\n"
				"ffffffff81001000 T _etext\n"
				"ffffffffffff0000 t top_fn\t[topmod]\n";
	struct kt_sym_opts o = {.kallsyms_buf = k, .kallsyms_len = sizeof(k) - 1};
	struct kt_symbols *s = load(&o);

	ok(s != NULL, "wide address spread loads");
	if (!s)
		return;
	is_str(name_at(s, 0x1004), "low_fn", "low orphan symbol");
	is_str(name_at(s, 0x2004), "[unknown]+0x2000", "after the low orphan's 4096 bytes");
	is_str(name_at(s, 0xffffffff81000a75ull), "mid_fn", "in the top index slot");
	is_str(name_at(s, 0xffffffff81001a4aull), "[unknown]+0xffffffff81001a40", "past _etext");
	is_str(name_at(s, 0xffffffffffff0fffull), "top_fn", "at the top of the address space");
	is_str(name_at(s, 0xffffffffffffffffull), "[unknown]+0xffffffffffffffc0",
	       "the last address");
	kt_sym_free(s);
}

/* Mutated fixtures (deterministic): loading never crashes, and every address resolves to a
 * function whose range holds it, or to a bucket of the right size. */
static void test_mutations(void)
{
	static const char alphabet[] = "0123456789abcdefx []\t\nTt.=-_";
	size_t kl, ml;
	char *k = slurp(tap_data("symbols/kallsyms"), &kl),
	     *m = slurp(tap_data("symbols/modules"), &ml);
	uint64_t seed = 12345;
	int loaded = 0, bad = 0;

	for (int it = 0; it < 400; it++) {
		char *kb = malloc(kl), *mb = malloc(ml);
		struct kt_sym_opts o = {0};
		struct kt_symbols *s = NULL;

		memcpy(kb, k, kl);
		memcpy(mb, m, ml);
		for (int j = 0; j < 12; j++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			kb[(seed >> 33) % kl] = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
			mb[(seed >> 40) % ml] = alphabet[(seed >> 10) % (sizeof(alphabet) - 1)];
		}
		o.kallsyms_buf = kb;
		o.kallsyms_len = kl - (size_t)(it % 7);
		o.modules_buf = mb;
		o.modules_len = ml;
		o.bucket = 4u << (it % 6);
		if (kt_sym_new(&o, &s, err, sizeof(err)) == 0) {
			loaded++;
			for (int q = 0; q < 300; q++) {
				const struct kt_sym_func *f;
				uint64_t a;

				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				a = q % 3 ? 0xffffffff81000000ull + (seed >> 52)
					  : 0xffffffffc0000000ull + (seed >> 43);
				if (q % 11 == 0)
					a = seed;
				f = func_at(s, a);
				if (!f ||
				    (kt_sym_loc(s, kt_sym_lookup(s, a))->func > 1 &&
				     (a < f->start || a - f->start >= f->size)) ||
				    (f->bucket && f->size != o.bucket))
					bad++;
			}
			kt_sym_free(s);
		}
		free(kb);
		free(mb);
	}
	ok(loaded > 100, "most mutated inputs still load");
	is_int(bad, 0, "every address is inside the function or bucket it resolves to");
	free(k);
	free(m);
}

/* A kallsyms of 1.4 MB is read in 64 KiB pieces (issue 14): every line, those cut by a
 * piece's end included, and the last one without a newline, gives its function. */
static void test_big_kallsyms(const char *tmp)
{
	char path[4096], want[64];
	struct kt_sym_opts o;
	struct kt_symbols *s = NULL;
	struct kt_sym_stats st;
	const uint32_t n = 40000;
	uint32_t bad = 0, lines = 2, slots0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/big-kallsyms", tmp);
	fp = fopen(path, "w");
	fprintf(fp, "ffffffff81000000 T _stext\n");
	for (uint32_t i = 0; i < n; i++, lines++) {
		if (i % 3 == 1)
			fprintf(fp, "%016llx d dat_%u\n", 0xffffffff90000000ull + i * 8ull, i);
		else if (i % 11 == 0)
			fprintf(fp, "%016llx t modfn_%u\t[bigmod]\n",
				0xffffffffd0000000ull + i * 0x40ull, i);
		else
			fprintf(fp, "%016llx T kfn_%u\n", 0xffffffff81001000ull + i * 0x40ull, i);
	}
	fprintf(fp, "%016llx T _etext\n", 0xffffffff81001000ull + n * 0x40ull);
	fprintf(fp, "%016llx T zz_last", 0xffffffff81001000ull + n * 0x40ull - 0x20); /* no \n */
	lines++;
	fclose(fp);
	memset(&o, 0, sizeof(o));
	o.kallsyms = path;
	o.modules = tap_data("symbols/modules");
	if (kt_sym_new(&o, &s, NULL, 0) < 0) {
		ok(0, "a 1.4 MB kallsyms loads");
		return;
	}
	kt_sym_stats(s, &st);
	is_int(st.kallsyms_lines, lines, "every line of a 1.4 MB kallsyms is read once");
	is_int(st.kallsyms_skipped, 0, "and none is malformed (no line cut at a piece's end)");
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a;
		const struct kt_sym_func *f;

		if (i % 3 == 1)
			continue;
		if (i % 11 == 0) {
			a = 0xffffffffd0000000ull + i * 0x40ull + 4;
			snprintf(want, sizeof(want), "modfn_%u", i);
		} else {
			a = 0xffffffff81001000ull + i * 0x40ull + 4;
			snprintf(want, sizeof(want), "kfn_%u", i);
		}
		f = kt_sym_func(s, kt_sym_loc(s, kt_sym_lookup(s, a))->func);
		if (!f || strcmp(f->name, want) != 0) {
			if (bad < 5)
				printf("# %016llx: %s, want %s\n", (unsigned long long)a,
				       f ? f->name : "(none)", want);
			bad++;
		}
	}
	is_int(bad, 0, "every function of the big kallsyms resolves to its own name");
	/* 26 667 functions looked up in turn, 8 times: the range cache has to grow, and every
	 * lookup stays right across its growth (an emptied cache fills from the tables). */
	kt_sym_stats(s, &st);
	slots0 = st.cache_slots;
	/* 26 667 new functions: first sights, which do not grow it */
	is_int(slots0, 2048, "the range cache starts small");
	bad = 0;
	for (int pass = 0; pass < 8; pass++) {
		for (uint32_t i = 0; i < n; i++) {
			uint64_t a = 0xffffffff81001000ull + i * 0x40ull + 4 + (uint64_t)pass * 2;

			if (i % 3 == 1 || i % 11 == 0)
				continue;
			snprintf(want, sizeof(want), "kfn_%u", i);
			if (strcmp(kt_sym_func(s, kt_sym_loc(s, kt_sym_lookup(s, a))->func)->name,
				   want) != 0)
				bad++;
		}
	}
	kt_sym_stats(s, &st);
	ok(st.cache_slots > slots0, "a wide working set grows the range cache");
	printf("# range cache: %u entries\n", st.cache_slots);
	is_int(bad, 0, "every lookup right while it grows");
	{
		const struct kt_sym_func *f = kt_sym_func(
		    s, kt_sym_loc(s, kt_sym_lookup(s, 0xffffffff81001000ull + n * 0x40ull - 0x10))
			   ->func);

		is_str(f ? f->name : "", "zz_last", "the last line, without a newline, is read");
	}
	kt_sym_free(s);
}

/* A symbol list naming more modules than a module id can hold (KT_SYM_MODULES_MAX) is no
 * kernel's: refused with the one-line reason and the way out, not "out of memory" and not a
 * wrapped id. About 36 MB of kallsyms: left out under memcheck (KT_MEMCHECK), where it takes
 * minutes. */
static void test_too_many_modules(const char *tmp)
{
	char path[4096], msg[512] = "";
	struct kt_sym_opts o;
	struct kt_symbols *s = NULL;
	FILE *fp;
	int r;

	snprintf(path, sizeof(path), "%s/many-modules", tmp);
	fp = fopen(path, "w");
	if (!fp) {
		ok(0, "the many-modules kallsyms is written");
		return;
	}
	fprintf(fp, "ffffffff81000000 T _stext\nffffffff81001000 T _etext\n");
	for (uint32_t i = 0; i < KT_SYM_MODULES_MAX; i++)
		fprintf(fp, "%016llx t f\t[m%u]\n", 0xffffffffc0000000ull + i * 0x40ull, i);
	fclose(fp);
	memset(&o, 0, sizeof(o));
	o.kallsyms = path;
	o.modules = tap_data("symbols/modules");
	r = kt_sym_new(&o, &s, msg, sizeof(msg));
	is_int(r, -E2BIG, "a kallsyms naming 2^20 modules is refused");
	ok(s == NULL, "and no symbol table is handed out");
	printf("# %s\n", msg);
	ok(strstr(msg, "modules named: not a kernel's symbol list (check --kallsyms") != NULL,
	   "the message says why and what to check");
	if (s)
		kt_sym_free(s);
}

int main(void)
{
	char tmp[] = "/tmp/kt-symtest.XXXXXX";

	if (!mkdtemp(tmp)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	test_fixture();
	test_options();
	test_buffers();
	test_sysroot();
	test_wide();
	test_mutations();
	test_bad(tmp);
	test_default_ranges(tmp);
	test_big_kallsyms(tmp);
	if (!getenv("KT_MEMCHECK"))
		test_too_many_modules(tmp);
	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmp);
	}
	return tap_done();
}
