/* Snapshots: the viewer's current view and every level under it (modules -> functions ->
 * lines; a function -> its lines and callers; a CPU or task -> its modules), written
 * atomically to a fresh 0600 file that never replaces an existing one. Taking (all the
 * queries) and writing are apart, so a paused viewer writes the moment it froze. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "kerntop/util.h"
#include "report_impl.h"

/* Levels below the snapshot's view, and how many rows of a deeper level get expanded. */
#define SNAP_DEPTH 2
#define SNAP_EXPAND_DEEP 5
#define SNAP_TITLE 512

/* One table of the snapshot: its query, its rows as they were when taken, the tables the
 * rows open (kids[k].row says which row), in row order. */
struct snap_node {
	struct kt_query q;
	struct kt_result res;
	char title[SNAP_TITLE];
	size_t row;
	struct snap_node *kids;
	size_t nkids;
};

/* Everything a snapshot file holds, taken at one moment: written later in any format. */
struct kt_snapshot {
	struct kt_agg *agg;
	struct kt_report_ctx c;
	struct kt_summary sum;
	int stacks;
	int have_tree, have_folded;
	struct snap_node root;
	struct kt_result folded; /* the stacks of the view, for the folded format */
	char *annot;		 /* the annotate listing on screen (text snapshots), or NULL */
};

/* The queries opened by a row of view q (the viewer's Enter), at most 2. */
static int children(const struct kt_snapshot *sn, const struct kt_query *q,
		    const struct kt_row *row, struct kt_query *sub)
{
	int n = 0;

	sub[0] = *q;
	sub[0].filter.text = NULL;
	sub[0].module = KT_ANY;
	sub[0].func = KT_ANY;
	sub[0].per_cpu = 0;
	/* the levels under the view are always the hottest first, whatever the view's sort */
	sub[0].sort = KT_SORT_HITS;
	sub[0].reverse = 0;
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
	case KT_VIEW_CONTEXTS:
		sub[0].view = KT_VIEW_MODULES;
		sub[0].filter.ctx = row->id;
		return 1;
	default:
		return 0;
	}
}

/* " on cpus 0,2-3" for a CPU set */
static int cpuset_title(const struct kt_snapshot *sn, const uint64_t *set, char *buf, size_t len)
{
	uint32_t max = kt_agg_params(sn->agg)->max_cpu, k = 0;
	int n;

	for (uint32_t c = 0; c < max; c++)
		k += kt_cpuset_has(set, c);
	n = snprintf(buf, len, " on cpu%s ", k == 1 ? "" : "s");
	if (n < 0 || (size_t)n >= len)
		return n < 0 ? 0 : (int)len - 1;
	kt_cpuset_format(set, max, buf + n, len - (size_t)n);
	return (int)strlen(buf);
}

static void title(const struct kt_snapshot *sn, const struct kt_query *q, char *buf, size_t len)
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
	if (q->filter.ctx != KT_ANY && q->view != KT_VIEW_CONTEXTS && n > 0 && (size_t)n < len) {
		const struct kt_sym_ctx *c = kt_sym_ctx(s, q->filter.ctx);

		n += snprintf(buf + n, len - (size_t)n, " in %s", c ? c->label : "?");
	}
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

static void node_free(struct snap_node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		node_free(&n->kids[i]);
	free(n->kids);
	kt_result_free(&n->res);
}

static int take_level(struct kt_snapshot *sn, struct snap_node *node, int depth)
{
	struct kt_query lq = node->q, sub[2];
	size_t cap = 0;
	int r;

	/* the view itself as asked (0 = every row); the levels under it capped at --top */
	if (depth && (!lq.limit || lq.limit > sn->c.top))
		lq.limit = sn->c.top;
	r = kt_agg_query(sn->agg, &lq, &node->res);
	if (r < 0)
		return r;
	title(sn, &node->q, node->title, sizeof(node->title));
	for (size_t i = 0; i < node->res.nrows && r == 0; i++) {
		int nsub = depth < SNAP_DEPTH && i < (depth ? SNAP_EXPAND_DEEP : sn->c.top)
			       ? children(sn, &node->q, &node->res.rows[i], sub)
			       : 0;

		for (int j = 0; j < nsub && r == 0; j++) {
			struct snap_node *k;

			if (node->nkids == cap) {
				size_t ncap = cap ? cap * 2 : 8;

				k = realloc(node->kids, ncap * sizeof(*k));
				if (!k)
					return -ENOMEM;
				node->kids = k;
				cap = ncap;
			}
			k = &node->kids[node->nkids++];
			memset(k, 0, sizeof(*k));
			k->q = sub[j];
			k->row = i;
			r = take_level(sn, k, depth + 1);
		}
	}
	return r;
}

