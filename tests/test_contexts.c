/* Execution contexts by layer: the symbolizer's rules on chains built from the contexts
 * fixture's kallsyms (tests/data/contexts), kernel-thread names, IRQ-helper and cpuidle
 * flags; the window's context dimension and its per-stack / per-task tags; the
 * aggregator's contexts view, its context filter on every other view, and --irq-owner. */
#include "config.h"

#include <errno.h>

#include "kerntop/agg.h"
#include "kerntop/symbols.h"
#include "kerntop/window.h"
#include "tap.h"

#define S 1000000000ull

static struct kt_symbols *sym;

static uint64_t addr_of(const char *name)
{
	FILE *f = fopen(tap_data("contexts/kallsyms"), "r");
	char line[256], nm[200], t;
	unsigned long long a;
	uint64_t r = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %199s", &a, &t, nm) == 3 && !strcmp(nm, name))
			r = a;
	if (f)
		fclose(f);
	if (!r)
		printf("# no %s in the fixture\n", name);
	return r;
}

/* Location ids of a chain "leaf;caller;...": the leaf at +0x10, return addresses at +0x20. */
static uint32_t chain(const char *names, uint32_t *locs)
{
	char buf[1024], *save = NULL;
	uint32_t n = 0;

	snprintf(buf, sizeof(buf), "%s", names);
	for (char *p = strtok_r(buf, ";", &save); p && n < 32; p = strtok_r(NULL, ";", &save)) {
		locs[n] = kt_sym_lookup(sym, addr_of(p) + (n ? 0x20 : 0x10));
		n++;
	}
	return n;
}

static const char *classify(const char *names)
{
	uint32_t locs[32], n = chain(names, locs), id = kt_sym_ctx_classify(sym, locs, n);

	if (id == KT_CTX_BY_COMM)
		return "(by comm)";
	return kt_sym_ctx(sym, id) ? kt_sym_ctx(sym, id)->label : "(bad id)";
}

