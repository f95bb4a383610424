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

static const struct option long_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {"event", required_argument, NULL, 'e'},
    {"freq", required_argument, NULL, 'F'},
    {"count", required_argument, NULL, 'c'},
    {"cpu", required_argument, NULL, 'C'},
    {"user", no_argument, NULL, 'u'},
    {"call-graph", no_argument, NULL, 'g'},
    {"no-call-graph", no_argument, NULL, OPT_NO_CALL_GRAPH},
    {"max-stack", required_argument, NULL, OPT_MAX_STACK},
    {"irq-owner", no_argument, NULL, OPT_IRQ_OWNER},
    {"folded-context", no_argument, NULL, OPT_FOLDED_CONTEXT},
    {"record", required_argument, NULL, OPT_RECORD},
    {"replay", required_argument, NULL, OPT_REPLAY},
    {"speed", required_argument, NULL, OPT_SPEED},
    {"sysroot", required_argument, NULL, OPT_SYSROOT},
    {"kallsyms", required_argument, NULL, OPT_KALLSYMS},
    {"modules", required_argument, NULL, OPT_MODULES},
    {"builtin-ranges", required_argument, NULL, OPT_BUILTIN_RANGES},
    {"vmlinux", required_argument, NULL, OPT_VMLINUX},
    {"module-dir", required_argument, NULL, OPT_MODULE_DIR},
    {"bucket", required_argument, NULL, OPT_BUCKET},
    {"idle-symbols", required_argument, NULL, OPT_IDLE_SYMBOLS},
    {"window", required_argument, NULL, 'w'},
    {"cumulative", no_argument, NULL, OPT_CUMULATIVE},
    {"delay", required_argument, NULL, 'd'},
    {"batch", no_argument, NULL, 'b'},
    {"iterations", required_argument, NULL, 'n'},
    {"output", required_argument, NULL, 'o'},
    {"zoom", required_argument, NULL, 'z'},
    {"top", required_argument, NULL, OPT_TOP},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"no-color", no_argument, NULL, OPT_NO_COLOR},
    {"no-mouse", no_argument, NULL, OPT_NO_MOUSE},
    {"ascii", no_argument, NULL, OPT_ASCII},
    {"snapshot-dir", required_argument, NULL, OPT_SNAPSHOT_DIR},
    {"log", required_argument, NULL, OPT_LOG},
    {"keep-privileges", no_argument, NULL, OPT_KEEP_PRIVILEGES},
    {"pprof-labels", required_argument, NULL, OPT_PPROF_LABELS},
    {"push", required_argument, NULL, OPT_PUSH},
    {"push-interval", required_argument, NULL, OPT_PUSH_INTERVAL},
    {"push-name", required_argument, NULL, OPT_PUSH_NAME},
    {"push-label", required_argument, NULL, OPT_PUSH_LABEL},
    {"push-header-file", required_argument, NULL, OPT_PUSH_HEADER_FILE},
    {"annotate", required_argument, NULL, OPT_ANNOTATE},
    {"no-config", no_argument, NULL, OPT_NO_CONFIG},
    {NULL, 0, NULL, 0},
};

static const char short_options[] = "hVe:F:c:C:ugw:d:bn:o:z:";

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

