/* History in the viewer (docs/history.md): the Trend column's sparkline of a row's hits per
 * slice, newest on the right, scaled to the row's own peak. */
#include "config.h"

#include <string.h>

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
