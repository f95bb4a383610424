/* The viewer's column layout and key bar choice, without a terminal: which columns every
 * table screen shows at each width, the order they give way in, how the flex columns share
 * the rest, the per-CPU columns and their "+N", columns hidden with H; and which form of the
 * key bar (long or short names) each screen gets at each width. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "ui_impl.h"

static const struct ui_screen_ops *const tables[] = {
    &ui_modules_ops,	 &ui_funcs_ops,		&ui_topfuncs_ops, &ui_lines_ops,
    &ui_cpus_ops,	 &ui_tasks_ops,		&ui_callers_ops,  &ui_callees_ops,
    &ui_stacks_func_ops, &ui_stacks_module_ops, &ui_contexts_ops,
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static const struct ui_screen_ops *const screens[] = {
    &ui_modules_ops, &ui_funcs_ops,   &ui_topfuncs_ops, &ui_lines_ops,	     &ui_cpus_ops,
    &ui_tasks_ops,   &ui_callers_ops, &ui_callees_ops,	&ui_stacks_func_ops, &ui_stacks_module_ops,
    &ui_frames_ops,  &ui_help_ops,    &ui_contexts_ops, &ui_annotate_ops,
};
#define NSCREENS (sizeof(screens) / sizeof(screens[0]))

/* The titles of the columns shown, comma-separated. */
static const char *shown(struct kt_ui *ui, struct ui_screen *s, int cols, struct ui_layout *L)
{
	static char buf[512];
	size_t n = 0;

	ui->cols = cols;
	ui_layout(ui, s, L);
	buf[0] = 0;
	for (int k = 0; k < L->n && n < sizeof(buf); k++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", k ? "," : "",
				      s->ops->cols[L->idx[k]].title);
	return buf;
}

/* Exact layouts of the modules screen, counted from its column table: Module 14 (flex),
 * Hits 9, CPU ms 10 (drop 2), %Kernel 8, %Machine 9 (drop 1), Hits/s 9 (drop 3), Trend 10
 * (drop 9), one blank after each; the baseline columns are hidden without a baseline. */
