/* What execution-context classification costs at ingest (docs/contexts.md): the same
 * call-chain samples ingested as main.c does it, once without classification (every hit in
 * context 0) and once with it (per-stack tag lookup, classification on a stack's first
 * sight, kthread names per task), best of 3 each; plus the cost of classifying a chain that
 * is not cached yet. Symbols come from KALLSYMS (default /proc/kallsyms).
 *   bench_contexts [SAMPLES [STACKS]]   (defaults 2000000 samples over 4000 distinct stacks)
 * Prints ns per sample of both, the difference and the ratio with / without. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kerntop/symbols.h"
#include "kerntop/window.h"

#define DEPTH 24
#define NTASKS 64

/* Context roots as real kernels have them (leaf first); missing names are skipped. */
static const char *const roots[][6] = {
    {"do_sendfile", "__x64_sys_sendfile64", "x64_sys_call", "do_syscall_64", NULL},
    {"tcp_recvmsg", "__x64_sys_recvfrom", "x64_sys_call", "do_syscall_64", NULL},
    {"net_rx_action", "handle_softirqs", "__irq_exit_rcu", "irq_exit_rcu", NULL},
    {"net_rx_action", "handle_softirqs", "run_ksoftirqd", "smpboot_thread_fn", "kthread", NULL},
    {"vmstat_update", "process_one_work", "worker_thread", "kthread", NULL},
    {"shrink_node", "kswapd", "kthread", NULL},
    {"handle_mm_fault", "do_user_addr_fault", "exc_page_fault", "asm_exc_page_fault", NULL},
    {"hrtimer_interrupt", "__sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt", NULL},
};
#define NROOTS (sizeof(roots) / sizeof(roots[0]))

struct ksym {
	uint64_t addr;
	char name[256];
};

static struct ksym *ks;
static size_t nks;

static int load_kallsyms(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], name[256], t;
	unsigned long long a;
	size_t cap = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &t, name) != 3 || !a || strchr(line, '[') ||
		    (t != 't' && t != 'T'))
			continue;
		if (nks == cap) {
			struct ksym *nk;

			cap = cap ? cap * 2 : 65536;
			nk = realloc(ks, cap * sizeof(*ks));
			if (!nk) {
				fclose(f);
				return -1;
			}
			ks = nk;
		}
		ks[nks].addr = a;
		snprintf(ks[nks].name, sizeof(ks[nks].name), "%s", name);
		nks++;
	}
	fclose(f);
	return nks ? 0 : -1;
}

