/* pprof profiles: the window's current totals as a profile.proto message (proto/profile.proto,
 * packed by protobuf-c) compressed with gzip, the currency of go tool pprof, Grafana Pyroscope
 * and Parca. One Sample per (call chain, label set), one Location per kerntop location, one
 * Function per function or bucket (and per inlined callee), one Mapping per module that has
 * hits. The format is described in docs/report-format.md. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/sample.h"
#include "kerntop/util.h"
#include "profile.pb-c.h"
#include "report_impl.h"
#include "util_idx.h"

typedef Perftools__Profiles__Profile PProfile;
typedef Perftools__Profiles__ValueType PValueType;
typedef Perftools__Profiles__Sample PSample;
typedef Perftools__Profiles__Label PLabel;
typedef Perftools__Profiles__Mapping PMapping;
typedef Perftools__Profiles__Location PLocation;
typedef Perftools__Profiles__Line PLine;
typedef Perftools__Profiles__Function PFunction;

#define MAX_LABELS 5

/* A sample before packing: its key and the hits summed under it. */
struct psample {
	uint32_t loc, stack, cpu, lab; /* lab: task id, comm string index or 0 */
	uint32_t ctx;		       /* context label's string index, or 0 */
	int32_t pid, tid;
	uint8_t task;  /* pid and tid are labels (not a task group) */
	uint32_t comm; /* string index, or 0 */
	uint64_t hits;
};

struct pfunc {
	int64_t name, file;
};

struct ploc {
	uint64_t addr;
	uint32_t mapping; /* pprof mapping id, 0 for none */
	uint32_t line0;	  /* first of nlines in the line array */
	uint32_t nlines;
};

struct pline {
	uint32_t func; /* pprof function id */
	int64_t line;
};

struct builder {
	const struct kt_window *w;
	struct kt_symbols *s;
	const struct kt_pprof_opts *o;
	const char **str; /* string table; [0] = "" */
	uint32_t nstr, strcap;
	struct kt_idx stridx;
	struct psample *smp;
	uint32_t nsmp, smpcap;
	struct kt_idx smpidx;
	/* kerntop id -> pprof id (0 = not yet) */
	uint32_t *locmap, *funcmap, *modmap;
	uint32_t nlocmap, nfuncmap, nmodmap;
	struct ploc *loc;
	uint32_t nloc, loccap;
	struct pline *line;
	uint32_t nline, linecap;
	struct pfunc *func;
	uint32_t nfunc, funccap;
	struct kt_idx funcidx; /* functions by name string index, for inlined callees */
	uint32_t *mods;	       /* kerntop module id of each pprof mapping (id - 1) */
	uint8_t *modlines;     /* that mapping has a location with a source line */
	uint32_t nmods, modcap, modlinescap;
	char **owned; /* strings made here (build ids, "[name]") */
	uint32_t nowned, ownedcap;
	int nomem; /* a mapping could not be made (mapping_of's 0 is also "no mapping") */
};

/* v to the nearest integer, halves away from zero, within int64 (a period in ns, a count
 * of ns): llround without the maths library. */
static int64_t to_i64(double v)
{
	if (v >= 9.2e18)
		return INT64_MAX;
	if (v <= -9.2e18)
		return INT64_MIN;
	return v < 0 ? -(int64_t)(0.5 - v) : (int64_t)(v + 0.5);
}

static uint32_t hash_str(const char *s)
{
	uint64_t x = 0xcbf29ce484222325ull;

	for (; *s; s++)
		x = (x ^ (unsigned char)*s) * 0x100000001b3ull;
	return kt_hash64(x);
}

struct strkey {
	const struct builder *b;
	const char *s;
};

static int str_eq(const void *ctx, uint32_t id)
{
	const struct strkey *k = ctx;

	return strcmp(k->b->str[id], k->s) == 0;
}

