/* The hot path: address -> range (coarse index + binary search) -> function or bucket,
 * and address -> location through an open-addressing cache; plus the per-address cache of
 * source lines. No allocation once an address has been seen. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/symbols.h"
#include "symbols_impl.h"

static inline uint32_t hash64(uint64_t x, uint32_t mask)
{
	x ^= x >> 29;
	x *= 0x9E3779B97F4A7C15ull;
	return (uint32_t)(x >> 32) & mask;
}

static inline int64_t range_find(const struct kt_symbols *s, uint64_t addr)
{
	uint32_t lo, hi;

	if (!s->nranges || addr < s->ibase)
		return -1;
	if (addr >= s->rstart[s->nranges - 1])
		return s->nranges - 1;
	{
		uint64_t k = (addr - s->ibase) >> s->ishift;

		lo = s->idx[k];
		hi = s->idx[k + 1];
	}
	/* last boundary <= addr within [lo, hi] */
	while (lo < hi) {
		uint32_t mid = (lo + hi + 1) / 2;

		if (s->rstart[mid] <= addr)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static uint32_t bucket_func(struct kt_symbols *s, uint32_t module, uint64_t addr)
{
	const struct kt_sym_module *m = &s->mods[module];
	uint64_t base = addr >= m->base ? m->base : 0;
	uint64_t start = base + ((addr - base) & ~(uint64_t)(s->bucket - 1));
	uint32_t h, f;
	char name[160];
	const char *nm;
	int r;

	if (!s->bhash || (s->nbuckets + 1) * 2 > s->bmask + 1) {
		uint32_t ncap = s->bhash ? (s->bmask + 1) * 2 : 1024;
		struct bucket_slot *nb = malloc(ncap * sizeof(*nb));

		if (!nb)
			return 1;
		for (uint32_t i = 0; i < ncap; i++)
			nb[i].func = UINT32_MAX;
		if (s->bhash) {
			for (uint32_t i = 0; i <= s->bmask; i++) {
				struct bucket_slot *o = &s->bhash[i];

				if (o->func == UINT32_MAX)
					continue;
				h = hash64(o->start ^ ((uint64_t)o->module << 56), ncap - 1);
				while (nb[h].func != UINT32_MAX)
					h = (h + 1) & (ncap - 1);
				nb[h] = *o;
			}
		}
		free(s->bhash);
		s->bhash = nb;
		s->bmask = ncap - 1;
	}
	h = hash64(start ^ ((uint64_t)module << 56), s->bmask);
	while (s->bhash[h].func != UINT32_MAX) {
		if (s->bhash[h].start == start && s->bhash[h].module == module)
			return s->bhash[h].func;
		h = (h + 1) & s->bmask;
	}
	snprintf(name, sizeof(name), "%s+0x%llx", m->name, (unsigned long long)(start - base));
	nm = sym_strdup(s, name, strlen(name));
	if (!nm)
		return 1;
	r = sym_add_func(s, nm, start, s->bucket, module, 1);
	if (r < 0)
		return 1;
	f = (uint32_t)r;
	s->bhash[h] = (struct bucket_slot){start, module, f};
	s->nbuckets++;
	return f;
}

uint32_t kt_sym_resolve(struct kt_symbols *s, uint64_t addr)
{
	int64_t i = range_find(s, addr);
	uint32_t v = i < 0 ? (RANGE_BUCKET | KT_MOD_UNKNOWN) : s->rval[i];

	if (!(v & RANGE_BUCKET))
		return v;
	return bucket_func(s, v & ~RANGE_BUCKET, addr);
}

int sym_lhash_grow(struct kt_symbols *s)
{
	uint32_t ncap = s->lhash ? (s->lmask + 1) * 2 : 4096;
	struct loc_slot *nh = calloc(ncap, sizeof(*nh));

	if (!nh)
		return -ENOMEM;
	for (uint32_t i = 1; i < s->nlocs; i++) {
		uint32_t h;

		if (i == 1)
			continue; /* the out-of-memory fallback is never hashed */
		h = hash64(s->locs[i].addr, ncap - 1);
		while (nh[h].loc)
			h = (h + 1) & (ncap - 1);
		nh[h].addr = s->locs[i].addr;
		nh[h].loc = i;
	}
	free(s->lhash);
	s->lhash = nh;
	s->lmask = ncap - 1;
	return 0;
}

uint32_t kt_sym_lookup(struct kt_symbols *s, uint64_t addr)
{
	uint32_t h, f, loc;
	struct kt_sym_loc *l;

	if (addr == s->last_addr && s->last_loc)
		return s->last_loc;
	h = hash64(addr, s->lmask);
	for (;;) {
		const struct loc_slot *sl = &s->lhash[h];

		if (!sl->loc)
			break;
		if (sl->addr == addr) {
			s->last_addr = addr;
			s->last_loc = sl->loc;
			return sl->loc;
		}
		h = (h + 1) & s->lmask;
	}
	f = kt_sym_resolve(s, addr);
	if (sym_grow((void **)&s->locs, &s->caplocs, s->nlocs + 1, sizeof(*s->locs)) < 0)
		return 1;
	if ((s->nlocs + 1) * 2 > s->lmask + 1) {
		if (sym_lhash_grow(s) < 0)
			return 1;
		h = hash64(addr, s->lmask);
		while (s->lhash[h].loc)
			h = (h + 1) & s->lmask;
	}
	loc = s->nlocs++;
	l = &s->locs[loc];
	l->addr = addr;
	l->func = f;
	l->module = s->funcs[f].module;
	l->idle = s->funcs[f].idle;
	s->lhash[h].addr = addr;
	s->lhash[h].loc = loc;
	s->last_addr = addr;
	s->last_loc = loc;
	return loc;
}

/* One copy of each source line label, so that equal strings are equal pointers (the lines
 * view groups by the pointer). Returns NULL when out of memory. */
static uint64_t str_hash(const char *str)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *str; str++)
		h = (h ^ (unsigned char)*str) * 1099511628211ull;
	return h;
}

