/* The symbolizer session: module, function and location tables, the sorted range table
 * that maps an address to a function or bucket, the per-address location cache (the hot
 * path), buckets, the idle list, and the cached source-line lookups. Loading the text
 * files is in symbols_kallsyms.c, ELF and DWARF in symbols_elf.c. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/symbols.h"
#include "symbols_impl.h"

/* The idle routines, the one place they are listed (see docs/symbols.md for why each is
 * here). "name*" matches a prefix; compiler clone suffixes (".isra.0", ".cold") are ignored.
 * do_idle and cpu_startup_entry are deliberately absent: their own instructions are the idle
 * loop's housekeeping (tick stop/restart, RCU, polling checks), real kernel work. */
static const char default_idle_list[] =
	"default_idle,default_idle_call,arch_cpu_idle,cpu_idle_poll,cpuidle_enter_state,"
	"native_safe_halt,pv_native_safe_halt,pvm_safe_halt*,acpi_safe_halt,io_idle,"
	"acpi_idle_do_entry,acpi_idle_enter*,acpi_idle_lpi_enter,acpi_processor_ffh_cstate_enter,"
	"acpi_processor_ffh_lpi_enter,intel_idle*,mwait_idle*,poll_idle,default_enter_idle,"
	"amd_e400_idle,xen_safe_halt,cpu_do_idle";

