/* Baselines (docs/history.md): the hits of every row at another time, keyed by name so that
 * a window, a recording, perf script text or a JSON report of another run compare with now.
 * A query with a baseline set gives each flat row its change in share (percentage points)
 * and in rate, and adds the rows that vanished. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "agg_impl.h"
#include "kerntop/util.h"

struct bent {
	uint8_t view; /* canonical: KT_VIEW_TOPFUNCS for functions */
	uint8_t idle;
	uint8_t seen; /* matched by a row of the query in progress */
	char *key;    /* "name", "module\x1fname", "comm\x1fPID/TID" */
	uint64_t hits;
};

struct kt_baseline {
	char source[256];
	uint64_t samples, idle;
	double covered_s;
	struct bent *e;
	uint32_t n, cap;
	int sorted;
};

static enum kt_view canon(enum kt_view v)
{
	return v == KT_VIEW_FUNCS ? KT_VIEW_TOPFUNCS : v;
}

static int supported(enum kt_view v)
{
	v = canon(v);
	return v == KT_VIEW_MODULES || v == KT_VIEW_TOPFUNCS || v == KT_VIEW_CPUS ||
	       v == KT_VIEW_TASKS || v == KT_VIEW_CONTEXTS;
}

static void make_key(char *buf, size_t len, const char *module, const char *name)
{
	if (module)
		snprintf(buf, len, "%s\x1f%s", module, name ? name : "");
	else
		snprintf(buf, len, "%s", name ? name : "");
}

int kt_baseline_new(const char *source, struct kt_baseline **out)
{
	struct kt_baseline *b = calloc(1, sizeof(*b));

	*out = NULL;
	if (!b)
		return -ENOMEM;
	snprintf(b->source, sizeof(b->source), "%s", source ? source : "");
	*out = b;
	return 0;
}

