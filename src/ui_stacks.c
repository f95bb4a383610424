/* The hottest full stacks (issue 7) of a function (S on a function) or of a module (S on the
 * modules screen): one row per distinct stack, hottest first, drawn root > ... > leaf with
 * the middle elided to fit; Enter shows the frames of one stack, one per line. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/source.h"
#include "kerntop/symbols.h"
#include "ui_impl.h"

/* A stacks screen's own state (s->priv): hits of every stack in the result, the %Func
 * denominator. */
struct stacks {
	uint64_t total;
};

/* A frames screen's own state (s->priv): the stack shown (function ids, leaf first) and its
 * figures from the last query, found again by its frames since stack rows are renumbered
 * every refresh. */
struct frames {
	uint32_t *frames;
	uint32_t n;
	int found;
	uint64_t hits;
	double pct, kernel;
};

static int stacks_init(struct ui_screen *s)
{
	s->priv = calloc(1, sizeof(struct stacks));
	return s->priv ? 0 : -ENOMEM;
}

static void stacks_free(struct ui_screen *s)
{
	free(s->priv);
	s->priv = NULL;
}

static int frames_init(struct ui_screen *s)
{
	s->priv = calloc(1, sizeof(struct frames));
	return s->priv ? 0 : -ENOMEM;
}

static void frames_free(struct ui_screen *s)
{
	struct frames *F = s->priv;

	if (F)
		free(F->frames);
	free(F);
	s->priv = NULL;
}

#define SEP " > "
#define ELIDED " > ... > "

static const char *frame_name(const struct kt_ui *ui, uint32_t func)
{
	const struct kt_sym_func *f = kt_sym_func(kt_agg_symbols(ui->env.agg), func);

	return f && f->name ? f->name : "[unknown]";
}

static const char *frame_module(const struct kt_ui *ui, uint32_t func)
{
	const struct kt_sym_func *f = kt_sym_func(kt_agg_symbols(ui->env.agg), func);

	return f ? kt_agg_module_name(ui->env.agg, f->module) : "";
}

/* Appends frames fr[from] down to fr[to] (leaf first storage: from >= to, root side first). */
static size_t join(const struct kt_ui *ui, const uint32_t *fr, uint32_t from, uint32_t to,
		   char *buf, size_t len, size_t n)
{
	for (uint32_t j = from + 1; j-- > to && n + 1 < len;) {
		n += (size_t)snprintf(buf + n, len - n, "%s%s", j < from ? SEP : "",
				      frame_name(ui, fr[j]));
		if (n >= len)
			n = len - 1;
	}
	return n;
}

/* The stack root first in at most w characters: whole when it fits, else the root, an
 * ellipsis and as many frames next to the leaf as fit (the leaf end is where time goes). */
static void fit_stack(const struct kt_ui *ui, const struct kt_row *r, int w, char *buf, size_t len)
{
	uint32_t n = r->nframes, m;
	size_t full = 0, tail = 0, head;

	buf[0] = 0;
	if (!n || !r->frames || w <= 0)
		return;
	for (uint32_t j = 0; j < n; j++)
		full += strlen(frame_name(ui, r->frames[j])) + (j ? strlen(SEP) : 0);
	if (full <= (size_t)w || n < 3) {
		join(ui, r->frames, n - 1, 0, buf, len, 0);
		return;
	}
	head = strlen(frame_name(ui, r->frames[n - 1])) + strlen(ELIDED);
	/* m leaf-side frames, keeping the root and eliding at least one frame */
	for (m = 0; m < n - 2; m++) {
		size_t add = strlen(frame_name(ui, r->frames[m])) + (m ? strlen(SEP) : 0);

		if (head + tail + add > (size_t)w)
			break;
		tail += add;
	}
	if (m) {
		size_t k = (size_t)snprintf(buf, len, "%s%s", frame_name(ui, r->frames[n - 1]),
					    ELIDED);

		join(ui, r->frames, m - 1, 0, buf, len, k < len ? k : len - 1);
	} else {
		/* not even root and leaf fit: the leaf end, cut on the right by the caller */
		snprintf(buf, len, "...%s%s", SEP, frame_name(ui, r->frames[0]));
	}
}

static void cell_stack(struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r, int y,
		       int x, int w)
{
	char buf[1024];

	fit_stack(ui, r, w, buf, sizeof(buf));
	ui_put(y, x, w, buf, 0);
}

static void col_stack(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		      char *buf, size_t len)
{
	fit_stack(ui, r, (int)len - 1, buf, len);
}

static void col_share(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		      char *buf, size_t len)
{
	const struct stacks *S = s->priv;

	ui_fmt_pct(S->total ? (double)r->hits * 100.0 / (double)S->total : 0, buf, len);
}

