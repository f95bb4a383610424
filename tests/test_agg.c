/* Aggregator tests over a real symbolizer loaded from tests/data/agg: every view, filter and
 * sort, the derived columns, [idle] and [user], caller/callee trees and stacks. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/agg.h"
#include "kerntop/symbols.h"
#include "kerntop/window.h"
#include "tap.h"

#include "test_agg_fixture.h"

static struct kt_query qv(enum kt_view v)
{
	struct kt_query q;

	memset(&q, 0, sizeof(q));
	q.view = v;
	q.module = KT_ANY;
	q.func = KT_ANY;
	kt_filter_all(&q.filter);
	return q;
}

static const struct kt_row *find(const struct kt_result *r, const char *name)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (!strcmp(r->rows[i].name, name))
			return &r->rows[i];
	return NULL;
}

static uint64_t hits(const struct kt_result *r, const char *name)
{
	const struct kt_row *row = find(r, name);

	return row ? row->hits : 0;
}

static uint32_t func_id(const char *name)
{
	for (uint32_t i = 0; i < kt_sym_nfuncs(sym); i++)
		if (!strcmp(kt_sym_func(sym, i)->name, name))
			return i;
	return KT_ANY;
}

static void test_modules(void)
{
	struct kt_query q = qv(KT_VIEW_MODULES);
	struct kt_result r = {0};

	is_int(kt_agg_query(agg, &q, &r), 0, "modules query");
	is_int(r.nrows, 5, "five modules: [idle] tcp vmlinux nosym [user]");
	is_str(r.rows[0].name, "[idle]", "idle first, as its own pseudo-module");
	is_int(r.rows[0].id, KT_AGG_IDLE_MODULE, "[idle] id");
	is_int(r.rows[0].idle, 1, "[idle] flagged");
	is_int(r.rows[0].hits, 90, "idle hits");
	is_str(r.rows[1].name, "tcp", "tcp second");
	is_int(r.rows[1].hits, 70, "tcp hits");
	is_int(hits(&r, "vmlinux"), 43, "vmlinux hits exclude idle functions");
	is_int(hits(&r, "nosym"), 12, "symbol-less module");
	is_int(hits(&r, "[user]"), 5, "[user]");
	/* 220 hits over 2 s, 1000 Hz, 2 CPUs */
	is_double(r.rows[1].ms, 70.0, 1e-9, "ms = hits x ms_per_hit");
	is_double(r.rows[1].pct_kernel, 70.0 / 220 * 100, 1e-9, "%Total of every hit");
	is_double(r.rows[1].pct_machine, 70.0 / 4000 * 100, 1e-9,
		  "% of machine = hits / (2 s x 1000 x 2)");
	is_double(r.rows[1].per_s, 35.0, 1e-9, "hits/s over 2 s");
	is_double(find(&r, "vmlinux")->recent_per_s, 3.0, 1e-9,
		  "rate of the newest complete slice");
	is_int(r.sum.samples, 220, "summary samples");
	is_int(r.sum.kernel, 125, "summary kernel = busy hits");
	is_int(r.sum.idle, 90, "summary idle");
	is_int(r.sum.user, 5, "summary user");
	is_double(r.sum.busy_pct, 125.0 / 4000 * 100, 1e-9, "busy % of capacity");
	is_double(r.sum.idle_pct, 90.0 / 4000 * 100, 1e-9, "idle % of capacity");
	is_double(r.sum.samples_per_s, 110.0, 1e-9, "samples/s");
	ok(r.sum.user_sampled && r.sum.unsampled_pct == 0, "user hits seen: user was sampled");
	is_double(r.sum.covered_s, 2.0, 1e-9, "covered 2 s");

	q.sort = KT_SORT_NAME;
	kt_agg_query(agg, &q, &r);
	is_str(r.rows[0].name, "[idle]", "by name: brackets sort first");
	is_str(r.rows[4].name, "vmlinux", "by name: vmlinux last");
	q.reverse = 1;
	kt_agg_query(agg, &q, &r);
	is_str(r.rows[0].name, "vmlinux", "reversed");
	q.reverse = 0;
	q.sort = KT_SORT_RATE;
	kt_agg_query(agg, &q, &r);
	is_str(r.rows[0].name, "vmlinux", "by rate: the module hit in the newest slice");
	is_str(r.rows[1].name, "[idle]", "then by hits");

	q = qv(KT_VIEW_MODULES);
	q.filter.hide_idle = 1;
	kt_agg_query(agg, &q, &r);
	is_int(r.nrows, 4, "hide idle drops [idle]");
	is_double(find(&r, "tcp")->pct_kernel, 70.0 / 130 * 100, 1e-9,
		  "and idle leaves the denominator");
	q = qv(KT_VIEW_MODULES);
	q.filter.cpu = 1;
	kt_agg_query(agg, &q, &r);
	is_int(hits(&r, "tcp"), 20, "cpu 1 filter");
	is_int(hits(&r, "[idle]"), 30, "cpu 1 idle");
	is_double(find(&r, "tcp")->pct_machine, 20.0 / 2000 * 100, 1e-9, "one CPU's capacity");
	{
		uint64_t set[KT_CPUSET_WORDS(2)] = {1u << 1};

		q = qv(KT_VIEW_MODULES);
		q.filter.cpuset = set;
		kt_agg_query(agg, &q, &r);
		ok(hits(&r, "tcp") == 20 && hits(&r, "[idle]") == 30, "CPU set {1}: as cpu 1");
		is_double(find(&r, "tcp")->pct_machine, 20.0 / 2000 * 100, 1e-9,
			  "CPU set: capacity of its CPUs");
		set[0] = 3;
		kt_agg_query(agg, &q, &r);
		ok(hits(&r, "tcp") == 70 && r.sum.ncpus == 2, "CPU set {0,1}: every hit, 2 CPUs");
		set[0] = 1;
		q.filter.cpu = 1;
		kt_agg_query(agg, &q, &r);
		ok(r.sum.samples == 0 && r.sum.ncpus == 0, "CPU set {0} and cpu 1: nothing");
	}
	q = qv(KT_VIEW_MODULES);
	q.filter.task = t_dd;
	kt_agg_query(agg, &q, &r);
	is_int(r.nrows, 2, "dd: vmlinux and [user]");
	is_int(hits(&r, "vmlinux"), 43, "dd's kernel hits");
	q.filter.task = t_iperf0;
	kt_agg_query(agg, &q, &r);
	ok(!r.sum.user_sampled && r.sum.user_pct == 0, "no user hits, no -u: user not sampled");
	is_double(r.sum.unsampled_pct, 100.0 - r.sum.busy_pct - r.sum.idle_pct, 1e-9,
		  "the rest of the capacity is unsampled");
	q = qv(KT_VIEW_MODULES);
	q.filter.text = "SYM";
	kt_agg_query(agg, &q, &r);
	ok(r.nrows == 1 && !strcmp(r.rows[0].name, "nosym"), "case-insensitive substring filter");
	q = qv(KT_VIEW_MODULES);
	q.limit = 2;
	q.per_cpu = 1;
	kt_agg_query(agg, &q, &r);
	ok(r.nrows == 2 && r.total_rows == 5, "limit cuts rows, total_rows counts all");
	ok(r.rows[1].per_cpu && r.rows[1].per_cpu[0] == 50 && r.rows[1].per_cpu[1] == 20,
	   "per-CPU columns of tcp");
	kt_result_free(&r);
}