static void rules(void)
{
	is_str(kt_sym_ctx(sym, KT_CTXID_UNKNOWN)->label, "unknown", "context 0 is unknown");
	is_str(kt_sym_ctx(sym, KT_CTXID_IDLE)->label, "idle", "context 1 is idle");
	is_str(kt_sym_ctx(sym, KT_CTXID_USER)->label, "user", "context 2 is user");
	is_str(classify("tcp_sendmsg;do_sendfile;__x64_sys_sendfile64;x64_sys_call;do_syscall_64"),
	       "syscall sendfile64", "a syscall is named by its __x64_sys_ frame");
	is_str(classify("f;do_syscall_64;entry_SYSCALL_64"), "syscall entry/exit",
	       "entry code outside any __x64_sys_ frame");
	is_str(classify(
		   "f;net_rx_action;handle_softirqs;irq_exit_rcu;sysvec_apic_timer_interrupt;"
		   "asm_sysvec_apic_timer_interrupt;tcp_sendmsg;do_sendfile;__x64_sys_sendfile64"),
	       "softirq NET_RX",
	       "softirq on irq exit inside a syscall: the innermost context wins");
	is_str(classify("run_timer_softirq;__do_softirq;irq_exit_rcu"), "softirq TIMER",
	       "__do_softirq (before 6.10) names the vector by its callee, the leaf");
	is_str(classify("handle_softirqs;irq_exit_rcu"), "softirq dispatch",
	       "the loop itself, without a vector below it");
	is_str(classify("f;net_rx_action;handle_softirqs;run_ksoftirqd;smpboot_thread_fn;kthread"),
	       "softirq NET_RX (ksoftirqd)", "ksoftirqd's softirq work is flagged");
	is_str(
	    classify("hrtimer_interrupt;__sysvec_apic_timer_interrupt;sysvec_apic_timer_interrupt"),
	    "hardirq apic_timer_interrupt", "a system vector named without its prefix");
	is_str(
	    classify("vring_interrupt;__handle_irq_event_percpu;handle_irq_event;handle_edge_irq"),
	    "hardirq vring_interrupt", "a device interrupt named by its handler");
	is_str(classify("handle_edge_irq;common_interrupt;asm_common_interrupt"),
	       "hardirq common_interrupt", "irq flow code takes the entry's name");
	is_str(classify("handle_edge_irq"), "hardirq irq", "irq flow code alone");
	is_str(classify("asm_spurious_interrupt;f"), "hardirq spurious_interrupt",
	       "an entry known only from __irqentry_text_start..__irqentry_text_end");
	is_str(classify("handle_mm_fault;do_user_addr_fault;exc_page_fault;asm_exc_page_fault;f"),
	       "exception page_fault", "asm_exc_page_fault in .irqentry.text is an exception");
	is_str(classify("nmi_handle;default_do_nmi;exc_nmi;asm_exc_nmi"), "hardirq nmi", "an NMI");
	is_str(classify("f;vmstat_update;process_one_work;worker_thread;kthread"),
	       "kthread kworker:vmstat_update", "a kworker by its work function");
	is_str(classify("process_one_work;worker_thread;kthread"), "kthread kworker",
	       "a kworker in process_one_work itself");
	is_str(classify("shrink_node;kswapd;kthread;ret_from_fork"), "(by comm)",
	       "other kernel threads are named by their command");
	is_str(classify("tick_nohz_idle_enter;do_idle;cpu_startup_entry"), "kthread swapper",
	       "the idle task's own work");
	is_str(classify("f;ret_from_fork;ret_from_fork_asm"), "other ret_from_fork_asm",
	       "no rule: named by the root frame");
	is_int(kt_sym_ctx_classify(sym, NULL, 0), KT_CTXID_UNKNOWN, "no chain: unknown");
	ok(kt_sym_ctx_find(sym, "softirq NET_RX") > 2, "a context is found by its label");
	is_int(kt_sym_ctx_find(sym, "softirq NOPE"), -ENOENT, "an unknown label is -ENOENT");
	is_str(kt_ctx_kind_name(
		   kt_sym_ctx(sym, (uint32_t)kt_sym_ctx_find(sym, "softirq NET_RX"))->kind),
	       "softirq", "its kind");
	is_str(kt_sym_ctx(sym, (uint32_t)kt_sym_ctx_find(sym, "softirq NET_RX"))->name, "NET_RX",
	       "its name");

	is_str(kt_sym_ctx(sym, kt_sym_ctx_comm(sym, "ksoftirqd/3"))->label, "kthread ksoftirqd",
	       "per-CPU thread names lose their CPU");
	is_str(kt_sym_ctx(sym, kt_sym_ctx_comm(sym, "kworker/u8:2"))->label, "kthread kworker",
	       "kworker/u8:2 -> kworker");
	is_str(kt_sym_ctx(sym, kt_sym_ctx_comm(sym, "irq/24-virtio0"))->label,
	       "kthread irq/24-virtio0", "a threaded irq keeps its line and name");
	is_str(kt_sym_ctx(sym, kt_sym_ctx_comm(sym, "kswapd0"))->label, "kthread kswapd0",
	       "kswapd0 as it is");
	is_str(kt_sym_ctx(sym, kt_sym_ctx_comm(sym, ""))->label, "kthread ?", "no command yet");
	is_int(kt_sym_ctx_comm(sym, "ksoftirqd/0"), kt_sym_ctx_comm(sym, "ksoftirqd/1"),
	       "ksoftirqd/0 and ksoftirqd/1 are one context");
}

static uint32_t func_of(const char *name)
{
	return kt_sym_resolve(sym, addr_of(name) + 0x10);
}

