/* The CPU screen: one row per CPU with its kernel/user/idle split, top module and top
 * function; Enter filters every screen to that CPU (again: all CPUs). */
#include "config.h"

#include "kerntop/source.h"
#include "ui_impl.h"

/* Shares of the CPU's capacity; without user sampling, user is what kernel and idle leave. */
static void split(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		  double *k, double *u, double *i)
{
	const struct kt_source_info *info = ui->env.src ? kt_source_info(ui->env.src) : NULL;
	double cap = s->res.sum.covered_s * s->res.sum.freq_hz;

	*k = *u = *i = 0;
	if (cap <= 0)
		return;
	*k = (double)r->kernel * 100.0 / cap;
	*i = (double)r->idle_hits * 100.0 / cap;
	if (info && info->user)
		*u = (double)r->user * 100.0 / cap;
	else
		*u = 100.0 - *k - *i;
	if (*u < 0)
		*u = 0;
}

static void col_cpu(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		    char *buf, size_t len)
{
	snprintf(buf, len, "%s%u", ui->filter.cpu == r->id ? "*" : "", r->id);
}

static void col_k(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		  char *buf, size_t len)
{
	double k, u, i;

	split(ui, s, r, &k, &u, &i);
	ui_fmt_pct(k, buf, len);
}

static void col_u(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		  char *buf, size_t len)
{
	double k, u, i;

	split(ui, s, r, &k, &u, &i);
	ui_fmt_pct(u, buf, len);
}

static void col_i(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		  char *buf, size_t len)
{
	double k, u, i;

	split(ui, s, r, &k, &u, &i);
	ui_fmt_pct(i, buf, len);
}

static void col_topmod(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		       char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->top_module ? r->top_module : "");
}

static void col_topfunc(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
			char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->top_func ? r->top_func : "");
}

static void cell_bar(struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r, int y,
		     int x, int w)
{
	double k, u, i;

	split(ui, s, r, &k, &u, &i);
	addch('[');
	ui_draw_bar(ui, k, u, i, w - 2);
	addch(']');
}

static const struct ui_col cols[] = {
    {"CPU", 6, 0, KT_SORT_NAME, 0, 1, col_cpu, NULL},
    {"Hits", 9, 0, KT_SORT_HITS, 0, 0, ui_col_hits, NULL},
    {"Split (#u.)", 14, 2, -1, 0, 1, NULL, cell_bar},
    {"Kernel", 7, 0, -1, 0, 0, col_k, NULL},
    {"User", 7, 1, -1, 0, 0, col_u, NULL},
    {"Idle", 7, 0, -1, 0, 0, col_i, NULL},
    {"Top module", 12, 3, -1, 0, 1, col_topmod, NULL},
    {"Top function", 14, 0, -1, 1, 1, col_topfunc, NULL},
};

static void enter(struct kt_ui *ui, struct ui_screen *s)
{
	s->q.view = KT_VIEW_CPUS;
	s->sort_col = 0;
}

static int key(struct kt_ui *ui, struct ui_screen *s, enum ui_act act)
{
	const struct kt_row *r = ui_sel_row(s);

	if (act != UI_ACT_OPEN || !r)
		return UI_R_NONE;
	if (ui->filter.cpu == r->id) {
		ui->filter.cpu = KT_ANY;
		ui_set_status(ui, 0, "showing all CPUs");
	} else {
		ui->filter.cpu = r->id;
		ui_set_status(ui, 0, "every screen shows cpu %u only (x or Enter on it again: all)",
			      r->id);
	}
	return UI_R_POP;
}

const struct ui_screen_ops ui_cpus_ops = {
    .kind = UI_CPUS,
    .name = "CPUs",
    .cols = cols,
    .ncols = sizeof(cols) / sizeof(cols[0]),
    .enter = enter,
    .draw = ui_table_draw,
    .key = key,
};
