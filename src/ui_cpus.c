/* The CPU screen: one row per CPU with its kernel/user/idle split, top module and top
 * function. The CPU filter of every other screen is a set of CPUs built here: Enter keeps
 * one CPU (again: all CPUs), m adds or removes the selected CPU, htop-tagging style. */
#include "config.h"

#include <string.h>

#include "kerntop/procstat.h"
#include "kerntop/source.h"
#include "ui_impl.h"

void ui_cpus_clear(struct kt_ui *ui)
{
	memset(ui->cpuset, 0, KT_CPUSET_WORDS(ui->max_cpu) * sizeof(*ui->cpuset));
	ui->ncpuset = 0;
	ui->filter.cpuset = NULL;
}

int ui_cpus_has(const struct kt_ui *ui, uint32_t cpu)
{
	return cpu < ui->max_cpu && kt_cpuset_has(ui->cpuset, cpu);
}

void ui_cpus_toggle(struct kt_ui *ui, uint32_t cpu)
{
	if (cpu >= ui->max_cpu)
		return;
	ui->ncpuset += ui_cpus_has(ui, cpu) ? -1u : 1u;
	ui->cpuset[cpu / 64] ^= 1ull << (cpu % 64);
	ui->filter.cpuset = ui->ncpuset ? ui->cpuset : NULL;
}

void ui_cpus_fmt(const struct kt_ui *ui, char *buf, size_t len)
{
	int n;

	buf[0] = 0;
	if (!ui->ncpuset)
		return;
	n = snprintf(buf, len, "%s ", ui->ncpuset == 1 ? "cpu" : "cpus");
	if (n > 0 && (size_t)n < len)
		kt_cpuset_format(ui->cpuset, ui->max_cpu, buf + n, len - (size_t)n);
}

uint32_t ui_cpus_sampled(const struct kt_ui *ui)
{
	const struct kt_source_info *info = ui->env.src ? kt_source_info(ui->env.src) : NULL;

	if (info && info->ncpus && info->cpus)
		return info->ncpus;
	return ui->max_cpu;
}

uint32_t ui_cpus_sampled_nth(const struct kt_ui *ui, uint32_t i)
{
	const struct kt_source_info *info = ui->env.src ? kt_source_info(ui->env.src) : NULL;

	if (info && info->ncpus && info->cpus)
		return info->cpus[i];
	return i;
}

/* The kernel's own accounting of the CPU over the last refresh (/proc/stat), or NULL. */
static const struct kt_ps_cpu *stat_of(const struct kt_ui *ui, uint32_t cpu)
{
	const struct kt_ps_view *v = ui_ps(ui);

	return v && v->stat_valid && cpu < v->max_cpu && v->cpu[cpu].valid ? &v->cpu[cpu] : NULL;
}

/* Shares of the CPU's capacity; without user sampling, user is what kernel and idle leave.
 * With cycles (no samples on an idle CPU) the split is the kernel's own, from /proc/stat. */
static void split(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		  double *k, double *u, double *i)
{
	double cap = s->res.sum.covered_s * s->res.sum.freq_hz;
	const struct kt_source_info *info = ui->env.src ? kt_source_info(ui->env.src) : NULL;
	const struct kt_ps_cpu *st = stat_of(ui, r->id);

	*k = *u = *i = 0;
	if (st && info && info->event && !strcmp(info->event, "cycles")) {
		*k = st->pct[KT_PS_SYSTEM] + st->pct[KT_PS_IRQ] + st->pct[KT_PS_SOFTIRQ];
		*i = st->pct[KT_PS_IDLE] + st->pct[KT_PS_IOWAIT];
		*u = st->pct[KT_PS_USER] + st->pct[KT_PS_NICE];
		return;
	}
	if (cap <= 0)
		return;
	*k = (double)r->kernel * 100.0 / cap;
	*i = (double)r->idle_hits * 100.0 / cap;
	if (s->res.sum.user_sampled)
		*u = (double)r->user * 100.0 / cap;
	else
		*u = 100.0 - *k - *i;
	if (*u < 0)
		*u = 0;
}

static void col_cpu(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		    char *buf, size_t len)
{
	snprintf(buf, len, "%s%u", ui_cpus_has(ui, r->id) ? "*" : "", r->id);
}

static void col_k(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		  char *buf, size_t len)
{
	double k, u, i;

	split(ui, s, r, &k, &u, &i);
	ui_fmt_pct(k, buf, len);
}

static void col_u(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		  char *buf, size_t len)
{
	double k, u, i;

	split(ui, s, r, &k, &u, &i);
	/* ~: not sampled (no -u), the share kernel and idle leave */
	snprintf(buf, len, "%s%.1f%%", s->res.sum.user_sampled ? "" : "~", u);
}

static void col_i(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		  char *buf, size_t len)
{
	double k, u, i;

	split(ui, s, r, &k, &u, &i);
	ui_fmt_pct(i, buf, len);
}

static void col_topmod(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		       char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->top_module ? r->top_module : "");
}

