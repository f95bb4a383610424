/* The viewer's core: taking over and restoring the terminal, the screen stack, the refresh
 * tick, queries, and the frame layout. Screens and keys live in their own files. */
#include "config.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <term.h>

#include "kerntop/report.h"
#include "kerntop/source.h"
#include "kerntop/symbols.h"
#include "kerntop/util.h"
#include "kerntop/window.h"
#include "ui_impl.h"

#define UI_MIN_COLS 60
#define UI_MIN_ROWS 10
/* The first data frame comes this soon after start instead of after a whole -d delay:
 * the timer re-arms every UI_EARLY_NS until the first samples are in (at most UI_EARLY_MAX). */
#define UI_EARLY_NS (20 * 1000000LL)
#define UI_EARLY_MAX 50

/* What a fatal-signal handler needs to give the terminal back: saved before curses starts. */
static volatile sig_atomic_t g_curses_up;
static struct termios g_saved_tio;
static int g_saved_tio_ok;
static char g_restore_seq[256];
static size_t g_restore_len;

static void build_restore_seq(void)
{
	static const char mouse_off[] = "\033[?1000l\033[?1002l\033[?1006l";
	const char *caps[] = {"sgr0", "cnorm", "rmkx", "rmcup"};
	size_t n = 0;

	memcpy(g_restore_seq, mouse_off, sizeof(mouse_off) - 1);
	n = sizeof(mouse_off) - 1;
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		char *v = tigetstr(caps[i]);
		size_t l;

		if (!v || v == (char *)-1)
			continue;
		l = strlen(v);
		if (n + l + 3 > sizeof(g_restore_seq))
			break;
		memcpy(g_restore_seq + n, v, l);
		n += l;
	}
	memcpy(g_restore_seq + n, "\r\n", 2);
	g_restore_len = n + 2;
}

void kt_ui_emergency_restore(void)
{
	ssize_t r;

	if (!g_curses_up)
		return;
	g_curses_up = 0;
	r = write(STDOUT_FILENO, g_restore_seq, g_restore_len);
	(void)r;
	if (g_saved_tio_ok)
		tcsetattr(STDIN_FILENO, TCSANOW, &g_saved_tio);
}

void ui_log(struct kt_ui *ui, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (!ui->log)
		return;
	va_start(ap, fmt);
	r = kt_log_vline(ui->log, "ui", fmt, ap);
	va_end(ap);
	if (r < 0) {
		/* say so once on the status line and stop logging: a log with holes misleads */
		fclose(ui->log);
		ui->log = NULL;
		char sp[KT_PATH_SHOWN + 1];

		ui_set_status(ui, 1, "--log %s: write failed (%s), logging stopped",
			      kt_short_path(ui->opts->log, sp, sizeof(sp)), strerror(-r));
	}
}

attr_t ui_attr(const struct kt_ui *ui, int pair, attr_t mono)
{
	if (ui->color && pair)
		return COLOR_PAIR(pair) | (mono & A_BOLD);
	return mono;
}

static void init_colors(struct kt_ui *ui)
{
	if (!ui->color || !has_colors() || start_color() == ERR) {
		ui->color = 0;
		return;
	}
	use_default_colors();
	init_pair(UI_C_TITLE, COLOR_CYAN, -1);
	init_pair(UI_C_COLHDR, COLOR_BLACK, COLOR_GREEN);
	init_pair(UI_C_SEL, COLOR_BLACK, COLOR_CYAN);
	init_pair(UI_C_KERNEL, COLOR_RED, -1);
	init_pair(UI_C_USER, COLOR_GREEN, -1);
	init_pair(UI_C_IDLE, COLOR_BLUE, -1);
	init_pair(UI_C_ERROR, COLOR_WHITE, COLOR_RED);
	init_pair(UI_C_MARK, COLOR_BLACK, COLOR_YELLOW);
	init_pair(UI_C_KEY, COLOR_CYAN, -1);
}

