/* The tasks screen: which tasks were running when kernel hits were taken; Enter filters
 * every screen to the task (again: all tasks). */
#include "config.h"

#include "kerntop/window.h"
#include "ui_impl.h"

static void col_pid(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		    char *buf, size_t len)
{
	if (r->pid < 0) /* tasks merged per command name */
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s%d", ui_task_id(ui) == r->id ? "*" : "", (int)r->pid);
}

static void col_tid(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		    char *buf, size_t len)
{
	const struct kt_task *t = ui->env.win ? kt_window_task_info(ui->env.win, r->id) : NULL;

	if (r->pid < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d", t ? (int)t->tid : (int)r->pid);
}

static const struct ui_col cols[] = {
    {"PID", 8, 0, -1, 0, 0, col_pid, NULL},
    {"TID", 8, 2, -1, 0, 0, col_tid, NULL},
    {"Command", 16, 0, KT_SORT_NAME, 1, 1, ui_col_name, NULL},
    {"Hits", 9, 0, KT_SORT_HITS, 0, 0, ui_col_hits, NULL},
    {"CPU ms", 10, 3, -1, 0, 0, ui_col_ms, NULL},
    {"%Kernel", 8, 0, -1, 0, 0, ui_col_kernel, NULL},
    {"%Machine", 9, 1, -1, 0, 0, ui_col_machine, NULL},
    {"Hits/s", 9, 4, KT_SORT_RATE, 0, 0, ui_col_rate, NULL},
    UI_COL_DELTA,
    UI_COL_TREND,
};

static void enter(struct kt_ui *ui, struct ui_screen *s)
{
	s->q.view = KT_VIEW_TASKS;
}

static int key(struct kt_ui *ui, struct ui_screen *s, enum ui_act act)
{
	const struct kt_row *r = ui_sel_row(s);

	if (act != UI_ACT_OPEN || !r)
		return UI_R_NONE;
	if (ui_task_id(ui) == r->id) {
		ui_set_task(ui, KT_ANY);
		ui_set_status(ui, 0, "showing all tasks");
	} else if (r->pid < 0) { /* a group: its id never changes */
		ui_set_task(ui, r->id);
		ui_set_status(ui, 0, "every screen shows the tasks %s only (x: all)",
			      r->name ? r->name : "");
	} else { /* the row's key, in case its id was reused since the query (paused) */
		ui->filter.task = r->id;
		ui->task_pid = r->pid;
		ui->task_tid = r->tid;
		ui_set_status(ui, 0, "every screen shows task %d %s only (x: all)", (int)r->pid,
			      r->name ? r->name : "");
	}
	return UI_R_POP;
}

const struct ui_screen_ops ui_tasks_ops = {
    .kind = UI_TASKS,
    .name = "tasks",
    .cols = cols,
    .ncols = sizeof(cols) / sizeof(cols[0]),
    .enter = enter,
    .draw = ui_table_draw,
    .key = key,
    .unfiltered = UI_UNFILTERED_TASK,
};
