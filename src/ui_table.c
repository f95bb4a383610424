/* The generic row list: column layout that drops columns on narrow terminals, per-CPU
 * columns, the selection kept on the same row id across refreshes, and scrolling. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kerntop/source.h"
#include "ui_impl.h"

void ui_put(int y, int x, int w, const char *s, int right)
{
	int len = (int)strlen(s), cells = 0;

	if (w <= 0)
		return;
	/* cells, not bytes, for a UTF-8 title such as "Δ%" (continuation bytes take none) */
	for (const char *p = s; *p; p++)
		cells += ((unsigned char)*p & 0xc0) != 0x80;
	if (cells < len && cells <= w) {
		if (right && cells < w)
			mvhline(y, x, ' ', w - cells);
		mvaddstr(y, right ? x + w - cells : x, s);
		if (!right && cells < w)
			mvhline(y, x + cells, ' ', w - cells);
		return;
	}
	if (len > w)
		len = w;
	if (right && len < w) {
		mvhline(y, x, ' ', w - len);
		mvaddnstr(y, x + w - len, s, len);
	} else {
		mvaddnstr(y, x, s, len);
		if (len < w)
			mvhline(y, x + len, ' ', w - len);
	}
}

/* Text in at most w cells: too long, it keeps its start and its end (where a message says
 * what to do) around "...". */
void ui_put_ellipsized(int y, int x, int w, const char *s)
{
	int len = (int)strlen(s), head, tail;

	if (w <= 0)
		return;
	if (len <= w || w < 12) {
		mvaddnstr(y, x, s, w);
		return;
	}
	head = w / 3;
	tail = w - head - 3;
	mvaddnstr(y, x, s, head);
	addstr("...");
	addnstr(s + len - tail, tail);
}

void ui_fmt_count(uint64_t v, char *buf, size_t len)
{
	if (v < 10000000)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else if (v < 10000000000ull)
		snprintf(buf, len, "%lluk", (unsigned long long)(v / 1000));
	else
		snprintf(buf, len, "%lluM", (unsigned long long)(v / 1000000));
}

void ui_fmt_ms(double ms, char *buf, size_t len)
{
	if (ms < 100000)
		snprintf(buf, len, "%.1f", ms);
	else
		snprintf(buf, len, "%.0f", ms);
}

void ui_fmt_pct(double p, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f%%", p);
}

void ui_fmt_rate(double r, char *buf, size_t len)
{
	if (r < 1000)
		snprintf(buf, len, "%.1f", r);
	else
		snprintf(buf, len, "%.0f", r);
}

void ui_col_name(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		 char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->name ? r->name : "?");
}

void ui_col_hits(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		 char *buf, size_t len)
{
	ui_fmt_count(r->hits, buf, len);
}

void ui_col_ms(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r, char *buf,
	       size_t len)
{
	ui_fmt_ms(r->ms, buf, len);
}

void ui_col_kernel(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		   char *buf, size_t len)
{
	ui_fmt_pct(r->pct_kernel, buf, len);
}

void ui_col_machine(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		    char *buf, size_t len)
{
	ui_fmt_pct(r->pct_machine, buf, len);
}

void ui_col_rate(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		 char *buf, size_t len)
{
	ui_fmt_rate(r->per_s, buf, len);
}

void ui_col_module(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		   char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->module ? r->module : "");
}

/* Rebuilds the visible rows after a query and finds the selected row again by its id. */
void ui_table_sync(struct ui_screen *s)
{
	size_t n = s->res.nrows + 1, j = 0;

	n++; /* room for the second synthetic row of a lines screen */
	if (n > s->capvis) {
		size_t *v = realloc(s->vis, n * sizeof(*v));

		if (!v) {
			s->nvis = 0;
			return;
		}
		s->vis = v;
		s->capvis = n;
	}
	if (s->ops->flags & UI_SF_CALL_ROWS) {
		s->vis[j++] = UI_VIS_CALLERS;
		s->vis[j++] = UI_VIS_CALLEES;
	}
	for (size_t i = 0; i < s->res.nrows; i++) {
		if ((s->ops->flags & UI_SF_OWN_TEXT) && s->text[0] &&
		    !kt_contains_ci(s->res.rows[i].name, s->text))
			continue;
		s->vis[j++] = i;
	}
	s->nvis = j;
	if (s->sel_valid) {
		for (size_t i = 0; i < s->nvis; i++) {
			const struct kt_row *r;

			if (UI_VIS_SYNTH(s->vis[i]))
				continue;
			r = &s->res.rows[s->vis[i]];
			if (r->id == s->sel_id &&
			    (!s->ops->row_key || s->ops->row_key(s, s->vis[i]) == s->sel_key)) {
				s->sel = i;
				return;
			}
		}
	}
	if (s->sel >= s->nvis)
		s->sel = s->nvis ? s->nvis - 1 : 0;
	ui_sel_set(s, s->sel);
}

