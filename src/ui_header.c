/* The lines around the screen body: the header (source, event, window, filters, busy
 * split, per-CPU strip), the breadcrumb, and the status line. */
#include "config.h"

#include <string.h>

#include "kerntop/source.h"
#include "kerntop/window.h"
#include "kerntop/util.h"
#include "ui_impl.h"

#define STRIP_CELL_MIN 20

/* The per-CPU strip is shown when every sampled CPU gets a readable cell on one line. */
static int strip_fits(const struct kt_ui *ui)
{
	uint32_t n = ui->sum.max_cpu ? ui->sum.max_cpu : ui->sum.ncpus;

	return ui->cols >= 80 && ui->rows >= 16 && n && ui->cols / (int)n >= STRIP_CELL_MIN;
}

int ui_header_height(const struct kt_ui *ui)
{
	return strip_fits(ui) ? 3 : 2;
}

/* Appends text at the cursor if it fits before the right edge; returns 0 once it did not. */
static int seg(struct kt_ui *ui, attr_t attr, const char *text)
{
	int y, x, len = (int)strlen(text);

	getyx(stdscr, y, x);
	(void)y;
	if (x + len > ui->cols)
		len = ui->cols - x;
	if (len <= 0)
		return 0;
	attrset(attr);
	addnstr(text, len);
	attrset(A_NORMAL);
	return 1;
}

static void fmt_span(double s, char *buf, size_t len)
{
	if (s >= 120 && (long)s % 60 == 0)
		snprintf(buf, len, "%ldm", (long)s / 60);
	else
		snprintf(buf, len, "%gs", s);
}

static void draw_title(struct kt_ui *ui)
{
	const struct kt_source_info *info = ui->env.src ? kt_source_info(ui->env.src) : NULL;
	attr_t mark = ui_attr(ui, UI_C_MARK, A_REVERSE | A_BOLD);
	char buf[256], span[32];

	move(0, 0);
	clrtoeol();
	seg(ui, ui_attr(ui, UI_C_TITLE, A_BOLD), "kerntop ");
	if (info && info->kind && !strcmp(info->kind, "replay")) {
		uint64_t now = kt_source_now(ui->env.src);
		const char *base = info->path ? strrchr(info->path, '/') : NULL;

		if (now && !ui->replay_t0)
			ui->replay_t0 = now;
		seg(ui, mark, "REPLAY");
		snprintf(buf, sizeof(buf), " %s t=%.1fs ",
			 base ? base + 1 : (info->path ? info->path : ""),
			 ui->replay_t0 ? (double)(now - ui->replay_t0) / 1e9 : 0.0);
		seg(ui, A_NORMAL, buf);
	} else if (info) {
		seg(ui, A_NORMAL, info->kind ? info->kind : "live");
		seg(ui, A_NORMAL, " ");
	}
	if (info) {
		if (info->freq_hz)
			snprintf(buf, sizeof(buf), "%s %llu Hz", info->event ? info->event : "?",
				 (unsigned long long)info->freq_hz);
		else if (ui->sum.freq_hz > 0)
			snprintf(buf, sizeof(buf), "%s %.0f Hz", info->event ? info->event : "?",
				 ui->sum.freq_hz);
		else
			snprintf(buf, sizeof(buf), "%s period %llu",
				 info->event ? info->event : "?", (unsigned long long)info->period);
		seg(ui, A_BOLD, buf);
	}
	if (ui->env.win && kt_window_cumulative(ui->env.win)) {
		seg(ui, A_NORMAL, "  cumulative");
	} else if (ui->env.win) {
		fmt_span((double)kt_window_span(ui->env.win) / 1e9, span, sizeof(span));
		snprintf(buf, sizeof(buf), "  window %s", span);
		seg(ui, A_NORMAL, buf);
	}
	snprintf(buf, sizeof(buf), "  %u CPUs", info && info->ncpus ? info->ncpus : ui->sum.ncpus);
	seg(ui, A_NORMAL, buf);
	if (ui->filter.cpu != KT_ANY) {
		snprintf(buf, sizeof(buf), "cpu %u", ui->filter.cpu);
		seg(ui, A_NORMAL, "  ");
		seg(ui, mark, buf);
	}
	if (ui->filter.task != KT_ANY) {
		uint32_t id = ui_task_id(ui);
		const struct kt_task *t =
		    ui->env.win && id != UI_TASK_GONE ? kt_window_task_info(ui->env.win, id) : NULL;

		if (t && t->pid < 0)
			snprintf(buf, sizeof(buf), "tasks %s", t->comm ? t->comm : "");
		else if (t)
			snprintf(buf, sizeof(buf), "task %d %s", (int)t->pid,
				 t->comm ? t->comm : "");
		else
			snprintf(buf, sizeof(buf), "task %d (gone)", (int)ui->task_pid);
		seg(ui, A_NORMAL, "  ");
		seg(ui, mark, buf);
	}
	if (ui->filter.hide_idle)
		seg(ui, A_NORMAL, "  idle hidden");
	if (ui->paused) {
		seg(ui, A_NORMAL, "  ");
		seg(ui, mark, "PAUSED");
	}
}

