/* Placeholder until the reports land: links, and refuses to start. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include "kerntop/window.h"
#include "kerntop/agg.h"
#include "kerntop/report.h"

int kt_report_write(FILE *out, struct kt_agg *agg, const struct kt_report_ctx *ctx, char *err, size_t errlen) { return -ENOSYS; }
int kt_report_snapshot(const char *path, struct kt_agg *agg, const struct kt_report_ctx *ctx, const struct kt_query *q, char *err, size_t errlen) { return -ENOSYS; }
int kt_report_snapshot_path(const char *dir, enum kt_format f, char *out, size_t len) { return -ENOSYS; }
