/* Command-line parsing: the option table, value checks and the --help text. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kerntop/options.h"
#include "kerntop/symbols.h"

enum {
	OPT_MAX_STACK = 256,
	OPT_RECORD,
	OPT_REPLAY,
	OPT_SPEED,
	OPT_SYSROOT,
	OPT_KALLSYMS,
	OPT_MODULES,
	OPT_BUILTIN_RANGES,
	OPT_VMLINUX,
	OPT_MODULE_DIR,
	OPT_BUCKET,
	OPT_IDLE_SYMBOLS,
	OPT_CUMULATIVE,
	OPT_TOP,
	OPT_FORMAT,
	OPT_NO_COLOR,
	OPT_NO_MOUSE,
	OPT_ASCII,
	OPT_BASELINE,
	OPT_DIFF,
	OPT_SNAPSHOT_DIR,
	OPT_LOG,
	OPT_KEEP_PRIVILEGES,
	OPT_PPROF_LABELS,
	OPT_PUSH,
	OPT_PUSH_INTERVAL,
	OPT_PUSH_NAME,
	OPT_PUSH_LABEL,
	OPT_PUSH_HEADER_FILE,
	OPT_NO_CALL_GRAPH,
	OPT_IRQ_OWNER,
	OPT_FOLDED_CONTEXT,
	OPT_ANNOTATE,
	OPT_NO_CONFIG,
};

/* One row per option, in --help order: getopt's long table, its short option string and the
 * --help text are generated from it, and the bash completion reads that --help, so an option is
 * declared here once (and handled in kt_options_parse's switch). A row without a name is a
 * --help section heading. */
struct opt_def {
	const char *name; /* long name; NULL for a heading */
	int val;	  /* the short option's letter, or an OPT_* value */
	const char *arg;  /* the value's name in --help (FILE, SECS, X|max); NULL for a flag */
	const char *help; /* the --help text; each '\n' starts an indented continuation line */
	void (*more)(FILE *out); /* prints what follows the text, such as a built-in list */
};

static void print_idle_list(FILE *out);

