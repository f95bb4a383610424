/* The symbolizer's bucket-range cache (symbols_lookup.c): a small working set keeps it at its
 * first size, a big one grows it by the ranges it has to take again (not by first sights),
 * and it keeps its ranges when it doubles. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kerntop/symbols.h"
#include "tap.h"

/* A small working set (a few functions, as on a quiet 2-CPU machine) keeps the range cache at
 * its smallest however many lookups it serves. */
static void test_cache_small(void)
{
	struct kt_sym_opts o = {.kallsyms = tap_data("symbols/kallsyms"),
				.modules = tap_data("symbols/modules")};
	struct kt_symbols *s = NULL;
	struct kt_sym_stats st;
	uint32_t first = 0, same = 1;

	if (kt_sym_new(&o, &s, NULL, 0) < 0) {
		ok(0, "fixture loads");
		return;
	}
	for (uint32_t i = 0; i < 300000; i++) {
		uint32_t loc =
		    kt_sym_lookup(s, 0xffffffff81000000ull + (i % 64) * 0x40ull + (i & 7));

		if (i < 64 * 8 && (i % 64) == 0 && !first)
			first = loc;
		if ((i % 64) == 0 && loc != first)
			same = 0;
	}
	kt_sym_stats(s, &st);
	is_int(st.cache_slots, 2048,
	       "300 000 lookups over 64 buckets: the range cache stays small");
	ok(same, "and the same address resolves the same all along");
	kt_sym_free(s);
}

/* A kallsyms of n functions of 64 bytes each from 0xffffffff81001000 (PREFIX0, PREFIX1, ...)
 * written under tmp and loaded; NULL (a failed check said why) when it cannot be. */
static struct kt_symbols *funcs_load(const char *tmp, const char *prefix, uint32_t n)
{
	char path[4096];
	struct kt_sym_opts o;
	struct kt_symbols *s = NULL;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s-kallsyms", tmp, prefix);
	fp = fopen(path, "w");
	if (!fp) {
		ok(0, "a test kallsyms is written");
		return NULL;
	}
	fprintf(fp, "ffffffff81000000 T _stext\n");
	for (uint32_t i = 0; i < n; i++)
		fprintf(fp, "%016llx T %s_%u\n", 0xffffffff81001000ull + i * 0x40ull, prefix, i);
	fprintf(fp, "%016llx T _etext\n", 0xffffffff81001000ull + n * 0x40ull);
	fclose(fp);
	memset(&o, 0, sizeof(o));
	o.kallsyms = path;
	o.modules = tap_data("symbols/modules");
	if (kt_sym_new(&o, &s, NULL, 0) < 0) {
		ok(0, "a test kallsyms loads");
		return NULL;
	}
	return s;
}

/* The range cache keeps its ranges when it doubles: the functions looked up just before
 * the doubling are found in it just after, without going back to the tables (an emptied cache
 * filled once more for each of them; issue 14: five doublings at a 256-CPU replay's start).
 * It doubles for the ranges it had to take again, not for first sights: 3000 functions in
 * turn do not fit 2048 entries, and each pass after the first takes most of them again. */
static void test_rcache_keeps(const char *tmp)
{
	struct kt_symbols *s;
	struct kt_sym_stats st;
	const uint32_t n = 3000; /* more than the first cache's 2048 entries */
	uint32_t slots, lookups = 0, bad = 0;
	uint64_t fills;

	if (!(s = funcs_load(tmp, "rc", n)))
		return;
	/* the n functions in turn until the first period of lookups ends with a doubling */
	do {
		for (uint32_t i = 0; i < n; i++, lookups++)
			kt_sym_lookup(s, 0xffffffff81001000ull + i * 0x40ull + 4);
		kt_sym_stats(s, &st);
	} while (st.cache_slots == 2048 && lookups < 100000);
	slots = st.cache_slots;
	ok(slots == 4096, "a working set of 3000 functions doubles the range cache");
	/* finish the pass that crossed the period's end, then one more pass */
	fills = st.cache_fills;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = 0xffffffff81001000ull + i * 0x40ull + 8;
		const struct kt_sym_func *f =
		    kt_sym_func(s, kt_sym_loc(s, kt_sym_lookup(s, a))->func);
		char want[32];

		snprintf(want, sizeof(want), "rc_%u", i);
		bad += !f || strcmp(f->name, want) != 0;
	}
	kt_sym_stats(s, &st);
	printf("# after the doubling: %llu of %u lookups filled the cache\n",
	       (unsigned long long)(st.cache_fills - fills), n);
	ok(st.cache_fills - fills < n / 10, "the doubled cache still holds the ranges it had");
	is_int(bad, 0, "and every one of them gives its own function");
	kt_sym_free(s);
}

/* First sights of locations do not grow the range cache (a small machine's viewer keeps its
 * 32 KiB while it meets its kernel's code), ranges taken again do, at 1 lookup in 40 (with
 * chains a big machine's callers hit the cache and dilute its leaves' misses: at 1 in 16 its
 * cache stayed at 8192 entries for 25 000 leaf locations, issue 14). */
static void test_rcache_refills(const char *tmp)
{
	struct kt_symbols *s;
	struct kt_sym_stats st;
	const uint32_t n = 8000;
	/* eight hot functions in turn (the same address twice is answered before the cache) */
#define HOT(i) (0xffffffff81001000ull + (i) % 8 * 0x40ull + 4)
	uint32_t i;

	if (!(s = funcs_load(tmp, "rf", n)))
		return;
	/* every function once, then the hot ones: two periods of 16384 lookups */
	for (i = 0; i < n; i++)
		kt_sym_lookup(s, 0xffffffff81001000ull + i * 0x40ull + 8);
	for (i = n; i < 2 * 16384; i++)
		kt_sym_lookup(s, HOT(i));
	kt_sym_stats(s, &st);
	is_int(st.cache_slots, 2048, "8000 first sights leave the range cache at its first size");
	is_int(st.cache_fills >= n, 1, "though each of them filled it");
	/* the hot ones, and every 40th lookup one of the 8000 again */
	for (i = 0; i < 2 * 16384 && st.cache_slots == 2048; i++) {
		kt_sym_lookup(s, i % 40 ? HOT(i)
					  : 0xffffffff81001000ull + (i / 40 * 7 % n) * 0x40ull + 8);
		if (i % 1024 == 0)
			kt_sym_stats(s, &st);
	}
	kt_sym_stats(s, &st);
	ok(st.cache_slots > 2048, "ranges taken again at 1 lookup in 40 double it");
	kt_sym_free(s);
#undef HOT
}

int main(void)
{
	char tmp[] = "/tmp/kt-symcache.XXXXXX";
	char cmd[4200];

	if (!mkdtemp(tmp)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	test_cache_small();
	test_rcache_keeps(tmp);
	test_rcache_refills(tmp);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmp);
	return tap_done();
}
