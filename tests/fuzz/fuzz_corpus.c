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

/* Runs every target on one file in a child: it writes the mask of the targets that accepted
 * the file to a pipe (more targets than an exit status has bits for) and exits 0; 64 when it
 * could not read the file; any other end (a signal, a sanitizer's exit code) fails the file. */
static int run_file(const char *path, int *mask, char *why, size_t len)
{
	pid_t pid;
	int st, fds[2], got = 0;

	fflush(stdout);
	if (pipe(fds) < 0) {
		snprintf(why, len, "pipe failed");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
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
		kt_fuzz_text_done(); /* _exit runs no atexit handler */
		if (write(fds[1], &m, sizeof(m)) != (ssize_t)sizeof(m))
			_exit(65);
		_exit(0);
	}
	close(fds[1]);
	got = read(fds[0], mask, sizeof(*mask)) == (ssize_t)sizeof(*mask);
	close(fds[0]);
	if (waitpid(pid, &st, 0) < 0) {
		snprintf(why, len, "waitpid failed");
		return -1;
	}
	if (WIFSIGNALED(st)) {
		snprintf(why, len, "killed by signal %d", WTERMSIG(st));
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !got) {
		snprintf(why, len, "exit status %d (unreadable, or a sanitizer report)",
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return -1;
	}
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
