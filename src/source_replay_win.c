/* The window through which the replay decoders read a regular file: bytes [base, base + have)
 * of it, refilled with pread when a decoder asks for bytes outside it. Decoders move forward,
 * so a refill keeps the part of the window that is still ahead and reads the rest. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source_replay_impl.h"

void kt_rwin_mem(struct kt_rwin *w, const void *buf, size_t len)
{
	memset(w, 0, sizeof(*w));
	w->buf = buf;
	w->have = w->len = len;
	w->fd = -1;
}

void kt_rwin_file(struct kt_rwin *w, int fd, size_t size, size_t step)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->len = size;
	w->step = step ? step : 1;
}

void kt_rwin_free(struct kt_rwin *w)
{
	if (w->fd < 0)
		return;
	free(w->own);
	w->own = NULL;
	w->buf = NULL;
	w->base = w->have = w->cap = 0;
}

void kt_rwin_shrink(struct kt_rwin *w)
{
	if (w->cap > w->step)
		kt_rwin_free(w);
}

int kt_rwin_copy(struct kt_rwin *w, size_t pos, void *out, size_t n)
{
	size_t got = 0;

	if (pos > w->len || n > w->len - pos)
		return -1;
	if (w->fd < 0) {
		memcpy(out, w->buf + pos, n);
		return 0;
	}
	while (got < n) {
		ssize_t r = pread(w->fd, (uint8_t *)out + got, n - got, (off_t)(pos + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* The data ends at pos + got: the file was cut while it was read (or a read failed). */
static void cut_at(struct kt_rwin *w, size_t end)
{
	if (end < w->len)
		w->len = end;
}

const uint8_t *kt_rwin_fill(struct kt_rwin *w, size_t pos, size_t n)
{
	size_t want, kept = 0;

	if (w->fd < 0 || pos > w->len || n > w->len - pos)
		return NULL;
	want = n > w->step ? n : w->step;
	if (want > w->len - pos)
		want = w->len - pos;
	if (pos >= w->base && pos < w->base + w->have)
		kept = w->base + w->have - pos;
	if (want > w->cap) {
		uint8_t *b = malloc(want);

		if (!b) {
			w->err = ENOMEM;
			cut_at(w, pos);
			return NULL;
		}
		if (kept)
			memcpy(b, w->buf + (pos - w->base), kept);
		free(w->own);
		w->own = b;
		w->cap = want;
	} else if (kept) {
		memmove(w->own, w->buf + (pos - w->base), kept);
	}
	w->buf = w->own;
	w->base = pos;
	w->have = kept;
	while (w->have < want) {
		ssize_t got =
		    pread(w->fd, w->own + w->have, want - w->have, (off_t)(pos + w->have));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got < 0)
				w->err = errno;
			cut_at(w, pos + w->have);
			break;
		}
		w->have += (size_t)got;
	}
	return n <= w->have ? w->own : NULL;
}
