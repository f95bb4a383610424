/* Batch reports: one report of the whole machine (summary, modules, top functions, CPUs,
 * the --zoom module's functions, hottest stacks) as KernRate-like text, one-line JSON,
 * CSV or folded stacks. The schema is documented in docs/report-format.md. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "report_impl.h"

static const char *row_module(const struct kt_row *r)
{
	return r->idle ? "[idle]" : (r->module ? r->module : "");
}

/* Names as a terminal may show them (kt_rep_safe), two per line at most. */
#define SAFE(x) kt_rep_safe((x), safe1, sizeof(safe1))
#define SAFE2(x) kt_rep_safe((x), safe2, sizeof(safe2))

/* The baseline's columns of a text row (docs/history.md): "" without a baseline. */
static const char *base_cells(const struct kt_row *r, int on, char *buf, size_t len)
{
	char ratio[32];

	buf[0] = 0;
	if (!on)
		return buf;
	if (r->base_state == KT_BASE_NEW)
		snprintf(ratio, sizeof(ratio), "new");
	else if (r->base_state == KT_BASE_GONE)
		snprintf(ratio, sizeof(ratio), "gone");
	else
		snprintf(ratio, sizeof(ratio), "%.2fx", r->rate_ratio);
	snprintf(buf, len, " %+9.2f %8s", r->delta_pct, ratio);
	return buf;
}

