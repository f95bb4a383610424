/* Placeholder until the aggregator and reports land: links, and refuses to start. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include "kerntop/window.h"
#include "kerntop/agg.h"
#include "kerntop/report.h"

int kt_agg_new(struct kt_window *w, struct kt_symbols *s, const struct kt_agg_params *p, struct kt_agg **out) { *out = NULL; return -ENOSYS; }
void kt_agg_free(struct kt_agg *a) { (void)a; }
int kt_agg_query(struct kt_agg *a, const struct kt_query *q, struct kt_result *r) { return -ENOSYS; }
void kt_result_free(struct kt_result *r) { (void)r; }
void kt_agg_summary(struct kt_agg *a, const struct kt_filter *f, struct kt_summary *sum) { (void)a; }
void kt_filter_all(struct kt_filter *f) { (void)f; }
const char *kt_view_name(enum kt_view v) { return "?"; }
int kt_report_write(FILE *out, struct kt_agg *agg, const struct kt_report_ctx *ctx, char *err, size_t errlen) { return -ENOSYS; }
int kt_report_snapshot(const char *path, struct kt_agg *agg, const struct kt_report_ctx *ctx, const struct kt_query *q, char *err, size_t errlen) { return -ENOSYS; }
int kt_report_snapshot_path(const char *dir, enum kt_format f, char *out, size_t len) { return -ENOSYS; }
