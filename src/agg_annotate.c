/* Annotate: one function's instructions (Capstone, Intel syntax) with the exact-address hits
 * of each, its share of the function, direct jump and call targets by name, and the source
 * line of each instruction where libdw has one. Built on request (the screen, --annotate,
 * a recording's TEXT blocks), never on the ingest path. */
#include "config.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg_impl.h"
#include "kerntop/agg.h"
#include "kerntop/symbols.h"
#include "kerntop/util.h"
#include "kerntop/window.h"

#if defined(__x86_64__)
#define KT_CS_ARCH CS_ARCH_X86
#define KT_CS_MODE CS_MODE_64
#elif defined(__aarch64__)
#define KT_CS_ARCH CS_ARCH_ARM64
#define KT_CS_MODE CS_MODE_ARM
#endif

#ifdef KT_CS_ARCH
#define KT_CS_STR2(x) #x
#define KT_CS_STR(x) KT_CS_STR2(x)
/* The library of the major version whose capstone.h this file was compiled with. */
#define KT_CS_SONAME "libcapstone.so." KT_CS_STR(CS_API_MAJOR)

/* Capstone's functions, loaded on the first annotate (kt_dl_open). */
static struct {
	int loaded;
	cs_err (*open)(cs_arch arch, cs_mode mode, csh *handle);
	cs_err (*option)(csh handle, cs_opt_type type, size_t value);
	cs_insn *(*malloc)(csh handle);
	bool (*disasm_iter)(csh handle, const uint8_t **code, size_t *size, uint64_t *address,
			    cs_insn *insn);
	void (*free)(cs_insn *insn, size_t count);
	cs_err (*close)(csh *handle);
} cs;

static int cs_load(char *err, size_t errlen)
{
	char why[256];
	void *h;

	if (cs.loaded)
		return 0;
	h = kt_dl_open(KT_CS_SONAME, "Capstone (Debian: libcapstone4)", why, sizeof(why));
	if (!h || kt_dl_fn(h, KT_CS_SONAME, "cs_open", &cs.open, why, sizeof(why)) ||
	    kt_dl_fn(h, KT_CS_SONAME, "cs_option", &cs.option, why, sizeof(why)) ||
	    kt_dl_fn(h, KT_CS_SONAME, "cs_malloc", &cs.malloc, why, sizeof(why)) ||
	    kt_dl_fn(h, KT_CS_SONAME, "cs_disasm_iter", &cs.disasm_iter, why, sizeof(why)) ||
	    kt_dl_fn(h, KT_CS_SONAME, "cs_free", &cs.free, why, sizeof(why)) ||
	    kt_dl_fn(h, KT_CS_SONAME, "cs_close", &cs.close, why, sizeof(why))) {
		snprintf(err, errlen, "annotate: %s", why);
		return -ENOSYS;
	}
	cs.loaded = 1;
	return 0;
}
#endif