void kt_rep_text_table(FILE *out, struct kt_agg *agg, enum kt_view v, const struct kt_result *res,
		       const char *indent)
{
	char safe1[KT_REP_SAFE_LEN], safe2[KT_REP_SAFE_LEN], bc[64];
	int bon = kt_agg_baseline(agg) && v != KT_VIEW_LINES;
	const char *bh = bon ? "  Delta pp    Ratio" : "";
	int w = kt_rep_name_width(res->rows, res->nrows, 8, 48);
	double cpucap = res->sum.covered_s * res->sum.freq_hz;

	switch (v) {
	case KT_VIEW_MODULES:
		fprintf(out, "%s%-*s %10s %11s %7s %10s%s\n", indent, w, "Module", "Hits", "msec",
			"%Total", "Hits/s", bh);
		for (size_t i = 0; i < res->nrows; i++) {
			const struct kt_row *r = &res->rows[i];

			fprintf(out, "%s%-*s %10llu %11.1f %6.2f%% %10.1f%s\n", indent, w,
				SAFE(r->name), (unsigned long long)r->hits, r->ms, r->pct_kernel,
				r->per_s, base_cells(r, bon, bc, sizeof(bc)));
		}
		break;
	case KT_VIEW_FUNCS:
	case KT_VIEW_LINES:
		fprintf(out, "%s%-*s %10s %11s %7s %7s %10s%s\n", indent, w,
			v == KT_VIEW_FUNCS ? "Function" : "Line", "Hits", "msec", "%Total",
			v == KT_VIEW_FUNCS ? "%Module" : "%Func", "Hits/s", bh);
		for (size_t i = 0; i < res->nrows; i++) {
			const struct kt_row *r = &res->rows[i];

			fprintf(out, "%s%-*s %10llu %11.1f %6.2f%% %6.2f%% %10.1f%s%s\n", indent, w,
				SAFE(r->name), (unsigned long long)r->hits, r->ms, r->pct_kernel,
				r->pct_parent, r->per_s, base_cells(r, bon, bc, sizeof(bc)),
				r->idle && v == KT_VIEW_FUNCS ? "  idle" : "");
		}
		break;
	case KT_VIEW_TOPFUNCS: {
		int mw = 6;

		for (size_t i = 0; i < res->nrows; i++)
			if ((int)strlen(row_module(&res->rows[i])) > mw)
				mw = (int)strlen(row_module(&res->rows[i]));
		fprintf(out, "%s%-*s %-*s %10s %11s %7s %10s%s\n", indent, w, "Function", mw,
			"Module", "Hits", "msec", "%Total", "Hits/s", bh);
		for (size_t i = 0; i < res->nrows; i++) {
			const struct kt_row *r = &res->rows[i];

			fprintf(out, "%s%-*s %-*s %10llu %11.1f %6.2f%% %10.1f%s\n", indent, w,
				SAFE(r->name), mw, SAFE2(row_module(r)), (unsigned long long)r->hits, r->ms,
				r->pct_kernel, r->per_s, base_cells(r, bon, bc, sizeof(bc)));
		}
		break;
	}
	case KT_VIEW_CPUS:
		fprintf(out, "%s%-6s %10s %10s %10s %10s %6s%s  %-16s %s\n", indent, "CPU", "Hits",
			"Kernel", "User", "Idle", "%Busy", bh, "Top module", "Top function");
		for (size_t i = 0; i < res->nrows; i++) {
			const struct kt_row *r = &res->rows[i];

			fprintf(
			    out, "%s%-6s %10llu %10llu %10llu %10llu %5.1f%%%s  %-16s %s\n", indent,
			    r->name, (unsigned long long)r->hits, (unsigned long long)r->kernel,
			    (unsigned long long)r->user, (unsigned long long)r->idle_hits,
			    cpucap > 0 ? (double)r->kernel / cpucap * 100.0 : 0,
			    base_cells(r, bon, bc, sizeof(bc)),
			    r->top_module ? SAFE(r->top_module) : "-",
			    r->top_func ? SAFE2(r->top_func) : "-");
		}
		break;
	case KT_VIEW_TASKS:
		fprintf(out, "%s%8s %8s %-*s %10s %11s %7s %10s%s\n", indent, "PID", "TID", w, "Task",
			"Hits", "msec", "%Total", "Hits/s", bh);
		for (size_t i = 0; i < res->nrows; i++) {
			const struct kt_row *r = &res->rows[i];

			fprintf(out, "%s%8d %8d %-*s %10llu %11.1f %6.2f%% %10.1f%s\n", indent,
				r->pid, r->tid, w, SAFE(r->name), (unsigned long long)r->hits, r->ms,
				r->pct_kernel, r->per_s, base_cells(r, bon, bc, sizeof(bc)));
		}
		break;
	case KT_VIEW_CALLERS:
	case KT_VIEW_CALLEES:
		fprintf(out, "%s%10s %7s  %s\n", indent, "Hits", "%Func",
			v == KT_VIEW_CALLERS ? "Function <- callers" : "Function -> callees");
		for (size_t i = 0; i < res->nrows; i++) {
			const struct kt_row *r = &res->rows[i];

			fprintf(out, "%s%10llu %6.2f%%  %*s%s [%s]\n", indent,
				(unsigned long long)r->hits, r->pct_parent, (int)r->depth * 2, "",
				SAFE(r->name), r->module ? SAFE2(r->module) : "?");
		}
		break;
	case KT_VIEW_CONTEXTS:
		fprintf(out, "%s%-*s %10s %11s %7s %9s %10s%s\n", indent, w, "Context", "Hits",
			"msec", "%Total", "%Machine", "Hits/s", bh);
		for (size_t i = 0; i < res->nrows; i++) {
			const struct kt_row *r = &res->rows[i];

			fprintf(out, "%s%-*s %10llu %11.1f %6.2f%% %8.2f%% %10.1f%s\n", indent, w,
				SAFE(r->name), (unsigned long long)r->hits, r->ms, r->pct_kernel,
				r->pct_machine, r->per_s, base_cells(r, bon, bc, sizeof(bc)));
		}
		break;
	case KT_VIEW_STACKS:
		fprintf(out, "%s%10s %7s  %s\n", indent, "Hits", "%Total", "Stack (root first)");
		for (size_t i = 0; i < res->nrows; i++) {
			const struct kt_row *r = &res->rows[i];

			fprintf(out, "%s%10llu %6.2f%%  ", indent, (unsigned long long)r->hits,
				r->pct_kernel);
			for (uint32_t j = r->nframes; j-- > 0;) {
				kt_rep_folded_frame(out, agg, r->frames[j]);
				if (j)
					fputc(';', out);
			}
			fputc('\n', out);
		}
		break;
	}
}

static void jfield(FILE *out, const char *k, double v)
{
	fprintf(out, ",\"%s\":", k);
	kt_rep_json_num(out, v);
}

static void jstr(FILE *out, const char *k, const char *v)
{
	fprintf(out, ",\"%s\":", k);
	kt_rep_json_str(out, v);
}