void kt_options_usage(FILE *out)
{
	fputs(
	    "Usage: kerntop [OPTION]...\n"
	    "Live statistical kernel profiler: which module, function and line burns kernel CPU.\n"
	    "\n"
	    "Sampling:\n"
	    "  -e, --event NAME        auto (default), cpu-clock, task-clock or cycles\n"
	    "                          auto: cycles where the PMU has it, else cpu-clock with a\n"
	    "                          notice (cpu-clock with -c); cycles falls back the same way\n"
	    "  -F, --freq HZ           samples per second per CPU (default 997)\n"
	    "  -c, --count N           sample every N events instead of a frequency\n"
	    "  -C, --cpu LIST          CPUs to sample, e.g. 0,2-3 (default: all online)\n"
	    "  -u, --user              also count user-mode hits (one [user] row)\n"
	    "  -g, --call-graph        sample kernel call chains (callers, stacks, flame graphs;\n"
	    "                          the default: --no-call-graph turns them off)\n"
	    "      --no-call-graph     sample the interrupted address only\n"
	    "      --max-stack N       frames kept per call chain (default 32, at most 256)\n"
	    "      --irq-owner         charge hits in IRQ-enabling helpers (pvm_irq_enable,\n"
	    "                          _raw_spin_unlock_irqrestore ...) to their first caller\n"
	    "                          outside them (needs call chains; o in the viewer)\n"
	    "      --record FILE       also write every sample to FILE (kerntop recording)\n"
	    "      --replay FILE       read a kerntop recording or `perf script` text instead\n"
	    "                          of sampling live\n"
	    "      --speed X|max       replay at X times the recorded speed (default 1)\n"
	    "\n"
	    "Symbols:\n"
	    "      --sysroot DIR       read proc/ and sys/ files under DIR (default /)\n"
	    "      --kallsyms FILE     kernel symbols (default /proc/kallsyms)\n"
	    "      --modules FILE      module list in /proc/modules format (default "
	    "/proc/modules)\n"
	    "      --builtin-ranges FILE  modules.builtin.ranges of the kernel (default\n"
	    "                          /lib/modules/$(uname -r)/modules.builtin.ranges)\n"
	    "      --vmlinux FILE      ELF image of the kernel: symbols and source lines\n"
	    "      --module-dir DIR    directory with NAME.ko files: symbols and source lines\n"
	    "      --bucket BYTES      address bucket size where no symbols exist (default 64)\n"
	    "      --idle-symbols LIST comma-separated idle function names or prefixes*: LIST\n"
	    "                          replaces the built-in list, +LIST adds to it. Built in:\n",
	    out);
	print_list(out, KT_SYM_DEFAULT_IDLE, 26, 90);
	fputs(
	    "\n"
	    "Window and reports:\n"
	    "  -w, --window SECS       rolling window length (default 10)\n"
	    "      --cumulative        count since start instead of a rolling window\n"
	    "  -d, --delay SECS        refresh / report interval (default 1)\n"
	    "  -b, --batch             no terminal UI: print a report every -d seconds\n"
	    "  -n, --iterations N      batch reports before exiting (default: until SIGINT,\n"
	    "                          SIGTERM or the end of a replay)\n"
	    "  -o, --output FILE       batch output file (default stdout)\n"
	    "  -z, --zoom MODULE       also list MODULE's functions (KernRate's -z; repeatable;\n"
	    "                          the viewer opens on the first)\n"
	    "      --annotate FUNC     also list FUNC's instructions with their hits (repeatable;\n"
	    "                          MODULE:FUNC when the name is in several modules)\n"
	    "      --top N             rows per table (default 30)\n"
	    "      --format FMT        text (default), json, csv, folded or pprof\n"
	    "                          (pprof: gzipped profile.proto; -o DIR: one per report)\n"
	    "      --folded-context    folded stacks start at their execution context\n"
	    "                          ([softirq NET_RX];net_rx_action;...)\n"
	    "      --pprof-labels LIST sample labels in pprof profiles: cpu,comm,pid,tid,context\n"
	    "                          (default all; cpu,comm,context with --push; none)\n"
	    "\n"
	    "Push to a profiling server (Grafana Pyroscope; docs/fleet.md):\n"
	    "      --push URL          POST a pprof profile to URL/ingest every interval\n"
	    "      --push-interval SECS  seconds per pushed profile (default 10)\n"
	    "      --push-name NAME    application name (default kerntop.kernel)\n"
	    "      --push-label LABEL  series label KEY=VALUE, repeatable (default host=HOSTNAME)\n"
	    "      --push-header-file FILE  extra HTTP headers, one 'Name: value' per line\n"
	    "                          (Authorization, X-Scope-OrgID): never on the command line\n"
	    "\n"
	    "Viewer:\n"
	    "      --no-color          monochrome (also when NO_COLOR is set)\n"
	    "      --no-mouse          do not take mouse clicks\n"
	    "      --ascii             trend sparklines and graphs in ASCII (default: block\n"
	    "                          characters in a UTF-8 locale)\n"
	    "      --snapshot-dir DIR  where the w key writes snapshots (default .)\n"
	    "      --no-config         ignore the settings the O key saved\n"
	    "                          ($XDG_CONFIG_HOME/kerntop/kerntoprc)\n"
	    "\n"
	    "Process:\n"
	    "      --log FILE          write a debug log to FILE\n"
	    "      --keep-privileges   do not drop to the sudo user after opening perf and /proc\n"
	    "  -h, --help              this text\n"
	    "  -V, --version           version\n"
	    "\n"
	    "Keys in the viewer: press h or ? for the list. Man page: kerntop(1).\n",
	    out);
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

static const char *option_name(int c, char *buf, size_t len)
{
	for (const struct option *lo = long_options; lo->name; lo++)
		if (lo->val == c) {
			snprintf(buf, len, "--%s", lo->name);
			return buf;
		}
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
	char echo[ECHO_MAX + 4];

	/* "--help=x": getopt reports a flag given a value like a missing value */
	if (opt > 0 && eq && !strncmp(arg, "--", 2)) {
		for (const struct option *lo = long_options; lo->name; lo++)
			if (lo->val == opt && lo->has_arg == no_argument) {
				fprintf(
				    err,
				    "kerntop: option --%s takes no value (see kerntop --help)\n",
				    lo->name);
				return 2;
			}
	}
	if (opt >= OPT_MAX_STACK || (opt > 0 && opt < 128 && strchr(short_options, opt)))
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

	set_defaults(o);
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
