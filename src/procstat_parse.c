/* Parsers of /proc/stat, /proc/softirqs and /proc/interrupts text into a kt_ps_snap. They
 * take any bytes (the fuzz target feeds them random input): every read is bounded by the
 * buffer's end, and a file that does not look like the kernel's is refused as a whole with
 * the first line that broke the rules, so no half-parsed figure reaches the screen. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/paths.h"
#include "kerntop/procstat.h"

struct cur {
	const char *p, *end;
	unsigned line;
};

/* Next line as [*b, *e) without its newline; 0 at the end of the buffer. */
static int next_line(struct cur *c, const char **b, const char **e)
{
	const char *nl;

	if (c->p >= c->end)
		return 0;
	*b = c->p;
	nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	*e = nl ? nl : c->end;
	c->p = nl ? nl + 1 : c->end;
	c->line++;
	return 1;
}

static const char *skip_blank(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* An unsigned decimal at p (after blanks): the position after it, or NULL when there is no
 * digit or it overflows 64 bits. */
static const char *num(const char *p, const char *e, uint64_t *v)
{
	uint64_t r = 0;
	const char *s;

	p = skip_blank(p, e);
	s = p;
	while (p < e && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');

		if (r > (UINT64_MAX - d) / 10)
			return NULL;
		r = r * 10 + d;
		p++;
	}
	if (p == s || (p < e && *p != ' ' && *p != '\t'))
		return NULL;
	*v = r;
	return p;
}

static int word_is(const char *b, const char *e, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(e - b) >= n && memcmp(b, w, n) == 0;
}

static int bad(char *err, size_t errlen, const char *file, unsigned line, const char *why)
{
	snprintf(err, errlen, "%s: line %u: %s", file, line, why);
	return -EINVAL;
}

int kt_ps_parse_stat(struct kt_ps_snap *s, const char *buf, size_t len, char *err, size_t errlen)
{
	struct cur c = {buf, buf + len, 0};
	const char *b, *e;
	int have_total = 0;

	s->have &= ~(uint32_t)KT_PS_HAVE_STAT;
	memset(s->total, 0, sizeof(s->total));
	memset(s->stat, 0, (size_t)s->max_cpu * KT_PS_NSTAT * sizeof(*s->stat));
	memset(s->online, 0, s->max_cpu);
	while (next_line(&c, &b, &e)) {
		uint64_t v[KT_PS_NSTAT] = {0}, cpu = 0;
		const char *p = b + 3;
		int n = 0, total;

		if (!word_is(b, e, "cpu"))
			continue;
		total = p < e && (*p == ' ' || *p == '\t');
		if (!total && !(p = num(p, e, &cpu)))
			return bad(err, errlen, KT_PATH_PROC_STAT, c.line,
				   "a cpu line without a number");
		/* user nice system idle iowait irq softirq steal [guest guest_nice] */
		while (n < KT_PS_NSTAT && skip_blank(p, e) < e) {
			p = num(p, e, &v[n]);
			if (!p)
				return bad(err, errlen, KT_PATH_PROC_STAT, c.line,
					   "a time column is not a number");
			n++;
		}
		if (n < 4)
			return bad(err, errlen, KT_PATH_PROC_STAT, c.line,
				   "fewer than 4 time columns");
		if (total) {
			memcpy(s->total, v, sizeof(v));
			have_total = 1;
		} else if (cpu < s->max_cpu) {
			memcpy(s->stat + cpu * KT_PS_NSTAT, v, sizeof(v));
			s->online[cpu] = 1;
		}
	}
	if (!have_total)
		return bad(err, errlen, KT_PATH_PROC_STAT, c.line, "no \"cpu\" line");
	s->have |= KT_PS_HAVE_STAT;
	return 0;
}

/* The "CPU0 CPU1 ..." header of softirqs and interrupts: the CPU number of each column. */
static int cpu_columns(const char *b, const char *e, int32_t *col, int max, int *n)
{
	const char *p = b;

	*n = 0;
	for (;;) {
		uint64_t v;

		p = skip_blank(p, e);
		if (p >= e)
			break;
		if (!word_is(p, e, "CPU") || *n >= max)
			return -1;
		p = num(p + 3, e, &v);
		if (!p || v > INT32_MAX)
			return -1;
		col[(*n)++] = (int32_t)v;
	}
	return *n ? 0 : -1;
}

/* "NAME:" at the start of a line (after blanks): the name in out, the position after ':'. */
static const char *label(const char *b, const char *e, char *out, size_t outlen)
{
	const char *p = skip_blank(b, e), *s = p;
	size_t n;

	while (p < e && *p != ':' && *p != ' ' && *p != '\t')
		p++;
	if (p >= e || *p != ':' || p == s)
		return NULL;
	n = (size_t)(p - s) < outlen - 1 ? (size_t)(p - s) : outlen - 1;
	memcpy(out, s, n);
	out[n] = 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e)
			out[i] = '?';
	return p + 1;
}

#define MAX_COLS 8192

