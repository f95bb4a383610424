/* The corpus-replay driver run by make check: feeds every file named on the command line to
 * every fuzz target, the replay readers, the symbolizer's parsers and the /proc readers, and
 * prints TAP. Each file
 * runs in a child process: it passes when the child exits normally after every target (a crash,
 * a trap of a target's own checks or a sanitizer abort fails that file, and the others still
 * run). Then every target must have accepted at least one file, so a reader that refuses
 * everything (and so checks nothing) fails too. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kerntop/util.h"
#include "fuzz_targets.h"

static const struct {
	const char *name;
	int (*run)(const uint8_t *data, size_t size);
} targets[] = {
    {"recording", kt_fuzz_recording}, {"perf script", kt_fuzz_perfscript},
    {"kallsyms", kt_fuzz_kallsyms},   {"modules", kt_fuzz_modules},
    {"ranges", kt_fuzz_ranges},	      {"text", kt_fuzz_text},
    {"proc files", kt_fuzz_procstat},
};
#define NTARGETS (int)(sizeof(targets) / sizeof(targets[0]))

/* Runs every target on one file in a child: the child's exit status is the mask of the
 * targets that accepted it, 64 + n when target n could not read it. */
static int run_file(const char *path, int *mask, char *why, size_t len)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork failed");
		return -1;
	}
	if (pid == 0) {
		char err[KT_ERRLEN];
		char *buf;
		size_t n;
		int m = 0;

		if (kt_read_file(path, 16 << 20, &buf, &n, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			_exit(64);
		}
		for (int t = 0; t < NTARGETS; t++)
			if (targets[t].run((const uint8_t *)buf, n))
				m |= 1 << t;
		free(buf);
		_exit(m);
	}
	if (waitpid(pid, &st, 0) < 0) {
		snprintf(why, len, "waitpid failed");
		return -1;
	}
	if (WIFSIGNALED(st)) {
		snprintf(why, len, "killed by signal %d", WTERMSIG(st));
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) >= 64) {
		snprintf(why, len, "exit status %d (unreadable, or a sanitizer report)",
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return -1;
	}
	*mask = WEXITSTATUS(st);
	return 0;
}

int main(int argc, char **argv)
{
	int accepted[NTARGETS] = {0};
	int failed = 0, n = 0;

	for (int i = 1; i < argc; i++) {
		char why[128];
		int mask = 0;

		if (run_file(argv[i], &mask, why, sizeof(why)) < 0) {
			printf("not ok %d - %s: %s\n", ++n, argv[i], why);
			failed++;
			continue;
		}
		for (int t = 0; t < NTARGETS; t++)
			accepted[t] += mask >> t & 1;
		printf("ok %d - %s: every target returned\n", ++n, argv[i]);
	}
	for (int t = 0; t < NTARGETS; t++) {
		int good = accepted[t] > 0;

		failed += !good;
		printf("%s %d - the %s target accepted %d of %d files (at least one)\n",
		       good ? "ok" : "not ok", ++n, targets[t].name, accepted[t], argc - 1);
	}
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
