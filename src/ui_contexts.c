/* The contexts screen (e): one row per execution context (softirq NET_RX, syscall
 * sendfile64, idle ...) with a column per CPU; Enter filters every screen to the context
 * (again: all contexts). Contexts come from call chains: without them it says so. */
#include "config.h"

#include "kerntop/symbols.h"
#include "kerntop/procstat.h"
#include "ui_impl.h"

static void col_ctx(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		    char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", ui->filter.ctx == r->id ? "*" : "", r->name ? r->name : "?");
}

static const struct ui_col cols[] = {
    {"Context", 24, 0, KT_SORT_NAME, 1, 1, col_ctx, NULL},
    {"Hits", 9, 0, KT_SORT_HITS, 0, 0, ui_col_hits, NULL},
    {"CPU ms", 10, 3, -1, 0, 0, ui_col_ms, NULL},
    {"%Kernel", 8, 0, -1, 0, 0, ui_col_kernel, NULL},
    {"%Machine", 9, 1, -1, 0, 0, ui_col_machine, NULL},
    {"Hits/s", 9, 2, KT_SORT_RATE, 0, 0, ui_col_rate, NULL},
    UI_COL_DELTA,
    UI_COL_TREND,
};

static void enter(struct kt_ui *ui, struct ui_screen *s)
{
	s->q.view = KT_VIEW_CONTEXTS;
	if (ui->filter.ctx != KT_ANY) { /* open on the chosen context: Enter clears it */
		s->sel_id = ui->filter.ctx;
		s->sel_valid = 1;
	}
}

/* The screen lists every context even under a context filter: the filter is chosen here. */
static int key(struct kt_ui *ui, struct ui_screen *s, enum ui_act act)
{
	const struct kt_row *r = ui_sel_row(s);

	if (act != UI_ACT_OPEN || !r)
		return UI_R_NONE;
	if (ui->filter.ctx == r->id) {
		ui->filter.ctx = KT_ANY;
		ui_set_status(ui, 0, "showing all contexts");
	} else {
		ui->filter.ctx = r->id;
		ui_set_status(ui, 0, "every screen shows context %s only (x: all)",
			      r->name ? r->name : "");
	}
	return UI_R_POP;
}

/* Without chains, what the kernel itself accounted instead (/proc/stat, /proc/softirqs):
 * the machine's hi si st, its busiest vectors, then one line per CPU, in lines [y, end). */
static void draw_accounted(struct kt_ui *ui, int y, int end)
{
	const struct kt_ps_view *v = ui_ps(ui);
	char line[512], top[256];

	if (!v || y + 1 >= end)
		return;
	if (v->stat_valid) {
		snprintf(line, sizeof(line),
			 "instead, the kernel's own accounting over the last %.1f s: hi %.1f%%  si "
			 "%.1f%%  st %.1f%%  sy %.1f%%",
			 v->interval_s, v->pct[KT_PS_IRQ], v->pct[KT_PS_SOFTIRQ], v->pct[KT_PS_STEAL],
			 v->pct[KT_PS_SYSTEM]);
		move(++y, 0);
		clrtoeol();
		mvaddnstr(y, 2, line, ui->cols - 2);
	}
	kt_ps_fmt_softirqs(v, -1, 5, top, sizeof(top));
	if (top[0] && y + 1 < end) {
		snprintf(line, sizeof(line), "softirqs: %s", top);
		move(++y, 0);
		clrtoeol();
		mvaddnstr(y, 2, line, ui->cols - 2);
	}
	for (uint32_t c = 0; c < v->max_cpu && y + 1 < end; c++) {
		int n;

		if (!v->cpu[c].valid)
			continue;
		n = snprintf(line, sizeof(line), "cpu%u: si %.1f%%  hi %.1f%%  ", c,
			     v->cpu[c].pct[KT_PS_SOFTIRQ], v->cpu[c].pct[KT_PS_IRQ]);
		kt_ps_fmt_softirqs(v, (int)c, 3, line + n, sizeof(line) - (size_t)n);
		move(++y, 0);
		clrtoeol();
		mvaddnstr(y, 4, line, ui->cols - 4);
	}
}

static void draw(struct kt_ui *ui, struct ui_screen *s, int y, int h)
{
	const struct kt_source_info *info = ui->env.src ? kt_source_info(ui->env.src) : NULL;
	int my;

	ui_table_draw(ui, s, y, h);
	if (s->res.sum.stacked || (info && info->callchain))
		return;
	my = y + 2 + (int)s->nvis;
	if (my >= y + h)
		return;
	move(my, 0);
	clrtoeol();
	mvaddnstr(my, 2,
		  "contexts need call chains: start kerntop with -g (--call-graph), or replay a "
		  "recording made with -g; without them a sample is only idle, user or unknown",
		  ui->cols - 2);
	draw_accounted(ui, my, y + h);
}

const struct ui_screen_ops ui_contexts_ops = {
    .kind = UI_CONTEXTS,
    .name = "contexts",
    .cols = cols,
    .ncols = sizeof(cols) / sizeof(cols[0]),
    .enter = enter,
    .draw = draw,
    .key = key,
    .unfiltered = UI_UNFILTERED_CTX, /* every context stays listed, to pick another */
    .flags = UI_SF_PER_CPU,
};