static void flags(void)
{
	ok(kt_sym_irq_helper(sym, func_of("pvm_irq_enable")), "pvm_irq_enable re-enables IRQs");
	ok(kt_sym_irq_helper(sym, func_of("__raw_callee_save_pvm_irq_enable")),
	   "so does its wrapper");
	ok(kt_sym_irq_helper(sym, func_of("_raw_spin_unlock_irqrestore")),
	   "_raw_spin_unlock_irqrestore");
	ok(kt_sym_irq_helper(sym, func_of("__local_bh_enable_ip")), "__local_bh_enable_ip");
	ok(!kt_sym_irq_helper(sym, func_of("tcp_write_xmit")), "tcp_write_xmit is no helper");
	ok(!kt_sym_irq_helper(sym, func_of("irq_exit_rcu")), "irq_exit_rcu is no helper");
	ok(kt_sym_func(sym, func_of("fancy_idle_enter"))->idle,
	   "a function in .cpuidle.text is idle without being on the idle list");
	ok(kt_sym_func(sym, func_of("default_idle"))->idle, "default_idle is idle");
	ok(!kt_sym_func(sym, func_of("tick_nohz_idle_enter"))->idle,
	   "tick_nohz_idle_enter (outside .cpuidle.text) is not");
}

static void window(void)
{
	struct kt_window_opts wo = {.span_ns = 10 * S, .slice_ns = 1 * S, .max_cum_tuples = 2};
	struct kt_window *w;
	uint32_t locs[2] = {5, 6}, st, t;
	const struct kt_hit *h;
	size_t n;
	uint64_t c5 = 0, c6 = 0;

	kt_window_new(&wo, &w);
	st = kt_window_stack(w, locs, 2);
	t = kt_window_task(w, 10, 10);
	is_int(kt_window_stack_tag(w, st, KT_STACK_TAG_CTX), 0, "a new stack has no tag");
	kt_window_stack_set_tag(w, st, KT_STACK_TAG_CTX, 42);
	is_int(kt_window_stack_tag(w, st, KT_STACK_TAG_CTX), 42, "the stack keeps its tag");
	is_int(kt_window_stack_tag(w, st, KT_STACK_TAG_PATH), 0, "its other tag is its own");
	kt_window_stack_set_tag(w, st, KT_STACK_TAG_PATH, 7);
	kt_window_stack_clear_tags(w, KT_STACK_TAG_PATH);
	ok(kt_window_stack_tag(w, st, KT_STACK_TAG_PATH) == 0 &&
	       kt_window_stack_tag(w, st, KT_STACK_TAG_CTX) == 42,
	   "clearing one tag of every stack leaves the other");
	kt_window_comm(w, 10, 10, "ksoftirqd/0");
	kt_window_task_set_tag(w, t, 7);
	kt_window_comm(w, 10, 10, "ksoftirqd/0");
	is_int(kt_window_task_tag(w, t), 7, "the same command keeps the task's tag");
	kt_window_comm(w, 10, 10, "renamed");
	is_int(kt_window_task_tag(w, t), 0, "a new command clears it");
	kt_window_add_ctx(w, 1 * S, 5, st, 0, t, 5, 3);
	kt_window_add_ctx(w, 1 * S, 5, st, 0, t, 6, 2);
	kt_window_add_ctx(w, 1 * S, 5, st, 0, t, 5, 1);
	h = kt_window_hits(w, &n);
	is_int(n, 2, "the context is part of the key: two tuples");
	for (size_t i = 0; i < n; i++)
		*(h[i].ctx == 5 ? &c5 : &c6) += h[i].hits;
	is_int(c5, 4, "context 5: 4 hits");
	is_int(c6, 2, "context 6: 2 hits");
	/* past the cap the since-start totals drop stack and task, never the context */
	kt_window_set_cumulative(w, 1);
	for (uint32_t i = 0; i < 5; i++)
		kt_window_add_ctx(w, (2 + i) * S, 7 + i, st, 1, t, 9, 1);
	kt_window_advance(w, 30 * S);
	h = kt_window_hits(w, &n);
	c5 = c6 = 0;
	for (size_t i = 0; i < n; i++)
		if (h[i].ctx == 9)
			c5 += h[i].hits;
	is_int(c5, 5, "folded since-start tuples keep their context");
	kt_window_free(w);
}

