/* The /proc figures collector against hand-counted fixtures (tests/data/procstat): two
 * readings t0 and t1 two seconds apart give exact shares, softirq rates and busiest IRQ
 * lines; malformed and missing files give one notice each and leave their figures out. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kerntop/procstat.h"
#include "tap.h"

static char root[PATH_MAX], link_path[PATH_MAX + 8];

/* Points ROOT/proc at tests/data/procstat/NAME/proc, so one collector reads a sequence. */
static void use(const char *name)
{
	char target[PATH_MAX];

	snprintf(target, sizeof(target), "%s/proc", tap_data(name));
	if (target[0] != '/') {
		char cwd[PATH_MAX / 2], rel[PATH_MAX / 2];

		snprintf(rel, sizeof(rel), "%.2000s", target);
		if (!getcwd(cwd, sizeof(cwd)))
			exit(99);
		snprintf(target, sizeof(target), "%s/%s", cwd, rel);
	}
	unlink(link_path);
	if (symlink(target, link_path) < 0) {
		perror("symlink");
		exit(99);
	}
}

static int vec_index(const struct kt_ps_view *v, const char *name)
{
	for (uint32_t i = 0; i < v->nvec; i++)
		if (!strcmp(v->vec[i], name))
			return (int)i;
	return -1;
}