static int push(struct kt_annotate *an, struct kt_annot_insn **out)
{
	if (an->ninsns == an->cap) {
		size_t cap = an->cap ? an->cap * 2 : 256;
		struct kt_annot_insn *v = realloc(an->insns, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		an->insns = v;
		an->cap = cap;
	}
	*out = &an->insns[an->ninsns++];
	memset(*out, 0, sizeof(**out));
	return 0;
}

/* The direct target of a jump or call, or 0 (indirect, or not a branch). */
static uint64_t branch_target(const cs_insn *in, int *call)
{
	const cs_detail *d = in->detail;
	int jump = 0;

	*call = 0;
	if (!d)
		return 0;
	for (uint8_t g = 0; g < d->groups_count; g++) {
		if (d->groups[g] == CS_GRP_CALL)
			*call = 1;
		else if (d->groups[g] == CS_GRP_JUMP)
			jump = 1;
	}
	if (!*call && !jump)
		return 0;
#if defined(__x86_64__)
	if (d->x86.op_count == 1 && d->x86.operands[0].type == X86_OP_IMM)
		return (uint64_t)d->x86.operands[0].imm;
#elif defined(__aarch64__)
	for (uint8_t i = 0; i < d->arm64.op_count; i++)
		if (d->arm64.operands[i].type == ARM64_OP_IMM)
			return (uint64_t)d->arm64.operands[i].imm;
#endif
	return 0;
}

/* "name", "name+0x10" for a target outside the function, "+0x40" inside it. */
static void target_name(struct kt_symbols *s, const struct kt_annotate *an, uint64_t t,
			struct kt_annot_insn *in)
{
	uint32_t f;
	uint64_t start;
	const char *name;

	in->target = t;
	in->target_func = KT_ANY;
	if (t >= an->start && t < an->start + an->size) {
		snprintf(in->target_name, sizeof(in->target_name), "%s+0x%" PRIx64, an->name,
			 t - an->start);
		return;
	}
	f = kt_sym_resolve(s, t);
	start = kt_sym_func(s, f)->start;
	name = kt_sym_func(s, f)->name;
	if (kt_sym_func(s, f)->module == KT_MOD_UNKNOWN) {
		in->target_name[0] = 0;
		return;
	}
	in->target_func = f;
	if (t == start)
		snprintf(in->target_name, sizeof(in->target_name), "%s", name);
	else
		snprintf(in->target_name, sizeof(in->target_name), "%s+0x%" PRIx64, name,
			 t - start);
}

int kt_agg_annotate(struct kt_agg *a, uint32_t func, struct kt_annotate *an, char *err,
		    size_t errlen)
{
	struct kt_symbols *s = a->s;
	const struct kt_sym_func *fn;
	uint8_t *text = NULL;
	uint64_t sum = 0;
	size_t len;
	int r;

	memset(an, 0, sizeof(*an));
	if (func >= kt_sym_nfuncs(s)) {
		snprintf(err, errlen, "annotate: no function %u", func);
		return -EINVAL;
	}
	fn = kt_sym_func(s, func);
	an->func = func;
	an->module = fn->module;
	an->name = fn->name;
	an->module_name = kt_sym_module(s, fn->module)->name;
	an->start = fn->start;
	an->size = fn->size;
	an->hits = kt_window_addr_range(a->w, fn->start, fn->start + fn->size);
	if (!fn->size) {
		snprintf(err, errlen, "annotate %s: its size is unknown", fn->name);
		return -ENOENT;
	}
	len = fn->size < KT_TEXT_MAX ? (size_t)fn->size : KT_TEXT_MAX;
	if (len < fn->size)
		an->size = len;
	text = malloc(len);
	if (!text) {
		snprintf(err, errlen, "annotate: out of memory");
		return -ENOMEM;
	}
	r = kt_sym_text(s, an->start, &len, text, &an->source, err, errlen);
	if (r < 0) {
		free(text);
		return r;
	}
	an->size = len;
#ifdef KT_CS_ARCH
	{
		csh h;
		cs_insn *in;
		const uint8_t *code = text;
		size_t left = len;
		uint64_t pc = an->start;

		r = cs_load(err, errlen);
		if (r < 0) {
			free(text);
			return r;
		}
		if (cs.open(KT_CS_ARCH, KT_CS_MODE, &h) != CS_ERR_OK) {
			free(text);
			snprintf(err, errlen, "annotate: capstone cannot open its disassembler");
			return -ENOSYS;
		}
		cs.option(h, CS_OPT_DETAIL, CS_OPT_ON);
		in = cs.malloc(h);
		r = in ? 0 : -ENOMEM;
		while (left && r == 0) {
			struct kt_annot_insn *o;
			const uint8_t *at = code;
			uint64_t ipc = pc;

			r = push(an, &o);
			if (r < 0)
				break;
			o->addr = ipc;
			o->target_func = KT_ANY;
			if (cs.disasm_iter(h, &code, &left, &pc, in)) {
				int call;
				uint64_t t;

				o->size = in->size;
				snprintf(o->text, sizeof(o->text), "%.31s%s%.140s", in->mnemonic,
					 in->op_str[0] ? " " : "", in->op_str);
				t = branch_target(in, &call);
				o->call = (uint8_t)call;
				o->jump = (uint8_t)!call;
				if (t)
					target_name(s, an, t, o);
				else
					o->call = o->jump = 0;
			} else {
				/* undecodable: one byte, as objdump's (bad) */
				o->size = 1;
				snprintf(o->text, sizeof(o->text), "(bad) .byte 0x%02x", *at);
				code = at + 1;
				left--;
				pc = ipc + 1;
			}
			o->hits = kt_window_addr_range(a->w, ipc, ipc + o->size);
			sum += o->hits;
			if (o->hits > an->max_hits)
				an->max_hits = o->hits;
			if (kt_sym_srcline(s, ipc, &o->file, &o->line) < 0)
				o->file = NULL;
		}
		cs.free(in, 1);
		cs.close(&h);
	}
#else
	r = -ENOSYS;
	snprintf(err, errlen, "annotate: no disassembler for this architecture");
#endif
	free(text);
	if (r < 0) {
		if (r == -ENOMEM)
			snprintf(err, errlen, "annotate: out of memory");
		kt_annotate_free(an);
		return r;
	}
	/* hits between instruction starts (a wrong text source) are counted, not hidden */
	an->outside = an->hits > sum ? an->hits - sum : 0;
	for (size_t i = 0; i < an->ninsns; i++)
		an->insns[i].pct = an->hits ? 100.0 * (double)an->insns[i].hits / (double)an->hits : 0;
	return 0;
}

void kt_annotate_free(struct kt_annotate *an)
{
	if (!an)
		return;
	free(an->insns);
	an->insns = NULL;
	an->ninsns = an->cap = 0;
}

int kt_agg_func_find(struct kt_agg *a, const char *spec, uint32_t *func, char *err, size_t errlen)
{
	struct kt_symbols *s = a->s;
	const char *colon = strchr(spec, ':'), *name = colon ? colon + 1 : spec;
	size_t modlen = colon ? (size_t)(colon - spec) : 0;
	uint32_t n = kt_sym_nfuncs(s), found = KT_ANY, nfound = 0;
	uint64_t best = 0;
	char mods[256];
	size_t ml = 0;

	mods[0] = 0;
	for (uint32_t f = 0; f < n; f++) {
		const struct kt_sym_func *fn = kt_sym_func(s, f);
		const char *mod;
		uint64_t hits;

		if (fn->bucket || strcmp(fn->name, name))
			continue;
		mod = kt_sym_module(s, fn->module)->name;
		if (colon && (strlen(mod) != modlen || strncmp(mod, spec, modlen)))
			continue;
		hits = kt_window_addr_range(a->w, fn->start, fn->start + fn->size);
		if (found != KT_ANY && kt_sym_func(s, found)->module != fn->module)
			nfound++;
		else if (found == KT_ANY)
			nfound = 1;
		if (ml + strlen(mod) + 3 < sizeof(mods) && !strstr(mods, mod))
			ml += (size_t)snprintf(mods + ml, sizeof(mods) - ml, "%s%s", ml ? ", " : "",
					       mod);
		if (found == KT_ANY || hits > best) {
			found = f;
			best = hits;
		}
	}
	if (found == KT_ANY) {
		snprintf(err, errlen,
			 "--annotate %s: no such function%s%.*s (names come from kallsyms or the "
			 "ELF files given)",
			 spec, colon ? " in module " : "", (int)modlen, spec);
		return -ENOENT;
	}
	if (nfound > 1) {
		snprintf(err, errlen, "--annotate %s: the name is in several modules (%s): give "
				      "MODULE:%s",
			 spec, mods, name);
		return -EEXIST;
	}
	*func = found;
	return 0;
}
