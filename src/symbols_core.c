/* The symbolizer session: creation and teardown, the module and function tables, the idle
 * list, and the accessors. The range table is built in symbols_build.c, lookups and the
 * caches are in symbols_lookup.c, the text files in symbols_kallsyms.c, ELF and DWARF in
 * symbols_elf.c. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/symbols.h"
#include "symbols_impl.h"

const char *kt_sym_default_idle(void)
{
	return KT_SYM_DEFAULT_IDLE;
}

uint32_t sym_name_add(struct kt_symbols *s, const char *str, size_t len)
{
	size_t at = s->nnames;

	if (len + 1 > UINT32_MAX - 1 - at)
		return 0;
	if (at + len + 1 > s->capnames) {
		size_t cap = s->capnames ? s->capnames : 65536;
		char *n;

		while (cap < at + len + 1)
			cap *= 2;
		n = realloc(s->names, cap);
		if (!n)
			return 0;
		s->names = n;
		s->capnames = cap;
	}
	memcpy(s->names + at, str, len);
	s->names[at + len] = 0;
	s->nnames = at + len + 1;
	return (uint32_t)at + 1;
}

char *sym_strdup(struct kt_symbols *s, const char *str, size_t len)
{
	struct str_chunk *c = s->strs;
	char *p;

	if (!c || c->cap - c->used < len + 1) {
		size_t cap = len + 1 > 65536 ? len + 1 : 65536;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = s->strs;
		s->strs = c;
	}
	p = c->data + c->used;
	memcpy(p, str, len);
	p[len] = 0;
	c->used += len + 1;
	return p;
}

int sym_grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t n = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	np = realloc(*p, (size_t)n * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = n;
	return 0;
}

static uint32_t name_hash(const char *str)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *str; str++)
		h = (h ^ (unsigned char)*str) * 1099511628211ull;
	return (uint32_t)(h ^ (h >> 32));
}

/* Puts module id into the name index, growing it to stay at most half full. */
static int mhash_add(struct kt_symbols *s, uint32_t id)
{
	uint32_t i;

	if (!s->mhash || (s->nmods + 1) * 2 > s->mhmask + 1) {
		uint32_t cap = s->mhash ? (s->mhmask + 1) * 2 : 64;
		uint32_t *nh = calloc(cap, sizeof(*nh));

		if (!nh)
			return -ENOMEM;
		for (uint32_t m = 0; m < s->nmods; m++) {
			for (i = name_hash(s->mods[m].name) & (cap - 1); nh[i];
			     i = (i + 1) & (cap - 1))
				;
			nh[i] = m + 1;
		}
		free(s->mhash);
		s->mhash = nh;
		s->mhmask = cap - 1;
	}
	for (i = name_hash(s->mods[id].name) & s->mhmask; s->mhash[i]; i = (i + 1) & s->mhmask)
		;
	s->mhash[i] = id + 1;
	return 0;
}

int sym_add_module(struct kt_symbols *s, const char *name, uint64_t base, uint64_t size)
{
	struct kt_sym_module *m;

	if (s->nmods >= KT_SYM_MODULES_MAX - 1)
		return -E2BIG;
	if (s->nmods == s->capmods) {
		uint32_t c = s->capmods ? s->capmods * 2 : 16;
		struct kt_sym_module *nm = realloc(s->mods, c * sizeof(*nm));
		struct mod_priv *np;

		if (!nm)
			return -ENOMEM;
		s->mods = nm;
		np = realloc(s->mpriv, c * sizeof(*np));
		if (!np)
			return -ENOMEM;
		s->mpriv = np;
		s->capmods = c;
	}
	m = &s->mods[s->nmods];
	memset(m, 0, sizeof(*m));
	memset(&s->mpriv[s->nmods], 0, sizeof(s->mpriv[0]));
	m->name = name;
	m->base = base;
	m->size = size;
	if (mhash_add(s, s->nmods) < 0)
		return -ENOMEM;
	return (int)s->nmods++;
}

int sym_vec_push(struct sym_vec *v, uint64_t addr, uint32_t name, uint32_t module, uint8_t type)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 4096;
		struct sym_raw *nv = realloc(v->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = (struct sym_raw){addr, name, module, type};
	return 0;
}

