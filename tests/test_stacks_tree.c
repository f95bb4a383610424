/* The call-stack views through the real layers: the hand-counted `perf script` fixture
 * (tests/data/stacks/gen.py) replayed by the source, symbolized, interned by the window
 * and queried from the aggregator, wired as main.c does. Asserts the exact CALLERS,
 * CALLEES and STACKS rows, with depth limits and CPU/task filters. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/agg.h"
#include "kerntop/sample.h"
#include "kerntop/source.h"
#include "kerntop/symbols.h"
#include "kerntop/util.h"
#include "kerntop/window.h"
#include "tap.h"

struct pipe {
	struct kt_source *src;
	struct kt_symbols *sym;
	struct kt_window *win;
	struct kt_agg *agg;
	uint32_t locs[KT_MAX_STACK];
};

/* The sink of main.c: location ids for the IP and each frame, the stack, the task. */
static void on_sample(void *ctx, const struct kt_sample *s)
{
	struct pipe *p = ctx;
	uint32_t loc, stack = 0;

	loc = s->flags & KT_SAMPLE_USER ? KT_LOC_USER : kt_sym_lookup(p->sym, s->ip);
	if (s->nr_frames) {
		for (uint32_t i = 0; i < s->nr_frames; i++)
			p->locs[i] = kt_sym_lookup(p->sym, s->frames[i]);
		stack = kt_window_stack(p->win, p->locs, s->nr_frames);
	}
	kt_window_add(p->win, s->time_ns, loc, stack, s->cpu,
		      kt_window_task(p->win, s->pid, s->tid), 1);
}

static void on_comm(void *ctx, int32_t pid, int32_t tid, const char *comm, uint64_t t)
{
	struct pipe *p = ctx;

	(void)t;
	kt_window_comm(p->win, pid, tid, comm);
}

static int open_pipe(struct pipe *p, uint32_t max_stack, int cumulative)
{
	struct kt_source_opts so = {
	    .replay = tap_data("stacks/stacks.perf"), .speed = 0, .max_stack = max_stack};
	struct kt_sym_opts sy = {.kallsyms = tap_data("stacks/kallsyms"),
				 .modules = tap_data("stacks/modules")};
	struct kt_window_opts wo = {
	    .span_ns = 10000000000ull, .slice_ns = 100000000ull, .cumulative = cumulative};
	const struct kt_source_info *info;
	struct kt_agg_params ap = {0};
	struct kt_sink sink = {.sample = on_sample, .comm = on_comm};
	char err[KT_ERRLEN];
	int r, timeout;

	memset(p, 0, sizeof(*p));
	if (kt_source_open(&so, &p->src, err, sizeof(err)) < 0 ||
	    kt_sym_new(&sy, &p->sym, err, sizeof(err)) < 0) {
		printf("# %s\n", err);
		return -1;
	}
	if (kt_window_new(&wo, &p->win) < 0)
		return -1;
	info = kt_source_info(p->src);
	ap.freq_hz = 1e9 / (double)info->period;
	ap.ms_per_hit = (double)info->period / 1e6;
	ap.ncpus = info->ncpus;
	ap.max_cpu = info->max_cpu;
	if (kt_agg_new(p->win, p->sym, &ap, &p->agg) < 0)
		return -1;
	sink.ctx = p;
	do {
		r = kt_source_read(p->src, &sink, &timeout, err, sizeof(err));
	} while (r == 0);
	if (r < 0) {
		printf("# %s\n", err);
		return -1;
	}
	kt_window_advance(p->win, kt_source_now(p->src));
	return 0;
}

static void close_pipe(struct pipe *p)
{
	kt_agg_free(p->agg);
	kt_window_free(p->win);
	kt_sym_free(p->sym);
	kt_source_free(p->src);
}

static uint32_t func_id(struct pipe *p, const char *name)
{
	for (uint32_t i = 0; i < kt_sym_nfuncs(p->sym); i++) {
		const struct kt_sym_func *f = kt_sym_func(p->sym, i);

		if (f && f->name && strcmp(f->name, name) == 0)
			return i;
	}
	return KT_ANY;
}

/* Tree rows as "depth name module hits pct" lines (pct of the function, one decimal). */
static const char *tree_text(const struct kt_result *r)
{
	static char buf[8192];
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < r->nrows && used + 128 < sizeof(buf); i++) {
		const struct kt_row *w = &r->rows[i];

		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%u %s %s %llu %.1f\n",
					 w->depth, w->name, w->module ? w->module : "-",
					 (unsigned long long)w->hits, w->pct_parent);
	}
	return buf;
}

