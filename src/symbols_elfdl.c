/* Loading libelf and libdw on first use (see symbols_elfdl.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#define SYM_ELFDL_IMPL
#include "kerntop/util.h"
#include "symbols_elfdl.h"

#define SYM_ELF_SONAME "libelf.so.1"
#define SYM_DW_SONAME "libdw.so.1"

struct sym_elf_api sym_elf;

int sym_elf_load(char *err, size_t errlen)
{
	static int state; /* 0 untried, 1 loaded, -1 failed with why */
	static char why[KT_ERRLEN];
	void *el, *dw;

	if (!state) {
		state = -1;
		el = kt_dl_open(SYM_ELF_SONAME, "the Debian package libelf1", why, sizeof(why));
		dw = el ? kt_dl_open(SYM_DW_SONAME, "the Debian package libdw1", why, sizeof(why))
			: NULL;
		if (dw) {
#define SYM_ELF_GET(f) kt_dl_fn(el, SYM_ELF_SONAME, #f, &sym_elf.f, why, sizeof(why)) ||
#define SYM_DW_GET(f) kt_dl_fn(dw, SYM_DW_SONAME, #f, &sym_elf.f, why, sizeof(why)) ||
			if (!(SYM_ELF_FNS(SYM_ELF_GET) SYM_DW_FNS(SYM_DW_GET) 0)) {
				sym_elf.elf_version(EV_CURRENT);
				state = 1;
			}
#undef SYM_ELF_GET
#undef SYM_DW_GET
		}
	}
	if (state > 0)
		return 0;
	snprintf(err, errlen, "%s", why);
	return -ENOENT;
}
