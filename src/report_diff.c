/* --diff A B (docs/history.md): per level (modules, functions, contexts) every row of either
 * file with its share before and after, the change in percentage points and the rate ratio,
 * sorted by the absolute change, each marked by a two-proportion z-test: is the change in
 * share larger than sampling noise? */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "kerntop/util.h"
#include "report_impl.h"
#include "util_idx.h"

/* |z| at or above this is a change beyond sampling noise: two-sided p < 0.001, strict
 * because a diff tests every row at once. */
#define DIFF_Z 3.29

struct drow {
	char module[256], name[512];
	uint64_t a, b;
	double pa, pb, delta, ratio, z;
	int idle;
};

struct dset {
	struct drow *r;
	uint32_t n, cap;
	int side; /* 0 while A's rows are added, 1 for B's */
};

static void add_row(void *ctx, const char *module, const char *name, uint64_t hits, int idle)
{
	struct dset *d = ctx;
	struct drow *r = NULL;

	if (d->side) /* B's row: the A row of the same name, if there is one */
		for (uint32_t i = 0; i < d->n; i++)
			if (!strcmp(d->r[i].name, name) &&
			    !strcmp(d->r[i].module, module ? module : "")) {
				r = &d->r[i];
				break;
			}
	if (!r) {
		if (kt_grow((void **)&d->r, &d->cap, d->n + 1, sizeof(*d->r)) < 0)
			return;
		r = &d->r[d->n++];
		memset(r, 0, sizeof(*r));
		snprintf(r->module, sizeof(r->module), "%s", module ? module : "");
		snprintf(r->name, sizeof(r->name), "%s", name);
	}
	if (d->side)
		r->b += hits;
	else
		r->a += hits;
	r->idle |= idle;
}

