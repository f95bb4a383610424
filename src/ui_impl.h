/* The viewer's internal contract, shared by the ui*.c files only: the screen objects and
 * their ops table, the key table entry, reaction flags, and the drawing helpers. */
#ifndef KERNTOP_UI_IMPL_H
#define KERNTOP_UI_IMPL_H

#include <curses.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kerntop/agg.h"
#include "kerntop/options.h"
#include "kerntop/source.h"
#include "kerntop/ui.h"
#include "kerntop/util.h"

/* Screen kinds: a screen's identity for the key table, whose entries name the kinds they
 * apply to as a bit mask (dispatch, help, key bar). Nothing else tests a kind: what a screen
 * does differently is in its ops (hooks and UI_SF_* flags). */
enum ui_kind {
	UI_MODULES,
	UI_FUNCS,
	UI_TOPFUNCS,
	UI_LINES,
	UI_CPUS,
	UI_TASKS,
	UI_CALLERS,
	UI_CALLEES,
	UI_STACKS,   /* hottest full stacks of a function or module */
	UI_FRAMES,   /* the frames of one stack */
	UI_CONTEXTS, /* execution contexts */
	UI_HELP,
	UI_ANNOTATE, /* one function's instructions */
	UI_NKINDS,
};
#define UI_ON(k) (1u << (k))
#define UI_ON_ROWS                                                                                 \
	(UI_ON(UI_MODULES) | UI_ON(UI_FUNCS) | UI_ON(UI_TOPFUNCS) | UI_ON(UI_LINES) |              \
	 UI_ON(UI_CPUS) | UI_ON(UI_TASKS) | UI_ON(UI_CALLERS) | UI_ON(UI_CALLEES) |                \
	 UI_ON(UI_STACKS) | UI_ON(UI_FRAMES) | UI_ON(UI_CONTEXTS))
#define UI_ON_TREES (UI_ON(UI_CALLERS) | UI_ON(UI_CALLEES))
#define UI_ON_LISTS (UI_ON(UI_MODULES) | UI_ON(UI_FUNCS) | UI_ON(UI_TOPFUNCS))
#define UI_ON_ALL (UI_ON_ROWS | UI_ON(UI_HELP) | UI_ON(UI_ANNOTATE))

/* What must happen after an action: the loop applies these, actions never draw. */
enum {
	UI_R_NONE = 0,
	UI_R_REDRAW = 1 << 0,  /* draw again from the results we have */
	UI_R_REQUERY = 1 << 1, /* re-run the top screen's query (even when paused) */
	UI_R_PUSH = 1 << 2,    /* push ui->pending */
	UI_R_POP = 1 << 3,     /* drop the top screen */
	UI_R_QUIT = 1 << 4,
};

/* Screen-level actions routed from the key table to the screen's key handler. */
enum ui_act {
	UI_ACT_OPEN,	 /* Enter, click on the selected row */
	UI_ACT_EXPAND,	 /* Right in a tree */
	UI_ACT_COLLAPSE, /* Left in a tree */
	UI_ACT_CALLERS,	 /* g */
	UI_ACT_CALLEES,	 /* G */
	UI_ACT_STACKS,	 /* S */
	UI_ACT_MARK,	 /* m: add or remove the selected CPU from the CPU set */
};

/* Colour pairs (0 = none); every use also has a monochrome attribute. */
enum {
	UI_C_TITLE = 1,
	UI_C_COLHDR,
	UI_C_SEL,
	UI_C_KERNEL,
	UI_C_USER,
	UI_C_IDLE,
	UI_C_ERROR,
	UI_C_MARK,
	UI_C_KEY,
};

/* Status line messages: informational ones go at the next key or after UI_STATUS_INFO_NS,
 * notices from the program at the next key once shown a moment, errors after
 * UI_STATUS_ERR_NS (keys do not clear them, so a quick key press never hides one). */