static void test_funcs(void)
{
	struct kt_query q = qv(KT_VIEW_FUNCS);
	struct kt_result r = {0};
	int tcp = kt_sym_module_find(sym, "tcp"), nosym = kt_sym_module_find(sym, "nosym");

	q.module = (uint32_t)tcp;
	kt_agg_query(agg, &q, &r);
	is_int(r.nrows, 2, "tcp: two functions with self hits");
	ok(!strcmp(r.rows[0].name, "tcp_write_xmit") && r.rows[0].hits == 60, "tcp_write_xmit 60");
	is_int(hits(&r, "tcp_push"), 10, "tcp_push 10");
	is_double(r.rows[0].pct_parent, 60.0 / 70 * 100, 1e-9, "% of the module");
	is_str(r.rows[0].module, "tcp", "module name on rows");
	q.module = (uint32_t)nosym;
	kt_agg_query(agg, &q, &r);
	is_int(r.nrows, 3, "symbol-less module: buckets");
	is_int(hits(&r, "nosym+0x40"), 8, "bucket +0x40");
	is_int(hits(&r, "nosym+0x80"), 2, "bucket +0x80");
	is_int(hits(&r, "nosym+0xc0"), 2, "bucket +0xc0");
	{
		struct kt_query ql = qv(KT_VIEW_LINES);

		ql.func = find(&r, "nosym+0x40")->id;
		kt_agg_query(agg, &ql, &r);
		ok(r.nrows == 1 && !strcmp(r.rows[0].name, "nosym+0x40") && r.rows[0].hits == 8,
		   "a bucket's lines view: the bucket itself, not nosym+0x40+0x0");
	}
	q.module = KT_AGG_IDLE_MODULE;
	kt_agg_query(agg, &q, &r);
	ok(r.nrows == 1 && !strcmp(r.rows[0].name, "default_idle") && r.rows[0].hits == 90,
	   "[idle] lists the idle functions");
	is_str(r.rows[0].module, "vmlinux", "with their real module");
	q.module = KT_MOD_VMLINUX;
	kt_agg_query(agg, &q, &r);
	ok(!find(&r, "default_idle"), "vmlinux's functions leave idle out");
	is_int(hits(&r, "read_zero"), 25, "read_zero 25");
	is_int(hits(&r, "copy_user"), 18, "copy_user 18");

	q = qv(KT_VIEW_TOPFUNCS);
	kt_agg_query(agg, &q, &r);
	is_str(r.rows[0].name, "default_idle", "top functions: idle first");
	is_int(r.rows[0].idle, 1, "flagged idle");
	is_str(r.rows[1].name, "tcp_write_xmit", "then tcp_write_xmit");
	is_int(r.total_rows, 9, "nine functions with hits");
	is_int(hits(&r, "[user]"), 5, "[user] function");
	q.filter.module = (uint32_t)tcp;
	kt_agg_query(agg, &q, &r);
	is_int(r.nrows, 2, "top functions filtered by module");
	q = qv(KT_VIEW_TOPFUNCS);
	q.filter.text = "read";
	kt_agg_query(agg, &q, &r);
	ok(r.nrows == 1 && r.rows[0].hits == 25, "text filter on function names");

	q = qv(KT_VIEW_LINES);
	q.func = func_id("read_zero");
	kt_agg_query(agg, &q, &r);
	is_int(r.nrows, 2, "read_zero: two 64-byte buckets");
	ok(!strcmp(r.rows[0].name, "read_zero+0x0") && r.rows[0].hits == 15, "read_zero+0x0 15");
	ok(!strcmp(r.rows[1].name, "read_zero+0x40") && r.rows[1].hits == 10, "read_zero+0x40 10");
	is_int(r.rows[1].addr, K + 0x540, "bucket start address");
	is_double(r.rows[1].pct_parent, 40.0, 1e-9, "% of the function");
	kt_result_free(&r);
}

