/* Symbolizer internals shared by symbols_*.c: the session object, the raw symbol list
 * built while loading, and the helpers each loader file provides. Not a public header. */
#ifndef KERNTOP_SYMBOLS_IMPL_H
#define KERNTOP_SYMBOLS_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "kerntop/symbols.h"

/* Boundary values in the range table: a function id, or a bucket range of a module. */
#define RANGE_BUCKET 0x80000000u
/* The coarse index's slots over the boundaries' span (4 bytes each): with the bucket-range
 * cache in front, a few more steps of binary search per miss cost less than a bigger index
 * (16 Ki slots: 4 boundaries a slot for a 64 k-function kernel, 64 KiB). */
#define SYM_INDEX_SLOTS (1u << 14)
/* A symbol without a known module range covers at most this many bytes. */
#define ORPHAN_SPAN 4096u

/* sym_raw.type of an end marker: an ELF function's st_size ends there, and the address up to
 * the next symbol is a bucket of the module (its name is ""). */
#define SYM_END 0

/* One text symbol while loading: 16 bytes, as 64 k of them are held while the functions
 * are made (issue 14: the viewer's peak is set while loading). */
struct sym_raw {
	uint64_t addr;
	uint32_t name;	      /* its name's id in the session's name arena (sym_name), 0: none */
	uint32_t module : 24; /* below KT_SYM_MODULES_MAX */
	uint32_t type : 8;    /* kallsyms letter, 'T'/'t'/'W' from ELF binding, or SYM_END */
};

struct sym_vec {
	struct sym_raw *v;
	size_t n, cap;
};

/* An address range owned by a module; sorted and disjoint once built. */
struct sym_region {
	uint64_t start, end;
	uint32_t module;
	uint8_t prio; /* 0 vmlinux, 1 modules and orphans, 2 builtin ranges (cut out of 0) */
};

struct region_vec {
	struct sym_region *v;
	size_t n, cap;
};

/* An executable section of a module's ELF and where it runs. */
struct sym_sect {
	uint64_t start, end; /* runtime range */
	uint64_t dw_delta;   /* runtime address - dwfl address, once libdwfl is open */
	uint32_t idx;	     /* ELF section index */
};

struct mod_priv {
	char *elf_path;	    /* ELF with symbols/DWARF for this module, or NULL */
	uint64_t text_base; /* runtime address of .text (ET_REL) */
	int64_t bias;	    /* runtime address - ELF address (ET_EXEC) */
	int elf_rel;
	int elf_syms;		/* symbols came from the ELF */
	struct sym_sect *sects; /* ET_REL: the placed executable sections */
	uint32_t nsects;
	int dw_tried;
	void *dwfl;	   /* Dwfl *, opened on the first srcline */
	void *dwmod;	   /* Dwfl_Module * */
	uint64_t dw_delta; /* ET_EXEC: runtime address - dwfl address */
};

struct loc_slot {
	uint64_t addr;
	uint32_t loc; /* 0: empty (location 0 is [user], never hashed) */
	uint32_t pad;
};

/* Open-addressing table of addresses to locations, at most half full. */
struct loc_table {
	struct loc_slot *slot;
	uint32_t mask, n;
};

struct bucket_slot {
	uint64_t start;
	uint32_t module;
	uint32_t func; /* UINT32_MAX: empty */
};

struct line_slot {
	uint64_t addr;
	const char *file; /* NULL with line -1: no line info */
	int line;
	int used;
};

struct idle_pat {
	const char *name;
	size_t len;
	int prefix;
};

struct str_chunk {
	struct str_chunk *next;
	size_t used, cap;
	char data[];
};