const char *kt_sym_default_idle(void)
{
	return default_idle_list;
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

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
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

int sym_add_module(struct kt_symbols *s, const char *name, uint64_t base, uint64_t size)
{
	struct kt_sym_module *m;

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
	return (int)s->nmods++;
}

int sym_vec_push(struct sym_vec *v, uint64_t addr, const char *name, uint32_t module, uint8_t type)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 4096;
		struct sym_raw *nv = realloc(v->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = (struct sym_raw){ addr, name, module, type };
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
	v->v[v->n++] = (struct sym_region){ start, end, module, prio };
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
		}
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

int sym_is_idle(const struct kt_symbols *s, const char *name)
{
	const char *dot = strchr(name, '.');
	size_t len = dot && dot != name ? (size_t)(dot - name) : strlen(name);

	for (uint32_t i = 0; i < s->nidle; i++) {
		const struct idle_pat *p = &s->idle[i];

		if (p->prefix ? len >= p->len && !memcmp(name, p->name, p->len)
			      : len == p->len && !memcmp(name, p->name, len))
			return 1;
	}
	return 0;
}

/* Building the tables */

static int add_func(struct kt_symbols *s, const char *name, uint64_t start, uint64_t size,
		    uint32_t module, int bucket)
{
	struct kt_sym_func *f;

	if (grow((void **)&s->funcs, &s->capfuncs, s->nfuncs + 1, sizeof(*s->funcs)) < 0)
		return -ENOMEM;
	f = &s->funcs[s->nfuncs];
	f->name = name;
	f->start = start;
	f->size = size;
	f->module = module;
	f->bucket = (uint8_t)bucket;
	f->idle = bucket ? 0 : (uint8_t)sym_is_idle(s, name);
	return (int)s->nfuncs++;
}

static unsigned leading_underscores(const char *n)
{
	unsigned k = 0;

	while (n[k] == '_')
		k++;
	return k;
}

/* Order by address; at one address the best name first: not weak, fewer leading
 * underscores, global, shorter (memcpy beats __memcpy, a function beats _stext). */
static int sym_cmp(const void *pa, const void *pb)
{
	const struct sym_raw *a = pa, *b = pb;
	int wa, wb, ga, gb;
	unsigned ua, ub;
	size_t la, lb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	wa = a->type == 'W' || a->type == 'w';
	wb = b->type == 'W' || b->type == 'w';
	if (wa != wb)
		return wa - wb;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	ga = a->type >= 'A' && a->type <= 'Z';
	gb = b->type >= 'A' && b->type <= 'Z';
	if (ga != gb)
		return gb - ga;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int region_cmp(const void *pa, const void *pb)
{
	const struct sym_region *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (int)b->prio - (int)a->prio;
}

/* Makes regions disjoint: a builtin range (prio 2) is cut out of vmlinux (prio 0); any
 * other overlap is resolved by clipping the earlier region at the next one's start, which
 * is what a /proc/modules size (covering data too) needs. */
static int regions_normalize(struct region_vec *r)
{
	struct region_vec out = { 0 };
	size_t i, j;

	qsort(r->v, r->n, sizeof(*r->v), region_cmp);
	for (i = 0; i < r->n; i++) {
		struct sym_region cur = r->v[i];

		if (cur.prio == 0) {
			/* carve every higher-priority region inside it */
			for (j = 0; j < r->n && cur.start < cur.end; j++) {
				const struct sym_region *h = &r->v[j];

				if (h->prio == 0 || h->end <= cur.start || h->start >= cur.end)
					continue;
				if (h->start > cur.start &&
				    region_push(&out, cur.start, h->start, cur.module, 0) < 0)
					goto oom;
				cur.start = h->end;
			}
		}
		if (cur.start < cur.end && region_push(&out, cur.start, cur.end, cur.module, cur.prio) < 0)
			goto oom;
	}
	qsort(out.v, out.n, sizeof(*out.v), region_cmp);
	for (i = 0; i + 1 < out.n; i++)
		if (out.v[i].end > out.v[i + 1].start)
			out.v[i].end = out.v[i + 1].start;
	for (i = j = 0; i < out.n; i++)
		if (out.v[i].start < out.v[i].end)
			out.v[j++] = out.v[i];
	out.n = j;
	free(r->v);
	*r = out;
	return 0;
oom:
	free(out.v);
	return -ENOMEM;
}

static int emit(struct kt_symbols *s, uint32_t *cap, uint64_t start, uint32_t val)
{
	if (s->nranges && s->rstart[s->nranges - 1] == start) {
		s->rval[s->nranges - 1] = val;
		return 0;
	}
	if (s->nranges && s->rval[s->nranges - 1] == val && (val & RANGE_BUCKET))
		return 0;
	if (s->nranges == *cap) {
		uint32_t c = *cap ? *cap * 2 : 1024;
		uint64_t *ns = realloc(s->rstart, c * sizeof(*ns));
		uint32_t *nv;

		if (!ns)
			return -ENOMEM;
		s->rstart = ns;
		nv = realloc(s->rval, c * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		s->rval = nv;
		*cap = c;
	}
	s->rstart[s->nranges] = start;
	s->rval[s->nranges++] = val;
	return 0;
}

static int build_index(struct kt_symbols *s)
{
	uint64_t span;
	uint32_t k, i = 0;

	if (!s->nranges)
		return 0;
	s->ibase = s->rstart[0];
	span = s->rstart[s->nranges - 1] - s->ibase;
	s->ishift = 4;
	while ((span >> s->ishift) >= (1u << 16))
		s->ishift++;
	s->nidx = (uint32_t)(span >> s->ishift) + 2;
	s->idx = malloc(s->nidx * sizeof(*s->idx));
	if (!s->idx)
		return -ENOMEM;
	for (k = 0; k < s->nidx; k++) {
		uint64_t at = s->ibase + ((uint64_t)k << s->ishift);

		while (i + 1 < s->nranges && s->rstart[i + 1] <= at)
			i++;
		s->idx[k] = i;
	}
	return 0;
}

/* Assigns sorted symbols to sorted regions; a symbol outside every region of its module
 * is an orphan (a bpf program, an ftrace trampoline) and gets a region of its own. */
static int assign(struct kt_symbols *s, struct sym_vec *syms, struct region_vec *regs,
		  int final, uint32_t *cap)
{
	size_t r = 0, i = 0;
	struct region_vec orphans = { 0 };
	uint64_t prev_end = 0;
	int have_prev = 0;

	for (size_t k = 0; k < syms->n; k++) {
		struct sym_raw *y = &syms->v[k];

		while (r < regs->n && regs->v[r].end <= y->addr)
			r++;
		if (r < regs->n && regs->v[r].start <= y->addr) {
			uint32_t rm = regs->v[r].module;

			if (rm == y->module || (y->module == KT_MOD_VMLINUX && s->mods[rm].builtin)) {
				y->module = rm;
				continue;
			}
		}
		if (final) {
			y->name = NULL;
			continue;
		}
		/* a lone end marker (_etext) right after its region is no function */
		if (r > 0 && regs->v[r - 1].end == y->addr && regs->v[r - 1].module == y->module &&
		    (r >= regs->n || regs->v[r].start > y->addr)) {
			y->name = NULL;
			continue;
		}
		{
			uint64_t end = y->addr + ORPHAN_SPAN;

			if (k + 1 < syms->n && syms->v[k + 1].addr < end && syms->v[k + 1].addr > y->addr)
				end = syms->v[k + 1].addr;
			if (r < regs->n && regs->v[r].start < end)
				end = regs->v[r].start;
			if (region_push(&orphans, y->addr, end, y->module, 1) < 0)
				goto oom;
		}
	}
	if (!final) {
		for (size_t k = 0; k < orphans.n; k++)
			if (region_push(regs, orphans.v[k].start, orphans.v[k].end, orphans.v[k].module,
					1) < 0)
				goto oom;
		free(orphans.v);
		return 0;
	}

	/* final pass: functions and boundaries, region by region */
	i = 0;
	for (r = 0; r < regs->n; r++) {
		const struct sym_region *g = &regs->v[r];
		struct kt_sym_module *m = &s->mods[g->module];

		if (have_prev && prev_end != g->start &&
		    emit(s, cap, prev_end, RANGE_BUCKET | KT_MOD_UNKNOWN) < 0)
			goto oom;
		while (i < syms->n && (!syms->v[i].name || syms->v[i].addr < g->start))
			i++;
		if ((i >= syms->n || syms->v[i].addr > g->start) &&
		    emit(s, cap, g->start, RANGE_BUCKET | g->module) < 0)
			goto oom;
		while (i < syms->n && syms->v[i].addr < g->end) {
			size_t nx = i + 1;
			uint64_t end;
			int f;

			while (nx < syms->n && !syms->v[nx].name)
				nx++;
			end = nx < syms->n && syms->v[nx].addr < g->end ? syms->v[nx].addr : g->end;
			if (syms->v[i].name) {
				f = add_func(s, syms->v[i].name, syms->v[i].addr, end - syms->v[i].addr,
					     g->module, 0);
				if (f < 0 || emit(s, cap, syms->v[i].addr, (uint32_t)f) < 0)
					goto oom;
				m->nfuncs++;
			}
			i = nx;
		}
		prev_end = g->end;
		have_prev = 1;
	}
	if (have_prev && emit(s, cap, prev_end, RANGE_BUCKET | KT_MOD_UNKNOWN) < 0)
		goto oom;
	free(orphans.v);
	return 0;
oom:
	free(orphans.v);
	return -ENOMEM;
}

static void drop_unnamed(struct sym_vec *syms)
{
	size_t j = 0;

	for (size_t i = 0; i < syms->n; i++)
		if (syms->v[i].name)
			syms->v[j++] = syms->v[i];
	syms->n = j;
}

/* Module hulls for builtin and orphan-only modules that have no base from /proc/modules. */
static void module_hulls(struct kt_symbols *s, const struct region_vec *regs)
{
	for (size_t i = 0; i < regs->n; i++) {
		const struct sym_region *g = &regs->v[i];
		struct kt_sym_module *m = &s->mods[g->module];

		if (g->module < KT_MOD_FIRST_REAL || s->mpriv[g->module].text_base)
			continue;
		if (!m->size) {
			m->base = g->start;
			m->size = g->end - g->start;
		} else {
			uint64_t lo = m->base < g->start ? m->base : g->start;
			uint64_t hi = m->base + m->size > g->end ? m->base + m->size : g->end;

			m->base = lo;
			m->size = hi - lo;
		}
	}
}

int sym_build(struct kt_symbols *s, struct sym_vec *syms, struct region_vec *regs)
{
	uint32_t cap = 0;
	size_t j = 0;
	int r;

	qsort(syms->v, syms->n, sizeof(*syms->v), sym_cmp);
	for (size_t i = 0; i < syms->n; i++)
		if (!j || syms->v[j - 1].addr != syms->v[i].addr)
			syms->v[j++] = syms->v[i];
	syms->n = j;

	r = regions_normalize(regs);
	if (r < 0)
		return r;
	r = assign(s, syms, regs, 0, &cap);
	if (r < 0)
		return r;
	drop_unnamed(syms);
	r = regions_normalize(regs);
	if (r < 0)
		return r;
	module_hulls(s, regs);
	r = assign(s, syms, regs, 1, &cap);
	if (r < 0)
		return r;
	return build_index(s);
}

/* Lookups */

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
	r = add_func(s, nm, start, s->bucket, module, 1);
	if (r < 0)
		return 1;
	f = (uint32_t)r;
	s->bhash[h] = (struct bucket_slot){ start, module, f };
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

static int lhash_grow(struct kt_symbols *s)
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
	if (grow((void **)&s->locs, &s->caplocs, s->nlocs + 1, sizeof(*s->locs)) < 0)
		return 1;
	if ((s->nlocs + 1) * 2 > s->lmask + 1) {
		if (lhash_grow(s) < 0)
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

/* Source lines, cached per address (misses too) so a refresh can ask for thousands. */
int kt_sym_srcline(struct kt_symbols *s, uint64_t addr, const char **file, int *line)
{
	uint32_t h, f;
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
	f = kt_sym_resolve(s, addr);
	if (s->mods[s->funcs[f].module].has_lines &&
	    sym_elf_srcline(s, s->funcs[f].module, addr, &fl, &ln) < 0) {
		fl = NULL;
		ln = -1;
	}
	s->lines[h] = (struct line_slot){ addr, fl, fl ? ln : -1, 1 };
	s->nlines++;
found:
	if (!s->lines[h].file)
		return -ENOENT;
	*file = s->lines[h].file;
	*line = s->lines[h].line;
	return 0;
}

/* Session */

int kt_sym_new(const struct kt_sym_opts *o, struct kt_symbols **out, char *err, size_t errlen)
{
	struct kt_symbols *s;
	struct sym_vec syms = { 0 };
	struct region_vec regs = { 0 };
	int r;

	*out = NULL;
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
	r = sym_idle_parse(s, o->idle_symbols ? o->idle_symbols : default_idle_list);
	if (r < 0)
		goto oom;
	if (sym_add_module(s, "vmlinux", 0, 0) < 0 || sym_add_module(s, "[user]", 0, 0) < 0 ||
	    sym_add_module(s, "[unknown]", 0, 0) < 0)
		goto oom;
	/* function 0 and location 0: user mode; location 1: the out-of-memory fallback */
	if (add_func(s, "[user]", 0, 0, KT_MOD_USER, 0) < 0 ||
	    add_func(s, "[unknown]", 0, 0, KT_MOD_UNKNOWN, 1) < 0)
		goto oom;
	if (grow((void **)&s->locs, &s->caplocs, 2, sizeof(*s->locs)) < 0)
		goto oom;
	s->locs[0] = (struct kt_sym_loc){ 0, 0, KT_MOD_USER, 0 };
	s->locs[1] = (struct kt_sym_loc){ 0, 1, KT_MOD_UNKNOWN, 0 };
	s->nlocs = 2;
	if (lhash_grow(s) < 0)
		goto oom;

	r = sym_load_text(s, o, &syms, &regs, err, errlen);
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
	for (uint32_t i = 0; i < s->nmods; i++)
		sym_elf_close(&s->mpriv[i]);
	while (s->strs) {
		struct str_chunk *c = s->strs;

		s->strs = c->next;
		free(c);
	}
	free(s->mods);
	free(s->mpriv);
	free(s->funcs);
	free(s->locs);
	free(s->lhash);
	free(s->bhash);
	free(s->rstart);
	free(s->rval);
	free(s->idx);
	free(s->idle);
	free(s->idle_copy);
	free(s->lines);
	free(s->kbuf);
	free(s->mbuf);
	free(s->rbuf);
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
	for (uint32_t i = 0; i < s->nmods; i++)
		if (!strcmp(s->mods[i].name, name))
			return (int)i;
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
}

const char *kt_sym_notice(const struct kt_symbols *s)
{
	return s->notice[0] ? s->notice : NULL;
}