static void test_cpus_tasks(void)
{
	struct kt_query q = qv(KT_VIEW_CPUS);
	struct kt_result r = {0};
	const struct kt_row *c0, *c1;

	q.sort = KT_SORT_NAME;
	kt_agg_query(agg, &q, &r);
	is_int(r.nrows, 2, "two CPUs");
	c0 = &r.rows[0];
	c1 = &r.rows[1];
	ok(c0->id == 0 && c0->hits == 122 && c0->kernel == 62 && c0->idle_hits == 60 &&
	       c0->user == 0,
	   "cpu0 split");
	ok(c1->id == 1 && c1->hits == 98 && c1->kernel == 63 && c1->idle_hits == 30 &&
	       c1->user == 5,
	   "cpu1 split");
	is_str(c0->top_module, "tcp", "cpu0 top module");
	is_str(c0->top_func, "tcp_write_xmit", "cpu0 top function");
	is_str(c1->top_module, "vmlinux", "cpu1 top module");
	is_str(c1->top_func, "read_zero", "cpu1 top function (idle never tops)");
	is_str(c0->name, "cpu0", "cpu row name");

	q = qv(KT_VIEW_TASKS);
	kt_agg_query(agg, &q, &r);
	is_int(r.nrows, 5, "five tasks");
	is_str(r.rows[0].name, "swapper", "swapper first");
	is_int(hits(&r, "dd"), 48, "dd: 43 kernel + 5 user");
	ok(find(&r, "[50]") && find(&r, "[50]")->pid == 50, "unnamed task shown by tid");
	q.filter.cpu = 0;
	kt_agg_query(agg, &q, &r);
	ok(r.nrows == 3 && hits(&r, "iperf3") == 50, "tasks on cpu0");
	{
		uint32_t iperf = find(&r, "iperf3")->id;

		q = qv(KT_VIEW_CPUS);
		q.sort = KT_SORT_NAME;
		q.filter.task = iperf;
		kt_agg_query(agg, &q, &r);
		ok(r.nrows == 2 && r.rows[0].hits == 50 && r.rows[1].id == 1 && r.rows[1].hits == 0,
		   "task filter: cpu1, where iperf3 never ran, stays listed at 0 (can be tagged)");
		q.filter.cpu = 0;
		kt_agg_query(agg, &q, &r);
		ok(r.nrows == 1 && r.rows[0].id == 0, "but the CPU filter still applies");
	}
	kt_result_free(&r);
}