struct ui_screen *ui_screen_new(struct kt_ui *ui, const struct ui_screen_ops *ops, uint32_t arg,
				const char *crumb)
{
	struct ui_screen *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ops = ops;
	s->arg = arg;
	snprintf(s->crumb, sizeof(s->crumb), "%s", crumb);
	s->q.module = KT_ANY;
	s->q.func = KT_ANY;
	kt_filter_all(&s->q.filter);
	/* the saved sort (and order) where this screen has that column, else hits */
	{
		int hits = -1, pref = -1;

		for (int i = 0; i < ops->ncols; i++) {
			if (ops->cols[i].sort == KT_SORT_HITS && hits < 0)
				hits = i;
			if (ops->cols[i].sort == ui->pref_sort && pref < 0 &&
			    !ui_col_hidden(ui, &ops->cols[i]))
				pref = i;
		}
		s->sort_col = pref >= 0 ? pref : hits >= 0 ? hits : 0;
		s->q.reverse = pref >= 0 && ui->pref_reverse;
	}
	if (ops->init && ops->init(s) < 0) {
		free(s);
		return NULL;
	}
	if (ops->enter)
		ops->enter(ui, s);
	return s;
}

void ui_screen_free(struct ui_screen *s)
{
	if (!s)
		return;
	if (s->ops->free)
		s->ops->free(s);
	kt_result_free(&s->res);
	free(s->vis);
	free(s);
}

uint32_t ui_task_id(const struct kt_ui *ui)
{
	const struct kt_task *t;
	uint32_t id;

	if (ui->filter.task == KT_ANY || !ui->env.win)
		return ui->filter.task;
	t = kt_window_task_info(ui->env.win, ui->filter.task);
	if (t && t->pid == ui->task_pid && t->tid == ui->task_tid)
		return ui->filter.task;
	id = kt_window_task_find(ui->env.win, ui->task_pid, ui->task_tid);
	return id == UINT32_MAX ? UI_TASK_GONE : id;
}

/* Filters every screen to a task (KT_ANY: all tasks), remembered by its pid and tid. */
void ui_set_task(struct kt_ui *ui, uint32_t id)
{
	const struct kt_task *t = ui->env.win ? kt_window_task_info(ui->env.win, id) : NULL;

	ui->filter.task = t ? id : KT_ANY;
	ui->task_pid = t ? t->pid : 0;
	ui->task_tid = t ? t->tid : 0;
}

int ui_per_cpu(const struct kt_ui *ui, const struct ui_screen *s)
{
	return (s->ops->flags & UI_SF_PER_CPU) ||
	       (ui->per_cpu && (s->ops->flags & UI_SF_PER_CPU_TOGGLE));
}

/* The screen's query with the global filters folded in. */
void ui_build_query(const struct kt_ui *ui, const struct ui_screen *s, struct kt_query *out)
{
	struct kt_query q = s->q;

	q.filter.hide_idle = ui->filter.hide_idle;
	if (!(s->ops->unfiltered & UI_UNFILTERED_CPU))
		q.filter.cpuset = ui->filter.cpuset;
	if (!(s->ops->unfiltered & UI_UNFILTERED_TASK))
		q.filter.task = ui_task_id(ui);
	q.filter.text = s->text[0] ? s->text : NULL;
	if (s->ops->ncols && s->ops->cols[s->sort_col].sort >= 0)
		q.sort = (enum kt_sort)s->ops->cols[s->sort_col].sort;
	q.per_cpu = ui_per_cpu(ui, s);
	q.trend = ui_trend_points(ui, s);
	q.filter.ctx = s->ops->unfiltered & UI_UNFILTERED_CTX ? KT_ANY : ui->filter.ctx;
	*out = q;
}