/* The string table index of s ("" and NULL are 0); -1 when out of memory. */
static int64_t str_id(struct builder *b, const char *s)
{
	struct strkey k = {b, s};
	uint32_t h, pos = 0, id;

	if (!s || !*s)
		return 0;
	h = hash_str(s);
	id = kt_idx_find(&b->stridx, h, str_eq, &k, &pos);
	if (id != UINT32_MAX)
		return id;
	if (kt_grow((void **)&b->str, &b->strcap, b->nstr + 1, sizeof(*b->str)) < 0 ||
	    kt_idx_insert(&b->stridx, h, b->nstr, pos) < 0)
		return -1;
	b->str[b->nstr] = s;
	return b->nstr++;
}

/* A copy of s that lives as long as the builder (the string table points at it). */
static const char *own(struct builder *b, const char *s)
{
	char *c;

	if (kt_grow((void **)&b->owned, &b->ownedcap, b->nowned + 1, sizeof(*b->owned)) < 0)
		return NULL;
	c = strdup(s);
	if (c)
		b->owned[b->nowned++] = c;
	return c;
}

struct smpkey {
	const struct builder *b;
	const struct psample *k;
};

static int smp_eq(const void *ctx, uint32_t id)
{
	const struct smpkey *c = ctx;
	const struct psample *e = &c->b->smp[id];

	return e->loc == c->k->loc && e->stack == c->k->stack && e->cpu == c->k->cpu &&
	       e->lab == c->k->lab && e->ctx == c->k->ctx;
}

/* Grows an id map to cover n ids (new entries 0). */
static int map_grow(uint32_t **map, uint32_t *nmap, uint32_t n)
{
	uint32_t *m;

	if (n <= *nmap)
		return 0;
	m = realloc(*map, (size_t)n * sizeof(*m));
	if (!m)
		return -ENOMEM;
	memset(m + *nmap, 0, (size_t)(n - *nmap) * sizeof(*m));
	*map = m;
	*nmap = n;
	return 0;
}

/* The pprof function id of a name not in the kerntop tables (an inlined callee). */
struct funckey {
	const struct builder *b;
	int64_t name;
};

static int func_eq(const void *ctx, uint32_t id)
{
	const struct funckey *k = ctx;

	return k->b->func[id].name == k->name;
}

static uint32_t func_new(struct builder *b, int64_t name, int64_t file)
{
	if (kt_grow((void **)&b->func, &b->funccap, b->nfunc + 1, sizeof(*b->func)) < 0)
		return 0;
	b->func[b->nfunc] = (struct pfunc){name, file};
	return ++b->nfunc;
}

static uint32_t func_inlined(struct builder *b, const char *name, const char *file)
{
	int64_t n = str_id(b, name), f = str_id(b, file);
	struct funckey k = {b, n};
	uint32_t h, pos = 0, id;

	if (n < 0 || f < 0)
		return 0;
	h = kt_hash64((uint64_t)n | 1ull << 63);
	id = kt_idx_find(&b->funcidx, h, func_eq, &k, &pos);
	if (id != UINT32_MAX)
		return id + 1;
	id = func_new(b, n, f);
	if (id && kt_idx_insert(&b->funcidx, h, id - 1, pos) < 0)
		return 0;
	return id;
}

/* The pprof function id of a kerntop function (or bucket). */
static uint32_t func_of(struct builder *b, uint32_t func)
{
	const struct kt_sym_func *f;
	int64_t n;
	uint32_t id;

	if (map_grow(&b->funcmap, &b->nfuncmap, kt_sym_nfuncs(b->s)) < 0)
		return 0;
	if (func >= b->nfuncmap)
		return 0;
	if (b->funcmap[func])
		return b->funcmap[func];
	f = kt_sym_func(b->s, func);
	n = str_id(b, f && f->name ? f->name : "[unknown]");
	if (n < 0)
		return 0;
	id = func_new(b, n, 0);
	b->funcmap[func] = id;
	return id;
}

