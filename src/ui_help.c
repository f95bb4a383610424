/* The help screen, generated from the key table (ui_keys.c), plus how to read the screen. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ui_impl.h"

static const char *const tail[] = {
    "",
    "  The header shows the source (live or REPLAY with the replayed time), the event and",
    "  frequency, the window (or cumulative), CPUs, active CPU/task filters and PAUSED; then",
    "  kernel busy / idle / user as % of machine capacity, samples/s, hits and lost samples.",
    "  %Kernel is the share of kernel hits, %Machine the share of all CPU time sampled.",
    "  Bars: # kernel, u user, . idle. Messages and prompts use the line above the key bar.",
    "  Colour is off with --no-color or NO_COLOR; mouse clicks are off with --no-mouse.",
};
#define NTAIL (sizeof(tail) / sizeof(tail[0]))

static size_t nlines(void)
{
	return 1 + ui_help_lines(0, NULL, 0) + NTAIL;
}

static void line(size_t i, char *buf, size_t len)
{
	size_t nk = ui_help_lines(0, NULL, 0);

	if (i == 0)
		snprintf(buf, len, "kerntop keys (h, Esc or Backspace returns):");
	else if (i <= nk)
		ui_help_lines(i - 1, buf, len);
	else
		snprintf(buf, len, "%s", tail[i - 1 - nk]);
}

static void enter(struct kt_ui *ui, struct ui_screen *s)
{
	size_t n = nlines();

	s->vis = calloc(n, sizeof(*s->vis));
	s->nvis = s->vis ? n : 0;
	s->capvis = s->nvis;
	for (size_t i = 0; i < s->nvis; i++)
		s->vis[i] = UI_VIS_CALLERS; /* no result rows behind help lines */
}

/* The selection is the first line shown, kept so the last page stays full. */
static void draw(struct kt_ui *ui, struct ui_screen *s, int y, int h)
{
	char buf[256];

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
		line(i, buf, sizeof(buf));
		attrset(i == 0 ? A_BOLD : A_NORMAL);
		addnstr(buf, ui->cols);
		attrset(A_NORMAL);
	}
}

const struct ui_screen_ops ui_help_ops = {
    .kind = UI_HELP,
    .name = "help",
    .cols = NULL,
    .ncols = 0,
    .enter = enter,
    .draw = draw,
    .key = NULL,
};
