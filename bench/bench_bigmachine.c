/* The big-machine generator (issue 14): writes what N CPUs sampled at a rate for some seconds
 * would give kerntop, so that the paced replay of a 256- or 1024-CPU server can be measured on
 * a small VM. Output: DIR/kallsyms, DIR/modules and either a kerntop recording
 * (DIR/big.ktrec, with that symbol context inside) or `perf script` text (DIR/big.txt).
 * Deterministic for given options (a fixed xorshift seed). See docs/performance.md, "Scale".
 *
 * usage: bench_bigmachine [-c CPUS] [-F HZ] [-s SECS] [-t TASKS] [-m MIGRATE] [-f FUNCS]
 *                         [-z ZIPF] [-g DEPTH] [-S STACKS] [-T | -1] DIR
 * -1 writes recording format version 1 (chains whole), for kerntop builds before version 2. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kerntop/util.h"
#include "source_impl.h"

#define KBASE 0xffffffff81000000ull
#define FSIZE 0x200u /* every function 512 bytes: 8 slices of the default 64-byte bucket */
#define NMODS 4u     /* functions after 80 % of the set go to modules mod0..mod3 */
#define MBASE 0xffffffffc0000000ull
#define MSPAN 0x1000000ull

struct gen {
	uint32_t cpus, hz, tasks, funcs, depth, stacks;
	double secs, migrate, zipf;
	int text, v1;
	uint64_t rng;
	double *fcdf, *scdf; /* cumulative Zipf weights of functions and of stacks */
	uint32_t *chain;     /* stacks x depth function indexes, leaf first */
	char dir[4096];
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static double unit(struct gen *g)
{
	return (double)(rnd(g) >> 11) / 9007199254740992.0;
}

/* Cumulative weights 1/(i+1)^s, normalised to end at 1. */
static double *zipf_cdf(uint32_t n, double s)
{
	double *c = malloc(n * sizeof(*c)), sum = 0;

	if (!c)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		sum += 1.0 / pow(i + 1.0, s);
		c[i] = sum;
	}
	for (uint32_t i = 0; i < n; i++)
		c[i] /= sum;
	return c;
}