/* The pprof mapping id of a module; 0 for [user], [unknown] and modules without a range. */
static uint32_t mapping_of(struct builder *b, uint32_t module)
{
	const struct kt_sym_module *m;

	if (module == KT_MOD_USER || module == KT_MOD_UNKNOWN)
		return 0;
	if (map_grow(&b->modmap, &b->nmodmap, kt_sym_nmodules(b->s)) < 0) {
		b->nomem = 1;
		return 0;
	}
	if (module >= b->nmodmap)
		return 0;
	if (b->modmap[module])
		return b->modmap[module];
	m = kt_sym_module(b->s, module);
	if (!m)
		return 0;
	if (kt_grow((void **)&b->mods, &b->modcap, b->nmods + 1, sizeof(*b->mods)) < 0 ||
	    kt_grow((void **)&b->modlines, &b->modlinescap, b->nmods + 1, 1) < 0) {
		b->nomem = 1;
		return 0;
	}
	b->mods[b->nmods] = module;
	b->modlines[b->nmods] = 0;
	b->modmap[module] = ++b->nmods;
	return b->nmods;
}

static int line_add(struct builder *b, uint32_t func, int64_t line)
{
	if (!func || kt_grow((void **)&b->line, &b->linecap, b->nline + 1, sizeof(*b->line)) < 0)
		return -ENOMEM;
	b->line[b->nline++] = (struct pline){func, line};
	return 0;
}

/* The pprof location id of a kerntop location, made on first use with its lines: the
 * inlined callees leaf first, then the function itself (pprof's order). */
static uint32_t loc_of(struct builder *b, uint32_t loc)
{
	struct kt_sym_frame fr[KT_SYM_MAX_FRAMES];
	const struct kt_sym_loc *sl;
	struct ploc *pl;
	uint64_t addr;
	uint32_t func, module, fid;
	int n;

	if (map_grow(&b->locmap, &b->nlocmap, kt_sym_nlocs(b->s)) < 0 || loc >= b->nlocmap)
		return 0;
	if (b->locmap[loc])
		return b->locmap[loc];
	sl = kt_sym_loc(b->s, loc);
	if (!sl)
		return 0;
	addr = sl->addr;
	func = sl->func;
	module = sl->module;
	if (kt_grow((void **)&b->loc, &b->loccap, b->nloc + 1, sizeof(*b->loc)) < 0)
		return 0;
	pl = &b->loc[b->nloc];
	pl->addr = loc == KT_LOC_USER ? 0 : addr;
	pl->mapping = mapping_of(b, module);
	pl->line0 = b->nline;
	pl->nlines = 0;
	fid = func_of(b, func);
	if (!fid)
		return 0;
	n = loc == KT_LOC_USER ? 0 : kt_sym_frames(b->s, addr, fr, KT_SYM_MAX_FRAMES);
	for (int i = 0; i < n - 1; i++)
		if (line_add(b, func_inlined(b, fr[i].func, fr[i].file), fr[i].line) < 0)
			return 0;
	if (n > 0) {
		/* the function keeps kerntop's name; its file comes from its own frame */
		if (!b->func[fid - 1].file)
			b->func[fid - 1].file = str_id(b, fr[n - 1].file);
		if (pl->mapping)
			b->modlines[pl->mapping - 1] = 1;
	}
	if (line_add(b, fid, n > 0 ? fr[n - 1].line : 0) < 0)
		return 0;
	pl->nlines = b->nline - pl->line0;
	b->locmap[loc] = ++b->nloc;
	return b->nloc;
}

static int passes(const struct builder *b, const struct kt_hit *h)
{
	const struct kt_filter *f = b->o->filter;

	if (!f)
		return 1;
	if (f->cpu != KT_ANY && h->cpu != f->cpu)
		return 0;
	if (f->cpuset && (h->cpu >= b->o->max_cpu || !kt_cpuset_has(f->cpuset, h->cpu)))
		return 0;
	if (f->task != KT_ANY && h->task != f->task)
		return 0;
	if (f->ctx != KT_ANY && h->ctx != f->ctx)
		return 0;
	if (f->hide_idle && h->loc != KT_LOC_USER) {
		const struct kt_sym_loc *sl = kt_sym_loc(b->s, h->loc);

		if (sl && sl->idle)
			return 0;
	}
	return 1;
}

