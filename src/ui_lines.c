/* One function's source lines (with debug info) or address buckets, led by a "callers"
 * and a "callees" row; Enter on [callees] (or G) opens the function's callees tree, Enter
 * on any other row (or g) its callers tree, S its hottest stacks. */
#include "config.h"

#include <inttypes.h>

#include "ui_impl.h"

static void col_addr(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		     char *buf, size_t len)
{
	snprintf(buf, len, "%016" PRIx64, r->addr);
}

static const struct ui_col cols[] = {
    {"Line / bucket", 20, 0, KT_SORT_NAME, 1, 1, ui_col_name, NULL},
    {"Address", 16, 1, -1, 0, 0, col_addr, NULL},
    {"Hits", 9, 0, KT_SORT_HITS, 0, 0, ui_col_hits, NULL},
    {"CPU ms", 10, 3, -1, 0, 0, ui_col_ms, NULL},
    {"%Kernel", 8, 0, -1, 0, 0, ui_col_kernel, NULL},
    {"Hits/s", 9, 2, KT_SORT_RATE, 0, 0, ui_col_rate, NULL},
};

static void enter(struct kt_ui *ui, struct ui_screen *s)
{
	s->q.view = KT_VIEW_LINES;
	s->q.func = s->arg;
}

/* Every row carries the function's id: a row is also known by its name, hashed ("hot.c:11"
 * stays "hot.c:11" across refreshes). */
static uint64_t row_key(const struct ui_screen *s, size_t i)
{
	const struct kt_row *r = &s->res.rows[i];
	uint64_t h = 1469598103934665603ull;

	if (!r->name)
		return 0;
	for (const unsigned char *p = (const unsigned char *)r->name; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h;
}

/* a: the function's instructions, at the selected line or bucket. */
static int annotate(struct kt_ui *ui, struct ui_screen *s)
{
	const struct kt_row *r = ui_sel_row(s);

	return ui_open_annotate(ui, s->arg, r ? r->addr : 0);
}

static int key(struct kt_ui *ui, struct ui_screen *s, enum ui_act act)
{
	int callees = s->vis && s->sel < s->nvis && s->vis[s->sel] == UI_VIS_CALLEES;

	if ((act == UI_ACT_OPEN && callees) || act == UI_ACT_CALLEES)
		return ui_open_callees(ui, s->arg, s->crumb);
	if (act == UI_ACT_OPEN || act == UI_ACT_CALLERS)
		return ui_open_callers(ui, s->arg, s->crumb);
	if (act == UI_ACT_STACKS)
		return ui_open_stacks(ui, KT_ANY, s->arg, s->crumb);
	return UI_R_NONE;
}

const struct ui_screen_ops ui_lines_ops = {
    .kind = UI_LINES,
    .name = "lines",
    .cols = cols,
    .ncols = sizeof(cols) / sizeof(cols[0]),
    .enter = enter,
    .draw = ui_table_draw,
    .key = key,
    .flags = UI_SF_CALL_ROWS | UI_SF_FUNC_CRUMB,
    .row_key = row_key,
    .annotate = annotate,
};