enum ui_status_kind {
	UI_ST_INFO,
	UI_ST_NOTICE,
	UI_ST_ERROR,
};
#define UI_STATUS_INFO_NS (5 * 1000000000ull)
#define UI_STATUS_NOTICE_MIN_NS (2 * 1000000000ull)
#define UI_STATUS_ERR_NS (15 * 1000000000ull)
/* The clock the status line ages by: kt_now_ns, alone in ui_clock.c so that a test build
 * links one that skips ahead (tests/seam/ui_clock_offset.c), instead of waiting 15 s. */
uint64_t ui_clock_ns(void);

struct kt_ui;
struct ui_screen;

/* A table column: formats one cell of a row. */
struct ui_col {
	const char *title;
	int width; /* cell width; the minimum for a flex column */
	int drop;  /* 0 never dropped; higher numbers are dropped first on narrow terminals */
	int sort;  /* the enum kt_sort this column sorts by, or -1 */
	/* takes a share of the width left over: 1 any amount, N > 1 at most N more cells */
	int flex;
	int left;  /* left-aligned */
	void (*fmt)(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		    char *buf, size_t len);
	/* draws the cell itself (bars) instead of fmt, with the row's attribute set */
	void (*cell)(struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r, int y,
		     int x, int w);
};

struct ui_screen_ops {
	enum ui_kind kind; /* for the key table only */
	const char *name;
	const struct ui_col *cols;
	int ncols;
	/* Fills s->q.view and the view's own fields when pushed. */
	void (*enter)(struct kt_ui *ui, struct ui_screen *s);
	/* Draws the body into lines [y, y + h). */
	void (*draw)(struct kt_ui *ui, struct ui_screen *s, int y, int h);
	/* A screen-level action; returns UI_R_* flags. */
	int (*key)(struct kt_ui *ui, struct ui_screen *s, enum ui_act act);
	/* Refreshes the screen's data on a tick; NULL: the aggregator query of s->q. */
	void (*query)(struct kt_ui *ui, struct ui_screen *s);
	/* Rebuilds the visible rows after a query; NULL: the table's (ui_table_sync). */
	void (*sync)(struct ui_screen *s);
	/* UI_UNFILTERED_* bits: the global filters a screen listing their values ignores, so
	 * that another value can be picked (the CPU screen shows every CPU...). */
	unsigned unfiltered;
	unsigned flags; /* UI_SF_* */
	/* Allocates the screen's private state into s->priv (before enter); returns 0 or
	 * -ENOMEM. NULL: the screen has none. */
	int (*init)(struct ui_screen *s);
	/* Frees s->priv; set with init. */
	void (*free)(struct ui_screen *s);
	/* The identity of result row i across refreshes beyond its id (the selection is found
	 * again by both); NULL: the id alone. */
	uint64_t (*row_key)(const struct ui_screen *s, size_t i);
	/* a: opens the annotate screen for this screen's selection; NULL: of the selected
	 * row's function. Returns UI_R_* flags. */
	int (*annotate)(struct kt_ui *ui, struct ui_screen *s);
};

/* Screen flags (ui_screen_ops.flags). */
enum {
	UI_SF_PER_CPU = 1,	  /* one column per CPU, always (contexts) */
	UI_SF_PER_CPU_TOGGLE = 2, /* one column per CPU while p is on (the lists) */
	UI_SF_CALL_ROWS = 4,	  /* led by a "callers" and a "callees" row (a function's lines) */
	UI_SF_OWN_TEXT = 8,	  /* applies the / filter to its rows itself (the aggregator
				   * filters flat views only) */
	UI_SF_FUNC_CRUMB = 16,	  /* its crumb is its function's name (a function's lines) */
	UI_SF_OVERLAY = 32,	  /* shows no data of its own: snapshots are of the screen below */
};
/* The screen has one column per CPU now. */
int ui_per_cpu(const struct kt_ui *ui, const struct ui_screen *s);

enum {
	UI_UNFILTERED_CPU = 1,
	UI_UNFILTERED_TASK = 2,
	UI_UNFILTERED_CTX = 4,
};

/* Indexes stored in ui_screen.vis for synthetic rows (the "callers" and "callees" rows of a
 * lines screen; help and frame lines use UI_VIS_CALLERS as "no result row behind it"). */
