/* The kernel-accounted /proc figures in the reports: top's us sy hi si id wa st shares and
 * the softirq rates for the machine (JSON header, text header) and per CPU (JSON cpu[],
 * a text table, CSV "procstat" rows). Schema: docs/report-format.md. */
#include "config.h"

#include <string.h>

#include "report_impl.h"

int kt_rep_ps_idle_from_stat(const struct kt_report_ctx *c)
{
	return c->ps && c->ps->stat_valid && c->event && !strcmp(c->event, "cycles");
}

static void softirq_object(FILE *out, const struct kt_ps_view *v, int cpu)
{
	fputc('{', out);
	for (uint32_t i = 0; i < v->nvec; i++) {
		if (i)
			fputc(',', out);
		kt_rep_json_str(out, v->vec[i]);
		fputc(':', out);
		kt_rep_json_num(out,
				cpu < 0 ? v->vec_per_s[i]
					: v->softirq_per_s[(size_t)i * v->max_cpu + (uint32_t)cpu]);
	}
	fputc('}', out);
}

static void stat_fields(FILE *out, const double *pct)
{
	fputs(",\"irq_pct\":", out);
	kt_rep_json_num(out, pct[KT_PS_IRQ]);
	fputs(",\"softirq_pct\":", out);
	kt_rep_json_num(out, pct[KT_PS_SOFTIRQ]);
	fputs(",\"steal_pct\":", out);
	kt_rep_json_num(out, pct[KT_PS_STEAL]);
	fputs(",\"proc_stat\":{", out);
	for (int i = 0; i < KT_PS_NSTAT; i++) {
		fprintf(out, "%s\"%s\":", i ? "," : "", kt_ps_stat_name(i));
		kt_rep_json_num(out, pct[i]);
	}
	fputc('}', out);
}

void kt_rep_ps_json_header(FILE *out, const struct kt_report_ctx *c)
{
	const struct kt_ps_view *v = c->ps;

	fprintf(out, ",\"idle_source\":\"%s\"",
		kt_rep_ps_idle_from_stat(c) ? "proc_stat" : "samples");
	if (!v)
		return;
	fputs(",\"proc_interval_s\":", out);
	kt_rep_json_num(out, v->interval_s);
	if (v->stat_valid)
		stat_fields(out, v->pct);
	if (v->softirqs_valid) {
		fputs(",\"softirqs_per_s\":", out);
		softirq_object(out, v, -1);
	}
}

void kt_rep_ps_json_cpu(FILE *out, const struct kt_report_ctx *c, uint32_t cpu)
{
	const struct kt_ps_view *v = c->ps;

	if (!v || cpu >= v->max_cpu)
		return;
	if (v->stat_valid && v->cpu[cpu].valid)
		stat_fields(out, v->cpu[cpu].pct);
	if (v->softirqs_valid) {
		fputs(",\"softirqs_per_s\":", out);
		softirq_object(out, v, (int)cpu);
	}
	if (v->interrupts_valid) {
		const struct kt_ps_top_irq *t = v->top_irq + (size_t)cpu * KT_PS_TOP_IRQ;

		fputs(",\"top_irqs\":[", out);
		for (int k = 0; k < KT_PS_TOP_IRQ && t[k].line >= 0; k++) {
			fputs(k ? ",{\"irq\":" : "{\"irq\":", out);
			kt_rep_json_str(out, v->irq[t[k].line].name);
			fputs(",\"desc\":", out);
			kt_rep_json_str(out, v->irq[t[k].line].desc);
			fputs(",\"per_s\":", out);
			kt_rep_json_num(out, t[k].per_s);
			fputc('}', out);
		}
		fputc(']', out);
	}
}

void kt_rep_ps_text_header(FILE *out, const struct kt_report_ctx *c)
{
	const struct kt_ps_view *v = c->ps;
	char top[256];

	if (!v || !v->stat_valid) {
		fputs("Kernel-accounted: not available (/proc/stat not read)\n", out);
		return;
	}
	fprintf(out, "/proc/stat: ");
	for (int i = 0; i < KT_PS_NSTAT; i++)
		fprintf(out, "%s%s %.1f%%", i ? "  " : "", kt_ps_stat_name(i), v->pct[i]);
	fprintf(out, " over %.3f s\n", v->interval_s);
	if (v->softirqs_valid) {
		kt_ps_fmt_softirqs(v, -1, 4, top, sizeof(top));
		fprintf(out, "Softirqs: %s\n", top[0] ? top : "none");
	}
	if (kt_rep_ps_idle_from_stat(c))
		fputs("Split:    busy/idle from /proc/stat (cycles take no samples on an idle "
		      "CPU)\n",
		      out);
}

void kt_rep_ps_text_cpus(FILE *out, const struct kt_report_ctx *c)
{
	const struct kt_ps_view *v = c->ps;

	if (!v || !v->stat_valid)
		return;
	fputs("\nCPUs by /proc/stat (kernel-accounted time)\n", out);
	fprintf(out, "%-6s %6s %6s %6s %6s %6s %6s %6s %6s  %s\n", "CPU", "us", "ni", "sy", "id",
		"wa", "hi", "si", "st", "Top softirqs; busiest IRQs");
	for (uint32_t cpu = 0; cpu < v->max_cpu; cpu++) {
		char sirq[256], irq[256];

		if (!v->cpu[cpu].valid)
			continue;
		fprintf(out, "%-6u", cpu);
		for (int i = 0; i < KT_PS_NSTAT; i++)
			fprintf(out, " %5.1f%%", v->cpu[cpu].pct[i]);
		kt_ps_fmt_softirqs(v, (int)cpu, 3, sirq, sizeof(sirq));
		kt_ps_fmt_irqs(v, cpu, irq, sizeof(irq));
		fprintf(out, "  %s%s%s\n", sirq[0] ? sirq : "-", irq[0] ? "; " : "", irq);
	}
}

/* CSV: kind "procstat", module "all" or "cpuN", name the figure, the value in pct (shares)
 * or per_s (softirq rates). */
void kt_rep_ps_csv(FILE *out, const struct kt_report_ctx *c)
{
	const struct kt_ps_view *v = c->ps;

	if (!v)
		return;
	for (int64_t cpu = -1; cpu < (int64_t)v->max_cpu; cpu++) {
		const double *pct = cpu < 0 ? v->pct : v->cpu[cpu].pct;
		char who[24];

		snprintf(who, sizeof(who), cpu < 0 ? "all" : "cpu%lld", (long long)cpu);
		if (v->stat_valid && (cpu < 0 || v->cpu[cpu].valid))
			for (int i = 0; i < KT_PS_NSTAT; i++)
				fprintf(out, "%llu,%.3f,procstat,%s,%s_pct,,,%.4f,,,0\n",
					(unsigned long long)c->report_no, c->time_s, who,
					kt_ps_stat_name(i), pct[i]);
		for (uint32_t i = 0; v->softirqs_valid && i < v->nvec; i++) {
			if (cpu >= 0 && (!v->stat_valid || !v->cpu[cpu].valid))
				break;
			fprintf(out, "%llu,%.3f,procstat,%s,softirq ",
				(unsigned long long)c->report_no, c->time_s, who);
			kt_rep_csv_str(out, v->vec[i]);
			fprintf(out, ",,,,,%.3f,0\n",
				cpu < 0 ? v->vec_per_s[i]
					: v->softirq_per_s[(size_t)i * v->max_cpu + cpu]);
		}
	}
}