/* The task's command name: this window's, or the names window's when this one has none
 * (the push window starts empty every interval; the viewer's window knows the names). */
static const char *task_comm(const struct builder *b, const struct kt_task *t)
{
	const char *c = t->comm;

	if ((!c || !*c) && b->o->names && t->pid >= 0) {
		uint32_t id = kt_window_task_find(b->o->names, t->pid, t->tid);
		const struct kt_task *nt =
		    id == UINT32_MAX ? NULL : kt_window_task_info(b->o->names, id);

		if (nt)
			c = nt->comm;
	}
	return c;
}

static int add_hit(struct builder *b, const struct kt_hit *h)
{
	const unsigned lab = b->o->labels;
	struct psample k = {.loc = h->loc, .stack = h->stack};
	const struct kt_task *t = kt_window_task_info(b->w, h->task);
	struct smpkey key = {b, &k};
	uint32_t hash, pos = 0, id;

	if (lab & KT_PPROF_CPU)
		k.cpu = h->cpu + 1;
	if (t) {
		int64_t comm = lab & KT_PPROF_COMM ? str_id(b, task_comm(b, t)) : 0;

		if (comm < 0)
			return -ENOMEM;
		k.comm = (uint32_t)comm;
		if ((lab & (KT_PPROF_PID | KT_PPROF_TID)) && t->pid >= 0) {
			k.pid = t->pid;
			k.tid = t->tid;
			k.task = 1;
			k.lab = h->task + 1;
		} else {
			k.lab = k.comm ? k.comm | 1u << 31 : 0;
		}
	}
	/* no context label for samples without a chain: "unknown" says nothing */
	if ((lab & KT_PPROF_CONTEXT) && h->ctx != KT_CTXID_UNKNOWN) {
		const struct kt_sym_ctx *c = kt_sym_ctx(b->s, h->ctx);
		int64_t cs = str_id(b, c ? c->label : NULL);

		if (cs < 0)
			return -ENOMEM;
		k.ctx = (uint32_t)cs;
	}
	hash = kt_hash4(k.loc, k.stack, k.cpu, k.lab ^ k.ctx * 0x9e3779b9u);
	id = kt_idx_find(&b->smpidx, hash, smp_eq, &key, &pos);
	if (id == UINT32_MAX) {
		if (kt_grow((void **)&b->smp, &b->smpcap, b->nsmp + 1, sizeof(*b->smp)) < 0 ||
		    kt_idx_insert(&b->smpidx, hash, b->nsmp, pos) < 0)
			return -ENOMEM;
		id = b->nsmp++;
		b->smp[id] = k;
	}
	b->smp[id].hits += h->hits;
	return 0;
}

/* The chain of a sample as kerntop location ids, leaf first: the stack, which usually starts
 * with the sampled address itself, else the sampled location and then the stack (as the
 * aggregator's stacks view does). */
static uint32_t chain(const struct builder *b, const struct psample *p, uint32_t *out, uint32_t max)
{
	uint32_t n = 0, k = 0;
	const uint32_t *fr = p->stack ? kt_window_stack_frames(b->w, p->stack, &n) : NULL;

	if (!n || fr[0] != p->loc)
		out[k++] = p->loc;
	for (uint32_t i = 0; i < n && k < max; i++)
		out[k++] = fr[i];
	return k;
}

static void builder_free(struct builder *b)
{
	free(b->str);
	kt_idx_free(&b->stridx);
	free(b->smp);
	kt_idx_free(&b->smpidx);
	free(b->locmap);
	free(b->funcmap);
	free(b->modmap);
	free(b->loc);
	free(b->line);
	free(b->func);
	kt_idx_free(&b->funcidx);
	free(b->mods);
	free(b->modlines);
	for (uint32_t i = 0; i < b->nowned; i++)
		free(b->owned[i]);
	free(b->owned);
}

