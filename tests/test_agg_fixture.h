/* The aggregator fixture shared by test_agg.c and test_report.c: the symbolizer loaded from
 * tests/data/agg and a window holding the same counts as tests/data/agg/callchains.perf
 * (plus 3 copy_user hits in a second slice). */
#ifndef KERNTOP_TEST_AGG_FIXTURE_H
#define KERNTOP_TEST_AGG_FIXTURE_H

#include <stdarg.h>
#include <stdlib.h>

#include "kerntop/agg.h"
#include "kerntop/symbols.h"
#include "kerntop/window.h"
#include "tap.h"

#define S 1000000000ull
#define K 0xffffffff81000000ull
#define M 0xffffffffc0001000ull

enum { ENTRY = 0, SYS, VFS, KSYS, RZA, RZB, RZCALL, CU, IDLE, SEND, PUSH, XMIT, NSA, NSB, NSC };
static const uint64_t addr[] = {
    K + 0x120,
    K + 0x230,
    K + 0x310,
    K + 0x418,
    K + 0x510,
    K + 0x550,
    K + 0x560,
    K + 0x608,
    K + 0x70b,
    M + 0x40,
    M + 0x220,
    M + 0x410,
    0xffffffffc0010050ull,
    0xffffffffc0010090ull,
    0xffffffffc00100c8ull,
};

static struct kt_symbols *sym;
static struct kt_window *win;
static struct kt_agg *agg;
static uint32_t t_iperf0, t_iperf1, t_dd, t_swapper, t_kw;

/* Adds count samples of a stack given leaf first, -1 terminated; frames[0] is the IP. */
static void add(uint64_t t, uint32_t cpu, uint32_t task, uint64_t count, int user, ...)
{
	uint32_t locs[16], n = 0, loc, st = 0;
	va_list ap;
	int f;

	va_start(ap, user);
	while ((f = va_arg(ap, int)) >= 0)
		locs[n++] = kt_sym_lookup(sym, addr[f]);
	va_end(ap);
	loc = user ? KT_LOC_USER : locs[0];
	if (n > 1)
		st = kt_window_stack(win, locs, n);
	kt_window_add(win, t, loc, st, cpu, task, count);
}

static void load(void)
{
	struct kt_sym_opts so = {.kallsyms = tap_data("agg/kallsyms"),
				 .modules = tap_data("agg/modules")};
	struct kt_window_opts wo = {.span_ns = 10 * S, .slice_ns = 1 * S};
	struct kt_agg_params ap = {.freq_hz = 1000, .ms_per_hit = 1.0, .ncpus = 2, .max_cpu = 2};
	char err[512];
	uint64_t t = 100 * S;

	if (kt_sym_new(&so, &sym, err, sizeof(err)) < 0) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	kt_window_new(&wo, &win);
	kt_agg_new(win, sym, &ap, &agg);
	t_iperf0 = kt_window_task(win, 200, 200);
	t_iperf1 = kt_window_task(win, 200, 201);
	t_dd = kt_window_task(win, 300, 300);
	t_swapper = kt_window_task(win, 0, 0);
	t_kw = kt_window_task(win, 50, 50);
	kt_window_comm(win, 200, 200, "iperf3");
	kt_window_comm(win, 200, 201, "iperf3");
	kt_window_comm(win, 300, 300, "dd");
	kt_window_comm(win, 0, 0, "swapper");

	/* the same counts as tests/data/agg/callchains.perf, in slice 0 */
	add(t, 0, t_iperf0, 40, 0, XMIT, PUSH, SEND, SYS, ENTRY, -1);
	add(t, 1, t_iperf1, 20, 0, XMIT, SEND, SYS, ENTRY, -1);
	add(t, 0, t_iperf0, 10, 0, PUSH, SEND, SYS, ENTRY, -1);
	add(t, 1, t_dd, 15, 0, RZA, VFS, KSYS, SYS, ENTRY, -1);
	add(t, 1, t_dd, 10, 0, RZB, VFS, KSYS, SYS, ENTRY, -1);
	add(t, 1, t_dd, 15, 0, CU, RZCALL, VFS, KSYS, SYS, ENTRY, -1);
	add(t, 0, t_swapper, 60, 0, IDLE, -1);
	add(t, 1, t_swapper, 30, 0, IDLE, -1);
	add(t, 0, t_kw, 8, 0, NSA, -1);
	add(t, 0, t_kw, 2, 0, NSB, -1);
	add(t, 0, t_kw, 2, 0, NSC, -1);
	add(t, 1, t_dd, 5, 1, -1);
	/* slice 1: the "now" rate: only copy_user */
	add(t + 1 * S, 1, t_dd, 3, 0, CU, RZCALL, VFS, KSYS, SYS, ENTRY, -1);
	kt_window_advance(win, t + 2 * S);
}

#endif
