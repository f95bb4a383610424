/* The interactive viewer: a stack of ncurses screens over the aggregator (modules, functions,
 * lines, CPUs, tasks, callers), one key table driving bindings, help and the key bar. It owns
 * the terminal (restored on every exit path) and never reads perf or /proc itself. It may use
 * agg.h, report.h, window.h (mode, span), symbols.h (names) and source.h (info, stats). */
#ifndef KERNTOP_UI_H
#define KERNTOP_UI_H

#include <stdint.h>

#include "kerntop/procstat.h"
#include "kerntop/settings.h"

struct kt_ui;
struct kt_agg;
struct kt_window;
struct kt_symbols;
struct kt_source;
struct kt_options;

struct kt_ui_env {
	struct kt_agg *agg;
	struct kt_window *win;
	struct kt_symbols *sym;
	struct kt_source *src;
	const struct kt_options *opts;
	const struct kt_procstat *proc; /* the /proc figures (read by main, never by the UI) */
	/* the saved settings: applied at start, written by the O key (NULL: none) */
	const struct kt_settings_ctx *settings;
};

enum {
	KT_UI_CONTINUE = 0,
	KT_UI_QUIT = 1,
};

/* Takes over the terminal. Returns 0 or -errno with a message (not a tty, too small...). */
int kt_ui_new(const struct kt_ui_env *env, struct kt_ui **out, char *err, size_t errlen);
/* Restores the terminal; safe with NULL. */
void kt_ui_free(struct kt_ui *ui);

/* File descriptor to poll for keys and mouse events (an epoll fd over the terminal and the
 * viewer's own early-refresh timer: call kt_ui_input whenever it is readable). */
int kt_ui_fd(const struct kt_ui *ui);
/* Handles every pending key; returns KT_UI_QUIT when the user quit. */
int kt_ui_input(struct kt_ui *ui);
/* The refresh tick: re-query and redraw unless paused. */
void kt_ui_refresh(struct kt_ui *ui);
/* SIGWINCH: relayout. */
void kt_ui_resize(struct kt_ui *ui);
/* A one-line message for the status line (notices, lost samples, errors). */
void kt_ui_status(struct kt_ui *ui, const char *msg);
/* The --push counters shown on the header's figures line (bad: in the error colour). */
void kt_ui_push_status(struct kt_ui *ui, const char *text, int bad);
/* The refresh delay in seconds (the d key changes it). */
double kt_ui_delay(const struct kt_ui *ui);

/* Restores the terminal from a fatal-signal handler (best effort). */
void kt_ui_emergency_restore(void);

#endif