void kt_rep_json_row_open(FILE *out, struct kt_agg *agg, enum kt_view v, const struct kt_row *r)
{
	switch (v) {
	case KT_VIEW_MODULES:
		fputs("{\"name\":", out);
		kt_rep_json_str(out, r->name);
		break;
	case KT_VIEW_FUNCS:
	case KT_VIEW_TOPFUNCS:
	case KT_VIEW_LINES:
		fputs("{\"module\":", out);
		kt_rep_json_str(out, r->module);
		jstr(out, "name", r->name);
		break;
	case KT_VIEW_CPUS:
		fprintf(out, "{\"cpu\":%u", r->id);
		break;
	case KT_VIEW_TASKS:
		fprintf(out, "{\"pid\":%d,\"tid\":%d", r->pid, r->tid);
		jstr(out, "comm", r->name);
		break;
	case KT_VIEW_CALLERS:
	case KT_VIEW_CALLEES:
		fputs("{\"name\":", out);
		kt_rep_json_str(out, r->name);
		jstr(out, "module", r->module);
		fprintf(out, ",\"depth\":%u,\"parent\":%d", r->depth, r->parent);
		break;
	case KT_VIEW_CONTEXTS: {
		const struct kt_sym_ctx *x = kt_sym_ctx(kt_agg_symbols(agg), r->id);

		fputs("{\"kind\":", out);
		kt_rep_json_str(out, kt_ctx_kind_name(r->ctx_kind));
		jstr(out, "name", x ? x->name : "");
		break;
	}
	case KT_VIEW_STACKS:
		fputs("{\"frames\":[", out);
		for (uint32_t j = r->nframes; j-- > 0;) {
			fputc('"', out);
			kt_rep_folded_frame(out, agg, r->frames[j]);
			fputc('"', out);
			if (j)
				fputc(',', out);
		}
		fputc(']', out);
		break;
	}
	fprintf(out, ",\"hits\":%llu", (unsigned long long)r->hits);
	if (v == KT_VIEW_CPUS)
		fprintf(out, ",\"kernel\":%llu,\"user\":%llu,\"idle\":%llu",
			(unsigned long long)r->kernel, (unsigned long long)r->user,
			(unsigned long long)r->idle_hits);
	jfield(out, "ms", r->ms);
	jfield(out, "pct", r->pct_kernel);
	jfield(out, "pct_machine", r->pct_machine);
	jfield(out, "per_s", r->per_s);
	if (v == KT_VIEW_FUNCS)
		jfield(out, "pct_module", r->pct_parent);
	if (v == KT_VIEW_LINES)
		jfield(out, "pct_function", r->pct_parent);
	if (v == KT_VIEW_CALLERS || v == KT_VIEW_CALLEES)
		jfield(out, "pct_function", r->pct_parent);
	if (v == KT_VIEW_CPUS) {
		jstr(out, "top_module", r->top_module);
		jstr(out, "top_function", r->top_func);
	} else if (v != KT_VIEW_TASKS && v != KT_VIEW_CONTEXTS) {
		fprintf(out, ",\"idle\":%s", r->idle ? "true" : "false");
	}
	if ((v == KT_VIEW_TOPFUNCS || v == KT_VIEW_FUNCS) && r->irq_helper)
		fputs(",\"irq_helper\":true", out);
	kt_rep_json_base(out, r);
}

/* A row's baseline fields (docs/history.md): nothing without a baseline. */
void kt_rep_json_base(FILE *out, const struct kt_row *r)
{
	static const char *const state[] = {"", "both", "new", "gone"};

	if (r->base_state == KT_BASE_NONE || r->base_state > KT_BASE_GONE)
		return;
	jfield(out, "delta_pct", r->delta_pct);
	if (isfinite(r->rate_ratio))
		jfield(out, "rate_ratio", r->rate_ratio);
	else
		fputs(",\"rate_ratio\":null", out);
	fprintf(out, ",\"baseline_hits\":%llu,\"baseline_state\":\"%s\"",
		(unsigned long long)r->base_hits, state[r->base_state]);
}

void kt_rep_json_row(FILE *out, struct kt_agg *agg, enum kt_view v, const struct kt_row *r)
{
	kt_rep_json_row_open(out, agg, v, r);
	fputc('}', out);
}

