/* The callers and callees trees of one function (issue 7): one tree screen serves both
 * directions, only the query and the column title differ. Rows come pre-order from the
 * aggregator, hottest path first; the viewer keeps which nodes are expanded by a hash of the
 * path from the root, so expansion survives refreshes that renumber the nodes. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/source.h"
#include "ui_impl.h"

#define AUTO_DEPTH 8

/* The tree's own state (s->priv): the expanded nodes and each result row's path hash. */
struct tree {
	uint64_t *open; /* expanded nodes, by path hash */
	size_t nopen, capopen;
	int init;	/* the first result was seen and auto-expanded */
	uint64_t *keys; /* path hash per result row */
	size_t capkeys;
};

static int tree_init(struct ui_screen *s)
{
	s->priv = calloc(1, sizeof(struct tree));
	return s->priv ? 0 : -ENOMEM;
}

static void tree_free(struct ui_screen *s)
{
	struct tree *T = s->priv;

	if (!T)
		return;
	free(T->open);
	free(T->keys);
	free(T);
	s->priv = NULL;
}

static uint64_t tree_key(const struct ui_screen *s, size_t i)
{
	const struct tree *T = s->priv;

	return i < T->capkeys ? T->keys[i] : 0;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull;
}

static int is_open(const struct ui_screen *s, uint64_t key)
{
	const struct tree *T = s->priv;

	for (size_t i = 0; i < T->nopen; i++)
		if (T->open[i] == key)
			return 1;
	return 0;
}

static void set_open(struct ui_screen *s, uint64_t key, int on)
{
	struct tree *T = s->priv;

	for (size_t i = 0; i < T->nopen; i++) {
		if (T->open[i] == key) {
			if (!on)
				T->open[i] = T->open[--T->nopen];
			return;
		}
	}
	if (!on)
		return;
	if (T->nopen == T->capopen) {
		size_t cap = T->capopen ? T->capopen * 2 : 32;
		uint64_t *o = realloc(T->open, cap * sizeof(*o));

		if (!o)
			return;
		T->open = o;
		T->capopen = cap;
	}
	T->open[T->nopen++] = key;
}

/* First sight of a tree: open the roots and the hottest chain under the first root. */
static void auto_open(struct ui_screen *s)
{
	struct tree *T = s->priv;
	const struct kt_row *rows = s->res.rows;
	size_t i;

	for (i = 0; i < s->res.nrows; i++)
		if (rows[i].parent < 0)
			set_open(s, T->keys[i], 1);
	for (i = 0; i + 1 < s->res.nrows && rows[i].depth < AUTO_DEPTH; i++) {
		if (rows[i + 1].parent != (int32_t)i)
			break;
		set_open(s, T->keys[i], 1);
	}
	T->init = 1;
}

static void keep_sel(struct ui_screen *s)
{
	if (s->sel_valid) {
		for (size_t i = 0; i < s->nvis; i++) {
			if (tree_key(s, s->vis[i]) == s->sel_key) {
				s->sel = i;
				return;
			}
		}
	}
	if (s->sel >= s->nvis)
		s->sel = s->nvis ? s->nvis - 1 : 0;
	ui_sel_set(s, s->sel);
}

/* The / filter on a tree: the nodes whose name contains the text and their ancestors (the
 * path to them), expanded or not. */
static void filter_rows(struct ui_screen *s)
{
	const struct kt_row *rows = s->res.rows;
	size_t n = s->res.nrows;
	unsigned char *keep = calloc(n ? n : 1, 1);

	if (!keep)
		return;
	for (size_t i = n; i-- > 0;) {
		if (!kt_contains_ci(rows[i].name, s->text))
			continue;
		for (int32_t p = (int32_t)i; p >= 0 && (size_t)p < n && !keep[p];
		     p = rows[p].parent)
			keep[p] = 1;
	}
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			s->vis[s->nvis++] = i;
	free(keep);
	keep_sel(s);
}

/* Rebuilds the visible rows of a tree from its expanded set. */
static void tree_sync(struct ui_screen *s)
{
	struct tree *T = s->priv;
	const struct kt_row *rows = s->res.rows;
	size_t n = s->res.nrows;

	if (n > s->capvis || n > T->capkeys) {
		size_t cap = n + 16;
		size_t *v = realloc(s->vis, cap * sizeof(*v));
		uint64_t *k;

		if (v)
			s->vis = v;
		k = realloc(T->keys, cap * sizeof(*k));
		if (k)
			T->keys = k;
		if (!v || !k) {
			s->nvis = 0;
			return;
		}
		s->capvis = T->capkeys = cap;
	}
	for (size_t i = 0; i < n; i++) {
		int32_t p = rows[i].parent;
		uint64_t h = p >= 0 && (size_t)p < i ? T->keys[p] : 0xcbf29ce484222325ull;

		h = hash_str(h, rows[i].module);
		T->keys[i] = hash_str(h, rows[i].name);
	}
	if (!T->init && n)
		auto_open(s);
	s->nvis = 0;
	if (s->text[0]) {
		filter_rows(s);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int32_t p = rows[i].parent;
		int shown = 1;

		/* visible when every ancestor is open; pre-order means ancestors come first */
		while (p >= 0 && (size_t)p < i) {
			if (!is_open(s, T->keys[p])) {
				shown = 0;
				break;
			}
			p = rows[p].parent;
		}
		if (shown)
			s->vis[s->nvis++] = i;
	}
	keep_sel(s);
}

static int shown_child(const struct ui_screen *s, size_t i)
{
	for (size_t k = 0; k < s->nvis; k++)
		if (s->res.rows[s->vis[k]].parent == (int32_t)i)
			return 1;
	return 0;
}

