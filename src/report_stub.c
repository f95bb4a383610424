/* Placeholder until the window, aggregator and reports land: links, and refuses to start. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include "kerntop/window.h"
#include "kerntop/agg.h"
#include "kerntop/report.h"

int kt_window_new(const struct kt_window_opts *o, struct kt_window **out) { *out = NULL; return -ENOSYS; }
void kt_window_free(struct kt_window *w) { (void)w; }
uint32_t kt_window_task(struct kt_window *w, int32_t pid, int32_t tid) { return 0; }
void kt_window_comm(struct kt_window *w, int32_t pid, int32_t tid, const char *comm) { (void)w; }
uint32_t kt_window_ntasks(const struct kt_window *w) { return 0; }
const struct kt_task *kt_window_task_info(const struct kt_window *w, uint32_t t) { return NULL; }
uint32_t kt_window_stack(struct kt_window *w, const uint32_t *locs, uint32_t n) { return 0; }
const uint32_t *kt_window_stack_frames(const struct kt_window *w, uint32_t st, uint32_t *n) { *n = 0; return NULL; }
void kt_window_add(struct kt_window *w, uint64_t t, uint32_t loc, uint32_t st, uint32_t cpu, uint32_t task, uint64_t c) { (void)w; }
void kt_window_add_lost(struct kt_window *w, uint64_t t, uint32_t cpu, uint64_t c) { (void)w; }
void kt_window_advance(struct kt_window *w, uint64_t now) { (void)w; }
void kt_window_set_span(struct kt_window *w, uint64_t span) { (void)w; }
uint64_t kt_window_span(const struct kt_window *w) { return 0; }
void kt_window_set_cumulative(struct kt_window *w, int on) { (void)w; }
int kt_window_cumulative(const struct kt_window *w) { return 0; }
const struct kt_hit *kt_window_hits(const struct kt_window *w, size_t *n) { *n = 0; return NULL; }
uint64_t kt_window_total(const struct kt_window *w) { return 0; }
uint64_t kt_window_lost(const struct kt_window *w) { return 0; }
uint64_t kt_window_covered(const struct kt_window *w) { return 0; }
const struct kt_hit *kt_window_recent(const struct kt_window *w, size_t *n, uint64_t *len) { *n = 0; *len = 0; return NULL; }
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