/* The storage of the protobuf-c message: flat arrays, one allocation each. */
struct packed {
	PSample *smp;
	PSample **psmp;
	uint64_t *locids;
	int64_t *vals;
	PLabel *lab;
	PLabel **plab;
	PMapping *map;
	PMapping **pmap;
	PLocation *loc;
	PLocation **ploc;
	PLine *line;
	PLine **pline;
	PFunction *func;
	PFunction **pfunc;
};

static void packed_free(struct packed *p)
{
	free(p->smp);
	free(p->psmp);
	free(p->locids);
	free(p->vals);
	free(p->lab);
	free(p->plab);
	free(p->map);
	free(p->pmap);
	free(p->loc);
	free(p->ploc);
	free(p->line);
	free(p->pline);
	free(p->func);
	free(p->pfunc);
}

static void label(struct packed *p, uint32_t *n, int64_t key, int64_t str, int64_t num,
		  int64_t unit)
{
	PLabel *l = &p->lab[*n];

	perftools__profiles__label__init(l);
	l->key = key;
	l->str = str;
	l->num = num;
	l->num_unit = unit;
	p->plab[(*n)++] = l;
}

static int pack_samples(struct builder *b, struct packed *p, PProfile *pr)
{
	static const char *const keys[MAX_LABELS] = {"cpu", "comm", "pid", "tid", "context"};
	int64_t key[MAX_LABELS];
	uint32_t chainbuf[KT_MAX_STACK + 1], nlab = 0;
	size_t nids = 0;
	const double period = b->o->period_ns;

	static const char *const units[MAX_LABELS] = {"cpu", NULL, "pid", "tid", NULL};
	int64_t unit[MAX_LABELS];

	for (int i = 0; i < MAX_LABELS; i++)
		if ((key[i] = str_id(b, keys[i])) < 0 || (unit[i] = str_id(b, units[i])) < 0)
			return -ENOMEM;
	/* chains first: they create the locations */
	for (uint32_t i = 0; i < b->nsmp; i++)
		nids += chain(b, &b->smp[i], chainbuf, KT_MAX_STACK + 1);
	p->smp = calloc(b->nsmp ? b->nsmp : 1, sizeof(*p->smp));
	p->psmp = calloc(b->nsmp ? b->nsmp : 1, sizeof(*p->psmp));
	p->locids = calloc(nids ? nids : 1, sizeof(*p->locids));
	p->vals = calloc(b->nsmp ? 2 * (size_t)b->nsmp : 1, sizeof(*p->vals));
	p->lab = calloc(b->nsmp ? (size_t)b->nsmp * MAX_LABELS : 1, sizeof(*p->lab));
	p->plab = calloc(b->nsmp ? (size_t)b->nsmp * MAX_LABELS : 1, sizeof(*p->plab));
	if (!p->smp || !p->psmp || !p->locids || !p->vals || !p->lab || !p->plab)
		return -ENOMEM;
	nids = 0;
	for (uint32_t i = 0; i < b->nsmp; i++) {
		const struct psample *s = &b->smp[i];
		PSample *ps = &p->smp[i];
		uint32_t n = chain(b, s, chainbuf, KT_MAX_STACK + 1), first = nlab;

		perftools__profiles__sample__init(ps);
		ps->location_id = &p->locids[nids];
		for (uint32_t j = 0; j < n; j++) {
			uint32_t id = loc_of(b, chainbuf[j]);

			if (!id)
				return -ENOMEM;
			p->locids[nids++] = id;
		}
		ps->n_location_id = n;
		ps->value = &p->vals[2 * (size_t)i];
		ps->n_value = 2;
		ps->value[0] = (int64_t)s->hits;
		ps->value[1] = to_i64((double)s->hits * period);
		/* labels: cpu, comm, pid, tid, context; numbers carry a unit, as pprof drops a numeric
		 * label of 0 without one (CPU 0, the idle task's pid 0) */
		if (s->cpu)
			label(p, &nlab, key[0], 0, (int64_t)s->cpu - 1, unit[0]);
		if (s->comm)
			label(p, &nlab, key[1], s->comm, 0, 0);
		if (s->task && (b->o->labels & KT_PPROF_PID))
			label(p, &nlab, key[2], 0, s->pid, unit[2]);
		if (s->task && (b->o->labels & KT_PPROF_TID))
			label(p, &nlab, key[3], 0, s->tid, unit[3]);
		if (s->ctx)
			label(p, &nlab, key[4], s->ctx, 0, 0);
		ps->label = &p->plab[first];
		ps->n_label = nlab - first;
		p->psmp[i] = ps;
	}
	pr->sample = p->psmp;
	pr->n_sample = b->nsmp;
	return 0;
}

