/* The lines around the screen body: the header (source, event, window, filters, busy
 * split, per-CPU strip), the breadcrumb, and the status line. */
#include "config.h"

#include <string.h>

#include "kerntop/procstat.h"
#include "kerntop/source.h"
#include "kerntop/symbols.h"
#include "kerntop/window.h"
#include "kerntop/util.h"
#include "ui_impl.h"

#define STRIP_CELL_MIN 20
#define NSEG 16
#define SHRINK_MIN 10

/* The per-CPU strip is shown when every sampled CPU gets a readable cell on one line. */
static int strip_fits(const struct kt_ui *ui)
{
	uint32_t n = ui_cpus_sampled(ui);

	return ui->cols >= 80 && ui->rows >= 16 && n && ui->cols / (int)n >= STRIP_CELL_MIN;
}

uint64_t ui_source_now(const struct kt_ui *ui)
{
	if (ui->paused && ui->stats_now)
		return ui->stats_now;
	return ui->env.src ? kt_source_now(ui->env.src) : 0;
}

const struct kt_ps_view *ui_ps(const struct kt_ui *ui)
{
	const struct kt_ps_view *v = ui->ps;

	return v && (v->stat_valid || v->softirqs_valid || v->interrupts_valid) ? v : NULL;
}

int ui_header_height(const struct kt_ui *ui)
{
	return (strip_fits(ui) ? 3 : 2) + ui_hist_lines(ui);
}

