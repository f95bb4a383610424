/* The live source's life cycle: CPU hotplug through a sysroot fixture (offline at start, coming
 * online, going offline, coming online after root was dropped) and --record while sampling
 * live, replayed back to the same samples, frames and task names. */
#define _GNU_SOURCE
#include "config.h"

#include <grp.h>
#include <sys/stat.h>

#include "test_source_live.h"
#include "test_sysroot.h"

static void test_hotplug(const char *dir)
{
	struct kt_source_opts o = base_opts();
	struct kt_source *s;
	struct counts c;
	char err[KT_ERRLEN], msg[256];
	int r, pfd[2];
	pid_t pid;

	kt_test_cpu_sysroot(dir, "0-1\n", "0\n");
	o.sysroot = dir;

	o.cpus = "1";
	r = kt_source_open(&o, &s, err, sizeof(err));
	is_int(r, -ENODEV, "hotplug: -C of an offline CPU refused");
	ok(strstr(err, "cpu 1 is offline") != NULL, "hotplug: message names it");
	o.cpus = NULL;

	memset(&c, 0, sizeof(c));
	r = kt_source_open(&o, &s, err, sizeof(err));
	is_int(r, 0, "hotplug: opens with cpu 1 offline");
	if (r)
		return;
	is_int(kt_source_info(s)->ncpus, 1, "hotplug: samples one CPU");
	is_int(kt_source_info(s)->max_cpu, 2, "hotplug: tables sized by the possible CPUs");
	ok(kt_source_notice(s) && strstr(kt_source_notice(s), "cpu 1 offline"),
	   "hotplug: notice for the offline CPU");
	is_int(kt_source_refresh(s, msg, sizeof(msg)), 0, "hotplug: nothing changed, no notice");
	pump(s, &c, 300);
	is_int(c.per_cpu[1], 0, "hotplug: no hits on the offline CPU");

	write_file(dir, "sys/devices/system/cpu/online", "0-1\n");
	is_int(kt_source_refresh(s, msg, sizeof(msg)), 1,
	       "hotplug: refresh sees cpu 1 come online");
	is_str(msg, "cpu 1 came online: now sampling it", "hotplug: online notice");
	is_int(kt_source_info(s)->ncpus, 2, "hotplug: samples two CPUs");
	pump(s, &c, 400);
	ok(c.per_cpu[1] > 0, "hotplug: hits on the new CPU");

	write_file(dir, "sys/devices/system/cpu/online", "0\n");
	is_int(kt_source_refresh(s, msg, sizeof(msg)), 1, "hotplug: refresh sees cpu 1 go offline");
	is_str(msg, "cpu 1 went offline: no longer sampled", "hotplug: offline notice");
	pump(s, &c, 50);
	is_int(kt_source_info(s)->ncpus, 1, "hotplug: back to one CPU");
	c.per_cpu[1] = 0;
	pump(s, &c, 300);
	is_int(c.per_cpu[1], 0, "hotplug: no more hits on it");
	kt_source_free(s);

	/* After main.c drops root, a CPU coming online cannot be opened: the notice says why. */
	if (geteuid() != 0 || read_paranoid() < 1) {
		ok(1, "hotplug after dropping root # SKIP needs root and perf_event_paranoid >= 1");
		return;
	}
	if (pipe(pfd) < 0)
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		memset(msg, 0, sizeof(msg));
		r = kt_source_open(&o, &s, err, sizeof(err));
		write_file(dir, "sys/devices/system/cpu/online", "0-1\n");
		if (r == 0 && setgroups(0, NULL) == 0 && setgid(65534) == 0 && setuid(65534) == 0)
			r = kt_source_refresh(s, msg, sizeof(msg));
		else
			r = -999;
		if (write(pfd[1], &r, sizeof(r)) < 0 || write(pfd[1], msg, sizeof(msg)) < 0)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	memset(msg, 0, sizeof(msg));
	if (read(pfd[0], &r, sizeof(r)) != (ssize_t)sizeof(r) ||
	    read(pfd[0], msg, sizeof(msg)) <= 0)
		r = -998;
	msg[sizeof(msg) - 1] = '\0';
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	is_int(r, 1, "hotplug after dropping root: refresh reports");
	is_str(msg,
	       "cpu 1 came online but cannot be sampled (Permission denied: kerntop dropped root "
	       "after start; restart it to sample this CPU)",
	       "hotplug after dropping root: notice says why");
}

