/* Building the range table once at load: symbols sorted with the best alias first,
 * module regions made disjoint (builtin ranges carved out of vmlinux), orphan symbols given
 * small regions of their own, then one sorted boundary array with a coarse index. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/symbols.h"
#include "symbols_impl.h"

static unsigned leading_underscores(const char *n)
{
	unsigned k = 0;

	while (n[k] == '_')
		k++;
	return k;
}

/* Order by address; at one address the best name first: not weak, fewer leading
 * underscores, global, shorter (memcpy beats __memcpy, a function beats _stext). */
static int sym_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct sym_raw *a = pa, *b = pb;
	const struct kt_symbols *s = ctx;
	const char *na = sym_name(s, a->name), *nb = sym_name(s, b->name);
	int wa, wb, ga, gb;
	unsigned ua, ub;
	size_t la, lb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* an end marker loses to any function starting where it ends */
	if ((a->type == SYM_END) != (b->type == SYM_END))
		return a->type == SYM_END ? 1 : -1;
	wa = a->type == 'W' || a->type == 'w';
	wb = b->type == 'W' || b->type == 'w';
	if (wa != wb)
		return wa - wb;
	ua = leading_underscores(na);
	ub = leading_underscores(nb);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	ga = a->type >= 'A' && a->type <= 'Z';
	gb = b->type >= 'A' && b->type <= 'Z';
	if (ga != gb)
		return gb - ga;
	la = strlen(na);
	lb = strlen(nb);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(na, nb);
}

/* kallsyms is nearly always sorted already: then only the runs of aliases need sorting. */
static void sort_syms(struct kt_symbols *s, struct sym_vec *v)
{
	size_t i, k;

	for (i = 1; i < v->n && v->v[i - 1].addr <= v->v[i].addr; i++)
		;
	if (i < v->n) {
		qsort_r(v->v, v->n, sizeof(*v->v), sym_cmp, s);
		return;
	}
	for (i = 0; i < v->n; i = k) {
		for (k = i + 1; k < v->n && v->v[k].addr == v->v[i].addr; k++)
			;
		if (k - i > 1)
			qsort_r(v->v + i, k - i, sizeof(*v->v), sym_cmp, s);
	}
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
	struct region_vec out = {0};
	size_t i, j;

	if (r->n)
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
		if (cur.start < cur.end &&
		    region_push(&out, cur.start, cur.end, cur.module, cur.prio) < 0)
			goto oom;
	}
	if (out.n)
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
	while ((span >> s->ishift) >= SYM_INDEX_SLOTS)
		s->ishift++;
	s->nidx = (uint32_t)(span >> s->ishift) + 2;
	s->idx = malloc(s->nidx * sizeof(*s->idx));
	if (!s->idx)
		return -ENOMEM;
	for (k = 0; k < s->nidx; k++) {
		uint64_t at = s->ibase + ((uint64_t)k << s->ishift);

		if ((uint64_t)k > (UINT64_MAX - s->ibase) >> s->ishift) {
			s->idx[k] = s->nranges - 1; /* past the top of the address space */
			continue;
		}
		while (i + 1 < s->nranges && s->rstart[i + 1] <= at)
			i++;
		s->idx[k] = i;
	}
	return 0;
}

/* Boundaries within 4 GiB of the first become 32-bit offsets (issue 14: 256 KiB less for a
 * 64 k-function kernel), written over the first half of their own array so that loading
 * never holds both; rval is cut to its length. */
static void narrow_starts(struct kt_symbols *s)
{
	unsigned char *b = (unsigned char *)s->rstart;
	uint32_t *v;

	if (!s->nranges)
		return;
	v = realloc(s->rval, s->nranges * sizeof(*v));
	if (v)
		s->rval = v;
	if (s->rstart[s->nranges - 1] - s->ibase > UINT32_MAX)
		return;
	/* offset i goes to bytes 4i..4i+3, inside start i/2, which is already read */
	for (uint32_t i = 0; i < s->nranges; i++) {
		uint64_t at;
		uint32_t off;

		memcpy(&at, b + (size_t)i * sizeof(at), sizeof(at));
		off = (uint32_t)(at - s->ibase);
		memcpy(b + (size_t)i * sizeof(off), &off, sizeof(off));
	}
	s->roff = realloc(b, s->nranges * sizeof(*s->roff));
	if (!s->roff)
		s->roff = (uint32_t *)b; /* a failed shrink leaves the block as it was */
	s->rstart = NULL;
}