const struct kt_row *ui_sel_row(const struct ui_screen *s)
{
	if (!s->vis || s->sel >= s->nvis || UI_VIS_SYNTH(s->vis[s->sel]))
		return NULL;
	return &s->res.rows[s->vis[s->sel]];
}

void ui_sel_set(struct ui_screen *s, size_t i)
{
	const struct kt_row *r;

	s->sel = i;
	r = ui_sel_row(s);
	s->sel_valid = r != NULL;
	if (r) {
		s->sel_id = r->id;
		if (s->ops->row_key)
			s->sel_key = s->ops->row_key(s, s->vis[i]);
	}
}

/* Moves by delta rows, or by delta pages when page is set (page size from the last draw). */
void ui_screen_sync(struct ui_screen *s)
{
	if (s->ops->sync)
		s->ops->sync(s);
	else
		ui_table_sync(s);
}

/* One scroll rule for the table, stacks and annotate screens. */
void ui_scroll_clamp(size_t *top, size_t sel, size_t rows, size_t n, int keep_full)
{
	if (sel < *top)
		*top = sel;
	if (sel >= *top + rows)
		*top = sel - rows + 1;
	if (keep_full && *top + rows > n)
		*top = n > rows ? n - rows : 0;
}

void ui_sel_move(struct ui_screen *s, long delta, int page)
{
	long i = (long)s->sel;

	if (!s->nvis)
		return;
	if (page)
		delta *= s->body_h > 2 ? s->body_h - 1 : 1;
	i += delta;
	if (i < 0)
		i = 0;
	if (i >= (long)s->nvis)
		i = (long)s->nvis - 1;
	ui_sel_set(s, (size_t)i);
}



/* The per-CPU columns wanted: every sampled CPU, or those of the CPU set. */
static int percpu_cpus(const struct kt_ui *ui, const struct ui_screen *s, uint32_t *out)
{
	uint32_t n = ui_cpus_sampled(ui);
	int k = 0;

	if (!ui_per_cpu(ui, s) || !s->res.sum.max_cpu)
		return 0;
	for (uint32_t i = 0; i < n && k < UI_MAX_PERCPU; i++) {
		uint32_t c = ui_cpus_sampled_nth(ui, i);

		if (c < s->res.sum.max_cpu && (!ui->ncpuset || ui_cpus_has(ui, c)))
			out[k++] = c;
	}
	return k;
}

/* Shares the spare width among the flex columns: capped ones first, the rest to the others. */
static void flex_share(const struct ui_col *c, struct ui_layout *L, int spare)
{
	int nflex = 0, nfree = 0, share;

	for (int k = 0; k < L->n; k++) {
		nflex += c[L->idx[k]].flex > 0;
		nfree += c[L->idx[k]].flex == 1;
	}
	if (!nflex || spare <= 0)
		return;
	share = spare / nflex;
	for (int k = 0; k < L->n; k++) {
		int f = c[L->idx[k]].flex;

		if (f > 1) {
			int add = share < f ? share : f;

			L->w[k] += add;
			spare -= add;
		}
	}
	for (int k = 0; k < L->n && nfree; k++) {
		if (c[L->idx[k]].flex == 1) {
			int add = spare / nfree--;

			L->w[k] += add;
			spare -= add;
		}
	}
}

/* Columns dropped from the least important on until the table (and every per-CPU column
 * asked for) fits; per-CPU columns that still do not fit are counted in a "+N". */