void kt_baseline_free(struct kt_baseline *b)
{
	if (!b)
		return;
	for (uint32_t i = 0; i < b->n; i++)
		free(b->e[i].key);
	free(b->e);
	free(b);
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct bent *x = pa, *y = pb;

	if (x->view != y->view)
		return x->view < y->view ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Sorted by (view, key), equal keys merged: lookups bisect. */
static void settle(struct kt_baseline *b)
{
	uint32_t j = 0;

	if (b->sorted)
		return;
	if (b->n > 1)
		qsort(b->e, b->n, sizeof(*b->e), ent_cmp);
	for (uint32_t i = 0; i < b->n; i++) {
		if (j && !ent_cmp(&b->e[j - 1], &b->e[i])) {
			b->e[j - 1].hits += b->e[i].hits;
			free(b->e[i].key);
			continue;
		}
		b->e[j++] = b->e[i];
	}
	b->n = j;
	b->sorted = 1;
}

static struct bent *lookup(const struct kt_baseline *b, enum kt_view v, const char *key)
{
	struct bent k = {.view = (uint8_t)canon(v), .key = (char *)key};

	settle((struct kt_baseline *)b);
	return b->n ? bsearch(&k, b->e, b->n, sizeof(*b->e), ent_cmp) : NULL;
}

int kt_baseline_add(struct kt_baseline *b, enum kt_view v, const char *module, const char *name,
		    uint64_t hits, int idle)
{
	char key[512];
	struct bent *e;

	if (!supported(v))
		return -EINVAL;
	make_key(key, sizeof(key), module, name);
	if (kt_grow((void **)&b->e, &b->cap, b->n + 1, sizeof(*b->e)) < 0)
		return -ENOMEM;
	e = &b->e[b->n];
	e->key = strdup(key);
	if (!e->key)
		return -ENOMEM;
	e->view = (uint8_t)canon(v);
	e->idle = !!idle;
	e->seen = 0;
	e->hits = hits;
	b->n++;
	b->sorted = 0;
	return 0;
}

void kt_baseline_set_totals(struct kt_baseline *b, uint64_t samples, uint64_t idle,
			    double covered_s)
{
	b->samples = samples;
	b->idle = idle;
	b->covered_s = covered_s;
}

uint64_t kt_baseline_samples(const struct kt_baseline *b)
{
	return b ? b->samples : 0;
}

double kt_baseline_covered(const struct kt_baseline *b)
{
	return b ? b->covered_s : 0;
}

const char *kt_baseline_source(const struct kt_baseline *b)
{
	return b ? b->source : "";
}

uint64_t kt_baseline_hits(const struct kt_baseline *b, enum kt_view v, const char *module,
			  const char *name)
{
	char key[512];
	const struct bent *e;

	make_key(key, sizeof(key), module, name);
	e = lookup(b, v, key);
	return e ? e->hits : 0;
}

void kt_baseline_each(const struct kt_baseline *b, enum kt_view v,
		      void (*fn)(void *ctx, const char *module, const char *name, uint64_t hits,
				 int idle),
		      void *ctx)
{
	settle((struct kt_baseline *)b);
	for (uint32_t i = 0; i < b->n; i++) {
		const struct bent *e = &b->e[i];
		const char *sep;
		char mod[256];

		if (e->view != canon(v))
			continue;
		sep = strchr(e->key, '\x1f');
		if (!sep) {
			fn(ctx, NULL, e->key, e->hits, e->idle);
			continue;
		}
		snprintf(mod, sizeof(mod), "%.*s", (int)(sep - e->key), e->key);
		fn(ctx, mod, sep + 1, e->hits, e->idle);
	}
}

/* The key of a row as the baseline stores it. */
static void row_key(enum kt_view v, const struct kt_row *r, char *buf, size_t len)
{
	char pt[32];

	switch (canon(v)) {
	case KT_VIEW_TOPFUNCS:
		make_key(buf, len, r->module ? r->module : "", r->name);
		break;
	case KT_VIEW_TASKS:
		snprintf(pt, sizeof(pt), "%d/%d", r->pid, r->tid);
		make_key(buf, len, r->name, pt);
		break;
	default:
		make_key(buf, len, NULL, r->name);
		break;
	}
}

int kt_baseline_capture(struct kt_agg *a, const char *source, struct kt_baseline **out)
{
	static const enum kt_view views[] = {KT_VIEW_MODULES, KT_VIEW_TOPFUNCS, KT_VIEW_CPUS,
					     KT_VIEW_TASKS, KT_VIEW_CONTEXTS};
	struct kt_baseline *b;
	struct kt_baseline *keep = a->base;
	struct kt_result r = {0};
	int rc = kt_baseline_new(source, &b);

	if (rc < 0)
		return rc;
	a->base = NULL; /* the capture is of the rows, not of their deltas */
	for (size_t k = 0; k < sizeof(views) / sizeof(views[0]) && rc == 0; k++) {
		struct kt_query q = {.view = views[k], .module = KT_ANY, .func = KT_ANY};

		kt_filter_all(&q.filter);
		rc = kt_agg_query(a, &q, &r);
		for (size_t i = 0; rc == 0 && i < r.nrows; i++) {
			const struct kt_row *row = &r.rows[i];

			if (views[k] == KT_VIEW_TASKS) {
				char pt[32];

				snprintf(pt, sizeof(pt), "%d/%d", row->pid, row->tid);
				rc = kt_baseline_add(b, views[k], row->name, pt, row->hits, 0);
			} else {
				rc = kt_baseline_add(b, views[k],
						     views[k] == KT_VIEW_TOPFUNCS
							 ? (row->module ? row->module : "")
							 : NULL,
						     row->name, row->hits, row->idle);
			}
		}
		if (k == 0)
			kt_baseline_set_totals(b, r.sum.samples, r.sum.idle, r.sum.covered_s);
	}
	a->base = keep;
	kt_result_free(&r);
	if (rc < 0) {
		kt_baseline_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

void kt_agg_set_baseline(struct kt_agg *a, struct kt_baseline *b)
{
	if (a->base != b)
		kt_baseline_free(a->base);
	a->base = b;
}

const struct kt_baseline *kt_agg_baseline(const struct kt_agg *a)
{
	return a->base;
}

/* Whether a vanished baseline row belongs in this query: the function list of one module
 * keeps that module's functions; filters by CPU, task or context leave vanished rows out
 * (the baseline has no such split). */
static int gone_fits(struct kt_agg *a, const struct kt_query *q, const struct bent *e)
{
	const struct kt_filter *f = &q->filter;

	if (f->cpu != KT_ANY || f->cpuset || f->task != KT_ANY || f->ctx != KT_ANY)
		return 0;
	if (f->hide_idle && e->idle)
		return 0;
	if (q->view == KT_VIEW_FUNCS || (q->view == KT_VIEW_TOPFUNCS && f->module != KT_ANY)) {
		const char *m =
		    kt_agg_module_name(a, q->view == KT_VIEW_FUNCS ? q->module : f->module);
		size_t ml = strlen(m);
		const char *sep = strchr(e->key, '\x1f');

		if (q->module == KT_AGG_IDLE_MODULE && q->view == KT_VIEW_FUNCS)
			return e->idle;
		if (!sep || (size_t)(sep - e->key) != ml || strncmp(e->key, m, ml) || e->idle)
			return 0;
	}
	return 1;
}

int kt_agg_baseline_rows(struct kt_agg *a, const struct kt_query *q, struct kt_result *r)
{
	struct kt_baseline *b = a->base;
	double denom_b;
	size_t nnow = r->nrows;

	if (!supported(q->view) || q->view == KT_VIEW_LINES)
		return 0;
	settle(b);
	for (uint32_t i = 0; i < b->n; i++)
		b->e[i].seen = 0;
	denom_b = (double)(b->samples - (q->filter.hide_idle ? b->idle : 0));
	for (size_t i = 0; i < nnow; i++) {
		struct kt_row *row = &r->rows[i];
		struct bent *e;
		char key[512];
		double share_b = 0, rate_b;

		row_key(q->view, row, key, sizeof(key));
		e = lookup(b, q->view, key);
		row->base_hits = e ? e->hits : 0;
		if (e)
			e->seen = 1;
		if (e && denom_b > 0)
			share_b = (double)e->hits / denom_b * 100.0;
		row->delta_pct = row->pct_kernel - share_b;
		rate_b = e && b->covered_s > 0 ? (double)e->hits / b->covered_s : 0;
		row->base_state = e && e->hits ? KT_BASE_BOTH : KT_BASE_NEW;
		row->rate_ratio = rate_b > 0 ? row->per_s / rate_b : INFINITY;
	}
	for (uint32_t i = 0; i < b->n; i++) {
		struct bent *e = &b->e[i];
		struct kt_row *row;
		const char *sep;
		char pt[32];

		if (e->seen || e->view != canon(q->view) || !e->hits || !gone_fits(a, q, e))
			continue;
		sep = strchr(e->key, '\x1f');
		row = kt_agg_row_new(r);
		if (!row)
			return -ENOMEM;
		row->id = KT_ANY;
		row->idle = e->idle;
		if (canon(q->view) == KT_VIEW_TOPFUNCS && sep) {
			snprintf(pt, sizeof(pt), "%.*s", (int)(sep - e->key), e->key);
			row->module = kt_agg_strdup(r, pt);
			row->name = kt_agg_strdup(r, sep + 1);
		} else if (q->view == KT_VIEW_TASKS && sep) {
			snprintf(pt, sizeof(pt), "%.*s", (int)(sep - e->key), e->key);
			row->name = kt_agg_strdup(r, pt);
			row->pid = row->tid = -1;
			sscanf(sep + 1, "%d/%d", &row->pid, &row->tid);
		} else {
			row->name = kt_agg_strdup(r, e->key);
			if (q->view == KT_VIEW_CONTEXTS) {
				int cid = kt_sym_ctx_find(a->s, e->key);

				if (cid >= 0 && kt_sym_ctx(a->s, (uint32_t)cid)) {
					row->id = (uint32_t)cid;
					row->ctx_kind = kt_sym_ctx(a->s, (uint32_t)cid)->kind;
				}
			}
		}
		if (q->filter.text && !kt_contains_ci(row->name, q->filter.text)) {
			r->nrows--;
			continue;
		}
		row->base_hits = e->hits;
		row->base_state = KT_BASE_GONE;
		row->delta_pct = denom_b > 0 ? -(double)e->hits / denom_b * 100.0 : 0;
		row->rate_ratio = 0;
	}
	return 0;
}

/* --- a kerntop JSON report as a baseline: a small parser for its one-line objects --- */

struct jp {
	const char *p, *end;
	char *err;
	size_t errlen;
	int bad;
};

static void jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

static int jp_fail(struct jp *j, const char *what)
{
	if (!j->bad)
		snprintf(j->err, j->errlen, "not a kerntop JSON report: %s at byte %ld", what,
			 (long)(j->end - j->p));
	j->bad = 1;
	return -EINVAL;
}

static int jp_lit(struct jp *j, char c)
{
	jp_ws(j);
	if (j->p >= j->end || *j->p != c)
		return 0;
	j->p++;
	return 1;
}

static void put_utf8(char *buf, size_t len, size_t *n, unsigned cp)
{
	unsigned char u[4];
	size_t k = 0;

	if (cp < 0x100) /* the writer's escape of a control or non-UTF-8 byte: that byte */
		u[k++] = (unsigned char)cp;
	else if (cp < 0x800) {
		u[k++] = (unsigned char)(0xc0 | cp >> 6);
		u[k++] = (unsigned char)(0x80 | (cp & 0x3f));
	} else {
		u[k++] = (unsigned char)(0xe0 | cp >> 12);
		u[k++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[k++] = (unsigned char)(0x80 | (cp & 0x3f));
	}
	for (size_t i = 0; i < k && *n + 1 < len; i++)
		buf[(*n)++] = (char)u[i];
}

/* A string into buf (cut to len - 1 bytes). */
static int jp_str(struct jp *j, char *buf, size_t len)
{
	size_t n = 0;

	if (!jp_lit(j, '"'))
		return jp_fail(j, "a string expected");
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;

		if (c == '\\' && j->p < j->end) {
			c = *j->p++;
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'u': {
				unsigned cp = 0;

				for (int k = 0; k < 4; k++, j->p++) {
					int h = j->p < j->end ? *j->p : 0;

					if (h >= '0' && h <= '9')
						cp = cp * 16 + (unsigned)(h - '0');
					else if ((h | 32) >= 'a' && (h | 32) <= 'f')
						cp = cp * 16 + (unsigned)((h | 32) - 'a' + 10);
					else
						return jp_fail(j, "a bad \\u escape");
				}
				put_utf8(buf, len, &n, cp);
				continue;
			}
			default:
				break;
			}
		}
		if (n + 1 < len)
			buf[n++] = c;
	}
	if (j->p >= j->end)
		return jp_fail(j, "an unterminated string");
	j->p++;
	buf[n] = 0;
	return 0;
}

static int jp_num(struct jp *j, double *v)
{
	char *e;

	jp_ws(j);
	*v = strtod(j->p, &e);
	if (e == j->p || e > j->end)
		return jp_fail(j, "a number expected");
	j->p = e;
	return 0;
}

static int jp_skip(struct jp *j, int depth)
{
	char tmp[8];
	double d;

	jp_ws(j);
	if (depth > 64)
		return jp_fail(j, "nesting too deep");
	if (j->p >= j->end)
		return jp_fail(j, "a value expected");
	switch (*j->p) {
	case '"':
		return jp_str(j, tmp, sizeof(tmp));
	case '{':
	case '[': {
		char close = *j->p == '{' ? '}' : ']';

		j->p++;
		if (jp_lit(j, close))
			return 0;
		do {
			if (close == '}' && (jp_str(j, tmp, sizeof(tmp)) < 0 || !jp_lit(j, ':')))
				return jp_fail(j, "a member expected");
			if (jp_skip(j, depth + 1) < 0)
				return -EINVAL;
		} while (jp_lit(j, ','));
		return jp_lit(j, close) ? 0 : jp_fail(j, "a bracket expected");
	}
	case 't':
	case 'f':
	case 'n': {
		const char *w = *j->p == 't' ? "true" : *j->p == 'f' ? "false" : "null";
		size_t l = strlen(w);

		if ((size_t)(j->end - j->p) < l || strncmp(j->p, w, l))
			return jp_fail(j, "a bad literal");
		j->p += l;
		return 0;
	}
	default:
		return jp_num(j, &d);
	}
}

/* One row object of array key: its fields into the baseline. */
static int jp_row(struct jp *j, const char *key, struct kt_baseline *b)
{
	char name[256] = "", module[256] = "", kind[64] = "", label[320];
	double hits = 0, cpu = -1;
	int idle = 0;

	if (!jp_lit(j, '{'))
		return jp_fail(j, "a row object expected");
	if (!jp_lit(j, '}')) {
		do {
			char k[32];
			int r;

			if (jp_str(j, k, sizeof(k)) < 0 || !jp_lit(j, ':'))
				return jp_fail(j, "a member expected");
			jp_ws(j);
			if (!strcmp(k, "name"))
				r = jp_str(j, name, sizeof(name));
			else if (!strcmp(k, "module"))
				r = jp_str(j, module, sizeof(module));
			else if (!strcmp(k, "kind"))
				r = jp_str(j, kind, sizeof(kind));
			else if (!strcmp(k, "hits"))
				r = jp_num(j, &hits);
			else if (!strcmp(k, "cpu"))
				r = jp_num(j, &cpu);
			else if (!strcmp(k, "idle") && j->p < j->end &&
				 (*j->p == 't' || *j->p == 'f')) {
				idle = *j->p == 't';
				r = jp_skip(j, 1);
			} else
				r = jp_skip(j, 1);
			if (r < 0)
				return r;
		} while (jp_lit(j, ','));
		if (!jp_lit(j, '}'))
			return jp_fail(j, "a closing brace expected");
	}
	if (hits < 0)
		hits = 0;
	if (!strcmp(key, "modules"))
		return kt_baseline_add(b, KT_VIEW_MODULES, NULL, name, (uint64_t)hits, idle);
	if (!strcmp(key, "functions"))
		return kt_baseline_add(b, KT_VIEW_TOPFUNCS, module, name, (uint64_t)hits, idle);
	if (!strcmp(key, "cpu")) {
		snprintf(label, sizeof(label), "cpu%.0f", cpu);
		return kt_baseline_add(b, KT_VIEW_CPUS, NULL, label, (uint64_t)hits, 0);
	}
	/* contexts: the label is "kind name", or the kind alone */
	snprintf(label, sizeof(label), "%s%s%s", kind, name[0] ? " " : "", name);
	return kt_baseline_add(b, KT_VIEW_CONTEXTS, NULL, label, (uint64_t)hits,
			       !strcmp(kind, "idle"));
}

int kt_baseline_from_json(const char *text, size_t len, const char *source,
			  struct kt_baseline **out, char *err, size_t errlen)
{
	const char *line = text, *end = text + len;
	struct kt_baseline *b;
	struct jp j;
	double samples = -1, idle = 0, covered = 0, version = 0;
	int r;

	*out = NULL;
	/* the last report: the last line that is not blank */
	while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	for (const char *p = end; p > text; p--)
		if (p[-1] == '\n') {
			line = p;
			break;
		}
	j = (struct jp){line, end, err, errlen, 0};
	r = kt_baseline_new(source, &b);
	if (r < 0)
		return r;
	if (!jp_lit(&j, '{')) {
		kt_baseline_free(b);
		return jp_fail(&j, "no object");
	}
	do {
		char k[32];

		if (jp_str(&j, k, sizeof(k)) < 0 || !jp_lit(&j, ':'))
			break;
		jp_ws(&j);
		if (!strcmp(k, "version"))
			r = jp_num(&j, &version);
		else if (!strcmp(k, "samples"))
			r = jp_num(&j, &samples);
		else if (!strcmp(k, "idle"))
			r = jp_num(&j, &idle);
		else if (!strcmp(k, "covered_s"))
			r = jp_num(&j, &covered);
		else if (!strcmp(k, "modules") || !strcmp(k, "functions") || !strcmp(k, "cpu") ||
			 !strcmp(k, "contexts")) {
			r = jp_lit(&j, '[') ? 0 : jp_fail(&j, "an array expected");
			if (r == 0 && !jp_lit(&j, ']')) {
				do
					r = jp_row(&j, k, b);
				while (r == 0 && jp_lit(&j, ','));
				if (r == 0 && !jp_lit(&j, ']'))
					r = jp_fail(&j, "a closing bracket expected");
			}
		} else
			r = jp_skip(&j, 1);
		if (r < 0)
			break;
	} while (jp_lit(&j, ','));
	if (!j.bad && !jp_lit(&j, '}'))
		jp_fail(&j, "a closing brace expected");
	if (!j.bad && (version < 1 || samples < 0)) {
		snprintf(err, errlen, "not a kerntop JSON report: no version or samples field");
		j.bad = 1;
	}
	if (j.bad) {
		kt_baseline_free(b);
		return -EINVAL;
	}
	kt_baseline_set_totals(b, (uint64_t)samples, (uint64_t)idle, covered);
	*out = b;
	return 0;
}
