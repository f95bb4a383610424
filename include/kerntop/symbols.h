/* Symbolizer: turns a kernel address into a dense location id once, at ingest, and answers
 * what module, function (or address bucket) and source line a location is. It owns every
 * table and string it hands out (valid until kt_sym_free). It reads kallsyms, modules,
 * ELF and DWARF files; it may use util.h and sample.h, and never touches the window,
 * aggregator or UI. */
#ifndef KERNTOP_SYMBOLS_H
#define KERNTOP_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct kt_symbols;

/* The built-in idle list, the one place it is written (docs/symbols.md says why each entry
 * is there; --help prints it). "name*" matches a prefix; compiler clone suffixes (".isra.0",
 * ".cold") are ignored. do_idle and cpu_startup_entry are deliberately absent: their own
 * instructions are the idle loop's housekeeping (tick stop/restart, RCU, polling checks). */
#define KT_SYM_DEFAULT_IDLE                                                                   \
	"default_idle,default_idle_call,arch_cpu_idle,cpu_idle_poll,cpuidle_enter_state,"    \
	"native_safe_halt,pv_native_safe_halt,pvm_safe_halt*,acpi_safe_halt,io_idle,"        \
	"acpi_idle_do_entry,acpi_idle_enter*,acpi_idle_lpi_enter,"                           \
	"acpi_processor_ffh_cstate_enter,acpi_processor_ffh_lpi_enter,intel_idle*,"          \
	"mwait_idle*,poll_idle,default_enter_idle,amd_e400_idle,xen_safe_halt,cpu_do_idle"

struct kt_sym_opts {
	const char *sysroot;        /* prefix for the default /proc, /sys and /lib paths; "" or NULL for / */
	const char *kallsyms;       /* file, NULL for <sysroot>/proc/kallsyms */
	const char *modules;        /* file in /proc/modules format, NULL for <sysroot>/proc/modules */
	const char *builtin_ranges; /* NULL for <sysroot>/lib/modules/$(uname -r)/modules.builtin.ranges */
	const char *vmlinux;        /* ELF with symtab (and DWARF) for the core kernel, or NULL */
	const char *module_dir;     /* directory of NAME.ko files, or NULL */
	const char *idle_symbols;   /* comma list replacing the built-in idle list (name* = prefix);
	                             * a leading '+' appends to it instead; NULL for the built-in list */
	uint32_t bucket;            /* bucket size in bytes (power of two), 0 for 64 */
	/* Symbol context carried by a recording; when set they replace the files above. */
	const char *kallsyms_buf;
	size_t kallsyms_len;
	const char *modules_buf;
	size_t modules_len;
	/* A modules.builtin.ranges text that replaces the file (tests and fuzzing). */
	const char *builtin_ranges_buf;
	size_t builtin_ranges_len;
	/* Live sampling: kernel text may come from <sysroot>/proc/kcore, and ELF files are
	 * checked against the running kernel's build ids. 0 for a replay. */
	int text_live;
};

/* Fixed module ids. Real modules follow from KT_MOD_FIRST_REAL on. */
enum {
	KT_MOD_VMLINUX = 0, /* the core kernel (_stext.._etext and everything not in a module) */
	KT_MOD_USER = 1,    /* "[user]": user-mode hits */
	KT_MOD_UNKNOWN = 2, /* "[unknown]": kernel addresses outside every known range */
	KT_MOD_FIRST_REAL = 3,
};

/* Fixed location ids. */
enum {
	KT_LOC_USER = 0, /* every user-mode hit maps here (function "[user]", module KT_MOD_USER) */
	/* location 1 (function 1 "[unknown]") only stands in when interning runs out of memory */
};

struct kt_sym_module {
	const char *name;     /* "vmlinux", "e1000e", "[user]" */
	uint64_t base, size;  /* text range; 0/0 when unknown */
	uint32_t nfuncs;      /* symbols known for it (0: bucket fallback) */
	uint8_t builtin;      /* from modules.builtin.ranges */
	uint8_t has_lines;    /* DWARF line info available */
};

/* 24 bytes: one per kernel function, 64 k of them on a distribution kernel (issue 14). */
struct kt_sym_func {
	const char *name;     /* "tcp_sendmsg", or "e1000e+0x1c40" for a bucket */
	uint64_t start;
	uint32_t size;        /* bytes; a longer span (nonsense for one function) is cut here */
	uint32_t module : 20; /* below KT_SYM_MODULES_MAX */
	uint32_t idle : 1;    /* an idle routine: counted as idle, not kernel work */
	uint32_t bucket : 1;  /* a fixed-size address bucket standing in for a missing symbol */
	uint32_t role : 10;   /* the symbolizer's own: its execution-context role, once asked */
};
/* Module ids fit the function's 20-bit field (a kallsyms naming more is refused). */
#define KT_SYM_MODULES_MAX (1u << 20)

