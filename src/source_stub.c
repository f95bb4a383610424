/* Placeholder until the sampling backend lands: links, and refuses to open. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include "kerntop/source.h"

int kt_source_open(const struct kt_source_opts *o, struct kt_source **out, char *err, size_t errlen)
{ *out = NULL; snprintf(err, errlen, "sampling backend not built yet"); return -ENOSYS; }
void kt_source_free(struct kt_source *s) { (void)s; }
const struct kt_source_info *kt_source_info(const struct kt_source *s) { return NULL; }
void kt_source_stats(const struct kt_source *s, struct kt_source_stats *st) { (void)s; (void)st; }
int kt_source_pollfds(struct kt_source *s, struct pollfd *fds, int max) { return 0; }
int kt_source_read(struct kt_source *s, const struct kt_sink *sink, int *timeout_ms, char *err, size_t errlen)
{ return KT_SOURCE_EOF; }
uint64_t kt_source_now(const struct kt_source *s) { return 0; }
int kt_source_refresh(struct kt_source *s, char *msg, size_t msglen) { return 0; }
const char *kt_source_notice(const struct kt_source *s) { return NULL; }