static int pack_tables(struct builder *b, struct packed *p, PProfile *pr)
{
	uint32_t nm = b->nmods, nl = b->nloc, nn = b->nline, nf = b->nfunc;

	p->map = calloc(nm ? nm : 1, sizeof(*p->map));
	p->pmap = calloc(nm ? nm : 1, sizeof(*p->pmap));
	p->loc = calloc(nl ? nl : 1, sizeof(*p->loc));
	p->ploc = calloc(nl ? nl : 1, sizeof(*p->ploc));
	p->line = calloc(nn ? nn : 1, sizeof(*p->line));
	p->pline = calloc(nn ? nn : 1, sizeof(*p->pline));
	p->func = calloc(nf ? nf : 1, sizeof(*p->func));
	p->pfunc = calloc(nf ? nf : 1, sizeof(*p->pfunc));
	if (!p->map || !p->pmap || !p->loc || !p->ploc || !p->line || !p->pline || !p->func ||
	    !p->pfunc)
		return -ENOMEM;
	for (uint32_t i = 0; i < nm; i++) {
		const struct kt_sym_module *m = kt_sym_module(b->s, b->mods[i]);
		PMapping *pm = &p->map[i];
		char name[300];
		const char *fname, *bid;
		int64_t fn, bi;

		perftools__profiles__mapping__init(pm);
		pm->id = i + 1;
		pm->memory_start = m->base;
		pm->memory_limit = m->base + m->size;
		if (b->mods[i] == KT_MOD_VMLINUX)
			fname = "[kernel.kallsyms]";
		else {
			snprintf(name, sizeof(name), "[%s]", m->name);
			fname = own(b, name);
		}
		bid = kt_sym_build_id(b->s, b->mods[i]);
		fn = str_id(b, fname);
		bi = str_id(b, bid);
		if (!fname || fn < 0 || bi < 0)
			return -ENOMEM;
		pm->filename = fn;
		pm->build_id = bi;
		/* functions are resolved here: pprof must not try to symbolize kernel frames */
		pm->has_functions = 1;
		pm->has_filenames = pm->has_line_numbers = pm->has_inline_frames = b->modlines[i];
		p->pmap[i] = pm;
	}
	for (uint32_t i = 0; i < nn; i++) {
		perftools__profiles__line__init(&p->line[i]);
		p->line[i].function_id = b->line[i].func;
		p->line[i].line = b->line[i].line;
		p->pline[i] = &p->line[i];
	}
	for (uint32_t i = 0; i < nl; i++) {
		PLocation *l = &p->loc[i];

		perftools__profiles__location__init(l);
		l->id = i + 1;
		l->mapping_id = b->loc[i].mapping;
		l->address = b->loc[i].addr;
		l->line = &p->pline[b->loc[i].line0];
		l->n_line = b->loc[i].nlines;
		p->ploc[i] = l;
	}
	for (uint32_t i = 0; i < nf; i++) {
		PFunction *f = &p->func[i];

		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = f->system_name = b->func[i].name;
		f->filename = b->func[i].file;
		p->pfunc[i] = f;
	}
	pr->mapping = p->pmap;
	pr->n_mapping = nm;
	pr->location = p->ploc;
	pr->n_location = nl;
	pr->function = p->pfunc;
	pr->n_function = nf;
	return 0;
}

