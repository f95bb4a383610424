/* Snapshots: the viewer's current view and every level under it (modules -> functions ->
 * lines; a function -> its lines and callers; a CPU or task -> its modules), written
 * atomically to a fresh 0600 file that never replaces an existing one. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "kerntop/util.h"
#include "report_impl.h"

/* Levels below the snapshot's view, and how many rows of a deeper level get expanded. */
#define SNAP_DEPTH 2
#define SNAP_EXPAND_DEEP 5

struct snap {
	FILE *out;
	struct kt_agg *agg;
	const struct kt_report_ctx *c;
	int stacks;
};

/* The queries opened by a row of view q (the viewer's Enter), at most 2. */
static int children(const struct snap *sn, const struct kt_query *q, const struct kt_row *row,
		    struct kt_query *sub)
{
	int n = 0;

	sub[0] = *q;
	sub[0].filter.text = NULL;
	sub[0].module = KT_ANY;
	sub[0].func = KT_ANY;
	sub[0].per_cpu = 0;
	sub[1] = sub[0];
	switch (q->view) {
	case KT_VIEW_MODULES:
		sub[0].view = KT_VIEW_FUNCS;
		sub[0].module = row->id;
		return 1;
	case KT_VIEW_FUNCS:
	case KT_VIEW_TOPFUNCS:
		sub[n].view = KT_VIEW_LINES;
		sub[n++].func = row->id;
		if (sn->stacks) {
			sub[n].view = KT_VIEW_CALLERS;
			sub[n].sort = KT_SORT_HITS;
			sub[n++].func = row->id;
		}
		return n;
	case KT_VIEW_CPUS:
		sub[0].view = KT_VIEW_MODULES;
		sub[0].filter.cpu = row->id;
		return 1;
	case KT_VIEW_TASKS:
		sub[0].view = KT_VIEW_MODULES;
		sub[0].filter.task = row->id;
		return 1;
	default:
		return 0;
	}
}

/* " on cpus 0,2-3" for a CPU set */
static int cpuset_title(const struct snap *sn, const uint64_t *set, char *buf, size_t len)
{
	uint32_t max = kt_agg_params(sn->agg)->max_cpu, k = 0;
	size_t n = 0;

	for (uint32_t c = 0; c < max; c++)
		k += kt_cpuset_has(set, c);
	n = (size_t)snprintf(buf, len, " on cpu%s ", k == 1 ? "" : "s");
	for (uint32_t c = 0; c < max && n < len; c++) {
		uint32_t e = c;

		if (!kt_cpuset_has(set, c))
			continue;
		while (e + 1 < max && kt_cpuset_has(set, e + 1))
			e++;
		if (e == c)
			n += (size_t)snprintf(buf + n, len - n, "%s%u",
					      buf[n - 1] == ' ' ? "" : ",", c);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%u-%u",
					      buf[n - 1] == ' ' ? "" : ",", c, e);
		c = e;
	}
	return n < len ? (int)n : (int)len - 1;
}

static void title(const struct snap *sn, const struct kt_query *q, char *buf, size_t len)
{
	struct kt_symbols *s = kt_agg_symbols(sn->agg);
	const struct kt_sym_func *f = kt_sym_func(s, q->func);
	int n = snprintf(buf, len, "%s", kt_view_name(q->view));

	if (q->view == KT_VIEW_FUNCS ||
	    (q->view == KT_VIEW_STACKS && q->func == KT_ANY && q->module != KT_ANY))
		n += snprintf(buf + n, len - (size_t)n, " of %s",
			      kt_agg_module_name(sn->agg, q->module));
	else if (f && (q->view == KT_VIEW_LINES || q->view == KT_VIEW_CALLERS ||
		       q->view == KT_VIEW_CALLEES || q->view == KT_VIEW_STACKS))
		n += snprintf(buf + n, len - (size_t)n, " of %s", f->name);
	if (q->filter.cpu != KT_ANY && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " on cpu %u", q->filter.cpu);
	else if (q->filter.cpuset && n > 0 && (size_t)n < len)
		n += cpuset_title(sn, q->filter.cpuset, buf + n, len - (size_t)n);
	if (q->filter.task != KT_ANY && n > 0 && (size_t)n < len) {
		const struct kt_task *t =
		    kt_window_task_info(kt_agg_window(sn->agg), q->filter.task);

		if (t && t->pid < 0) /* a group of tasks merged per command name */
			snprintf(buf + n, len - (size_t)n, " of tasks %s", t->comm);
		else
			snprintf(buf + n, len - (size_t)n, " of task %d %s", t ? t->tid : -1,
				 t ? t->comm : "");
	}
}

