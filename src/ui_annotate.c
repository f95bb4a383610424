/* The annotate screen (a, as in perf top): one function's instructions with the hits and %
 * of the function on each, the hottest highlighted, source lines interleaved (by address),
 * jump and call targets by name. Enter follows a jump inside the function, or opens the
 * annotate screen of a called function; s sorts by address or hits; / filters. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/report.h"
#include "kerntop/symbols.h"
#include "kerntop/util.h"
#include "kerntop/window.h"
#include "ui_impl.h"

/* A drawn row: an instruction, or (by address) the source line the next ones come from. */
struct arow {
	uint32_t insn;
	uint8_t src;
};

struct ui_annot {
	struct kt_annotate an;
	int ok;
	char err[KT_ERRLEN];
	int by_hits;
	uint64_t at; /* the address to select once rows exist (opened at a line or bucket) */
	struct arow *rows;
	size_t nrows;
};

/* The listing is the screen's own state (s->priv). */
static int annot_init(struct ui_screen *s)
{
	s->priv = calloc(1, sizeof(struct ui_annot));
	return s->priv ? 0 : -ENOMEM;
}

static void annot_free(struct ui_screen *s)
{
	struct ui_annot *A = s->priv;

	if (!A)
		return;
	kt_annotate_free(&A->an);
	free(A->rows);
	free(A);
	s->priv = NULL;
}