static void json_rows(FILE *out, struct kt_agg *agg, const char *key, enum kt_view v,
		      const struct kt_result *res)
{
	fprintf(out, ",\"%s\":[", key);
	for (size_t i = 0; i < res->nrows; i++) {
		if (i)
			fputc(',', out);
		kt_rep_json_row(out, agg, v, &res->rows[i]);
	}
	fputc(']', out);
}

/* "contexts": [{kind, name, hits, pct}], pct of every hit under the filter. */
static void json_ctx_rows(FILE *out, const struct kt_result *res)
{
	fputs(",\"contexts\":[", out);
	for (size_t i = 0; i < res->nrows; i++) {
		const struct kt_row *r = &res->rows[i];
		const char *label = r->name ? r->name : "", *sp = strchr(label, ' ');

		fputs(i ? ",{\"kind\":" : "{\"kind\":", out);
		kt_rep_json_str(out, kt_ctx_kind_name(r->ctx_kind));
		jstr(out, "name", sp ? sp + 1 : "");
		fprintf(out, ",\"hits\":%llu", (unsigned long long)r->hits);
		jfield(out, "pct", r->pct_kernel);
		jfield(out, "ms", r->ms);
		jfield(out, "per_s", r->per_s);
		kt_rep_json_base(out, r);
		fputc('}', out);
	}
	fputc(']', out);
}

void kt_rep_json_header(FILE *out, const struct kt_report_ctx *c, const struct kt_summary *s)
{
	fprintf(out, "{\"version\":%d,\"report\":%llu", KT_REPORT_VERSION,
		(unsigned long long)c->report_no);
	jfield(out, "time", c->time_s);
	jfield(out, "unix_time", kt_rep_unix_time(c));
	jstr(out, "source", c->source ? c->source : "live");
	jstr(out, "path", c->path);
	jstr(out, "event", c->event);
	jfield(out, "freq_hz", c->freq_hz);
	jfield(out, "ms_per_hit", s->ms_per_hit);
	jfield(out, "window_s", c->window_s);
	jfield(out, "covered_s", s->covered_s);
	fprintf(out, ",\"cumulative\":%s", s->cumulative ? "true" : "false");
	fprintf(out, ",\"cpus\":%u", c->ncpus);
	fprintf(out, ",\"samples\":%llu,\"kernel\":%llu,\"user\":%llu,\"idle\":%llu,\"lost\":%llu",
		(unsigned long long)s->samples, (unsigned long long)s->kernel,
		(unsigned long long)s->user, (unsigned long long)s->idle,
		(unsigned long long)s->lost);
	fprintf(out, ",\"throttled\":%llu,\"skipped\":%llu", (unsigned long long)c->throttled,
		(unsigned long long)c->skipped);
	jfield(out, "busy_pct", s->busy_pct);
	jfield(out, "idle_pct", s->idle_pct);
	jfield(out, "user_pct", s->user_pct);
	fprintf(out, ",\"user_sampled\":%s", s->user_sampled ? "true" : "false");
	jfield(out, "unsampled_pct", s->unsampled_pct);
	jfield(out, "samples_per_s", s->samples_per_s);
	fprintf(out, ",\"irq_owner\":%s", s->irq_owner ? "true" : "false");
	jfield(out, "irq_helper_pct",
	       s->kernel ? (double)s->irq_helper / (double)s->kernel * 100.0 : 0);
	{
		char note[KT_REPORT_NOTICE_LEN];

		if (kt_report_irq_notice(s, c->event, c->stacks, note, sizeof(note)))
			jstr(out, "notice", note);
	}
	if (c->push) {
		fprintf(out, ",\"push\":{\"sent\":%llu,\"failed\":%llu,\"dropped\":%llu",
			(unsigned long long)c->push_sent, (unsigned long long)c->push_failed,
			(unsigned long long)c->push_dropped);
		jstr(out, "last_error", c->push_error && *c->push_error ? c->push_error : NULL);
		fputc('}', out);
	}
}

/* Clock events fire from an hrtimer, which waits while interrupts are off. */
static int clock_event(const char *event)
{
	return event && (!strcmp(event, "cpu-clock") || !strcmp(event, "task-clock"));
}

