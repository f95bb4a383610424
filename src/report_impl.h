/* Private helpers of the report writers (report.c, report_snapshot.c, report_fmt.c). */
#ifndef KERNTOP_REPORT_IMPL_H
#define KERNTOP_REPORT_IMPL_H

#include <stdio.h>

#include "kerntop/agg.h"
#include "kerntop/report.h"
#include "kerntop/symbols.h"
#include "kerntop/window.h"

void kt_rep_json_str(FILE *out, const char *s);
/* Buffer size for kt_rep_safe (longer names are cut). */
#define KT_REP_SAFE_LEN 1024
/* s for a terminal: s itself when clean, else a copy in buf with each control byte (C0, DEL,
 * C1) and each byte that is not valid UTF-8 shown as '?'. Names come from kallsyms files,
 * recordings and task names, which anyone may have filled with escape sequences. */
const char *kt_rep_safe(const char *s, char *buf, size_t len);
void kt_rep_json_num(FILE *out, double v);
void kt_rep_csv_str(FILE *out, const char *s);
void kt_rep_folded_frame(FILE *out, struct kt_agg *agg, uint32_t func);
int kt_rep_name_width(const struct kt_row *rows, size_t n, int min, int max);
double kt_rep_unix_time(const struct kt_report_ctx *c);
void kt_rep_text_header(FILE *out, const struct kt_report_ctx *c, const struct kt_summary *s);
void kt_rep_json_header(FILE *out, const struct kt_report_ctx *c, const struct kt_summary *s);
/* Writes every stack under the filter as folded lines; q selects the stacks (or NULL). */
int kt_rep_folded(FILE *out, struct kt_agg *agg, const struct kt_report_ctx *c,
		  const struct kt_query *q);
/* One row as a JSON object of the given kind ("module", "function", "line", ...). */
/* The same without the closing brace, so more fields can follow. */
void kt_rep_json_row_open(FILE *out, struct kt_agg *agg, enum kt_view v, const struct kt_row *r);
void kt_rep_json_row(FILE *out, struct kt_agg *agg, enum kt_view v, const struct kt_row *r);
/* delta_pct, rate_ratio, baseline_hits, baseline_state of a row compared with a baseline */
void kt_rep_json_base(FILE *out, const struct kt_row *r);
void kt_rep_text_table(FILE *out, struct kt_agg *agg, enum kt_view v, const struct kt_result *res,
		       const char *indent);
/* report_annotate.c: the --annotate listings (text) or the "annotate" array (JSON); -ENOMEM
 * when a listing could not be built for lack of memory (it says so inline). */
int kt_rep_annotate(FILE *out, struct kt_agg *agg, const struct kt_report_ctx *c);

/* The /proc figures (report_procstat.c); each writes nothing without them. */
int kt_rep_ps_idle_from_stat(const struct kt_report_ctx *c);
void kt_rep_ps_json_header(FILE *out, const struct kt_report_ctx *c);
void kt_rep_ps_json_cpu(FILE *out, const struct kt_report_ctx *c, uint32_t cpu);
void kt_rep_ps_text_header(FILE *out, const struct kt_report_ctx *c);
void kt_rep_ps_text_cpus(FILE *out, const struct kt_report_ctx *c);
void kt_rep_ps_csv(FILE *out, const struct kt_report_ctx *c);

#endif