#define UI_VIS_CALLERS ((size_t)-1)
#define UI_VIS_CALLEES ((size_t)-2)
#define UI_VIS_SYNTH(v) ((v) >= UI_VIS_CALLEES)

struct ui_screen {
	const struct ui_screen_ops *ops;
	struct ui_screen *below;
	struct kt_query q;
	struct kt_result res;
	int have_res;
	char crumb[128];  /* this level in the breadcrumb */
	char text[64];	  /* the / filter of this screen */
	uint32_t arg;	  /* module, function, ... this screen is about */
	size_t sel, top;  /* selected row and first drawn row, indexes into vis */
	uint32_t sel_id;  /* id of the selected row, to keep it across refreshes */
	uint64_t sel_key; /* ops->row_key of the selected row */
	int sel_valid;
	int sort_col; /* index into ops->cols */
	/* rows drawn, as indexes into res.rows (trees hide collapsed subtrees) */
	size_t *vis;
	size_t nvis, capvis;
	int body_y, body_h; /* where the rows were last drawn (mouse) */
	/* the screen's own state, allocated by ops->init and freed by ops->free; only the
	 * screen's file knows its type (trees, stacks, frames, annotate) */
	void *priv;
};

struct ui_prompt {
	int active;
	char label[96];
	char buf[PATH_MAX]; /* the W prompt is pre-filled with a whole snapshot path */
	size_t len;
	int (*done)(struct kt_ui *ui, const char *text); /* returns UI_R_* flags */
};

struct kt_ui {
	struct kt_ui_env env;
	struct kt_ps_view *ps; /* the /proc figures of the last query (frozen while paused) */
	const struct kt_options *opts;
	SCREEN *term;
	int epfd, timerfd;
	int rows, cols;
	int color, mouse;
	struct ui_screen *top;
	struct ui_screen *pending;
	struct kt_filter filter; /* global: CPU, task, context, idle; text is per screen; the task
				  * as ui_task_id() resolves it */
	int32_t task_pid, task_tid; /* the filtered task's key: the window may reuse its id */
	/* the CPU filter: a set of CPUs (filter.cpuset points here when it is not empty) */
	uint64_t *cpuset;
	uint32_t max_cpu, ncpuset;
	int paused;
	int per_cpu;
	double delay;
	struct kt_summary sum;
	struct kt_source_stats stats; /* the source's counters at the tick that made sum: a
				       * paused screen and its snapshot show both as they were */
	uint64_t stats_now;	      /* and the source's clock then */
	struct kt_result cpus; /* per-CPU strip in the header */
	int have_cpus;
	uint64_t replay_t0;
	char status[256];
	int status_err;
	uint64_t status_ns;  /* when it was set */
	int status_kind;     /* enum ui_status_kind: when it goes away */
	char queued[256];    /* a notice that came while an error was up: shown after it */
	char push_text[96];  /* --push counters for the header, "" without --push */
	int push_bad;	     /* a push failed or a profile was dropped */
	struct ui_prompt prompt;
	enum kt_format snap_fmt;
	uint64_t snap_no;	     /* snapshots written: the number in their header */
	struct kt_snapshot *frozen; /* paused: the snapshot of what is on screen */
	FILE *log;
	int logged_frame, logged_data;
	int early; /* early refreshes done while waiting for the first samples */
	int irq_noticed; /* the IRQ-off notice was shown */
	uint64_t start_ns;
	/* mouse: a click on the selected row opens it */
	int dirty;
	/* history (ui_history.c): block characters for sparklines (a UTF-8 locale, no
	 * --ascii), and the trend column's peak shown */
	int utf8;
	int trend_peak;
	/* the history meters: a ring of per-refresh figures, and how they are shown */
	struct ui_hist_pt *hist;
	uint32_t hist_n, hist_head;
	int hist_mode; /* UI_HIST_AUTO, UI_HIST_BIG, UI_HIST_OFF */
	/* saved settings (ui_settings.c): the sort new screens start with, hidden columns */
	int pref_sort, pref_reverse;
	char hidden[KT_SETTINGS_HIDDEN_LEN];
};

