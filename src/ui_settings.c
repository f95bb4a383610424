/* The viewer's saved settings: applied at start from the kerntoprc file (main read it), written
 * back by the O key, and the hidden columns the H key chooses. The file format and its rules
 * are in settings.c and docs/settings.md. */
#include "config.h"

#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "kerntop/agg.h"
#include "kerntop/settings.h"
#include "kerntop/window.h"
#include "ui_impl.h"

/* Every screen with a table: where the column titles H accepts come from. */
static const struct ui_screen_ops *const table_screens[] = {
    &ui_modules_ops,	 &ui_funcs_ops,		&ui_topfuncs_ops, &ui_lines_ops,
    &ui_cpus_ops,	 &ui_tasks_ops,		&ui_callers_ops,  &ui_callees_ops,
    &ui_stacks_func_ops, &ui_stacks_module_ops, &ui_frames_ops,
};
#define NTABLES (sizeof(table_screens) / sizeof(table_screens[0]))

void ui_settings_init(struct kt_ui *ui)
{
	const struct kt_settings *s = ui->env.settings ? &ui->env.settings->s : NULL;

	ui->pref_sort = KT_SORT_HITS;
	if (!s)
		return;
	if (s->set & KT_SET_SORT)
		ui->pref_sort = s->sort;
	if (s->set & KT_SET_REVERSE)
		ui->pref_reverse = s->reverse;
	if (s->set & KT_SET_HIDDEN)
		snprintf(ui->hidden, sizeof(ui->hidden), "%s", s->hidden);
	if (s->set & KT_SET_PER_CPU)
		ui->per_cpu = s->per_cpu;
	if (s->set & KT_SET_SHOW_IDLE)
		ui->filter.hide_idle = !s->show_idle;
	/* --irq-owner on the command line wins (there is no option to turn it off) */
	if ((s->set & KT_SET_IRQ_OWNER) && ui->env.agg && !ui->opts->irq_owner)
		kt_agg_set_irq_owner(ui->env.agg, s->irq_owner);
	/* skipped lines or an unreadable file: shown like an error, so the notices of the
	 * start (a replay that ends at once) queue behind it instead of hiding it */
	if (ui->env.settings->notice[0])
		ui_set_status(ui, 1, "%s", ui->env.settings->notice);
}

/* Is name (len bytes) one of the comma-separated titles of list (case and spaces around the
 * commas do not matter)? */
static int in_list(const char *list, const char *name, size_t len)
{
	while (*list) {
		size_t n = strcspn(list, ",");
		const char *b = list, *e = list + n;

		while (b < e && *b == ' ')
			b++;
		while (e > b && e[-1] == ' ')
			e--;
		if ((size_t)(e - b) == len && !strncasecmp(b, name, len))
			return 1;
		list += n + (list[n] == ',');
	}
	return 0;
}

int ui_col_hidden(const struct kt_ui *ui, const struct ui_col *c)
{
	if ((c->sort == KT_SORT_DELTA || c->sort == KT_SORT_RATIO) && !ui_has_baseline(ui))
		return 1;
	return c->drop > 0 && ui->hidden[0] && in_list(ui->hidden, c->title, strlen(c->title));
}

/* A title H may hide (a column that narrow terminals drop too), its canonical spelling. */
static const char *optional_title(const char *name, size_t len)
{
	for (size_t i = 0; i < NTABLES; i++)
		for (int k = 0; k < table_screens[i]->ncols; k++) {
			const struct ui_col *c = &table_screens[i]->cols[k];

			if (c->drop > 0 && strlen(c->title) == len &&
			    !strncasecmp(c->title, name, len))
				return c->title;
		}
	return NULL;
}

/* The optional columns' titles, each once: what H's error offers. */
static void optional_titles(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < NTABLES; i++)
		for (int k = 0; k < table_screens[i]->ncols; k++) {
			const char *t = table_screens[i]->cols[k].title;

			if (table_screens[i]->cols[k].drop <= 0 || in_list(buf, t, strlen(t)))
				continue;
			if (n + strlen(t) + 3 >= len)
				return;
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", t);
		}
}

