/* The key table: the only list of bindings. Dispatch, the help screen text and the key bar
 * are all generated from it. Actions return UI_R_* flags and never draw. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "kerntop/report.h"
#include "kerntop/window.h"
#include "ui_impl.h"

#define CTRL(c) ((c)&0x1f)


static int act_up(struct kt_ui *ui, struct ui_screen *s)
{
	ui_sel_move(s, -1, 0);
	return UI_R_REDRAW;
}

static int act_down(struct kt_ui *ui, struct ui_screen *s)
{
	ui_sel_move(s, 1, 0);
	return UI_R_REDRAW;
}

static int act_pgup(struct kt_ui *ui, struct ui_screen *s)
{
	ui_sel_move(s, -1, 1);
	return UI_R_REDRAW;
}

static int act_pgdn(struct kt_ui *ui, struct ui_screen *s)
{
	ui_sel_move(s, 1, 1);
	return UI_R_REDRAW;
}

static int act_home(struct kt_ui *ui, struct ui_screen *s)
{
	if (s->nvis)
		ui_sel_set(s, 0);
	return UI_R_REDRAW;
}

static int act_end(struct kt_ui *ui, struct ui_screen *s)
{
	if (s->nvis)
		ui_sel_set(s, s->nvis - 1);
	return UI_R_REDRAW;
}

static int screen_act(struct kt_ui *ui, struct ui_screen *s, enum ui_act a)
{
	return s->ops->key ? s->ops->key(ui, s, a) : UI_R_NONE;
}

static int act_open(struct kt_ui *ui, struct ui_screen *s)
{
	return screen_act(ui, s, UI_ACT_OPEN);
}

static int act_expand(struct kt_ui *ui, struct ui_screen *s)
{
	return screen_act(ui, s, UI_ACT_EXPAND);
}

static int act_collapse(struct kt_ui *ui, struct ui_screen *s)
{
	return screen_act(ui, s, UI_ACT_COLLAPSE);
}

static int act_callers(struct kt_ui *ui, struct ui_screen *s)
{
	return screen_act(ui, s, UI_ACT_CALLERS);
}

static int act_callees(struct kt_ui *ui, struct ui_screen *s)
{
	return screen_act(ui, s, UI_ACT_CALLEES);
}

static int act_stacks(struct kt_ui *ui, struct ui_screen *s)
{
	return screen_act(ui, s, UI_ACT_STACKS);
}

static int act_mark(struct kt_ui *ui, struct ui_screen *s)
{
	return screen_act(ui, s, UI_ACT_MARK);
}

static int act_back(struct kt_ui *ui, struct ui_screen *s)
{
	if (!s->below) {
		ui_set_status(ui, 0, "at the top level: q quits");
		return UI_R_REDRAW;
	}
	return UI_R_POP;
}

static int push(struct kt_ui *ui, const struct ui_screen_ops *ops, uint32_t arg, const char *crumb)
{
	ui_screen_free(ui->pending);
	ui->pending = ui_screen_new(ui, ops, arg, crumb);
	return ui->pending ? UI_R_PUSH : UI_R_NONE;
}

/* A second press of a screen's own key goes back, so c, t, e, f and h toggle. */
static int toggle(struct kt_ui *ui, struct ui_screen *s, const struct ui_screen_ops *ops,
		  const char *crumb)
{
	if (s->ops == ops)
		return UI_R_POP;
	return push(ui, ops, KT_ANY, crumb);
}

static int act_cpus(struct kt_ui *ui, struct ui_screen *s)
{
	return toggle(ui, s, &ui_cpus_ops, "CPUs");
}

static int act_tasks(struct kt_ui *ui, struct ui_screen *s)
{
	return toggle(ui, s, &ui_tasks_ops, "tasks");
}

static int act_contexts(struct kt_ui *ui, struct ui_screen *s)
{
	return toggle(ui, s, &ui_contexts_ops, "contexts");
}

/* --irq-owner, live: the helpers' hits move to their callers in every view. */
static int act_irq_owner(struct kt_ui *ui, struct ui_screen *s)
{
	int on = !kt_agg_irq_owner(ui->env.agg);

	kt_agg_set_irq_owner(ui->env.agg, on);
	if (on && !ui->sum.stacked)
		ui_set_status(ui, 0,
			      "irq-owner on, but no hit has a call chain to find the "
			      "callers in: start kerntop with -g");
	else
		ui_set_status(ui, 0, "%s",
			      on ? "irq-owner: hits in IRQ-enabling helpers are charged to their "
				   "callers"
				 : "irq-owner off: hits stay where the samples landed (as perf "
				   "shows them)");
	return UI_R_REQUERY;
}