static uint64_t addr_of(const char *name)
{
	for (size_t i = 0; i < nks; i++)
		if (!strcmp(ks[i].name, name))
			return ks[i].addr;
	return 0;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct chain {
	uint64_t a[DEPTH + 6];
	uint32_t n;
};

/* One ingest pass over the samples: 0 = no classification, 1 = as main.c classifies. */
static double ingest(struct kt_symbols *sym, const struct chain *ch, uint32_t nch,
		     const uint32_t *pick, size_t n, int classify, uint64_t *ctxsum)
{
	struct kt_window_opts wo = {.span_ns = 10000000000ull, .slice_ns = 1000000000ull};
	struct kt_window *w;
	uint32_t locs[DEPTH + 6], task[NTASKS];
	double t0, t;

	if (kt_window_new(&wo, &w) < 0)
		return -1;
	for (uint32_t i = 0; i < NTASKS; i++) {
		task[i] = kt_window_task(w, 1000 + (int32_t)i, 1000 + (int32_t)i);
		kt_window_comm(w, 1000 + (int32_t)i, 1000 + (int32_t)i,
			       i % 4 ? "app" : "ksoftirqd/1");
	}
	t0 = now_s();
	for (size_t s = 0; s < n; s++) {
		const struct chain *c = &ch[pick[s] % nch];
		uint32_t st, tk = task[s % NTASKS], ctx = 0, loc;
		uint64_t tns = 1000000000ull + s * 250000ull; /* 4 kHz: the window moves */

		for (uint32_t i = 0; i < c->n; i++)
			locs[i] = kt_sym_lookup(sym, c->a[i]);
		loc = locs[0];
		st = kt_window_stack(w, locs, c->n);
		if (classify) { /* main.c's sample_ctx */
			if (kt_sym_loc(sym, loc)->idle) {
				ctx = KT_CTXID_IDLE;
			} else {
				uint32_t tag = kt_window_stack_tag(w, st, KT_STACK_TAG_CTX);

				if (!tag) {
					uint32_t nf;
					const uint32_t *fr = kt_window_stack_frames(w, st, &nf);

					tag = kt_sym_ctx_classify(sym, fr, nf);
					tag = tag == KT_CTX_BY_COMM ? UINT32_MAX : tag + 1;
					kt_window_stack_set_tag(w, st, KT_STACK_TAG_CTX, tag);
				}
				if (tag != UINT32_MAX) {
					ctx = tag - 1;
				} else {
					tag = kt_window_task_tag(w, tk);
					if (!tag) {
						const struct kt_task *ti =
						    kt_window_task_info(w, tk);

						tag = kt_sym_ctx_comm(sym, ti ? ti->comm : "") + 1;
						kt_window_task_set_tag(w, tk, tag);
					}
					ctx = tag - 1;
				}
			}
		}
		*ctxsum += ctx;
		kt_window_add_ctx(w, tns, loc, st, s % 2, tk, ctx, 1);
	}
	t = now_s() - t0;
	kt_window_free(w);
	return t;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
	uint32_t nch = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 4000;
	const char *kpath = getenv("KALLSYMS") ? getenv("KALLSYMS") : "/proc/kallsyms";
	struct kt_sym_opts so = {.kallsyms = kpath};
	struct kt_symbols *sym;
	struct chain *ch;
	uint32_t *pick;
	uint64_t root[NROOTS][6] = {{0}}, seed = 88172645463325252ull, sum = 0;
	double best[2] = {1e9, 1e9}, tcold;
	char err[512];
	uint32_t nroots = 0, ncold = 200000;

	if (!n || !nch || load_kallsyms(kpath) < 0) {
		fprintf(stderr, "bench_contexts: cannot read text symbols from %s\n", kpath);
		return 2;
	}
	so.modules = "/dev/null";
	if (kt_sym_new(&so, &sym, err, sizeof(err)) < 0) {
		so.modules = NULL;
		if (kt_sym_new(&so, &sym, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_contexts: %s\n", err);
			return 2;
		}
	}
	for (size_t r = 0; r < NROOTS; r++) {
		int okr = 1;

		for (int j = 0; roots[r][j]; j++)
			okr &= (root[nroots][j] = addr_of(roots[r][j])) != 0;
		nroots += okr;
	}
	ch = calloc(nch, sizeof(*ch));
	pick = malloc(n * sizeof(*pick));
	if (!ch || !pick)
		return 2;
	/* random leaf-side frames over the whole kernel text, a context root at the far end:
	 * classification walks the whole chain, its worst case */
	for (uint32_t c = 0; c < nch; c++) {
		uint32_t d = 8 + (uint32_t)(c % (DEPTH - 8)), k = 0;

		for (uint32_t i = 0; i < d; i++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			ch[c].a[k++] = ks[seed % nks].addr + 4;
		}
		if (nroots)
			for (int j = 0; j < 6 && root[c % nroots][j]; j++)
				ch[c].a[k++] = root[c % nroots][j] + 8;
		ch[c].n = k;
	}
	for (size_t s = 0; s < n; s++) { /* a skewed pick: few hot stacks, a long tail */
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		pick[s] = (uint32_t)((seed % nch) * (seed % nch) / nch);
	}
	for (int run = 0; run < 3; run++)
		for (int mode = 0; mode < 2; mode++) {
			double t = ingest(sym, ch, nch, pick, n, mode, &sum);

			if (t > 0 && t < best[mode])
				best[mode] = t;
		}
	/* uncached: classify chains never seen, as the first sample of each new stack does */
	{
		uint32_t locs[DEPTH + 6];
		double t0 = now_s();

		for (uint32_t i = 0; i < ncold; i++) {
			const struct chain *c = &ch[i % nch];

			for (uint32_t k = 0; k < c->n; k++)
				locs[k] = kt_sym_lookup(sym, c->a[k]);
			sum += kt_sym_ctx_classify(sym, locs, c->n);
		}
		tcold = now_s() - t0;
	}
	printf("bench_contexts: %zu samples over %u stacks (%u context roots found in %s), "
	       "%u contexts\n",
	       n, nch, nroots, kpath, kt_sym_nctx(sym));
	printf("ingest without classification: %.1f ns/sample\n", best[0] / (double)n * 1e9);
	printf("ingest with classification:    %.1f ns/sample\n", best[1] / (double)n * 1e9);
	printf("classification cost:           %.1f ns/sample (ratio with/without %.3f)\n",
	       (best[1] - best[0]) / (double)n * 1e9, best[1] / best[0]);
	printf("uncached chain (lookups + classify, first sight of a stack): %.0f ns\n",
	       tcold / ncold * 1e9);
	printf("# checksum %llu\n", (unsigned long long)sum);
	kt_sym_free(sym);
	free(ch);
	free(pick);
	free(ks);
	return 0;
}