const char *sym_intern(struct kt_symbols *s, const char *str)
{
	uint32_t i;
	const char *c;

	if (!s->fnames || (s->nfnames + 1) * 2 > s->fnmask + 1) {
		uint32_t ncap = s->fnames ? (s->fnmask + 1) * 2 : 256;
		const char **nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return NULL;
		for (i = 0; s->fnames && i <= s->fnmask; i++) {
			uint32_t k;

			if (!s->fnames[i])
				continue;
			k = hash64(str_hash(s->fnames[i]), ncap - 1);
			while (nt[k])
				k = (k + 1) & (ncap - 1);
			nt[k] = s->fnames[i];
		}
		free(s->fnames);
		s->fnames = nt;
		s->fnmask = ncap - 1;
	}
	for (i = hash64(str_hash(str), s->fnmask); s->fnames[i]; i = (i + 1) & s->fnmask)
		if (!strcmp(s->fnames[i], str))
			return s->fnames[i];
	c = sym_strdup(s, str, strlen(str));
	if (c) {
		s->fnames[i] = c;
		s->nfnames++;
	}
	return c;
}

/* Source lines, cached per address (misses too) so a refresh can ask for thousands. */
int kt_sym_srcline(struct kt_symbols *s, uint64_t addr, const char **file, int *line)
{
	uint32_t h, v, m;
	int64_t ri;
	const char *fl = NULL;
	int ln = -1;

	if (!s->lines || (s->nlines + 1) * 2 > s->linemask + 1) {
		uint32_t ncap = s->lines ? (s->linemask + 1) * 2 : 1024;
		struct line_slot *nl = calloc(ncap, sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		for (uint32_t i = 0; s->lines && i <= s->linemask; i++) {
			if (!s->lines[i].used)
				continue;
			h = hash64(s->lines[i].addr, ncap - 1);
			while (nl[h].used)
				h = (h + 1) & (ncap - 1);
			nl[h] = s->lines[i];
		}
		free(s->lines);
		s->lines = nl;
		s->linemask = ncap - 1;
	}
	h = hash64(addr, s->linemask);
	while (s->lines[h].used) {
		if (s->lines[h].addr == addr)
			goto found;
		h = (h + 1) & s->linemask;
	}
	/* the module only: creating a bucket here would move the tables under the caller */
	ri = range_find(s, addr);
	v = ri < 0 ? (RANGE_BUCKET | KT_MOD_UNKNOWN) : s->rval[ri];
	m = v & RANGE_BUCKET ? v & ~RANGE_BUCKET : s->funcs[v].module;
	if (s->mods[m].builtin)
		m = KT_MOD_VMLINUX; /* built-in module code is in the vmlinux ELF */
	if (s->mods[m].has_lines && sym_elf_srcline(s, m, addr, &fl, &ln) < 0) {
		fl = NULL;
		ln = -1;
	}
	s->lines[h] = (struct line_slot){addr, fl, fl ? ln : -1, 1};
	s->nlines++;
found:
	if (!s->lines[h].file)
		return -ENOENT;
	*file = s->lines[h].file;
	*line = s->lines[h].line;
	return 0;
}