static int act_topfuncs(struct kt_ui *ui, struct ui_screen *s)
{
	return toggle(ui, s, &ui_topfuncs_ops, "top functions");
}

static int act_help(struct kt_ui *ui, struct ui_screen *s)
{
	return toggle(ui, s, &ui_help_ops, "help");
}

static int act_quit(struct kt_ui *ui, struct ui_screen *s)
{
	return UI_R_QUIT;
}

static int sort_step(struct kt_ui *ui, struct ui_screen *s, int dir)
{
	int n = s->ops->ncols;

	for (int k = 1; k <= n; k++) {
		int i = ((s->sort_col + dir * k) % n + n) % n;

		if (s->ops->cols[i].sort >= 0 && !ui_col_hidden(ui, &s->ops->cols[i])) {
			s->sort_col = i;
			break;
		}
	}
	return UI_R_REQUERY;
}

static int act_sort_next(struct kt_ui *ui, struct ui_screen *s)
{
	return sort_step(ui, s, 1);
}

static int act_sort_prev(struct kt_ui *ui, struct ui_screen *s)
{
	return sort_step(ui, s, -1);
}

static int act_reverse(struct kt_ui *ui, struct ui_screen *s)
{
	s->q.reverse = !s->q.reverse;
	return UI_R_REQUERY;
}

static int filter_done(struct kt_ui *ui, const char *text)
{
	snprintf(ui->top->text, sizeof(ui->top->text), "%s", text);
	ui->top->sel_valid = 0;
	ui->top->sel = 0;
	return UI_R_REQUERY;
}

static int act_filter(struct kt_ui *ui, struct ui_screen *s)
{
	ui_prompt(ui, "filter (substring, empty clears): ", s->text, filter_done);
	return UI_R_REDRAW;
}

static int act_clear(struct kt_ui *ui, struct ui_screen *s)
{
	ui_cpus_clear(ui);
	ui_set_task(ui, KT_ANY);
	ui->filter.ctx = KT_ANY;
	s->text[0] = 0;
	ui_set_status(ui, 0, "filters cleared");
	return UI_R_REQUERY;
}

static int act_idle(struct kt_ui *ui, struct ui_screen *s)
{
	ui->filter.hide_idle = !ui->filter.hide_idle;
	ui_set_status(ui, 0, "idle %s", ui->filter.hide_idle ? "hidden" : "shown");
	return UI_R_REQUERY;
}

static int act_percpu(struct kt_ui *ui, struct ui_screen *s)
{
	ui->per_cpu = !ui->per_cpu;
	return UI_R_REQUERY;
}

/* R: straight to the rising sort, the on-call question "what is growing?" */
static int act_rising(struct kt_ui *ui, struct ui_screen *s)
{
	for (int i = 0; i < s->ops->ncols; i++) {
		if (s->ops->cols[i].sort == KT_SORT_RISING) {
			if (ui_col_hidden(ui, &s->ops->cols[i])) {
				ui_set_status(ui, 0, "the Trend column is hidden (H shows it)");
				return UI_R_REDRAW;
			}
			s->sort_col = i;
			s->q.reverse = 0;
			ui_set_status(ui, 0, "sorted by rising: newest third of the trend against the rest");
			return UI_R_REQUERY;
		}
	}
	return UI_R_NONE;
}

static int act_baseline(struct kt_ui *ui, struct ui_screen *s)
{
	return ui_baseline_take(ui);
}

static int act_baseline_clear(struct kt_ui *ui, struct ui_screen *s)
{
	return ui_baseline_clear(ui);
}

static int act_hist(struct kt_ui *ui, struct ui_screen *s)
{
	return ui_hist_mode_next(ui);
}

static int act_trend_peak(struct kt_ui *ui, struct ui_screen *s)
{
	ui->trend_peak = !ui->trend_peak;
	return UI_R_REDRAW;
}

static int act_annotate_sort(struct kt_ui *ui, struct ui_screen *s)
{
	return ui_annotate_sort(ui, s);
}

/* a: the annotate screen of the selected function (of the screen's function, at the
 * selected line or bucket, on a lines screen); again: back. */