void ui_query(struct kt_ui *ui, struct ui_screen *s)
{
	struct kt_query q;
	int r;

	if (s->ops->query) {
		s->ops->query(ui, s);
		return;
	}
	ui_build_query(ui, s, &q);
	/* Nothing sampled yet: no query (the aggregator sorts a NULL row array when empty). */
	if (ui->env.win && kt_window_total(ui->env.win) == 0) {
		s->res.nrows = 0;
		s->have_res = 1;
		ui_screen_sync(s);
		return;
	}
	r = kt_agg_query(ui->env.agg, &q, &s->res);
	if (r < 0) {
		s->res.nrows = 0;
		ui_set_status(ui, 1, "query failed: %s", strerror(-r));
	}
	s->have_res = r >= 0;
	ui_screen_sync(s);
}

/* The IRQ-off skew explained on the status line, once, when it first applies. */
static void irq_notice(struct kt_ui *ui)
{
	const struct kt_source_info *info = ui->env.src ? kt_source_info(ui->env.src) : NULL;
	char msg[KT_REPORT_NOTICE_LEN];

	if (ui->irq_noticed || !info || ui->prompt.active)
		return;
	if (kt_report_irq_notice(&ui->sum, info->event, info->callchain || ui->sum.stacked, msg,
				 sizeof(msg))) {
		ui->irq_noticed = 1;
		ui_set_status(ui, 0, "%s", msg);
		ui->status_kind = UI_ST_NOTICE;
	}
}

/* Everything a tick refreshes: the summary, the header strip and the top screen. */
static void requery_all(struct kt_ui *ui)
{
	struct kt_filter f = ui->filter;
	uint64_t lost_before = ui->stats.lost;

	f.text = NULL;
	f.task = ui_task_id(ui);
	kt_agg_summary(ui->env.agg, &f, &ui->sum);
	/* the /proc figures are taken with the rest, so a pause freezes them too */
	kt_ps_view_copy(ui->ps, ui->env.proc ? kt_procstat_view(ui->env.proc) : NULL);
	irq_notice(ui);
	memset(&ui->stats, 0, sizeof(ui->stats));
	ui->stats_now = 0;
	if (ui->env.src) {
		kt_source_stats(ui->env.src, &ui->stats);
		ui->stats_now = kt_source_now(ui->env.src);
		if (ui->stats.lost > lost_before && !ui->prompt.active)
			ui_set_status(ui, 1, "%llu samples lost (ring overflow): try a lower -F",
				      (unsigned long long)ui->stats.lost);
	}
	if (ui_strip_shown(ui) && ui->env.win && kt_window_total(ui->env.win)) {
		struct kt_query q = {.view = KT_VIEW_CPUS, .module = KT_ANY, .func = KT_ANY};

		kt_filter_all(&q.filter);
		q.filter.task = f.task;
		q.filter.ctx = ui->filter.ctx;
		q.filter.hide_idle = ui->filter.hide_idle;
		ui->have_cpus = kt_agg_query(ui->env.agg, &q, &ui->cpus) >= 0;
	}
	ui_query(ui, ui->top);
}

int ui_too_small(const struct kt_ui *ui)
{
	return ui->rows < UI_MIN_ROWS || ui->cols < UI_MIN_COLS;
}

/* The longest of the messages that fits, centred, and how to quit under it. */
static void draw_too_small(struct kt_ui *ui)
{
	char msg[64];
	int len;

	erase();
	len =
	    snprintf(msg, sizeof(msg), "terminal too small (need %dx%d)", UI_MIN_COLS, UI_MIN_ROWS);
	if (len > ui->cols)
		len = snprintf(msg, sizeof(msg), "too small (%dx%d)", UI_MIN_COLS, UI_MIN_ROWS);
	if (len > ui->cols)
		len = snprintf(msg, sizeof(msg), "need %dx%d", UI_MIN_COLS, UI_MIN_ROWS);
	if (len > ui->cols)
		len = ui->cols;
	mvaddnstr(ui->rows / 2, ui->cols > len ? (ui->cols - len) / 2 : 0, msg, len);
	if (ui->rows > 1)
		mvaddnstr(ui->rows / 2 + 1, ui->cols > 7 ? (ui->cols - 7) / 2 : 0, "q quits",
			  ui->cols);
}