#define STACK_COLS(share)                                                                          \
	{                                                                                          \
	    {"Stack (root > ... > leaf)", 30, 0, -1, 1, 1, col_stack, cell_stack},                 \
	    {"Hits", 9, 0, KT_SORT_HITS, 0, 0, ui_col_hits, NULL},                                 \
	    {share, 8, 0, -1, 0, 0, col_share, NULL},                                              \
	    {"%Kernel", 8, 1, -1, 0, 0, ui_col_kernel, NULL},                                      \
	}

static const struct ui_col func_cols[] = STACK_COLS("%Func");
static const struct ui_col module_cols[] = STACK_COLS("%Module");

static void enter_func(struct kt_ui *ui, struct ui_screen *s)
{
	s->q.view = KT_VIEW_STACKS;
	s->q.func = s->arg;
	s->q.module = KT_ANY;
	s->q.sort = KT_SORT_HITS;
	s->q.limit = 0; /* every stack: the %Func denominator is their sum */
}

static void enter_module(struct kt_ui *ui, struct ui_screen *s)
{
	enter_func(ui, s);
	s->q.func = KT_ANY;
	s->q.module = s->arg;
}

static void draw_stacks(struct kt_ui *ui, struct ui_screen *s, int y, int h)
{
	const struct kt_source_info *info = ui->env.src ? kt_source_info(ui->env.src) : NULL;
	int my = y + 1 + (int)s->nvis;

	ui_table_draw(ui, s, y, h);
	if (!s->nvis && s->have_res && !s->text[0] && ui->sum.samples && h > 1) {
		move(y + 1, 0);
		clrtoeol();
		mvaddnstr(y + 1, 2,
			  s->q.func != KT_ANY
			      ? "no sampled stack ends in this function in the current window "
				"(g, G: where it is called from, what it calls)"
			      : "no sampled stack ends in this module in the current window",
			  ui->cols - 2);
	}
	if (s->nvis && info && !info->callchain && my < y + h) {
		move(my, 0);
		clrtoeol();
		mvaddnstr(my, 2,
			  "no call chains were sampled: each stack is its leaf only; start "
			  "kerntop with -g (--call-graph)",
			  ui->cols - 2);
	}
}

static int open_frames(struct kt_ui *ui, struct ui_screen *s, const struct kt_row *r)
{
	struct ui_screen *n;
	struct frames *F;
	char crumb[64];

	if (!r->nframes || !r->frames)
		return UI_R_NONE;
	snprintf(crumb, sizeof(crumb), "stack %zu", s->sel + 1);
	n = ui_screen_new(ui, &ui_frames_ops, KT_ANY, crumb);
	if (!n)
		return UI_R_NONE;
	F = n->priv;
	F->frames = malloc(r->nframes * sizeof(*F->frames));
	if (!F->frames) {
		ui_screen_free(n);
		return UI_R_NONE;
	}
	memcpy(F->frames, r->frames, r->nframes * sizeof(*F->frames));
	F->n = r->nframes;
	n->q = s->q;
	n->text[0] = 0;
	ui_screen_free(ui->pending);
	ui->pending = n;
	return UI_R_PUSH;
}

static int key_stacks(struct kt_ui *ui, struct ui_screen *s, enum ui_act act)
{
	const struct kt_row *r = ui_sel_row(s);

	if (act == UI_ACT_OPEN && r)
		return open_frames(ui, s, r);
	return UI_R_NONE;
}

/* The stacks' total (the %Func denominator), then the table's rows. */
static void sync_stacks(struct ui_screen *s)
{
	struct stacks *S = s->priv;
	uint64_t t = 0;

	for (size_t i = 0; i < s->res.nrows; i++)
		t += s->res.rows[i].hits;
	S->total = t;
	ui_table_sync(s);
}

const struct ui_screen_ops ui_stacks_func_ops = {
    .kind = UI_STACKS,
    .name = "stacks",
    .cols = func_cols,
    .ncols = sizeof(func_cols) / sizeof(func_cols[0]),
    .enter = enter_func,
    .draw = draw_stacks,
    .key = key_stacks,
    .sync = sync_stacks,
    .flags = UI_SF_OWN_TEXT,
    .init = stacks_init,
    .free = stacks_free,
};

const struct ui_screen_ops ui_stacks_module_ops = {
    .kind = UI_STACKS,
    .name = "stacks",
    .cols = module_cols,
    .ncols = sizeof(module_cols) / sizeof(module_cols[0]),
    .enter = enter_module,
    .draw = draw_stacks,
    .key = key_stacks,
    .sync = sync_stacks,
    .flags = UI_SF_OWN_TEXT,
    .init = stacks_init,
    .free = stacks_free,
};

/* --- the frames of one stack --- */