int region_push(struct region_vec *v, uint64_t start, uint64_t end, uint32_t module, uint8_t prio)
{
	if (end <= start)
		return 0;
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		struct sym_region *nv = realloc(v->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = (struct sym_region){start, end, module, prio};
	return 0;
}

/* Idle list */

int sym_idle_parse(struct kt_symbols *s, const char *list)
{
	char *p;
	uint32_t n = 1;

	free(s->idle_copy);
	free(s->idle);
	s->idle = NULL;
	s->nidle = 0;
	memset(s->idle_first, 0, sizeof(s->idle_first));
	s->idle_copy = strdup(list);
	if (!s->idle_copy)
		return -ENOMEM;
	for (p = s->idle_copy; *p; p++)
		n += *p == ',';
	s->idle = calloc(n, sizeof(*s->idle));
	if (!s->idle)
		return -ENOMEM;
	for (p = s->idle_copy; p;) {
		char *comma = strchr(p, ','), *end;
		size_t len;

		if (comma)
			*comma = 0;
		while (*p == ' ')
			p++;
		end = p + strlen(p);
		while (end > p && end[-1] == ' ')
			*--end = 0;
		len = strlen(p);
		if (len) {
			struct idle_pat *ip = &s->idle[s->nidle++];

			ip->prefix = p[len - 1] == '*';
			ip->len = len - (size_t)ip->prefix;
			ip->name = p;
			if (ip->len)
				s->idle_first[(unsigned char)p[0] >> 6] |=
				    1ull << ((unsigned char)p[0] & 63);
			else
				memset(s->idle_first, 0xff, sizeof(s->idle_first)); /* "*": all */
		}
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

int sym_is_idle(const struct kt_symbols *s, const char *name)
{
	const char *dot;
	size_t len;

	/* most names fail on their first letter; this runs once per symbol at load */
	if (!(s->idle_first[(unsigned char)name[0] >> 6] & (1ull << ((unsigned char)name[0] & 63))))
		return 0;
	dot = strchr(name, '.');
	len = dot && dot != name ? (size_t)(dot - name) : strlen(name);

	for (uint32_t i = 0; i < s->nidle; i++) {
		const struct idle_pat *p = &s->idle[i];

		if (p->prefix ? len >= p->len && !memcmp(name, p->name, p->len)
			      : len == p->len && !memcmp(name, p->name, len))
			return 1;
	}
	return 0;
}

int sym_add_func(struct kt_symbols *s, const char *name, uint64_t start, uint64_t size,
		 uint32_t module, int bucket)
{
	struct kt_sym_func *f;

	if (sym_grow((void **)&s->funcs, &s->capfuncs, s->nfuncs + 1, sizeof(*s->funcs)) < 0)
		return -ENOMEM;
	f = &s->funcs[s->nfuncs];
	f->name = name;
	f->start = start;
	f->size = size < UINT32_MAX ? (uint32_t)size : UINT32_MAX;
	f->module = module;
	f->bucket = bucket != 0;
	f->role = 0;
	/* buckets too: "mod*" marks a whole symbol-less module (an idle driver) idle */
	f->idle = sym_is_idle(s, name) != 0;
	/* the kernel's own list of idle code: everything it put in .cpuidle.text */
	if (module == KT_MOD_VMLINUX && start >= s->cpuidle_start && start < s->cpuidle_end)
		f->idle = 1;
	return (int)s->nfuncs++;
}

/* Session */

int kt_sym_new(const struct kt_sym_opts *o, struct kt_symbols **out, char *err, size_t errlen)
{
	struct kt_symbols *s;
	struct sym_vec syms = {0};
	struct region_vec regs = {0};
	int r;

	*out = NULL;
	if (errlen)
		err[0] = 0;
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "symbols: out of memory");
		return -ENOMEM;
	}
	s->bucket = o->bucket ? o->bucket : 64;
	if (s->bucket < 4 || s->bucket > (1u << 20) || (s->bucket & (s->bucket - 1))) {
		snprintf(err, errlen, "--bucket %u: must be a power of two from 4 to 1048576 bytes",
			 s->bucket);
		free(s);
		return -EINVAL;
	}
	if (!o->idle_symbols) {
		r = sym_idle_parse(s, KT_SYM_DEFAULT_IDLE);
	} else if (o->idle_symbols[0] == '+') {
		/* "+LIST" extends the built-in list */
		size_t n = strlen(o->idle_symbols) + sizeof(KT_SYM_DEFAULT_IDLE) + 1;
		char *both = malloc(n);

		r = -ENOMEM;
		if (both) {
			snprintf(both, n, "%s,%s", KT_SYM_DEFAULT_IDLE, o->idle_symbols + 1);
			r = sym_idle_parse(s, both);
			free(both);
		}
	} else {
		r = sym_idle_parse(s, o->idle_symbols);
	}
	if (r < 0)
		goto oom;
	if (sym_add_module(s, "vmlinux", 0, 0) < 0 || sym_add_module(s, "[user]", 0, 0) < 0 ||
	    sym_add_module(s, "[unknown]", 0, 0) < 0)
		goto oom;
	/* function 0 and location 0: user mode; location 1: the out-of-memory fallback */
	if (sym_add_func(s, "[user]", 0, 0, KT_MOD_USER, 0) < 0 ||
	    sym_add_func(s, "[unknown]", 0, 0, KT_MOD_UNKNOWN, 1) < 0)
		goto oom;
	if (sym_grow((void **)&s->locs, &s->caplocs, 2, sizeof(*s->locs)) < 0)
		goto oom;
	s->locs[0] = (struct kt_sym_loc){0, 0, KT_MOD_USER, 0};
	s->locs[1] = (struct kt_sym_loc){0, 1, KT_MOD_UNKNOWN, 0};
	s->nlocs = 2;
	if (sym_ctx_init(s) < 0)
		goto oom;
	if (sym_loc_table_grow(&s->lhash) < 0 || sym_loc_table_grow(&s->slices) < 0 ||
	    sym_text_init(s, o) < 0)
		goto oom;

	r = sym_load_text(s, o, &syms, &regs, err, errlen);
	if (r == -ENOMEM && errlen && !err[0])
		goto oom; /* the parsers' allocation failures come back without a message */
	if (r == -E2BIG && errlen && !err[0])
		snprintf(err, errlen,
			 "symbols: more than %u modules named: not a kernel's symbol "
			 "list (check --kallsyms and --modules)",
			 KT_SYM_MODULES_MAX - 2);
	if (r < 0)
		goto fail;
	r = sym_build(s, &syms, &regs);
	if (r < 0)
		goto oom;
	free(syms.v);
	free(regs.v);
	*out = s;
	return 0;
oom:
	snprintf(err, errlen, "symbols: out of memory");
	r = -ENOMEM;
fail:
	free(syms.v);
	free(regs.v);
	kt_sym_free(s);
	return r;
}

void kt_sym_free(struct kt_symbols *s)
{
	if (!s)
		return;
	sym_text_free(s);
	for (uint32_t i = 0; i < s->nmods; i++)
		sym_elf_close(&s->mpriv[i]);
	free(s->names);
	while (s->strs) {
		struct str_chunk *c = s->strs;

		s->strs = c->next;
		free(c);
	}
	free(s->mods);
	free(s->mhash);
	free(s->mpriv);
	free(s->funcs);
	free(s->locs);
	free(s->idlemap);
	free(s->lhash.slot);
	free(s->rcache);
	free(s->slices.slot);
	free(s->bhash);
	free(s->rstart);
	free(s->roff);
	free(s->rval);
	free(s->idx);
	free(s->idle);
	free(s->idle_copy);
	free(s->lines);
	free(s->mbuf);
	free(s->rbuf);
	free(s->sysfs_root);
	for (uint32_t i = 0; s->build_ids && i < s->nmods; i++)
		free(s->build_ids[i]);
	free(s->build_ids);
	free(s->fnames);
	sym_ctx_free(s);
	free(s);
}

uint32_t kt_sym_nlocs(const struct kt_symbols *s)
{
	return s->nlocs;
}

uint32_t kt_sym_nfuncs(const struct kt_symbols *s)
{
	return s->nfuncs;
}

uint32_t kt_sym_nmodules(const struct kt_symbols *s)
{
	return s->nmods;
}

const struct kt_sym_loc *kt_sym_loc(const struct kt_symbols *s, uint32_t loc)
{
	return loc < s->nlocs ? &s->locs[loc] : NULL;
}

int kt_sym_loc_idle(const struct kt_symbols *s, uint32_t loc)
{
	return loc / 64 < s->idlewords && (s->idlemap[loc / 64] >> (loc % 64) & 1);
}

const struct kt_sym_func *kt_sym_func(const struct kt_symbols *s, uint32_t func)
{
	return func < s->nfuncs ? &s->funcs[func] : NULL;
}

const struct kt_sym_module *kt_sym_module(const struct kt_symbols *s, uint32_t module)
{
	return module < s->nmods ? &s->mods[module] : NULL;
}

int kt_sym_module_find(const struct kt_symbols *s, const char *name)
{
	uint32_t i, m;

	if (!s->mhash)
		return -1;
	/* the first id with the name, as the linear search gave: ids grow along the probe */
	for (i = name_hash(name) & s->mhmask; (m = s->mhash[i]) != 0; i = (i + 1) & s->mhmask)
		if (!strcmp(s->mods[m - 1].name, name))
			return (int)(m - 1);
	return -1;
}

uint32_t kt_sym_bucket(const struct kt_symbols *s)
{
	return s->bucket;
}

void kt_sym_stats(const struct kt_symbols *s, struct kt_sym_stats *st)
{
	*st = s->st;
	st->nmodules = s->nmods;
	st->nfuncs = s->nfuncs;
	st->nlocs = s->nlocs;
	st->cache_slots = s->rcache ? s->rcmask + 1 : 0;
	st->cache_fills = s->rcfills_all;
}

uint64_t kt_sym_nomem(const struct kt_symbols *s)
{
	return s->nomem;
}

const char *kt_sym_notice(const struct kt_symbols *s)
{
	return s->notice[0] ? s->notice : NULL;
}