/* --record while sampling live, then replay the file: the same samples, frames and names. */
static void test_record(const char *dir, pid_t dd0)
{
	struct kt_source_opts o = base_opts();
	struct kt_source *s;
	struct counts live, back;
	struct kt_sink k = sink_for(&back);
	char err[KT_ERRLEN], path[4096];
	int r, timeout, same_cpus = 1;

	snprintf(path, sizeof(path), "%s/live.ktr", dir);
	memset(&live, 0, sizeof(live));
	memset(&back, 0, sizeof(back));
	live.watch[live.nwatch++] = dd0;
	back.watch[back.nwatch++] = dd0;
	o.record = path;
	o.callchain = 1;
	r = kt_source_open(&o, &s, err, sizeof(err));
	is_int(r, 0, "record: opens");
	if (r) {
		printf("# %s\n", err);
		return;
	}
	pump(s, &live, 600);
	is_int(kt_source_refresh(s, err, sizeof(err)), 0, "record: a refresh flushes quietly");
	pump(s, &live, 400);
	r = kt_source_finish(s, err, sizeof(err));
	is_int(r, 0, "record: finish closes the recording");
	kt_source_free(s);

	o = base_opts();
	o.replay = path;
	o.speed = 0;
	r = kt_source_open(&o, &s, err, sizeof(err));
	is_int(r, 0, "record: the file replays");
	if (r) {
		printf("# %s\n", err);
		return;
	}
	ok(kt_source_info(s)->kallsyms && kt_source_info(s)->kallsyms_len > 0,
	   "record: carries kallsyms");
	is_int(kt_source_info(s)->callchain, 1, "record: carries -g");
	is_str(kt_source_info(s)->event, "cpu-clock", "record: carries the event");
	for (int i = 0; i < 1000000; i++) {
		r = kt_source_read(s, &k, &timeout, err, sizeof(err));
		if (r != 0)
			break;
	}
	is_int(r, KT_SOURCE_EOF, "record: replay reaches the end");
	kt_source_free(s);
	printf("# live %llu samples, replayed %llu\n", (unsigned long long)live.samples,
	       (unsigned long long)back.samples);
	ok(live.samples > 0, "record: sampled something");
	is_int(back.samples, live.samples, "record: same number of samples");
	for (int i = 0; i < NCPU; i++)
		if (back.per_cpu[i] != live.per_cpu[i])
			same_cpus = 0;
	ok(same_cpus, "record: same hits per CPU");
	ok(back.ip_sum == live.ip_sum, "record: same ip, time, tid and period");
	is_int(back.nframes, live.nframes, "record: same number of frames");
	ok(back.frame_sum == live.frame_sum, "record: same frames");
	is_str(back.watch_comm[0], "dd", "record: task names recorded (the /proc fallback too)");

	o = base_opts();
	o.record = path;
	r = kt_source_open(&o, &s, err, sizeof(err));
	ok(r < 0, "record: an existing file is never overwritten");
	printf("# %s\n", err);
}

int main(void)
{
	struct kt_source_opts o = base_opts();
	struct kt_source *s;
	char err[KT_ERRLEN], dir[] = "/tmp/kt-source-live.XXXXXX";
	int cpus[NCPU], ncpus, r;
	pid_t dd[MAXLOAD];

	r = kt_source_open(&o, &s, err, sizeof(err));
	if (r == -EACCES || r == -ENOSYS) {
		printf("1..0 # SKIP perf_event_open refused here: %s\n", err);
		return 0;
	}
	kt_source_free(s);
	if (!mkdtemp(dir)) {
		printf("# cannot create %s\n", dir);
		return 1;
	}
	ncpus = online_cpus(cpus, NCPU);
	if (ncpus > MAXLOAD)
		ncpus = MAXLOAD;
	for (int i = 0; i < ncpus; i++)
		dd[i] = spawn(cpus[i], 0);
	for (int i = 0; i < ncpus; i++)
		if (!wait_comm(dd[i], "dd"))
			printf("# load %d never became dd\n", (int)dd[i]);

	test_record(dir, dd[0]);
	if (ncpus >= 2)
		test_hotplug(dir);
	else
		ok(1, "hotplug # SKIP needs two CPUs");
	for (int i = 0; i < ncpus; i++)
		stop(dd[i]);
	snprintf(err, sizeof(err), "rm -rf '%s'", dir);
	if (system(err) != 0)
		printf("# cannot remove %s\n", dir);
	return tap_done();
}