void ui_layout(const struct kt_ui *ui, const struct ui_screen *s, struct ui_layout *L)
{
	const struct ui_col *c = s->ops->cols;
	int keep[UI_MAX_COLS], total, x = 0, maxdrop = 0, want, need;
	int nc = s->ops->ncols < UI_MAX_COLS ? s->ops->ncols : UI_MAX_COLS;

	want = percpu_cpus(ui, s, L->percpu);
	need = want * UI_PERCPU_W;
	for (int i = 0; i < nc; i++) {
		keep[i] = !ui_col_hidden(ui, &c[i]);
		if (c[i].drop > maxdrop)
			maxdrop = c[i].drop;
	}
	for (;;) {
		total = 0;
		for (int i = 0; i < nc; i++)
			if (keep[i])
				total += c[i].width + 1;
		if (total + need <= ui->cols || maxdrop == 0)
			break;
		for (int i = 0; i < nc; i++)
			if (c[i].drop == maxdrop)
				keep[i] = 0;
		maxdrop--;
	}
	L->npercpu = want;
	L->more = 0;
	if (total + need > ui->cols) {
		int room = (ui->cols - total - UI_MORE_W) / UI_PERCPU_W;

		L->npercpu = room <= 0 ? 0 : room < want ? room : want;
		L->more = want - L->npercpu;
	}
	total += L->npercpu * UI_PERCPU_W + (L->more ? UI_MORE_W : 0);
	L->n = 0;
	for (int i = 0; i < nc; i++) {
		if (!keep[i])
			continue;
		L->idx[L->n] = i;
		L->w[L->n] = c[i].width;
		L->n++;
	}
	flex_share(c, L, ui->cols - total);
	for (int k = 0; k < L->n; k++) {
		L->x[k] = x;
		x += L->w[k] + 1;
	}
	L->percpu_x = x;
}

static void draw_colhdr(struct kt_ui *ui, struct ui_screen *s, const struct ui_layout *L, int y)
{
	const struct ui_col *c = s->ops->cols;
	attr_t a = ui_attr(ui, UI_C_COLHDR, A_REVERSE);

	attrset(a);
	mvhline(y, 0, ' ', ui->cols);
	for (int k = 0; k < L->n; k++) {
		const struct ui_col *col = &c[L->idx[k]];
		char t[64];

		if (L->idx[k] == s->sort_col && col->sort >= 0)
			snprintf(t, sizeof(t), "[%s]%s", col->title, s->q.reverse ? "^" : "");
		else
			snprintf(t, sizeof(t), "%s", col->title);
		if (L->idx[k] == s->sort_col && col->sort >= 0)
			attrset(a | A_BOLD | A_UNDERLINE);
		ui_put(y, L->x[k], L->w[k], t, !col->left);
		attrset(a);
	}
	for (int i = 0; i < L->npercpu; i++) {
		char t[16];

		snprintf(t, sizeof(t), "cpu%u", L->percpu[i]);
		ui_put(y, L->percpu_x + i * UI_PERCPU_W, UI_PERCPU_W - 1, t, 1);
	}
	if (L->more) {
		char t[16];

		snprintf(t, sizeof(t), "+%d", L->more);
		ui_put(y, L->percpu_x + L->npercpu * UI_PERCPU_W, UI_MORE_W - 1, t, 0);
	}
	attrset(A_NORMAL);
}

static void draw_row(struct kt_ui *ui, struct ui_screen *s, const struct ui_layout *L, int y,
		     const struct kt_row *r, int selected)
{
	const struct ui_col *c = s->ops->cols;
	char buf[256];

	attrset(selected ? ui_attr(ui, UI_C_SEL, A_REVERSE) : (r->idle ? A_DIM : A_NORMAL));
	mvhline(y, 0, ' ', ui->cols);
	for (int k = 0; k < L->n; k++) {
		const struct ui_col *col = &c[L->idx[k]];

		if (col->cell) {
			move(y, L->x[k]);
			col->cell(ui, s, r, y, L->x[k], L->w[k]);
			attrset(selected ? ui_attr(ui, UI_C_SEL, A_REVERSE) : A_NORMAL);
			continue;
		}
		buf[0] = 0;
		col->fmt(ui, s, r, buf, sizeof(buf));
		ui_put(y, L->x[k], L->w[k], buf, !col->left);
	}
	for (int i = 0; i < L->npercpu; i++) {
		buf[0] = 0;
		if (r->per_cpu)
			ui_fmt_count(r->per_cpu[L->percpu[i]], buf, sizeof(buf));
		ui_put(y, L->percpu_x + i * UI_PERCPU_W, UI_PERCPU_W - 1, buf, 1);
	}
	attrset(A_NORMAL);
}