static void test_trees(void)
{
	struct kt_query q = qv(KT_VIEW_CALLERS);
	struct kt_result r = {0};

	q.func = func_id("tcp_write_xmit");
	is_int(kt_agg_query(agg, &q, &r), 0, "callers query");
	is_int(r.nrows, 8, "callers tree rows: 1 + 4 + 3");
	ok(!strcmp(r.rows[0].name, "tcp_write_xmit") && r.rows[0].hits == 60 &&
	       r.rows[0].depth == 0,
	   "root: the function, all its hits");
	ok(!strcmp(r.rows[1].name, "tcp_push") && r.rows[1].hits == 40 && r.rows[1].parent == 0,
	   "hottest caller first: tcp_push 40");
	is_double(r.rows[1].pct_parent, 40.0 / 60 * 100, 1e-9, "pct of the function's hits");
	ok(!strcmp(r.rows[2].name, "tcp_sendmsg") && r.rows[2].depth == 2 && r.rows[2].parent == 1,
	   "pre-order: its caller below it");
	ok(!strcmp(r.rows[4].name, "entry_SYSCALL_64") && r.rows[4].nchildren == 0,
	   "path ends at the entry");
	ok(!strcmp(r.rows[5].name, "tcp_sendmsg") && r.rows[5].hits == 20 && r.rows[5].depth == 1,
	   "second caller: tcp_sendmsg 20");
	is_int(r.rows[0].nchildren, 2, "two direct callers");
	q.max_depth = 1;
	kt_agg_query(agg, &q, &r);
	is_int(r.nrows, 3, "max_depth 1: root and direct callers");
	q.max_depth = 0;
	q.limit = 3;
	kt_agg_query(agg, &q, &r);
	ok(r.nrows == 8 && r.rows[0].nchildren == 2,
	   "limit 3: root and both callers, straight runs not counted");
	q.limit = 2;
	kt_agg_query(agg, &q, &r);
	ok(r.nrows == 5 && !strcmp(r.rows[1].name, "tcp_push") && r.rows[0].nchildren == 1,
	   "limit 2: the hottest caller and its straight run");
	q.limit = 0;

	q = qv(KT_VIEW_CALLEES);
	q.func = func_id("tcp_sendmsg");
	kt_agg_query(agg, &q, &r);
	ok(r.rows[0].hits == 70, "callees root: every sample with tcp_sendmsg on the stack");
	ok(!strcmp(r.rows[1].name, "tcp_push") && r.rows[1].hits == 50, "tcp_push 50");
	ok(!strcmp(r.rows[2].name, "tcp_write_xmit") && r.rows[2].hits == 40 &&
	       r.rows[2].depth == 2,
	   "then tcp_write_xmit under it");
	ok(!strcmp(r.rows[3].name, "tcp_write_xmit") && r.rows[3].hits == 20 &&
	       r.rows[3].depth == 1,
	   "tcp_write_xmit directly 20");

	q = qv(KT_VIEW_CALLERS);
	q.func = func_id("copy_user");
	q.filter.cpu = 1;
	kt_agg_query(agg, &q, &r);
	ok(r.rows[0].hits == 18 && r.nrows == 6 && !strcmp(r.rows[1].name, "read_zero"),
	   "copy_user <- read_zero, across slices");

	q = qv(KT_VIEW_STACKS);
	q.module = (uint32_t)kt_sym_module_find(sym, "tcp");
	kt_agg_query(agg, &q, &r);
	is_int(r.nrows, 3, "three stacks end in tcp");
	is_str(r.rows[0].name, "entry_SYSCALL_64;do_syscall_64;tcp_sendmsg;tcp_push;tcp_write_xmit",
	       "hottest stack, root first");
	is_int(r.rows[0].hits, 40, "its hits");
	ok(r.rows[0].nframes == 5 && r.rows[0].frames[0] == func_id("tcp_write_xmit"),
	   "frames leaf first");
	q = qv(KT_VIEW_STACKS);
	kt_agg_query(agg, &q, &r);
	is_int(r.nrows, 10, "all stacks (leaf-only samples count as one-frame stacks)");
	kt_result_free(&r);
}

