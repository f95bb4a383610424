/* --annotate FUNC in reports: each function's instructions with hits and % of the function,
 * as an indented listing in text reports (perf annotate --stdio's layout, source lines
 * interleaved) and as the "annotate" array of JSON reports (docs/report-format.md). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kerntop/agg.h"
#include "kerntop/report.h"
#include "kerntop/symbols.h"
#include "kerntop/util.h"
#include "report_impl.h"

/* A source label without its directories (inline labels already name base names). */
const char *kt_report_src_base(const char *file)
{
	const char *b = strchr(file, ' ') ? NULL : strrchr(file, '/');

	return b ? b + 1 : file;
}

int kt_report_annotate_check(struct kt_agg *agg, const char *const *specs, unsigned n, char *err,
			     size_t errlen)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t f;
		int r = kt_agg_func_find(agg, specs[i], &f, err, errlen);

		if (r < 0)
			return r;
	}
	return 0;
}

void kt_report_annotate_text(FILE *out, const struct kt_annotate *an, const char *error)
{
	const char *file = NULL;
	int line = 0;

	fprintf(out, "\nAnnotate %s (%s) at 0x%" PRIx64 ", %" PRIu64 " bytes, %" PRIu64 " hits",
		an->name ? an->name : "?", an->module_name ? an->module_name : "?", an->start,
		an->size, an->hits);
	if (error) {
		fprintf(out, "\n  %s\n", error);
		return;
	}
	fprintf(out, ", text from %s\n", kt_text_source_name(an->source));
	fprintf(out, "  %8s %6s  %-16s  %s\n", "Hits", "%Func", "Address", "Instruction");
	for (size_t i = 0; i < an->ninsns; i++) {
		const struct kt_annot_insn *in = &an->insns[i];

		if (in->file && (in->file != file || in->line != line))
			fprintf(out, "  %8s %6s  %-16s  %s:%d\n", "", "", "",
				kt_report_src_base(in->file), in->line);
		file = in->file;
		line = in->line;
		if (in->hits)
			fprintf(out, "  %8" PRIu64 " %6.2f  %016" PRIx64 "  %s", in->hits, in->pct,
				in->addr, in->text);
		else
			fprintf(out, "  %8s %6s  %016" PRIx64 "  %s", "", "", in->addr, in->text);
		if (in->target_name[0])
			fprintf(out, " <%s>", in->target_name);
		fputc('\n', out);
	}
	if (an->outside)
		fprintf(out, "  %8" PRIu64 " hits between instruction starts (the text shown is not "
			     "the code that ran)\n",
			an->outside);
}

static void json_one(FILE *out, const struct kt_annotate *an, const char *error)
{
	fputs("{\"module\":", out);
	kt_rep_json_str(out, an->module_name ? an->module_name : "");
	fputs(",\"function\":", out);
	kt_rep_json_str(out, an->name ? an->name : "");
	fputs(",\"source\":", out);
	kt_rep_json_str(out, error ? "none" : kt_text_source_name(an->source));
	fprintf(out, ",\"start\":%" PRIu64 ",\"size\":%" PRIu64 ",\"hits\":%" PRIu64, an->start,
		an->size, an->hits);
	if (error) {
		fputs(",\"error\":", out);
		kt_rep_json_str(out, error);
	}
	fprintf(out, ",\"outside\":%" PRIu64 ",\"insns\":[", an->outside);
	for (size_t i = 0; i < an->ninsns; i++) {
		const struct kt_annot_insn *in = &an->insns[i];

		fprintf(out, "%s{\"addr\":%" PRIu64 ",\"hits\":%" PRIu64 ",\"pct\":", i ? "," : "",
			in->addr, in->hits);
		kt_rep_json_num(out, in->pct);
		fputs(",\"asm\":", out);
		kt_rep_json_str(out, in->text);
		if (in->target_name[0]) {
			fprintf(out, ",\"target\":%" PRIu64 ",\"target_name\":", in->target);
			kt_rep_json_str(out, in->target_name);
		}
		if (in->file) {
			fputs(",\"file\":", out);
			kt_rep_json_str(out, in->file);
			fprintf(out, ",\"line\":%d", in->line);
		}
		fputc('}', out);
	}
	fputs("]}", out);
}

/* One function: annotated, or its name with the reason there is no listing; -ENOMEM when
 * that reason is an allocation failure (the report then ends the run with an error). */
static int one(FILE *out, struct kt_agg *agg, const char *spec, int json, int first)
{
	struct kt_annotate an;
	char err[KT_ERRLEN];
	uint32_t f;
	int r = kt_agg_func_find(agg, spec, &f, err, sizeof(err));

	memset(&an, 0, sizeof(an));
	if (r == 0)
		r = kt_agg_annotate(agg, f, &an, err, sizeof(err));
	else
		an.name = spec;
	if (json) {
		if (!first)
			fputc(',', out);
		json_one(out, &an, r < 0 ? err : NULL);
	} else {
		kt_report_annotate_text(out, &an, r < 0 ? err : NULL);
	}
	kt_annotate_free(&an);
	return r == -ENOMEM ? r : 0;
}

int kt_rep_annotate(FILE *out, struct kt_agg *agg, const struct kt_report_ctx *c)
{
	int json = c->format == KT_FORMAT_JSON, r = 0;

	if (!c->nannotate || (c->format != KT_FORMAT_TEXT && !json))
		return 0;
	if (json)
		fputs(",\"annotate\":[", out);
	for (unsigned i = 0; i < c->nannotate; i++)
		if (one(out, agg, c->annotate[i], json, i == 0) < 0)
			r = -ENOMEM;
	if (json)
		fputc(']', out);
	return r;
}
