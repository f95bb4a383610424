/* The snapshot keys: w writes the current screen and every level under it as text into
 * --snapshot-dir; W asks for the format and the file on the status line. While paused they
 * write the snapshot taken when the screen froze, so the file is what is on screen. */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/report.h"
#include "kerntop/source.h"
#include "kerntop/util.h"
#include "kerntop/window.h"
#include "ui_impl.h"

static const struct ui_screen *data_screen(const struct kt_ui *ui)
{
	const struct ui_screen *s = ui->top;

	while ((s->ops->flags & UI_SF_OVERLAY) && s->below)
		s = s->below;
	return s;
}

static const char *snap_dir(const struct kt_ui *ui)
{
	return ui->opts->snapshot_dir && *ui->opts->snapshot_dir ? ui->opts->snapshot_dir : ".";
}

/* At start: a --snapshot-dir that cannot take files is said before w is pressed. */
void ui_snapshot_check_dir(struct kt_ui *ui)
{
	char err[KT_ERRLEN];

	if (kt_dir_check(snap_dir(ui), err, sizeof(err)) < 0)
		ui_set_status(ui, 1, "w will fail: %s", err);
}

/* The report context and query of the screen under the help screen, as of now. */
static void snap_query(struct kt_ui *ui, enum kt_format fmt, struct kt_report_ctx *c,
		       struct kt_query *q)
{
	ui_build_query(ui, data_screen(ui), q);
	q->limit = 0;
	/* the counters of the tick on screen, like the rows (a paused screen's, when paused) */
	kt_report_ctx_init(c, fmt, ui->opts->top, kt_source_info(ui->env.src), &ui->stats);
	c->window_s = (double)kt_window_span(ui->env.win) / 1e9;
	c->ncpus = ui->sum.ncpus; /* the CPUs the screen's filter keeps */
	c->time_s = ui->replay_t0 ? (double)(ui_source_now(ui) - ui->replay_t0) / 1e9
				  : (double)(kt_now_ns() - ui->start_ns) / 1e9;
	c->filter = q->filter;
	c->pprof_labels = ui->opts->pprof_labels;
}

void ui_snapshot_freeze(struct kt_ui *ui)
{
	struct kt_report_ctx c;
	struct kt_query q;
	uint64_t t0 = kt_now_ns();
	int r;

	kt_report_snapshot_free(ui->frozen);
	ui->frozen = NULL;
	if (!ui->env.agg)
		return;
	snap_query(ui, KT_FORMAT_TEXT, &c, &q);
	c.annotate_text = ui_annotate_text(data_screen(ui));
	r = kt_report_snapshot_take(ui->env.agg, &c, &q, &ui->frozen);
	free((char *)c.annotate_text);
	ui_log(ui, "paused: snapshot taken in %.1f ms (%s)", (double)(kt_now_ns() - t0) / 1e6,
	       r < 0 ? strerror(-r) : "ok");
}

void ui_snapshot(struct kt_ui *ui, enum kt_format fmt, const char *path)
{
	struct kt_report_ctx c;
	struct kt_query q;
	char file[PATH_MAX], err[KT_ERRLEN];
	int r;

	if (!path) {
		r = kt_report_snapshot_path(ui->opts->snapshot_dir, fmt, file, sizeof(file));
		if (r < 0) {
			if (kt_dir_check(snap_dir(ui), err, sizeof(err)) < 0)
				ui_set_status(ui, 1, "snapshot failed: %s", err);
			else
				ui_set_status(ui, 1,
					      "snapshot failed: no free file name in %s (%s)",
					      snap_dir(ui), strerror(-r));
			return;
		}
		path = file;
	}
	err[0] = 0;
	if (ui->paused && ui->frozen) {
		/* the moment on screen; writing it twice (text, then json) gives one number */
		r = kt_report_snapshot_write(path, ui->frozen, fmt, ui->snap_no + 1, err,
					     sizeof(err));
	} else {
		snap_query(ui, fmt, &c, &q);
		c.report_no = ui->snap_no + 1;
		c.annotate_text = ui_annotate_text(data_screen(ui));
		r = kt_report_snapshot(path, ui->env.agg, &c, &q, err, sizeof(err));
		free((char *)c.annotate_text);
	}
	if (r < 0) {
		ui_set_status(ui, 1, "snapshot failed: %s", err[0] ? err : strerror(-r));
		return;
	}
	ui->snap_no++;
	ui_set_status(ui, 0, "snapshot written to %s%s", path,
		      ui->paused && ui->frozen ? " (the paused screen)" : "");
}

static int path_done(struct kt_ui *ui, const char *text)
{
	if (!*text) {
		ui_set_status(ui, 0, "snapshot cancelled");
		return UI_R_REDRAW;
	}
	ui_snapshot(ui, ui->snap_fmt, text);
	return UI_R_REDRAW;
}

static int format_done(struct kt_ui *ui, const char *text)
{
	static const enum kt_format fmts[] = {KT_FORMAT_TEXT, KT_FORMAT_JSON, KT_FORMAT_CSV,
					      KT_FORMAT_FOLDED, KT_FORMAT_PPROF};
	char file[PATH_MAX];
	int found = 0;

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		if (!strcmp(text, kt_format_name(fmts[i])) || (!*text && i == 0)) {
			ui->snap_fmt = fmts[i];
			found = 1;
			break;
		}
	}
	if (!found) {
		ui_set_status(ui, 1, "unknown snapshot format '%s': text, json, csv, folded or pprof",
			      text);
		return UI_R_REDRAW;
	}
	if (kt_report_snapshot_path(ui->opts->snapshot_dir, ui->snap_fmt, file, sizeof(file)) < 0)
		file[0] = 0;
	ui_prompt(ui, "snapshot file: ", file, path_done);
	return UI_R_REDRAW;
}

void ui_snapshot_prompt(struct kt_ui *ui)
{
	ui_prompt(ui, "snapshot format (text, json, csv, folded, pprof): ", kt_format_name(ui->snap_fmt),
		  format_done);
}
