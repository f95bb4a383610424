/* The main screen: one row per module (vmlinux, modules, [idle], [user]); Enter opens the
 * module's functions, S its hottest stacks. */
#include "config.h"

#include "ui_impl.h"

static const struct ui_col cols[] = {
    {"Module", 14, 0, KT_SORT_NAME, 1, 1, ui_col_name, NULL},
    {"Hits", 9, 0, KT_SORT_HITS, 0, 0, ui_col_hits, NULL},
    {"CPU ms", 10, 2, -1, 0, 0, ui_col_ms, NULL},
    {"%Kernel", 8, 0, -1, 0, 0, ui_col_kernel, NULL},
    {"%Machine", 9, 1, -1, 0, 0, ui_col_machine, NULL},
    {"Hits/s", 9, 3, KT_SORT_RATE, 0, 0, ui_col_rate, NULL},
    UI_COL_DELTA,
    UI_COL_TREND,
};

static void enter(struct kt_ui *ui, struct ui_screen *s)
{
	s->q.view = KT_VIEW_MODULES;
}

static int key(struct kt_ui *ui, struct ui_screen *s, enum ui_act act)
{
	const struct kt_row *r = ui_sel_row(s);
	struct ui_screen *n;

	if (r && act == UI_ACT_STACKS)
		return ui_open_stacks(ui, r->id, KT_ANY, r->name);
	if (act != UI_ACT_OPEN || !r)
		return UI_R_NONE;
	n = ui_screen_new(ui, &ui_funcs_ops, r->id, r->name ? r->name : "?");
	if (!n)
		return UI_R_NONE;
	ui_screen_free(ui->pending);
	ui->pending = n;
	return UI_R_PUSH;
}

const struct ui_screen_ops ui_modules_ops = {
    .kind = UI_MODULES,
    .name = "modules",
    .cols = cols,
    .ncols = sizeof(cols) / sizeof(cols[0]),
    .enter = enter,
    .draw = ui_table_draw,
    .key = key,
    .flags = UI_SF_PER_CPU_TOGGLE,
};