/* The stack found again in the result, and one line per frame. */
static void sync_frames(struct ui_screen *s)
{
	struct frames *F = s->priv;
	uint64_t total = 0;

	F->found = 0;
	for (size_t i = 0; i < s->res.nrows; i++) {
		const struct kt_row *r = &s->res.rows[i];

		total += r->hits;
		if (F->found || r->nframes != F->n || !r->frames ||
		    memcmp(r->frames, F->frames, F->n * sizeof(*F->frames)))
			continue;
		F->found = 1;
		F->hits = r->hits;
		F->kernel = r->pct_kernel;
	}
	F->pct = total ? (double)F->hits * 100.0 / (double)total : 0;
	if (F->n > s->capvis) {
		size_t *v = realloc(s->vis, F->n * sizeof(*v));

		if (!v) {
			s->nvis = 0;
			return;
		}
		s->vis = v;
		s->capvis = F->n;
	}
	/* no result row behind a frame line: the selection index is the frame, root first */
	for (size_t i = 0; i < F->n; i++)
		s->vis[i] = UI_VIS_CALLERS;
	s->nvis = F->n;
	if (s->sel >= s->nvis)
		s->sel = s->nvis ? s->nvis - 1 : 0;
}

static void draw_frames(struct kt_ui *ui, struct ui_screen *s, int y, int h)
{
	const struct frames *F = s->priv;
	int mw = ui->cols >= 40 ? 16 : 0, nw = ui->cols - 6 - mw - 1;
	char buf[64];

	if (h < 4)
		return;
	attrset(ui_attr(ui, UI_C_COLHDR, A_REVERSE));
	mvhline(y, 0, ' ', ui->cols);
	ui_put(y, 0, 5, "#", 1);
	ui_put(y, 6, nw, "Frame (root first)", 0);
	if (mw)
		ui_put(y, ui->cols - mw, mw, "Module", 0);
	attrset(A_NORMAL);
	s->body_y = ++y;
	/* below the frames: a blank line and how hot the stack is */
	s->body_h = h -= 3;
	ui_scroll_clamp(&s->top, s->sel, (size_t)h, s->nvis, 1);
	for (int line = 0; line < h + 2; line++) {
		size_t i = s->top + (size_t)line;
		uint32_t f;

		move(y + line, 0);
		clrtoeol();
		if (line >= h || i >= s->nvis)
			continue;
		f = F->frames[F->n - 1 - i];
		attrset(i == s->sel ? ui_attr(ui, UI_C_SEL, A_REVERSE) : A_NORMAL);
		mvhline(y + line, 0, ' ', ui->cols);
		snprintf(buf, sizeof(buf), "%zu", i + 1);
		ui_put(y + line, 0, 5, buf, 1);
		ui_put(y + line, 6, nw, frame_name(ui, f), 0);
		if (mw)
			ui_put(y + line, ui->cols - mw, mw, frame_module(ui, f), 0);
		attrset(A_NORMAL);
	}
	/* right under the last frame shown */
	y += (int)(s->nvis - s->top < (size_t)h ? s->nvis - s->top : (size_t)h);
	if (F->found) {
		char line[160];

		snprintf(line, sizeof(line),
			 "this stack: %llu hits, %.1f%% of the %s's stacks, %.1f%% %%Kernel",
			 (unsigned long long)F->hits, F->pct,
			 s->q.func != KT_ANY ? "function" : "module", F->kernel);
		mvaddnstr(y + 1, 2, line, ui->cols - 2);
	} else {
		mvaddnstr(y + 1, 2, "this stack is no longer in the window (a: cumulative)",
			  ui->cols - 2);
	}
}

/* Enter on a frame opens that function's lines; g, G, S its callers, callees, stacks. */
static int key_frames(struct kt_ui *ui, struct ui_screen *s, enum ui_act act)
{
	const struct frames *F = s->priv;
	uint32_t f;

	if (s->sel >= F->n)
		return UI_R_NONE;
	f = F->frames[F->n - 1 - s->sel];
	switch (act) {
	case UI_ACT_OPEN:
		return ui_open_lines(ui, f, frame_name(ui, f));
	case UI_ACT_CALLERS:
		return ui_open_callers(ui, f, frame_name(ui, f));
	case UI_ACT_CALLEES:
		return ui_open_callees(ui, f, frame_name(ui, f));
	case UI_ACT_STACKS:
		return ui_open_stacks(ui, KT_ANY, f, frame_name(ui, f));
	default:
		return UI_R_NONE;
	}
}

const struct ui_screen_ops ui_frames_ops = {
    .kind = UI_FRAMES,
    .name = "frames",
    .cols = NULL,
    .ncols = 0,
    .enter = NULL,
    .draw = draw_frames,
    .key = key_frames,
    .sync = sync_frames,
    .init = frames_init,
    .free = frames_free,
};