/* Parent links: each row's parent is the nearest earlier row one level up. */
static int parents_ok(const struct kt_result *r)
{
	for (size_t i = 0; i < r->nrows; i++) {
		int32_t p = r->rows[i].parent;
		uint32_t kids = 0;

		if (i == 0 ? p != -1
			   : (p < 0 || (size_t)p >= i || r->rows[p].depth + 1 != r->rows[i].depth))
			return 0;
		for (size_t j = i + 1; j < r->nrows && r->rows[j].depth > r->rows[i].depth; j++)
			kids += r->rows[j].parent == (int32_t)i;
		if (kids != r->rows[i].nchildren)
			return 0;
	}
	return 1;
}

static int query(struct pipe *p, enum kt_view v, uint32_t func, uint32_t module, uint32_t max_depth,
		 const struct kt_filter *f, struct kt_result *r)
{
	struct kt_query q = {.view = v, .func = func, .module = module, .max_depth = max_depth};

	if (f)
		q.filter = *f;
	else
		kt_filter_all(&q.filter);
	return kt_agg_query(p->agg, &q, r);
}

/* Disagreements between each --top N of the hottest stacks (kt_agg_top names only the rows
 * that can make it) and the first N rows of the whole list, by each sort; *rows gets the
 * whole list's length. */
static int top_disagrees(struct pipe *p, size_t *rows)
{
	static const enum kt_sort sorts[] = {KT_SORT_HITS, KT_SORT_RATE, KT_SORT_NAME};
	int bad = 0;

	*rows = 0;
	for (size_t k = 0; k < sizeof(sorts) / sizeof(sorts[0]); k++) {
		struct kt_query q = {.view = KT_VIEW_STACKS, .func = KT_ANY, .module = KT_ANY};
		struct kt_result all = {0};

		kt_filter_all(&q.filter);
		q.sort = sorts[k];
		if (kt_agg_query(p->agg, &q, &all) < 0)
			return -1;
		*rows = all.nrows;
		for (size_t n = 1; n <= all.nrows + 1; n++) {
			struct kt_result top = {0};

			q.limit = n;
			if (kt_agg_query(p->agg, &q, &top) < 0 ||
			    top.nrows != (n < all.nrows ? n : all.nrows) ||
			    top.total_rows != all.nrows)
				bad++;
			for (size_t i = 0; i < top.nrows && i < all.nrows; i++)
				bad += top.rows[i].hits != all.rows[i].hits ||
				       strcmp(top.rows[i].name, all.rows[i].name) != 0;
			kt_result_free(&top);
		}
		kt_result_free(&all);
	}
	return bad;
}

static const char CALLERS_F[] = "0 f vmlinux 15 100.0\n"
				"1 b vmlinux 5 33.3\n"
				"2 a vmlinux 5 33.3\n"
				"3 do_syscall_64 vmlinux 5 33.3\n"
				"4 entry_SYSCALL_64 vmlinux 5 33.3\n"
				"1 m_rx netmod 4 26.7\n"
				"2 asm_common_interrupt vmlinux 4 26.7\n"
				"1 c vmlinux 3 20.0\n"
				"2 do_syscall_64 vmlinux 3 20.0\n"
				"3 entry_SYSCALL_64 vmlinux 3 20.0\n"
				"1 a vmlinux 2 13.3\n"
				"2 do_syscall_64 vmlinux 2 13.3\n"
				"3 entry_SYSCALL_64 vmlinux 2 13.3\n"
				"1 r vmlinux 1 6.7\n"
				"2 r vmlinux 1 6.7\n"
				"3 r vmlinux 1 6.7\n"
				"4 do_syscall_64 vmlinux 1 6.7\n"
				"5 entry_SYSCALL_64 vmlinux 1 6.7\n";