static void draw_figures(struct kt_ui *ui)
{
	const struct kt_summary *m = &ui->sum;
	struct kt_source_stats st = {0};
	char buf[256];

	if (ui->env.src)
		kt_source_stats(ui->env.src, &st);
	move(1, 0);
	clrtoeol();
	seg(ui, A_NORMAL, "kernel ");
	snprintf(buf, sizeof(buf), "%.1f%%", m->busy_pct);
	seg(ui, ui_attr(ui, UI_C_KERNEL, A_BOLD), buf);
	seg(ui, A_NORMAL, "  idle ");
	snprintf(buf, sizeof(buf), "%.1f%%", m->idle_pct);
	seg(ui, ui_attr(ui, UI_C_IDLE, A_BOLD), buf);
	seg(ui, A_NORMAL, "  user ");
	snprintf(buf, sizeof(buf), "%.1f%%", m->user_pct);
	seg(ui, ui_attr(ui, UI_C_USER, A_BOLD), buf);
	snprintf(buf, sizeof(buf), "  %.0f samples/s  %llu hits in %.1fs", m->samples_per_s,
		 (unsigned long long)m->samples, m->covered_s);
	seg(ui, A_NORMAL, buf);
	snprintf(buf, sizeof(buf), "  lost %llu",
		 (unsigned long long)(st.lost > m->lost ? st.lost : m->lost));
	seg(ui, (st.lost || m->lost) ? ui_attr(ui, UI_C_ERROR, A_BOLD) : A_NORMAL, buf);
}

static void draw_strip(struct kt_ui *ui)
{
	uint32_t n = ui->sum.max_cpu ? ui->sum.max_cpu : ui->sum.ncpus;
	int cell = ui->cols / (int)n;

	move(2, 0);
	clrtoeol();
	if (!ui->have_cpus)
		return;
	for (size_t i = 0; i < ui->cpus.nrows; i++) {
		const struct kt_row *r = &ui->cpus.rows[i];
		double cap = ui->cpus.sum.covered_s * ui->cpus.sum.freq_hz;
		double k = cap > 0 ? (double)r->kernel * 100.0 / cap : 0;
		char lab[24];
		int x = (int)r->id * cell;

		if (r->id >= n)
			continue;
		snprintf(lab, sizeof(lab), "cpu%-2u[", r->id);
		mvaddnstr(2, x, lab, cell);
		ui_draw_bar(ui, k, 0, 0, cell - 15);
		snprintf(lab, sizeof(lab), "]%5.1f%% ", k > 100 ? 100.0 : k);
		addnstr(lab, 9);
	}
}

void ui_draw_header(struct kt_ui *ui)
{
	draw_title(ui);
	draw_figures(ui);
	if (ui_header_height(ui) > 2)
		draw_strip(ui);
}

/* "modules > vmlinux > tcp_sendmsg", the sort key and the screen's text filter. */
void ui_draw_crumb(struct kt_ui *ui, int y)
{
	const struct ui_screen *chain[64];
	const struct ui_screen *s;
	int n = 0;
	char buf[128];

	for (s = ui->top; s && n < 64; s = s->below)
		chain[n++] = s;
	move(y, 0);
	clrtoeol();
	for (int i = n - 1; i >= 0; i--) {
		seg(ui, i == 0 ? ui_attr(ui, UI_C_TITLE, A_BOLD) : A_NORMAL, chain[i]->crumb);
		if (i)
			seg(ui, A_NORMAL, " > ");
	}
	s = ui->top;
	if (!s)
		return;
	if (s->text[0]) {
		snprintf(buf, sizeof(buf), "   filter \"%s\"", s->text);
		seg(ui, A_BOLD, buf);
	}
	if (s->ops->ncols && s->nvis) {
		snprintf(buf, sizeof(buf), "   %zu/%zu", s->sel + 1, s->nvis);
		seg(ui, A_NORMAL, buf);
	}
}

void ui_draw_status(struct kt_ui *ui, int y)
{
	move(y, 0);
	clrtoeol();
	if (ui->prompt.active) {
		seg(ui, A_BOLD, ui->prompt.label);
		seg(ui, A_NORMAL, ui->prompt.buf);
		return;
	}
	ui_status_expire(ui, 0);
	if (!ui->status[0])
		return;
	attrset(ui->status_err ? ui_attr(ui, UI_C_ERROR, A_BOLD) : A_NORMAL);
	ui_put_ellipsized(y, 0, ui->cols, ui->status);
	attrset(A_NORMAL);
}
