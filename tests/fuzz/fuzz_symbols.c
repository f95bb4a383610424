/* Fuzz targets of the symbolizer's text parsers: the input is read as kallsyms, as a
 * /proc/modules list or as modules.builtin.ranges, the other two files being a small fixed
 * context, through the buffers a recording uses (so nothing of the host is read). Every
 * table is then walked and addresses resolved: each must land inside the function or bucket
 * it names, in that function's module. */
#include "config.h"

#include <string.h>

#include "kerntop/symbols.h"
#include "fuzz_targets.h"

static const char ctx_kallsyms[] = "ffffffff81000000 T _text\n"
				   "ffffffff81000000 T _stext\n"
				   "ffffffff81000100 T do_work\n"
				   "ffffffff81000300 t default_idle\n"
				   "ffffffff81000600 t e1000_intr\n"
				   "ffffffff81001000 T _etext\n"
				   "ffffffff82000000 D _sdata\n"
				   "ffffffffc0001000 t fake_mod_init\t[fakemod]\n"
				   "ffffffffc0001080 t fake_mod_xmit\t[fakemod]\n";

static const char ctx_modules[] = "fakemod 16384 0 - Live 0xffffffffc0001000\n"
				  "nosyms 8192 1 fakemod, Live 0xffffffffc0004000 (O)\n";

static volatile uint64_t sink;

static uint64_t word_at(const uint8_t *data, size_t size, size_t i)
{
	uint64_t w = 0;

	for (size_t k = 0; k < 8 && i + k < size; k++)
		w |= (uint64_t)data[i + k] << (8 * k);
	return w;
}

static void check_addr(struct kt_symbols *s, uint64_t addr)
{
	uint32_t loc = kt_sym_lookup(s, addr);
	const struct kt_sym_loc *l = kt_sym_loc(s, loc);
	const struct kt_sym_func *f = l ? kt_sym_func(s, l->func) : NULL;
	const struct kt_sym_module *m = l ? kt_sym_module(s, l->module) : NULL;
	const char *file;
	int line;

	if (!l || !f || !m || f->module != l->module)
		__builtin_trap();
	/* location 1 is the out-of-memory fallback, which has no address */
	if (loc > 1 && l->module != KT_MOD_USER && f->size &&
	    (addr < f->start || addr - f->start >= f->size))
		__builtin_trap();
	sink ^= strlen(f->name) ^ strlen(m->name) ^ l->idle;
	if (kt_sym_srcline(s, addr, &file, &line) == 0)
		sink ^= strlen(file);
}

static void walk(struct kt_symbols *s, const uint8_t *data, size_t size)
{
	struct kt_sym_stats st;
	const char *n = kt_sym_notice(s);
	uint32_t nf = kt_sym_nfuncs(s), nm = kt_sym_nmodules(s);

	kt_sym_stats(s, &st);
	sink ^= st.nfuncs ^ st.nmodules ^ (n ? strlen(n) : 0);
	for (uint32_t i = 0; i < nm; i++) {
		const struct kt_sym_module *m = kt_sym_module(s, i);

		sink ^= strlen(m->name) ^ m->nfuncs;
		if (kt_sym_module_find(s, m->name) < 0)
			__builtin_trap();
		if (m->size) {
			check_addr(s, m->base);
			check_addr(s, m->base + m->size - 1);
		}
	}
	/* the table grows as buckets are found: walk the functions that existed at load */
	for (uint32_t i = 0; i < nf && i < 4096; i++) {
		const struct kt_sym_func *f = kt_sym_func(s, i);
		uint64_t start = f->start, fsize = f->size;

		check_addr(s, start);
		if (fsize)
			check_addr(s, start + fsize - 1);
	}
	for (size_t i = 0; i + 8 <= size && i < 512; i += 8)
		check_addr(s, word_at(data, size, i));
	check_addr(s, 0);
	check_addr(s, UINT64_MAX);
}

static int run(struct kt_sym_opts *o, const uint8_t *data, size_t size)
{
	struct kt_symbols *s = NULL;
	char err[512];
	int accepted = 0;

	/* vary what the input cannot express: bucket size and idle list */
	o->bucket = size ? 4u << (data[0] % 8) : 64;
	o->idle_symbols = size && (data[size - 1] & 1) ? "+do_*,fake_mod*" : NULL;
	if (kt_sym_new(o, &s, err, sizeof(err)) == 0) {
		walk(s, data, size);
		kt_sym_free(s);
		accepted = 1;
	} else if (s || !err[0]) {
		__builtin_trap(); /* a failure always explains itself and leaves no session */
	}
	return accepted;
}

int kt_fuzz_kallsyms(const uint8_t *data, size_t size)
{
	struct kt_sym_opts o = {.kallsyms_buf = (const char *)data,
				.kallsyms_len = size,
				.modules_buf = ctx_modules,
				.modules_len = sizeof(ctx_modules) - 1};

	return run(&o, data, size);
}

int kt_fuzz_modules(const uint8_t *data, size_t size)
{
	struct kt_sym_opts o = {.kallsyms_buf = ctx_kallsyms,
				.kallsyms_len = sizeof(ctx_kallsyms) - 1,
				.modules_buf = (const char *)data,
				.modules_len = size};

	return run(&o, data, size);
}

int kt_fuzz_ranges(const uint8_t *data, size_t size)
{
	struct kt_sym_opts o = {.kallsyms_buf = ctx_kallsyms,
				.kallsyms_len = sizeof(ctx_kallsyms) - 1,
				.modules_buf = ctx_modules,
				.modules_len = sizeof(ctx_modules) - 1,
				.builtin_ranges_buf = (const char *)data,
				.builtin_ranges_len = size};

	return run(&o, data, size);
}