int main(void)
{
	struct kt_result r = {0};
	struct kt_filter flt;
	struct pipe p;
	uint32_t f, a, sys, g, netmod;

	if (open_pipe(&p, 32, 1) < 0) {
		ok(0, "open the replay pipeline on tests/data/stacks");
		return tap_done();
	}
	is_int(kt_window_total(p.win), 57, "57 samples ingested");
	/* A..K minus the user samples (no kernel chain); f's two addresses make B and D
	 * distinct location stacks, and H is the 1-frame idle chain. */
	is_int(kt_window_nstacks(p.win), 10, "10 interned stacks");
	f = func_id(&p, "f");
	a = func_id(&p, "a");
	sys = func_id(&p, "do_syscall_64");
	g = func_id(&p, "g");
	netmod = (uint32_t)kt_sym_module_find(p.sym, "netmod");

	is_int(query(&p, KT_VIEW_CALLERS, f, KT_ANY, 0, NULL, &r), 0, "callers of f");
	is_str(tree_text(&r), CALLERS_F, "callers of f: exact tree, hottest path first");
	is_int(r.total_rows, 18, "18 tree nodes");
	ok(parents_ok(&r), "parent links and child counts agree with the pre-order depths");
	is_int(r.rows[0].nchildren, 5, "f has five direct callers");
	is_int(r.rows[0].id, f, "row 0 is f itself");

	is_int(query(&p, KT_VIEW_CALLERS, f, KT_ANY, 1, NULL, &r), 0, "callers of f, max_depth 1");
	is_str(tree_text(&r),
	       "0 f vmlinux 15 100.0\n1 b vmlinux 5 33.3\n1 m_rx netmod 4 26.7\n"
	       "1 c vmlinux 3 20.0\n1 a vmlinux 2 13.3\n1 r vmlinux 1 6.7\n",
	       "max_depth 1: the direct callers only");

	kt_filter_all(&flt);
	flt.cpu = 0;
	is_int(query(&p, KT_VIEW_CALLERS, f, KT_ANY, 1, &flt, &r), 0, "callers of f on cpu0");
	is_str(
	    tree_text(&r),
	    "0 f vmlinux 10 100.0\n1 b vmlinux 5 50.0\n1 m_rx netmod 4 40.0\n1 r vmlinux 1 10.0\n",
	    "cpu0 only: A, D and J");
	kt_filter_all(&flt);
	flt.task = kt_window_task(p.win, 100, 101);
	is_int(query(&p, KT_VIEW_CALLERS, f, KT_ANY, 0, &flt, &r), 0, "callers of f in task 101");
	is_str(tree_text(&r),
	       "0 f vmlinux 3 100.0\n1 c vmlinux 3 100.0\n2 do_syscall_64 vmlinux 3 100.0\n"
	       "3 entry_SYSCALL_64 vmlinux 3 100.0\n",
	       "task 101: B only (its user frames dropped)");

	is_int(query(&p, KT_VIEW_CALLERS, g, KT_ANY, 2, NULL, &r), 0, "callers of g");
	is_str(tree_text(&r),
	       "0 g vmlinux 7 100.0\n1 b vmlinux 6 85.7\n2 a vmlinux 6 85.7\n"
	       "1 r vmlinux 1 14.3\n2 r vmlinux 1 14.3\n",
	       "callers of g: E via b, K via the recursion");

	is_int(query(&p, KT_VIEW_CALLERS, func_id(&p, "blob+0x40"), KT_ANY, 0, NULL, &r), 0,
	       "callers of a bucket of the symbol-less module");
	is_str(tree_text(&r),
	       "0 blob+0x40 blob 8 100.0\n1 do_syscall_64 vmlinux 8 100.0\n"
	       "2 entry_SYSCALL_64 vmlinux 8 100.0\n",
	       "callers of blob+0x40: G's syscall path");
	is_int(query(&p, KT_VIEW_CALLERS, func_id(&p, "default_idle"), KT_ANY, 0, NULL, &r), 0,
	       "callers of default_idle");
	is_str(tree_text(&r), "0 default_idle vmlinux 9 100.0\n",
	       "idle chains of one frame: no callers");

	is_int(query(&p, KT_VIEW_CALLEES, a, KT_ANY, 0, NULL, &r), 0, "callees of a");
	is_str(tree_text(&r),
	       "0 a vmlinux 13 100.0\n1 b vmlinux 11 84.6\n2 g vmlinux 6 46.2\n"
	       "2 f vmlinux 5 38.5\n1 f vmlinux 2 15.4\n",
	       "callees of a: a -> b -> {g 6, f 5}, a -> f 2");
	ok(parents_ok(&r), "callees: parent links agree");

	is_int(query(&p, KT_VIEW_CALLEES, sys, KT_ANY, 1, NULL, &r), 0, "callees of do_syscall_64");
	is_str(tree_text(&r),
	       "0 do_syscall_64 vmlinux 32 100.0\n1 a vmlinux 13 40.6\n1 c vmlinux 10 31.2\n"
	       "1 blob+0x40 blob 8 25.0\n1 r vmlinux 1 3.1\n",
	       "callees of do_syscall_64 (K's 40-frame chain lost it to --max-stack 32)");

	is_int(query(&p, KT_VIEW_STACKS, f, KT_ANY, 0, NULL, &r), 0, "stacks of f");
	is_int(r.nrows, 5, "f is the leaf of five stacks");
	if (r.nrows == 5) {
		is_str(r.rows[0].name, "entry_SYSCALL_64;do_syscall_64;a;b;f",
		       "hottest stack of f, root first");
		is_int(r.rows[0].hits, 5, "with 5 hits");
		is_int(r.rows[0].nframes, 5, "five frames");
		is_int(r.rows[0].frames[0], f, "frames[] leaf first");
		is_str(r.rows[1].name, "asm_common_interrupt;m_rx;f", "then the module path");
		is_int(r.rows[4].hits, 1, "the recursion last");
	}
	is_int(query(&p, KT_VIEW_STACKS, KT_ANY, netmod, 0, NULL, &r), 0,
	       "stacks of module netmod");
	is_int(r.nrows, 1, "one stack has its leaf in netmod");
	if (r.nrows == 1)
		is_str(r.rows[0].name, "entry_SYSCALL_64;do_syscall_64;c;m_xmit", "F: c -> m_xmit");
	{
		size_t all;

		is_int(top_disagrees(&p, &all), 0,
		       "each --top N of the stacks is the whole list's first N, by hits, rate and "
		       "name, ties included");
		ok(all > 5, "the stacks to rank are many, with ties of hits");
	}
	kt_result_free(&r);
	close_pipe(&p);

	if (open_pipe(&p, 2, 1) < 0) {
		ok(0, "open the replay pipeline with max_stack 2");
		return tap_done();
	}
	memset(&r, 0, sizeof(r));
	f = func_id(&p, "f");
	is_int(query(&p, KT_VIEW_CALLERS, f, KT_ANY, 0, NULL, &r), 0,
	       "callers of f, --max-stack 2");
	is_str(tree_text(&r),
	       "0 f vmlinux 15 100.0\n1 b vmlinux 5 33.3\n1 m_rx netmod 4 26.7\n"
	       "1 c vmlinux 3 20.0\n1 a vmlinux 2 13.3\n1 r vmlinux 1 6.7\n",
	       "--max-stack 2 keeps the leaf and its caller");
	kt_result_free(&r);
	close_pipe(&p);

	/* Rolling window: the stacks expire with their slices and come back with --cumulative. */
	if (open_pipe(&p, 32, 0) < 0) {
		ok(0, "open the replay pipeline with a rolling window");
		return tap_done();
	}
	memset(&r, 0, sizeof(r));
	f = func_id(&p, "f");
	is_int(query(&p, KT_VIEW_CALLERS, f, KT_ANY, 1, NULL, &r), 0, "rolling: callers of f");
	is_int(r.nrows ? r.rows[0].hits : 0, 15,
	       "rolling: the 0.1 s replay fits in the 10 s window");
	kt_window_advance(p.win, kt_source_now(p.src) + 20000000000ull);
	is_int(kt_window_total(p.win), 0, "20 s later every slice has expired");
	is_int(query(&p, KT_VIEW_CALLERS, f, KT_ANY, 1, NULL, &r), 0,
	       "rolling: callers of f after expiry");
	is_int(r.nrows ? r.rows[0].hits : 0, 0, "rolling: no hits left for f");
	is_int(r.nrows > 1 ? r.rows[1].hits : 0, 0, "and no caller rows with hits");
	is_int(kt_window_nstacks(p.win), 10, "stacks stay interned for the since-start totals");
	kt_window_set_cumulative(p.win, 1);
	is_int(query(&p, KT_VIEW_CALLERS, f, KT_ANY, 0, NULL, &r), 0,
	       "cumulative again: callers of f");
	is_str(tree_text(&r), CALLERS_F, "cumulative again: the whole tree is back");
	kt_result_free(&r);
	close_pipe(&p);
	return tap_done();
}
