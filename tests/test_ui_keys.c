/* The viewer's key table and key bar, without a terminal: every binding reachable, every key
 * the bar shows dispatched to that entry on that screen, the help list generated from the
 * same table, and the bar's choice fitting the width and leaving out nothing that would fit. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "ui_impl.h"

/* The entry ui_key would run for key on a screen of that kind (first match), or -1. */
static long dispatched(const struct ui_key *t, size_t n, int key, int kind)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].key == key && (t[i].on & UI_ON(kind)))
			return (long)i;
	return -1;
}

static void test_table(void)
{
	size_t n, dead = 0, bad = 0, shadowed = 0, nhelp = 0, badhelp = 0;
	const struct ui_key *t = ui_key_table(&n);
	char names[128], text[512], msg[256];

	ok(n > 20, "the key table has its bindings");
	for (size_t i = 0; i < n; i++) {
		int live = 0;

		if (!t[i].name || !*t[i].name || !t[i].act || !t[i].on || (t[i].on & ~UI_ON_ALL) ||
		    (t[i].bar && (t[i].prio < 1 || t[i].prio > 9))) {
			bad++;
			printf("# entry %zu (%s): incomplete\n", i, t[i].name ? t[i].name : "?");
		}
		/* reachable: on one of its screens no earlier entry takes the key, or (a bar-only
		 * entry, like O on the help screen's bar) the one that does runs the same action */
		for (int k = 0; k < UI_NKINDS; k++) {
			long d = (t[i].on & UI_ON(k)) ? dispatched(t, n, t[i].key, k) : -1;

			if (d == (long)i || (d >= 0 && t[i].bar && t[d].act == t[i].act))
				live = 1;
		}
		if (!live) {
			dead++;
			printf("# entry %zu (%s): shadowed on every screen it names\n", i, t[i].name);
		}
		/* the bar never shows a key that does something else on that screen */
		for (int k = 0; t[i].bar && k < UI_NKINDS; k++) {
			long d = (t[i].on & UI_ON(k)) ? dispatched(t, n, t[i].key, k) : (long)i;

			if (d != (long)i && t[d].act != t[i].act) {
				shadowed++;
				printf("# bar entry %s: another action on screen kind %d\n", t[i].name,
				       k);
			}
		}
		nhelp += t[i].help != NULL;
	}
	is_int((long)bad, 0, "every entry has a name, an action and screens; bar priorities 1..9");
	is_int((long)dead, 0, "no binding is shadowed by another action on all its screens");
	is_int((long)shadowed, 0, "every key on the bar runs that entry on the screens it names");

	/* the help screen lists the entries with help text, in table order */
	is_int((long)ui_help_entry(0, NULL, 0, NULL, 0), (long)nhelp,
	       "one help line per documented binding");
	for (size_t i = 0, h = 0; i < n; i++) {
		if (!t[i].help)
			continue;
		ui_help_entry(h++, names, sizeof(names), text, sizeof(text));
		if (strncmp(names, t[i].name, strlen(t[i].name)) ||
		    strncmp(text, t[i].help, strlen(t[i].help)))
			badhelp++;
	}
	is_int((long)badhelp, 0, "each help line starts with its key's name and help text");
	/* a hidden alias (Enter as '\n') is folded into its entry's key names, once */
	for (size_t i = 0, h = 0; i < n; i++) {
		if (!t[i].help)
			continue;
		if (t[i].key == '\r') {
			ui_help_entry(h, names, sizeof(names), text, sizeof(text));
			is_str(names, "Enter", "Enter's aliases share its name: listed once");
		}
		h++;
	}
	snprintf(msg, sizeof(msg), "q quits on every screen");
	for (int k = 0; k < UI_NKINDS; k++) {
		long d = dispatched(t, n, 'q', k);

		if (d < 0 || !t[d].bar || t[d].prio != 1) {
			ok(0, msg);
			return;
		}
	}
	ok(1, msg);
}