static void col_topfunc(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
			char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->top_func ? r->top_func : "");
}

static void col_stat(const struct kt_ui *ui, const struct kt_row *r, int which, char *buf,
		     size_t len)
{
	const struct kt_ps_cpu *c = stat_of(ui, r->id);

	if (c)
		ui_fmt_pct(c->pct[which], buf, len);
	else
		snprintf(buf, len, "-");
}

static void col_sy(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		   char *buf, size_t len)
{
	col_stat(ui, r, KT_PS_SYSTEM, buf, len);
}

static void col_hi(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		   char *buf, size_t len)
{
	col_stat(ui, r, KT_PS_IRQ, buf, len);
}

static void col_si(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		   char *buf, size_t len)
{
	col_stat(ui, r, KT_PS_SOFTIRQ, buf, len);
}

static void col_st(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		   char *buf, size_t len)
{
	col_stat(ui, r, KT_PS_STEAL, buf, len);
}

static void col_softirqs(const struct kt_ui *ui, const struct ui_screen *s,
			 const struct kt_row *r, char *buf, size_t len)
{
	const struct kt_ps_view *v = ui_ps(ui);

	buf[0] = 0;
	if (v && r->id < v->max_cpu)
		kt_ps_fmt_softirqs(v, (int)r->id, 3, buf, len);
}

static void col_irqs(const struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r,
		     char *buf, size_t len)
{
	const struct kt_ps_view *v = ui_ps(ui);

	buf[0] = 0;
	if (v && r->id < v->max_cpu)
		kt_ps_fmt_irqs(v, r->id, buf, len);
}

static void cell_bar(struct kt_ui *ui, const struct ui_screen *s, const struct kt_row *r, int y,
		     int x, int w)
{
	double k, u, i;

	split(ui, s, r, &k, &u, &i);
	addch('[');
	ui_draw_bar(ui, k, u, i, w - 2);
	addch(']');
}

static const struct ui_col cols[] = {
    {"CPU", 6, 0, KT_SORT_NAME, 0, 1, col_cpu, NULL},
    {"Hits", 9, 0, KT_SORT_HITS, 0, 0, ui_col_hits, NULL},
    {"Split (#u.)", 14, 2, -1, 40, 1, NULL, cell_bar},
    {"Kernel", 7, 0, -1, 0, 0, col_k, NULL},
    {"User", 7, 1, -1, 0, 0, col_u, NULL},
    {"Idle", 7, 0, -1, 0, 0, col_i, NULL},
    {"Top module", 12, 3, -1, 0, 1, col_topmod, NULL},
    {"Top function", 14, 0, -1, 1, 1, col_topfunc, NULL},
    UI_COL_DELTA,
    UI_COL_TREND,
    /* kernel-accounted, from /proc/stat, /proc/softirqs, /proc/interrupts: first to go on a
     * narrower terminal, so the bar keeps its width */
    {"sy", 6, 5, -1, 0, 0, col_sy, NULL},
    {"hi", 6, 5, -1, 0, 0, col_hi, NULL},
    {"si", 6, 5, -1, 0, 0, col_si, NULL},
    {"st", 6, 5, -1, 0, 0, col_st, NULL},
    {"Top softirqs", 24, 5, -1, 1, 1, col_softirqs, NULL},
    {"Busiest IRQs", 24, 6, -1, 1, 1, col_irqs, NULL},
};

static void enter(struct kt_ui *ui, struct ui_screen *s)
{
	s->q.view = KT_VIEW_CPUS;
	s->sort_col = 0;
}

static int key(struct kt_ui *ui, struct ui_screen *s, enum ui_act act)
{
	const struct kt_row *r = ui_sel_row(s);

	if (!r)
		return UI_R_NONE;
	if (act == UI_ACT_MARK) {
		char set[128];

		ui_cpus_toggle(ui, r->id);
		ui_cpus_fmt(ui, set, sizeof(set));
		if (ui->ncpuset)
			ui_set_status(ui, 0, "every screen shows %s (m: more, x: all)", set);
		else
			ui_set_status(ui, 0, "showing all CPUs");
		ui_sel_move(s, 1, 0);
		return UI_R_REQUERY;
	}
	if (act != UI_ACT_OPEN)
		return UI_R_NONE;
	if (ui->ncpuset == 1 && ui_cpus_has(ui, r->id)) {
		ui_cpus_clear(ui);
		ui_set_status(ui, 0, "showing all CPUs");
	} else {
		ui_cpus_clear(ui);
		ui_cpus_toggle(ui, r->id);
		ui_set_status(ui, 0, "every screen shows cpu %u only (x or Enter on it again: all)",
			      r->id);
	}
	return UI_R_POP;
}

const struct ui_screen_ops ui_cpus_ops = {
    .kind = UI_CPUS,
    .name = "CPUs",
    .cols = cols,
    .ncols = sizeof(cols) / sizeof(cols[0]),
    .enter = enter,
    .draw = ui_table_draw,
    .key = key,
    .unfiltered = UI_UNFILTERED_CPU,
};
