/* Formatting helpers shared by the report writers: JSON and CSV escaping, folded frame
 * names, column widths and the header block. */
#include "config.h"

#include <string.h>
#include <time.h>

#include "kerntop/source.h"
#include "report_impl.h"

/* The length of the valid UTF-8 sequence at p (1 to 4 bytes), or 0 for an invalid byte. */
static int utf8_len(const unsigned char *p)
{
	unsigned char c = p[0];
	int n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong forms, no surrogates, nothing above U+10FFFF */
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

const char *kt_rep_safe(const char *s, char *buf, size_t len)
{
	const unsigned char *p;
	size_t o = 0;
	int n;

	if (!s)
		return s;
	for (p = (const unsigned char *)s; *p; p += n) {
		n = utf8_len(p);
		if (!n || *p < 0x20 || *p == 0x7f || (*p == 0xc2 && p[1] < 0xa0))
			break;
	}
	if (!*p)
		return s; /* the usual case: nothing to replace */
	for (p = (const unsigned char *)s; *p && o + 5 < len; p += n) {
		n = utf8_len(p);
		/* C0 and C1 controls and invalid bytes (a lone 0x9b is CSI to some terminals) */
		if (!n || *p < 0x20 || *p == 0x7f || (*p == 0xc2 && p[1] < 0xa0)) {
			buf[o++] = '?';
			n = n ? n : 1;
			continue;
		}
		memcpy(buf + o, p, (size_t)n);
		o += (size_t)n;
	}
	buf[o] = 0;
	return buf;
}

void kt_rep_json_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (*p < 0x20) {
				fprintf(out, "\\u%04x", *p);
			} else if (*p >= 0x80) {
				/* JSON is UTF-8: a byte that is no valid sequence is written as the
				 * code point of the same value (its Latin-1 reading) */
				int n = utf8_len(p);

				if (!n) {
					fprintf(out, "\\u%04x", *p);
				} else {
					fwrite(p, 1, (size_t)n, out);
					p += n - 1;
				}
			} else {
				fputc(*p, out);
			}
		}
	}
	fputc('"', out);
}

/* JSON has no NaN or infinity; the figures are finite by construction, but be safe. */
void kt_rep_json_num(FILE *out, double v)
{
	if (v != v || v > 1e300 || v < -1e300)
		v = 0;
	if (v == (double)(long long)v && v < 9e15 && v > -9e15)
		fprintf(out, "%lld", (long long)v);
	else
		fprintf(out, "%.4f", v);
}

void kt_rep_csv_str(FILE *out, const char *s)
{
	if (!s)
		s = "";
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* A frame name's bytes: blanks, ';', control bytes and the quote and backslash (the frames
 * also go into JSON strings) become '_', bytes that are not valid UTF-8 '?'. */
static void frame_chars(FILE *out, const char *name, int brackets)
{
	const unsigned char *p = (const unsigned char *)name;
	int n;

	for (; *p; p += n) {
		n = utf8_len(p);
		if (!n) {
			fputc('?', out);
			n = 1;
		} else if (n > 1) {
			fwrite(p, 1, (size_t)n, out);
		} else if (brackets && (*p == '[' || *p == ']')) {
			continue;
		} else {
			fputc(*p == ' ' || *p == ';' || *p < 0x20 || *p == 0x7f || *p == '"' ||
				      *p == '\\'
				  ? '_'
				  : *p,
			      out);
		}
	}
}

/* A folded-stack frame: the function name with spaces and ';' replaced, tagged with its
 * module the way flamegraph.pl understands (_[k] marks kernel code). */
void kt_rep_folded_frame(FILE *out, struct kt_agg *agg, uint32_t func)
{
	struct kt_symbols *s = kt_agg_symbols(agg);
	const struct kt_sym_func *f = kt_sym_func(s, func);
	const char *name = f && f->name ? f->name : "[unknown]";

	frame_chars(out, name, 0);
	if (!f || f->module == KT_MOD_USER)
		return;
	if (f->module == KT_MOD_VMLINUX) {
		fputs("_[k]", out);
		return;
	}
	fputs("_[", out);
	frame_chars(out, kt_agg_module_name(agg, f->module), 1);
	fputc(']', out);
}

int kt_rep_name_width(const struct kt_row *rows, size_t n, int min, int max)
{
	int w = min;

	for (size_t i = 0; i < n; i++) {
		int l = rows[i].name ? (int)strlen(rows[i].name) : 0;

		if (l > w)
			w = l;
	}
	return w > max ? max : w;
}

