/* Execution contexts: which kind of kernel work a call chain belongs to (hardirq, softirq
 * vector, syscall, exception, kernel thread ...), from one table of rules over function
 * names and the kernel's .irqentry.text bounds, plus the flag of the functions that turn
 * interrupts back on (--irq-owner). Each function's role is matched once; a chain is then a
 * walk over small integers, and contexts are interned to dense ids (docs/contexts.md). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/symbols.h"
#include "symbols_impl.h"

enum role {
	R_NONE,
	R_SOFTIRQ,	 /* the loop that runs pending vectors: its callee names the vector */
	R_VECTOR,	 /* a vector's handler (name = the vector) */
	R_KSOFTIRQD,	 /* the ksoftirqd thread's body: flags the softirq it ran */
	R_HARDIRQ,	 /* an interrupt entry or handler named by name (or the suffix) */
	R_HARDIRQ_ANON,	 /* generic irq flow code: the nearest named entry rootward names it */
	R_IRQ_DISPATCH,	 /* calls the device's handler: its callee names the hardirq */
	R_NMI,		 /* hardirq "nmi" */
	R_EXCEPTION,	 /* named by the suffix */
	R_SYSCALL,	 /* named by the suffix */
	R_SYSCALL_ENTRY, /* syscall entry and exit work outside the syscall's own function */
	R_WORKER,	 /* process_one_work: its callee is the work function */
	R_KTHREAD,	 /* kthread(): a kernel thread, named by its command */
	R_IDLE_LOOP,	 /* the idle task's loop around the idle routines: "kthread swapper" */
};

/* "name" matches exactly, "prefix*" a prefix; compiler clone suffixes (".isra.0", ".cold")
 * are ignored. name: the context's name, or NULL for the part the '*' matched. The first
 * matching rule wins; a function in __irqentry_text_start..__irqentry_text_end that no rule
 * names is a hardirq entry named by its name without "asm_". */
struct ctx_rule {
	const char *pat;
	uint8_t role;
	const char *name;
};