void ui_draw(struct kt_ui *ui)
{
	int hh, y;

	if (ui_too_small(ui)) {
		draw_too_small(ui);
		refresh();
		return;
	}
	/* No erase()/clear(): every line is rewritten in place, so curses sends only changed cells.
	 */
	ui_draw_header(ui);
	hh = ui_header_height(ui);
	ui_draw_crumb(ui, hh);
	y = hh + 1;
	ui->top->ops->draw(ui, ui->top, y, ui->rows - 2 - y);
	ui_draw_keybar(ui, ui->rows - 1);
	ui_draw_status(ui, ui->rows - 2); /* a long error goes on over the key bar */
	if (ui->prompt.active) {
		curs_set(1);
		move(ui->rows - 2, (int)(strlen(ui->prompt.label) + ui->prompt.len) < ui->cols
				       ? (int)(strlen(ui->prompt.label) + ui->prompt.len)
				       : ui->cols - 1);
	} else {
		curs_set(0);
		move(ui->rows - 1, ui->cols - 1);
	}
	refresh();
	if (!ui->logged_frame) {
		ui->logged_frame = 1;
		ui_log(ui, "first frame %dx%d after %.1f ms", ui->cols, ui->rows,
		       (double)(kt_now_ns() - ui->start_ns) / 1e6);
	}
	if (!ui->logged_data && ui->top->res.nrows) {
		ui->logged_data = 1;
		ui_log(ui, "first full frame (%zu rows) after %.1f ms", ui->top->res.nrows,
		       (double)(kt_now_ns() - ui->start_ns) / 1e6);
	}
}

void ui_set_status(struct kt_ui *ui, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ui->status, sizeof(ui->status), fmt, ap);
	va_end(ap);
	ui->status_err = err;
	ui->status_kind = err ? UI_ST_ERROR : UI_ST_INFO;
	ui->status_ns = ui_clock_ns();
	ui_log(ui, "status: %s", ui->status);
}

void ui_status_expire(struct kt_ui *ui, int key)
{
	uint64_t age = ui_clock_ns() - ui->status_ns;
	int gone = 0;

	if (!ui->status[0])
		return;
	switch (ui->status_kind) {
	case UI_ST_INFO:
		gone = key || age >= UI_STATUS_INFO_NS;
		break;
	case UI_ST_NOTICE:
		gone = key && age >= UI_STATUS_NOTICE_MIN_NS;
		break;
	default:
		gone = age >= UI_STATUS_ERR_NS;
		break;
	}
	if (gone) {
		ui->status[0] = 0;
		ui->status_err = 0;
		ui->dirty = 1;
		if (ui->queued[0]) {
			ui_set_status(ui, 0, "%s", ui->queued);
			ui->status_kind = UI_ST_NOTICE;
			ui->queued[0] = 0;
		}
	}
}

void ui_prompt(struct kt_ui *ui, const char *label, const char *init,
	       int (*done)(struct kt_ui *ui, const char *text))
{
	struct ui_prompt *p = &ui->prompt;

	p->active = 1;
	snprintf(p->label, sizeof(p->label), "%s", label);
	snprintf(p->buf, sizeof(p->buf), "%s", init ? init : "");
	p->len = strlen(p->buf);
	p->done = done;
}

static int term_size(int *rows, int *cols)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || !ws.ws_row || !ws.ws_col)
		return -1;
	*rows = ws.ws_row;
	*cols = ws.ws_col;
	return 0;
}

/* A terminal without cursor addressing (TERM=dumb) would draw every screen on one line:
 * refused like an unknown terminal type. */
