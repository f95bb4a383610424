/* The help screen, generated from the key table (ui_keys.c), plus how to read the screen;
 * laid out for the terminal's width at every draw (long lines wrap under their text). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ui_impl.h"

#define HELP_LINE 256
#define KEYCOL_MAX 24

static const char *const tail[] = {
    "",
    "The header shows the source (live, or REPLAY with the replayed time), REC when recording, "
    "the event and frequency, the window (or cumulative), the CPUs, the active CPU and task "
    "filters, idle hidden and PAUSED; then kernel busy, idle and user as % of the machine's "
    "capacity (user ~N% when user mode is not sampled, without -u: what kernel and idle leave, "
    "user time mostly), samples/s, hits, lost samples and throttling events.",
    "%Kernel is the share of the kernel hits, %Machine the share of all the CPU time sampled.",
    "Bars: # kernel, u user, . idle. Messages and prompts use the line above the key bar; the "
    "key bar shows the most used keys of the screen, this help all of them.",
    "Colour is off with --no-color or NO_COLOR; mouse clicks are off with --no-mouse.",
};
#define NTAIL (sizeof(tail) / sizeof(tail[0]))

struct lines {
	char (*l)[HELP_LINE];
	size_t n, cap;
};

static void add(struct lines *L, int indent, const char *head, int headw, const char *text,
		size_t len)
{
	if (L->n == L->cap) {
		size_t cap = L->cap ? L->cap * 2 : 64;
		char(*l)[HELP_LINE] = realloc(L->l, cap * sizeof(*l));

		if (!l)
			return;
		L->l = l;
		L->cap = cap;
	}
	snprintf(L->l[L->n++], HELP_LINE, "%*s%-*s%.*s", indent, "", headw, head, (int)len, text);
}

/* text in lines of at most width characters after a head column, broken at spaces */
static void wrap(struct lines *L, int indent, const char *head, int headw, const char *text,
		 int width)
{
	size_t len = strlen(text);

	if (width < 20)
		width = 20;
	do {
		size_t n = len;

		if (n > (size_t)width) {
			n = (size_t)width;
			while (n > 0 && text[n] != ' ')
				n--;
			if (!n)
				n = (size_t)width;
		}
		add(L, indent, head, headw, text, n);
		head = "";
		text += n;
		len -= n;
		while (*text == ' ') {
			text++;
			len--;
		}
	} while (len);
}

static void build(int cols, struct lines *L)
{
	size_t nk = ui_help_entry(0, NULL, 0, NULL, 0);
	char names[64], text[HELP_LINE];
	int keyw = 0;

	for (size_t i = 0; i < nk; i++) {
		ui_help_entry(i, names, sizeof(names), text, sizeof(text));
		if ((int)strlen(names) > keyw)
			keyw = (int)strlen(names);
	}
	keyw = (keyw > KEYCOL_MAX ? KEYCOL_MAX : keyw) + 2;
	L->n = 0;
	wrap(L, 0, "", 0, "kerntop keys (h, Esc or Backspace returns):", cols);
	for (size_t i = 0; i < nk; i++) {
		ui_help_entry(i, names, sizeof(names), text, sizeof(text));
		wrap(L, 2, names, keyw, text, cols - 2 - keyw);
	}
	for (size_t i = 0; i < NTAIL; i++)
		wrap(L, 2, "", 0, tail[i], cols - 2);
}

static void enter(struct kt_ui *ui, struct ui_screen *s)
{
	s->nvis = 0;
}

/* The selection is the first line shown, kept so the last page stays full. */
static void draw(struct kt_ui *ui, struct ui_screen *s, int y, int h)
{
	struct lines L = {0};

	build(ui->cols, &L);
	if (L.n > s->capvis) {
		size_t *v = realloc(s->vis, L.n * sizeof(*v));

		if (v) {
			s->vis = v;
			s->capvis = L.n;
		}
	}
	s->nvis = L.n <= s->capvis ? L.n : 0;
	for (size_t i = 0; i < s->nvis; i++)
		s->vis[i] = UI_VIS_CALLERS; /* no result rows behind help lines */
	s->body_y = y;
	s->body_h = h;
	if (s->nvis > (size_t)h && s->sel > s->nvis - (size_t)h)
		s->sel = s->nvis - (size_t)h;
	if (s->nvis <= (size_t)h)
		s->sel = 0;
	s->top = s->sel;
	for (int k = 0; k < h; k++) {
		size_t i = s->top + (size_t)k;

		move(y + k, 0);
		clrtoeol();
		if (i >= s->nvis)
			continue;
		attrset(i == 0 ? A_BOLD : A_NORMAL);
		addnstr(L.l[i], ui->cols);
		attrset(A_NORMAL);
	}
	free(L.l);
}

/* The help text is the key table's: nothing to query. */
static void no_query(struct kt_ui *ui, struct ui_screen *s)
{
	(void)ui;
	(void)s;
}

const struct ui_screen_ops ui_help_ops = {
    .kind = UI_HELP,
    .name = "help",
    .cols = NULL,
    .ncols = 0,
    .enter = enter,
    .draw = draw,
    .key = NULL,
    .query = no_query,
    .flags = UI_SF_OVERLAY,
};