static const struct ctx_rule rules[] = {
    /* softirq loop: handle_softirqs since 6.10 (split out of __do_softirq, which calls it
     * from .softirqentry.text); __do_softirq alone before 6.10 */
    {"handle_softirqs", R_SOFTIRQ, NULL},
    {"__do_softirq", R_SOFTIRQ, NULL},
    {"run_ksoftirqd", R_KSOFTIRQD, NULL},
    /* vector handlers, in softirq_to_name order; older names kept for older kernels */
    {"tasklet_hi_action", R_VECTOR, "HI"},
    {"run_timer_softirq", R_VECTOR, "TIMER"},
    {"net_tx_action", R_VECTOR, "NET_TX"},
    {"net_rx_action", R_VECTOR, "NET_RX"},
    {"blk_done_softirq", R_VECTOR, "BLOCK"},
    {"irq_poll_softirq", R_VECTOR, "IRQ_POLL"},	  /* 4.5+ */
    {"blk_iopoll_softirq", R_VECTOR, "IRQ_POLL"}, /* before 4.5 */
    {"tasklet_action", R_VECTOR, "TASKLET"},
    {"sched_balance_softirq", R_VECTOR, "SCHED"}, /* 6.10+ */
    {"run_rebalance_domains", R_VECTOR, "SCHED"}, /* before 6.10 */
    {"hrtimer_run_softirq", R_VECTOR, "HRTIMER"}, /* 4.16+ */
    {"rcu_core_si", R_VECTOR, "RCU"},		  /* 5.3+ */
    {"rcu_process_callbacks", R_VECTOR, "RCU"},	  /* before 5.3 */
    /* NMIs before the other exception entries: asm_exc_nmi is an interrupt */
    {"asm_exc_nmi*", R_NMI, "nmi"},
    {"exc_nmi*", R_NMI, "nmi"},
    {"default_do_nmi", R_NMI, "nmi"},
    /* exceptions (x86 idtentry names, 5.8+): asm_exc_page_fault -> page_fault */
    {"asm_exc_*", R_EXCEPTION, NULL},
    {"exc_*", R_EXCEPTION, NULL},
    /* syscalls: SYSCALL_DEFINE wrappers (4.17+ on x86; __se_/__do_ everywhere) */
    {"__x64_sys_*", R_SYSCALL, NULL},
    {"__ia32_sys_*", R_SYSCALL, NULL},
    {"__x64_compat_sys_*", R_SYSCALL, NULL},
    {"__ia32_compat_sys_*", R_SYSCALL, NULL},
    {"__arm64_sys_*", R_SYSCALL, NULL},
    {"__arm64_compat_sys_*", R_SYSCALL, NULL},
    {"__riscv_sys_*", R_SYSCALL, NULL},
    {"__s390x_sys_*", R_SYSCALL, NULL},
    {"__se_sys_*", R_SYSCALL, NULL},
    {"__do_sys_*", R_SYSCALL, NULL},
    {"__se_compat_sys_*", R_SYSCALL, NULL},
    {"__do_compat_sys_*", R_SYSCALL, NULL},
    /* syscall entry and exit around the syscall's function (x64_sys_call: 6.9+) */
    {"do_syscall_64", R_SYSCALL_ENTRY, "entry/exit"},
    {"do_fast_syscall_32", R_SYSCALL_ENTRY, "entry/exit"},
    {"do_int80_*", R_SYSCALL_ENTRY, "entry/exit"},
    {"asm_int80_emulation", R_SYSCALL_ENTRY, "entry/exit"},
    {"int80_emulation", R_SYSCALL_ENTRY, "entry/exit"},
    {"entry_SYSCALL*", R_SYSCALL_ENTRY, "entry/exit"},
    {"entry_SYSENTER*", R_SYSCALL_ENTRY, "entry/exit"},
    {"entry_INT80*", R_SYSCALL_ENTRY, "entry/exit"},
    {"x64_sys_call", R_SYSCALL_ENTRY, "entry/exit"},
    {"ia32_sys_call", R_SYSCALL_ENTRY, "entry/exit"},
    {"el0_svc*", R_SYSCALL_ENTRY, "entry/exit"},
    /* hardirq: the device handler __handle_irq_event_percpu called (all versions) */
    {"__handle_irq_event_percpu", R_IRQ_DISPATCH, NULL},
    /* system vectors (x86, 5.8+): asm_sysvec_apic_timer_interrupt -> apic_timer_interrupt */
    {"asm_sysvec_*", R_HARDIRQ, NULL},
    {"sysvec_*", R_HARDIRQ, NULL},
    {"__sysvec_*", R_HARDIRQ, NULL},
    {"asm_common_interrupt", R_HARDIRQ, "common_interrupt"},
    {"common_interrupt", R_HARDIRQ, "common_interrupt"},
    {"__common_interrupt", R_HARDIRQ, "common_interrupt"},
    {"do_IRQ", R_HARDIRQ, "common_interrupt"},			     /* before 5.8 */
    {"smp_apic_timer_interrupt", R_HARDIRQ, "apic_timer_interrupt"}, /* before 5.8 */
    {"gic_handle_irq", R_HARDIRQ, "gic"},
    /* generic irq flow code between an entry and the handler */
    {"handle_irq_event*", R_HARDIRQ_ANON, NULL},
    {"handle_edge_irq", R_HARDIRQ_ANON, NULL},
    {"handle_fasteoi_irq", R_HARDIRQ_ANON, NULL},
    {"handle_level_irq", R_HARDIRQ_ANON, NULL},
    {"handle_percpu_irq", R_HARDIRQ_ANON, NULL},
    {"handle_percpu_devid_irq", R_HARDIRQ_ANON, NULL},
    {"handle_irq_desc", R_HARDIRQ_ANON, NULL},
    {"generic_handle_irq*", R_HARDIRQ_ANON, NULL},
    {"generic_handle_domain_irq*", R_HARDIRQ_ANON, NULL},
    {"irq_enter_rcu", R_HARDIRQ_ANON, NULL},
    {"irq_exit_rcu", R_HARDIRQ_ANON, NULL},
    {"__irq_exit_rcu", R_HARDIRQ_ANON, NULL},
    /* kernel threads: workqueue items by their work function, the rest by command */
    {"process_one_work", R_WORKER, NULL},
    {"kthread", R_KTHREAD, NULL},
    {"do_idle", R_IDLE_LOOP, "swapper"},
    {"cpu_startup_entry", R_IDLE_LOOP, "swapper"},
};

#define NRULES (sizeof(rules) / sizeof(rules[0]))

/* Functions that turn interrupts back on: a clock event cannot fire while they are off, so
 * the time spent with IRQs off lands here (docs/contexts.md, "The IRQ-off skew"). */