static int level(struct snap *sn, const struct kt_query *q, int depth, const char *path)
{
	struct kt_result res = {0};
	struct kt_query lq = *q, sub[2];
	char t[512];
	int r;

	/* the view itself as asked (0 = every row); the levels under it capped at --top */
	if (depth && (!lq.limit || lq.limit > sn->c->top))
		lq.limit = sn->c->top;
	r = kt_agg_query(sn->agg, &lq, &res);
	if (r < 0) {
		kt_result_free(&res);
		return r;
	}
	title(sn, q, t, sizeof(t));
	switch (sn->c->format) {
	case KT_FORMAT_TEXT:
		fprintf(sn->out, "\n%*s== %s (%zu of %zu rows) ==\n", depth * 2, "", t, res.nrows,
			res.total_rows);
		kt_rep_text_table(sn->out, sn->agg, q->view, &res, depth ? "    " : "");
		break;
	case KT_FORMAT_JSON:
		fputs("{\"view\":", sn->out);
		kt_rep_json_str(sn->out, kt_view_name(q->view));
		fputs(",\"title\":", sn->out);
		kt_rep_json_str(sn->out, t);
		fprintf(sn->out, ",\"total_rows\":%zu,\"rows\":[", res.total_rows);
		break;
	default:
		break;
	}
	for (size_t i = 0; i < res.nrows && r == 0; i++) {
		const struct kt_row *row = &res.rows[i];
		int nsub = depth < SNAP_DEPTH && i < (depth ? SNAP_EXPAND_DEEP : sn->c->top)
			       ? children(sn, q, row, sub)
			       : 0;
		char p[1024];

		snprintf(p, sizeof(p), "%s%s%s", path, *path ? "/" : "", row->name);
		if (sn->c->format == KT_FORMAT_CSV) {
			fputs(kt_view_name(q->view), sn->out);
			fputc(',', sn->out);
			kt_rep_csv_str(sn->out, path);
			fputc(',', sn->out);
			kt_rep_csv_str(sn->out, row->module);
			fputc(',', sn->out);
			kt_rep_csv_str(sn->out, row->name);
			fprintf(sn->out, ",%llu,%.3f,%.4f,%.4f,%.3f,%d,%u\n",
				(unsigned long long)row->hits, row->ms, row->pct_kernel,
				row->pct_machine, row->per_s, row->idle ? 1 : 0, row->depth);
		}
		if (sn->c->format == KT_FORMAT_JSON) {
			if (i)
				fputc(',', sn->out);
			kt_rep_json_row_open(sn->out, sn->agg, q->view, row);
			fputs(nsub ? ",\"children\":[" : "}", sn->out);
		}
		for (int j = 0; j < nsub && r == 0; j++) {
			if (sn->c->format == KT_FORMAT_JSON && j)
				fputc(',', sn->out);
			r = level(sn, &sub[j], depth + 1, p);
		}
		if (sn->c->format == KT_FORMAT_JSON && nsub)
			fputs("]}", sn->out);
	}
	if (sn->c->format == KT_FORMAT_JSON)
		fputs("]}", sn->out);
	kt_result_free(&res);
	return r;
}

/* The stacks that belong to the snapshot's view. */
static struct kt_query folded_sel(const struct kt_query *q)
{
	struct kt_query s = {.view = KT_VIEW_STACKS, .module = KT_ANY, .func = KT_ANY};

	if (q->view == KT_VIEW_FUNCS)
		s.module = q->module;
	else if (q->view == KT_VIEW_LINES || q->view == KT_VIEW_CALLERS ||
		 q->view == KT_VIEW_CALLEES || q->view == KT_VIEW_STACKS) {
		s.module = q->module;
		s.func = q->func;
	}
	return s;
}

int kt_report_snapshot(const char *path, struct kt_agg *agg, const struct kt_report_ctx *ctx,
		       const struct kt_query *q, char *err, size_t errlen)
{
	struct kt_atomic a;
	struct kt_summary sum;
	struct kt_report_ctx c = *ctx;
	struct snap sn = {NULL, agg, &c, kt_window_nstacks(kt_agg_window(agg)) > 0};
	struct kt_query sel;
	int r;

	if (!c.top)
		c.top = 30;
	r = kt_atomic_open(&a, path, err, errlen);
	if (r < 0)
		return r;
	sn.out = a.fp;
	kt_agg_summary(agg, &q->filter, &sum);
	switch (c.format) {
	case KT_FORMAT_TEXT:
		kt_rep_text_header(sn.out, &c, &sum);
		r = level(&sn, q, 0, "");
		break;
	case KT_FORMAT_JSON:
		kt_rep_json_header(sn.out, &c, &sum);
		fputs(",\"snapshot\":", sn.out);
		r = level(&sn, q, 0, "");
		fputs("}\n", sn.out);
		break;
	case KT_FORMAT_CSV:
		fputs("view,parent,module,name,hits,ms,pct,pct_machine,per_s,idle,depth\n", sn.out);
		r = level(&sn, q, 0, "");
		break;
	case KT_FORMAT_FOLDED:
		sel = folded_sel(q);
		sel.filter = q->filter;
		r = kt_rep_folded(sn.out, agg, &c, &sel);
		break;
	}
	if (r < 0) {
		snprintf(err, errlen, "%s: snapshot query failed (%s)", path, strerror(-r));
		kt_atomic_abort(&a);
		return r;
	}
	return kt_atomic_commit(&a, err, errlen);
}

int kt_report_snapshot_path(const char *dir, enum kt_format f, char *out, size_t len)
{
	static const char *const ext[] = {[KT_FORMAT_TEXT] = "txt",
					  [KT_FORMAT_JSON] = "json",
					  [KT_FORMAT_CSV] = "csv",
					  [KT_FORMAT_FOLDED] = "folded"};
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	struct stat st;

	if (!dir || !*dir)
		dir = ".";
	if ((unsigned)f >= sizeof(ext) / sizeof(ext[0]))
		return -EINVAL;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (int i = 0; i < 1000; i++) {
		int n = i ? snprintf(out, len, "%s/kerntop-%s-%d.%s", dir, stamp, i, ext[f])
			  : snprintf(out, len, "%s/kerntop-%s.%s", dir, stamp, ext[f]);

		if (n < 0 || (size_t)n >= len)
			return -ENAMETOOLONG;
		if (lstat(out, &st) == 0)
			continue;
		return errno == ENOENT ? 0 : -errno; /* ENOTDIR, EACCES: no name will do */
	}
	return -EEXIST;
}