static int act_annotate(struct kt_ui *ui, struct ui_screen *s)
{
	const struct kt_row *r = ui_sel_row(s);

	if (s->ops->annotate)
		return s->ops->annotate(ui, s);
	if (!r) {
		ui_set_status(ui, 0, "a: select a function first");
		return UI_R_REDRAW;
	}
	return ui_open_annotate(ui, r->id, 0);
}

static int act_cumulative(struct kt_ui *ui, struct ui_screen *s)
{
	int on = !kt_window_cumulative(ui->env.win);

	kt_window_set_cumulative(ui->env.win, on);
	ui_set_status(ui, 0, "%s",
		      on ? "cumulative: counting since start"
			 : "window: counting the last seconds only");
	return UI_R_REQUERY;
}

static const double spans[] = {1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600};
#define NSPANS (sizeof(spans) / sizeof(spans[0]))

static int span_step(struct kt_ui *ui, int dir)
{
	double cur = (double)kt_window_span(ui->env.win) / 1e9, next = cur;

	if (dir > 0) {
		for (size_t i = 0; i < NSPANS; i++)
			if (spans[i] > cur + 1e-9) {
				next = spans[i];
				break;
			}
	} else {
		for (size_t i = NSPANS; i-- > 0;)
			if (spans[i] < cur - 1e-9) {
				next = spans[i];
				break;
			}
	}
	kt_window_set_span(ui->env.win, (uint64_t)(next * 1e9));
	ui_set_status(ui, 0, "window %gs%s", next,
		      kt_window_cumulative(ui->env.win) ? " (cumulative mode: z toggles)" : "");
	return UI_R_REQUERY;
}

static int act_span_up(struct kt_ui *ui, struct ui_screen *s)
{
	return span_step(ui, 1);
}

static int act_span_down(struct kt_ui *ui, struct ui_screen *s)
{
	return span_step(ui, -1);
}

static int delay_done(struct kt_ui *ui, const char *text)
{
	char *end;
	double d = strtod(text, &end);

	if (end == text || *end || !(d >= 0.1 && d <= 3600)) {
		ui_set_status(ui, 1, "invalid delay '%s': give seconds between 0.1 and 3600", text);
		return UI_R_REDRAW;
	}
	ui->delay = d;
	ui_set_status(ui, 0, "refresh every %gs", d);
	return UI_R_REDRAW;
}

static int act_delay(struct kt_ui *ui, struct ui_screen *s)
{
	char cur[32];

	snprintf(cur, sizeof(cur), "%g", ui->delay);
	ui_prompt(ui, "refresh delay in seconds: ", cur, delay_done);
	return UI_R_REDRAW;
}

/* Pausing queries once more, so the frozen screen and what w writes are the same moment. */
static int act_pause(struct kt_ui *ui, struct ui_screen *s)
{
	ui->paused = !ui->paused;
	ui_set_status(ui, 0, "%s",
		      ui->paused ? "paused: sampling goes on, Space shows the current state"
				 : "resumed");
	if (!ui->paused) {
		kt_report_snapshot_free(ui->frozen);
		ui->frozen = NULL;
	}
	return UI_R_REQUERY;
}

static int act_snapshot(struct kt_ui *ui, struct ui_screen *s)
{
	ui_snapshot(ui, KT_FORMAT_TEXT, NULL);
	return UI_R_REDRAW;
}

static int act_snapshot_as(struct kt_ui *ui, struct ui_screen *s)
{
	ui_snapshot_prompt(ui);
	return UI_R_REDRAW;
}

static int act_save_settings(struct kt_ui *ui, struct ui_screen *s)
{
	ui_settings_save(ui);
	return UI_R_REDRAW;
}

static int act_columns(struct kt_ui *ui, struct ui_screen *s)
{
	ui_columns_prompt(ui);
	return UI_R_REDRAW;
}