static const char *const irq_helpers[] = {
    "*_irq_enable",	    /* native_, pv_native_, pvm_, xen_, __raw_callee_save_*_ */
    "*_irqrestore",	    /* _raw_spin_unlock_irqrestore, _raw_{read,write}_unlock_... */
    "*_unlock_irq",	    /* _raw_spin_unlock_irq, _raw_{read,write}_unlock_irq */
    "*_unlock_bh",	    /* _raw_spin_unlock_bh: softirqs run on bh enable */
    "*_restore_fl",	    /* native_restore_fl, xen_restore_fl (pre-6.x paravirt) */
    "__local_bh_enable_ip", /* local_bh_enable, spin_unlock_bh */
    "local_bh_enable",	    "arch_local_irq_restore", "trace_hardirqs_on",
};
/* Matches of the patterns above that do not turn the CPU's interrupts on. */
static const char *const irq_not_helpers[] = {
    "*pci_irq_enable", /* acpi_pci_irq_enable: routes a PCI interrupt line */
};

/* A function's role, in the 10 bits of kt_sym_func.role: its rule (1 + index, 0 none) and
 * three flags. */
#define F_RULE 0x7fu
#define F_HELPER 0x80u
#define F_DONE 0x100u
#define F_IRQENTRY 0x200u
_Static_assert(NRULES <= F_RULE, "a rule index must fit F_RULE");

/* Length of a name without its compiler clone suffix (".isra.0", ".cold"). */
static size_t base_len(const char *name)
{
	return strcspn(name, ".");
}

/* One '*' at most: "pre*", "*suf", "pre*suf" or an exact name. */
static int glob_match(const char *pat, const char *name, size_t len)
{
	const char *star;
	size_t pl, sl;

	/* most patterns start with a letter that most names do not: the first byte rejects
	 * them (the first refresh of a big machine classifies thousands of functions) */
	if (pat[0] && pat[0] != '*' && (!len || pat[0] != name[0]))
		return 0;
	star = strchr(pat, '*');
	if (!star)
		return strlen(pat) == len && !strncmp(pat, name, len);
	pl = (size_t)(star - pat);
	sl = strlen(star + 1);
	return len >= pl + sl && !strncmp(name, pat, pl) && !strncmp(name + len - sl, star + 1, sl);
}

static uint16_t func_role(struct kt_symbols *s, uint32_t func)
{
	struct kt_sym_func *f;

	if (func >= s->nfuncs)
		return F_DONE;
	f = &s->funcs[func];
	if (!(f->role & F_DONE)) {
		const char *nm = f->name ? f->name : "";
		size_t len = base_len(nm);
		uint16_t v = F_DONE;

		for (uint32_t i = 0; i < NRULES; i++)
			if (glob_match(rules[i].pat, nm, len)) {
				v |= (uint16_t)(i + 1);
				break;
			}
		if (!f->bucket && f->module == KT_MOD_VMLINUX && f->start >= s->irqentry_start &&
		    f->start < s->irqentry_end)
			v |= F_IRQENTRY;
		for (size_t i = 0; i < sizeof(irq_helpers) / sizeof(irq_helpers[0]); i++)
			if (glob_match(irq_helpers[i], nm, len)) {
				v |= F_HELPER;
				break;
			}
		for (size_t i = 0; i < sizeof(irq_not_helpers) / sizeof(irq_not_helpers[0]); i++)
			if (glob_match(irq_not_helpers[i], nm, len))
				v &= (uint16_t)~F_HELPER;
		f->role = v;
	}
	return (uint16_t)f->role;
}

static const struct ctx_rule *rule_of(uint16_t v)
{
	return (v & F_RULE) ? &rules[(v & F_RULE) - 1] : NULL;
}

int kt_sym_irq_helper(struct kt_symbols *s, uint32_t func)
{
	return !!(func_role(s, func) & F_HELPER);
}

const char *kt_ctx_kind_name(uint32_t kind)
{
	static const char *const names[] = {
	    [KT_CTX_UNKNOWN] = "unknown",     [KT_CTX_IDLE] = "idle",
	    [KT_CTX_USER] = "user",	      [KT_CTX_HARDIRQ] = "hardirq",
	    [KT_CTX_SOFTIRQ] = "softirq",     [KT_CTX_SYSCALL] = "syscall",
	    [KT_CTX_EXCEPTION] = "exception", [KT_CTX_KTHREAD] = "kthread",
	    [KT_CTX_OTHER] = "other",
	};

	return kind < KT_CTX_NKINDS ? names[kind] : "?";
}

static uint32_t ptr_hash(const char *p, uint32_t mask)
{
	uint64_t x = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;

	return (uint32_t)(x >> 32) & mask;
}

static int ctx_hash_grow(struct kt_symbols *s)
{
	uint32_t ncap = s->ctxhash ? (s->ctxmask + 1) * 2 : 64;
	uint32_t *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (uint32_t id = 0; id < s->nctx; id++) {
		uint32_t k = ptr_hash(s->ctxs[id].label, ncap - 1);

		while (nt[k])
			k = (k + 1) & (ncap - 1);
		nt[k] = id + 1;
	}
	free(s->ctxhash);
	s->ctxhash = nt;
	s->ctxmask = ncap - 1;
	return 0;
}