int ui_strip_shown(const struct kt_ui *ui)
{
	return strip_fits(ui);
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

/* A header line as segments that give way on a narrow terminal: at level 1, 2, ... the
 * segments with that drop level go and those with that shrink level lose their middle,
 * until the line fits. Markers (REPLAY, filters, PAUSED) have neither: they always stay. */
struct hseg {
	const char *pre; /* drawn plain before the text, e.g. "  lost " */
	char text[160];
	attr_t attr;
	int drop, shrink;
};

struct hline {
	struct hseg s[NSEG];
	int n;
};

static struct hseg *hadd(struct hline *L, const char *pre, attr_t attr, int drop, int shrink)
{
	struct hseg *g = &L->s[L->n < NSEG ? L->n++ : NSEG - 1];

	g->pre = pre;
	g->text[0] = 0;
	g->attr = attr;
	g->drop = drop;
	g->shrink = shrink;
	return g;
}

static int hwidth(const struct hline *L)
{
	int w = 0;

	for (int i = 0; i < L->n; i++)
		if (L->s[i].drop >= 0)
			w += (int)(strlen(L->s[i].pre) + strlen(L->s[i].text));
	return w;
}

static void shrink_middle(char *t, int want)
{
	int len = (int)strlen(t), head;

	if (want < SHRINK_MIN)
		want = SHRINK_MIN;
	if (len <= want)
		return;
	head = (want - 3) / 2;
	memmove(t + head + 3, t + len - (want - 3 - head), (size_t)(want - 3 - head) + 1);
	memcpy(t + head, "...", 3);
}

static void hdraw(struct kt_ui *ui, struct hline *L, int y)
{
	for (int lvl = 1; lvl <= 9 && hwidth(L) > ui->cols; lvl++) {
		for (int i = 0; i < L->n; i++) {
			struct hseg *g = &L->s[i];

			if (g->shrink == lvl && g->drop >= 0)
				shrink_middle(g->text,
					      (int)strlen(g->text) - (hwidth(L) - ui->cols));
			if (g->drop == lvl)
				g->drop = -1;
		}
	}
	move(y, 0);
	clrtoeol();
	for (int i = 0; i < L->n; i++) {
		if (L->s[i].drop < 0)
			continue;
		seg(ui, A_NORMAL, L->s[i].pre);
		seg(ui, L->s[i].attr, L->s[i].text);
	}
}

static void fmt_span(double s, char *buf, size_t len)
{
	if (s >= 120 && (long)s % 60 == 0)
		snprintf(buf, len, "%ldm", (long)s / 60);
	else
		snprintf(buf, len, "%gs", s);
}

static void task_marker(struct kt_ui *ui, char *buf, size_t len)
{
	uint32_t id = ui_task_id(ui);
	const struct kt_task *t =
	    ui->env.win && id != UI_TASK_GONE ? kt_window_task_info(ui->env.win, id) : NULL;

	if (t && t->pid < 0)
		snprintf(buf, len, "tasks %s", t->comm ? t->comm : "");
	else if (t)
		snprintf(buf, len, "task %d %s", (int)t->pid, t->comm ? t->comm : "");
	else
		snprintf(buf, len, "task %d (gone)", (int)ui->task_pid);
}

/* Drop order on a narrow terminal: the CPU count, the event, the middle of the replayed
 * file's name, the window, the file name; never the markers. */
static void draw_title(struct kt_ui *ui)
{
	const struct kt_source_info *info = ui->env.src ? kt_source_info(ui->env.src) : NULL;
	attr_t mark = ui_attr(ui, UI_C_MARK, A_REVERSE | A_BOLD);
	struct hline L = {.n = 0};
	struct hseg *g;
	char span[32];
	uint32_t ncpus = info && info->ncpus ? info->ncpus : ui->sum.ncpus;

	snprintf(hadd(&L, "", ui_attr(ui, UI_C_TITLE, A_BOLD), 0, 0)->text, 16, "kerntop");
	if (info && info->kind && !strcmp(info->kind, "replay")) {
		uint64_t now = ui_source_now(ui);
		const char *base = info->path ? strrchr(info->path, '/') : NULL;

		if (now && !ui->replay_t0)
			ui->replay_t0 = now;
		snprintf(hadd(&L, " ", mark, 0, 0)->text, 16, "REPLAY");
		g = hadd(&L, " ", A_NORMAL, 5, 3);
		snprintf(g->text, sizeof(g->text), "%s",
			 base ? base + 1 : (info->path ? info->path : ""));
		snprintf(hadd(&L, " ", A_NORMAL, 0, 0)->text, 32, "t=%.1fs",
			 ui->replay_t0 ? (double)(now - ui->replay_t0) / 1e9 : 0.0);
	} else if (info) {
		snprintf(hadd(&L, " ", A_NORMAL, 0, 0)->text, 32, "%s",
			 info->kind ? info->kind : "live");
	}
	if (ui->opts->record)
		snprintf(hadd(&L, " ", mark, 0, 0)->text, 8, "REC");
	if (info) {
		g = hadd(&L, " ", A_BOLD, 2, 0);
		if (info->freq_hz)
			snprintf(g->text, sizeof(g->text), "%s %llu Hz",
				 info->event ? info->event : "?",
				 (unsigned long long)info->freq_hz);
		else if (ui->sum.freq_hz > 0)
			snprintf(g->text, sizeof(g->text), "%s %.0f Hz",
				 info->event ? info->event : "?", ui->sum.freq_hz);
		else
			snprintf(g->text, sizeof(g->text), "%s period %llu",
				 info->event ? info->event : "?", (unsigned long long)info->period);
	}
	if (ui->env.win && kt_window_cumulative(ui->env.win)) {
		snprintf(hadd(&L, "  ", A_NORMAL, 4, 0)->text, 16, "cumulative");
	} else if (ui->env.win) {
		fmt_span((double)kt_window_span(ui->env.win) / 1e9, span, sizeof(span));
		snprintf(hadd(&L, "  ", A_NORMAL, 4, 0)->text, 48, "window %s", span);
	}
	snprintf(hadd(&L, "  ", A_NORMAL, 1, 0)->text, 32, "%u CPU%s", ncpus,
		 ncpus == 1 ? "" : "s");
	if (ui->ncpuset) {
		g = hadd(&L, "  ", mark, 0, 6);
		ui_cpus_fmt(ui, g->text, sizeof(g->text));
	}
	if (ui->filter.task != KT_ANY) {
		g = hadd(&L, "  ", mark, 0, 6);
		task_marker(ui, g->text, sizeof(g->text));
	}
	if (ui->filter.ctx != KT_ANY) {
		const struct kt_sym_ctx *c = kt_sym_ctx(ui->env.sym, ui->filter.ctx);

		g = hadd(&L, "  ", mark, 0, 6);
		snprintf(g->text, sizeof(g->text), "ctx:%s", c ? c->label : "?");
	}
	if (ui->env.agg && kt_agg_irq_owner(ui->env.agg))
		snprintf(hadd(&L, "  ", mark, 0, 0)->text, 16, "irq-owner");
	if (ui->filter.hide_idle)
		snprintf(hadd(&L, "  ", A_NORMAL, 0, 0)->text, 16, "idle hidden");
	if (ui->env.agg && kt_agg_baseline(ui->env.agg))
		snprintf(hadd(&L, "  ", mark, 0, 0)->text, 16, "vs baseline");
	if (ui->paused)
		snprintf(hadd(&L, "  ", mark, 0, 0)->text, 16, "PAUSED");
	hdraw(ui, &L, 0);
}

/* Drop order: samples/s, then the hits and the time they cover. */
static void draw_figures(struct kt_ui *ui)
{
	const struct kt_summary *m = &ui->sum;
	const struct kt_source_stats *st = &ui->stats;
	struct hline L = {.n = 0};
	uint64_t lost = st->lost > m->lost ? st->lost : m->lost;
	const struct kt_source_info *info = ui->env.src ? kt_source_info(ui->env.src) : NULL;
	const struct kt_ps_view *ps = ui_ps(ui);
	int from_stat = ps && ps->stat_valid && info && info->event && !strcmp(info->event, "cycles");

	if (from_stat) {
		/* cycles stop on an idle CPU: the split is the kernel's own accounting */
		snprintf(hadd(&L, "kernel ", ui_attr(ui, UI_C_KERNEL, A_BOLD), 0, 0)->text, 16,
			 "%.1f%%", ps->pct[KT_PS_SYSTEM] + ps->pct[KT_PS_IRQ] + ps->pct[KT_PS_SOFTIRQ]);
		snprintf(hadd(&L, "  idle ", ui_attr(ui, UI_C_IDLE, A_BOLD), 0, 0)->text, 16,
			 "%.1f%%", ps->pct[KT_PS_IDLE] + ps->pct[KT_PS_IOWAIT]);
		snprintf(hadd(&L, "  user ", ui_attr(ui, UI_C_USER, A_BOLD), 0, 0)->text, 16,
			 "%.1f%%", ps->pct[KT_PS_USER] + ps->pct[KT_PS_NICE]);
		snprintf(hadd(&L, " ", A_NORMAL, 3, 0)->text, 16, "(/proc/stat)");
	} else {
		snprintf(hadd(&L, "kernel ", ui_attr(ui, UI_C_KERNEL, A_BOLD), 0, 0)->text, 16,
			 "%.1f%%", m->busy_pct);
		snprintf(hadd(&L, "  idle ", ui_attr(ui, UI_C_IDLE, A_BOLD), 0, 0)->text, 16,
			 "%.1f%%", m->idle_pct);
	}
	/* ~: user mode not sampled (no -u), what kernel and idle leave: user time, mostly */
	if (!from_stat && m->user_sampled)
		snprintf(hadd(&L, "  user ", ui_attr(ui, UI_C_USER, A_BOLD), 0, 0)->text, 16,
			 "%.1f%%", m->user_pct);
	else if (!from_stat)
		snprintf(hadd(&L, "  user ", ui_attr(ui, UI_C_USER, A_BOLD), 0, 0)->text, 16,
			 "~%.1f%%", m->unsampled_pct);
	/* hi si st: the kernel's accounting, shown only when there is some (like top) */
	for (int i = KT_PS_IRQ; ps && ps->stat_valid && i <= KT_PS_STEAL; i++) {
		static const char *const pre[] = {"  hi ", "  si ", "  st "};

		if (ps->pct[i] >= 0.05)
			snprintf(hadd(&L, pre[i - KT_PS_IRQ], A_BOLD, 3, 0)->text, 16, "%.1f%%",
				 ps->pct[i]);
	}
	snprintf(hadd(&L, "  ", A_NORMAL, 1, 0)->text, 32, "%.0f samples/s", m->samples_per_s);
	snprintf(hadd(&L, "  ", A_NORMAL, 2, 0)->text, 48, "%llu hits in %.1fs",
		 (unsigned long long)m->samples, m->covered_s);
	snprintf(hadd(&L, "  lost ", lost ? ui_attr(ui, UI_C_ERROR, A_BOLD) : A_NORMAL, 0, 0)->text,
		 24, "%llu", (unsigned long long)lost);
	snprintf(hadd(&L, "  throttled ", st->throttled ? ui_attr(ui, UI_C_ERROR, A_BOLD) : A_NORMAL,
		      0, 0)
		     ->text,
		 24, "%llu", (unsigned long long)st->throttled);
	if (ui->push_text[0])
		snprintf(hadd(&L, "  push ", ui->push_bad ? ui_attr(ui, UI_C_ERROR, A_BOLD) : A_NORMAL,
			      3, 0)
			     ->text,
			 sizeof(ui->push_text), "%s", ui->push_text);
	hdraw(ui, &L, 1);
}

/* One kernel-busy bar per sampled CPU, 0 % for a CPU without hits under the filters. */
static void draw_strip(struct kt_ui *ui)
{
	uint32_t n = ui_cpus_sampled(ui);
	int cell = ui->cols / (int)n;
	double cap = ui->cpus.sum.covered_s * ui->cpus.sum.freq_hz;

	move(2, 0);
	clrtoeol();
	if (!ui->have_cpus)
		return;
	for (uint32_t c = 0; c < n; c++) {
		uint32_t cpu = ui_cpus_sampled_nth(ui, c);
		const struct kt_row *r = NULL;
		double k;
		char lab[24];

		for (size_t i = 0; i < ui->cpus.nrows && !r; i++)
			if (ui->cpus.rows[i].id == cpu)
				r = &ui->cpus.rows[i];
		k = r && cap > 0 ? (double)r->kernel * 100.0 / cap : 0;
		snprintf(lab, sizeof(lab), "cpu%-2u[", cpu);
		mvaddnstr(2, (int)c * cell, lab, cell);
		ui_draw_bar(ui, k, 0, 0, cell - 15);
		snprintf(lab, sizeof(lab), "]%5.1f%% ", k > 100 ? 100.0 : k);
		addnstr(lab, 9);
	}
}

void ui_draw_header(struct kt_ui *ui)
{
	draw_title(ui);
	draw_figures(ui);
	if (strip_fits(ui))
		draw_strip(ui);
	if (ui_hist_lines(ui))
		ui_hist_draw(ui, strip_fits(ui) ? 3 : 2);
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
	/* the context filter scopes every level below it */
	if (ui->filter.ctx != KT_ANY) {
		const struct kt_sym_ctx *c = kt_sym_ctx(ui->env.sym, ui->filter.ctx);

		snprintf(buf, sizeof(buf), "[%s]", c ? c->label : "?");
		seg(ui, ui_attr(ui, UI_C_MARK, A_REVERSE), buf);
		seg(ui, A_NORMAL, " ");
	}
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

/* Shortens the longest path in msg (a word with a '/') in its middle by up to over cells. */
static void shrink_path(char *msg, int over)
{
	char *best = NULL, *p = msg;
	int bestlen = 0;

	while (*p) {
		int len = (int)strcspn(p, " ");

		if (memchr(p, '/', (size_t)len) && len > bestlen) {
			best = p;
			bestlen = len;
		}
		p += len;
		p += strspn(p, " ");
	}
	if (best && bestlen > SHRINK_MIN) {
		char word[256];
		int want = bestlen - over;

		snprintf(word, sizeof(word), "%.*s", bestlen, best);
		shrink_middle(word, want);
		memmove(best + strlen(word), best + bestlen, strlen(best + bestlen) + 1);
		memcpy(best, word, strlen(word));
	}
}

/* A message too long for the line: first its longest path loses its middle; if that is not
 * enough an error goes on over the key bar (which comes back when the error goes); what is
 * still too long keeps its start and its end, where the fix is. */
static void fit_status(struct kt_ui *ui, int y)
{
	char msg[sizeof(ui->status)];
	int len, cut;

	snprintf(msg, sizeof(msg), "%s", ui->status);
	len = (int)strlen(msg);
	if (len > ui->cols)
		shrink_path(msg, len - ui->cols);
	len = (int)strlen(msg);
	attrset(ui->status_err ? ui_attr(ui, UI_C_ERROR, A_BOLD) : A_NORMAL);
	if (len <= ui->cols || !ui->status_err) {
		ui_put_ellipsized(y, 0, ui->cols, msg);
		attrset(A_NORMAL);
		return;
	}
	for (cut = ui->cols; cut > ui->cols / 2 && msg[cut] != ' '; cut--)
		;
	if (msg[cut] != ' ')
		cut = ui->cols;
	mvaddnstr(y, 0, msg, cut);
	move(y + 1, 0);
	clrtoeol();
	ui_put_ellipsized(y + 1, 0, ui->cols, msg + cut + (msg[cut] == ' '));
	attrset(A_NORMAL);
}

void ui_draw_status(struct kt_ui *ui, int y)
{
	move(y, 0);
	clrtoeol();
	if (ui->prompt.active) {
		size_t room = (size_t)ui->cols > strlen(ui->prompt.label) + 2
				  ? (size_t)ui->cols - strlen(ui->prompt.label) - 1
				  : 1;
		const char *b = ui->prompt.buf;

		seg(ui, A_BOLD, ui->prompt.label);
		/* a text longer than the line shows its end, where the typing goes */
		if (ui->prompt.len > room) {
			seg(ui, A_BOLD, "<");
			b += ui->prompt.len - (room - 1);
		}
		seg(ui, A_NORMAL, b);
		return;
	}
	ui_status_expire(ui, 0);
	if (!ui->status[0])
		return;
	fit_status(ui, y);
}

void kt_ui_push_status(struct kt_ui *ui, const char *text, int bad)
{
	if (!ui)
		return;
	snprintf(ui->push_text, sizeof(ui->push_text), "%s", text ? text : "");
	ui->push_bad = bad;
}