struct kt_sym_loc {
	uint64_t addr;        /* exact address where the module has source lines, else the start
			       * of the --bucket slice of the function it lies in */
	uint32_t func;
	uint32_t module;
	uint8_t idle;
};

struct kt_sym_stats {
	uint64_t kallsyms_lines, kallsyms_skipped; /* malformed lines skipped */
	uint64_t modules_lines, modules_skipped;
	uint32_t nmodules, nfuncs, nlocs;
	int kptr_restricted;  /* every address read as 0 */
	/* added by the symbolizer */
	uint64_t ranges_lines, ranges_skipped;     /* modules.builtin.ranges */
	uint32_t builtin_modules;                  /* modules carved out of vmlinux */
	uint32_t elf_modules;                      /* modules whose symbols came from an ELF */
	uint32_t elf_nosyms;                       /* ELF files without any symbol, or unreadable */
	uint32_t cache_slots; /* the bucket-range cache's entries (0 before the first lookup) */
	uint64_t cache_fills; /* ranges the cache took from the tables, since the start */
};

/* Loads symbols. Returns 0, or -errno with a one-line message naming the file and the fix. */
int kt_sym_new(const struct kt_sym_opts *o, struct kt_symbols **out, char *err, size_t errlen);
void kt_sym_free(struct kt_symbols *s);

/* Hot path: the location id of a kernel address (interned on first sight, cached).
 * Never fails: unknown addresses land in [unknown] buckets. */
uint32_t kt_sym_lookup(struct kt_symbols *s, uint64_t addr);
/* A hint: addr will be looked up soon (its cache line is fetched now). */
void kt_sym_prefetch(const struct kt_symbols *s, uint64_t addr);

/* Tables by id; ids are dense from 0 to the count - 1. Ids and names stay valid until
 * kt_sym_free; a returned struct pointer only until the next kt_sym_lookup or
 * kt_sym_resolve (the location and function tables grow as addresses and buckets are
 * first seen). Module pointers never move after kt_sym_new. */
uint32_t kt_sym_nlocs(const struct kt_symbols *s);
uint32_t kt_sym_nfuncs(const struct kt_symbols *s);
uint32_t kt_sym_nmodules(const struct kt_symbols *s);
const struct kt_sym_loc *kt_sym_loc(const struct kt_symbols *s, uint32_t loc);
/* kt_sym_loc(s, loc)->idle from a bitmap (the per-sample question): 0 for an unknown loc. */
int kt_sym_loc_idle(const struct kt_symbols *s, uint32_t loc);
const struct kt_sym_func *kt_sym_func(const struct kt_symbols *s, uint32_t func);
const struct kt_sym_module *kt_sym_module(const struct kt_symbols *s, uint32_t module);
/* Module id by name, or -1. */
int kt_sym_module_find(const struct kt_symbols *s, const char *name);

/* Bucket size in bytes used for buckets inside functions and symbol-less modules. */
uint32_t kt_sym_bucket(const struct kt_symbols *s);

/* Source line of an address via libdw: 0 with file and line set, or -ENOENT without debug
 * info. In code inlined into another function, *file is a label naming the inlined line and
 * the call site, "helper.h:4 inlined in outer at mod.c", and *line the call line (5), so that
 * "%s:%d" reads "helper.h:4 inlined in outer at mod.c:5" and each call site has its own
 * (file, line) pair; nested inlining adds ", in CALLER at FILE:LINE" per level. File names
 * and labels are interned (equal strings are one pointer) and live as long as s. Cached per
 * address; it never creates functions or locations, so table pointers the caller holds stay
 * valid across it. */
int kt_sym_srcline(struct kt_symbols *s, uint64_t addr, const char **file, int *line);

/* One source frame of an address: a function (NULL for the outermost one, which is the
 * location's own function) and the file and line executing in it. */
struct kt_sym_frame {
	const char *func;
	const char *file;
	int line;
};
#define KT_SYM_MAX_FRAMES 16
/* The source frames of an address via libdw, leaf first: the inlined callees, then the
 * function holding the code with the line of the outermost call site (eu-addr2line -i).
 * Returns how many (at most max), 0 without debug info. Strings live as long as s; it never
 * creates functions or locations. Not cached: for writers that ask once per location. */
int kt_sym_frames(struct kt_symbols *s, uint64_t addr, struct kt_sym_frame *out, int max);

/* The GNU build id of a module as lower-case hex, from <sysroot>/sys/kernel/notes (the core
 * kernel) or <sysroot>/sys/module/NAME/notes/.note.gnu.build-id, read once; NULL when the
 * kernel does not publish it or the symbols came from a recording or --modules file. */
const char *kt_sym_build_id(struct kt_symbols *s, uint32_t module);

void kt_sym_stats(const struct kt_symbols *s, struct kt_sym_stats *st);
/* Lookups that could not allocate (they returned location 1, [user]): a profile built from
 * them would be wrong, so the caller ends the run. */
uint64_t kt_sym_nomem(const struct kt_symbols *s);

/* The built-in idle list, comma-separated (for --help, docs and tests). */
const char *kt_sym_default_idle(void);