static uint64_t sum_hits(struct kt_agg *a, enum kt_view v, uint32_t ctx, uint32_t func)
{
	struct kt_query q = {.view = v, .module = KT_ANY, .func = func};
	struct kt_result r = {0};
	uint64_t n = 0;

	kt_filter_all(&q.filter);
	q.filter.ctx = ctx;
	if (kt_agg_query(a, &q, &r) == 0)
		for (size_t i = 0; i < r.nrows; i++)
			if (v != KT_VIEW_CALLERS || r.rows[i].depth == 0)
				n += r.rows[i].hits;
	kt_result_free(&r);
	return n;
}

/* Ingest as main.c does it: classify the chain once per stack. */
static void ingest(struct kt_window *w, uint32_t cpu, uint32_t task, uint64_t count,
		   const char *names)
{
	uint32_t locs[32], n = chain(names, locs), st = kt_window_stack(w, locs, n);
	uint32_t id = kt_sym_ctx_classify(sym, locs, n);

	if (id == KT_CTX_BY_COMM)
		id = kt_sym_ctx_comm(sym, kt_window_task_info(w, task)->comm);
	if (kt_sym_loc(sym, locs[0])->idle)
		id = KT_CTXID_IDLE;
	kt_window_add_ctx(w, 1 * S, locs[0], st, cpu, task, id, count);
}