static const struct opt_def opt_defs[] = {
    {NULL, 0, NULL, "Sampling:", NULL},
    {"event", 'e', "NAME",
     "auto (default), cpu-clock, task-clock or cycles\n"
     "auto: cycles where the PMU has it, else cpu-clock with a\n"
     "notice (cpu-clock with -c); cycles falls back the same way",
     NULL},
    {"freq", 'F', "HZ", "samples per second per CPU (default 997)", NULL},
    {"count", 'c', "N", "sample every N events instead of a frequency", NULL},
    {"cpu", 'C', "LIST", "CPUs to sample, e.g. 0,2-3 (default: all online)", NULL},
    {"user", 'u', NULL, "also count user-mode hits (one [user] row)", NULL},
    {"call-graph", 'g', NULL,
     "sample kernel call chains (callers, stacks, flame graphs;\n"
     "the default: --no-call-graph turns them off)",
     NULL},
    {"no-call-graph", OPT_NO_CALL_GRAPH, NULL, "sample the interrupted address only", NULL},
    {"max-stack", OPT_MAX_STACK, "N", "frames kept per call chain (default 32, at most 256)", NULL},
    {"irq-owner", OPT_IRQ_OWNER, NULL,
     "charge hits in IRQ-enabling helpers (pvm_irq_enable,\n"
     "_raw_spin_unlock_irqrestore ...) to their first caller\n"
     "outside them (needs call chains; o in the viewer)",
     NULL},
    {"record", OPT_RECORD, "FILE", "also write every sample to FILE (kerntop recording)", NULL},
    {"replay", OPT_REPLAY, "FILE",
     "read a kerntop recording or `perf script` text instead\n"
     "of sampling live",
     NULL},
    {"speed", OPT_SPEED, "X|max", "replay at X times the recorded speed (default 1)", NULL},

    {NULL, 0, NULL, "Symbols:", NULL},
    {"sysroot", OPT_SYSROOT, "DIR", "read proc/ and sys/ files under DIR (default /)", NULL},
    {"kallsyms", OPT_KALLSYMS, "FILE", "kernel symbols (default /proc/kallsyms)", NULL},
    {"modules", OPT_MODULES, "FILE", "module list in /proc/modules format (default /proc/modules)",
     NULL},
    {"builtin-ranges", OPT_BUILTIN_RANGES, "FILE",
     "modules.builtin.ranges of the kernel (default\n"
     "/lib/modules/$(uname -r)/modules.builtin.ranges)",
     NULL},
    {"vmlinux", OPT_VMLINUX, "FILE", "ELF image of the kernel: symbols and source lines", NULL},
    {"module-dir", OPT_MODULE_DIR, "DIR", "directory with NAME.ko files: symbols and source lines",
     NULL},
    {"bucket", OPT_BUCKET, "BYTES", "address bucket size where no symbols exist (default 64)",
     NULL},
    {"idle-symbols", OPT_IDLE_SYMBOLS, "LIST",
     "comma-separated idle function names or prefixes*: LIST\n"
     "replaces the built-in list, +LIST adds to it. Built in:",
     print_idle_list},

    {NULL, 0, NULL, "Window and reports:", NULL},
    {"window", 'w', "SECS", "rolling window length (default 10)", NULL},
    {"cumulative", OPT_CUMULATIVE, NULL, "count since start instead of a rolling window", NULL},
    {"delay", 'd', "SECS", "refresh / report interval (default 1)", NULL},
    {"batch", 'b', NULL, "no terminal UI: print a report every -d seconds", NULL},
    {"iterations", 'n', "N",
     "batch reports before exiting (default: until SIGINT,\n"
     "SIGTERM or the end of a replay)",
     NULL},
    {"output", 'o', "FILE", "batch output file (default stdout)", NULL},
    {"zoom", 'z', "MODULE",
     "also list MODULE's functions (KernRate's -z; repeatable;\n"
     "the viewer opens on the first)",
     NULL},
    {"annotate", OPT_ANNOTATE, "FUNC",
     "also list FUNC's instructions with their hits (repeatable;\n"
     "MODULE:FUNC when the name is in several modules)",
     NULL},
    {"top", OPT_TOP, "N", "rows per table (default 30)", NULL},
    {"baseline", OPT_BASELINE, "FILE",
     "compare with FILE (a JSON report, a recording or perf\n"
     "script text): delta and rate-ratio columns per row",
     NULL},
    {"diff", OPT_DIFF, "A B",
     "print what changed from A to B (recordings, perf script\n"
     "or JSON reports) per module, function and context, and exit",
     NULL},
    {"format", OPT_FORMAT, "FMT",
     "text (default), json, csv, folded or pprof\n"
     "(pprof: gzipped profile.proto; -o DIR: one per report)",
     NULL},
    {"folded-context", OPT_FOLDED_CONTEXT, NULL,
     "folded stacks start at their execution context\n"
     "([softirq NET_RX];net_rx_action;...)",
     NULL},
    {"pprof-labels", OPT_PPROF_LABELS, "LIST",
     "sample labels in pprof profiles: cpu,comm,pid,tid,context\n"
     "(default all; cpu,comm,context with --push; none)",
     NULL},

    {NULL, 0, NULL, "Push to a profiling server (Grafana Pyroscope; docs/fleet.md):", NULL},
    {"push", OPT_PUSH, "URL", "POST a pprof profile to URL/ingest every interval", NULL},
    {"push-interval", OPT_PUSH_INTERVAL, "SECS", "seconds per pushed profile (default 10)", NULL},
    {"push-name", OPT_PUSH_NAME, "NAME", "application name (default kerntop.kernel)", NULL},
    {"push-label", OPT_PUSH_LABEL, "LABEL",
     "series label KEY=VALUE, repeatable (default host=HOSTNAME)", NULL},
    {"push-header-file", OPT_PUSH_HEADER_FILE, "FILE",
     "extra HTTP headers, one 'Name: value' per line\n"
     "(Authorization, X-Scope-OrgID): never on the command line",
     NULL},

    {NULL, 0, NULL, "Viewer:", NULL},
    {"no-color", OPT_NO_COLOR, NULL, "monochrome (also when NO_COLOR is set)", NULL},
    {"no-mouse", OPT_NO_MOUSE, NULL, "do not take mouse clicks", NULL},
    {"ascii", OPT_ASCII, NULL,
     "trend sparklines in ASCII (default: block characters\n"
     "in a UTF-8 locale)",
     NULL},
    {"snapshot-dir", OPT_SNAPSHOT_DIR, "DIR", "where the w key writes snapshots (default .)", NULL},
    {"no-config", OPT_NO_CONFIG, NULL,
     "ignore the settings the O key saved\n"
     "($XDG_CONFIG_HOME/kerntop/kerntoprc)",
     NULL},

    {NULL, 0, NULL, "Process:", NULL},
    {"log", OPT_LOG, "FILE", "write a debug log to FILE", NULL},
    {"keep-privileges", OPT_KEEP_PRIVILEGES, NULL,
     "do not drop to the sudo user after opening perf and /proc", NULL},
    {"help", 'h', NULL, "this text", NULL},
    {"version", 'V', NULL, "version", NULL},
};