static void test_modules(struct kt_ui *ui, struct ui_screen *s)
{
	struct ui_layout L;

	s->ops = &ui_modules_ops;
	is_str(shown(ui, s, 200, &L), "Module,Hits,CPU ms,%Kernel,%Machine,Hits/s,Trend",
	       "200 columns: every column but the baseline's");
	is_int(L.w[0], 14 + 200 - 76, "the flex Module column takes what is left");
	is_int(L.x[1], L.w[0] + 1, "Hits starts after Module and one blank");
	is_str(shown(ui, s, 76, &L), "Module,Hits,CPU ms,%Kernel,%Machine,Hits/s,Trend",
	       "76 columns: still every column, exactly");
	is_int(L.w[0], 14, "76 columns: Module at its minimum");
	is_str(shown(ui, s, 75, &L), "Module,Hits,CPU ms,%Kernel,%Machine,Hits/s",
	       "75 columns: the Trend gives way first");
	is_str(shown(ui, s, 64, &L), "Module,Hits,CPU ms,%Kernel,%Machine",
	       "64 columns: then Hits/s (drop 3)");
	is_str(shown(ui, s, 54, &L), "Module,Hits,%Kernel,%Machine",
	       "54 columns: then CPU ms (drop 2)");
	is_str(shown(ui, s, 43, &L), "Module,Hits,%Kernel", "43 columns: then %Machine (drop 1)");
	is_str(shown(ui, s, 10, &L), "Module,Hits,%Kernel",
	       "10 columns: the columns that never drop stay");

	/* H hides an optional column at any width; a column that never drops cannot be hidden */
	snprintf(ui->hidden, sizeof(ui->hidden), "%s", "CPU ms, Hits");
	is_str(shown(ui, s, 200, &L), "Module,Hits,%Kernel,%Machine,Hits/s,Trend",
	       "H: CPU ms hidden at 200 columns, Hits (never dropped) kept");
	is_str(shown(ui, s, 65, &L), "Module,Hits,%Kernel,%Machine,Hits/s,Trend",
	       "H: the hidden column's 11 go to the others (all the rest fit at 65)");
	is_str(shown(ui, s, 64, &L), "Module,Hits,%Kernel,%Machine,Hits/s",
	       "H: at 64 the Trend gives way, Hits/s stays (without H it would go)");
	ui->hidden[0] = 0;

	/* p: one column per sampled CPU, after the table's columns drop */
	ui->per_cpu = 1;
	ui->max_cpu = 8;
	s->res.sum.max_cpu = 8;
	is_str(shown(ui, s, 132, &L), "Module,Hits,CPU ms,%Kernel,%Machine,Hits/s,Trend",
	       "p at 132 columns: every column and 8 CPUs");
	is_int(L.npercpu, 8, "p at 132 columns: 8 CPU columns");
	is_int(L.more, 0, "p at 132 columns: no +N");
	is_int(L.percpu_x, 76, "the CPU columns start after the table's");
	is_str(shown(ui, s, 131, &L), "Module,Hits,CPU ms,%Kernel,%Machine,Hits/s",
	       "p at 131 columns: the Trend gives way to the CPUs");
	is_int(L.npercpu, 8, "p at 131 columns: still 8 CPU columns");
	is_str(shown(ui, s, 80, &L), "Module,Hits,%Kernel",
	       "p at 80 columns: every optional column gives way before a CPU does");
	is_int(L.npercpu, 5, "p at 80 columns: 5 CPU columns fit (34 + 5 x 7 + 5 <= 80)");
	is_int(L.more, 3, "p at 80 columns: +3 for the rest");
	is_int(L.percpu_x + L.npercpu * UI_PERCPU_W + UI_MORE_W <= 80, 1,
	       "p at 80 columns: the +N fits too");
	s->ops = &ui_funcs_ops;
	shown(ui, s, 200, &L);
	is_int(L.npercpu, 8, "p: the functions list has CPU columns too");
	s->ops = &ui_tasks_ops;
	shown(ui, s, 200, &L);
	is_int(L.npercpu, 0, "p: the tasks screen has none");
	s->ops = &ui_contexts_ops;
	ui->per_cpu = 0;
	shown(ui, s, 200, &L);
	is_int(L.npercpu, 8, "the contexts screen has its CPU columns without p");
	s->res.sum.max_cpu = 0;
	ui->max_cpu = 0;
}

/* Every table screen at every width 0..300: the columns that never drop are always there,
 * shown columns fit, they give way from the highest drop number down, a column shown at one
 * width is shown at every wider one, and a flex column fills the line. */