/* The id of (kind, name), created on first sight; unknown when out of memory. */
static uint32_t ctx_intern(struct kt_symbols *s, uint32_t kind, const char *name, size_t nlen)
{
	char buf[256];
	const char *kn = kt_ctx_kind_name(kind), *label;
	size_t klen = strlen(kn);
	uint32_t k;

	if (nlen)
		snprintf(buf, sizeof(buf), "%s %.*s", kn, (int)nlen, name);
	else
		snprintf(buf, sizeof(buf), "%s", kn);
	label = sym_intern(s, buf);
	if (!label || ((s->nctx + 1) * 2 > s->ctxmask + 1 && ctx_hash_grow(s) < 0)) {
		s->nomem++; /* the sample would be counted as unknown */
		return KT_CTXID_UNKNOWN;
	}
	for (k = ptr_hash(label, s->ctxmask); s->ctxhash[k]; k = (k + 1) & s->ctxmask)
		if (s->ctxs[s->ctxhash[k] - 1].label == label)
			return s->ctxhash[k] - 1;
	if (sym_grow((void **)&s->ctxs, &s->capctx, s->nctx + 1, sizeof(*s->ctxs)) < 0) {
		s->nomem++;
		return KT_CTXID_UNKNOWN;
	}
	s->ctxs[s->nctx] = (struct kt_sym_ctx){kind, nlen ? label + klen + 1 : "", label};
	s->ctxhash[k] = s->nctx + 1;
	return s->nctx++;
}

int sym_ctx_init(struct kt_symbols *s)
{
	/* the fixed ids, in order */
	if (ctx_intern(s, KT_CTX_UNKNOWN, "", 0) != KT_CTXID_UNKNOWN || s->nctx != 1 ||
	    ctx_intern(s, KT_CTX_IDLE, "", 0) != KT_CTXID_IDLE ||
	    ctx_intern(s, KT_CTX_USER, "", 0) != KT_CTXID_USER)
		return -ENOMEM;
	return 0;
}

void sym_ctx_free(struct kt_symbols *s)
{
	free(s->ctxs);
	free(s->ctxhash);
}

uint32_t kt_sym_nctx(const struct kt_symbols *s)
{
	return s->nctx;
}

const struct kt_sym_ctx *kt_sym_ctx(const struct kt_symbols *s, uint32_t ctx)
{
	return ctx < s->nctx ? &s->ctxs[ctx] : NULL;
}

int kt_sym_ctx_find(const struct kt_symbols *s, const char *label)
{
	for (uint32_t i = 0; i < s->nctx; i++)
		if (!strcmp(s->ctxs[i].label, label))
			return (int)i;
	return -ENOENT;
}

static uint32_t loc_func(const struct kt_symbols *s, uint32_t loc)
{
	return loc < s->nlocs ? s->locs[loc].func : 1;
}

static const char *func_name(const struct kt_symbols *s, uint32_t func)
{
	return func < s->nfuncs && s->funcs[func].name ? s->funcs[func].name : "[unknown]";
}

/* A frame's context name: the rule's, or what the rule's '*' matched. */
static const char *rule_name(const struct kt_symbols *s, const struct ctx_rule *r, uint32_t func,
			     size_t *len)
{
	const char *nm = func_name(s, func);

	if (r->name) {
		*len = strlen(r->name);
		return r->name;
	}
	*len = base_len(nm);
	if (strchr(r->pat, '*')) {
		size_t pl = (size_t)(strchr(r->pat, '*') - r->pat);

		*len -= pl;
		return nm + pl;
	}
	return nm;
}

/* A hardirq entry outside the rules, named by its symbol without "asm_". */
static const char *entry_name(const struct kt_symbols *s, uint32_t func, size_t *len)
{
	const char *nm = func_name(s, func);

	if (!strncmp(nm, "asm_", 4))
		nm += 4;
	*len = base_len(nm);
	return nm;
}