double kt_rep_unix_time(const struct kt_report_ctx *c)
{
	struct timespec ts;

	if (c->unix_time > 0)
		return c->unix_time;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000000) / 1000.0;
}

void kt_rep_text_header(FILE *out, const struct kt_report_ctx *c, const struct kt_summary *s)
{
	double cap = s->covered_s * s->freq_hz * s->ncpus;

	fprintf(out, "kerntop %s report %llu at %.3f s\n", PACKAGE_VERSION,
		(unsigned long long)c->report_no, c->time_s);
	fprintf(out, "Source:   %s%s%s\n", c->source ? c->source : "live", c->path ? " " : "",
		c->path ? c->path : "");
	fprintf(out, "Event:    %s at %.0f Hz per CPU (%.3f ms per hit)\n",
		c->event ? c->event : "?", c->freq_hz, s->ms_per_hit);
	if (s->cumulative)
		fprintf(out, "Window:   cumulative since start (covers %.3f s)\n", s->covered_s);
	else
		fprintf(out, "Window:   %.3g s rolling (covers %.3f s)\n", c->window_s,
			s->covered_s);
	fprintf(out, "CPUs:     %u\n", c->ncpus);
	fprintf(out, "Samples:  %llu (%.1f/s of %.0f possible), lost %llu, throttled %llu",
		(unsigned long long)s->samples, s->samples_per_s,
		s->covered_s > 0 ? cap / s->covered_s : 0, (unsigned long long)s->lost,
		(unsigned long long)c->throttled);
	/* A damaged replay reads fewer samples than were taken: say how much was skipped. */
	if (c->path)
		fprintf(out, ", skipped %llu", (unsigned long long)c->skipped);
	fputc('\n', out);
	fprintf(out, "Kernel:   %llu hits, busy %.2f %% of machine\n",
		(unsigned long long)s->kernel, s->busy_pct);
	fprintf(out, "Idle:     %llu hits, %.2f %% of machine\n", (unsigned long long)s->idle,
		s->idle_pct);
	/* Without -u the kernel never takes user-mode samples: "0 hits" would read as no user
	 * work. Say so, and how much of the machine went unsampled. */
	if (s->user_sampled)
		fprintf(out, "User:     %llu hits, %.2f %% of machine\n",
			(unsigned long long)s->user, s->user_pct);
	else
		fprintf(out,
			"User:     not sampled (-u to sample it); %.2f %% of the machine was not "
			"sampled (user time, mostly)\n",
			s->unsampled_pct);
	if (s->irq_owner)
		fputs("IRQ owner: on: hits in IRQ-enabling helpers are charged to their callers\n",
		      out);
	{
		char note[KT_REPORT_NOTICE_LEN];

		if (kt_report_irq_notice(s, c->event, c->stacks, note, sizeof(note)))
			fprintf(out, "Notice:   %s\n", note);
	}
	if (c->push)
		fprintf(out, "Push:     sent %llu, failed %llu, dropped %llu%s%s\n",
			(unsigned long long)c->push_sent, (unsigned long long)c->push_failed,
			(unsigned long long)c->push_dropped,
			c->push_error && *c->push_error ? "; last error: " : "",
			c->push_error && *c->push_error ? c->push_error : "");
}

const char *kt_format_name(enum kt_format f)
{
	switch (f) {
	case KT_FORMAT_TEXT:
		return "text";
	case KT_FORMAT_JSON:
		return "json";
	case KT_FORMAT_CSV:
		return "csv";
	case KT_FORMAT_FOLDED:
		return "folded";
	case KT_FORMAT_PPROF:
		return "pprof";
	}
	return "?";
}

void kt_report_ctx_init(struct kt_report_ctx *c, enum kt_format f, uint32_t top,
			const struct kt_source_info *info, const struct kt_source_stats *st)
{
	memset(c, 0, sizeof(*c));
	c->format = f;
	c->top = top;
	c->source = info->kind;
	c->path = info->path;
	c->event = info->event;
	c->freq_hz =
	    info->freq_hz ? (double)info->freq_hz : 1e9 / (double)(info->period ? info->period : 1);
	c->ncpus = info->ncpus;
	c->throttled = st->throttled;
	c->skipped = st->skipped;
	kt_filter_all(&c->filter);
}