static void write_level(const struct kt_snapshot *sn, FILE *out, enum kt_format f,
			const struct snap_node *node, int depth, const char *path)
{
	const struct kt_result *res = &node->res;
	size_t k = 0;

	switch (f) {
	case KT_FORMAT_TEXT:
		fprintf(out, "\n%*s== %s (%zu of %zu rows) ==\n", depth * 2, "", node->title,
			res->nrows, res->total_rows);
		kt_rep_text_table(out, sn->agg, node->q.view, res, depth ? "    " : "");
		break;
	case KT_FORMAT_JSON:
		fputs("{\"view\":", out);
		kt_rep_json_str(out, kt_view_name(node->q.view));
		fputs(",\"title\":", out);
		kt_rep_json_str(out, node->title);
		fprintf(out, ",\"total_rows\":%zu,\"rows\":[", res->total_rows);
		break;
	default:
		break;
	}
	for (size_t i = 0; i < res->nrows; i++) {
		const struct kt_row *row = &res->rows[i];
		size_t first = k;
		char p[1024];

		while (k < node->nkids && node->kids[k].row == i)
			k++;
		snprintf(p, sizeof(p), "%s%s%s", path, *path ? "/" : "", row->name);
		if (f == KT_FORMAT_CSV) {
			fputs(kt_view_name(node->q.view), out);
			fputc(',', out);
			kt_rep_csv_str(out, path);
			fputc(',', out);
			kt_rep_csv_str(out, row->module);
			fputc(',', out);
			kt_rep_csv_str(out, row->name);
			fprintf(out, ",%llu,%.3f,%.4f,%.4f,%.3f,%d,%u\n",
				(unsigned long long)row->hits, row->ms, row->pct_kernel,
				row->pct_machine, row->per_s, row->idle ? 1 : 0, row->depth);
		}
		if (f == KT_FORMAT_JSON) {
			if (i)
				fputc(',', out);
			kt_rep_json_row_open(out, sn->agg, node->q.view, row);
			fputs(k > first ? ",\"children\":[" : "}", out);
		}
		for (size_t j = first; j < k; j++) {
			if (f == KT_FORMAT_JSON && j > first)
				fputc(',', out);
			write_level(sn, out, f, &node->kids[j], depth + 1, p);
		}
		if (f == KT_FORMAT_JSON && k > first)
			fputs("]}", out);
	}
	if (f == KT_FORMAT_JSON)
		fputs("]}", out);
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
	s.filter = q->filter;
	s.filter.text = NULL;
	return s;
}

static int take(struct kt_agg *agg, const struct kt_report_ctx *ctx, const struct kt_query *q,
		int tree, int folded, struct kt_snapshot **out)
{
	struct kt_snapshot *sn = calloc(1, sizeof(*sn));
	int r = 0;

	*out = NULL;
	if (!sn)
		return -ENOMEM;
	sn->agg = agg;
	sn->c = *ctx;
	/* the /proc view lives only until the next refresh: a snapshot written later has none */
	sn->c.ps = NULL;
	sn->c.filter.text = NULL; /* the caller's buffer: not kept */
	sn->c.annotate_text = NULL;
	if (ctx->annotate_text && !(sn->annot = strdup(ctx->annotate_text))) {
		free(sn);
		return -ENOMEM;
	}
	sn->c.filter.cpuset = NULL;
	if (!sn->c.top)
		sn->c.top = 30;
	sn->stacks = kt_window_nstacks(kt_agg_window(agg)) > 0;
	kt_agg_summary(agg, &q->filter, &sn->sum);
	sn->root.q = *q;
	if (tree) {
		sn->have_tree = 1;
		r = take_level(sn, &sn->root, 0);
	}
	if (r == 0 && folded) {
		struct kt_query fq = folded_sel(q);

		sn->have_folded = 1;
		r = kt_agg_query(agg, &fq, &sn->folded);
	}
	/* the queries are done: no pointer into the caller's filter is kept */
	sn->root.q.filter.text = NULL;
	sn->root.q.filter.cpuset = NULL;
	if (r < 0) {
		kt_report_snapshot_free(sn);
		return r;
	}
	*out = sn;
	return 0;
}

