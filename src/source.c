/* The public source API: picks live or replay at open and dispatches through the ops table,
 * so the rest of the program never knows which source it has. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "source_impl.h"

int kt_source_open(const struct kt_source_opts *o, struct kt_source **out, char *err, size_t errlen)
{
	struct kt_source *s;
	int r;

	*out = NULL;
	r = o->replay ? kt_source_replay_open(o, &s, err, errlen)
		      : kt_source_perf_open(o, &s, err, errlen);
	if (r < 0 || !o->record) {
		*out = r < 0 ? NULL : s;
		return r;
	}
	return kt_source_rec_wrap(s, o, out, err, errlen);
}

void kt_source_free(struct kt_source *s)
{
	if (s)
		s->ops->free(s);
}

const struct kt_source_info *kt_source_info(const struct kt_source *s)
{
	return &s->info;
}

void kt_source_stats(const struct kt_source *s, struct kt_source_stats *st)
{
	*st = s->stats;
}

int kt_source_pollfds(struct kt_source *s, struct pollfd *fds, int max)
{
	return s->ops->pollfds ? s->ops->pollfds(s, fds, max) : 0;
}

int kt_source_read(struct kt_source *s, const struct kt_sink *sink, int *timeout_ms, char *err,
		   size_t errlen)
{
	*timeout_ms = -1;
	return s->ops->read(s, sink, timeout_ms, err, errlen);
}

uint64_t kt_source_now(const struct kt_source *s)
{
	return s->ops->now(s);
}

int kt_source_refresh(struct kt_source *s, char *msg, size_t msglen)
{
	if (msglen)
		msg[0] = '\0';
	return s->ops->refresh ? s->ops->refresh(s, msg, msglen) : 0;
}

int kt_source_record_text(struct kt_source *s, uint64_t addr, const void *bytes, size_t len)
{
	return s && s->ops->text ? s->ops->text(s, addr, bytes, len) : 0;
}

int kt_source_recording(const struct kt_source *s)
{
	return s && s->ops->recording && s->ops->recording(s);
}

int kt_source_finish(struct kt_source *s, char *err, size_t errlen)
{
	return s && s->ops->finish ? s->ops->finish(s, err, errlen) : 0;
}

int kt_source_procstat(struct kt_source *s, const struct kt_ps_snap *snap)
{
	return s && snap && s->ops->procstat ? s->ops->procstat(s, snap) : 0;
}

const char *kt_source_notice(const struct kt_source *s)
{
	return s->notice[0] ? s->notice : NULL;
}

void kt_source_add_notice(char *dst, size_t len, const char *msg)
{
	size_t n = strlen(dst);

	if (n && n + 2 < len) {
		memcpy(dst + n, "; ", 3);
		n += 2;
	}
	if (n < len)
		snprintf(dst + n, len - n, "%s", msg);
}