#define N_OPT_DEFS (sizeof(opt_defs) / sizeof(opt_defs[0]))

/* The row of an option value, NULL for none (an unknown short option). */
static const struct opt_def *opt_def_of(int val)
{
	for (size_t i = 0; i < N_OPT_DEFS; i++)
		if (opt_defs[i].name && opt_defs[i].val == val)
			return &opt_defs[i];
	return NULL;
}

/* Fills getopt_long's tables from opt_defs (a heading row adds nothing): long_options has
 * room for N_OPT_DEFS + 1 entries, short_options for 2 * N_OPT_DEFS + 1 bytes. */
static void build_getopt_tables(struct option *long_options, char *short_options)
{
	size_t nl = 0, ns = 0;

	for (size_t i = 0; i < N_OPT_DEFS; i++) {
		const struct opt_def *d = &opt_defs[i];

		if (!d->name)
			continue;
		long_options[nl++] = (struct option){
		    d->name, d->arg ? required_argument : no_argument, NULL, d->val};
		if (d->val < 128) {
			short_options[ns++] = (char)d->val;
			if (d->arg)
				short_options[ns++] = ':';
		}
	}
	long_options[nl] = (struct option){NULL, 0, NULL, 0};
	short_options[ns] = 0;
}

/* Prints a comma list wrapped at width columns, each line indented by indent spaces. */
static void print_list(FILE *out, const char *list, int indent, int width)
{
	int col = 0;

	while (*list) {
		size_t n = strcspn(list, ",");
		int last = list[n] == '\0';

		if (col && col + 1 + (int)n + !last > width) {
			fputc('\n', out);
			col = 0;
		}
		if (!col)
			col = fprintf(out, "%*s", indent, "");
		else
			col += fprintf(out, " ");
		col += fprintf(out, "%.*s%s", (int)n, list, last ? "" : ",");
		list += n + !last;
	}
	fputc('\n', out);
}

static void print_idle_list(FILE *out)
{
	print_list(out, KT_SYM_DEFAULT_IDLE, 26, 90);
}

/* The column where --help's texts start: a longer option and value get two spaces instead. */
#define HELP_COL 26

void kt_options_usage(FILE *out)
{
	fputs("Usage: kerntop [OPTION]...\n"
	      "Live statistical kernel profiler: which module, function and line burns kernel "
	      "CPU.\n",
	      out);
	for (size_t i = 0; i < N_OPT_DEFS; i++) {
		const struct opt_def *d = &opt_defs[i];
		int n;

		if (!d->name) {
			fprintf(out, "\n%s\n", d->help);
			continue;
		}
		if (d->val < 128)
			n = fprintf(out, "  -%c, --%s", d->val, d->name);
		else
			n = fprintf(out, "      --%s", d->name);
		if (d->arg)
			n += fprintf(out, " %s", d->arg);
		fprintf(out, "%*s", n < HELP_COL ? HELP_COL - n : 2, "");
		for (const char *t = d->help; *t;) {
			size_t len = strcspn(t, "\n");

			fprintf(out, "%.*s\n", (int)len, t);
			t += len;
			if (*t) {
				t++;
				fprintf(out, "%*s", HELP_COL, "");
			}
		}
		if (d->more)
			d->more(out);
	}
	fputs("\nKeys in the viewer: press h or ? for the list. Man page: kerntop(1).\n", out);
}

static const char *option_name(int c, char *buf, size_t len)
{
	const struct opt_def *d = opt_def_of(c);

	if (d)
		snprintf(buf, len, "--%s", d->name);
	else
		snprintf(buf, len, "-%c", c);
	return buf;
}