int kt_report_irq_notice(const struct kt_summary *s, const char *event, int stacks, char *buf,
			 size_t len)
{
	double pct = s->kernel ? (double)s->irq_helper / (double)s->kernel * 100.0 : 0;

	stacks = stacks || s->stacked; /* a replay's chains count as -g */
	if (!clock_event(event) || pct <= KT_IRQ_NOTICE_PCT) {
		if (len)
			buf[0] = 0;
		return 0;
	}
	if (s->irq_owner)
		snprintf(buf, len,
			 "%.0f%% of kernel hits landed in IRQ-enabling helpers (%s waits while "
			 "IRQs are off); --irq-owner charges them to their callers",
			 pct, event);
	else
		snprintf(buf, len,
			 "%.0f%% of kernel hits are in IRQ-enabling helpers: %s cannot fire with "
			 "IRQs off, so IRQ-off work lands there; %s",
			 pct, event,
			 stacks
			     ? "--irq-owner (key o) charges it to the callers"
			     : "-g with --irq-owner charges it to the callers, or use -e cycles");
	return 1;
}

/* The stacks of one context (or of all, ctx KT_ANY), under the root frame "[root]" when
 * root is not NULL. */
static int folded_stacks(FILE *out, struct kt_agg *agg, const struct kt_report_ctx *c,
			 const struct kt_query *sel, uint32_t ctx, const char *root)
{
	struct kt_query q = {.view = KT_VIEW_STACKS, .module = KT_ANY, .func = KT_ANY};
	struct kt_result res = {0};
	int r;

	q.filter = c->filter;
	if (ctx != KT_ANY)
		q.filter.ctx = ctx;
	q.filter.text = NULL;
	if (sel) {
		q.module = sel->module;
		q.func = sel->func;
	}
	r = kt_agg_query(agg, &q, &res);
	for (size_t i = 0; r == 0 && i < res.nrows; i++) {
		const struct kt_row *row = &res.rows[i];

		if (root)
			fprintf(out, "[%s];", root);
		for (uint32_t j = row->nframes; j-- > 0;) {
			kt_rep_folded_frame(out, agg, row->frames[j]);
			if (j)
				fputc(';', out);
		}
		fprintf(out, " %llu\n", (unsigned long long)row->hits);
	}
	kt_result_free(&res);
	return r;
}

int kt_rep_folded(FILE *out, struct kt_agg *agg, const struct kt_report_ctx *c,
		  const struct kt_query *sel)
{
	struct kt_query q = {.view = KT_VIEW_CONTEXTS, .module = KT_ANY, .func = KT_ANY};
	struct kt_result ctxs = {0};
	int r;

	if (!c->folded_context)
		return folded_stacks(out, agg, c, sel, KT_ANY, NULL);
	/* one stacks query per context: the rows keep their hottest-first order inside each */
	q.filter = c->filter;
	q.filter.text = NULL;
	r = kt_agg_query(agg, &q, &ctxs);
	for (size_t i = 0; r == 0 && i < ctxs.nrows; i++)
		r = folded_stacks(out, agg, c, sel, ctxs.rows[i].id, ctxs.rows[i].name);
	kt_result_free(&ctxs);
	return r;
}

static void csv_rows(FILE *out, struct kt_agg *agg, const struct kt_report_ctx *c, const char *kind,
		     enum kt_view v, const struct kt_result *res)
{
	for (size_t i = 0; i < res->nrows; i++) {
		const struct kt_row *r = &res->rows[i];

		fprintf(out, "%llu,%.3f,%s,", (unsigned long long)c->report_no, c->time_s, kind);
		if (v == KT_VIEW_CONTEXTS) {
			const struct kt_sym_ctx *x = kt_sym_ctx(kt_agg_symbols(agg), r->id);

			kt_rep_csv_str(out, kt_ctx_kind_name(r->ctx_kind));
			fputc(',', out);
			kt_rep_csv_str(out, x ? x->name : "");
		} else {
			kt_rep_csv_str(out, v == KT_VIEW_MODULES ? r->name : r->module);
			fputc(',', out);
			kt_rep_csv_str(out, v == KT_VIEW_MODULES ? "" : r->name);
		}
		fprintf(out, ",%llu,%.3f,%.4f,%.4f,%.3f,%d", (unsigned long long)r->hits, r->ms,
			r->pct_kernel, r->pct_machine, r->per_s, r->idle ? 1 : 0);
		if (kt_agg_baseline(agg)) {
			if (r->base_state == KT_BASE_NONE)
				fputs(",,", out);
			else if (isfinite(r->rate_ratio))
				fprintf(out, ",%.4f,%.4f", r->delta_pct, r->rate_ratio);
			else
				fprintf(out, ",%.4f,", r->delta_pct);
		}
		fputc('\n', out);
	}
}

