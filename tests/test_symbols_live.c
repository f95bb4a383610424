/* Symbolizer on this machine's live /proc/kallsyms: every vmlinux text symbol that is alone
 * at its address resolves to its own name (at its start and one byte in), the function count
 * matches an independent count of the file, and the idle routines found here are flagged. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/symbols.h"
#include "tap.h"

struct ent {
	uint64_t addr;
	char name[256];
};

static int ecmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int main(void)
{
	struct kt_sym_opts o = {0};
	struct kt_symbols *s = NULL;
	struct kt_sym_stats st;
	char err[512], line[512];
	FILE *f = fopen("/proc/kallsyms", "r");
	struct ent *v = NULL;
	size_t n = 0, cap = 0, distinct = 0, checked = 0, bad = 0, badnext = 0;
	uint64_t etext = 0, einittext = 0, nonzero = 0;
	int r;

	if (!f) {
		printf("1..0 # SKIP /proc/kallsyms: %s\n", strerror(errno));
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[256], mod[256];
		int k = sscanf(line, "%llx %c %255s %255s", &a, &type, name, mod);

		if (k < 3)
			continue;
		nonzero |= a;
		if (k == 4)
			continue; /* module symbols: their ranges depend on /proc/modules */
		if (!strcmp(name, "_etext"))
			etext = a;
		if (!strcmp(name, "_einittext"))
			einittext = a;
		if (!strchr("TtWw", type) || !strncmp(name, "__pfx_", 6))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			v = realloc(v, cap * sizeof(*v));
		}
		v[n].addr = a;
		snprintf(v[n].name, sizeof(v[n].name), "%s", name);
		n++;
	}
	fclose(f);
	if (!nonzero) {
		printf("1..0 # SKIP /proc/kallsyms addresses are hidden (kernel.kptr_restrict)\n");
		return 0;
	}
	r = kt_sym_new(&o, &s, err, sizeof(err));
	is_int(r, 0, "loads the live /proc/kallsyms");
	if (r < 0) {
		printf("# %s\n", err);
		return tap_done();
	}
	kt_sym_stats(s, &st);
	ok(st.kallsyms_lines > 1000, "a real kallsyms");
	is_int(st.kallsyms_skipped, 0, "no malformed line in the kernel's own file");
	is_int(st.kptr_restricted, 0, "addresses visible");
	ok(kt_sym_notice(s) == NULL, "no notice");

	qsort(v, n, sizeof(*v), ecmp);
	for (size_t i = 0; i < n; i++) {
		if (i && v[i].addr == v[i - 1].addr)
			continue;
		if (v[i].addr == etext || v[i].addr == einittext)
			continue;
		distinct++;
	}
	is_int(kt_sym_module(s, KT_MOD_VMLINUX)->nfuncs, distinct,
	       "vmlinux functions = distinct text addresses outside modules");

	for (size_t i = 0; i < n; i++) {
		int alone = (!i || v[i - 1].addr != v[i].addr) &&
			    (i + 1 == n || v[i + 1].addr != v[i].addr);
		const struct kt_sym_func *fn;

		if (!alone || v[i].addr == etext || v[i].addr == einittext)
			continue;
		fn = kt_sym_func(s, kt_sym_resolve(s, v[i].addr));
		checked++;
		if (strcmp(fn->name, v[i].name) || fn->start != v[i].addr) {
			if (bad++ < 5)
				printf("# %llx: got %s, want %s\n", (unsigned long long)v[i].addr,
				       fn->name, v[i].name);
		}
		if (i + 1 < n && v[i + 1].addr > v[i].addr + 1) {
			fn = kt_sym_func(s, kt_sym_resolve(s, v[i].addr + 1));
			if (strcmp(fn->name, v[i].name))
				badnext++;
		}
	}
	ok(checked > 1000, "many symbols alone at their address");
	is_int(bad, 0, "each resolves to its own name and start");
	is_int(badnext, 0, "and so does the byte after its start");

	{
		const char *idle[] = {"default_idle", "pv_native_safe_halt", "poll_idle",
				      "cpuidle_enter_state"};
		const char *busy[] = {"do_idle", "schedule", "cpu_startup_entry"};

		for (size_t k = 0; k < sizeof(idle) / sizeof(idle[0]); k++)
			for (size_t i = 0; i < n; i++)
				if (!strcmp(v[i].name, idle[k])) {
					char what[128];

					snprintf(what, sizeof(what), "%s is idle", idle[k]);
					is_int(kt_sym_loc(s, kt_sym_lookup(s, v[i].addr + 1))->idle,
					       1, what);
					break;
				}
		for (size_t k = 0; k < sizeof(busy) / sizeof(busy[0]); k++)
			for (size_t i = 0; i < n; i++)
				if (!strcmp(v[i].name, busy[k])) {
					char what[128];

					snprintf(what, sizeof(what), "%s is not idle", busy[k]);
					is_int(kt_sym_loc(s, kt_sym_lookup(s, v[i].addr + 1))->idle,
					       0, what);
					break;
				}
	}
	kt_sym_free(s);
	free(v);
	return tap_done();
}
