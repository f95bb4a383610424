/* Decoder of `perf script` text over a memory buffer: the default output of
 * `perf record -a -e cpu-clock [-g]` (sample line, then tab-indented call-chain frames and a
 * blank line) and `perf script -F comm,pid,tid,cpu,time,ip,sym,dso`. A line that is neither a
 * sample nor a frame is counted in skipped; nothing read can crash or stall the parser. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source_replay_impl.h"

/* A kernel text address on 64-bit Linux (x86_64, arm64): the upper half. */
#define KERNEL_HALF 0x8000000000000000ull
/* x86_64's legacy vsyscall page sits in the upper half but runs in user mode. */
#define VSYSCALL_PAGE 0xffffffffff600000ull

struct kt_pscript_comm {
	int32_t tid;
	uint8_t used, len;
	char comm[26];
};

struct hdr {
	const char *comm;
	size_t comm_len;
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t time_ns;
	uint64_t period;
	int have_period;
	const char *event;
	size_t event_len;
	int have_ip, user;
	uint64_t ip;
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parses up to 16 hex digits ending at a space or the end; returns the end or NULL. */
static const char *parse_hex(const char *p, const char *e, uint64_t *v)
{
	uint64_t r = 0;
	int n = 0, h;

	while (p < e && (h = hexval(*p)) >= 0) {
		if (++n > 16)
			return NULL;
		r = r << 4 | (uint64_t)h;
		p++;
	}
	if (!n || (p < e && *p != ' '))
		return NULL;
	*v = r;
	return p;
}

static const char *skip_sp(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* The dso of "ADDR sym+off (dso)": the text inside the last parentheses, or NULL. */
static const char *find_dso(const char *p, const char *e, size_t *len)
{
	const char *o;

	if (e <= p || e[-1] != ')')
		return NULL;
	o = memrchr(p, '(', (size_t)(e - p - 1));
	if (!o)
		return NULL;
	*len = (size_t)(e - 1 - (o + 1));
	return o + 1;
}

/* Kernel vs user from the address, with the dso to settle the exceptions. */
static int addr_is_user(uint64_t ip, const char *rest, const char *e)
{
	const char *dso;
	size_t n;

	if (ip >= KERNEL_HALF && ip < VSYSCALL_PAGE)
		return 0;
	dso = find_dso(rest, e, &n);
	if (dso && n >= 7 && memcmp(dso, "[kernel", 7) == 0)
		return 0;
	if (ip >= VSYSCALL_PAGE && !(dso && n == 10 && memcmp(dso, "[vsyscall]", 10) == 0))
		return 0;
	return 1;
}

/* "ADDR sym+off (dso)" after optional blanks: the address and whether it is user mode. */
static int parse_frame(const char *p, const char *e, uint64_t *ip, int *user)
{
	p = skip_sp(p, e);
	p = parse_hex(p, e, ip);
	if (!p)
		return 0;
	*user = addr_is_user(*ip, p, e);
	return 1;
}

static int parse_uint(const char **pp, const char *e, int maxdig, uint64_t *v)
{
	const char *p = *pp;
	uint64_t r = 0;
	int n = 0;

	while (p < e && is_digit(*p)) {
		uint64_t d = (uint64_t)(*p - '0');

		/* 20 digits can exceed 2^64: an overflowing number is a bad line, not a wrap */
		if (++n > maxdig || r > (UINT64_MAX - d) / 10)
			return 0;
		r = r * 10 + d;
		p++;
	}
	if (!n)
		return 0;
	*pp = p;
	*v = r;
	return 1;
}

static int parse_int32(const char **pp, const char *e, int32_t *v)
{
	const char *p = *pp;
	int neg = 0;
	uint64_t u;

	if (p < e && *p == '-') {
		neg = 1;
		p++;
	}
	if (!parse_uint(&p, e, 10, &u) || u > (neg ? 2147483648ull : 2147483647ull))
		return 0;
	*v = neg ? (int32_t)(-(int64_t)u) : (int32_t)u;
	*pp = p;
	return 1;
}

/* The "pid[/tid]" token ending just before e (exclusive), starting at p. */
static int parse_ids(const char *p, const char *e, struct hdr *h)
{
	int32_t a, b;

	if (!parse_int32(&p, e, &a))
		return 0;
	if (p == e) {
		h->pid = h->tid = a; /* perf prints the tid alone by default */
		return 1;
	}
	if (*p++ != '/' || !parse_int32(&p, e, &b) || p != e)
		return 0;
	h->pid = a;
	h->tid = b;
	return 1;
}

/* "SECS.FRAC:" */
static const char *parse_time(const char *p, const char *e, uint64_t *ns)
{
	uint64_t s, f = 0;
	int n = 0;

	if (!parse_uint(&p, e, 11, &s) || p >= e || *p++ != '.')
		return NULL;
	while (p < e && is_digit(*p)) {
		if (++n > 9)
			return NULL;
		f = f * 10 + (uint64_t)(*p++ - '0');
	}
	if (!n || p >= e || *p++ != ':')
		return NULL;
	while (n++ < 9)
		f *= 10;
	/* 11 digits of seconds are more than 2^64 ns: refused like a malformed time */
	if (s > (UINT64_MAX - f) / 1000000000ull)
		return NULL;
	*ns = s * 1000000000ull + f;
	return p;
}

/* The token at p: its end. */
static const char *tok_end(const char *p, const char *e)
{
	while (p < e && *p != ' ' && *p != '\t')
		p++;
	return p;
}

/* A sample line: "comm pid[/tid] [cpu] secs.frac: [period] [event:] [ADDR sym (dso)]". The
 * comm may hold blanks, so the line is anchored on the " [cpu] time:" part. */
static int parse_header(const char *l, const char *e, struct hdr *h, int want_ip)
{
	const char *b = l, *p, *ts, *te;

	for (;;) {
		const char *ids_end, *ids;
		uint64_t cpu;

		b = memchr(b, '[', (size_t)(e - b));
		if (!b)
			return 0;
		p = b + 1;
		ids_end = b;
		b++;
		if (ids_end == l || ids_end[-1] != ' ' || !parse_uint(&p, e, 5, &cpu) || p >= e ||
		    *p != ']' || cpu >= KT_REC_MAX_CPU)
			continue;
		while (ids_end > l && ids_end[-1] == ' ')
			ids_end--;
		ids = ids_end;
		while (ids > l && ids[-1] != ' ' && ids[-1] != '\t')
			ids--;
		if (ids == ids_end || !parse_ids(ids, ids_end, h))
			continue;
		p = parse_time(skip_sp(p + 1, e), e, &h->time_ns);
		if (!p)
			continue;
		h->cpu = (uint32_t)cpu;
		h->comm = skip_sp(l, ids);
		te = ids;
		while (te > h->comm && (te[-1] == ' ' || te[-1] == '\t'))
			te--;
		h->comm_len = (size_t)(te - h->comm);
		break;
	}
	h->have_period = h->have_ip = 0;
	h->event = NULL;
	h->event_len = 0;
	/* Optional "period event:" or "event:", then the optional address part. */
	p = skip_sp(p, e);
	ts = p;
	te = tok_end(ts, e);
	if (te > ts && te[-1] == ':') {
		h->event = ts;
		h->event_len = (size_t)(te - ts - 1);
		p = te;
	} else if (te > ts) {
		const char *t2 = skip_sp(te, e), *t2e = tok_end(t2, e), *q = ts;
		uint64_t per;

		if (t2e > t2 && t2e[-1] == ':' && parse_uint(&q, te, 20, &per) && q == te) {
			h->period = per;
			h->have_period = 1;
			h->event = t2;
			h->event_len = (size_t)(t2e - t2 - 1);
			p = t2e;
		}
	}
	p = skip_sp(p, e);
	if (p < e && want_ip) {
		if (!parse_frame(p, e, &h->ip, &h->user))
			return 0;
		h->have_ip = 1;
	}
	return 1;
}

/* A line past KT_PSCRIPT_LINE_MAX from pos (its first part at p, held bytes of the window):
 * where the next line starts. */
static size_t skip_long(struct kt_pscript *d, size_t pos, const char *p, size_t held)
{
	for (;;) {
		const char *nl = memchr(p, '\n', held);

		if (nl)
			return pos + (size_t)(nl - p) + 1;
		pos += held;
		if (pos >= d->w.len ||
		    !(p = (const char *)kt_rwin_at(&d->w, pos,
						   d->w.len - pos < 256 ? d->w.len - pos : 256)))
			return d->w.len;
		held = kt_rwin_held(&d->w, pos);
	}
}

/* The line at pos, whole in the window: [*lp, *lep) without its newline, and where the next one
 * starts (*next, one past the data's end after a last line without a newline). 1, 0 at the end
 * of the data, 2 for a line longer than KT_PSCRIPT_LINE_MAX (skipped: only *next is set). */
static int get_line(struct kt_pscript *d, size_t pos, const char **lp, const char **lep,
		    size_t *next)
{
	size_t ask = 256;

	for (;;) {
		const char *p, *nl;
		size_t held;

		if (pos >= d->w.len)
			return 0;
		if (ask > d->w.len - pos)
			ask = d->w.len - pos;
		p = (const char *)kt_rwin_at(&d->w, pos, ask);
		if (!p)
			continue; /* the file was cut: len is shorter now */
		held = kt_rwin_held(&d->w, pos);
		nl = memchr(p, '\n', held);
		if (!nl && pos + held < d->w.len && held <= KT_PSCRIPT_LINE_MAX) {
			ask = held * 2;
			continue;
		}
		if ((nl ? (size_t)(nl - p) : held) > KT_PSCRIPT_LINE_MAX) {
			*next = skip_long(d, pos, p, held);
			return 2;
		}
		*lp = p;
		*lep = nl ? nl : p + held;
		*next = pos + (size_t)(*lep - p) + 1;
		return 1;
	}
}

/* The line [p, *le) without a trailing CR or blanks. */
static const char *trim_end(const char *p, const char *le)
{
	while (le > p && (le[-1] == '\r' || le[-1] == ' ' || le[-1] == '\t'))
		le--;
	return le;
}

/* The first skipped line, quoted safe for a terminal. */
static void quote_bad(struct kt_pscript *d, const char *p, size_t len)
{
	size_t n = len < sizeof(d->first_bad) - 1 ? len : sizeof(d->first_bad) - 1;

	for (size_t i = 0; i < n; i++)
		d->first_bad[i] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
	d->first_bad[n] = 0;
}

int kt_pscript_open(struct kt_pscript *d, const char *buf, size_t len, char *err, size_t errlen)
{
	struct kt_rwin w;

	kt_rwin_mem(&w, buf, len);
	return kt_pscript_open_win(d, &w, err, errlen);
}

int kt_pscript_open_win(struct kt_pscript *d, const struct kt_rwin *w, char *err, size_t errlen)
{
	const char *p, *le;
	size_t pos = 0, next;
	uint8_t *seen;
	/* 128 bits: a sum of 20-digit periods would wrap 64 */
	unsigned __int128 period_sum = 0;
	uint64_t nperiod = 0;
	int want_frame = 0, user_seen = 0, chain = 0;
	struct hdr h;

	memset(d, 0, sizeof(*d));
	d->w = *w;
	if (!d->w.len) {
		snprintf(err, errlen,
			 "empty file: expected a kerntop recording or `perf script` output");
		return -EINVAL;
	}
	seen = calloc(KT_REC_MAX_CPU, 1);
	if (!seen) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int got; (got = get_line(d, pos, &p, &le, &next)); pos = next) {
		const char *te, *nul;

		if (got == 2) {
			if (!d->prescan_skipped++)
				snprintf(d->first_bad, sizeof(d->first_bad),
					 "(a line over %u bytes)", KT_PSCRIPT_LINE_MAX);
			want_frame = 0;
			continue;
		}
		nul = memchr(p, 0, (size_t)(le - p));
		if (nul) {
			free(seen);
			snprintf(
			    err, errlen,
			    "binary data (a NUL byte at byte %zu of the text): not `perf script` "
			    "output",
			    pos + (size_t)(nul - p));
			return -EINVAL;
		}
		te = trim_end(p, le);
		if (te == p || *p == '#') {
			/* blank or comment */
		} else if (*p == '\t') {
			chain = 1;
			if (want_frame) {
				uint64_t ip;
				int user;

				if (parse_frame(p, te, &ip, &user))
					user_seen |= user;
			}
		} else if (parse_header(p, te, &h, !user_seen)) {
			/* Once a user sample is seen the pre-scan needs no addresses: it skips
			 * them. */
			if (!d->nsamples)
				d->first_t = h.time_ns;
			d->last_t = h.time_ns;
			d->nsamples++;
			seen[h.cpu] = 1;
			if (h.have_period) {
				period_sum += h.period;
				nperiod++;
			}
			if (h.event && !d->info.event[0]) {
				size_t n =
				    h.event_len > KT_REC_EVENT_MAX ? KT_REC_EVENT_MAX : h.event_len;
				const char *colon = memchr(h.event, ':', n);

				/* perf prints modifiers ("cpu-clock:pppH"); name the event as a
				 * live run does. */
				if (colon)
					n = (size_t)(colon - h.event);
				memcpy(d->info.event, h.event, n);
				d->info.event[n] = 0;
			}
			if (h.have_ip)
				user_seen |= h.user;
			want_frame = !h.have_ip && !user_seen;
			continue;
		} else if (!d->prescan_skipped++) {
			quote_bad(d, p, (size_t)(le - p));
		}
		want_frame = 0;
	}
	if (!d->nsamples) {
		free(seen);
		snprintf(err, errlen,
			 "neither a kerntop recording nor `perf script` output: no sample line "
			 "('comm pid [cpu] secs.usecs: ...') found");
		return -EINVAL;
	}
	d->info.cpus = calloc(KT_REC_MAX_CPU, sizeof(*d->info.cpus));
	if (!d->info.cpus) {
		free(seen);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t c = 0; c < KT_REC_MAX_CPU; c++) {
		if (seen[c]) {
			d->info.cpus[d->info.ncpus++] = c;
			d->info.max_cpu = c + 1;
		}
	}
	free(seen);
	if (!d->info.event[0])
		snprintf(d->info.event, sizeof(d->info.event), "cpu-clock");
	/* No period column (-F without period): estimate it from the samples per CPU-second. */
	if (nperiod)
		d->info.period = (uint64_t)(period_sum / nperiod);
	else if (d->nsamples > d->info.ncpus && d->last_t > d->first_t)
		d->info.period = (uint64_t)((unsigned __int128)(d->last_t - d->first_t) *
					    d->info.ncpus / (d->nsamples - d->info.ncpus));
	else
		d->info.period = 1000000000ull / 997;
	d->info.callchain = chain;
	d->info.user = user_seen;
	if (d->prescan_skipped)
		snprintf(
		    d->notice, sizeof(d->notice),
		    "perf script: %llu line(s) that are neither samples nor frames will be skipped "
		    "(first: '%s')",
		    (unsigned long long)d->prescan_skipped, d->first_bad);
	return 0;
}

/* Remembers tid's comm; returns 1 when it is new or changed. */
static int comm_changed(struct kt_pscript *d, int32_t tid, const char *c, size_t n)
{
	uint32_t i;

	if (n > sizeof(d->comms[0].comm))
		n = sizeof(d->comms[0].comm);
	if (d->comm_n * 2 >= d->comm_cap) {
		uint32_t cap = d->comm_cap ? d->comm_cap * 2 : 1024;
		struct kt_pscript_comm *t = calloc(cap, sizeof(*t));

		if (!t)
			return 1; /* out of memory: every comm is passed on, changed or not */
		for (uint32_t k = 0; k < d->comm_cap; k++) {
			if (!d->comms[k].used)
				continue;
			i = ((uint32_t)d->comms[k].tid * 2654435761u) & (cap - 1);
			while (t[i].used)
				i = (i + 1) & (cap - 1);
			t[i] = d->comms[k];
		}
		free(d->comms);
		d->comms = t;
		d->comm_cap = cap;
	}
	i = ((uint32_t)tid * 2654435761u) & (d->comm_cap - 1);
	while (d->comms[i].used && d->comms[i].tid != tid)
		i = (i + 1) & (d->comm_cap - 1);
	if (d->comms[i].used && d->comms[i].len == n && memcmp(d->comms[i].comm, c, n) == 0)
		return 0;
	if (!d->comms[i].used)
		d->comm_n++;
	d->comms[i].used = 1;
	d->comms[i].tid = tid;
	d->comms[i].len = (uint8_t)n;
	memcpy(d->comms[i].comm, c, n);
	return 1;
}

int kt_pscript_next(struct kt_pscript *d, struct kt_rp_event *ev)
{
	const char *p, *le, *te;
	size_t next;
	int got;

	if (d->have_pending) {
		*ev = d->pending;
		d->have_pending = 0;
		return 1;
	}
	while ((got = get_line(d, d->pos, &p, &le, &next))) {
		struct kt_sample *s = &ev->s;
		int kernel_chain = 1, user;
		uint32_t nf = 0;
		uint64_t ip;
		struct hdr h;
		char comm[sizeof(d->comm)];
		size_t comm_len;

		d->pos = next;
		if (got == 2) {
			d->skipped++;
			continue;
		}
		te = trim_end(p, le);
		if (te == p || *p == '#')
			continue;
		if (*p == '\t' || !parse_header(p, te, &h, 1)) {
			d->skipped++;
			continue;
		}
		/* The frames' lines may move the window under h.comm: keep it. */
		comm_len = h.comm_len < sizeof(comm) ? h.comm_len : sizeof(comm) - 1;
		memcpy(comm, h.comm, comm_len);
		/* The call chain: tab-indented frames, leaf first; keep the leading kernel ones. */
		while ((got = get_line(d, d->pos, &p, &le, &next)) && (got == 2 || *p == '\t')) {
			d->pos = next;
			if (got == 2) {
				d->skipped++;
				continue;
			}
			te = trim_end(p, le);
			if (te == p)
				break;
			/* Past the kernel part of the chain only the line ends matter. */
			if (h.have_ip && (!kernel_chain || nf == KT_MAX_STACK))
				continue;
			if (!parse_frame(p, te, &ip, &user)) {
				d->skipped++;
				continue;
			}
			if (!h.have_ip) {
				h.ip = ip;
				h.user = user;
				h.have_ip = 1;
			}
			if (user || h.user)
				kernel_chain = 0;
			if (kernel_chain && nf < KT_MAX_STACK)
				d->frames[nf++] = ip;
		}
		if (!h.have_ip) {
			d->skipped++;
			continue;
		}
		memset(ev, 0, sizeof(*ev));
		s->time_ns = h.time_ns;
		s->ip = h.ip;
		s->period = h.have_period ? h.period : d->info.period;
		s->pid = h.pid;
		s->tid = h.tid;
		s->cpu = h.cpu;
		s->flags = h.user ? KT_SAMPLE_USER : 0;
		s->nr_frames = nf;
		s->frames = nf ? d->frames : NULL;
		ev->type = KT_EV_SAMPLE;
		ev->time_ns = h.time_ns;
		if (comm_changed(d, h.tid, comm, comm_len)) {
			d->pending = *ev;
			d->have_pending = 1;
			memcpy(d->comm, comm, comm_len);
			d->comm[comm_len] = 0;
			memset(ev, 0, sizeof(*ev));
			ev->type = KT_EV_COMM;
			ev->time_ns = h.time_ns;
			ev->pid = h.pid;
			ev->tid = h.tid;
			ev->comm = d->comm;
		}
		return 1;
	}
	return 0;
}

void kt_pscript_close(struct kt_pscript *d)
{
	kt_rwin_free(&d->w);
	free(d->info.cpus);
	free(d->comms);
	d->info.cpus = NULL;
	d->comms = NULL;
}