/* Resolves --zoom; a name that is no module gets the near names in the message. */
static int zoom_module(struct kt_agg *agg, const char *zoom, uint32_t *id, char *err, size_t errlen)
{
	char near[256], safe1[KT_REP_SAFE_LEN], safe2[KT_REP_SAFE_LEN];

	if (kt_agg_module_find(agg, zoom, id, near, sizeof(near)) == 0)
		return 0;
	/* the module names come from kallsyms or a recording: no escapes reach stderr */
	if (near[0])
		snprintf(err, errlen, "--zoom %.100s: no such module; did you mean: %s",
			 SAFE(zoom), SAFE2(near));
	else {
		struct kt_symbols *s = kt_agg_symbols(agg);
		size_t used = 0;

		for (uint32_t i = 0; i < kt_sym_nmodules(s) && i < 12 && used + 40 < sizeof(near);
		     i++)
			used += (size_t)snprintf(near + used, sizeof(near) - used, "%s%s",
						 used ? ", " : "", kt_agg_module_name(agg, i));
		snprintf(err, errlen,
			 "--zoom %.100s: no such module; known modules include: %s, [idle]",
			 SAFE(zoom), SAFE2(near));
	}
	return -ENOENT;
}

int kt_report_zoom_check(struct kt_agg *agg, const char *const *zoom, unsigned nzoom, char *err,
			 size_t errlen)
{
	uint32_t id;

	for (unsigned i = 0; i < nzoom; i++)
		if (zoom_module(agg, zoom[i], &id, err, errlen) < 0)
			return -ENOENT;
	return 0;
}

/* The function table of each --zoom module, in command-line order. */
struct zooms {
	unsigned n;
	uint32_t id[KT_REPORT_MAX_ZOOM];
	struct kt_result *res; /* KT_REPORT_MAX_ZOOM */
};

static int zoom_query(struct kt_agg *agg, const struct kt_report_ctx *c, struct zooms *z)
{
	struct kt_query q = {.view = KT_VIEW_FUNCS, .func = KT_ANY, .sort = KT_SORT_HITS};
	int r = 0;

	q.filter = c->filter;
	q.limit = c->top;
	for (unsigned i = 0; i < z->n && !r; i++) {
		q.module = z->id[i];
		r = kt_agg_query(agg, &q, &z->res[i]);
	}
	return r;
}

static void zoom_text(FILE *out, struct kt_agg *agg, uint32_t zid, const struct kt_result *zoom)
{
	struct kt_symbols *s = kt_agg_symbols(agg);
	const struct kt_sym_module *m = kt_sym_module(s, zid);

	char safe1[KT_REP_SAFE_LEN];

	fprintf(out, "\nZoom: %s (%zu functions with hits%s, bucket size %u bytes)\n",
		SAFE(kt_agg_module_name(agg, zid)), zoom->total_rows,
		m && !m->nfuncs && zid != KT_AGG_IDLE_MODULE ? ", no symbols: address buckets" : "",
		kt_sym_bucket(s));
	kt_rep_text_table(out, agg, KT_VIEW_FUNCS, zoom, "");
}

static void zoom_json(FILE *out, struct kt_agg *agg, uint32_t zid, const struct kt_result *zoom)
{
	fputs("{\"module\":", out);
	kt_rep_json_str(out, kt_agg_module_name(agg, zid));
	fprintf(out, ",\"bucket\":%u,\"total_rows\":%zu", kt_sym_bucket(kt_agg_symbols(agg)),
		zoom->total_rows);
	json_rows(out, agg, "functions", KT_VIEW_FUNCS, zoom);
	fputc('}', out);
}