/* Clicks select a row; a click on the selected row (or a double click) opens it. */
static int act_mouse(struct kt_ui *ui, struct ui_screen *s)
{
	MEVENT ev;
	long row;

	if (getmouse(&ev) != OK)
		return UI_R_NONE;
	if (ev.bstate & BUTTON4_PRESSED) {
		ui_sel_move(s, -3, 0);
		return UI_R_REDRAW;
	}
	if (ev.bstate & BUTTON5_PRESSED) {
		ui_sel_move(s, 3, 0);
		return UI_R_REDRAW;
	}
	if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)))
		return UI_R_NONE;
	row = (long)ev.y - s->body_y;
	if (row < 0 || row >= s->body_h || (size_t)row + s->top >= s->nvis)
		return UI_R_NONE;
	if ((size_t)row + s->top == s->sel || (ev.bstate & BUTTON1_DOUBLE_CLICKED)) {
		ui_sel_set(s, (size_t)row + s->top);
		return act_open(ui, s);
	}
	ui_sel_set(s, (size_t)row + s->top);
	return UI_R_REDRAW;
}

/* resizeterm() queues KEY_RESIZE itself: only take the new size here, never resize again. */
static int act_resize(struct kt_ui *ui, struct ui_screen *s)
{
	getmaxyx(stdscr, ui->rows, ui->cols);
	return UI_R_REDRAW;
}

static int act_redraw(struct kt_ui *ui, struct ui_screen *s)
{
	clearok(curscr, TRUE);
	return UI_R_REDRAW;
}

#define TREE UI_ON_TREES
#define FUNCS (UI_ON(UI_FUNCS) | UI_ON(UI_TOPFUNCS) | UI_ON(UI_LINES))
/* screens whose selection (or subject) is one function: g, G and S work there */
#define ONFUNC (FUNCS | UI_ON_TREES | UI_ON(UI_FRAMES))
#define OPENABLE (UI_ON_ROWS | UI_ON(UI_ANNOTATE))
/* screens with more than one sortable column */
#define SORTABLE                                                                                   \
	(UI_ON_LISTS | UI_ON(UI_LINES) | UI_ON(UI_CPUS) | UI_ON(UI_TASKS) | UI_ON(UI_CONTEXTS))
/* screens with a Trend column (ui_history.c) */
#define TRENDED                                                                                    \
	(UI_ON_LISTS | UI_ON(UI_CPUS) | UI_ON(UI_TASKS) | UI_ON(UI_CONTEXTS))
/* screens with a text filter (the trees and stacks filter by frame name themselves) */
#define FILTERABLE ((UI_ON_ROWS & ~UI_ON(UI_FRAMES)) | UI_ON(UI_ANNOTATE))
/* screens whose selection is a function, or that are about one: a annotates it */
#define ANNOTATABLE (FUNCS | UI_ON_TREES | UI_ON(UI_ANNOTATE))

/* A key without a place on the key bar, and one with its bar label, priority and short form. */
#define KEY(k, name, on, act, help)                                                                \
	{                                                                                          \
		k, name, on, act, help, NULL, 0, NULL, NULL                                        \
	}
#define BAR(k, name, on, act, help, bar, prio, sname, sbar)                                        \
	{                                                                                          \
		k, name, on, act, help, bar, prio, sname, sbar                                     \
	}

/* First match wins: the tree's Left/Right come before the general Left. The order is also
 * the order of the help screen and of the key bar. */