static void test_names(void)
{
	char near[256];
	uint32_t id;

	ok(kt_agg_module_find(agg, "tcp", &id, near, sizeof(near)) == 0 &&
	       id == (uint32_t)kt_sym_module_find(sym, "tcp"),
	   "module by name");
	ok(kt_agg_module_find(agg, "[idle]", &id, near, sizeof(near)) == 0 &&
	       id == KT_AGG_IDLE_MODULE,
	   "[idle] by name");
	is_int(kt_agg_module_find(agg, "tpc", &id, near, sizeof(near)), -ENOENT, "unknown module");
	ok(strstr(near, "tcp") != NULL, "near names include tcp");
	kt_agg_module_find(agg, "qqqqqqqqq", &id, near, sizeof(near));
	is_str(near, "", "nothing near a far name");
	is_str(kt_view_name(KT_VIEW_CALLERS), "callers", "view names");
}

/* An empty window (before the first sample): every view answers with no rows. */
static void test_empty(void)
{
	struct kt_window_opts wo = {.span_ns = 10 * S, .slice_ns = 1 * S};
	struct kt_agg_params ap = {.freq_hz = 1000, .ms_per_hit = 1.0, .ncpus = 2, .max_cpu = 2};
	struct kt_window *w;
	struct kt_agg *a;
	struct kt_result r = {0};
	int bad = 0;

	kt_window_new(&wo, &w);
	kt_agg_new(w, sym, &ap, &a);
	for (int v = KT_VIEW_MODULES; v <= KT_VIEW_STACKS; v++) {
		struct kt_query q = qv((enum kt_view)v);

		q.module = KT_MOD_VMLINUX;
		q.func = func_id("read_zero");
		if (kt_agg_query(a, &q, &r) < 0 ||
		    r.nrows != (v == KT_VIEW_CALLERS || v == KT_VIEW_CALLEES ? 1u : 0u))
			bad++;
	}
	is_int(bad, 0, "every view of an empty window: no rows (trees: the root alone)");
	is_int(r.sum.samples, 0, "no samples");
	{
		struct kt_query q = qv(KT_VIEW_MODULES);

		/* the summary is kept between queries: a new sample must renew it */
		kt_window_add(w, 1 * S, kt_sym_lookup(sym, addr[0]), 0, 1, 0, 3);
		kt_agg_query(a, &q, &r);
		is_int(r.sum.kernel, 3, "a sample added after a query is in the next summary");
		q.filter.cpu = 0;
		kt_agg_query(a, &q, &r);
		is_int(r.sum.samples, 0, "the same summary under a CPU filter it fails");
	}
	kt_result_free(&r);
	kt_agg_free(a);
	kt_window_free(w);
}

int main(void)
{
	load();
	test_empty();
	test_modules();
	test_funcs();
	test_cpus_tasks();
	test_trees();
	test_names();
	kt_agg_free(agg);
	kt_window_free(win);
	kt_sym_free(sym);
	return tap_done();
}
