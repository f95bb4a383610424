/* The hot path: address -> range (coarse index + binary search) -> function or bucket,
 * and address -> location through an open-addressing cache; plus the per-address cache of
 * source lines. No allocation once an address has been seen. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/symbols.h"
#include "kerntop/util.h"
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
	if (addr >= sym_range_start(s, s->nranges - 1))
		return s->nranges - 1;
	{
		uint64_t k = (addr - s->ibase) >> s->ishift;

		lo = s->idx[k];
		hi = s->idx[k + 1];
	}
	/* last boundary <= addr within [lo, hi] */
	while (lo < hi) {
		uint32_t mid = (lo + hi + 1) / 2;

		if (sym_range_start(s, mid) <= addr)
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

		if (!nb) {
			s->nomem++;
			return 1;
		}
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
	if (!nm) {
		s->nomem++;
		return 1;
	}
	r = sym_add_func(s, nm, start, s->bucket, module, 1);
	if (r < 0) {
		s->nomem++;
		return 1;
	}
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

/* The address table maps every sampled address seen so far to its location; several
 * addresses share one location where the module has no source lines (see loc_key): the
 * slice table finds that location on an address's first sight. Both grow by rehashing their
 * own slots. */
int sym_loc_table_grow(struct loc_table *t)
{
	uint32_t ncap = t->slot ? (t->mask + 1) * 2 : 4096;
	struct loc_slot *nh = calloc(ncap, sizeof(*nh));

	if (!nh)
		return -ENOMEM;
	for (uint32_t i = 0; t->slot && i <= t->mask; i++) {
		uint32_t h;

		if (!t->slot[i].loc)
			continue;
		h = hash64(t->slot[i].addr, ncap - 1);
		while (nh[h].loc)
			h = (h + 1) & (ncap - 1);
		nh[h] = t->slot[i];
	}
	free(t->slot);
	t->slot = nh;
	t->mask = ncap - 1;
	return 0;
}

/* The location of addr in t, or 0 with *pos where it goes. In the slice table the
 * location's function must match too (func; UINT32_MAX in the address table): a nested or
 * overlapping symbol may start a slice at the same address. */
static uint32_t loc_table_find(const struct kt_symbols *s, const struct loc_table *t, uint64_t addr,
			       uint32_t func, uint32_t *pos)
{
	uint32_t h = hash64(addr, t->mask);

	for (; t->slot[h].loc; h = (h + 1) & t->mask)
		if (t->slot[h].addr == addr &&
		    (func == UINT32_MAX || s->locs[t->slot[h].loc].func == func))
			return t->slot[h].loc;
	*pos = h;
	return 0;
}

/* Adds addr -> loc (known to be absent), growing t first to stay at most half full. */
static int loc_table_put(struct loc_table *t, uint64_t addr, uint32_t loc)
{
	uint32_t h;

	if ((t->n + 1) * 2 > t->mask + 1 && sym_loc_table_grow(t) < 0)
		return -ENOMEM;
	h = hash64(addr, t->mask);
	while (t->slot[h].loc)
		h = (h + 1) & t->mask;
	t->slot[h] = (struct loc_slot){addr, loc, 0};
	t->n++;
	return 0;
}

/* What a location stands for. Where the module has source lines, the exact address (two
 * instructions of one bucket may be on different lines). Elsewhere the deepest level is a
 * --bucket slice of the function, so every address of one slice is one location: the
 * location, the aggregator's per-location data and the since-start totals then grow with
 * the slices the kernel has run, not with every distinct instruction sampled. */
static uint64_t loc_key(const struct kt_symbols *s, uint32_t f, uint64_t addr)
{
	const struct kt_sym_func *fn = &s->funcs[f];
	const struct kt_sym_module *m = fn->module < s->nmods ? &s->mods[fn->module] : NULL;
	uint64_t b = s->bucket ? s->bucket : 64;

	if ((m && m->has_lines) || addr < fn->start)
		return addr;
	return fn->start + (addr - fn->start) / b * b;
}

/* Sets location loc's bit in the idle map, growing it: -ENOMEM when it cannot. */
static int idle_mark(struct kt_symbols *s, uint32_t loc)
{
	if (loc / 64 >= s->idlewords) {
		uint32_t n = s->idlewords ? s->idlewords : 16;
		uint64_t *m;

		while (loc / 64 >= n)
			n *= 2;
		m = realloc(s->idlemap, (size_t)n * sizeof(*m));
		if (!m)
			return -ENOMEM;
		memset(m + s->idlewords, 0, (size_t)(n - s->idlewords) * sizeof(*m));
		s->idlemap = m;
		s->idlewords = n;
	}
	s->idlemap[loc / 64] |= 1ull << (loc % 64);
	return 0;
}

/* The first entry of an address's set in the bucket-range cache: the 64-byte lines of one
 * 4 MiB region in consecutive sets, each region from its own offset (a hash of its number).
 * Direct-mapped by address alone, every region started at the same slot: the modules, 16 MiB
 * apart, took the slots of each other and of the kernel's first 4 MiB (a 256-CPU replay
 * missed the cache on 7 % of its lookups, each some four cache misses deeper in the tables;
 * 5 % with the offsets, 0.x % with sets of four as well). */
static inline uint32_t rcache_set(const struct kt_symbols *s, uint64_t addr)
{
	uint32_t sets = (s->rcmask + 1) / SYM_RCACHE_WAYS;

	return ((uint32_t)((addr >> 6) + hash64(addr >> 22, UINT32_MAX)) & (sets - 1)) *
	       SYM_RCACHE_WAYS;
}

/* An empty cache of n entries (a power of two, at least SYM_RCACHE_WAYS), each set on one
 * cache line; NULL when out of memory. */
static struct sym_rcache *rcache_new(uint32_t n)
{
	struct sym_rcache *c = aligned_alloc(64, (size_t)n * sizeof(*c));

	if (c)
		memset(c, 0, (size_t)n * sizeof(*c));
	return c;
}

/* Puts range e in its set of s's cache as the newest entry (the oldest of a full set gives
 * way). The set is the range start's: an address of the range on another line looks in
 * another set and fills that one, as before. */
static void rcache_put(struct kt_symbols *s, const struct sym_rcache *e, uint64_t addr)
{
	struct sym_rcache *rc = &s->rcache[rcache_set(s, addr)];

	memmove(rc + 1, rc, (SYM_RCACHE_WAYS - 1) * sizeof(*rc));
	rc[0] = *e;
}

/* The end of a period of SYM_RCACHE_PERIOD lookups: a cache that had to be filled too often
 * doubles, keeping its ranges (issue 14: emptied at each of its five doublings, a 256-CPU
 * replay's first half second filled it five times over, each fill a few misses deep in the
 * tables). */
static void rcache_period(struct kt_symbols *s)
{
	uint32_t n = s->rcmask + 1;

	if (s->rcache && n < SYM_RCACHE_MAX &&
	    s->rcfills > SYM_RCACHE_PERIOD / SYM_RCACHE_GROW_RATIO) {
		struct sym_rcache *old = s->rcache, *c = rcache_new(n * 2);

		if (c) {
			s->rcache = c;
			s->rcmask = n * 2 - 1;
			/* oldest first, so that each set keeps its order */
			for (uint32_t w = SYM_RCACHE_WAYS; w-- > 0;)
				for (uint32_t i = w; i < n; i += SYM_RCACHE_WAYS)
					if (old[i].loc)
						rcache_put(s, &old[i], old[i].lo);
			free(old);
		}
	}
	s->rclookups = s->rcfills = 0;
}

void kt_sym_prefetch(const struct kt_symbols *s, uint64_t addr)
{
	if (s->rcache)
		KT_PREFETCH(&s->rcache[rcache_set(s, addr)]);
}

uint32_t kt_sym_lookup(struct kt_symbols *s, uint64_t addr)
{
	uint32_t pos, f, loc, fresh = 0;
	uint64_t key;
	struct kt_sym_loc *l;
	struct sym_rcache *rc;

	if (addr == s->last_addr && s->last_loc)
		return s->last_loc;
	if (++s->rclookups == SYM_RCACHE_PERIOD)
		rcache_period(s);
	rc = s->rcache ? &s->rcache[rcache_set(s, addr)] : NULL;
	for (uint32_t i = 0; rc && i < SYM_RCACHE_WAYS; i++)
		if (rc[i].loc && addr - rc[i].lo < rc[i].len) {
			loc = rc[i].loc;
			goto found;
		}
	loc = loc_table_find(s, &s->lhash, addr, UINT32_MAX, &pos);
	if (loc)
		goto found;
	f = kt_sym_resolve(s, addr);
	key = loc_key(s, f, addr);
	loc = loc_table_find(s, &s->slices, key, f, &pos);
	if (!loc) {
		if (sym_grow((void **)&s->locs, &s->caplocs, s->nlocs + 1, sizeof(*s->locs)) < 0 ||
		    (s->funcs[f].idle && idle_mark(s, s->nlocs) < 0) ||
		    loc_table_put(&s->slices, key, s->nlocs) < 0) {
			if (s->nlocs / 64 < s->idlewords) /* the next location is not this one */
				s->idlemap[s->nlocs / 64] &= ~(1ull << (s->nlocs % 64));
			s->nomem++; /* location 1 is [user]: the caller must not report it */
			return 1;
		}
		loc = s->nlocs++;
		fresh = 1;
		l = &s->locs[loc];
		l->addr = key;
		l->func = f;
		l->module = s->funcs[f].module;
		l->idle = s->funcs[f].idle;
	}
	if (!s->rcache && (s->rcache = rcache_new(SYM_RCACHE_MIN)))
		s->rcmask = SYM_RCACHE_MIN - 1; /* NULL: lhash alone */
	if (s->rcache && key != addr && s->funcs[f].size && addr >= s->funcs[f].start &&
	    addr - s->funcs[f].start < s->funcs[f].size) {
		uint64_t end = s->funcs[f].start + s->funcs[f].size;
		uint64_t hi = key + (s->bucket ? s->bucket : 64);

		s->rcfills += !fresh; /* a first sight is no sign of a small cache */
		s->rcfills_all++;
		rcache_put(s,
			   &(struct sym_rcache){key, (uint32_t)((hi < end ? hi : end) - key), loc},
			   addr);
		goto found;
	}
	if (loc_table_put(&s->lhash, addr, loc) < 0) {
		s->nomem++;
		return 1;
	}
found:
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

int kt_sym_frames(struct kt_symbols *s, uint64_t addr, struct kt_sym_frame *out, int max)
{
	int64_t ri = range_find(s, addr);
	uint32_t v = ri < 0 ? (RANGE_BUCKET | KT_MOD_UNKNOWN) : s->rval[ri];
	uint32_t m = v & RANGE_BUCKET ? v & ~RANGE_BUCKET : s->funcs[v].module;

	if (s->mods[m].builtin)
		m = KT_MOD_VMLINUX; /* built-in module code is in the vmlinux ELF */
	return s->mods[m].has_lines ? sym_elf_frames(s, m, addr, out, max) : 0;
}