/* ui.c */
void ui_build_query(const struct kt_ui *ui, const struct ui_screen *s, struct kt_query *out);
/* The task filter's current id: KT_ANY (no filter), or UI_TASK_GONE once the task left. */
#define UI_TASK_GONE (UINT32_MAX - 1)
uint32_t ui_task_id(const struct kt_ui *ui);
void ui_set_task(struct kt_ui *ui, uint32_t id);
void ui_query(struct kt_ui *ui, struct ui_screen *s);
void ui_draw(struct kt_ui *ui);
void ui_set_status(struct kt_ui *ui, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Drops the status message when its time is up (key: a key was pressed). */
void ui_status_expire(struct kt_ui *ui, int key);
/* The terminal is below the minimum size: only the too-small message is drawn. */
int ui_too_small(const struct kt_ui *ui);
void ui_prompt(struct kt_ui *ui, const char *label, const char *init,
	       int (*done)(struct kt_ui *ui, const char *text));
struct ui_screen *ui_screen_new(struct kt_ui *ui, const struct ui_screen_ops *ops, uint32_t arg,
				const char *crumb);
void ui_screen_free(struct ui_screen *s);
void ui_log(struct kt_ui *ui, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
attr_t ui_attr(const struct kt_ui *ui, int pair, attr_t mono);

/* ui_keys.c */
typedef int (*ui_action)(struct kt_ui *ui, struct ui_screen *s);

/* One binding of the key table (ui_keys.c). */
struct ui_key {
	int key;
	const char *name; /* as shown in help and on the key bar */
	unsigned on;	  /* UI_ON() mask of the screens it works on */
	ui_action act;
	const char *help; /* NULL: hidden alias of the entry above */
	const char *bar;  /* label on the key bar, or NULL */
	int prio;	  /* key bar: lower comes first when not all fit (1: always there) */
	const char *sname, *sbar; /* shorter key name and label for a narrow bar, or NULL */
};

/* The key table, read-only, and its length (for the viewer's unit tests). */
const struct ui_key *ui_key_table(size_t *n);
/* The key bar's choice for ui->top at ui->cols columns: pick[i] set for the entries shown,
 * with the short names and labels when narrow. Returns how many. */
int ui_keybar_pick(const struct kt_ui *ui, int narrow, unsigned char *pick);
/* The bar drawn: the short forms (*narrow set) when they show more keys, else the long ones;
 * pick as above. Returns how many. */
int ui_keybar_choose(const struct kt_ui *ui, unsigned char *pick, int *narrow);
int ui_key(struct kt_ui *ui, int ch);
int ui_prompt_key(struct kt_ui *ui, int ch);
int ui_key_too_small(struct kt_ui *ui, int ch);
void ui_draw_keybar(struct kt_ui *ui, int y);
/* Help entries generated from the key table: the count; entry i's key names and text. */
size_t ui_help_entry(size_t i, char *names, size_t nlen, char *text, size_t tlen);

/* ui_snapshot.c: w and W. path NULL picks a fresh name in --snapshot-dir. */
void ui_snapshot(struct kt_ui *ui, enum kt_format fmt, const char *path);
void ui_snapshot_prompt(struct kt_ui *ui);
void ui_snapshot_check_dir(struct kt_ui *ui);
/* Paused: takes the snapshot of what is on screen now (w writes it, not later data). */
void ui_snapshot_freeze(struct kt_ui *ui);

/* ui_settings.c: the kerntoprc settings applied at start, the O key, the H key's columns */
void ui_settings_init(struct kt_ui *ui);
void ui_settings_save(struct kt_ui *ui);
void ui_columns_prompt(struct kt_ui *ui);
/* A column the user hid with H (only columns that narrow terminals may drop). */
int ui_col_hidden(const struct kt_ui *ui, const struct ui_col *c);

/* ui_header.c */
int ui_header_height(const struct kt_ui *ui);
/* The per-CPU strip fits and is drawn. */
int ui_strip_shown(const struct kt_ui *ui);
/* The /proc figures shown now (the copy taken at the last query), or NULL when there are none. */
const struct kt_ps_view *ui_ps(const struct kt_ui *ui);
/* The source's clock as shown: live, or that of the frozen tick while paused. */
uint64_t ui_source_now(const struct kt_ui *ui);
void ui_draw_header(struct kt_ui *ui);
void ui_draw_crumb(struct kt_ui *ui, int y);
void ui_draw_status(struct kt_ui *ui, int y);

/* ui_cpus.c: the CPU set every screen is filtered to (empty: all CPUs) */
void ui_cpus_clear(struct kt_ui *ui);
void ui_cpus_toggle(struct kt_ui *ui, uint32_t cpu);
int ui_cpus_has(const struct kt_ui *ui, uint32_t cpu);
/* "cpu 1" or "cpus 0,2-3" for the set (ranges folded); "" when empty */
void ui_cpus_fmt(const struct kt_ui *ui, char *buf, size_t len);
/* The CPUs sampled (the source's list, else 0..max_cpu-1): count, and the i-th. */
uint32_t ui_cpus_sampled(const struct kt_ui *ui);
uint32_t ui_cpus_sampled_nth(const struct kt_ui *ui, uint32_t i);

/* ui_table.c: the generic row list every table screen draws with */
#define UI_MAX_COLS 32
#define UI_MAX_PERCPU 256
#define UI_PERCPU_W 7 /* a per-CPU column and its gap */
#define UI_MORE_W 5   /* "+N" after the per-CPU columns that fit */
/* Which columns a table shows at ui->cols, where and how wide. */
struct ui_layout {
	int n;
	int idx[UI_MAX_COLS]; /* indexes into ops->cols, in order */
	int x[UI_MAX_COLS], w[UI_MAX_COLS];
	/* per-CPU columns: the CPUs shown, and how many more did not fit */
	int npercpu, percpu_x, more;
	uint32_t percpu[UI_MAX_PERCPU];
};
/* Columns are dropped from the highest ui_col.drop down until the table and every per-CPU
 * column asked for fit; per-CPU columns that still do not fit are counted in a "+N"; the
 * flex columns share what is left. Pure: read by the unit test tests/test_ui_layout.c. */
void ui_layout(const struct kt_ui *ui, const struct ui_screen *s, struct ui_layout *L);
void ui_table_draw(struct kt_ui *ui, struct ui_screen *s, int y, int h);
void ui_table_sync(struct ui_screen *s);
/* The screen's own sync hook, else ui_table_sync. */
void ui_screen_sync(struct ui_screen *s);
void ui_sel_move(struct ui_screen *s, long delta, int page);
/* Scrolls *top just enough that row sel is among the rows lines shown from *top; with
 * keep_full, a list of n rows that could fill them never ends in blank lines (rows removed
 * under it, a taller terminal). */
void ui_scroll_clamp(size_t *top, size_t sel, size_t rows, size_t n, int keep_full);
void ui_sel_set(struct ui_screen *s, size_t i);
const struct kt_row *ui_sel_row(const struct ui_screen *s);
void ui_fmt_count(uint64_t v, char *buf, size_t len);
void ui_fmt_ms(double ms, char *buf, size_t len);
void ui_fmt_pct(double p, char *buf, size_t len);
void ui_fmt_rate(double r, char *buf, size_t len);
void ui_col_name(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		 char *buf, size_t len);
void ui_col_hits(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		 char *buf, size_t len);
void ui_col_ms(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r, char *buf,
	       size_t len);
void ui_col_kernel(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		   char *buf, size_t len);
void ui_col_machine(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		    char *buf, size_t len);
void ui_col_rate(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		 char *buf, size_t len);
void ui_col_module(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		   char *buf, size_t len);
/* A kernel/user/idle bar of width w at the cursor. */
void ui_draw_bar(struct kt_ui *ui, double kernel, double user, double idle, int w);
void ui_put(int y, int x, int w, const char *s, int right);
void ui_put_ellipsized(int y, int x, int w, const char *s);

/* ui_history.c: the Trend column (drawn last-in, dropped first on a narrow terminal; sorts
 * by rising) and the points its query asks for */
#define UI_TREND_W 10
#define UI_TREND_DROP 9
void ui_cell_trend(struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r, int y,
		   int x, int w);
#define UI_COL_TREND                                                                               \
	{                                                                                          \
		"Trend", UI_TREND_W, UI_TREND_DROP, KT_SORT_RISING, 0, 1, NULL, ui_cell_trend      \
	}
/* The baseline columns (ui_history.c), before the Trend: the share's change in percentage
 * points and the rate ratio ("new", "gone" for rows that appeared or vanished). */
void ui_col_delta(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		  char *buf, size_t len);
void ui_col_ratio(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		  char *buf, size_t len);
int ui_has_baseline(const struct kt_ui *ui);
/* (columns sorting by KT_SORT_DELTA or KT_SORT_RATIO are there only with a baseline) */
#define UI_COL_DELTA                                                                               \
	{"\u0394%", 7, UI_TREND_DROP - 1, KT_SORT_DELTA, 0, 0, ui_col_delta, NULL},                  \
	{                                                                                          \
		"Ratio", 6, UI_TREND_DROP - 1, KT_SORT_RATIO, 0, 0, ui_col_ratio, NULL             \
	}
/* b and B (ui_keys.c): the current window as the baseline, and none. */
int ui_baseline_take(struct kt_ui *ui);
int ui_baseline_clear(struct kt_ui *ui);
/* The history meters (ui_history.c): per refresh, kernel busy %, softirq % (from /proc/stat;
 * negative when unknown) and idle %, the last UI_HIST_MAX refreshes kept. The header shows one
 * line of three small graphs when the terminal has UI_HIST_ROWS rows or more (auto), three
 * full-width lines (big), or none; M cycles the three. */
#define UI_HIST_MAX 600
#define UI_HIST_ROWS 36
enum { UI_HIST_AUTO, UI_HIST_BIG, UI_HIST_OFF };
struct ui_hist_pt {
	float busy, si, idle;
};
void ui_hist_push(struct kt_ui *ui);
int ui_hist_lines(const struct kt_ui *ui);
void ui_hist_draw(struct kt_ui *ui, int y);
int ui_hist_mode_next(struct kt_ui *ui);
/* Points the screen's query should ask for: 0 when it has no Trend column or it is hidden. */
uint32_t ui_trend_points(const struct kt_ui *ui, const struct ui_screen *s);
/* One sparkline character of level 0..8 (kt_trend_level) in buf. */
void ui_spark_char(const struct kt_ui *ui, int level, char *buf, size_t len);

/* The screens. */
extern const struct ui_screen_ops ui_modules_ops, ui_funcs_ops, ui_topfuncs_ops, ui_lines_ops,
    ui_cpus_ops, ui_tasks_ops, ui_callers_ops, ui_callees_ops, ui_stacks_func_ops,
    ui_stacks_module_ops, ui_frames_ops, ui_help_ops, ui_contexts_ops,
    ui_annotate_ops;
/* Opens the callers (callees) tree of function func (named name) above the top screen. */
int ui_open_callers(struct kt_ui *ui, uint32_t func, const char *name);
int ui_open_callees(struct kt_ui *ui, uint32_t func, const char *name);
/* Opens the hottest stacks of function func, or of module when func is KT_ANY. */
int ui_open_stacks(struct kt_ui *ui, uint32_t module, uint32_t func, const char *name);
/* Opens the lines of a function. */
int ui_open_lines(struct kt_ui *ui, uint32_t func, const char *name);

/* ui_annotate.c: opens func's annotate screen, at address at (0: the top). */
int ui_open_annotate(struct kt_ui *ui, uint32_t func, uint64_t at);
void ui_annotate_refresh(struct kt_ui *ui, struct ui_screen *s);
int ui_annotate_sort(struct kt_ui *ui, struct ui_screen *s);
/* The screen's listing as snapshot text (malloc'd), or NULL. */
char *ui_annotate_text(const struct ui_screen *s);

#endif
