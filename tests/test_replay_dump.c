/* Test and bench helper: replays a file through the replay source at full speed and prints
 * what came out (counts, CPUs, comms, a digest), or writes a synthetic recording (--synth).
 *   test_replay_dump [-s SPEED] [-m MAXSTACK] [-t] FILE
 *   test_replay_dump --synth OUT NSAMPLES [SECONDS]
 *   test_replay_dump --convert IN OUT [KALLSYMS [N]]   (re-record a replay, e.g. perf script
 *     text; with N, a throttle record after every Nth sample, at its time)
 *   test_replay_dump --convert-ps IN OUT KALLSYMS EVENT SECS:SYSROOT...   (the same, recorded
 *     as EVENT, with a PROCSTAT snapshot of SYSROOT's /proc files at each time SECS, written
 *     before the first sample at or after it) */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/procstat.h"
#include "kerntop/util.h"
#include "source_impl.h"
#include "test_replay_synth.h"

#define MAX_COMMS 4096
#define DUMP_MAX_CPU 1024

struct dump {
	uint64_t samples, user, kernel, frames, with_frames, comms, lost, throttle;
	uint64_t digest, first_t, last_t;
	uint64_t per_cpu[DUMP_MAX_CPU];
	int ncomm;
	char *comm[MAX_COMMS];
};

static void on_sample(void *ctx, const struct kt_sample *s)
{
	struct dump *d = ctx;

	if (!d->samples)
		d->first_t = s->time_ns;
	d->last_t = s->time_ns;
	d->samples++;
	if (s->flags & KT_SAMPLE_USER)
		d->user++;
	else
		d->kernel++;
	d->frames += s->nr_frames;
	d->with_frames += s->nr_frames > 0;
	if (s->cpu < DUMP_MAX_CPU)
		d->per_cpu[s->cpu]++;
	d->digest = (d->digest ^ s->ip ^ (uint64_t)s->tid << 48 ^ s->cpu) * 0x100000001b3ull;
	for (uint32_t i = 0; i < s->nr_frames; i++)
		d->digest = (d->digest ^ s->frames[i]) * 0x100000001b3ull;
}

static void on_comm(void *ctx, int32_t pid, int32_t tid, const char *comm, uint64_t t)
{
	struct dump *d = ctx;

	(void)pid;
	(void)tid;
	(void)t;
	d->comms++;
	for (int i = 0; i < d->ncomm; i++)
		if (strcmp(d->comm[i], comm) == 0)
			return;
	if (d->ncomm < MAX_COMMS)
		d->comm[d->ncomm++] = strdup(comm);
}

static void on_lost(void *ctx, uint32_t cpu, uint64_t count, uint64_t t)
{
	(void)cpu;
	(void)t;
	((struct dump *)ctx)->lost += count;
}