/* The bucket-range cache starts at SYM_RCACHE_MIN entries (16 bytes each) and doubles, up to
 * SYM_RCACHE_MAX, while more than 1 lookup in SYM_RCACHE_GROW_RATIO of the last
 * SYM_RCACHE_PERIOD had to fill it with a range it had seen before (a location's first sight
 * fills it whatever its size): a small machine's kernel working set fits the smallest, a big
 * machine's spread of functions (issue 14) gets the room it needs. 1 in 16 of every fill
 * kept it at 8192 entries for a 256-CPU replay with chains, whose callers' lookups hit and
 * hid its leaves' misses (10 % of the replay's CPU); 1 in 256 grew a small machine's to its
 * largest under a varied kernel load, for a few refills a second. Sets of
 * SYM_RCACHE_WAYS entries, one 64-byte line each, the oldest entry of a full set giving way. */
#define SYM_RCACHE_MIN 2048u
#define SYM_RCACHE_MAX 65536u
#define SYM_RCACHE_PERIOD 16384u
#define SYM_RCACHE_GROW_RATIO 64u
#define SYM_RCACHE_WAYS 4u
struct sym_rcache {
	uint64_t lo;
	uint32_t len; /* the range [lo, lo + len) */
	uint32_t loc; /* 0: empty */
};

struct kt_symbols {
	uint32_t bucket;

	struct kt_sym_module *mods;
	struct mod_priv *mpriv;
	uint32_t nmods, capmods;
	/* module names -> id + 1 (0: empty), at most half full: a kallsyms with 100k [tags]
	 * must not be a linear search per new tag */
	uint32_t *mhash;
	uint32_t mhmask;

	struct kt_sym_func *funcs;
	uint32_t nfuncs, capfuncs;

	struct kt_sym_loc *locs;
	uint32_t nlocs, caplocs;
	/* bit per location: idle, read per sample (kt_sym_loc_idle) where locs[] would be a
	 * cache miss on a big machine; as many words as the highest idle location needs */
	uint64_t *idlemap;
	uint32_t idlewords;

	struct loc_table lhash;	 /* every sampled address seen: the hot path */
	struct loc_table slices; /* start of a --bucket slice -> its location (see loc_key) */
	uint64_t last_addr;
	uint32_t last_loc;
	/* direct-mapped by address: [lo, hi) of a --bucket slice -> its location, in front of
	 * both tables; an address found here is not added to lhash, which then holds only the
	 * exact addresses of modules with source lines (issue 14: 2.5 M distinct addresses at
	 * 256 CPUs made lhash a cache miss per sample) */
	struct sym_rcache *rcache;
	uint32_t rcmask;	     /* its entries - 1 */
	uint32_t rclookups, rcfills; /* of the current period */
	uint64_t rcfills_all;	     /* since the start (kt_sym_stats) */

	struct bucket_slot *bhash;
	uint32_t bmask, nbuckets;

	/* sorted boundaries: [rstart[i], rstart[i+1]) maps to rval[i]; once built, a span of
	 * less than 4 GiB (a kernel and its modules) keeps them as roff[i] = rstart[i] - ibase
	 * instead, and rstart is NULL (read them with sym_range_start) */
	uint64_t *rstart;
	uint32_t *roff;
	uint32_t *rval;
	uint32_t nranges;
	/* coarse index: idx[(addr - ibase) >> ishift] = first boundary index of that slot */
	uint32_t *idx;
	uint64_t ibase;
	uint32_t ishift, nidx;

	struct idle_pat *idle;
	uint32_t nidle;
	uint64_t idle_first[4]; /* bitmap of the patterns' first bytes */
	char *idle_copy;

	struct line_slot *lines;
	uint32_t linemask, nlines;
	const char **fnames; /* interned source line labels: one pointer per distinct string */
	uint32_t fnmask, nfnames;

	char *mbuf;		/* modules text */
	char *rbuf;		/* builtin ranges text */
	char *sysfs_root;	/* sysroot of /sys/module when the modules came from its /proc */
	char **build_ids;	/* per module, read on first use by kt_sym_build_id ("" = none) */
	struct str_chunk *strs; /* bucket and module names */
	/* the loaded symbols' names, one arena (sym_name_add): the functions point into it once
	 * sym_build has cut it to size, and it never moves after */
	char *names;
	size_t nnames, capnames;