static int can_address(void)
{
	int errret = 0, ok;
	const char *cup;

	if (setupterm(NULL, STDOUT_FILENO, &errret) != OK)
		return 0;
	cup = tigetstr("cup");
	ok = cup && cup != (char *)-1;
	del_curterm(cur_term);
	return ok;
}

static int setup_fds(struct kt_ui *ui, char *err, size_t errlen)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct itimerspec its = {.it_value = {0, UI_EARLY_NS}};

	ui->epfd = epoll_create1(EPOLL_CLOEXEC);
	ui->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (ui->epfd < 0 || ui->timerfd < 0) {
		int e = errno;

		snprintf(err, errlen, "viewer: cannot create its event fds (%s)", strerror(e));
		return -e;
	}
	ev.data.fd = STDIN_FILENO;
	if (epoll_ctl(ui->epfd, EPOLL_CTL_ADD, STDIN_FILENO, &ev) < 0) {
		int e = errno;

		snprintf(err, errlen, "viewer: cannot watch the terminal (%s)", strerror(e));
		return -e;
	}
	ev.data.fd = ui->timerfd;
	if (epoll_ctl(ui->epfd, EPOLL_CTL_ADD, ui->timerfd, &ev) < 0) {
		int e = errno;

		snprintf(err, errlen, "viewer: cannot watch its timer (%s)", strerror(e));
		return -e;
	}
	timerfd_settime(ui->timerfd, 0, &its, NULL);
	return 0;
}

/* -z MODULE: start in that module's function list (Backspace goes up to the modules), as
 * KernRate's -z zooms into it. main.c has already refused an unknown name. */
static int open_zoom(struct kt_ui *ui, const struct kt_ui_env *env)
{
	struct ui_screen *n;
	char near[8];
	uint32_t id;

	if (!env->opts->nzoom || !env->agg ||
	    kt_agg_module_find(env->agg, env->opts->zoom[0], &id, near, sizeof(near)) < 0)
		return 0;
	n = ui_screen_new(ui, &ui_funcs_ops, id, kt_agg_module_name(env->agg, id));
	if (!n)
		return -ENOMEM;
	n->below = ui->top;
	ui->top = n;
	return 0;
}