static uint32_t pick(const double *cdf, uint32_t n, double u)
{
	uint32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Function i: the hottest are in vmlinux, the tail in modules (a real server's spread). */
static uint64_t faddr(const struct gen *g, uint32_t i, uint32_t *mod)
{
	uint32_t nk = g->funcs - g->funcs / 5;

	if (i < nk) {
		*mod = UINT32_MAX;
		return KBASE + 0x1000 + (uint64_t)i * FSIZE;
	}
	i -= nk;
	*mod = i % NMODS;
	return MBASE + *mod * MSPAN + 0x100 + (uint64_t)(i / NMODS) * FSIZE;
}

static int write_symbols(const struct gen *g)
{
	char p[4200];
	FILE *f;
	uint32_t m;

	snprintf(p, sizeof(p), "%s/kallsyms", g->dir);
	f = fopen(p, "w");
	if (!f)
		return -errno;
	fprintf(f, "%016llx T _stext\n", KBASE);
	for (uint32_t i = 0; i < g->funcs; i++) {
		uint64_t a = faddr(g, i, &m);

		if (m == UINT32_MAX)
			fprintf(f, "%016llx T kfn_%u\n", (unsigned long long)a, i);
		else
			fprintf(f, "%016llx t mod%u_fn%u\t[mod%u]\n", (unsigned long long)a, m, i,
				m);
	}
	fprintf(f, "%016llx T _etext\n",
		(unsigned long long)(KBASE + 0x1000 + (uint64_t)(g->funcs - g->funcs / 5) * FSIZE));
	if (fclose(f))
		return -errno;
	snprintf(p, sizeof(p), "%s/modules", g->dir);
	f = fopen(p, "w");
	if (!f)
		return -errno;
	for (m = 0; m < NMODS; m++)
		fprintf(f, "mod%u 16777216 0 - Live 0x%016llx\n", m,
			(unsigned long long)(MBASE + m * MSPAN));
	return fclose(f) ? -errno : 0;
}

/* STACKS distinct chains: a Zipf-picked leaf under DEPTH - 1 callers drawn from the 64
 * hottest functions' neighbourhood (entry paths are few, leaves are many). */
static int make_chains(struct gen *g)
{
	g->chain = malloc((size_t)g->stacks * g->depth * sizeof(*g->chain));
	g->scdf = zipf_cdf(g->stacks, g->zipf);
	if (!g->chain || !g->scdf)
		return -ENOMEM;
	for (uint32_t s = 0; s < g->stacks; s++) {
		uint32_t *c = g->chain + (size_t)s * g->depth;

		c[0] = pick(g->fcdf, g->funcs, unit(g));
		for (uint32_t d = 1; d < g->depth; d++)
			c[d] = (uint32_t)(rnd(g) % (g->funcs < 256 ? g->funcs : 256));
	}
	return 0;
}

static const char *fname(const struct gen *g, uint32_t i, char *buf, size_t len, const char **dso,
			 char *dbuf, size_t dlen)
{
	uint32_t m;

	faddr(g, i, &m);
	if (m == UINT32_MAX) {
		snprintf(buf, len, "kfn_%u", i);
		*dso = "[kernel.kallsyms]";
	} else {
		snprintf(buf, len, "mod%u_fn%u", m, i);
		snprintf(dbuf, dlen, "[mod%u]", m);
		*dso = dbuf;
	}
	return buf;
}

static void text_frame(FILE *f, const struct gen *g, uint32_t fi, uint32_t off, int leaf_line)
{
	char nb[64], db[16];
	const char *dso;
	uint32_t m;
	uint64_t a = faddr(g, fi, &m) + off;

	fname(g, fi, nb, sizeof(nb), &dso, db, sizeof(db));
	fprintf(f, leaf_line ? "%16llx %s+0x%x (%s)\n" : "\t%16llx %s+0x%x (%s)\n",
		(unsigned long long)a, nb, off, dso);
}

static int generate(struct gen *g)
{
	uint64_t frames[KT_MAX_STACK], ticks = (uint64_t)(g->secs * g->hz), t0 = 1000000000000ull;
	uint64_t period = 1000000000ull / g->hz, n = 0;
	uint32_t *cpus = malloc(g->cpus * sizeof(*cpus)), ntask = g->cpus * g->tasks;
	struct kt_source_info info = {.kind = "replay",
				      .event = "cpu-clock",
				      .freq_hz = g->hz,
				      .period = period,
				      .ncpus = g->cpus,
				      .max_cpu = g->cpus,
				      .callchain = g->depth > 0};
	struct kt_recorder *rec = NULL;
	char p[4200], ks[4200], mods[4200], err[KT_ERRLEN];
	FILE *txt = NULL;
	int e = 0;

	if (!cpus)
		return -ENOMEM;
	for (uint32_t c = 0; c < g->cpus; c++)
		cpus[c] = c;
	info.cpus = cpus;
	snprintf(ks, sizeof(ks), "%s/kallsyms", g->dir);
	snprintf(mods, sizeof(mods), "%s/modules", g->dir);
	snprintf(p, sizeof(p), "%s/big.%s", g->dir, g->text ? "txt" : "ktrec");
	unlink(p);
	if (g->text) {
		txt = fopen(p, "w");
		if (!txt) {
			e = -errno;
			fprintf(stderr, "bench_bigmachine: %s: %s\n", p, strerror(-e));
		}
	} else if ((e = (g->v1 ? kt_rec_open_v1 : kt_rec_open)(p, &info, ks, mods, &rec, err,
							       sizeof(err))) < 0) {
		fprintf(stderr, "bench_bigmachine: %s\n", err);
	}
	for (uint32_t i = 0; !e && rec && i < ntask; i++) {
		char comm[24];

		snprintf(comm, sizeof(comm), "worker%u", i % 100000000u);
		kt_rec_comm(rec, (int32_t)(10000 + i), (int32_t)(10000 + i), comm, t0);
	}
	for (uint64_t k = 0; !e && k < ticks; k++) {
		for (uint32_t c = 0; c < g->cpus; c++) {
			uint32_t task = c * g->tasks + (uint32_t)(rnd(g) % g->tasks), m, nfr = 0,
				 leaf;
			const uint32_t *ch = NULL;
			struct kt_sample s = {0};

			if (g->migrate > 0 && unit(g) < g->migrate)
				task = (uint32_t)(rnd(g) % ntask);
			s.time_ns = t0 + k * period + (uint64_t)c * period / g->cpus;
			s.period = period;
			s.pid = s.tid = (int32_t)(10000 + task);
			s.cpu = c;
			if (g->depth) {
				ch =
				    g->chain + (size_t)pick(g->scdf, g->stacks, unit(g)) * g->depth;
				for (uint32_t d = 0; d < g->depth; d++)
					frames[nfr++] = faddr(g, ch[d], &m) + 0x10 + d * 8 % 0x100;
				leaf = ch[0];
			} else {
				leaf = pick(g->fcdf, g->funcs, unit(g));
			}
			/* a random instruction of the function: up to 8 bucket locations each */
			s.ip = faddr(g, leaf, &m) + (rnd(g) % (FSIZE / 4)) * 4;
			if (nfr)
				frames[0] = s.ip;
			s.nr_frames = nfr;
			s.frames = frames;
			n++;
			if (rec) {
				e = kt_rec_sample(rec, &s);
				continue;
			}
			fprintf(txt,
				"worker%u %d/%d [%03u] %llu.%06llu:    %llu cpu-clock:pppH: ", task,
				s.pid, s.tid, c, (unsigned long long)(s.time_ns / 1000000000ull),
				(unsigned long long)(s.time_ns % 1000000000ull / 1000),
				(unsigned long long)period);
			if (!nfr) {
				text_frame(txt, g, leaf, (uint32_t)(s.ip - faddr(g, leaf, &m)), 1);
				continue;
			}
			fputc('\n', txt);
			for (uint32_t d = 0; d < nfr; d++)
				text_frame(txt, g, ch[d],
					   (uint32_t)(frames[d] - faddr(g, ch[d], &m)), 0);
			fputc('\n', txt);
		}
	}
	if (rec && kt_rec_close(rec, err, sizeof(err)) < 0 && !e) {
		fprintf(stderr, "bench_bigmachine: %s\n", err);
		e = -EIO;
	}
	if (txt && fclose(txt) && !e)
		e = -errno;
	free(cpus);
	if (!e)
		printf("bench_bigmachine: %llu samples, %u CPUs x %u Hz x %.1f s, %u tasks, %u "
		       "functions, %s -> %s\n",
		       (unsigned long long)n, g->cpus, g->hz, g->secs, ntask, g->funcs,
		       g->depth ? "chains" : "no chains", p);
	return e;
}

static void usage(void)
{
	fprintf(
	    stderr,
	    "usage: bench_bigmachine [-c CPUS=256] [-F HZ=997] [-s SECS=10] [-t TASKS_PER_CPU=8]\n"
	    "       [-m MIGRATE=0] [-f FUNCS=5000] [-z ZIPF=1.0] [-g DEPTH=0] [-S STACKS=20000]\n"
	    "       [-T | -1] DIR\n");
}

int main(int argc, char **argv)
{
	struct gen g = {.cpus = 256,
			.hz = 997,
			.tasks = 8,
			.funcs = 5000,
			.stacks = 20000,
			.secs = 10,
			.zipf = 1.0,
			.rng = 0x9e3779b97f4a7c15ull};
	int c, e;

	while ((c = getopt(argc, argv, "c:F:s:t:m:f:z:g:S:T1")) != -1) {
		switch (c) {
		case 'c':
			g.cpus = (uint32_t)atoi(optarg);
			break;
		case 'F':
			g.hz = (uint32_t)atoi(optarg);
			break;
		case 's':
			g.secs = atof(optarg);
			break;
		case 't':
			g.tasks = (uint32_t)atoi(optarg);
			break;
		case 'm':
			g.migrate = atof(optarg);
			break;
		case 'f':
			g.funcs = (uint32_t)atoi(optarg);
			break;
		case 'z':
			g.zipf = atof(optarg);
			break;
		case 'g':
			g.depth = (uint32_t)atoi(optarg);
			break;
		case 'S':
			g.stacks = (uint32_t)atoi(optarg);
			break;
		case 'T':
			g.text = 1;
			break;
		case '1':
			g.v1 = 1;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (optind != argc - 1 || !g.cpus || g.cpus > 8192 || !g.hz || g.secs <= 0 || !g.tasks ||
	    g.funcs < 8 || g.depth > KT_MAX_STACK || !g.stacks || g.migrate < 0 || g.migrate > 1) {
		usage();
		return 2;
	}
	snprintf(g.dir, sizeof(g.dir), "%s", argv[optind]);
	g.fcdf = zipf_cdf(g.funcs, g.zipf);
	if (!g.fcdf || (g.depth && make_chains(&g) < 0)) {
		fprintf(stderr, "bench_bigmachine: out of memory\n");
		return 1;
	}
	e = write_symbols(&g);
	if (e < 0)
		fprintf(stderr, "bench_bigmachine: %s: %s\n", g.dir, strerror(-e));
	else
		e = generate(&g);
	free(g.fcdf);
	free(g.scdf);
	free(g.chain);
	return e < 0 ? 1 : 0;
}