static void aggregate(void)
{
	struct kt_window_opts wo = {.span_ns = 10 * S, .slice_ns = 1 * S};
	struct kt_agg_params ap = {.freq_hz = 1000, .ms_per_hit = 1.0, .ncpus = 2, .max_cpu = 2};
	struct kt_window *w;
	struct kt_agg *a;
	uint32_t app, ks, netrx, send;
	struct kt_query q = {.view = KT_VIEW_CONTEXTS, .module = KT_ANY, .func = KT_ANY};
	struct kt_result r = {0};
	struct kt_summary sum;
	const char *spin = "pvm_irq_enable;__raw_callee_save_pvm_irq_enable;"
			   "_raw_spin_unlock_irqrestore;tcp_write_xmit;tcp_sendmsg;do_sendfile;"
			   "__x64_sys_sendfile64;x64_sys_call;do_syscall_64";

	kt_window_new(&wo, &w);
	kt_agg_new(w, sym, &ap, &a);
	app = kt_window_task(w, 100, 100);
	kt_window_comm(w, 100, 100, "app");
	ks = kt_window_task(w, 15, 15);
	kt_window_comm(w, 15, 15, "ksoftirqd/1");
	ingest(w, 0, app, 10, "tcp_sendmsg;do_sendfile;__x64_sys_sendfile64;x64_sys_call");
	ingest(w, 0, app, 6, spin);
	ingest(w, 0, app, 8,
	       "f;net_rx_action;handle_softirqs;irq_exit_rcu;tcp_sendmsg;do_sendfile;"
	       "__x64_sys_sendfile64");
	ingest(w, 1, ks, 5, "f;net_rx_action;handle_softirqs;run_ksoftirqd;kthread");
	ingest(w, 1, ks, 1, "smpboot_thread_fn;kthread");
	ingest(w, 1, app, 4, "default_idle;do_idle");
	netrx = (uint32_t)kt_sym_ctx_find(sym, "softirq NET_RX");
	send = (uint32_t)kt_sym_ctx_find(sym, "syscall sendfile64");

	q.per_cpu = 1;
	kt_filter_all(&q.filter);
	is_int(kt_agg_query(a, &q, &r), 0, "contexts view");
	is_int(r.nrows, 5, "five contexts");
	is_str(r.rows[0].name, "syscall sendfile64", "hottest first");
	is_int(r.rows[0].hits, 16, "sendfile64: 10 + 6");
	is_int(r.rows[0].ctx_kind, KT_CTX_SYSCALL, "its kind");
	is_int(r.rows[0].id, send, "row id = context id");
	is_int(r.rows[0].per_cpu[0], 16, "all on CPU 0");
	is_str(r.rows[1].name, "softirq NET_RX", "then NET_RX");
	is_str(r.rows[2].name, "softirq NET_RX (ksoftirqd)", "ksoftirqd's NET_RX");
	is_int(r.rows[2].per_cpu[1], 5, "on CPU 1");
	is_str(r.rows[3].name, "idle", "idle");
	is_str(r.rows[4].name, "kthread ksoftirqd", "ksoftirqd's own loop");
	is_double(r.rows[1].pct_kernel, 8.0 * 100 / 34, 1e-9, "%Kernel of all 34 hits");
	kt_result_free(&r);

	/* the context filter applies to every view */
	is_int(sum_hits(a, KT_VIEW_MODULES, netrx, KT_ANY), 8, "modules under NET_RX");
	is_int(sum_hits(a, KT_VIEW_TOPFUNCS, netrx, KT_ANY), 8, "functions under NET_RX");
	is_int(sum_hits(a, KT_VIEW_CPUS, netrx, KT_ANY), 8, "CPUs under NET_RX");
	is_int(sum_hits(a, KT_VIEW_TASKS, netrx, KT_ANY), 8, "tasks under NET_RX");
	is_int(sum_hits(a, KT_VIEW_STACKS, netrx, KT_ANY), 8, "stacks under NET_RX");
	is_int(sum_hits(a, KT_VIEW_CALLERS, netrx, func_of("f")), 8, "f's callers under NET_RX");
	is_int(sum_hits(a, KT_VIEW_CALLERS, KT_ANY, func_of("f")), 13, "f's callers in all");
	is_int(sum_hits(a, KT_VIEW_TOPFUNCS, send, KT_ANY), 16, "functions under sendfile64");
	kt_filter_all(&q.filter);
	q.filter.ctx = send;
	kt_agg_summary(a, &q.filter, &sum);
	is_int(sum.kernel, 16, "the summary under a context filter");
	is_int(sum.irq_helper, 6, "the helpers' raw hits");

	/* --irq-owner */
	is_int(sum_hits(a, KT_VIEW_CALLERS, KT_ANY, func_of("pvm_irq_enable")), 6,
	       "off: pvm_irq_enable holds 6");
	kt_agg_set_irq_owner(a, 1);
	is_int(sum_hits(a, KT_VIEW_CALLERS, KT_ANY, func_of("pvm_irq_enable")), 0,
	       "on: pvm_irq_enable holds none");
	is_int(sum_hits(a, KT_VIEW_CALLERS, KT_ANY, func_of("tcp_write_xmit")), 6,
	       "on: tcp_write_xmit holds them, with their callers");
	q.view = KT_VIEW_CALLERS;
	q.func = func_of("tcp_write_xmit");
	kt_filter_all(&q.filter);
	kt_agg_query(a, &q, &r);
	ok(r.nrows >= 2 && r.rows[1].id == func_of("tcp_sendmsg"),
	   "tcp_write_xmit's caller is tcp_sendmsg, not a helper");
	kt_result_free(&r);
	kt_agg_summary(a, NULL, &sum);
	is_int(sum.irq_helper, 6, "the raw helper share stays in the summary");
	ok(sum.irq_owner, "the summary says the charging is on");
	kt_agg_free(a);
	kt_window_free(w);
}

int main(void)
{
	struct kt_sym_opts so = {.kallsyms = tap_data("contexts/kallsyms"),
				 .modules = tap_data("contexts/modules")};
	char err[512];

	if (kt_sym_new(&so, &sym, err, sizeof(err)) < 0) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	rules();
	flags();
	window();
	aggregate();
	kt_sym_free(sym);
	return tap_done();
}
