/* History tests (docs/history.md) over the tests/data/agg symbolizer: the trend points of
 * flat rows from hand-placed per-slice counts (exact levels, rising order, merged points,
 * the CPU and task views), with the open slice left out. */
#include "config.h"

#include <math.h>
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

int main(void)
{
	load();
	test_trend();
	kt_agg_free(agg);
	kt_window_free(win);
	kt_sym_free(sym);
	return tap_done();
}