static void test_every_table(struct kt_ui *ui, struct ui_screen *s)
{
	for (size_t t = 0; t < NTABLES; t++) {
		const struct ui_col *c = tables[t]->cols;
		int nc = tables[t]->ncols, lost = 0, over = 0, order = 0, mono = 0, fill = 0;
		int place = 0, minw = 0, has_flex = 0;
		unsigned char prev[UI_MAX_COLS] = {0};
		char what[160];

		s->ops = tables[t];
		for (int i = 0; i < nc; i++) {
			if (!c[i].drop)
				minw += c[i].width + 1;
			has_flex |= c[i].flex == 1;
		}
		for (int cols = 0; cols <= 300; cols++) {
			struct ui_layout L;
			unsigned char on[UI_MAX_COLS] = {0};

			shown(ui, s, cols, &L);
			for (int k = 0; k < L.n; k++) {
				on[L.idx[k]] = 1;
				if (k && L.x[k] != L.x[k - 1] + L.w[k - 1] + 1)
					place++;
				if (L.w[k] < c[L.idx[k]].width)
					place++;
			}
			for (int i = 0; i < nc; i++) {
				lost += !c[i].drop && !on[i];
				mono += prev[i] && !on[i];
				for (int j = 0; j < nc; j++)
					order += on[i] && c[i].drop && c[j].drop &&
						 c[j].drop < c[i].drop && !on[j] &&
						 !ui_col_hidden(ui, &c[j]);
			}
			if (cols >= minw && L.n && L.x[L.n - 1] + L.w[L.n - 1] + 1 > cols)
				over++;
			if (has_flex && cols >= minw && L.n &&
			    L.x[L.n - 1] + L.w[L.n - 1] + 1 != cols)
				fill++;
			memcpy(prev, on, sizeof(prev));
		}
		snprintf(what, sizeof(what), "%s: the columns that never drop are always shown",
			 tables[t]->name);
		is_int(lost, 0, what);
		snprintf(what, sizeof(what), "%s: the columns shown fit the width",
			 tables[t]->name);
		is_int(over, 0, what);
		snprintf(what, sizeof(what),
			 "%s: columns give way from the highest drop number down", tables[t]->name);
		is_int(order, 0, what);
		snprintf(what, sizeof(what), "%s: a column shown stays shown on a wider terminal",
			 tables[t]->name);
		is_int(mono, 0, what);
		snprintf(what, sizeof(what),
			 "%s: columns in order, one blank apart, never narrower "
			 "than their width",
			 tables[t]->name);
		is_int(place, 0, what);
		if (has_flex) {
			snprintf(what, sizeof(what), "%s: the flex column fills the line",
				 tables[t]->name);
			is_int(fill, 0, what);
		}
	}
}

/* The key bar drawn: the long names while they show as many keys as the short ones; at every
 * width of every screen the choice is the form that shows more. */
static void test_keybar_choice(struct kt_ui *ui, struct ui_screen *root, struct ui_screen *s)
{
	size_t n;
	unsigned char *pick, *p0, *p1;
	int narrow, bad = 0, ever_narrow = 0, wide_at_200 = 0;

	ui_key_table(&n);
	pick = malloc(n);
	p0 = malloc(n);
	p1 = malloc(n);
	root->ops = &ui_modules_ops;
	s->below = root;
	for (size_t i = 0; i < NSCREENS; i++) {
		s->ops = screens[i];
		ui->top = s;
		for (int cols = 0; cols <= 200; cols++) {
			int got, wide, shrt;

			ui->cols = cols;
			got = ui_keybar_choose(ui, pick, &narrow);
			wide = ui_keybar_pick(ui, 0, p0);
			shrt = ui_keybar_pick(ui, 1, p1);
			bad += got != (shrt > wide ? shrt : wide);
			bad += narrow != (shrt > wide);
			bad += memcmp(pick, narrow ? p1 : p0, n) != 0;
			ever_narrow |= narrow;
			if (cols == 200)
				wide_at_200 += !narrow;
		}
	}
	is_int(bad, 0, "every screen, every width: the bar is the form that shows more keys");
	ok(ever_narrow, "some widths get the short forms");
	is_int(wide_at_200, (long)NSCREENS, "200 columns: every screen gets the long names");
	s->ops = &ui_modules_ops;
	ui->top = s;
	ui->cols = 10000;
	is_int(ui_keybar_choose(ui, pick, &narrow), ui_keybar_pick(ui, 0, p0),
	       "a wide bar: all the keys of the screen, long names");
	is_int(narrow, 0, "a wide bar is not narrow");
	ui->cols = 0;
	is_int(ui_keybar_choose(ui, pick, &narrow), 0, "no room: no keys");
	is_int(narrow, 0, "no room: the long form (nothing to gain)");
	s->below = NULL;
	free(pick);
	free(p0);
	free(p1);
}

int main(void)
{
	struct kt_ui *ui = calloc(1, sizeof(*ui));
	struct ui_screen *s = calloc(1, sizeof(*s)), *root = calloc(1, sizeof(*root));

	if (!ui || !s || !root)
		return 1;
	test_modules(ui, s);
	test_every_table(ui, s);
	test_keybar_choice(ui, root, s);
	free(root);
	free(s);
	free(ui);
	return tap_done();
}