static const struct ui_key keys[] = {
    KEY(KEY_UP, "Up", UI_ON_ALL, act_up, "move the selection up"),
    KEY(KEY_DOWN, "Down", UI_ON_ALL, act_down, "move the selection down"),
    KEY(KEY_PPAGE, "PgUp", UI_ON_ALL, act_pgup, "one page up"),
    KEY(KEY_NPAGE, "PgDn", UI_ON_ALL, act_pgdn, "one page down"),
    KEY(KEY_HOME, "Home", UI_ON_ALL, act_home, "first row"),
    KEY(KEY_END, "End", UI_ON_ALL, act_end, "last row"),
    BAR('\r', "Enter", OPENABLE, act_open,
	"open the row: module > functions > lines > callers or callees; stack > frames > "
	"lines; CPU, task or context: filter every screen to it",
	"open", 2, NULL, NULL),
    KEY('\n', "Enter", OPENABLE, act_open, NULL),
    KEY(KEY_ENTER, "Enter", OPENABLE, act_open, NULL),
    BAR(KEY_RIGHT, "Right", TREE, act_expand, "expand the selected caller / callee", "expand", 4,
	NULL, "open"),
    BAR(KEY_LEFT, "Left", TREE, act_collapse, "collapse the node (at the top: back)", "collapse", 4,
	NULL, "close"),
    BAR(KEY_BACKSPACE, "Backspace", UI_ON_ALL, act_back, "back to the previous screen", "back", 2,
	"Esc", NULL),
    KEY(127, "Backspace", UI_ON_ALL, act_back, NULL),
    KEY(CTRL('h'), "Backspace", UI_ON_ALL, act_back, NULL),
    KEY(KEY_LEFT, "Left", UI_ON_ALL & ~TREE, act_back, NULL),
    KEY(27, "Esc", UI_ON_ALL, act_back, NULL),
    BAR('g', "g", ONFUNC, act_callers, "callers tree (needs -g)", "callers", 4, NULL, NULL),
    BAR('G', "G", ONFUNC, act_callees, "callees tree (needs -g)", "callees", 5, NULL, NULL),
    BAR('S', "S", ONFUNC | UI_ON(UI_MODULES), act_stacks, "hottest stacks (needs -g)", "stacks", 7,
	NULL, NULL),
    BAR('c', "c", UI_ON_ROWS, act_cpus, "CPU screen (Enter filters every screen to a CPU)", "CPUs",
	5, NULL, NULL),
    BAR('t', "t", UI_ON_ROWS, act_tasks, "tasks screen (Enter filters every screen to a task)",
	"tasks", 5, NULL, NULL),
    BAR('e', "e", UI_ON_ROWS, act_contexts,
	"execution contexts screen: softirq, syscall, hardirq ... (needs -g; Enter filters every "
	"screen to a context)",
	"contexts", 7, NULL, "ctx"),
    KEY('o', "o", UI_ON_ALL, act_irq_owner,
	"toggle --irq-owner: charge hits in IRQ-enabling helpers to their callers (needs -g)"),
    BAR('m', "m", UI_ON(UI_CPUS), act_mark,
	"add the CPU to the set every screen shows, or take it out (Enter: this CPU only)", "mark",
	4, NULL, NULL),
    BAR('a', "a", ANNOTATABLE, act_annotate,
	"annotate: the function's instructions with their hits (on a line or bucket: opened "
	"there; Enter follows a jump or call; again: back)",
	"annotate", 6, NULL, "annot"),
    KEY('f', "f", UI_ON_ROWS, act_topfuncs, "top functions across all modules"),
    KEY('x', "x", UI_ON_ROWS, act_clear, "clear the CPU, task, context and text filters"),
    BAR('s', "s", SORTABLE, act_sort_next, "sort by the next column", "sort", 6, NULL, NULL),
    BAR('s', "s", UI_ON(UI_ANNOTATE), act_annotate_sort, "annotate: sort by address or by hits",
	"sort", 6, NULL, NULL),
    KEY('>', ">", SORTABLE, act_sort_next, "sort by the column to the right"),
    KEY('<', "<", SORTABLE, act_sort_prev, "sort by the column to the left"),
    KEY('r', "r", SORTABLE, act_reverse, "reverse the sort order"),
    BAR('/', "/", FILTERABLE, act_filter, "filter rows by substring (typed on the status line)",
	"filter", 6, NULL, NULL),
    KEY('p', "p", UI_ON_LISTS, act_percpu, "show/hide per-CPU hit columns"),
    KEY('R', "R", TRENDED, act_rising,
	"sort by rising: the Trend's newest third against the older points (hits/s)"),
    KEY('T', "T", TRENDED, act_trend_peak,
	"show/hide each row's peak rate (hits/s) beside its Trend sparkline"),
    KEY('b', "b", UI_ON_ALL, act_baseline,
	"take the window now as the baseline: every table gets \u0394% (share now minus then, "
	"points) and Ratio (rate now over then) columns"),
    KEY('B', "B", UI_ON_ALL, act_baseline_clear, "clear the baseline"),
    KEY('M', "M", UI_ON_ALL, act_hist,
	"history meters in the header: busy, softirq and idle % per refresh (small, big, off)"),
    KEY('i', "i", UI_ON_ROWS, act_idle, "hide/show idle hits"),
    KEY('z', "z", UI_ON_ALL, act_cumulative, "toggle cumulative / rolling window (as perf top's z)"),
    KEY('+', "+", UI_ON_ALL, act_span_up, "longer window"),
    KEY('=', "+", UI_ON_ALL, act_span_up, NULL),
    KEY('-', "-", UI_ON_ALL, act_span_down, "shorter window"),
    KEY('d', "d", UI_ON_ALL, act_delay, "set the refresh delay (typed on the status line)"),
    BAR(' ', "Space", UI_ON_ALL, act_pause, "pause/resume the display (sampling goes on)", "pause",
	3, "Spc", NULL),
    BAR('w', "w", UI_ON_ALL, act_snapshot,
	"write a text snapshot of this screen and the levels under it", "snapshot", 3, NULL,
	"snap"),
    KEY('W', "W", UI_ON_ALL, act_snapshot_as, "snapshot with a chosen format and file"),
    KEY('H', "H", UI_ON_ALL, act_columns,
	"hide columns by title, e.g. CPU ms,Hits/s (typed on the status line; empty: show all)"),
    KEY('O', "O", UI_ON_ALL, act_save_settings,
	"save sort, columns, window, delay, idle, irq-owner, colour for the next start"),
    /* the list screens' bars are full: O is offered on the help screen's bar, where it is read */
    BAR('O', "O", UI_ON(UI_HELP), act_save_settings, NULL, "save settings", 9, NULL, "save"),
    BAR('h', "h", UI_ON_ALL, act_help, "this help (again: back)", "help", 1, NULL, NULL),
    KEY('?', "?", UI_ON_ALL, act_help, NULL),
    BAR('q', "q", UI_ON_ALL, act_quit, "quit (also Ctrl-C)", "quit", 1, NULL, NULL),
    KEY(KEY_MOUSE, "click", UI_ON_ALL, act_mouse,
	"select a row; click the selected row (or double-click) to open; wheel scrolls"),
    KEY(CTRL('l'), "Ctrl-L", UI_ON_ALL, act_redraw, "repaint the whole terminal"),
    KEY(KEY_RESIZE, "resize", UI_ON_ALL, act_resize, NULL),
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

const struct ui_key *ui_key_table(size_t *n)
{
	*n = NKEYS;
	return keys;
}

int ui_key(struct kt_ui *ui, int ch)
{
	unsigned kind = UI_ON(ui->top->ops->kind);

	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].key == ch && (keys[i].on & kind))
			return keys[i].act(ui, ui->top);
	/* a key of other screens: say so rather than do nothing */
	for (size_t i = 0; i < NKEYS; i++) {
		if (keys[i].key == ch) {
			ui_set_status(ui, 0, "%s: not on the %s screen (h: keys)", keys[i].name,
				      ui->top->ops->name);
			return UI_R_REDRAW;
		}
	}
	return UI_R_NONE;
}