int kt_ui_new(const struct kt_ui_env *env, struct kt_ui **out, char *err, size_t errlen)
{
	const char *nocolor;
	struct kt_ui *ui;
	int r;

	*out = NULL;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen,
			 "the viewer needs a terminal on stdin and stdout; use -b for "
			 "batch reports");
		return -ENOTTY;
	}
	ui = calloc(1, sizeof(*ui));
	if (!ui) {
		snprintf(err, errlen, "viewer: out of memory");
		return -ENOMEM;
	}
	ui->epfd = ui->timerfd = -1;
	ui->env = *env;
	ui->opts = env->opts;
	ui->start_ns = kt_now_ns();
	ui->delay = env->opts->delay_s > 0 ? env->opts->delay_s : 1.0;
	nocolor = getenv("NO_COLOR");
	ui->color = env->opts->color && !(nocolor && *nocolor);
	ui->mouse = env->opts->mouse;
	ui->snap_fmt = KT_FORMAT_TEXT;
	kt_filter_all(&ui->filter);
	ui_settings_init(ui);
	ui->max_cpu = env->agg ? kt_agg_params(env->agg)->max_cpu : 0;
	ui->cpuset = calloc(KT_CPUSET_WORDS(ui->max_cpu) + 1, sizeof(*ui->cpuset));
	ui->ps = kt_ps_view_new(ui->max_cpu);
	if (!ui->cpuset || !ui->ps) {
		snprintf(err, errlen, "viewer: out of memory");
		kt_ps_view_free(ui->ps);
		free(ui->cpuset);
		free(ui);
		return -ENOMEM;
	}
	/* an unwritable --log is refused before the terminal is taken, as in batch mode */
	if (env->opts->log && !(ui->log = kt_log_open(env->opts->log, err, errlen))) {
		kt_ps_view_free(ui->ps);
		free(ui->cpuset);
		free(ui);
		return -EACCES;
	}
	r = setup_fds(ui, err, errlen);
	if (r < 0) {
		kt_ui_free(ui);
		return r;
	}
	ui->top = ui_screen_new(ui, &ui_modules_ops, KT_ANY, "modules");
	if (!ui->top || open_zoom(ui, env) < 0) {
		snprintf(err, errlen, "viewer: out of memory");
		kt_ui_free(ui);
		return -ENOMEM;
	}

	g_saved_tio_ok = tcgetattr(STDIN_FILENO, &g_saved_tio) == 0;
	setlocale(LC_CTYPE, "");
	ui->utf8 = !env->opts->ascii && !strcmp(nl_langinfo(CODESET), "UTF-8");
	ui->term = can_address() ? newterm(NULL, stdout, stdin) : NULL;
	if (!ui->term) {
		snprintf(err, errlen,
			 "cannot start the viewer on terminal type '%.64s'; set TERM (e.g. "
			 "TERM=xterm) or use -b",
			 getenv("TERM") ? getenv("TERM") : "");
		kt_ui_free(ui);
		return -ENOTTY;
	}
	set_term(ui->term);
	build_restore_seq();
	g_curses_up = 1;
	cbreak(); /* not raw(): Ctrl-C stays SIGINT, which main reads from its signalfd */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	init_colors(ui);
	if (ui->mouse) {
		mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON1_PRESSED |
			      BUTTON4_PRESSED | BUTTON5_PRESSED,
			  NULL);
		mouseinterval(0);
	}
	getmaxyx(stdscr, ui->rows, ui->cols);
	ui_log(ui, "viewer up: %dx%d, %s, mouse %s", ui->cols, ui->rows,
	       ui->color ? "colour" : "monochrome", ui->mouse ? "on" : "off");
	ui_snapshot_check_dir(ui);
	requery_all(ui);
	ui_draw(ui);
	*out = ui;
	return 0;
}

void kt_ui_free(struct kt_ui *ui)
{
	struct ui_screen *s;

	if (!ui)
		return;
	free(ui->hist);
	ui->hist = NULL;
	if (ui->term) {
		if (ui->mouse)
			mousemask(0, NULL);
		curs_set(1);
		endwin();
		g_curses_up = 0;
		delscreen(ui->term);
	}
	while ((s = ui->top)) {
		ui->top = s->below;
		ui_screen_free(s);
	}
	ui_screen_free(ui->pending);
	kt_report_snapshot_free(ui->frozen);
	kt_result_free(&ui->cpus);
	kt_ps_view_free(ui->ps);
	free(ui->cpuset);
	if (ui->epfd >= 0)
		close(ui->epfd);
	if (ui->timerfd >= 0)
		close(ui->timerfd);
	if (ui->log) {
		ui_log(ui, "viewer closed");
		fclose(ui->log);
	}
	free(ui);
}

int kt_ui_fd(const struct kt_ui *ui)
{
	return ui->epfd;
}

/* Applies an action's reaction flags: push/pop the stack, requery, redraw. */
static int apply(struct kt_ui *ui, int flags)
{
	if (flags & UI_R_QUIT)
		return KT_UI_QUIT;
	if ((flags & UI_R_POP) && ui->top->below) {
		struct ui_screen *s = ui->top;

		ui->top = s->below;
		ui_screen_free(s);
		flags |= UI_R_REQUERY;
	}
	if ((flags & UI_R_PUSH) && ui->pending) {
		ui->pending->below = ui->top;
		ui->top = ui->pending;
		ui->pending = NULL;
		flags |= UI_R_REQUERY;
	}
	/* paused, a key that changes what is shown queries everything once (one moment on
	 * the whole screen) and freezes that moment for w */
	if (flags & UI_R_REQUERY) {
		requery_all(ui);
		if (ui->paused)
			ui_snapshot_freeze(ui);
	}
	if (flags & (UI_R_REDRAW | UI_R_REQUERY | UI_R_PUSH | UI_R_POP))
		ui->dirty = 1;
	return KT_UI_CONTINUE;
}

