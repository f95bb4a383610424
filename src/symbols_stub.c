/* Placeholder until the symbolizer lands: links, and refuses to load. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include "kerntop/symbols.h"

int kt_sym_new(const struct kt_sym_opts *o, struct kt_symbols **out, char *err, size_t errlen)
{ *out = NULL; snprintf(err, errlen, "symbolizer not built yet"); return -ENOSYS; }
void kt_sym_free(struct kt_symbols *s) { (void)s; }
uint32_t kt_sym_lookup(struct kt_symbols *s, uint64_t addr) { return 0; }
uint32_t kt_sym_nlocs(const struct kt_symbols *s) { return 0; }
uint32_t kt_sym_nfuncs(const struct kt_symbols *s) { return 0; }
uint32_t kt_sym_nmodules(const struct kt_symbols *s) { return 0; }
const struct kt_sym_loc *kt_sym_loc(const struct kt_symbols *s, uint32_t loc) { return NULL; }
const struct kt_sym_func *kt_sym_func(const struct kt_symbols *s, uint32_t f) { return NULL; }
const struct kt_sym_module *kt_sym_module(const struct kt_symbols *s, uint32_t m) { return NULL; }
int kt_sym_module_find(const struct kt_symbols *s, const char *name) { return -1; }
uint32_t kt_sym_bucket(const struct kt_symbols *s) { return 64; }
int kt_sym_srcline(struct kt_symbols *s, uint64_t addr, const char **file, int *line) { return -ENOENT; }
void kt_sym_stats(const struct kt_symbols *s, struct kt_sym_stats *st) { (void)s; (void)st; }
const char *kt_sym_default_idle(void) { return ""; }