/* The width the bar gives entry k (key name, a space, the label). */
static int width(const struct ui_key *k, int narrow)
{
	const char *nm = narrow && k->sname ? k->sname : k->name;
	const char *b = narrow && k->sbar ? k->sbar : k->bar;

	return (int)(strlen(nm) + 1 + strlen(b));
}

static int eligible(const struct ui_key *k, const struct ui_screen *s)
{
	return k->bar && (k->on & UI_ON(s->ops->kind)) && (k->act != NULL) &&
	       (strcmp(k->bar, "back") || s->below);
}

/* For every width 0..cols_max: the picks fit, and no entry left out would still fit. */
static void test_bar_widths(struct kt_ui *ui, const char *what)
{
	size_t n;
	const struct ui_key *t = ui_key_table(&n);
	unsigned char *pick = malloc(n);
	int overflow = 0, notmax = 0, wrong = 0;

	for (int narrow = 0; narrow <= 1; narrow++) {
		for (int cols = 0; cols <= 200; cols++) {
			int used = 0, np = 0, got;

			ui->cols = cols;
			got = ui_keybar_pick(ui, narrow, pick);
			for (size_t i = 0; i < n; i++) {
				if (!pick[i])
					continue;
				wrong += !eligible(&t[i], ui->top);
				used += width(&t[i], narrow) + (np ? 2 : 0);
				np++;
			}
			wrong += got != np;
			overflow += used > cols;
			for (size_t i = 0; i < n; i++)
				if (!pick[i] && eligible(&t[i], ui->top) &&
				    used + width(&t[i], narrow) + (np ? 2 : 0) <= cols)
					notmax++;
		}
	}
	free(pick);
	snprintf(ui->status, sizeof(ui->status), "%s: the bar picks only keys of the screen",
		 what);
	is_int(wrong, 0, ui->status);
	snprintf(ui->status, sizeof(ui->status), "%s: the picks fit at every width 0..200", what);
	is_int(overflow, 0, ui->status);
	snprintf(ui->status, sizeof(ui->status), "%s: nothing left out that would still fit",
		 what);
	is_int(notmax, 0, ui->status);
}

static void test_bar(void)
{
	size_t n, all = 0, allb = 0;
	const struct ui_key *t = ui_key_table(&n);
	struct kt_ui *ui = calloc(1, sizeof(*ui));
	struct ui_screen *root = calloc(1, sizeof(*root)), *top = calloc(1, sizeof(*top));
	unsigned char *pick = malloc(n);
	int back = 0, q = 0;

	root->ops = &ui_modules_ops;
	top->ops = &ui_funcs_ops;
	top->below = root;
	ui->top = root;
	for (size_t i = 0; i < n; i++) {
		all += eligible(&t[i], root);
		allb += eligible(&t[i], top);
	}
	ui->cols = 10000;
	is_int(ui_keybar_pick(ui, 0, pick), (long)all, "a wide bar shows every key of the screen");
	for (size_t i = 0; i < n; i++)
		back += pick[i] && t[i].bar && !strcmp(t[i].bar, "back");
	is_int(back, 0, "no 'back' on the root screen");
	ui->top = top;
	is_int(ui_keybar_pick(ui, 0, pick), (long)allb, "a wide bar on a pushed screen: all of its keys");
	for (size_t i = 0; i < n; i++)
		back += pick[i] && t[i].bar && !strcmp(t[i].bar, "back");
	is_int(back, 1, "'back' once a screen is below");
	ui->cols = 0;
	is_int(ui_keybar_pick(ui, 0, pick), 0, "no room: no keys");
	/* "q quit" is 6 columns: at 6 only a priority-1 entry fits, and quit is one */
	ui->cols = 80;
	ui_keybar_pick(ui, 0, pick);
	for (size_t i = 0; i < n; i++)
		q += pick[i] && t[i].key == 'q';
	is_int(q, 1, "q quit is on an 80-column bar");
	test_bar_widths(ui, "functions screen");
	ui->top = root;
	test_bar_widths(ui, "modules screen");
	free(pick);
	free(top);
	free(root);
	free(ui);
}

int main(void)
{
	test_table();
	test_bar();
	return tap_done();
}