int kt_ps_parse_softirqs(struct kt_ps_snap *s, const char *buf, size_t len, char *err,
			 size_t errlen)
{
	struct cur c = {buf, buf + len, 0};
	const char *b, *e;
	int32_t *col;
	int ncol, r = 0;

	s->have &= ~(uint32_t)KT_PS_HAVE_SOFTIRQS;
	s->nvec = 0;
	memset(s->softirq, 0, (size_t)KT_PS_MAX_VEC * s->max_cpu * sizeof(*s->softirq));
	if (!next_line(&c, &b, &e))
		return bad(err, errlen, KT_PATH_PROC_SOFTIRQS, 1, "empty file");
	col = malloc(MAX_COLS * sizeof(*col));
	if (!col)
		return -ENOMEM;
	if (cpu_columns(b, e, col, MAX_COLS, &ncol) < 0) {
		r = bad(err, errlen, KT_PATH_PROC_SOFTIRQS, 1, "no \"CPU0 CPU1 ...\" header");
		goto out;
	}
	while (next_line(&c, &b, &e)) {
		char name[KT_PS_VEC_NAME];
		const char *p;
		uint32_t v = s->nvec;

		if (skip_blank(b, e) >= e)
			continue;
		if (!(p = label(b, e, name, sizeof(name)))) {
			r = bad(err, errlen, KT_PATH_PROC_SOFTIRQS, c.line, "no \"NAME:\" label");
			goto out;
		}
		if (v >= KT_PS_MAX_VEC) {
			r = bad(err, errlen, KT_PATH_PROC_SOFTIRQS, c.line, "more than 16 vectors");
			goto out;
		}
		for (int i = 0; i < ncol; i++) {
			uint64_t n;

			if (!(p = num(p, e, &n))) {
				r = bad(err, errlen, KT_PATH_PROC_SOFTIRQS, c.line,
					"fewer counts than CPU columns");
				goto out;
			}
			if (col[i] >= 0 && (uint32_t)col[i] < s->max_cpu)
				s->softirq[(size_t)v * s->max_cpu + (uint32_t)col[i]] = n;
		}
		memcpy(s->vec[v], name, sizeof(name));
		s->nvec++;
	}
	if (!s->nvec) {
		r = bad(err, errlen, KT_PATH_PROC_SOFTIRQS, c.line, "no vector lines");
		goto out;
	}
	s->have |= KT_PS_HAVE_SOFTIRQS;
out:
	if (r < 0)
		s->nvec = 0;
	free(col);
	return r;
}

/* The text after the counts with its blanks squeezed: "IO-APIC 5-edge ACPI:Ged". */
static void squeeze(const char *p, const char *e, char *out, size_t outlen)
{
	size_t n = 0;

	p = skip_blank(p, e);
	while (p < e && n + 1 < outlen) {
		unsigned char ch = (unsigned char)*p++;

		if (ch == ' ' || ch == '\t') {
			p = skip_blank(p, e);
			if (p < e)
				out[n++] = ' ';
			continue;
		}
		out[n++] = ch < 0x20 || ch > 0x7e ? '?' : (char)ch;
	}
	out[n] = 0;
}

int kt_ps_parse_interrupts(struct kt_ps_snap *s, const char *buf, size_t len, char *err,
			   size_t errlen)
{
	struct cur c = {buf, buf + len, 0};
	const char *b, *e;
	int32_t *col;
	int ncol, r = 0;

	s->have &= ~(uint32_t)KT_PS_HAVE_INTERRUPTS;
	s->nirq = 0;
	if (!next_line(&c, &b, &e))
		return bad(err, errlen, KT_PATH_PROC_INTERRUPTS, 1, "empty file");
	col = malloc(MAX_COLS * sizeof(*col));
	if (!col)
		return -ENOMEM;
	if (cpu_columns(b, e, col, MAX_COLS, &ncol) < 0) {
		r = bad(err, errlen, KT_PATH_PROC_INTERRUPTS, 1, "no \"CPU0 CPU1 ...\" header");
		goto out;
	}
	while (next_line(&c, &b, &e) && s->nirq < KT_PS_MAX_IRQ) {
		struct kt_ps_irq *q = &s->irq[s->nirq];
		uint64_t *cnt = s->irqcnt + (size_t)s->nirq * s->max_cpu;
		const char *p;
		int i;

		if (skip_blank(b, e) >= e)
			continue;
		if (!(p = label(b, e, q->name, sizeof(q->name)))) {
			r = bad(err, errlen, KT_PATH_PROC_INTERRUPTS, c.line, "no \"IRQ:\" label");
			goto out;
		}
		memset(cnt, 0, s->max_cpu * sizeof(*cnt));
		for (i = 0; i < ncol; i++) {
			uint64_t n;
			const char *q2 = num(p, e, &n);

			if (!q2)
				break;
			p = q2;
			if (col[i] >= 0 && (uint32_t)col[i] < s->max_cpu)
				cnt[col[i]] = n;
		}
		/* ERR: and MIS: carry one machine-wide count, not one per CPU: not a line */
		if (i < ncol)
			continue;
		squeeze(p, e, q->desc, sizeof(q->desc));
		s->nirq++;
	}
	s->have |= KT_PS_HAVE_INTERRUPTS;
out:
	if (r < 0)
		s->nirq = 0;
	free(col);
	return r;
}
