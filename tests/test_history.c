/* History tests (docs/history.md) over the tests/data/agg symbolizer: the trend points of
 * flat rows from hand-placed per-slice counts (exact levels, rising order, merged points,
 * the CPU and task views), with the open slice left out. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/agg.h"
#include "kerntop/symbols.h"
#include "kerntop/window.h"
#include "tap.h"

#include "test_agg_fixture.h"

#define like_str(got, sub, what) ok(strstr((got), (sub)) != NULL, (what))

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
		if (r->rows[i].name && !strcmp(r->rows[i].name, name))
			return &r->rows[i];
	return NULL;
}

/* "8 4 2 0": a row's trend points; "" when it has none. */
static const char *pts(const struct kt_result *r, const char *name)
{
	static char buf[512];
	const struct kt_row *row = find(r, name);
	size_t n = 0;

	buf[0] = 0;
	for (uint32_t i = 0; row && row->trend && i < r->sum.trend_points; i++)
		n +=
		    (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%u", i ? " " : "", row->trend[i]);
	return buf;
}

/* "84200": a row's levels (kt_trend_level) as digits. */
static const char *levels(const struct kt_result *r, const char *name)
{
	static char buf[KT_TREND_MAX + 1];
	const struct kt_row *row = find(r, name);
	uint32_t i = 0;

	for (; row && row->trend && i < r->sum.trend_points; i++)
		buf[i] = (char)('0' + kt_trend_level(row->trend[i], row->trend_peak));
	buf[i] = 0;
	return buf;
}

/* Per-slice counts placed by hand: slice k is [100 + k, 101 + k) s; slice 9 stays open. */
static const uint32_t f_rz[9] = {8, 4, 2, 0, 0, 0, 0, 0, 0};  /* read_zero, falling */
static const uint32_t f_cu[9] = {1, 1, 1, 1, 1, 1, 1, 8, 8};  /* copy_user, rising late */
static const uint32_t f_vfs[9] = {0, 0, 0, 0, 0, 0, 3, 5, 7}; /* vfs_read, new and rising */
static const uint32_t f_tcp[9] = {4, 4, 4, 4, 4, 4, 4, 4, 4}; /* tcp_sendmsg, flat */

static void test_trend(void)
{
	struct kt_window_opts wo = {.span_ns = 10 * S, .slice_ns = 1 * S};
	struct kt_agg_params ap = {.freq_hz = 1000, .ms_per_hit = 1.0, .ncpus = 2, .max_cpu = 2};
	struct kt_window *w;
	struct kt_agg *a;
	struct kt_result r = {0};
	struct kt_query q = qv(KT_VIEW_TOPFUNCS);
	uint32_t dd, ip;
	uint64_t t0 = 100 * S;

	kt_window_new(&wo, &w);
	kt_agg_new(w, sym, &ap, &a);
	dd = kt_window_task(w, 300, 300);
	ip = kt_window_task(w, 200, 200);
	kt_window_comm(w, 300, 300, "dd");
	kt_window_comm(w, 200, 200, "iperf3");
	kt_window_advance(w, t0); /* the origin: slice k starts at t0 + k s */
	for (int k = 0; k < 9; k++) {
		uint64_t t = t0 + (uint64_t)k * S + S / 2;

		kt_window_add(w, t, kt_sym_lookup(sym, addr[RZA]), 0, 0, dd, f_rz[k]);
		kt_window_add(w, t, kt_sym_lookup(sym, addr[CU]), 0, 1, dd, f_cu[k]);
		kt_window_add(w, t, kt_sym_lookup(sym, addr[VFS]), 0, 1, dd, f_vfs[k]);
		kt_window_add(w, t, kt_sym_lookup(sym, addr[SEND]), 0, 0, ip, f_tcp[k]);
	}
	/* the open slice: counted in the hits, not in the trend */
	kt_window_add(w, t0 + 9 * S + S / 4, kt_sym_lookup(sym, addr[RZA]), 0, 0, dd, 100);
	kt_window_advance(w, t0 + 9 * S + S / 2);
	is_int(kt_window_slices_done(w), 9, "nine complete slices, the open tenth left out");

	is_int(kt_agg_query(a, &q, &r), 0, "top functions without a trend");
	is_int(r.sum.trend_points, 0, "no trend unless asked");
	ok(r.nrows && !r.rows[0].trend, "rows without trend points");

	q.trend = 20;
	is_int(kt_agg_query(a, &q, &r), 0, "top functions with a trend");
	is_int(r.sum.trend_points, 9, "one point per complete slice");
	is_double(r.sum.trend_point_s, 1.0, 1e-12, "1 s per point");
	is_str(pts(&r, "read_zero"), "8 4 2 0 0 0 0 0 0", "read_zero per slice, oldest first");
	is_int(find(&r, "read_zero")->hits, 114, "read_zero's hits include the open slice");
	is_str(pts(&r, "copy_user"), "1 1 1 1 1 1 1 8 8", "copy_user per slice");
	is_str(pts(&r, "vfs_read"), "0 0 0 0 0 0 3 5 7", "vfs_read per slice");
	is_str(pts(&r, "tcp_sendmsg"), "4 4 4 4 4 4 4 4 4", "tcp_sendmsg per slice");
	is_str(levels(&r, "read_zero"), "842000000", "read_zero's levels (peak 8)");
	is_str(levels(&r, "copy_user"), "111111188", "copy_user's levels");
	is_str(levels(&r, "vfs_read"), "000000468", "vfs_read's levels: ceil(8v/7)");
	is_str(levels(&r, "tcp_sendmsg"), "888888888", "a flat row is at its peak throughout");
	is_int(find(&r, "vfs_read")->trend_peak, 7, "vfs_read's peak");
	is_double(find(&r, "vfs_read")->rising, 5.0, 1e-9, "vfs_read rising: 15/3 - 0/6");
	is_double(find(&r, "copy_user")->rising, 17.0 / 3 - 1.0, 1e-9, "copy_user: 17/3 - 6/6");
	is_double(find(&r, "tcp_sendmsg")->rising, 0.0, 1e-12, "tcp_sendmsg: flat");
	is_double(find(&r, "read_zero")->rising, -14.0 / 6, 1e-9, "read_zero: 0/3 - 14/6");

	q.sort = KT_SORT_RISING;
	q.trend = 0;
	is_int(kt_agg_query(a, &q, &r), 0, "sorted by rising (no points asked for)");
	ok(r.nrows == 4 && !strcmp(r.rows[0].name, "vfs_read") &&
	       !strcmp(r.rows[1].name, "copy_user") && !strcmp(r.rows[2].name, "tcp_sendmsg") &&
	       !strcmp(r.rows[3].name, "read_zero"),
	   "rising order: vfs_read, copy_user, tcp_sendmsg, read_zero");
	q.reverse = 1;
	kt_agg_query(a, &q, &r);
	is_str(r.rows[0].name, "read_zero", "reversed: the fastest falling first");

	q = qv(KT_VIEW_TOPFUNCS);
	q.trend = 3;
	kt_agg_query(a, &q, &r);
	is_int(r.sum.trend_points, 3, "three points asked: three slices each");
	is_double(r.sum.trend_point_s, 3.0, 1e-12, "3 s per point");
	is_str(pts(&r, "copy_user"), "3 3 17", "copy_user merged");
	is_str(pts(&r, "read_zero"), "14 0 0", "read_zero merged");
	q.trend = 5;
	kt_agg_query(a, &q, &r);
	ok(r.sum.trend_points == 4 && !strcmp(pts(&r, "copy_user"), "2 2 2 16"),
	   "five asked: four points of 2 slices, the oldest leftover slice left out");

	q = qv(KT_VIEW_MODULES);
	q.trend = 9;
	kt_agg_query(a, &q, &r);
	is_str(pts(&r, "vmlinux"), "9 5 3 1 1 1 4 13 15", "modules: vmlinux sums its functions");
	is_str(pts(&r, "tcp"), "4 4 4 4 4 4 4 4 4", "modules: tcp");

	q = qv(KT_VIEW_CPUS);
	q.trend = 9;
	kt_agg_query(a, &q, &r);
	is_str(pts(&r, "cpu0"), "12 8 6 4 4 4 4 4 4", "CPU 0: read_zero and tcp_sendmsg");
	is_str(pts(&r, "cpu1"), "1 1 1 1 1 1 4 13 15", "CPU 1: copy_user and vfs_read");

	q = qv(KT_VIEW_TASKS);
	q.trend = 9;
	q.filter.cpu = 1;
	kt_agg_query(a, &q, &r);
	is_str(pts(&r, "dd"), "1 1 1 1 1 1 4 13 15", "tasks under a CPU filter: dd on CPU 1");
	ok(!find(&r, "iperf3"), "iperf3 never ran on CPU 1");

	q = qv(KT_VIEW_CONTEXTS);
	q.trend = 9;
	kt_agg_query(a, &q, &r);
	ok(r.nrows == 1 && r.sum.trend_points == 9 && r.rows[0].trend && r.rows[0].trend[8] == 19 &&
	       r.rows[0].trend[0] == 13,
	   "contexts: every hit in the one unknown context, per slice");

	/* slices expire: 5 s later the four oldest points are gone, the rest shifted left */
	kt_window_advance(w, t0 + 14 * S + S / 2);
	q = qv(KT_VIEW_TOPFUNCS);
	q.trend = 20;
	kt_agg_query(a, &q, &r);
	is_int(r.sum.trend_points, 9, "still nine complete slices");
	is_str(pts(&r, "copy_user"), "1 1 8 8 0 0 0 0 0", "copy_user's points moved left");
	is_str(pts(&r, "read_zero"), "0 0 0 0 100 0 0 0 0", "the once-open slice is complete now");
	kt_result_free(&r);
	kt_agg_free(a);
	kt_window_free(w);
}

/* Baselines: captured from the fixture window, then compared with a window of other counts;
 * from a JSON report's text; and the --diff writer on two baselines. */
static void test_baseline(void)
{
	struct kt_query q = qv(KT_VIEW_TOPFUNCS);
	struct kt_result r = {0};
	struct kt_baseline *b, *j, *j2;
	const struct kt_row *row;
	char err[256];
	static const char json[] =
	    "{\"version\":1,\"report\":1,\"samples\":999,\"modules\":[]}\n"
	    "{\"version\":1,\"report\":2,\"time\":2,\"source\":\"replay\",\"samples\":200,"
	    "\"kernel\":150,\"idle\":50,\"covered_s\":2.0,\"busy_pct\":1.5,"
	    "\"proc_stat\":{\"us\":1,\"si\":2},\"modules\":[{\"name\":\"vmlinux\",\"hits\":100,"
	    "\"idle\":false},{\"name\":\"[idle]\",\"hits\":50,\"idle\":true},{\"name\":\"tcp\","
	    "\"hits\":50,\"pct\":25}],\"functions\":[{\"module\":\"vmlinux\",\"name\":"
	    "\"read_zero\",\"hits\":80,\"idle\":false},{\"module\":\"tcp\",\"name\":\"tcp_push\","
	    "\"hits\":50,\"idle\":false},{\"module\":\"v\\u00ffm\",\"name\":\"a\\\"b\",\"hits\":1}]"
	    ","
	    "\"cpu\":[{\"cpu\":1,\"hits\":120,\"idle\":30,\"top_module\":\"tcp\"}],"
	    "\"contexts\":[{\"kind\":\"softirq\",\"name\":\"NET_RX\",\"hits\":7},{\"kind\":"
	    "\"idle\",\"name\":\"\",\"hits\":50}]}\n";

	/* the fixture window as the baseline: 220 samples (217 and 3 more in the second slice) */
	ok(kt_baseline_capture(agg, "fixture", &b) == 0, "capture the fixture window");
	is_int(kt_baseline_samples(b), 220, "the baseline's samples: every hit of the window");
	is_int(kt_baseline_hits(b, KT_VIEW_TOPFUNCS, "vmlinux", "copy_user"), 18,
	       "copy_user's 18 hits kept by module and name");
	is_int(kt_baseline_hits(b, KT_VIEW_MODULES, NULL, "tcp"), 70, "tcp's 70");
	is_int(kt_baseline_hits(b, KT_VIEW_TASKS, "dd", "300/300"), 48,
	       "dd's 48 by command and pid");
	is_int(kt_baseline_hits(b, KT_VIEW_CPUS, NULL, "cpu1"), 98, "cpu1's 98");
	is_int(kt_baseline_hits(b, KT_VIEW_MODULES, NULL, "nothere"), 0, "an unknown row: 0");
	kt_agg_set_baseline(agg, b);
	ok(kt_agg_baseline(agg) == b, "set on the aggregator");
	/* the same window against itself: every delta 0, every ratio 1, nothing new or gone */
	kt_agg_query(agg, &q, &r);
	row = find(&r, "copy_user");
	ok(row && row->base_state == KT_BASE_BOTH && fabs(row->delta_pct) < 1e-9 &&
	       fabs(row->rate_ratio - 1.0) < 1e-9,
	   "against itself: copy_user +0.0, 1.00x");

	/* a baseline of other counts: 200 samples, 50 idle, 2 s; hand-computed deltas */
	ok(kt_baseline_from_json(json, sizeof(json) - 1, "r.json", &j, err, sizeof(err)) == 0,
	   "a JSON report's last line as a baseline");
	is_int(kt_baseline_samples(j), 200, "its samples (the last report, not the first)");
	is_double(kt_baseline_covered(j), 2.0, 1e-12, "its covered seconds");
	is_int(kt_baseline_hits(j, KT_VIEW_TOPFUNCS, "tcp", "tcp_push"), 50, "tcp_push 50");
	is_int(kt_baseline_hits(j, KT_VIEW_TOPFUNCS, "v\xffm", "a\"b"), 1,
	       "escapes decoded (\\u00ff is the byte 0xff, \\\" a quote)");
	is_int(kt_baseline_hits(j, KT_VIEW_CPUS, NULL, "cpu1"), 120, "cpu rows as cpuN");
	is_int(kt_baseline_hits(j, KT_VIEW_CONTEXTS, NULL, "softirq NET_RX"), 7,
	       "contexts as their label, kind and name");
	is_int(kt_baseline_hits(j, KT_VIEW_CONTEXTS, NULL, "idle"), 50, "idle's label: the kind");
	kt_agg_set_baseline(agg, j);
	q = qv(KT_VIEW_MODULES);
	kt_agg_query(agg, &q, &r);
	row = find(&r, "tcp");
	/* tcp now 70 of 220 (31.818 %), then 50 of 200 (25 %); its rate now against 50 / 2.0 s */
	ok(row && row->base_state == KT_BASE_BOTH, "tcp in both");
	is_double(row ? row->delta_pct : 0, 70.0 / 220 * 100 - 25.0, 1e-9, "tcp: +6.82 points");
	is_double(row ? row->rate_ratio : 0, (70.0 / r.sum.covered_s) / 25.0, 1e-9,
		  "tcp: the rate now over 25/s");
	row = find(&r, "nosym");
	ok(row && row->base_state == KT_BASE_NEW && isinf(row->rate_ratio) &&
	       fabs(row->delta_pct - 12.0 / 220 * 100) < 1e-9,
	   "nosym appeared: new, its whole share");
	q.filter.hide_idle = 1;
	kt_agg_query(agg, &q, &r);
	row = find(&r, "tcp");
	is_double(row ? row->delta_pct : 0, 70.0 / 130 * 100 - 50.0 / 150 * 100, 1e-9,
		  "idle hidden: both shares without idle (130 now, 150 then)");
	q = qv(KT_VIEW_TOPFUNCS);
	kt_agg_query(agg, &q, &r);
	row = find(&r, "a\"b");
	ok(row && row->base_state == KT_BASE_GONE && row->hits == 0 && row->base_hits == 1 &&
	       !strcmp(row->module, "v\xffm") && fabs(row->delta_pct + 0.5) < 1e-9,
	   "a vanished function: added with 0 hits, -0.50 points, marked gone");
	q.sort = KT_SORT_DELTA;
	kt_agg_query(agg, &q, &r);
	ok(r.nrows > 2 && !strcmp(r.rows[0].name, "default_idle") &&
	       !strcmp(r.rows[r.nrows - 1].name, "read_zero"),
	   "sorted by delta: default_idle (+40.9, new) first, read_zero (-28.6) last");
	q = qv(KT_VIEW_FUNCS);
	q.module = (uint32_t)kt_sym_module_find(sym, "tcp");
	kt_agg_query(agg, &q, &r);
	row = find(&r, "tcp_push");
	is_double(row ? row->delta_pct : 0, 10.0 / 220 * 100 - 25.0, 1e-9,
		  "a module's functions compare by module and name too");
	ok(!find(&r, "read_zero"), "and a vanished row of another module stays out");
	q = qv(KT_VIEW_TOPFUNCS);
	q.filter.cpu = 0;
	kt_agg_query(agg, &q, &r);
	ok(!find(&r, "a\"b"),
	   "under a CPU filter no vanished rows (the baseline has no CPU split)");
	kt_agg_set_baseline(agg, NULL);
	kt_agg_query(agg, &q, &r);
	ok(r.nrows && r.rows[0].base_state == KT_BASE_NONE, "cleared: no baseline fields");

	ok(kt_baseline_from_json("{\"version\":1,\"modules\":[{\"name\":1}]}", 36, "x", &j2, err,
				 sizeof(err)) == -EINVAL,
	   "a bad JSON report is refused");
	like_str(err, "not a kerntop JSON report", "with the reason");
	ok(kt_baseline_from_json("[]", 2, "x", &j2, err, sizeof(err)) == -EINVAL, "not an object");
	kt_result_free(&r);
}

int main(void)
{
	load();
	test_trend();
	test_baseline();
	kt_agg_free(agg);
	kt_window_free(win);
	kt_sym_free(sym);
	return tap_done();
}