/* While the terminal is too small only quitting and repainting work. */
int ui_key_too_small(struct kt_ui *ui, int ch)
{
	if (ch == 'q')
		return UI_R_QUIT;
	if (ch == KEY_RESIZE)
		return act_resize(ui, ui->top);
	if (ch == CTRL('l'))
		return act_redraw(ui, ui->top);
	return UI_R_NONE;
}

int ui_prompt_key(struct kt_ui *ui, int ch)
{
	struct ui_prompt *p = &ui->prompt;

	switch (ch) {
	case 27:
		p->active = 0;
		ui_set_status(ui, 0, "cancelled");
		return UI_R_REDRAW;
	case '\r':
	case '\n':
	case KEY_ENTER: {
		char text[sizeof(p->buf)];
		int (*done)(struct kt_ui *, const char *) = p->done;

		memcpy(text, p->buf, sizeof(text));
		p->active = 0;
		return done(ui, text); /* may open the next prompt */
	}
	case KEY_BACKSPACE:
	case 127:
	case CTRL('h'):
		if (p->len)
			p->buf[--p->len] = 0;
		return UI_R_REDRAW;
	case CTRL('u'):
		p->len = 0;
		p->buf[0] = 0;
		return UI_R_REDRAW;
	default:
		if (ch >= 32 && ch < 127 && p->len + 1 < sizeof(p->buf)) {
			p->buf[p->len++] = (char)ch;
			p->buf[p->len] = 0;
		}
		return UI_R_REDRAW;
	}
}

#define BAR_GAP 2

static int on_bar(const struct kt_ui *ui, const struct ui_key *k)
{
	if (!k->bar || !(k->on & UI_ON(ui->top->ops->kind)))
		return 0;
	return k->act != act_back || ui->top->below; /* no "back" on the root screen */
}