void kt_report_results_free(struct kt_report_results *k)
{
	kt_result_free(&k->mods);
	kt_result_free(&k->funcs);
	kt_result_free(&k->cpus);
	for (unsigned i = 0; i < KT_REPORT_MAX_ZOOM; i++)
		kt_result_free(&k->zoom[i]);
	kt_result_free(&k->stacks);
	kt_result_free(&k->ctxs);
	memset(k, 0, sizeof(*k));
}

/* The CPU query of kt_report_write. */
static void cpus_query(const struct kt_report_ctx *c, struct kt_query *q)
{
	*q = (struct kt_query){.view = KT_VIEW_CPUS, .module = KT_ANY, .func = KT_ANY,
			       .sort = KT_SORT_NAME, .filter = c->filter};
}

void kt_report_expect(struct kt_agg *agg, const struct kt_report_ctx *c)
{
	struct kt_query q;

	if (c->format == KT_FORMAT_FOLDED || c->format == KT_FORMAT_PPROF)
		return; /* no CPU table */
	cpus_query(c, &q);
	kt_agg_expect(agg, &q);
	if (c->stacks) {
		q = (struct kt_query){.view = KT_VIEW_STACKS, .module = KT_ANY, .func = KT_ANY,
				      .filter = c->filter, .limit = c->top};
		kt_agg_expect(agg, &q);
	}
}