/* Assigns sorted symbols to sorted regions; a symbol outside every region of its module
 * is an orphan (a bpf program, an ftrace trampoline) and gets a region of its own. */
static int assign(struct kt_symbols *s, struct sym_vec *syms, struct region_vec *regs, int final,
		  uint32_t *cap)
{
	size_t r = 0, i = 0;
	struct region_vec orphans = {0};
	uint64_t prev_end = 0;
	int have_prev = 0;

	for (size_t k = 0; k < syms->n; k++) {
		struct sym_raw *y = &syms->v[k];

		while (r < regs->n && regs->v[r].end <= y->addr)
			r++;
		if (r < regs->n && regs->v[r].start <= y->addr) {
			uint32_t rm = regs->v[r].module;

			if (rm == y->module ||
			    (y->module == KT_MOD_VMLINUX && s->mods[rm].builtin)) {
				y->module = rm;
				continue;
			}
		}
		if (final || y->type == SYM_END) {
			y->name = 0; /* an end marker outside its module's range ends nothing */
			continue;
		}
		/* a lone end marker (_etext) right after its region is no function */
		if (r > 0 && regs->v[r - 1].end == y->addr && regs->v[r - 1].module == y->module &&
		    (r >= regs->n || regs->v[r].start > y->addr)) {
			y->name = 0;
			continue;
		}
		{
			uint64_t end = y->addr + ORPHAN_SPAN;

			if (k + 1 < syms->n && syms->v[k + 1].addr < end &&
			    syms->v[k + 1].addr > y->addr)
				end = syms->v[k + 1].addr;
			if (r < regs->n && regs->v[r].start < end)
				end = regs->v[r].start;
			if (region_push(&orphans, y->addr, end, y->module, 1) < 0)
				goto oom;
		}
	}
	if (!final) {
		for (size_t k = 0; k < orphans.n; k++)
			if (region_push(regs, orphans.v[k].start, orphans.v[k].end,
					orphans.v[k].module, 1) < 0)
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
			if (syms->v[i].type == SYM_END) {
				/* past an ELF function's st_size: buckets up to the next symbol */
				if (emit(s, cap, syms->v[i].addr, RANGE_BUCKET | g->module) < 0)
					goto oom;
			} else if (syms->v[i].name) {
				f = sym_add_func(s, sym_name(s, syms->v[i].name), syms->v[i].addr,
						 end - syms->v[i].addr, g->module, 0);
				if (f < 0 || emit(s, cap, syms->v[i].addr, (uint32_t)f) < 0)
					goto oom;
				/* a function's size is 32 bits: past 4 GiB (a corrupt list),
				 * buckets */
				if (end - syms->v[i].addr > UINT32_MAX &&
				    emit(s, cap, syms->v[i].addr + UINT32_MAX,
					 RANGE_BUCKET | g->module) < 0)
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

	/* the arena is cut to size before any function points into it */
	if (s->capnames > s->nnames) {
		char *n = realloc(s->names, s->nnames ? s->nnames : 1);

		if (n) {
			s->names = n;
			s->capnames = s->nnames ? s->nnames : 1;
		}
	}
	sort_syms(s, syms);
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
	/* the functions and boundaries hold it all now: the list (16 bytes a symbol, 1 MB for
	 * 64 k) goes before the boundaries are narrowed, so that loading peaks lower */
	free(syms->v);
	*syms = (struct sym_vec){0};
	r = build_index(s);
	if (r < 0)
		return r;
	narrow_starts(s);
	return 0;
}
