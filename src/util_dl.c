/* Loading optional shared libraries on first use (see kt_dl_open in kerntop/util.h). */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "kerntop/util.h"

static pthread_mutex_t dl_mu = PTHREAD_MUTEX_INITIALIZER;

void *kt_dl_open(const char *soname, const char *package, char *err, size_t errlen)
{
	void *h;

	pthread_mutex_lock(&dl_mu);
	/* RTLD_NOLOAD first: a second user of the same library gets the same handle without
	 * another reference; the library stays loaded until the process ends. */
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!h)
		h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();

		snprintf(err, errlen, "%s cannot be loaded (%s); install %s", soname,
			 why ? why : "not found", package);
	}
	pthread_mutex_unlock(&dl_mu);
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