/* Non-interning resolve: the function (or bucket) id of an address, without creating a
 * location. Bucket functions are created on first sight. Never fails. */
uint32_t kt_sym_resolve(struct kt_symbols *s, uint64_t addr);

/* Execution contexts (docs/contexts.md): what a sample was doing, from its call chain.
 * Ids are dense; the first three are fixed. A context's strings live as long as s. */
enum kt_ctx_kind {
	KT_CTX_UNKNOWN,	  /* no call chain */
	KT_CTX_IDLE,	  /* the leaf is idle code */
	KT_CTX_USER,	  /* a user-mode hit (-u) */
	KT_CTX_HARDIRQ,	  /* named by the handler or the interrupt entry */
	KT_CTX_SOFTIRQ,	  /* named by the vector, " (ksoftirqd)" when ksoftirqd ran it */
	KT_CTX_SYSCALL,	  /* named by the syscall */
	KT_CTX_EXCEPTION, /* page_fault, int3 ... */
	KT_CTX_KTHREAD,	  /* a kworker named by its work function, others by command */
	KT_CTX_OTHER,	  /* kernel code in a task outside every rule: named by the root frame */
	KT_CTX_NKINDS
};
enum { KT_CTXID_UNKNOWN = 0, KT_CTXID_IDLE = 1, KT_CTXID_USER = 2 };
/* kt_sym_ctx_classify: the stack is a kernel thread's, named by its command. */
#define KT_CTX_BY_COMM UINT32_MAX

struct kt_sym_ctx {
	uint32_t kind;	   /* enum kt_ctx_kind */
	const char *name;  /* "NET_RX", "sendfile64", "" for idle, unknown and user */
	const char *label; /* "softirq NET_RX", "idle" */
};

/* The context of a kernel call chain (location ids, leaf first, as the window's stacks):
 * its id, or KT_CTX_BY_COMM for a kernel thread that its command names
 * (kt_sym_ctx_comm). Depends on the chain only, so callers cache it per stack. The leaf
 * being idle is the caller's test (the chain may not start at the sampled address). */
uint32_t kt_sym_ctx_classify(struct kt_symbols *s, const uint32_t *locs, uint32_t n);
/* The "kthread NAME" context of a kernel thread's command ("ksoftirqd/3" -> ksoftirqd). */
uint32_t kt_sym_ctx_comm(struct kt_symbols *s, const char *comm);
uint32_t kt_sym_nctx(const struct kt_symbols *s);
/* A context by id (NULL past the end); valid until kt_sym_free. */
const struct kt_sym_ctx *kt_sym_ctx(const struct kt_symbols *s, uint32_t ctx);
/* A context id by label ("softirq NET_RX"), or -ENOENT. */
int kt_sym_ctx_find(const struct kt_symbols *s, const char *label);
const char *kt_ctx_kind_name(uint32_t kind);
/* 1 when the function re-enables interrupts (the --irq-owner helpers: *_irq_enable,
 * *_irqrestore, _raw_*_unlock_irq, __local_bh_enable_ip ...). */
int kt_sym_irq_helper(struct kt_symbols *s, uint32_t func);

/* One line for the status bar about what loading skipped or degraded (malformed lines,
 * kptr_restrict, ELF files without symbols), or NULL when all went well. */
const char *kt_sym_notice(const struct kt_symbols *s);

/* Kernel text for annotate (symbols_text.c). Where the bytes came from: */
enum kt_text_source {
	KT_TEXT_NONE,
	KT_TEXT_KCORE,	   /* <sysroot>/proc/kcore: the live code, as patched at run time */
	KT_TEXT_VMLINUX,   /* the --vmlinux ELF image */
	KT_TEXT_MODULE,	   /* a --module-dir NAME.ko */
	KT_TEXT_RECORDING, /* a TEXT block of the replayed recording */
};
/* Largest text one request (one function) may read. */
#define KT_TEXT_MAX (256u << 10)
/* "kcore", "vmlinux", "module", "recording" ("none" otherwise). */
const char *kt_text_source_name(int src);
/* Copies *len bytes of kernel text at addr into buf: a recorded copy first (which may be
 * shorter: *len is lowered to it), then (live only) /proc/kcore, then the module's ELF file.
 * Returns 0 with *src set, or -errno with a one-line message naming why each place has none
 * and the fix, e.g. "no kernel text: /proc/kcore is absent (CONFIG_PROC_KCORE=n) and no
 * --vmlinux given". */
int kt_sym_text(struct kt_symbols *s, uint64_t addr, size_t *len, uint8_t *buf, int *src,
		char *err, size_t errlen);
/* Adds the text of a function read from a recording (copied; the first copy of an address
 * stays). 0 or -errno. */
int kt_sym_text_add(struct kt_symbols *s, uint64_t addr, const uint8_t *bytes, size_t len);
/* How many recorded texts were added. */
size_t kt_sym_text_recorded(const struct kt_symbols *s);

#endif