/* How much of a user's argument an error message echoes: a 100 KB argument is not repeated
 * in full, and control bytes (terminal escapes) are shown as '?'. */
#define ECHO_MAX 80

static const char *echo_arg(const char *arg, char *buf, size_t len)
{
	size_t n = strlen(arg), i, keep = n > ECHO_MAX ? ECHO_MAX : n;

	if (keep >= len - 4)
		keep = len - 4;
	for (i = 0; i < keep; i++) {
		unsigned char ch = (unsigned char)arg[i];

		buf[i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
	}
	if (keep < n) {
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	buf[i] = 0;
	return buf;
}

static int bad_value(FILE *err, int c, const char *arg, const char *want)
{
	char name[64], echo[ECHO_MAX + 4];

	fprintf(err, "kerntop: invalid value '%s' for %s: expected %s (see kerntop --help)\n",
		echo_arg(arg, echo, sizeof(echo)), option_name(c, name, sizeof(name)), want);
	return 2;
}

/* -z repeats like KernRate's: each module once, in command-line order. */
static int add_zoom(struct kt_options *o, const char *name)
{
	for (unsigned i = 0; i < o->nzoom; i++)
		if (strcmp(o->zoom[i], name) == 0)
			return 0;
	if (o->nzoom >= KT_MAX_ZOOM)
		return -1;
	o->zoom[o->nzoom++] = name;
	return 0;
}

/* getopt_long leaves optopt at the option's value when its argument is missing, 0 when unknown. */
static int usage_error(FILE *err, char **argv, int opt)
{
	const char *arg = argv[optind - 1], *eq = strchr(arg, '=');
	const struct opt_def *d = opt > 0 ? opt_def_of(opt) : NULL;
	char echo[ECHO_MAX + 4];

	/* "--help=x": getopt reports a flag given a value like a missing value */
	if (d && !d->arg && eq && !strncmp(arg, "--", 2)) {
		fprintf(err, "kerntop: option --%s takes no value (see kerntop --help)\n", d->name);
		return 2;
	}
	if (d)
		fprintf(err, "kerntop: option %s needs a value (see kerntop --help)\n",
			echo_arg(arg, echo, sizeof(echo)));
	else if (opt > 0)
		fprintf(err, "kerntop: unknown option -%c (see kerntop --help)\n", opt);
	else
		fprintf(err, "kerntop: unknown option '%s' (see kerntop --help)\n",
			echo_arg(arg, echo, sizeof(echo)));
	return 2;
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	/* strtoull skips blanks and negates a '-' after them: " -18446744073709551615" is 1. */
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* A Pyroscope label name: a letter or '_', then letters, digits, '_' or '.'. */
static int label_key_ok(const char *k, size_t n)
{
	if (!n || !(isalpha((unsigned char)k[0]) || k[0] == '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)k[i]) && k[i] != '_' && k[i] != '.')
			return 0;
	return 1;
}

/* --pprof-labels and the --push options (docs/fleet.md); 0, or 2 after a message. */
static int fleet_option(struct kt_options *o, int c, const char *arg, FILE *err)
{
	static const char *const names[] = {"cpu", "comm", "pid", "tid", "context"};
	const char *eq;
	double d;

	switch (c) {
	case OPT_PPROF_LABELS:
		o->pprof_labels = 0;
		o->pprof_labels_given = 1;
		if (!strcmp(arg, "none"))
			return 0;
		for (const char *p = arg; *p;) {
			size_t n = strcspn(p, ","), i;

			for (i = 0; i < 5; i++)
				if (strlen(names[i]) == n && !strncmp(p, names[i], n))
					break;
			if (i == 5)
				return bad_value(err, c, arg,
						 "a comma list of cpu, comm, pid, tid, context, or none");
			o->pprof_labels |= 1u << i;
			p += n + (p[n] == ',');
		}
		return 0;
	case OPT_PUSH:
		if (strncmp(arg, "http://", 7) && strncmp(arg, "https://", 8))
			return bad_value(err, c, arg,
					 "the server's http:// or https:// URL (/ingest is added)");
		o->push_url = arg;
		return 0;
	case OPT_PUSH_INTERVAL:
		if (parse_double(arg, 0.01, 86400, &d))
			return bad_value(err, c, arg, "seconds between 0.01 and 86400");
		o->push_interval_s = d;
		return 0;
	case OPT_PUSH_NAME:
		for (const char *p = arg; *p; p++)
			if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
				return bad_value(err, c, arg,
						 "an application name of letters, digits, '_', '.' "
						 "and '-'");
		if (!*arg)
			return bad_value(err, c, arg, "an application name");
		o->push_name = arg;
		return 0;
	case OPT_PUSH_LABEL:
		eq = strchr(arg, '=');
		if (!eq || !label_key_ok(arg, (size_t)(eq - arg)) || !eq[1] ||
		    strpbrk(eq + 1, ",{}=\"\\"))
			return bad_value(err, c, arg,
					 "KEY=VALUE: a key of letters, digits, '_' and '.', a value "
					 "without , { } = or quotes");
		for (unsigned i = 0; i < o->npush_labels; i++)
			if (!strncmp(o->push_labels[i], arg, (size_t)(eq - arg) + 1)) {
				o->push_labels[i] = arg; /* the last one wins */
				return 0;
			}
		if (o->npush_labels >= KT_MAX_PUSH_LABELS) {
			fprintf(err, "kerntop: too many --push-label options: at most %d\n",
				KT_MAX_PUSH_LABELS);
			return 2;
		}
		o->push_labels[o->npush_labels++] = arg;
		return 0;
	case OPT_PUSH_HEADER_FILE:
		o->push_header_file = arg;
		return 0;
	}
	return 0;
}

static void set_defaults(struct kt_options *o)
{
	memset(o, 0, sizeof(*o));
	o->event = "auto";
	o->freq_hz = 997;
	o->max_stack = 32;
	/* chains by default, like bcc profile and the Pyroscope/Parca agents: the callers, the
	 * stacks and the contexts need them, and they cost little (docs/sampling.md) */
	o->callchain = 1;
	o->speed = 1.0;
	o->sysroot = "";
	o->bucket = 64;
	o->window_s = 10.0;
	o->delay_s = 1.0;
	o->top = 30;
	o->format = KT_FORMAT_TEXT;
	o->color = getenv("NO_COLOR") == NULL || !*getenv("NO_COLOR");
	o->mouse = 1;
	o->snapshot_dir = ".";
	o->pprof_labels = KT_PPROF_LABELS_ALL;
	o->push_interval_s = 10.0;
	o->push_name = "kerntop.kernel";
}

/* The -C syntax, checked here so that a typo is a usage error (2): comma-separated CPU numbers
 * or ascending ranges "a-b", below 8192 (the perf source's limit). Whether the machine has those
 * CPUs is only known when perf opens them. */
static int check_cpu_list(const char *s)
{
	for (;;) {
		unsigned long a, b;
		char *end;

		if (*s < '0' || *s > '9')
			return -1;
		a = strtoul(s, &end, 10);
		b = a;
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return -1;
			b = strtoul(s, &end, 10);
		}
		if (b < a || b > 8191)
			return -1;
		if (!*end)
			return 0;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

/* An output path that can never become a file (empty, ending in '/', a directory) is a usage
 * error now, not after a whole session of sampling. */
static int check_out_path(FILE *err, const char *opt, const char *path)
{
	struct stat st;
	size_t n;

	if (!path)
		return 0;
	n = strlen(path);
	if (!n) {
		fprintf(err, "kerntop: %s needs a file name, not an empty string\n", opt);
		return -1;
	}
	if (path[n - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
		char echo[ECHO_MAX + 4];

		fprintf(err, "kerntop: %s '%s' is a directory: name a file in it\n", opt,
			echo_arg(path, echo, sizeof(echo)));
		return -1;
	}
	return 0;
}

static int check_event(const char *e)
{
	return strcmp(e, "auto") && strcmp(e, "cpu-clock") && strcmp(e, "task-clock") &&
		       strcmp(e, "cycles")
		   ? -1
		   : 0;
}

int kt_options_parse(struct kt_options *o, int argc, char **argv, FILE *out, FILE *err)
{
	int c;
	uint64_t u;
	int freq_given = 0, period_given = 0;
	struct option long_options[N_OPT_DEFS + 1];
	char short_options[2 * N_OPT_DEFS + 1];

	set_defaults(o);
	build_getopt_tables(long_options, short_options);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			kt_options_usage(out);
			return 0;
		case 'V':
			fprintf(out, "kerntop %s\n", PACKAGE_VERSION);
			return 0;
		case 'e':
			if (check_event(optarg))
				return bad_value(err, c, optarg, "auto, cpu-clock, task-clock or cycles");
			o->event = optarg;
			break;
		case 'F':
			if (parse_u64(optarg, 1, 100000, &u))
				return bad_value(err, c, optarg, "a frequency from 1 to 100000 Hz");
			o->freq_hz = u;
			freq_given = 1;
			break;
		case 'c':
			if (parse_u64(optarg, 1, UINT64_MAX / 2, &u))
				return bad_value(err, c, optarg, "a positive event count");
			o->period = u;
			period_given = 1;
			break;
		case 'C':
			if (check_cpu_list(optarg))
				return bad_value(
				    err, c, optarg,
				    "a CPU list such as 0,2-3 (ascending ranges, CPUs below 8192)");
			o->cpus = optarg;
			break;
		case 'u':
			o->user = 1;
			break;
		case 'g':
			o->callchain = 1;
			break;
		case OPT_NO_CALL_GRAPH:
			o->callchain = 0;
			break;
		case OPT_MAX_STACK:
			if (parse_u64(optarg, 1, 256, &u))
				return bad_value(err, c, optarg, "a frame count from 1 to 256");
			o->max_stack = (uint32_t)u;
			break;
		case OPT_RECORD:
			o->record = optarg;
			break;
		case OPT_REPLAY:
			o->replay = optarg;
			break;
		case OPT_SPEED:
			if (!strcmp(optarg, "max"))
				o->speed = 0;
			else if (parse_double(optarg, 0.001, 1e6, &o->speed))
				return bad_value(err, c, optarg,
						 "a positive factor such as 0.5, 1, 10, or max");
			break;
		case OPT_SYSROOT:
			o->sysroot = optarg;
			break;
		case OPT_KALLSYMS:
			o->kallsyms = optarg;
			break;
		case OPT_MODULES:
			o->modules = optarg;
			break;
		case OPT_BUILTIN_RANGES:
			o->builtin_ranges = optarg;
			break;
		case OPT_VMLINUX:
			o->vmlinux = optarg;
			break;
		case OPT_MODULE_DIR:
			o->module_dir = optarg;
			break;
		case OPT_BUCKET:
			if (parse_u64(optarg, 4, 1 << 20, &u) || (u & (u - 1)))
				return bad_value(err, c, optarg,
						 "a power of two from 4 to 1048576 bytes");
			o->bucket = (uint32_t)u;
			break;
		case OPT_IDLE_SYMBOLS:
			o->idle_symbols = optarg;
			break;
		case 'w':
			o->window_given = 1;
			if (parse_double(optarg, 0.1, 86400, &o->window_s))
				return bad_value(err, c, optarg, "seconds from 0.1 to 86400");
			break;
		case OPT_CUMULATIVE:
			o->cumulative = 1;
			break;
		case OPT_IRQ_OWNER:
			o->irq_owner = 1;
			break;
		case OPT_FOLDED_CONTEXT:
			o->folded_context = 1;
			break;
		case 'd':
			o->delay_given = 1;
			if (parse_double(optarg, 0.05, 3600, &o->delay_s))
				return bad_value(err, c, optarg, "seconds from 0.05 to 3600");
			break;
		case 'b':
			o->batch = 1;
			break;
		case 'n':
			if (parse_u64(optarg, 1, 1000000000, &u))
				return bad_value(err, c, optarg, "a positive number of reports");
			o->iterations = (long)u;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'z':
			if (add_zoom(o, optarg) < 0) {
				fprintf(err,
					"kerntop: too many -z options: at most %d modules are "
					"zoomed per report\n",
					KT_MAX_ZOOM);
				return 2;
			}
			break;
		case OPT_ANNOTATE:
			if (o->nannotate >= KT_MAX_ANNOTATE) {
				fprintf(err,
					"kerntop: too many --annotate options: at most %d functions "
					"per report\n",
					KT_MAX_ANNOTATE);
				return 2;
			}
			o->annotate[o->nannotate++] = optarg;
			break;
		case OPT_TOP:
			if (parse_u64(optarg, 1, 1000000, &u))
				return bad_value(err, c, optarg, "a positive row count");
			o->top = (uint32_t)u;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				o->format = KT_FORMAT_TEXT;
			else if (!strcmp(optarg, "json"))
				o->format = KT_FORMAT_JSON;
			else if (!strcmp(optarg, "csv"))
				o->format = KT_FORMAT_CSV;
			else if (!strcmp(optarg, "folded"))
				o->format = KT_FORMAT_FOLDED;
			else if (!strcmp(optarg, "pprof"))
				o->format = KT_FORMAT_PPROF;
			else
				return bad_value(err, c, optarg, "text, json, csv, folded or pprof");
			break;
		case OPT_NO_COLOR:
			o->color = 0;
			break;
		case OPT_NO_MOUSE:
			o->mouse = 0;
			break;
		case OPT_ASCII:
			o->ascii = 1;
			break;
		case OPT_BASELINE:
			o->baseline = optarg;
			break;
		case OPT_DIFF:
			o->diff_a = optarg;
			break;
		case OPT_SNAPSHOT_DIR:
			o->snapshot_dir = optarg;
			break;
		case OPT_LOG:
			o->log = optarg;
			break;
		case OPT_KEEP_PRIVILEGES:
			o->keep_privileges = 1;
			break;
		case OPT_PPROF_LABELS:
		case OPT_PUSH:
		case OPT_PUSH_INTERVAL:
		case OPT_PUSH_NAME:
		case OPT_PUSH_LABEL:
		case OPT_PUSH_HEADER_FILE:
			if (fleet_option(o, c, optarg, err) != 0)
				return 2;
			break;
		case OPT_NO_CONFIG:
			o->no_config = 1;
			break;
		case ':':
		case '?':
		default:
			return usage_error(err, argv, optopt);
		}
	}
	if (o->diff_a) {
		if (optind >= argc) {
			fprintf(err, "kerntop: --diff needs two files: kerntop --diff BEFORE AFTER\n");
			return 2;
		}
		o->diff_b = argv[optind++];
		if (o->baseline || o->record) {
			fprintf(err, "kerntop: --diff compares its two files: drop --%s\n",
				o->baseline ? "baseline" : "record");
			return 2;
		}
		if (o->output) {
			fprintf(err, "kerntop: --diff writes to standard output: drop -o and redirect "
				     "it (> FILE)\n");
			return 2;
		}
		if (o->format != KT_FORMAT_TEXT && o->format != KT_FORMAT_JSON &&
		    o->format != KT_FORMAT_CSV) {
			fprintf(err, "kerntop: --diff writes text, json or csv: pick one of those "
				     "with --format\n");
			return 2;
		}
	}
	if (optind < argc) {
		char echo[ECHO_MAX + 4];

		fprintf(err,
			"kerntop: unexpected argument '%s' (kerntop takes options only; see "
			"kerntop --help)\n",
			echo_arg(argv[optind], echo, sizeof(echo)));
		return 2;
	}
	/* --format pprof -o DIR: one profile file per report in the directory */
	if ((o->format != KT_FORMAT_PPROF && check_out_path(err, "-o", o->output)) ||
	    check_out_path(err, "--record", o->record) ||
	    check_out_path(err, "--log", o->log))
		return 2;
	if (freq_given && period_given) {
		fprintf(err, "kerntop: -F and -c exclude each other: give a frequency or a period, "
			     "not both\n");
		return 2;
	}
	if (period_given)
		o->freq_hz = 0;
	if (o->replay && o->record) {
		fprintf(err, "kerntop: --record and --replay exclude each other: record live, "
			     "replay later\n");
		return 2;
	}
	if (o->format == KT_FORMAT_FOLDED && !o->callchain && !o->replay) {
		fprintf(err, "kerntop: --format folded needs call chains: drop --no-call-graph\n");
		return 2;
	}
	if (o->irq_owner && !o->callchain && !o->replay) {
		fprintf(err,
			"kerntop: --irq-owner needs call chains to find the callers: drop --no-call-graph\n");
		return 2;
	}
	if (o->folded_context && (!o->batch || o->format != KT_FORMAT_FOLDED)) {
		fprintf(err, "kerntop: --folded-context applies to batch folded output: add -b "
			     "--format folded\n");
		return 2;
	}
	return KT_OPTIONS_RUN;
}