static void test_good(void)
{
	struct kt_procstat *p;
	const struct kt_ps_view *v;
	char msg[512];
	int iv;

	ok(kt_procstat_new(root, 4, &p) == 0, "collector created");
	use("procstat/t0");
	is_int(kt_procstat_read(p, 1000000000ull, msg, sizeof(msg)), 0, "t0: no notice");
	is_str(msg, "", "t0: empty notice");
	ok(kt_procstat_view(p) == NULL, "one reading: no view yet");
	ok(kt_procstat_latest(p) && kt_procstat_latest(p)->have == 7, "t0: all three files");
	use("procstat/t1");
	is_int(kt_procstat_read(p, 3000000000ull, msg, sizeof(msg)), 0, "t1: no notice");
	v = kt_procstat_view(p);
	ok(v && v->stat_valid && v->softirqs_valid && v->interrupts_valid, "t1: full view");
	if (!v)
		return;
	is_double(v->interval_s, 2.0, 1e-9, "interval 2 s");
	/* machine: +50 us +30 sy +90 id +10 wa +5 hi +10 si +5 st = 200 ticks */
	is_double(v->pct[KT_PS_USER], 25.0, 1e-9, "all us 25%");
	is_double(v->pct[KT_PS_SYSTEM], 15.0, 1e-9, "all sy 15%");
	is_double(v->pct[KT_PS_IDLE], 45.0, 1e-9, "all id 45%");
	is_double(v->pct[KT_PS_IOWAIT], 5.0, 1e-9, "all wa 5%");
	is_double(v->pct[KT_PS_IRQ], 2.5, 1e-9, "all hi 2.5%");
	is_double(v->pct[KT_PS_SOFTIRQ], 5.0, 1e-9, "all si 5%");
	is_double(v->pct[KT_PS_STEAL], 2.5, 1e-9, "all st 2.5% (guest columns ignored)");
	/* cpu0: +40 us +20 sy +20 id +5 hi +10 si +5 st = 100 */
	ok(v->cpu[0].valid && !v->cpu[1].valid && v->cpu[2].valid && !v->cpu[3].valid,
	   "cpu0 and cpu2 have /proc/stat lines, cpu1 and cpu3 not");
	is_double(v->cpu[0].pct[KT_PS_USER], 40.0, 1e-9, "cpu0 us 40%");
	is_double(v->cpu[0].pct[KT_PS_IRQ], 5.0, 1e-9, "cpu0 hi 5%");
	is_double(v->cpu[0].pct[KT_PS_SOFTIRQ], 10.0, 1e-9, "cpu0 si 10%");
	is_double(v->cpu[0].pct[KT_PS_STEAL], 5.0, 1e-9, "cpu0 st 5%");
	is_double(v->cpu[0].pct[KT_PS_IDLE], 20.0, 1e-9, "cpu0 id 20%");
	/* cpu2: +10 us +10 sy +70 id +10 wa = 100 */
	is_double(v->cpu[2].pct[KT_PS_IDLE], 70.0, 1e-9, "cpu2 id 70%");
	is_double(v->cpu[2].pct[KT_PS_IOWAIT], 10.0, 1e-9, "cpu2 wa 10%");
	is_double(v->cpu[2].pct[KT_PS_SOFTIRQ], 0.0, 1e-9, "cpu2 si 0%");

	is_int(v->nvec, 10, "10 softirq vectors");
	iv = vec_index(v, "NET_RX");
	ok(iv >= 0, "NET_RX found");
	if (iv >= 0) {
		is_double(v->softirq_per_s[(size_t)iv * 4 + 0], 300.0, 1e-9, "cpu0 NET_RX 300/s");
		is_double(v->softirq_per_s[(size_t)iv * 4 + 1], 0.0, 1e-9, "cpu1 NET_RX 0/s");
		is_double(v->softirq_per_s[(size_t)iv * 4 + 2], 1000.0, 1e-9,
			  "cpu2 NET_RX 1000/s (third column)");
		is_double(v->vec_per_s[iv], 1300.0, 1e-9, "machine NET_RX 1300/s");
	}
	iv = vec_index(v, "TIMER");
	if (iv >= 0)
		is_double(v->vec_per_s[iv], 300.0, 1e-9, "machine TIMER 300/s");
	iv = vec_index(v, "SCHED");
	if (iv >= 0)
		is_double(v->softirq_per_s[(size_t)iv * 4 + 2], 10.0, 1e-9, "cpu2 SCHED 10/s");

	/* cpu0: LOC +500, 41 +200; cpu2: LOC +1000, 42 +600, 24 +2 */
	{
		const struct kt_ps_top_irq *t0 = v->top_irq, *t2 = v->top_irq + 2 * KT_PS_TOP_IRQ;

		ok(t0[0].line >= 0 && !strcmp(v->irq[t0[0].line].name, "LOC"), "cpu0 top LOC");
		is_double(t0[0].per_s, 250.0, 1e-9, "cpu0 LOC 250/s");
		ok(t0[1].line >= 0 && !strcmp(v->irq[t0[1].line].name, "41"), "cpu0 second 41");
		is_str(t0[1].line >= 0 ? v->irq[t0[1].line].desc : NULL,
		       "PCI-MSIX-0000:00:04.0 1-edge virtio3-rx", "irq 41 description squeezed");
		is_double(t0[1].per_s, 100.0, 1e-9, "cpu0 41 100/s");
		is_int(t0[2].line, -1, "cpu0 has two busy lines only");
		ok(t2[0].line >= 0 && !strcmp(v->irq[t2[0].line].name, "LOC"), "cpu2 top LOC");
		is_double(t2[0].per_s, 500.0, 1e-9, "cpu2 LOC 500/s");
		ok(t2[1].line >= 0 && !strcmp(v->irq[t2[1].line].name, "42"), "cpu2 second 42");
		is_double(t2[1].per_s, 300.0, 1e-9, "cpu2 42 300/s");
		ok(t2[2].line >= 0 && !strcmp(v->irq[t2[2].line].name, "24"), "cpu2 third 24");
		is_double(t2[2].per_s, 1.0, 1e-9, "cpu2 24 1/s");
		is_int(kt_procstat_latest(p)->nirq, 5, "ERR and MIS (one count) are not lines");
	}

	/* the same reading fed back (replay) gives the same view */
	{
		struct kt_procstat *q;
		struct kt_ps_snap *a = kt_ps_snap_new(8), *b = kt_ps_snap_new(8);

		use("procstat/t0");
		kt_procstat_read(p, 5000000000ull, msg, sizeof(msg));
		kt_ps_snap_copy(a, kt_procstat_latest(p));
		use("procstat/t1");
		kt_procstat_read(p, 7000000000ull, msg, sizeof(msg));
		kt_ps_snap_copy(b, kt_procstat_latest(p));
		ok(kt_procstat_new("/nonexistent", 4, &q) == 0, "replay collector");
		kt_procstat_feed(q, a);
		kt_procstat_feed(q, b);
		v = kt_procstat_view(q);
		ok(v && v->stat_valid, "fed snapshots give a view");
		if (v) {
			is_double(v->cpu[0].pct[KT_PS_SOFTIRQ], 10.0, 1e-9, "fed: cpu0 si 10%");
			iv = vec_index(v, "NET_RX");
			is_double(iv >= 0 ? v->vec_per_s[iv] : -1, 1300.0, 1e-9,
				  "fed: NET_RX 1300/s");
		}
		kt_procstat_free(q);
		kt_ps_snap_free(a);
		kt_ps_snap_free(b);
	}
	kt_procstat_free(p);
}

