/* Function lists: the functions (or address buckets) of one module, and the flat top
 * functions across all modules. Enter opens a function's lines, g its callers, G its
 * callees, S its hottest stacks. */
#include "config.h"

#include "ui_impl.h"

/* A function that turns IRQs back on collects the hits of IRQ-off work (docs/contexts.md). */
static void col_fname(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		      char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", r->name ? r->name : "?", r->irq_helper ? " [irq-on]" : "");
}

static const struct ui_col func_cols[] = {
    {"Function", 20, 0, KT_SORT_NAME, 1, 1, col_fname, NULL},
    {"Hits", 9, 0, KT_SORT_HITS, 0, 0, ui_col_hits, NULL},
    {"CPU ms", 10, 2, -1, 0, 0, ui_col_ms, NULL},
    {"%Kernel", 8, 0, -1, 0, 0, ui_col_kernel, NULL},
    {"%Machine", 9, 1, -1, 0, 0, ui_col_machine, NULL},
    {"Hits/s", 9, 3, KT_SORT_RATE, 0, 0, ui_col_rate, NULL},
    UI_COL_DELTA,
    UI_COL_TREND,
};

static const struct ui_col top_cols[] = {
    {"Function", 20, 0, KT_SORT_NAME, 1, 1, col_fname, NULL},
    {"Module", 12, 2, -1, 0, 1, ui_col_module, NULL},
    {"Hits", 9, 0, KT_SORT_HITS, 0, 0, ui_col_hits, NULL},
    {"CPU ms", 10, 3, -1, 0, 0, ui_col_ms, NULL},
    {"%Kernel", 8, 0, -1, 0, 0, ui_col_kernel, NULL},
    {"%Machine", 9, 1, -1, 0, 0, ui_col_machine, NULL},
    {"Hits/s", 9, 4, KT_SORT_RATE, 0, 0, ui_col_rate, NULL},
    UI_COL_DELTA,
    UI_COL_TREND,
};

static int push(struct kt_ui *ui, const struct ui_screen_ops *ops, uint32_t arg, const char *name)
{
	struct ui_screen *n = ui_screen_new(ui, ops, arg, name ? name : "?");

	if (!n)
		return UI_R_NONE;
	ui_screen_free(ui->pending);
	ui->pending = n;
	return UI_R_PUSH;
}

int ui_open_lines(struct kt_ui *ui, uint32_t func, const char *name)
{
	return push(ui, &ui_lines_ops, func, name);
}

/* The crumb of a screen about one function: "name > what", or just "what" from the lines
 * screen, where the function is already the previous crumb. */
static void func_crumb(const struct kt_ui *ui, const char *name, const char *what, char *buf,
		       size_t len)
{
	if (ui->top->ops->flags & UI_SF_FUNC_CRUMB)
		snprintf(buf, len, "%s", what);
	else
		snprintf(buf, len, "%s > %s", name ? name : "?", what);
}

int ui_open_callers(struct kt_ui *ui, uint32_t func, const char *name)
{
	char crumb[160];

	func_crumb(ui, name, "callers", crumb, sizeof(crumb));
	return push(ui, &ui_callers_ops, func, crumb);
}

int ui_open_callees(struct kt_ui *ui, uint32_t func, const char *name)
{
	char crumb[160];

	func_crumb(ui, name, "callees", crumb, sizeof(crumb));
	return push(ui, &ui_callees_ops, func, crumb);
}

int ui_open_stacks(struct kt_ui *ui, uint32_t module, uint32_t func, const char *name)
{
	char crumb[160];
	int r;

	if (func == KT_ANY) {
		snprintf(crumb, sizeof(crumb), "%s > stacks", name ? name : "?");
		r = push(ui, &ui_stacks_module_ops, module, crumb);
	} else {
		func_crumb(ui, name, "stacks", crumb, sizeof(crumb));
		r = push(ui, &ui_stacks_func_ops, func, crumb);
	}
	return r;
}

static void enter_funcs(struct kt_ui *ui, struct ui_screen *s)
{
	s->q.view = KT_VIEW_FUNCS;
	s->q.module = s->arg;
}

static void enter_top(struct kt_ui *ui, struct ui_screen *s)
{
	s->q.view = KT_VIEW_TOPFUNCS;
	s->q.limit = 1000;
}

static int key(struct kt_ui *ui, struct ui_screen *s, enum ui_act act)
{
	const struct kt_row *r = ui_sel_row(s);

	if (!r)
		return UI_R_NONE;
	if (act == UI_ACT_OPEN)
		return ui_open_lines(ui, r->id, r->name);
	if (act == UI_ACT_CALLERS)
		return ui_open_callers(ui, r->id, r->name);
	if (act == UI_ACT_CALLEES)
		return ui_open_callees(ui, r->id, r->name);
	if (act == UI_ACT_STACKS)
		return ui_open_stacks(ui, KT_ANY, r->id, r->name);
	return UI_R_NONE;
}

const struct ui_screen_ops ui_funcs_ops = {
    .kind = UI_FUNCS,
    .name = "functions",
    .cols = func_cols,
    .ncols = sizeof(func_cols) / sizeof(func_cols[0]),
    .enter = enter_funcs,
    .draw = ui_table_draw,
    .key = key,
    .flags = UI_SF_PER_CPU_TOGGLE,
};

const struct ui_screen_ops ui_topfuncs_ops = {
    .kind = UI_TOPFUNCS,
    .name = "top functions",
    .cols = top_cols,
    .ncols = sizeof(top_cols) / sizeof(top_cols[0]),
    .enter = enter_top,
    .draw = ui_table_draw,
    .key = key,
    .flags = UI_SF_PER_CPU_TOGGLE,
};