static int by_change(const void *pa, const void *pb)
{
	const struct drow *x = pa, *y = pb;
	double dx = fabs(x->delta), dy = fabs(y->delta);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The two-proportion z statistic of x1/n1 against x2/n2 (0 when undefined). */
static double z_two_prop(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2)
{
	double p, se;

	if (!n1 || !n2)
		return 0;
	p = (double)(x1 + x2) / (double)(n1 + n2);
	se = sqrt(p * (1 - p) * (1.0 / (double)n1 + 1.0 / (double)n2));
	if (se <= 0)
		return 0;
	return ((double)x2 / (double)n2 - (double)x1 / (double)n1) / se;
}

static void derive(struct dset *d, const struct kt_baseline *a, const struct kt_baseline *b)
{
	uint64_t na = kt_baseline_samples(a), nb = kt_baseline_samples(b);
	double ca = kt_baseline_covered(a), cb = kt_baseline_covered(b);

	for (uint32_t i = 0; i < d->n; i++) {
		struct drow *r = &d->r[i];
		double ra = ca > 0 ? (double)r->a / ca : 0, rb = cb > 0 ? (double)r->b / cb : 0;

		r->pa = na ? (double)r->a / (double)na * 100.0 : 0;
		r->pb = nb ? (double)r->b / (double)nb * 100.0 : 0;
		r->delta = r->pb - r->pa;
		r->ratio = ra > 0 ? rb / ra : INFINITY;
		r->z = z_two_prop(r->a, na, r->b, nb);
	}
	if (d->n > 1)
		qsort(d->r, d->n, sizeof(*d->r), by_change);
}

static const char *note(const struct drow *r)
{
	if (!r->a)
		return fabs(r->z) >= DIFF_Z ? "new, beyond noise" : "new, within noise";
	if (!r->b)
		return fabs(r->z) >= DIFF_Z ? "gone, beyond noise" : "gone, within noise";
	return fabs(r->z) >= DIFF_Z ? "beyond noise" : "within noise";
}

static void ratio_text(const struct drow *r, char *buf, size_t len)
{
	if (!r->a)
		snprintf(buf, len, "new");
	else if (!r->b)
		snprintf(buf, len, "gone");
	else
		snprintf(buf, len, "%.2fx", r->ratio);
}

static const char *const levels[] = {"modules", "functions", "contexts"};
static const enum kt_view level_view[] = {KT_VIEW_MODULES, KT_VIEW_TOPFUNCS, KT_VIEW_CONTEXTS};

static void text_level(FILE *out, int lv, const struct dset *d, uint32_t top)
{
	static const char *const title[] = {"Module", "Function", "Context"};
	char sa[KT_REP_SAFE_LEN], sb[KT_REP_SAFE_LEN], ratio[32], name[1024];

	fprintf(out, "\n%c%s (%u rows, by absolute change)\n", levels[lv][0] - 32, levels[lv] + 1,
		d->n);
	fprintf(out, "%-40s %9s %9s %8s %8s %8s %9s %7s  %s\n", title[lv], "Hits A", "Hits B", "%A",
		"%B", "Delta", "Ratio", "z", "Note");
	for (uint32_t i = 0; i < d->n && (!top || i < top); i++) {
		const struct drow *r = &d->r[i];

		if (lv == 1)
			snprintf(name, sizeof(name), "%s [%s]",
				 kt_rep_safe(r->name, sa, sizeof(sa)),
				 kt_rep_safe(r->module, sb, sizeof(sb)));
		else
			snprintf(name, sizeof(name), "%s", kt_rep_safe(r->name, sa, sizeof(sa)));
		ratio_text(r, ratio, sizeof(ratio));
		fprintf(out, "%-40s %9llu %9llu %7.2f%% %7.2f%% %+8.2f %9s %7.2f  %s\n", name,
			(unsigned long long)r->a, (unsigned long long)r->b, r->pa, r->pb, r->delta,
			ratio, r->z, note(r));
	}
}

static void json_src(FILE *out, const char *key, const struct kt_baseline *b)
{
	fprintf(out, "\"%s\":{\"source\":", key);
	kt_rep_json_str(out, kt_baseline_source(b));
	fprintf(out,
		",\"samples\":%llu,\"covered_s\":", (unsigned long long)kt_baseline_samples(b));
	kt_rep_json_num(out, kt_baseline_covered(b));
	fputc('}', out);
}

static void json_level(FILE *out, int lv, const struct dset *d, uint32_t top)
{
	fprintf(out, ",\"%s\":[", levels[lv]);
	for (uint32_t i = 0; i < d->n && (!top || i < top); i++) {
		const struct drow *r = &d->r[i];

		fputs(i ? ",{" : "{", out);
		if (lv == 1) {
			fputs("\"module\":", out);
			kt_rep_json_str(out, r->module);
			fputc(',', out);
		}
		fputs("\"name\":", out);
		kt_rep_json_str(out, r->name);
		fprintf(out,
			",\"hits_a\":%llu,\"hits_b\":%llu,\"pct_a\":", (unsigned long long)r->a,
			(unsigned long long)r->b);
		kt_rep_json_num(out, r->pa);
		fputs(",\"pct_b\":", out);
		kt_rep_json_num(out, r->pb);
		fputs(",\"delta_pct\":", out);
		kt_rep_json_num(out, r->delta);
		fputs(",\"rate_ratio\":", out);
		if (isfinite(r->ratio))
			kt_rep_json_num(out, r->ratio);
		else
			fputs("null", out);
		fputs(",\"z\":", out);
		kt_rep_json_num(out, r->z);
		fprintf(out, ",\"significant\":%s,\"state\":\"%s\"}",
			fabs(r->z) >= DIFF_Z ? "true" : "false",
			!r->a	? "new"
			: !r->b ? "gone"
				: "both");
	}
	fputc(']', out);
}

static void csv_level(FILE *out, int lv, const struct dset *d, uint32_t top)
{
	for (uint32_t i = 0; i < d->n && (!top || i < top); i++) {
		const struct drow *r = &d->r[i];
		char ratio[32];

		ratio_text(r, ratio, sizeof(ratio));
		fprintf(out, "%s,", levels[lv]);
		kt_rep_csv_str(out, r->module);
		fputc(',', out);
		kt_rep_csv_str(out, r->name);
		fprintf(out, ",%llu,%llu,%.4f,%.4f,%.4f,%s,%.3f,%d\n", (unsigned long long)r->a,
			(unsigned long long)r->b, r->pa, r->pb, r->delta,
			isfinite(r->ratio) ? ratio : "", r->z, fabs(r->z) >= DIFF_Z);
	}
}

int kt_report_diff(FILE *out, enum kt_format f, const struct kt_baseline *a,
		   const struct kt_baseline *b, uint32_t top)
{
	struct dset d[3];
	char sa[KT_REP_SAFE_LEN], sb[KT_REP_SAFE_LEN];

	memset(d, 0, sizeof(d));
	for (int lv = 0; lv < 3; lv++) {
		d[lv].side = 0;
		kt_baseline_each(a, level_view[lv], add_row, &d[lv]);
		d[lv].side = 1;
		kt_baseline_each(b, level_view[lv], add_row, &d[lv]);
		derive(&d[lv], a, b);
	}
	if (f == KT_FORMAT_JSON) {
		fputs("{\"version\":1,\"diff\":true,", out);
		json_src(out, "a", a);
		fputc(',', out);
		json_src(out, "b", b);
		fprintf(out, ",\"test\":{\"name\":\"two-proportion z-test\",\"z_threshold\":%.2f}",
			DIFF_Z);
		for (int lv = 0; lv < 3; lv++)
			json_level(out, lv, &d[lv], top);
		fputs("}\n", out);
	} else if (f == KT_FORMAT_CSV) {
		fputs("level,module,name,hits_a,hits_b,pct_a,pct_b,delta_pct,rate_ratio,z,"
		      "significant\n",
		      out);
		for (int lv = 0; lv < 3; lv++)
			csv_level(out, lv, &d[lv], top);
	} else {
		fprintf(out, "kerntop diff\nA:        %s: %llu samples over %.3f s\n",
			kt_rep_safe(kt_baseline_source(a), sa, sizeof(sa)),
			(unsigned long long)kt_baseline_samples(a), kt_baseline_covered(a));
		fprintf(out, "B:        %s: %llu samples over %.3f s\n",
			kt_rep_safe(kt_baseline_source(b), sb, sizeof(sb)),
			(unsigned long long)kt_baseline_samples(b), kt_baseline_covered(b));
		fprintf(out,
			"Test:     two-proportion z-test of each row's share of all samples, A "
			"against B; |z| >= %.2f (two-sided p < 0.001) is beyond sampling noise\n",
			DIFF_Z);
		for (int lv = 0; lv < 3; lv++)
			text_level(out, lv, &d[lv], top);
	}
	for (int lv = 0; lv < 3; lv++)
		free(d[lv].r);
	return ferror(out) ? -EIO : 0;
}