static int bar_width(const struct ui_key *k, int narrow)
{
	const char *n = narrow && k->sname ? k->sname : k->name;
	const char *b = narrow && k->sbar ? k->sbar : k->bar;

	return (int)(strlen(n) + 1 + strlen(b));
}

/* Picks the bar entries by priority (table order among equals) while they fit in cols. */
int ui_keybar_pick(const struct kt_ui *ui, int narrow, unsigned char *pick)
{
	int used = 0, n = 0;

	for (size_t i = 0; i < NKEYS; i++)
		pick[i] = 0;
	for (int prio = 1; prio <= 9; prio++) {
		for (size_t i = 0; i < NKEYS; i++) {
			int w;

			if (keys[i].prio != prio || !on_bar(ui, &keys[i]))
				continue;
			w = bar_width(&keys[i], narrow) + (n ? BAR_GAP : 0);
			if (used + w > ui->cols)
				continue;
			used += w;
			pick[i] = 1;
			n++;
		}
	}
	return n;
}

/* The key bar: the keys that work on this screen, the most used first when not all fit, with
 * shorter labels when those let more fit; drawn in table order. */
int ui_keybar_choose(const struct kt_ui *ui, unsigned char *pick, int *narrow)
{
	unsigned char spick[NKEYS];
	int wide = ui_keybar_pick(ui, 0, pick), shrt = ui_keybar_pick(ui, 1, spick);

	*narrow = shrt > wide;
	if (!*narrow)
		return wide;
	memcpy(pick, spick, sizeof(spick));
	return shrt;
}

void ui_draw_keybar(struct kt_ui *ui, int y)
{
	unsigned char pick[NKEYS];
	int narrow = 0, x = 0;

	ui_keybar_choose(ui, pick, &narrow);
	move(y, 0);
	clrtoeol();
	for (size_t i = 0; i < NKEYS; i++) {
		const struct ui_key *k = &keys[i];

		if (!pick[i])
			continue;
		if (x) {
			addstr("  ");
			x += BAR_GAP;
		}
		attrset(ui_attr(ui, UI_C_KEY, A_REVERSE | A_BOLD));
		mvaddstr(y, x, narrow && k->sname ? k->sname : k->name);
		attrset(A_NORMAL);
		addch(' ');
		addstr(narrow && k->sbar ? k->sbar : k->bar);
		x += bar_width(k, narrow);
	}
}

static void screens_of(unsigned on, char *buf, size_t len)
{
	static const char *names[UI_NKINDS] = {
	    [UI_MODULES] = "modules", [UI_FUNCS] = "functions",	  [UI_TOPFUNCS] = "top functions",
	    [UI_LINES] = "lines",     [UI_CPUS] = "CPUs",	  [UI_TASKS] = "tasks",
	    [UI_CALLERS] = "callers", [UI_CALLEES] = "callees",	  [UI_STACKS] = "stacks",
	    [UI_FRAMES] = "frames",   [UI_CONTEXTS] = "contexts", [UI_HELP] = "help",
	    [UI_ANNOTATE] = "annotate"};
	size_t n = 0;

	buf[0] = 0;
	if ((on & UI_ON_ROWS) == UI_ON_ROWS)
		return;
	for (int k = 0; k < UI_NKINDS && n + 2 < len; k++) {
		if (!(on & UI_ON(k)))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "  (", names[k]);
		if (n >= len)
			n = len - 1;
	}
	if (n && n + 1 < len)
		snprintf(buf + n, len - n, ")");
}

/* Help entry i: the keys of one action (its hidden aliases folded in) and what it does,
 * where. Returns the number of entries; fills names and text when they are given. */
size_t ui_help_entry(size_t want, char *names, size_t nlen, char *text, size_t tlen)
{
	size_t line = 0;

	for (size_t i = 0; i < NKEYS; i++) {
		char where[96];
		size_t n;

		if (!keys[i].help)
			continue;
		if (line++ != want || !names)
			continue;
		n = (size_t)snprintf(names, nlen, "%s", keys[i].name);
		for (size_t j = i + 1; j < NKEYS && !keys[j].help; j++)
			if (keys[j].act == keys[i].act && !strstr(names, keys[j].name) &&
			    n + 1 < nlen)
				n += (size_t)snprintf(names + n, nlen - n, " %s", keys[j].name);
		screens_of(keys[i].on, where, sizeof(where));
		snprintf(text, tlen, "%s%s", keys[i].help, where);
	}
	return line;
}