int kt_ui_input(struct kt_ui *ui)
{
	struct epoll_event evs[4];
	int n, ch;

	n = epoll_wait(ui->epfd, evs, 4, 0);
	for (int i = 0; i < n; i++) {
		if (evs[i].data.fd == ui->timerfd) {
			uint64_t exp;

			if (read(ui->timerfd, &exp, sizeof(exp)) > 0 && !ui->paused)
				apply(ui, UI_R_REQUERY);
			if (!ui->top->res.nrows && ++ui->early < UI_EARLY_MAX) {
				struct itimerspec its = {.it_value = {0, UI_EARLY_NS}};

				timerfd_settime(ui->timerfd, 0, &its, NULL);
			}
		} else if ((evs[i].events & (EPOLLHUP | EPOLLERR)) && !(evs[i].events & EPOLLIN)) {
			return KT_UI_QUIT; /* the terminal went away */
		}
	}
	while ((ch = getch()) != ERR) {
		int flags;

		if (ui_too_small(ui))
			flags = ui_key_too_small(ui, ch);
		else if (ui->prompt.active)
			flags = ui_prompt_key(ui, ch);
		else {
			if (ch != KEY_RESIZE)
				ui_status_expire(ui, 1);
			flags = ui_key(ui, ch);
		}
		if (apply(ui, flags) == KT_UI_QUIT)
			return KT_UI_QUIT;
	}
	if (ui->dirty) {
		ui->dirty = 0;
		ui_draw(ui);
	}
	return KT_UI_CONTINUE;
}

void kt_ui_refresh(struct kt_ui *ui)
{
	uint64_t t0 = kt_now_ns(), t1;

	ui_hist_push(ui); /* paused or not: the history goes on, as sampling does */
	if (!ui->paused)
		requery_all(ui);
	t1 = kt_now_ns();
	ui_draw(ui);
	/* what one tick costs, queries and drawing apart (the scale benchmark's p99) */
	ui_log(ui, "refresh: query %.3f ms, draw %.3f ms, window_mem=%zu tasks=%u stacks=%u cum=%u locs=%u",
	       (double)(t1 - t0) / 1e6, (double)(kt_now_ns() - t1) / 1e6, kt_window_mem(ui->env.win),
	       kt_window_ntasks(ui->env.win), kt_window_nstacks(ui->env.win),
	       kt_window_ncum(ui->env.win), kt_sym_nlocs(ui->env.sym));
}

void kt_ui_resize(struct kt_ui *ui)
{
	int rows, cols;

	if (term_size(&rows, &cols) == 0)
		resizeterm(rows, cols);
	getmaxyx(stdscr, ui->rows, ui->cols);
	ui_log(ui, "resize %dx%d", ui->cols, ui->rows);
	/* A new size is the one time a full repaint is right. */
	clearok(curscr, TRUE);
	if (!ui->paused)
		requery_all(ui);
	ui_draw(ui);
}

void kt_ui_status(struct kt_ui *ui, const char *msg)
{
	if (!ui || !msg)
		return;
	/* an error on the line stays its time; the notice comes after it */
	if (ui->status[0] && ui->status_kind == UI_ST_ERROR &&
	    ui_clock_ns() - ui->status_ns < UI_STATUS_ERR_NS) {
		snprintf(ui->queued, sizeof(ui->queued), "%s", msg);
		ui_draw(ui);
		return;
	}
	ui_set_status(ui, 0, "%s", msg);
	ui->status_kind = UI_ST_NOTICE;
	ui_draw(ui);
}

double kt_ui_delay(const struct kt_ui *ui)
{
	return ui->delay;
}