static void col_name(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		     char *buf, size_t len)
{
	size_t i = (size_t)(r - s->res.rows);
	const char *mark = "  ";
	int indent = (int)(r->depth > 30 ? 30 : r->depth) * 2;

	if (r->nchildren && s->text[0]) /* filtered: open where the path goes on */
		mark = shown_child(s, i) ? "- " : "+ ";
	else if (r->nchildren)
		mark = is_open(s, tree_key(s, i)) ? "- " : "+ ";
	snprintf(buf, len, "%*s%s%s", indent, "", mark, r->name ? r->name : "?");
}

static void col_parent(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		       char *buf, size_t len)
{
	ui_fmt_pct(r->pct_parent, buf, len);
}

#define TREE_COLS(title)                                                                           \
	{                                                                                          \
		{title, 24, 0, -1, 1, 1, col_name, NULL},                                          \
		    {"Module", 12, 2, -1, 0, 1, ui_col_module, NULL},                              \
		    {"Hits", 9, 0, -1, 0, 0, ui_col_hits, NULL},                                   \
		    {"%Func", 7, 0, -1, 0, 0, col_parent, NULL},                                   \
		    {"%Kernel", 8, 1, -1, 0, 0, ui_col_kernel, NULL},                              \
	}

static const struct ui_col caller_cols[] = TREE_COLS("Caller");
static const struct ui_col callee_cols[] = TREE_COLS("Callee");

static void enter_callers(struct kt_ui *ui, struct ui_screen *s)
{
	s->q.view = KT_VIEW_CALLERS;
	s->q.func = s->arg;
	s->q.sort = KT_SORT_HITS;
}

static void enter_callees(struct kt_ui *ui, struct ui_screen *s)
{
	enter_callers(ui, s);
	s->q.view = KT_VIEW_CALLEES;
}

static void draw(struct kt_ui *ui, struct ui_screen *s, int y, int h)
{
	const struct kt_source_info *info = ui->env.src ? kt_source_info(ui->env.src) : NULL;

	int chains = 0, my;

	ui_table_draw(ui, s, y, h);
	for (size_t i = 0; i < s->res.nrows && !chains; i++)
		chains = s->res.rows[i].nchildren > 0;
	my = y + 2 + (int)s->nvis;
	if (!chains && my < y + h) {
		move(my, 0);
		clrtoeol();
		if (info && !info->callchain)
			mvaddnstr(my, 2,
				  "no call chains were sampled: start kerntop with -g "
				  "(--call-graph), or replay a recording made with -g",
				  ui->cols - 2);
		else if (s->q.view == KT_VIEW_CALLERS && s->res.nrows && !s->res.rows[0].hits)
			mvaddnstr(my, 2,
				  "no sampled stack ends in this function in the current window "
				  "(G: what it calls; a: cumulative)",
				  ui->cols - 2);
		else if (s->q.view == KT_VIEW_CALLEES)
			mvaddnstr(my, 2,
				  "no callees in the current window: the function is the leaf "
				  "of every stack it is on (a: cumulative)",
				  ui->cols - 2);
		else
			mvaddnstr(my, 2,
				  "no call chains reach this function in the current "
				  "window (a: cumulative)",
				  ui->cols - 2);
	}
}

static int key(struct kt_ui *ui, struct ui_screen *s, enum ui_act act)
{
	const struct kt_row *r = ui_sel_row(s);
	uint64_t node;

	if (!r)
		return act == UI_ACT_COLLAPSE ? UI_R_POP : UI_R_NONE;
	node = tree_key(s, (size_t)(r - s->res.rows));
	switch (act) {
	/* g, G, S on a node: the same views about that node's function */
	case UI_ACT_CALLERS:
		return ui_open_callers(ui, r->id, r->name);
	case UI_ACT_CALLEES:
		return ui_open_callees(ui, r->id, r->name);
	case UI_ACT_STACKS:
		return ui_open_stacks(ui, KT_ANY, r->id, r->name);
	case UI_ACT_OPEN:
		if (r->nchildren)
			set_open(s, node, !is_open(s, node));
		break;
	case UI_ACT_EXPAND:
		if (!r->nchildren)
			return UI_R_NONE;
		if (is_open(s, node)) {
			ui_sel_move(s, 1, 0); /* already open: step onto the hottest child */
			return UI_R_REDRAW;
		}
		set_open(s, node, 1);
		break;
	case UI_ACT_COLLAPSE:
		if (r->nchildren && is_open(s, node)) {
			set_open(s, node, 0);
		} else if (r->parent >= 0) {
			for (size_t k = 0; k < s->nvis; k++)
				if (s->vis[k] == (size_t)r->parent)
					ui_sel_set(s, k);
			return UI_R_REDRAW;
		} else {
			return UI_R_POP;
		}
		break;
	default:
		return UI_R_NONE;
	}
	tree_sync(s);
	return UI_R_REDRAW;
}

const struct ui_screen_ops ui_callers_ops = {
    .kind = UI_CALLERS,
    .name = "callers",
    .cols = caller_cols,
    .ncols = sizeof(caller_cols) / sizeof(caller_cols[0]),
    .enter = enter_callers,
    .draw = draw,
    .key = key,
    .sync = tree_sync,
    .init = tree_init,
    .free = tree_free,
    .row_key = tree_key,
};

const struct ui_screen_ops ui_callees_ops = {
    .kind = UI_CALLEES,
    .name = "callees",
    .cols = callee_cols,
    .ncols = sizeof(callee_cols) / sizeof(callee_cols[0]),
    .enter = enter_callees,
    .draw = draw,
    .key = key,
    .sync = tree_sync,
    .init = tree_init,
    .free = tree_free,
    .row_key = tree_key,
};
