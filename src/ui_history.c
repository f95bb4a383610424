/* History in the viewer (docs/history.md): the Trend column's sparkline of a row's hits per
 * slice, newest on the right, scaled to the row's own peak. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "kerntop/procstat.h"
#include "ui_impl.h"

/* Level 1..8 as block characters, or as an ASCII ramp that reads low to high. */
static const char *const blocks[9] = {" ",	"\u2581", "\u2582", "\u2583", "\u2584",
				      "\u2585", "\u2586", "\u2587", "\u2588"};
static const char ascii_ramp[] = " _.-:=+*#";

void ui_spark_char(const struct kt_ui *ui, int level, char *buf, size_t len)
{
	if (level < 0)
		level = 0;
	if (level > 8)
		level = 8;
	if (ui->utf8)
		snprintf(buf, len, "%s", blocks[level]);
	else
		snprintf(buf, len, "%c", ascii_ramp[level]);
}

uint32_t ui_trend_points(const struct kt_ui *ui, const struct ui_screen *s)
{
	for (int i = 0; i < s->ops->ncols; i++)
		if (s->ops->cols[i].cell == ui_cell_trend)
			return ui_col_hidden(ui, &s->ops->cols[i]) ? 0 : UI_TREND_W;
	return 0;
}

/* "12k": a peak rate in at most 5 cells. */
static void fmt_peak(double v, char *buf, size_t len)
{
	if (v < 100)
		snprintf(buf, len, "%.1f", v);
	else if (v < 100000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.0fk", v / 1000);
}

/* The newest points that fit, right-aligned; with the peak on (ui->trend_peak), the row's
 * highest rate per second after them. */
void ui_cell_trend(struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r, int y,
		   int x, int w)
{
	uint32_t n = s->res.sum.trend_points, from;
	int room = w, pad;
	char pk[16] = "";

	mvhline(y, x, ' ', w);
	if (!r->trend || !n)
		return;
	if (ui->trend_peak) {
		fmt_peak(s->res.sum.trend_point_s > 0 ? r->trend_peak / s->res.sum.trend_point_s
						      : 0,
			 pk, sizeof(pk));
		room = w - 6;
		if (room < 1)
			room = 1;
	}
	from = n > (uint32_t)room ? n - (uint32_t)room : 0;
	pad = room - (int)(n - from);
	move(y, x + pad);
	for (uint32_t i = from; i < n; i++) {
		char c[8];

		ui_spark_char(ui, kt_trend_level(r->trend[i], r->trend_peak), c, sizeof(c));
		addstr(c);
	}
	if (pk[0])
		ui_put(y, x + room, w - room, pk, 1);
}

int ui_has_baseline(const struct kt_ui *ui)
{
	return ui->env.agg && kt_agg_baseline(ui->env.agg) != NULL;
}

void ui_col_delta(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		  char *buf, size_t len)
{
	if (r->base_state != KT_BASE_NONE)
		snprintf(buf, len, "%+.1f", r->delta_pct);
}

void ui_col_ratio(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		  char *buf, size_t len)
{
	if (r->base_state == KT_BASE_NEW)
		snprintf(buf, len, "new");
	else if (r->base_state == KT_BASE_GONE)
		snprintf(buf, len, "gone");
	else if (r->base_state == KT_BASE_BOTH)
		snprintf(buf, len, r->rate_ratio < 100 ? "%.2fx" : "%.0fx", r->rate_ratio);
}

int ui_baseline_take(struct kt_ui *ui)
{
	struct kt_baseline *b;
	char src[64];
	const struct kt_source_info *info = ui->env.src ? kt_source_info(ui->env.src) : NULL;
	double t = ui->start_ns && ui_source_now(ui) > ui->start_ns
		       ? (double)(ui_source_now(ui) - ui->start_ns) / 1e9
		       : 0;

	if (!ui->env.agg)
		return UI_R_NONE;
	if (!ui->sum.samples) {
		ui_set_status(ui, 0, "no samples yet: nothing to take as the baseline");
		return UI_R_REDRAW;
	}
	snprintf(src, sizeof(src), "%s window at %.1f s", info && info->path ? "replay" : "live",
		 t);
	if (kt_baseline_capture(ui->env.agg, src, &b) < 0) {
		ui_set_status(ui, 1, "baseline: out of memory");
		return UI_R_REDRAW;
	}
	kt_agg_set_baseline(ui->env.agg, b);
	ui_set_status(ui, 0, "baseline: the window now (%llu samples); B clears it",
		      (unsigned long long)kt_baseline_samples(b));
	return UI_R_REQUERY;
}

int ui_baseline_clear(struct kt_ui *ui)
{
	if (!ui_has_baseline(ui)) {
		ui_set_status(ui, 0, "no baseline (b takes the window as one)");
		return UI_R_REDRAW;
	}
	kt_agg_set_baseline(ui->env.agg, NULL);
	ui_set_status(ui, 0, "baseline cleared");
	return UI_R_REQUERY;
}

/* --- the history meters --- */

void ui_hist_push(struct kt_ui *ui)
{
	const struct kt_ps_view *ps = ui->env.proc ? kt_procstat_view(ui->env.proc) : NULL;
	struct ui_hist_pt *p;
	double busy, idle;

	if (!ui->env.agg || kt_agg_recent_split(ui->env.agg, &busy, &idle) < 0)
		return;
	if (!ui->hist) {
		ui->hist = calloc(UI_HIST_MAX, sizeof(*ui->hist));
		if (!ui->hist)
			return;
	}
	p = &ui->hist[ui->hist_head];
	ui->hist_head = (ui->hist_head + 1) % UI_HIST_MAX;
	if (ui->hist_n < UI_HIST_MAX)
		ui->hist_n++;
	p->busy = (float)busy;
	p->idle = (float)idle;
	p->si = ps && ps->stat_valid ? (float)ps->pct[KT_PS_SOFTIRQ] : -1.0f;
}

int ui_hist_lines(const struct kt_ui *ui)
{
	if (ui->hist_mode == UI_HIST_OFF)
		return 0;
	if (ui->hist_mode == UI_HIST_BIG)
		return ui->rows >= 20 ? 3 : 0;
	return ui->rows >= UI_HIST_ROWS ? 1 : 0;
}

int ui_hist_mode_next(struct kt_ui *ui)
{
	static const char *const what[] = {
	    "history meters: one line (on a terminal of 36 rows or more)",
	    "history meters: big, one line each", "history meters: off"};

	ui->hist_mode = (ui->hist_mode + 1) % 3;
	ui_set_status(ui, 0, "%s", what[ui->hist_mode]);
	return UI_R_REDRAW;
}

/* The i-th newest point of series which (0 busy, 1 si, 2 idle); -1 when unknown. */
static double hist_at(const struct kt_ui *ui, uint32_t i, int which)
{
	const struct ui_hist_pt *p = &ui->hist[(ui->hist_head + UI_HIST_MAX - 1 - i) % UI_HIST_MAX];

	return which == 0 ? p->busy : which == 1 ? p->si : p->idle;
}

/* "label 12.3% " then the last w points of a series as a sparkline on a 0-100 % scale,
 * newest on the right; one level per 12.5 %. */
static void hist_graph(struct kt_ui *ui, int y, int x, int w, int which)
{
	static const char *const label[] = {"busy", "si", "idle"};
	uint32_t n = ui->hist_n < (uint32_t)(w > 0 ? w : 0) ? ui->hist_n : (uint32_t)w;
	double now = ui->hist_n ? hist_at(ui, 0, which) : -1;
	char head[32];
	int lw;

	if (now < 0)
		snprintf(head, sizeof(head), "%-4s  n/a ", label[which]);
	else
		snprintf(head, sizeof(head), "%-4s%5.1f%% ", label[which], now);
	lw = (int)strlen(head);
	attrset(ui_attr(ui, UI_C_KEY, A_BOLD));
	ui_put(y, x, lw, head, 0);
	attrset(A_NORMAL);
	x += lw;
	w -= lw;
	if (w <= 0)
		return;
	mvhline(y, x, ' ', w);
	if (n > (uint32_t)w)
		n = (uint32_t)w;
	move(y, x + w - (int)n);
	attron(ui_attr(ui, which == 2 ? UI_C_IDLE : UI_C_KERNEL, 0));
	for (uint32_t i = n; i-- > 0;) {
		double v = hist_at(ui, i, which);
		char c[8];
		int lv = v <= 0 ? 0 : v >= 100 ? 8 : (int)((v * 8 + 99.999) / 100);

		ui_spark_char(ui, v < 0 ? 0 : lv, c, sizeof(c));
		addstr(c);
	}
	attroff(ui_attr(ui, which == 2 ? UI_C_IDLE : UI_C_KERNEL, 0));
}

void ui_hist_draw(struct kt_ui *ui, int y)
{
	int lines = ui_hist_lines(ui);

	if (lines == 3) {
		for (int k = 0; k < 3; k++) {
			move(y + k, 0);
			clrtoeol();
			hist_graph(ui, y + k, 0, ui->cols, k);
		}
		return;
	}
	move(y, 0);
	clrtoeol();
	for (int k = 0; k < 3; k++) {
		int w = (ui->cols - 4) / 3;

		hist_graph(ui, y, k * (w + 2), w, k);
	}
}
