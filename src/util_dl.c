/* Loading optional shared libraries on first use (see kt_dl_open in kerntop/util.h). */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kerntop/util.h"

void *kt_dl_open(const char *soname, const char *package, char *err, size_t errlen)
{
	/* A second open of a loaded library gives the same handle; none is ever closed, so the
	 * library stays loaded until the process ends. */
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		const char *why = dlerror();

		snprintf(err, errlen, "%s cannot be loaded (%s); install %s", soname,
			 why ? why : "not found", package);
	}
	return h;
}

int kt_dl_fn(void *lib, const char *soname, const char *name, void *fn, char *err, size_t errlen)
{
	void *f = dlsym(lib, name);

	if (!f) {
		snprintf(err, errlen, "%s has no function %s: the library is not the version kerntop "
			 "was built with; rebuild kerntop", soname, name);
		return -ENOENT;
	}
	/* POSIX guarantees a function's address converts through void *; memcpy stores it in
	 * the caller's function pointer without a cast between object and function types. */
	memcpy(fn, &f, sizeof(f));
	return 0;
}