static int columns_done(struct kt_ui *ui, const char *text)
{
	char out[KT_SETTINGS_HIDDEN_LEN] = "";
	size_t n = 0;
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, ",");
		const char *b = p, *e = p + len;

		while (b < e && *b == ' ')
			b++;
		while (e > b && e[-1] == ' ')
			e--;
		if (e > b) {
			const char *title = optional_title(b, (size_t)(e - b));
			if (!title) {
				char all[256];

				optional_titles(all, sizeof(all));
				ui_set_status(ui, 1, "no optional column '%.*s': H hides %s",
					      (int)(e - b), b, all);
				return UI_R_REDRAW;
			}
			if (!in_list(out, title, strlen(title))) {
				if (n + strlen(title) + 2 >= sizeof(out)) {
					ui_set_status(ui, 1, "too many columns listed");
					return UI_R_REDRAW;
				}
				n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s",
						      n ? "," : "", title);
			}
		}
		p += len + (p[len] == ',');
	}
	snprintf(ui->hidden, sizeof(ui->hidden), "%s", out);
	/* rows are never sorted by a column out of sight: such screens go back to Hits */
	for (struct ui_screen *s = ui->top; s; s = s->below) {
		if (!s->ops->ncols || !ui_col_hidden(ui, &s->ops->cols[s->sort_col]))
			continue;
		for (int i = 0; i < s->ops->ncols; i++)
			if (s->ops->cols[i].sort == KT_SORT_HITS) {
				s->sort_col = i;
				s->q.reverse = 0;
				break;
			}
	}
	ui_set_status(ui, 0, "%s%s (O saves it)", out[0] ? "hidden: " : "every column shown", out);
	return UI_R_REQUERY;
}

void ui_columns_prompt(struct kt_ui *ui)
{
	ui_prompt(ui, "hide columns (comma list, empty shows all): ", ui->hidden, columns_done);
}

/* The viewer as it is now, in the file's terms. */
static void current(const struct kt_ui *ui, struct kt_settings *s)
{
	const struct ui_screen *t = ui->top;
	const struct kt_settings_ctx *c = ui->env.settings;

	memset(s, 0, sizeof(*s));
	s->sort = ui->pref_sort;
	s->reverse = ui->pref_reverse;
	/* the screen on view says how the user likes to sort (help has no columns) */
	while (t && !t->ops->ncols)
		t = t->below;
	if (t && t->ops->cols[t->sort_col].sort >= 0) {
		s->sort = t->ops->cols[t->sort_col].sort;
		s->reverse = t->q.reverse;
	}
	snprintf(s->hidden, sizeof(s->hidden), "%s", ui->hidden);
	s->per_cpu = ui->per_cpu;
	s->window_s = ui->env.win ? (double)kt_window_span(ui->env.win) / 1e9 : ui->opts->window_s;
	s->cumulative = ui->env.win ? kt_window_cumulative(ui->env.win) : ui->opts->cumulative;
	s->delay_s = ui->delay;
	s->show_idle = !ui->filter.hide_idle;
	/* no key changes the colour: keep the file's choice (--no-color and NO_COLOR are for one
	 * run, and a terminal without colours says nothing about the user's liking) */
	s->color = c && (c->s.set & KT_SET_COLOR) ? c->s.color : 1;
	s->irq_owner = ui->env.agg ? kt_agg_irq_owner(ui->env.agg) : ui->opts->irq_owner;
}

void ui_settings_save(struct kt_ui *ui)
{
	const struct kt_settings_ctx *c = ui->env.settings;
	struct kt_settings s;
	struct kt_ids saved;
	char err[KT_ERRLEN];
	int r;

	if (!c || !c->path[0]) {
		ui_set_status(ui, 1, "settings not saved: %s", c ? c->err : "no settings file");
		return;
	}
	current(ui, &s);
	/* root under sudo (--keep-privileges): the user's file is written as the user */
	memset(&saved, 0, sizeof(saved));
	r = 0;
	if (geteuid() == 0 && c->uid > 0)
		r = kt_ids_assume(c->uid, c->gid, &saved, err, sizeof(err));
	if (r == 0) {
		r = kt_settings_save(c->path, &s, err, sizeof(err));
		if (saved.active && kt_ids_restore(&saved) < 0 && r == 0) {
			snprintf(err, sizeof(err), "cannot go back to root after saving settings");
			r = -1;
		}
	}
	if (r < 0) {
		ui_set_status(ui, 1, "settings not saved: %s", err);
		return;
	}
	ui_log(ui, "settings saved to %s", c->path);
	ui_set_status(ui, 0, "settings saved to %s", c->path);
}