/* The hardirq name of generic irq flow code: the nearest named hardirq frame rootward. */
static uint32_t hardirq_anon(struct kt_symbols *s, const uint32_t *locs, uint32_t i, uint32_t n)
{
	for (uint32_t j = i + 1; j < n; j++) {
		uint32_t f = loc_func(s, locs[j]);
		uint16_t v = func_role(s, f);
		const struct ctx_rule *r = rule_of(v);
		size_t len;
		const char *nm;

		if (r && (r->role == R_HARDIRQ || r->role == R_NMI)) {
			nm = rule_name(s, r, f, &len);
			return ctx_intern(s, KT_CTX_HARDIRQ, nm, len);
		}
		if (!r && (v & F_IRQENTRY)) {
			nm = entry_name(s, f, &len);
			return ctx_intern(s, KT_CTX_HARDIRQ, nm, len);
		}
		if (!r || r->role != R_HARDIRQ_ANON)
			break;
	}
	return ctx_intern(s, KT_CTX_HARDIRQ, "irq", 3);
}

static uint32_t softirq_ctx(struct kt_symbols *s, const uint32_t *locs, uint32_t i, uint32_t n)
{
	const struct ctx_rule *cr = i ? rule_of(func_role(s, loc_func(s, locs[i - 1]))) : NULL;
	const char *vec = cr && cr->role == R_VECTOR ? cr->name : "dispatch";
	char buf[64];
	int ks = 0;

	for (uint32_t j = i + 1; j < n && !ks; j++) {
		const struct ctx_rule *r = rule_of(func_role(s, loc_func(s, locs[j])));

		ks = r && r->role == R_KSOFTIRQD;
	}
	snprintf(buf, sizeof(buf), "%s%s", vec, ks ? " (ksoftirqd)" : "");
	return ctx_intern(s, KT_CTX_SOFTIRQ, buf, strlen(buf));
}

uint32_t kt_sym_ctx_classify(struct kt_symbols *s, const uint32_t *locs, uint32_t n)
{
	char buf[200];
	size_t len;
	const char *nm;

	if (!n)
		return KT_CTXID_UNKNOWN;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t f = loc_func(s, locs[i]);
		uint16_t v = func_role(s, f);
		const struct ctx_rule *r = rule_of(v);

		if (!r) {
			if (!(v & F_IRQENTRY))
				continue;
			nm = entry_name(s, f, &len);
			return ctx_intern(s, KT_CTX_HARDIRQ, nm, len);
		}
		switch (r->role) {
		case R_SOFTIRQ:
			return softirq_ctx(s, locs, i, n);
		case R_HARDIRQ:
		case R_NMI:
			nm = rule_name(s, r, f, &len);
			return ctx_intern(s, KT_CTX_HARDIRQ, nm, len);
		case R_HARDIRQ_ANON:
			return hardirq_anon(s, locs, i, n);
		case R_IRQ_DISPATCH:
			if (!i)
				return hardirq_anon(s, locs, i, n);
			nm = func_name(s, loc_func(s, locs[i - 1]));
			return ctx_intern(s, KT_CTX_HARDIRQ, nm, base_len(nm));
		case R_EXCEPTION:
			nm = rule_name(s, r, f, &len);
			return ctx_intern(s, KT_CTX_EXCEPTION, nm, len);
		case R_SYSCALL:
		case R_SYSCALL_ENTRY:
			nm = rule_name(s, r, f, &len);
			return ctx_intern(s, KT_CTX_SYSCALL, nm, len);
		case R_WORKER:
			if (!i)
				return ctx_intern(s, KT_CTX_KTHREAD, "kworker", 7);
			nm = func_name(s, loc_func(s, locs[i - 1]));
			snprintf(buf, sizeof(buf), "kworker:%.*s", (int)base_len(nm), nm);
			return ctx_intern(s, KT_CTX_KTHREAD, buf, strlen(buf));
		case R_KTHREAD:
			return KT_CTX_BY_COMM;
		case R_IDLE_LOOP:
			nm = rule_name(s, r, f, &len);
			return ctx_intern(s, KT_CTX_KTHREAD, nm, len);
		default: /* vector handlers without their loop, ksoftirqd's body: look further */
			break;
		}
	}
	nm = func_name(s, loc_func(s, locs[n - 1]));
	return ctx_intern(s, KT_CTX_OTHER, nm, base_len(nm));
}

uint32_t kt_sym_ctx_comm(struct kt_symbols *s, const char *comm)
{
	size_t len = comm ? strnlen(comm, 64) : 0;
	const char *slash = comm ? memchr(comm, '/', len) : NULL;

	/* per-CPU threads (ksoftirqd/3, migration/0, kworker/u8:2) are one context: the CPU
	 * columns tell the CPUs apart */
	if (slash && slash > comm &&
	    strspn(slash + 1, "0123456789:uH+-") == len - (size_t)(slash - comm) - 1)
		len = (size_t)(slash - comm);
	if (!len)
		return ctx_intern(s, KT_CTX_KTHREAD, "?", 1);
	return ctx_intern(s, KT_CTX_KTHREAD, comm, len);
}