	struct sym_text *text; /* annotate's text sources (symbols_text.c) */

	struct kt_sym_stats st;
	const char *moddir_unmatched; /* --module-dir without one matching NAME.ko (load only) */
	char notice[512];
	uint64_t stext, etext, sinittext, einittext;
	/* kallsyms section bounds: .irqentry.text (hardirq entries) and .cpuidle.text (idle) */
	uint64_t irqentry_start, irqentry_end, cpuidle_start, cpuidle_end;

	/* execution contexts (symbols_ctx.c) */
	struct kt_sym_ctx *ctxs; /* dense context ids */
	uint32_t nctx, capctx;
	uint32_t *ctxhash; /* label pointer -> id + 1, open addressing */
	uint32_t ctxmask;
	uint64_t nomem; /* lookups that could not allocate (kt_sym_nomem) */
};

static inline const char *sym_name(const struct kt_symbols *s, uint32_t id)
{
	return s->names + id - 1;
}

static inline uint64_t sym_range_start(const struct kt_symbols *s, uint32_t i)
{
	return s->roff ? s->ibase + s->roff[i] : s->rstart[i];
}

/* symbols_core.c */
int sym_grow(void **p, uint32_t *cap, uint32_t need, size_t elem);
/* A copy of str[0..len) in the name arena: its id (offset + 1), 0 out of memory. */
uint32_t sym_name_add(struct kt_symbols *s, const char *str, size_t len);
int sym_add_func(struct kt_symbols *s, const char *name, uint64_t start, uint64_t size,
		 uint32_t module, int bucket);
char *sym_strdup(struct kt_symbols *s, const char *str, size_t len);
int sym_add_module(struct kt_symbols *s, const char *name, uint64_t base, uint64_t size);
int sym_vec_push(struct sym_vec *v, uint64_t addr, uint32_t name, uint32_t module, uint8_t type);
int region_push(struct region_vec *v, uint64_t start, uint64_t end, uint32_t module, uint8_t prio);
int sym_idle_parse(struct kt_symbols *s, const char *list);
int sym_is_idle(const struct kt_symbols *s, const char *name);

/* symbols_ctx.c */
int sym_ctx_init(struct kt_symbols *s);
void sym_ctx_free(struct kt_symbols *s);

/* symbols_build.c */
/* Sorts the loaded symbols into functions and boundaries; frees syms (the caller may free
 * it again: it is left empty). */
int sym_build(struct kt_symbols *s, struct sym_vec *syms, struct region_vec *regs);

/* symbols_lookup.c */
int sym_loc_table_grow(struct loc_table *t);
const char *sym_intern(struct kt_symbols *s, const char *str);

/* symbols_kallsyms.c */
int sym_sysfs_section(const struct kt_symbols *s, uint32_t mod, const char *sect, uint64_t *addr);
int sym_load_text(struct kt_symbols *s, const struct kt_sym_opts *o, struct sym_vec *syms,
		  struct region_vec *regs, char *err, size_t errlen);

/* symbols_elf.c */
int sym_load_elves(struct kt_symbols *s, const struct kt_sym_opts *o, struct sym_vec *syms,
		   char *err, size_t errlen);
int sym_elf_symbols(struct kt_symbols *s, uint32_t module, const char *path, struct sym_vec *syms,
		    char *err, size_t errlen);
void sym_elf_close(struct mod_priv *p);
int sym_elf_srcline(struct kt_symbols *s, uint32_t module, uint64_t addr, const char **file,
		    int *line);
int sym_elf_frames(struct kt_symbols *s, uint32_t module, uint64_t addr, struct kt_sym_frame *out,
		   int max);

/* symbols_text.c */
int sym_text_init(struct kt_symbols *s, const struct kt_sym_opts *o);
void sym_text_free(struct kt_symbols *s);

#endif