int kt_pprof_build(const struct kt_window *w, struct kt_symbols *s, const struct kt_pprof_opts *o,
		   uint8_t **out, size_t *len)
{
	struct builder b = {.w = w, .s = s, .o = o};
	struct packed p = {0};
	PProfile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	PValueType st[2] = {PERFTOOLS__PROFILES__VALUE_TYPE__INIT,
			    PERFTOOLS__PROFILES__VALUE_TYPE__INIT};
	PValueType *pst[2] = {&st[0], &st[1]};
	PValueType pt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	const struct kt_hit *h;
	int64_t comment;
	size_t n;
	int r = -ENOMEM;
	/* a hit copy or a build id that could not be allocated would leave a profile that
	 * misses it: fail instead */
	uint64_t wnomem = kt_window_nomem(w), snomem = kt_sym_nomem(s);

	*out = NULL;
	*len = 0;
	if (kt_grow((void **)&b.str, &b.strcap, 16, sizeof(*b.str)) < 0)
		return -ENOMEM;
	b.str[b.nstr++] = "";
	st[0].type = str_id(&b, "samples");
	st[0].unit = str_id(&b, "count");
	st[1].type = pt.type = str_id(&b, "cpu");
	st[1].unit = pt.unit = str_id(&b, "nanoseconds");
	comment = str_id(&b, o->comment);
	if (st[0].type < 0 || st[0].unit < 0 || st[1].type < 0 || st[1].unit < 0 || comment < 0)
		goto out;
	h = kt_window_hits(w, &n);
	for (size_t i = 0; i < n; i++)
		if (passes(&b, &h[i]) && add_hit(&b, &h[i]) < 0)
			goto out;
	if (pack_samples(&b, &p, &pr) < 0 || pack_tables(&b, &p, &pr) < 0 || b.nomem ||
	    kt_window_nomem(w) != wnomem || kt_sym_nomem(s) != snomem)
		goto out;
	pr.sample_type = pst;
	pr.n_sample_type = 2;
	pr.period_type = &pt;
	pr.period = to_i64(o->period_ns);
	pr.time_nanos = (int64_t)o->time_ns;
	pr.duration_nanos = (int64_t)o->duration_ns;
	pr.default_sample_type = st[1].type;
	if (comment > 0) {
		pr.comment = &comment;
		pr.n_comment = 1;
	}
	pr.string_table = (char **)b.str;
	pr.n_string_table = b.nstr;
	n = perftools__profiles__profile__get_packed_size(&pr);
	*out = malloc(n ? n : 1);
	if (!*out)
		goto out;
	*len = perftools__profiles__profile__pack(&pr, *out);
	r = 0;
out:
	packed_free(&p);
	builder_free(&b);
	return r;
}

int kt_report_pprof(FILE *out, const struct kt_window *w, struct kt_symbols *s,
		    const struct kt_pprof_opts *o, char *err, size_t errlen)
{
	uint8_t *raw, *gz;
	size_t rawlen, gzlen;
	int r;

	r = kt_pprof_build(w, s, o, &raw, &rawlen);
	if (r == 0) {
		r = kt_gzip(raw, rawlen, &gz, &gzlen);
		free(raw);
	}
	if (r < 0) {
		snprintf(err, errlen, "cannot build the pprof profile (%s)", strerror(-r));
		return r;
	}
	if (fwrite(gz, 1, gzlen, out) != gzlen) {
		r = errno ? -errno : -EIO;
		snprintf(err, errlen, "writing the pprof profile failed (%s)", strerror(-r));
	}
	free(gz);
	return r;
}