int kt_report_write(FILE *out, struct kt_agg *agg, const struct kt_report_ctx *c, char *err,
		    size_t errlen)
{
	struct kt_report_results local = {0}, *k = c->keep ? c->keep : &local;
	struct kt_result *mods = &k->mods, *funcs = &k->funcs, *cpus = &k->cpus;
	struct kt_result *stacks = &k->stacks, *ctxs = &k->ctxs;
	struct kt_query q = {.module = KT_ANY, .func = KT_ANY};
	struct kt_summary sum;
	struct zooms z = {.res = k->zoom};
	int r = 0;

	for (unsigned i = 0; i < c->nzoom && i < KT_REPORT_MAX_ZOOM; i++, z.n++)
		if (zoom_module(agg, c->zoom[i], &z.id[i], err, errlen) < 0)
			return -ENOENT;
	if (c->format == KT_FORMAT_FOLDED) {
		r = kt_rep_folded(out, agg, c, NULL);
		if (r < 0)
			snprintf(err, errlen, "stack query failed (%s)", strerror(-r));
		goto done;
	}
	kt_agg_summary(agg, &c->filter, &sum);
	if (kt_rep_ps_idle_from_stat(c)) {
		/* cycles stop on an idle CPU: only the kernel's own accounting knows the split */
		const double *p = c->ps->pct;

		sum.busy_pct = p[KT_PS_SYSTEM] + p[KT_PS_IRQ] + p[KT_PS_SOFTIRQ];
		sum.idle_pct = p[KT_PS_IDLE] + p[KT_PS_IOWAIT];
		sum.user_pct = p[KT_PS_USER] + p[KT_PS_NICE];
		sum.unsampled_pct = sum.user_pct;
	}
	q.filter = c->filter;
	q.limit = c->top;
	q.view = KT_VIEW_MODULES;
	r = kt_agg_query(agg, &q, mods);
	q.view = KT_VIEW_TOPFUNCS;
	if (!r)
		r = kt_agg_query(agg, &q, funcs);
	if (!r) {
		struct kt_query cq;

		cpus_query(c, &cq);
		r = kt_agg_query(agg, &cq, cpus);
	}
	if (!r)
		r = zoom_query(agg, c, &z);
	if (!r && c->stacks) {
		q.view = KT_VIEW_STACKS;
		r = kt_agg_query(agg, &q, stacks);
	}
	/* every context: their shares add up to 100 */
	q.view = KT_VIEW_CONTEXTS;
	q.limit = 0;
	if (!r)
		r = kt_agg_query(agg, &q, ctxs);
	if (r) {
		snprintf(err, errlen, "report query failed (%s)", strerror(-r));
		goto done;
	}
	switch (c->format) {
	case KT_FORMAT_TEXT:
		kt_rep_text_header(out, c, &sum);
		kt_rep_ps_text_header(out, c);
		fputs("\n", out);
		kt_rep_text_table(out, agg, KT_VIEW_MODULES, mods, "");
		fputs("\nTop functions\n", out);
		kt_rep_text_table(out, agg, KT_VIEW_TOPFUNCS, funcs, "");
		fputs("\nCPUs\n", out);
		kt_rep_text_table(out, agg, KT_VIEW_CPUS, cpus, "");
		kt_rep_ps_text_cpus(out, c);
		for (unsigned i = 0; i < z.n; i++)
			zoom_text(out, agg, z.id[i], &z.res[i]);
		if (c->stacks) {
			fputs("\nContexts\n", out);
			kt_rep_text_table(out, agg, KT_VIEW_CONTEXTS, ctxs, "");
			fputs("\nHottest stacks\n", out);
			kt_rep_text_table(out, agg, KT_VIEW_STACKS, stacks, "");
		}
		r = kt_rep_annotate(out, agg, c);
		fputs("\n", out);
		break;
	case KT_FORMAT_JSON:
		kt_rep_json_header(out, c, &sum);
		if (kt_agg_baseline(agg)) {
			const struct kt_baseline *b = kt_agg_baseline(agg);

			fputs(",\"baseline\":{\"source\":", out);
			kt_rep_json_str(out, kt_baseline_source(b));
			fprintf(out, ",\"samples\":%llu", (unsigned long long)kt_baseline_samples(b));
			jfield(out, "covered_s", kt_baseline_covered(b));
			fputc('}', out);
		}
		kt_rep_ps_json_header(out, c);
		json_rows(out, agg, "modules", KT_VIEW_MODULES, mods);
		json_rows(out, agg, "functions", KT_VIEW_TOPFUNCS, funcs);
		fputs(",\"cpu\":[", out);
		for (size_t i = 0; i < cpus->nrows; i++) {
			fputs(i ? "," : "", out);
			kt_rep_json_row_open(out, agg, KT_VIEW_CPUS, &cpus->rows[i]);
			kt_rep_ps_json_cpu(out, c, cpus->rows[i].id);
			fputc('}', out);
		}
		fputc(']', out);
		/* "zoom" is the first -z module; "zooms" lists every one, in order */
		if (z.n) {
			fputs(",\"zoom\":", out);
			zoom_json(out, agg, z.id[0], &z.res[0]);
			fputs(",\"zooms\":[", out);
			for (unsigned i = 0; i < z.n; i++) {
				if (i)
					fputc(',', out);
				zoom_json(out, agg, z.id[i], &z.res[i]);
			}
			fputc(']', out);
		}
		if (c->stacks)
			json_rows(out, agg, "stacks", KT_VIEW_STACKS, stacks);
		json_ctx_rows(out, ctxs);
		r = kt_rep_annotate(out, agg, c);
		fputs("}\n", out);
		break;
	case KT_FORMAT_CSV:
		if (c->report_no <= 1)
			fputs(kt_agg_baseline(agg)
				  ? "report,time,kind,module,name,hits,ms,pct,pct_machine,per_s,idle,"
				    "delta_pct,rate_ratio\n"
				  : "report,time,kind,module,name,hits,ms,pct,pct_machine,per_s,idle\n",
			      out);
		csv_rows(out, agg, c, "module", KT_VIEW_MODULES, mods);
		csv_rows(out, agg, c, "function", KT_VIEW_TOPFUNCS, funcs);
		for (unsigned i = 0; i < z.n; i++)
			csv_rows(out, agg, c, "zoom", KT_VIEW_FUNCS, &z.res[i]);
		if (c->stacks)
			csv_rows(out, agg, c, "context", KT_VIEW_CONTEXTS, ctxs);
		kt_rep_ps_csv(out, c);
		break;
	case KT_FORMAT_FOLDED:
	case KT_FORMAT_PPROF: /* written by kt_report_pprof, from the window */
		break;
	}
	if (r == -ENOMEM)
		snprintf(err, errlen,
			 "annotate: out of memory; free memory or raise the limit (ulimit -v)");
done:
	if (!c->keep)
		kt_report_results_free(&local);
	if (!r && ferror(out)) {
		int e = errno ? errno : EIO;

		snprintf(err, errlen, "writing the report failed (%s)", strerror(e));
		return -e;
	}
	return r;
}