static void test_bad(void)
{
	struct kt_procstat *p;
	char msg[1024], want[1024];

	ok(kt_procstat_new(root, 4, &p) == 0, "collector created");
	use("procstat/t0");
	kt_procstat_read(p, 1000000000ull, msg, sizeof(msg));
	use("procstat/bad");
	is_int(kt_procstat_read(p, 2000000000ull, msg, sizeof(msg)), 1, "malformed: a notice");
	snprintf(want, sizeof(want),
		 "/proc/stat: line 2: a time column is not a number; /proc/softirqs: line 1: no "
		 "\"CPU0 CPU1 ...\" header; /proc/interrupts: line 3: no \"IRQ:\" label (its "
		 "figures are left out)");
	is_str(msg, want, "malformed: one line naming each file, line and fault");
	ok(kt_procstat_view(p) == NULL, "malformed: no figures at all");
	is_int(kt_procstat_read(p, 3000000000ull, msg, sizeof(msg)), 0,
	       "still malformed: not said again");
	use("procstat/t1");
	is_int(kt_procstat_read(p, 4000000000ull, msg, sizeof(msg)), 1, "fixed: a notice");
	is_str(msg, "/proc/stat, /proc/softirqs and /proc/interrupts readable again",
	       "fixed: says so");
	ok(kt_procstat_view(p) == NULL, "the previous reading was bad: no view yet");
	use("procstat/missing");
	is_int(kt_procstat_read(p, 5000000000ull, msg, sizeof(msg)), 1, "missing: a notice");
	ok(strstr(msg, "/proc/stat: No such file or directory") != NULL,
	   "missing: names the file and the cause");
	ok(kt_procstat_view(p) == NULL, "missing: no figures");
	kt_procstat_free(p);
}

/* Parser edge cases straight from strings. */
static void test_parsers(void)
{
	struct kt_ps_snap *s = kt_ps_snap_new(2);
	char err[256];
	static const char old[] = "cpu 1 2 3 4\ncpu0 1 2 3 4\ncpu7 9 9 9 9\n";
	static const char few[] = "cpu 1 2 3\n";
	static const char over[] = "cpu 99999999999999999999 0 0 0\n";
	static const char nul[] = "cpu 1 2 3 4\0 5\n";
	static const char short_row[] = " CPU0 CPU1\nNET_RX: 5\n";

	is_int(kt_ps_parse_stat(s, old, sizeof(old) - 1, err, sizeof(err)), 0,
	       "a 2.4-era 4-column line parses");
	is_int(s->total[KT_PS_IDLE], 4, "idle is the fourth column");
	is_int(s->stat[KT_PS_STEAL], 0, "missing columns are 0");
	ok(s->online[0] && !s->online[1], "cpu7 beyond max_cpu is ignored");
	ok(kt_ps_parse_stat(s, few, sizeof(few) - 1, err, sizeof(err)) < 0, "3 columns refused");
	is_str(err, "/proc/stat: line 1: fewer than 4 time columns", "says why");
	ok(!(s->have & KT_PS_HAVE_STAT), "refused: marked absent");
	ok(kt_ps_parse_stat(s, over, sizeof(over) - 1, err, sizeof(err)) < 0,
	   "a 20-digit counter is refused");
	ok(kt_ps_parse_stat(s, nul, sizeof(nul) - 1, err, sizeof(err)) < 0, "a NUL is refused");
	ok(kt_ps_parse_softirqs(s, short_row, sizeof(short_row) - 1, err, sizeof(err)) < 0,
	   "a softirq row shorter than the header is refused");
	is_str(err, "/proc/softirqs: line 2: fewer counts than CPU columns", "says why");
	ok(kt_ps_parse_softirqs(s, "", 0, err, sizeof(err)) < 0, "an empty file is refused");
	kt_ps_snap_free(s);
}

int main(void)
{
	char tmpl[] = "/tmp/kt-procstat.XXXXXX";

	if (!mkdtemp(tmpl))
		return 99;
	snprintf(root, sizeof(root), "%s", tmpl);
	snprintf(link_path, sizeof(link_path), "%s/proc", root);
	test_good();
	test_bad();
	test_parsers();
	unlink(link_path);
	rmdir(root);
	return tap_done();
}