static void on_throttle(void *ctx, uint32_t cpu, int throttled, uint64_t t)
{
	(void)cpu;
	(void)t;
	((struct dump *)ctx)->throttle += throttled;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A sink that writes what it gets into a recording. */
static uint64_t throttle_every, converted;

/* --convert-ps: the snapshots still to write, in time order. */
static int nps, next_ps;
static uint64_t ps_time[16];
static const char *ps_root[16];
static uint32_t ps_max_cpu;

static int write_ps(struct kt_recorder *rec, int i)
{
	struct kt_procstat *p;
	char msg[KT_ERRLEN];

	if (kt_procstat_new(ps_root[i], ps_max_cpu, &p) < 0)
		return -1;
	if (kt_procstat_read(p, ps_time[i], msg, sizeof(msg)))
		fprintf(stderr, "test_replay_dump: %s\n", msg);
	kt_rec_procstat(rec, kt_procstat_latest(p));
	kt_procstat_free(p);
	return 0;
}

static void cv_sample(void *ctx, const struct kt_sample *s)
{
	while (next_ps < nps && ps_time[next_ps] <= s->time_ns)
		write_ps(ctx, next_ps++);
	kt_rec_sample(ctx, s);
	if (throttle_every && ++converted % throttle_every == 0)
		kt_rec_throttle(ctx, s->cpu, 1, s->time_ns);
}

static void cv_comm(void *ctx, int32_t pid, int32_t tid, const char *comm, uint64_t t)
{
	kt_rec_comm(ctx, pid, tid, comm, t);
}

static void cv_lost(void *ctx, uint32_t cpu, uint64_t count, uint64_t t)
{
	kt_rec_lost(ctx, cpu, count, t);
}

static void cv_throttle(void *ctx, uint32_t cpu, int throttled, uint64_t t)
{
	kt_rec_throttle(ctx, cpu, throttled, t);
}

static void cv_procstat(void *ctx, const struct kt_ps_snap *snap)
{
	kt_rec_procstat(ctx, snap);
}

static int convert(const char *in, const char *out, const char *kallsyms, const char *event)
{
	struct kt_source_opts o = { .replay = in };
	struct kt_recorder *rec;
	struct kt_source *s = NULL;
	struct kt_sink k;
	char err[KT_ERRLEN];
	int e, to;

	if (kt_source_replay_open(&o, &s, err, sizeof(err)) == 0 && event)
		s->info.event = event;
	ps_max_cpu = s ? s->info.max_cpu : 1;
	if (!s || kt_rec_open(out, &s->info, kallsyms, NULL, &rec, err, sizeof(err)) < 0) {
		fprintf(stderr, "test_replay_dump: %s\n", err);
		return 1;
	}
	k = (struct kt_sink){ rec, cv_sample, cv_comm, cv_lost, cv_throttle, cv_procstat };
	do
		e = s->ops->read(s, &k, &to, err, sizeof(err));
	while (e == 0);
	while (next_ps < nps)
		write_ps(rec, next_ps++);
	s->ops->free(s);
	if (e < 0 || kt_rec_close(rec, err, sizeof(err)) < 0) {
		fprintf(stderr, "test_replay_dump: %s\n", err);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct kt_source_opts o = { 0 };
	struct kt_sink k;
	struct kt_source *s;
	static struct dump d;
	char err[KT_ERRLEN];
	int e, to, timing = 0, i = 1;
	uint64_t t0, calls = 0;

	if (argc >= 4 && strcmp(argv[1], "--synth") == 0) {
		double secs = argc > 4 ? atof(argv[4]) : 1.0;

		e = synth_write(argv[2], strtoull(argv[3], NULL, 10), (uint64_t)(secs * 1e9), 1,
				NULL, NULL, 10000, err, sizeof(err));
		if (e < 0) {
			fprintf(stderr, "test_replay_dump: %s\n", err);
			return 1;
		}
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "--convert") == 0) {
		throttle_every = argc > 5 ? strtoull(argv[5], NULL, 10) : 0;
		return convert(argv[2], argv[3], argc > 4 ? argv[4] : NULL, NULL);
	}
	if (argc >= 7 && strcmp(argv[1], "--convert-ps") == 0) {
		for (i = 6; i < argc && nps < 16; i++, nps++) {
			char *colon = strchr(argv[i], ':');

			if (!colon)
				return 2;
			*colon = 0;
			ps_time[nps] = (uint64_t)(atof(argv[i]) * 1e9 + 0.5);
			ps_root[nps] = colon + 1;
		}
		return convert(argv[2], argv[3], argv[4], argv[5]);
	}
	for (; i < argc - 1; i++) {
		if (strcmp(argv[i], "-s") == 0)
			o.speed = atof(argv[++i]);
		else if (strcmp(argv[i], "-m") == 0)
			o.max_stack = (uint32_t)atoi(argv[++i]);
		else if (strcmp(argv[i], "-t") == 0)
			timing = 1;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: test_replay_dump [-s SPEED] [-m MAXSTACK] [-t] FILE\n");
		return 2;
	}
	o.replay = argv[i];
	t0 = kt_now_ns();
	e = kt_source_replay_open(&o, &s, err, sizeof(err));
	if (e < 0) {
		fprintf(stderr, "test_replay_dump: %s\n", err);
		return 1;
	}
	k = (struct kt_sink){ &d, on_sample, on_comm, on_lost, on_throttle, NULL };
	do {
		e = s->ops->read(s, &k, &to, err, sizeof(err));
		calls++;
	} while (e == 0);
	if (e < 0) {
		fprintf(stderr, "test_replay_dump: %s\n", err);
		return 1;
	}
	if (timing) {
		double dt = (double)(kt_now_ns() - t0) / 1e9;

		printf("seconds %.3f\nsamples_per_sec %.0f\n", dt, (double)d.samples / dt);
	}
	printf("kind %s\nevent %s\nsamples %llu\nkernel %llu\nuser %llu\n", s->info.kind,
	       s->info.event, (unsigned long long)d.samples, (unsigned long long)d.kernel,
	       (unsigned long long)d.user);
	printf("with_frames %llu\nframes %llu\ncomm_events %llu\nlost %llu\nthrottled %llu\n",
	       (unsigned long long)d.with_frames, (unsigned long long)d.frames,
	       (unsigned long long)d.comms, (unsigned long long)d.lost,
	       (unsigned long long)d.throttle);
	printf("skipped %llu\nstats_samples %llu\nncpus %u\nmax_cpu %u\ncallchain %d\nuser_flag %d\n",
	       (unsigned long long)s->stats.skipped, (unsigned long long)s->stats.samples,
	       s->info.ncpus, s->info.max_cpu, s->info.callchain, s->info.user);
	printf("period %llu\nfirst_ns %llu\nlast_ns %llu\nkallsyms_len %zu\ndigest %016llx\n",
	       (unsigned long long)s->info.period, (unsigned long long)d.first_t,
	       (unsigned long long)d.last_t, s->info.kallsyms_len,
	       (unsigned long long)d.digest);
	printf("cpus");
	for (uint32_t c = 0; c < s->info.ncpus; c++)
		printf("%s%u", c ? "," : " ", s->info.cpus[c]);
	printf("\nsamples_per_cpu");
	for (uint32_t c = 0; c < s->info.max_cpu && c < DUMP_MAX_CPU; c++)
		if (d.per_cpu[c])
			printf(" %u:%llu", c, (unsigned long long)d.per_cpu[c]);
	qsort(d.comm, (size_t)d.ncomm, sizeof(d.comm[0]), cmp_str);
	printf("\ncomms");
	for (int c = 0; c < d.ncomm; c++) {
		printf("%s%s", c ? "," : " ", d.comm[c]);
		free(d.comm[c]);
	}
	printf("\nnotice %s\n", s->notice);
	s->ops->free(s);
	return 0;
}
