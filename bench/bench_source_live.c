/* Measures what the live source costs its process: samples every CPU at -F HZ for S seconds
 * through the same poll() pattern as main.c, with a sink that only counts, and prints the
 * process's own user+system CPU time as a percentage of one core.
 * Usage: bench_source_live [SECONDS [HZ [-g] [-u]]] */
#include "config.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kerntop/source.h"
#include "kerntop/util.h"

static void count(void *ctx, const struct kt_sample *s)
{
	(void)s;
	(*(uint64_t *)ctx)++;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct kt_source_opts o = {
	    .event = "cpu-clock", .freq_hz = 997, .max_stack = 32, .sysroot = ""};
	double secs = argc > 1 ? atof(argv[1]) : 10, c0, c1;
	struct kt_source_stats st;
	struct kt_source *s;
	uint64_t n = 0, end, wakeups = 0;
	struct kt_sink sink = {&n, count, NULL, NULL, NULL, NULL};
	char err[KT_ERRLEN];

	if (argc > 2)
		o.freq_hz = strtoull(argv[2], NULL, 10);
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "-g") == 0)
			o.callchain = 1;
		else if (strcmp(argv[i], "-u") == 0)
			o.user = 1;
	}
	if (kt_source_open(&o, &s, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_source_live: %s\n", err);
		return 1;
	}
	c0 = cpu_s();
	end = kt_now_ns() + (uint64_t)(secs * 1e9);
	while (kt_now_ns() < end) {
		struct pollfd fds[1024];
		int nfds = kt_source_pollfds(s, fds, 1024), timeout;

		if (kt_source_read(s, &sink, &timeout, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_source_live: %s\n", err);
			return 1;
		}
		poll(fds, (nfds_t)nfds, timeout);
		wakeups++;
	}
	c1 = cpu_s();
	kt_source_stats(s, &st);
	printf("source_live: %u CPUs at %llu Hz%s%s for %.0f s: %llu samples, %llu lost, %llu "
	       "wakeups, "
	       "%.1f ms CPU = %.3f%% of one core\n",
	       kt_source_info(s)->ncpus, (unsigned long long)o.freq_hz, o.callchain ? " -g" : "",
	       o.user ? " -u" : "", secs, (unsigned long long)n, (unsigned long long)st.lost,
	       (unsigned long long)wakeups, (c1 - c0) * 1e3, 100.0 * (c1 - c0) / secs);
	kt_source_free(s);
	return 0;
}
