/* libelf and libdw, loaded on first use (symbols_elfdl.c). symbols_elf.c and symbols_text.c
 * include this instead of the elfutils headers and call the functions by their own names:
 * each name below is a macro for the pointer in sym_elf, which sym_elf_load fills. A run
 * that never opens an ELF file (kallsyms only: the default viewer without --vmlinux or
 * --module-dir) never maps the two libraries nor the compressors they pull in, 400 KB of
 * resident pages (issue 14's 8 MiB viewer). Not a public header. */
#ifndef KERNTOP_SYMBOLS_ELFDL_H
#define KERNTOP_SYMBOLS_ELFDL_H

#include <stddef.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>

/* X(name) for each function of libelf.so.1 and of libdw.so.1 that kerntop calls */
#define SYM_ELF_FNS(X)                                                                         \
	X(elf_begin) X(elf_end) X(elf_errmsg) X(elf_errno) X(elf_getdata) X(elf_getphdrnum)    \
	X(elf_getscn) X(elf_getshdrstrndx) X(elf_kind) X(elf_ndxscn) X(elf_nextscn)            \
	X(elf_rawdata) X(elf_strptr) X(elf_version) X(gelf_getehdr) X(gelf_getphdr)            \
	X(gelf_getshdr) X(gelf_getsym)
#define SYM_DW_FNS(X)                                                                          \
	X(dwarf_attr) X(dwarf_attr_integrate) X(dwarf_filesrc) X(dwarf_formstring)             \
	X(dwarf_formudata) X(dwarf_getscopes) X(dwarf_getscopes_die) X(dwarf_getsrcfiles)      \
	X(dwarf_tag) X(dwfl_begin) X(dwfl_end) X(dwfl_lineinfo) X(dwfl_module_addrdie)         \
	X(dwfl_module_getelf) X(dwfl_module_getsrc) X(dwfl_offline_section_address)            \
	X(dwfl_report_end) X(dwfl_report_offline)

struct sym_elf_api {
#define SYM_ELF_FIELD(f) __typeof__(f) *f;
	SYM_ELF_FNS(SYM_ELF_FIELD)
	SYM_DW_FNS(SYM_ELF_FIELD)
#undef SYM_ELF_FIELD
};

extern struct sym_elf_api sym_elf;

/* Loads both libraries once (then elf_version(EV_CURRENT)): 0, or -ENOENT with err naming
 * the library and the Debian package to install. The symbolizer's thread only. */
int sym_elf_load(char *err, size_t errlen);

#ifndef SYM_ELFDL_IMPL
#define elf_begin (sym_elf.elf_begin)
#define elf_end (sym_elf.elf_end)
#define elf_errmsg (sym_elf.elf_errmsg)
#define elf_errno (sym_elf.elf_errno)
#define elf_getdata (sym_elf.elf_getdata)
#define elf_getphdrnum (sym_elf.elf_getphdrnum)
#define elf_getscn (sym_elf.elf_getscn)
#define elf_getshdrstrndx (sym_elf.elf_getshdrstrndx)
#define elf_kind (sym_elf.elf_kind)
#define elf_ndxscn (sym_elf.elf_ndxscn)
#define elf_nextscn (sym_elf.elf_nextscn)
#define elf_rawdata (sym_elf.elf_rawdata)
#define elf_strptr (sym_elf.elf_strptr)
#define elf_version (sym_elf.elf_version)
#define gelf_getehdr (sym_elf.gelf_getehdr)
#define gelf_getphdr (sym_elf.gelf_getphdr)
#define gelf_getshdr (sym_elf.gelf_getshdr)
#define gelf_getsym (sym_elf.gelf_getsym)
#define dwarf_attr (sym_elf.dwarf_attr)
#define dwarf_attr_integrate (sym_elf.dwarf_attr_integrate)
#define dwarf_filesrc (sym_elf.dwarf_filesrc)
#define dwarf_formstring (sym_elf.dwarf_formstring)
#define dwarf_formudata (sym_elf.dwarf_formudata)
#define dwarf_getscopes (sym_elf.dwarf_getscopes)
#define dwarf_getscopes_die (sym_elf.dwarf_getscopes_die)
#define dwarf_getsrcfiles (sym_elf.dwarf_getsrcfiles)
#define dwarf_tag (sym_elf.dwarf_tag)
#define dwfl_begin (sym_elf.dwfl_begin)
#define dwfl_end (sym_elf.dwfl_end)
#define dwfl_lineinfo (sym_elf.dwfl_lineinfo)
#define dwfl_module_addrdie (sym_elf.dwfl_module_addrdie)
#define dwfl_module_getelf (sym_elf.dwfl_module_getelf)
#define dwfl_module_getsrc (sym_elf.dwfl_module_getsrc)
#define dwfl_offline_section_address (sym_elf.dwfl_offline_section_address)
#define dwfl_report_end (sym_elf.dwfl_report_end)
#define dwfl_report_offline (sym_elf.dwfl_report_offline)
#endif

#endif
