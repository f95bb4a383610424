/* The exact-address hits (window_addr.c): counts per address against a recount, addresses
 * with different high halves apart, ranges, single hits through the log read at any moment,
 * counts past 2^32 in one address, and the cap on distinct addresses. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "kerntop/window.h"
#include "tap.h"

#define KTEXT 0xffffffff81000000ull
#define UTEXT 0x00007f0000001000ull /* another high half: another table */

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random adds over two address ranges with the same low halves, checked address by address
 * and by ranges against a recount; the tables grow several times on the way. */
static void test_recount(void)
{
	struct kt_window_opts o = {.span_ns = 1000000000ull};
	struct kt_window *w = NULL;
	enum { N = 20000 };
	uint64_t *k = calloc(N, sizeof(*k)), *u = calloc(N, sizeof(*u)), s = 88172645463325252ull;
	uint64_t sum = 0, usum = 0;
	int bad = 0;

	kt_window_new(&o, &w);
	for (int i = 0; i < 200000; i++) {
		uint32_t a = (uint32_t)(rnd(&s) % N), h = 1 + (uint32_t)(rnd(&s) % 3);

		if (rnd(&s) & 1) {
			kt_window_addr_add(w, KTEXT + a, h);
			k[a] += h;
		} else {
			kt_window_addr_add(w, UTEXT + a, h);
			u[a] += h;
		}
	}
	for (int a = 0; a < N; a++) {
		bad += kt_window_addr_hits(w, KTEXT + a) != k[a];
		bad += kt_window_addr_hits(w, UTEXT + a) != u[a];
		if (a >= 100 && a < 5100)
			sum += k[a];
		usum += u[a];
	}
	is_int(bad, 0, "every address's hits equal the recount, in both high halves");
	is_int(kt_window_addr_range(w, KTEXT + 100, KTEXT + 5100), sum,
	       "a range of 5000 addresses (looked up one by one)");
	is_int(kt_window_addr_range(w, UTEXT, UTEXT + N), usum,
	       "a range wider than the addresses kept (a scan), the other half's not in it");
	is_int(kt_window_addr_range(w, 0, UINT64_MAX), usum + kt_window_addr_range(w, KTEXT,
	       KTEXT + N), "the whole address space: both halves");
	is_int(kt_window_addr_hits(w, KTEXT + N), 0, "an address never added: 0");
	is_int(kt_window_addr_hits(w, 0xffff888000000000ull + 5), 0,
	       "an address of a high half never seen: 0");
	free(k);
	free(u);
	kt_window_free(w);
}

/* Single hits (a live run's: they wait in the log, taken in by slot order) over 150 000
 * addresses of two high halves, so that the table doubles in the middle of taking the log
 * in, read back at random moments (each read takes the log in) and at the end. */
static void test_single_hits(void)
{
	struct kt_window_opts o = {.span_ns = 1000000000ull};
	struct kt_window *w = NULL;
	enum { N = 150000 };
	uint32_t *k = calloc(N, sizeof(*k)), *u = calloc(N, sizeof(*u));
	uint64_t s = 0x9e3779b97f4a7c15ull, total = 0;
	int bad = 0, reads = 0;

	kt_window_new(&o, &w);
	for (int i = 0; i < 400000; i++) {
		/* a skewed spread: half the hits on 1/16 of the addresses */
		uint32_t a = (uint32_t)(rnd(&s) % (rnd(&s) & 1 ? N / 16 : N));
		int user = (rnd(&s) & 7) == 0;

		kt_window_addr_add(w, (user ? UTEXT : KTEXT) + 4ull * a, 1);
		(user ? u : k)[a]++;
		total++;
		if (rnd(&s) % 5000 == 0) { /* a read now sees every hit so far, the last one too */
			uint32_t b = (uint32_t)(rnd(&s) % N);

			bad += kt_window_addr_hits(w, KTEXT + 4ull * a) != k[a];
			bad += kt_window_addr_hits(w, UTEXT + 4ull * a) != u[a];
			bad += kt_window_addr_range(w, KTEXT + 4ull * b, KTEXT + 4ull * b + 1) != k[b];
			reads++;
		}
	}
	ok(reads > 40, "reads in the middle of the adds");
	is_int(bad, 0, "each read in the middle saw every hit added before it");
	bad = 0;
	for (int a = 0; a < N; a++) {
		bad += kt_window_addr_hits(w, KTEXT + 4ull * a) != k[a];
		bad += kt_window_addr_hits(w, UTEXT + 4ull * a) != u[a];
	}
	is_int(bad, 0, "every address's single hits equal the recount at the end");
	is_int(kt_window_addr_range(w, 0, UINT64_MAX), total, "and the whole range holds them all");
	free(k);
	free(u);
	kt_window_free(w);
}

/* One address's count past 2^32 (a slot holds 32 bits), by single adds and by one weighted
 * add; ranges include what moved out of the slot. */
static void test_big_counts(void)
{
	struct kt_window_opts o = {.span_ns = 1000000000ull};
	struct kt_window *w = NULL;
	uint64_t want = 0;

	kt_window_new(&o, &w);
	kt_window_addr_add(w, KTEXT + 8, 7);
	for (int i = 0; i < 3; i++) {
		kt_window_addr_add(w, KTEXT, UINT32_MAX - 1);
		want += UINT32_MAX - 1;
	}
	kt_window_addr_add(w, KTEXT, 5);
	want += 5;
	is_int(kt_window_addr_hits(w, KTEXT), want, "three near-2^32 adds and 5 more: all kept");
	kt_window_addr_add(w, KTEXT + 4, 3ull << 33);
	is_int(kt_window_addr_hits(w, KTEXT + 4), 3ull << 33, "one weighted add of 3 * 2^33");
	is_int(kt_window_addr_range(w, KTEXT, KTEXT + 9), want + (3ull << 33) + 7,
	       "a short range adds the moved counts");
	is_int(kt_window_addr_range(w, 0, UINT64_MAX), want + (3ull << 33) + 7,
	       "a scan adds them too");
	is_int(kt_window_addr_range(w, KTEXT + 1, KTEXT + 8), 3ull << 33,
	       "a range without the big address leaves its count out");
	kt_window_free(w);
}

/* Past KT_WINDOW_ADDR_MAX distinct addresses, new ones are not counted; known ones still are. */
static void test_cap(void)
{
	struct kt_window_opts o = {.span_ns = 1000000000ull};
	struct kt_window *w = NULL;

	kt_window_new(&o, &w);
	for (uint32_t i = 0; i < KT_WINDOW_ADDR_MAX; i++)
		kt_window_addr_add(w, KTEXT + 4ull * i, 1);
	kt_window_addr_add(w, UTEXT, 9);
	kt_window_addr_add(w, KTEXT + 4ull * KT_WINDOW_ADDR_MAX, 9);
	kt_window_addr_add(w, KTEXT, 2);
	is_int(kt_window_addr_hits(w, UTEXT), 0, "a new address past the cap: not counted");
	is_int(kt_window_addr_hits(w, KTEXT + 4ull * KT_WINDOW_ADDR_MAX), 0, "nor in the full table");
	is_int(kt_window_addr_hits(w, KTEXT), 3, "a known one still is");
	is_int(kt_window_addr_range(w, 0, UINT64_MAX), KT_WINDOW_ADDR_MAX + 2,
	       "every counted hit in the whole range");
	kt_window_free(w);
}

int main(void)
{
	test_recount();
	test_single_hits();
	test_big_counts();
	test_cap();
	return tap_done();
}