static void draw_synthetic(struct kt_ui *ui, struct ui_screen *s, int y, size_t v, int selected)
{
	const struct kt_source_info *info = ui->env.src ? kt_source_info(ui->env.src) : NULL;
	int chains = info && info->callchain;

	attrset(selected ? ui_attr(ui, UI_C_SEL, A_REVERSE) : ui_attr(ui, UI_C_KEY, A_BOLD));
	mvhline(y, 0, ' ', ui->cols);
	if (v == UI_VIS_CALLEES)
		mvaddnstr(y, 0,
			  chains ? "[callees] what this function calls (Enter or G)"
				 : "[callees] what this function calls (Enter or G; needs -g)",
			  ui->cols);
	else
		mvaddnstr(y, 0,
			  chains ? "[callers] who calls this function (Enter or g)"
				 : "[callers] who calls this function (Enter or g; needs -g)",
			  ui->cols);
	attrset(A_NORMAL);
}

void ui_table_draw(struct kt_ui *ui, struct ui_screen *s, int y, int h)
{
	struct ui_layout L;
	int line;

	if (h < 2)
		return;
	ui_layout(ui, s, &L);
	draw_colhdr(ui, s, &L, y);
	y++;
	h--;
	s->body_y = y;
	s->body_h = h;
	ui_scroll_clamp(&s->top, s->sel, (size_t)h, s->nvis, 1);
	for (line = 0; line < h; line++) {
		size_t i = s->top + (size_t)line;

		if (i >= s->nvis) {
			move(y + line, 0);
			clrtoeol();
			continue;
		}
		if (UI_VIS_SYNTH(s->vis[i]))
			draw_synthetic(ui, s, y + line, s->vis[i], i == s->sel);
		else
			draw_row(ui, s, &L, y + line, &s->res.rows[s->vis[i]], i == s->sel);
	}
	if (!s->nvis || ((s->ops->flags & UI_SF_CALL_ROWS) && s->nvis == 2)) {
		const char *msg = s->have_res
				      ? (s->text[0] ? "no rows match the filter" : "no samples yet")
				      : "no data (the aggregator has not answered)";

		mvaddnstr(y + (int)s->nvis, 2, msg, ui->cols - 2);
	}
}

/* A kernel/user/idle split bar at the cursor: distinct characters, so it reads in monochrome. */
void ui_draw_bar(struct kt_ui *ui, double kernel, double user, double idle, int w)
{
	int k, u, i;

	if (w <= 0)
		return;
	k = (int)(kernel / 100.0 * w + 0.5);
	u = (int)(user / 100.0 * w + 0.5);
	i = (int)(idle / 100.0 * w + 0.5);
	if (k > w)
		k = w;
	if (u > w - k)
		u = w - k;
	if (i > w - k - u)
		i = w - k - u;
	attron(ui_attr(ui, UI_C_KERNEL, A_BOLD));
	for (int j = 0; j < k; j++)
		addch('#');
	attroff(ui_attr(ui, UI_C_KERNEL, A_BOLD));
	attron(ui_attr(ui, UI_C_USER, 0));
	for (int j = 0; j < u; j++)
		addch('u');
	attroff(ui_attr(ui, UI_C_USER, 0));
	attron(ui_attr(ui, UI_C_IDLE, A_DIM));
	for (int j = 0; j < i; j++)
		addch('.');
	attroff(ui_attr(ui, UI_C_IDLE, A_DIM));
	for (int j = k + u + i; j < w; j++)
		addch(' ');
}