int kt_report_snapshot_take(struct kt_agg *agg, const struct kt_report_ctx *ctx,
			    const struct kt_query *q, struct kt_snapshot **out)
{
	return take(agg, ctx, q, 1, 1, out);
}

void kt_report_snapshot_free(struct kt_snapshot *sn)
{
	if (!sn)
		return;
	node_free(&sn->root);
	kt_result_free(&sn->folded);
	free(sn->annot);
	free(sn);
}

static void write_folded(const struct kt_snapshot *sn, FILE *out)
{
	for (size_t i = 0; i < sn->folded.nrows; i++) {
		const struct kt_row *row = &sn->folded.rows[i];

		for (uint32_t j = row->nframes; j-- > 0;) {
			kt_rep_folded_frame(out, sn->agg, row->frames[j]);
			if (j)
				fputc(';', out);
		}
		fprintf(out, " %llu\n", (unsigned long long)row->hits);
	}
}

int kt_report_snapshot_write(const char *path, const struct kt_snapshot *sn, enum kt_format f,
			     uint64_t report_no, char *err, size_t errlen)
{
	struct kt_atomic a;
	struct kt_report_ctx c = sn->c;
	int r;

	c.report_no = report_no;
	if ((f == KT_FORMAT_FOLDED && !sn->have_folded) ||
	    (f != KT_FORMAT_FOLDED && !sn->have_tree)) {
		snprintf(err, errlen, "%s: the snapshot was taken without that format", path);
		return -EINVAL;
	}
	c.format = f;
	r = kt_atomic_open(&a, path, err, errlen);
	if (r < 0)
		return r;
	switch (f) {
	case KT_FORMAT_TEXT:
		kt_rep_text_header(a.fp, &c, &sn->sum);
		if (sn->annot)
			fputs(sn->annot, a.fp);
		write_level(sn, a.fp, f, &sn->root, 0, "");
		break;
	case KT_FORMAT_JSON:
		kt_rep_json_header(a.fp, &c, &sn->sum);
		fputs(",\"snapshot\":", a.fp);
		write_level(sn, a.fp, f, &sn->root, 0, "");
		fputs("}\n", a.fp);
		break;
	case KT_FORMAT_CSV:
		fputs("view,parent,module,name,hits,ms,pct,pct_machine,per_s,idle,depth\n", a.fp);
		write_level(sn, a.fp, f, &sn->root, 0, "");
		break;
	case KT_FORMAT_FOLDED:
		write_folded(sn, a.fp);
		break;
	}
	return kt_atomic_commit(&a, err, errlen);
}

int kt_report_snapshot(const char *path, struct kt_agg *agg, const struct kt_report_ctx *ctx,
		       const struct kt_query *q, char *err, size_t errlen)
{
	struct kt_snapshot *sn;
	int r;

	r = take(agg, ctx, q, ctx->format != KT_FORMAT_FOLDED, ctx->format == KT_FORMAT_FOLDED,
		 &sn);
	if (r < 0) {
		snprintf(err, errlen, "%s: snapshot query failed (%s)", path, strerror(-r));
		return r;
	}
	r = kt_report_snapshot_write(path, sn, ctx->format, ctx->report_no, err, errlen);
	kt_report_snapshot_free(sn);
	return r;
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