static int cmp_hits(const void *pa, const void *pb, void *ctx)
{
	const struct kt_annotate *an = ctx;
	const struct kt_annot_insn *a = &an->insns[((const struct arow *)pa)->insn];
	const struct kt_annot_insn *b = &an->insns[((const struct arow *)pb)->insn];

	if (a->hits != b->hits)
		return a->hits > b->hits ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int matches(const struct kt_annot_insn *in, const char *text)
{
	return !text[0] || kt_contains_ci(in->text, text) || kt_contains_ci(in->target_name, text) ||
	       (in->file && kt_contains_ci(in->file, text));
}

/* Rows from the instructions: the filter, the sort, source lines where the line changes. */
static void build_rows(struct ui_screen *s)
{
	struct ui_annot *A = s->priv;
	const struct kt_annotate *an = &A->an;
	const char *file = NULL;
	int line = 0;
	size_t n = 0, need = an->ninsns * 2;
	struct arow *r = realloc(A->rows, (need ? need : 1) * sizeof(*r));

	if (!r)
		return;
	A->rows = r;
	for (size_t i = 0; i < an->ninsns; i++) {
		const struct kt_annot_insn *in = &an->insns[i];

		if (!matches(in, s->text))
			continue;
		if (!A->by_hits && in->file && (in->file != file || in->line != line))
			r[n++] = (struct arow){(uint32_t)i, 1};
		file = in->file;
		line = in->line;
		r[n++] = (struct arow){(uint32_t)i, 0};
	}
	if (A->by_hits)
		qsort_r(r, n, sizeof(*r), cmp_hits, &A->an);
	A->nrows = n;
	if (n > s->capvis) {
		size_t *v = realloc(s->vis, n * sizeof(*v));

		if (!v)
			return;
		s->vis = v;
		s->capvis = n;
	}
	for (size_t i = 0; i < n; i++)
		s->vis[i] = UI_VIS_CALLERS; /* no result rows behind these */
	s->nvis = n;
	if (s->sel >= n)
		s->sel = n ? n - 1 : 0;
}

static void select_addr(struct ui_screen *s, uint64_t addr)
{
	struct ui_annot *A = s->priv;

	for (size_t i = 0; i < A->nrows; i++) {
		const struct kt_annot_insn *in = &A->an.insns[A->rows[i].insn];

		if (!A->rows[i].src && addr >= in->addr && addr < in->addr + in->size) {
			s->sel = i;
			return;
		}
	}
}

/* The tick: the hits of each instruction now (the text was read once, at open). */
void ui_annotate_refresh(struct kt_ui *ui, struct ui_screen *s)
{
	struct ui_annot *A = s->priv;
	struct kt_annotate *an;
	uint64_t sel_addr = 0, sum = 0;

	if (!A)
		return;
	an = &A->an;
	if (A->nrows && s->sel < A->nrows)
		sel_addr = an->insns[A->rows[s->sel].insn].addr;
	an->hits = kt_window_addr_range(ui->env.win, an->start, an->start + an->size);
	an->max_hits = 0;
	for (size_t i = 0; i < an->ninsns; i++) {
		struct kt_annot_insn *in = &an->insns[i];

		in->hits = kt_window_addr_range(ui->env.win, in->addr, in->addr + in->size);
		sum += in->hits;
		if (in->hits > an->max_hits)
			an->max_hits = in->hits;
		in->pct = an->hits ? 100.0 * (double)in->hits / (double)an->hits : 0;
	}
	an->outside = an->hits > sum ? an->hits - sum : 0;
	build_rows(s);
	if (A->at) {
		select_addr(s, A->at);
		A->at = 0;
	} else if (sel_addr) {
		select_addr(s, sel_addr);
	}
}

int ui_open_annotate(struct kt_ui *ui, uint32_t func, uint64_t at)
{
	const struct kt_sym_func *fn;
	struct ui_screen *n;
	struct ui_annot *A;
	char crumb[160];

	if (func == KT_ANY || func >= kt_sym_nfuncs(ui->env.sym))
		return UI_R_NONE;
	fn = kt_sym_func(ui->env.sym, func);
	snprintf(crumb, sizeof(crumb), "%s > annotate", fn->name);
	n = ui_screen_new(ui, &ui_annotate_ops, func, crumb);
	if (!n)
		return UI_R_NONE;
	A = n->priv;
	A->ok = kt_agg_annotate(ui->env.agg, func, &A->an, A->err, sizeof(A->err)) == 0;
	A->at = at;
	ui_log(ui, "annotate %s: %zu instructions%s%s", A->an.name ? A->an.name : "?",
	       A->an.ninsns, A->ok ? "" : ": ", A->ok ? "" : A->err);
	ui_annotate_refresh(ui, n);
	ui_screen_free(ui->pending);
	ui->pending = n;
	return UI_R_PUSH;
}

static void enter(struct kt_ui *ui, struct ui_screen *s)
{
	/* a snapshot of this screen lists the function's lines (and callers) under it */
	s->q.view = KT_VIEW_LINES;
	s->q.func = s->arg;
}

static void draw_insn(struct kt_ui *ui, const struct ui_annot *A, const struct kt_annot_insn *in,
		      int y, int selected)
{
	char line[512], hits[24], pct[32];
	int hot = in->hits && (in->hits == A->an.max_hits || in->pct >= 10.0);

	if (in->hits) {
		snprintf(hits, sizeof(hits), "%" PRIu64, in->hits);
		snprintf(pct, sizeof(pct), "%.2f", in->pct);
	} else {
		hits[0] = pct[0] = 0;
	}
	snprintf(line, sizeof(line), "%8s %6s  %6" PRIx64 "  %s%s%s%s", hits, pct,
		 in->addr - A->an.start, in->text, in->target_name[0] ? " <" : "", in->target_name,
		 in->target_name[0] ? ">" : "");
	if (selected)
		attrset(ui_attr(ui, UI_C_SEL, A_REVERSE));
	else if (hot)
		attrset(ui_attr(ui, UI_C_KERNEL, A_BOLD) | A_BOLD);
	else
		attrset(in->hits ? A_NORMAL : A_DIM);
	mvaddnstr(y, 0, line, ui->cols);
	if (selected)
		for (int x = (int)strlen(line); x < ui->cols; x++)
			addch(' ');
	attrset(A_NORMAL);
}

static void draw(struct kt_ui *ui, struct ui_screen *s, int y, int h)
{
	struct ui_annot *A = s->priv;
	char head[512];
	int rows;

	for (int k = 0; k < h; k++) {
		move(y + k, 0);
		clrtoeol();
	}
	if (!A || h < 3)
		return;
	snprintf(head, sizeof(head), "%s (%s) 0x%" PRIx64 ", %" PRIu64 " bytes, %" PRIu64
				     " hits since start, text from %s, by %s%s%s",
		 A->an.name ? A->an.name : "?", A->an.module_name ? A->an.module_name : "?",
		 A->an.start, A->an.size, A->an.hits,
		 A->ok ? kt_text_source_name(A->an.source) : "none", A->by_hits ? "hits" : "address",
		 s->text[0] ? ", filter " : "", s->text);
	attrset(A_BOLD);
	mvaddnstr(y, 0, head, ui->cols);
	attrset(A_NORMAL);
	if (!A->ok) {
		/* the reason, wrapped: it names the fix */
		const char *p = A->err;

		attrset(ui_attr(ui, UI_C_ERROR, A_REVERSE));
		for (int k = 2; k < h && *p; k++) {
			int n = (int)strlen(p);

			if (n > ui->cols) {
				n = ui->cols;
				while (n > 0 && p[n] != ' ')
					n--;
				if (!n)
					n = ui->cols;
			}
			mvaddnstr(y + k, 0, p, n);
			p += n;
			while (*p == ' ')
				p++;
		}
		attrset(A_NORMAL);
		s->nvis = 0;
		return;
	}
	attrset(ui_attr(ui, UI_C_COLHDR, A_REVERSE));
	snprintf(head, sizeof(head), "%8s %6s  %6s  %-*s", "Hits", "%Func", "Offset",
		 ui->cols > 28 ? ui->cols - 28 : 0, "Instruction");
	mvaddnstr(y + 1, 0, head, ui->cols);
	attrset(A_NORMAL);
	rows = h - 2;
	s->body_y = y + 2;
	s->body_h = rows;
	ui_scroll_clamp(&s->top, s->sel, (size_t)rows, A->nrows, 0);
	for (int k = 0; k < rows; k++) {
		size_t i = s->top + (size_t)k;
		const struct kt_annot_insn *in;

		if (i >= A->nrows)
			break;
		in = &A->an.insns[A->rows[i].insn];
		if (A->rows[i].src) {
			char src[300];

			snprintf(src, sizeof(src), "%18s%s:%d", "", kt_report_src_base(in->file),
				 in->line);
			attrset(i == s->sel ? ui_attr(ui, UI_C_SEL, A_REVERSE)
					    : ui_attr(ui, UI_C_KEY, A_NORMAL));
			mvaddnstr(y + 2 + k, 0, src, ui->cols);
			attrset(A_NORMAL);
			continue;
		}
		draw_insn(ui, A, in, y + 2 + k, i == s->sel);
	}
}

/* Enter: a jump inside the function selects its target; a call or jump out of it opens the
 * annotate screen of the function it lands in. */
static int key(struct kt_ui *ui, struct ui_screen *s, enum ui_act act)
{
	struct ui_annot *A = s->priv;
	const struct kt_annot_insn *in;

	if (!A || !A->ok || s->sel >= A->nrows)
		return UI_R_NONE;
	in = &A->an.insns[A->rows[s->sel].insn];
	if (act == UI_ACT_CALLERS)
		return ui_open_callers(ui, s->arg, A->an.name);
	if (act == UI_ACT_CALLEES)
		return ui_open_callees(ui, s->arg, A->an.name);
	if (act != UI_ACT_OPEN)
		return UI_R_NONE;
	if (!in->target) {
		ui_set_status(ui, 0, "not a direct jump or call");
		return UI_R_REDRAW;
	}
	if (in->target >= A->an.start && in->target < A->an.start + A->an.size) {
		size_t before = s->sel;

		if (s->text[0]) {
			s->text[0] = 0; /* the target may be filtered out */
			build_rows(s);
		}
		select_addr(s, in->target);
		if (s->sel == before && in->target != in->addr)
			ui_set_status(ui, 0, "the target is not an instruction start here");
		return UI_R_REDRAW;
	}
	if (in->target_func == KT_ANY) {
		ui_set_status(ui, 0, "no function known at 0x%" PRIx64, in->target);
		return UI_R_REDRAW;
	}
	return ui_open_annotate(ui, in->target_func, in->target);
}

int ui_annotate_sort(struct kt_ui *ui, struct ui_screen *s)
{
	struct ui_annot *A = s->ops == &ui_annotate_ops ? s->priv : NULL;

	if (!A)
		return UI_R_NONE;
	A->by_hits = !A->by_hits;
	s->sel = 0;
	s->top = 0;
	build_rows(s);
	ui_set_status(ui, 0, "sorted by %s", A->by_hits ? "hits" : "address");
	return UI_R_REDRAW;
}

/* The listing for a snapshot of this screen (text), or NULL; the caller frees it. */
char *ui_annotate_text(const struct ui_screen *s)
{
	const struct ui_annot *A = s->ops == &ui_annotate_ops ? s->priv : NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!A)
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	kt_report_annotate_text(f, &A->an, A->ok ? NULL : A->err);
	fclose(f);
	return buf;
}

/* a again: back to the screen it was opened from. */
static int annotate_again(struct kt_ui *ui, struct ui_screen *s)
{
	return UI_R_POP;
}

const struct ui_screen_ops ui_annotate_ops = {
    .kind = UI_ANNOTATE,
    .name = "annotate",
    .cols = NULL,
    .ncols = 0,
    .enter = enter,
    .draw = draw,
    .key = key,
    .query = ui_annotate_refresh,
    .init = annot_init,
    .free = annot_free,
    .annotate = annotate_again,
};
