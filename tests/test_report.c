/* Report writer tests on the aggregator fixture: the text table, JSON (parsed by python3),
 * CSV, folded stacks with a strict format check, --zoom errors, and snapshots (fresh names,
 * mode 0600, no clobber, unsafe directories refused, every level written). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kerntop/report.h"
#include "test_agg_fixture.h"

static char *render(const struct kt_report_ctx *c, int *rc, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*rc = kt_report_write(f, agg, c, err, errlen);
	fclose(f);
	return buf;
}

static void ctx_init(struct kt_report_ctx *c, enum kt_format f)
{
	memset(c, 0, sizeof(*c));
	c->format = f;
	c->top = 30;
	c->source = "replay";
	c->path = "fixture.perf";
	c->event = "cpu-clock";
	c->freq_hz = 1000;
	c->window_s = 10;
	c->ncpus = 2;
	c->report_no = 1;
	c->time_s = 2;
	c->stacks = 1;
	c->unix_time = 1700000000;
	kt_filter_all(&c->filter);
}

static int python_ok(const char *path, const char *code)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "python3 -c '%s' '%s'", code, path);
	return system(cmd) == 0;
}

static int write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(s, f);
	return fclose(f);
}

static void test_text(void)
{
	struct kt_report_ctx c;
	const char *zt[] = {"tcp", "nosym"};
	char err[512] = "", *t;
	int rc;

	ctx_init(&c, KT_FORMAT_TEXT);
	c.zoom = zt;
	c.nzoom = 2;
	c.skipped = 3;
	t = render(&c, &rc, err, sizeof(err));
	is_int(rc, 0, "text report written");
	ok(strstr(t, "Source:   replay fixture.perf\n") != NULL, "header names the source");
	ok(strstr(t, "Event:    cpu-clock at 1000 Hz per CPU (1.000 ms per hit)\n") != NULL,
	   "event and frequency");
	ok(strstr(t,
		  "Samples:  220 (110.0/s of 2000 possible), lost 0, throttled 0, skipped 3\n") !=
	       NULL,
	   "samples, lost and (for a replay) skipped");
	ok(strstr(t, "Module         Hits        msec  %Total     Hits/s\n") != NULL,
	   "KernRate-like module table header");
	ok(strstr(t, "tcp              70        70.0  31.82%       35.0\n") != NULL, "tcp row");
	ok(strstr(t, "Zoom: tcp (2 functions with hits, bucket size 64 bytes)\n") != NULL,
	   "zoom table title");
	ok(strstr(t, "tcp_write_xmit         60        60.0  27.27%  85.71%       30.0\n") != NULL,
	   "zoom row with % of module");
	ok(strstr(t, "Zoom: nosym (3 functions with hits, no symbols: address buckets, bucket size "
		     "64 bytes)\n") != NULL,
	   "a second -z: its own zoom table");
	ok(strstr(t, "Zoom: tcp") < strstr(t, "Zoom: nosym"), "zoom tables in command-line order");
	ok(strstr(t, "cpu1           98         63          5         30   3.1%  vmlinux          "
		     "read_zero\n") != NULL,
	   "cpu row with split and tops");
	free(t);

	zt[1] = "tpc";
	t = render(&c, &rc, err, sizeof(err));
	is_int(rc, -ENOENT, "unknown zoom module fails");
	ok(strstr(err, "--zoom tpc: no such module; did you mean: tcp") != NULL,
	   "and names the near one");
	ok(t == NULL || t[0] == 0, "nothing written before the error");
	free(t);
}

static void test_json_csv(void)
{
	static const char *const zj[] = {"nosym", "tcp"};
	struct kt_report_ctx c;
	char err[512], *t, path[] = "/tmp/kt-report-json-XXXXXX";
	int rc, fd = mkstemp(path);

	close(fd);
	ctx_init(&c, KT_FORMAT_JSON);
	c.zoom = zj;
	c.nzoom = 2;
	c.skipped = 3;
	t = render(&c, &rc, err, sizeof(err));
	is_int(rc, 0, "json report written");
	ok(strchr(t, '\n') == t + strlen(t) - 1, "exactly one line");
	write_file(path, t);
	ok(python_ok(path,
		     "import json,sys\n"
		     "d=json.load(open(sys.argv[1]))\n"
		     "assert d[\"version\"]==1 and d[\"source\"]==\"replay\" and "
		     "d[\"event\"]==\"cpu-clock\"\n"
		     "assert d[\"freq_hz\"]==1000 and d[\"window_s\"]==10 and d[\"cpus\"]==2\n"
		     "assert "
		     "(d[\"samples\"],d[\"kernel\"],d[\"user\"],d[\"idle\"],d[\"lost\"])==(220,125,"
		     "5,90,0)\n"
		     "assert d[\"skipped\"]==3 and d[\"throttled\"]==0\n"
		     "m={x[\"name\"]:x for x in d[\"modules\"]}\n"
		     "assert m[\"tcp\"][\"hits\"]==70 and m[\"tcp\"][\"ms\"]==70 and "
		     "m[\"[idle]\"][\"idle\"] is True\n"
		     "assert abs(m[\"tcp\"][\"pct\"]-31.8182)<1e-3 and m[\"tcp\"][\"per_s\"]==35\n"
		     "f=d[\"functions\"][0]\n"
		     "assert "
		     "(f[\"module\"],f[\"name\"],f[\"hits\"],f[\"idle\"])==(\"vmlinux\",\"default_"
		     "idle\",90,True)\n"
		     "assert [(x[\"cpu\"],x[\"hits\"],x[\"kernel\"],x[\"user\"],x[\"idle\"]) for x "
		     "in d[\"cpu\"]]==[(0,122,62,0,60),(1,98,63,5,30)]\n"
		     "assert [x[\"module\"] for x in d[\"zooms\"]]==[\"nosym\",\"tcp\"] and "
		     "d[\"zooms\"][0]==d[\"zoom\"]\n"
		     "assert d[\"zooms\"][1][\"functions\"][0][\"name\"]==\"tcp_write_xmit\"\n"
		     "z=d[\"zoom\"]\n"
		     "assert z[\"module\"]==\"nosym\" and [x[\"name\"] for x in "
		     "z[\"functions\"]]==[\"nosym+0x40\",\"nosym+0x80\",\"nosym+0xc0\"]\n"
		     "s=d[\"stacks\"][1]\n"
		     "assert s[\"hits\"]==40 and s[\"frames\"][-1]==\"tcp_write_xmit_[tcp]\" and "
		     "s[\"frames\"][0]==\"entry_SYSCALL_64_[k]\"\n"),
	   "json parses and holds the exact figures");
	free(t);

	ctx_init(&c, KT_FORMAT_CSV);
	t = render(&c, &rc, err, sizeof(err));
	is_int(rc, 0, "csv report written");
	ok(strncmp(t, "report,time,kind,module,name,hits,ms,pct,pct_machine,per_s,idle\n", 64) == 0,
	   "csv header line first");
	ok(strstr(t, "\n1,2.000,module,tcp,,70,70.000,31.8182,1.7500,35.000,0\n") != NULL,
	   "module row");
	ok(strstr(t, "\n1,2.000,function,vmlinux,read_zero,25,") != NULL, "function row");
	write_file(path, t);
	ok(python_ok(
	       path,
	       "import csv,sys\n"
	       "r=list(csv.DictReader(open(sys.argv[1])))\n"
	       "assert len(r)==5+9+1 and all(len(x)==11 for x in r)\n"
	       "assert [x[\"module\"] for x in r if x[\"kind\"]==\"context\"]==[\"unknown\"]\n"),
	   "csv parses: 5 modules + 9 functions + 1 context (the fixture's hits: unknown)");
	free(t);
	c.report_no = 2;
	t = render(&c, &rc, err, sizeof(err));
	ok(strncmp(t, "report,", 7) != 0, "later batch reports have no second header");
	free(t);
	c.report_no = 1;
	c.zoom = zj;
	c.nzoom = 2;
	t = render(&c, &rc, err, sizeof(err));
	write_file(path, t);
	ok(python_ok(path, "import csv,sys\n"
			   "r=list(csv.DictReader(open(sys.argv[1])))\n"
			   "z=[(x[\"module\"],x[\"name\"]) for x in r if x[\"kind\"]==\"zoom\"]\n"
			   "assert [m for m,n in z]==[\"nosym\"]*3+[\"tcp\"]*2, z\n"),
	   "csv: zoom rows of every -z module, in order");
	free(t);
	unlink(path);
}

static void test_folded(void)
{
	struct kt_report_ctx c;
	char err[512], *t, *line, *save;
	int rc, bad = 0, n = 0;
	uint64_t sum = 0;

	ctx_init(&c, KT_FORMAT_FOLDED);
	t = render(&c, &rc, err, sizeof(err));
	is_int(rc, 0, "folded written");
	ok(strstr(t, "entry_SYSCALL_64_[k];do_syscall_64_[k];tcp_sendmsg_[tcp];tcp_push_[tcp];tcp_"
		     "write_xmit_[tcp] 40\n") != NULL,
	   "root-first frames tagged with their module");
	ok(strstr(t, "\ndefault_idle_[k] 90\n") || !strncmp(t, "default_idle_[k] 90\n", 20),
	   "a one-frame stack");
	ok(strstr(t, "\nnosym+0x40_[nosym] 8\n") != NULL, "bucket frames");
	ok(strstr(t, "\n[user] 5\n") != NULL, "user hits as [user]");
	/* flamegraph.pl's rule: "frames;... count", the count after the last space, no
	 * other spaces, no empty frames */
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');

		n++;
		if (!sp || strchr(line, ' ') != sp || sp == line || strstr(line, ";;") ||
		    line[0] == ';' || sp[-1] == ';' ||
		    strspn(sp + 1, "0123456789") != strlen(sp + 1))
			bad++;
		else
			sum += strtoull(sp + 1, NULL, 10);
	}
	is_int(bad, 0, "every folded line is well formed");
	is_int(n, 10, "ten distinct stacks");
	is_int(sum, 220, "counts add up to every sample");
	free(t);
}

static void test_snapshot(void)
{
	struct kt_report_ctx c;
	struct kt_query q;
	char dir[] = "/tmp/kt-snap-XXXXXX", bad[600], p1[600], p2[600], err[512];
	struct stat st;

	ok(mkdtemp(dir) != NULL, "temp dir");
	ctx_init(&c, KT_FORMAT_JSON);
	memset(&q, 0, sizeof(q));
	q.view = KT_VIEW_MODULES;
	q.module = q.func = KT_ANY;
	kt_filter_all(&q.filter);
	is_int(kt_report_snapshot_path(dir, KT_FORMAT_JSON, p1, sizeof(p1)), 0, "snapshot path");
	ok(strstr(p1, "/kerntop-") && strstr(p1, ".json"), "named kerntop-YYYYmmdd-HHMMSS.json");
	is_int(kt_report_snapshot(p1, agg, &c, &q, err, sizeof(err)), 0, "json snapshot written");
	ok(stat(p1, &st) == 0 && (st.st_mode & 0777) == 0600, "mode 0600");
	ok(python_ok(p1,
		     "import json,sys\n"
		     "d=json.load(open(sys.argv[1]))\n"
		     "s=d[\"snapshot\"]\n"
		     "assert s[\"view\"]==\"modules\" and d[\"samples\"]==220\n"
		     "t=[r for r in s[\"rows\"] if r[\"name\"]==\"tcp\"][0]\n"
		     "f=t[\"children\"][0]\n"
		     "assert f[\"view\"]==\"functions\" and "
		     "f[\"rows\"][0][\"name\"]==\"tcp_write_xmit\"\n"
		     "lv=[c for c in f[\"rows\"][0][\"children\"] if c[\"view\"]==\"lines\"][0]\n"
		     "assert lv[\"rows\"][0][\"name\"]==\"tcp_write_xmit+0x0\" and "
		     "lv[\"rows\"][0][\"hits\"]==60\n"
		     "cl=[c for c in f[\"rows\"][0][\"children\"] if c[\"view\"]==\"callers\"][0]\n"
		     "assert cl[\"rows\"][1][\"name\"]==\"tcp_push\" and "
		     "cl[\"rows\"][1][\"hits\"]==40\n"),
	   "snapshot holds modules -> functions -> lines and callers");
	is_int(kt_report_snapshot_path(dir, KT_FORMAT_JSON, p2, sizeof(p2)), 0, "second path");
	ok(strcmp(p1, p2) != 0 && access(p2, F_OK) < 0, "a fresh name (-N within the same second)");
	is_int(kt_report_snapshot(p1, agg, &c, &q, err, sizeof(err)), -EEXIST, "never overwrites");
	ok(strstr(err, "already exists") != NULL, "and says so");

	c.format = KT_FORMAT_TEXT;
	q.view = KT_VIEW_TOPFUNCS;
	kt_report_snapshot_path(dir, KT_FORMAT_TEXT, p2, sizeof(p2));
	is_int(kt_report_snapshot(p2, agg, &c, &q, err, sizeof(err)), 0,
	       "text snapshot of top functions");
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = fopen(p2, "r");
		char tmp[4096];
		size_t n;
		FILE *m = open_memstream(&buf, &len);

		while (f && (n = fread(tmp, 1, sizeof(tmp), f)) > 0)
			fwrite(tmp, 1, n, m);
		if (f)
			fclose(f);
		fclose(m);
		ok(strstr(buf, "== top functions (9 of 9 rows) ==") != NULL, "the view itself");
		ok(strstr(buf, "== lines of read_zero (2 of 2 rows) ==") != NULL,
		   "each function's lines");
		ok(strstr(buf, "== callers of copy_user") != NULL, "and its callers");
		free(buf);
	}
	c.format = KT_FORMAT_TEXT;
	c.top = 2;
	q.view = KT_VIEW_MODULES;
	kt_report_snapshot_path(dir, KT_FORMAT_TEXT, p2, sizeof(p2));
	is_int(kt_report_snapshot(p2, agg, &c, &q, err, sizeof(err)), 0, "snapshot with --top 2");
	{
		char cmd[2048];

		snprintf(cmd, sizeof(cmd),
			 "grep -q '^== modules (5 of 5 rows) ==' '%s' && "
			 "test $(grep -c '== functions of' '%s') = 2 && "
			 "grep -q '== functions of tcp (2 of 2 rows) ==' '%s'",
			 p2, p2, p2);
		ok(system(cmd) == 0, "the whole view, the first --top rows expanded");
	}
	c.top = 30;
	c.format = KT_FORMAT_FOLDED;
	q.view = KT_VIEW_FUNCS;
	q.module = (uint32_t)kt_sym_module_find(sym, "tcp");
	kt_report_snapshot_path(dir, KT_FORMAT_FOLDED, p2, sizeof(p2));
	is_int(kt_report_snapshot(p2, agg, &c, &q, err, sizeof(err)), 0,
	       "folded snapshot of a module");
	ok(python_ok(p2, "import sys\n"
			 "l=open(sys.argv[1]).read().splitlines()\n"
			 "assert len(l)==3 and sum(int(x.rsplit(\" \",1)[1]) for x in l)==70\n"),
	   "only the module's stacks");
	c.format = KT_FORMAT_CSV;
	kt_report_snapshot_path(dir, KT_FORMAT_CSV, p2, sizeof(p2));
	is_int(kt_report_snapshot(p2, agg, &c, &q, err, sizeof(err)), 0, "csv snapshot");

	snprintf(bad, sizeof(bad), "%s/open", dir);
	mkdir(bad, 0777);
	chmod(bad, 0777);
	snprintf(p2, sizeof(p2), "%s/open/x.txt", dir);
	ok(kt_report_snapshot(p2, agg, &c, &q, err, sizeof(err)) == -EPERM &&
	       strstr(err, "world-writable"),
	   "a world-writable directory is refused");
	snprintf(p2, sizeof(p2), "%s/missing/x.txt", dir);
	ok(kt_report_snapshot(p2, agg, &c, &q, err, sizeof(err)) < 0 && strstr(err, "missing"),
	   "a missing directory is a clear error");
	snprintf(p2, sizeof(p2), "rm -rf '%s'", dir);
	ok(system(p2) == 0, "cleanup");
}

/* Without -u no user sample is ever taken: the header says "not sampled" and how much of the
 * machine that leaves out, instead of "User: 0 hits". */
static void test_user_unsampled(void)
{
	struct kt_window_opts wo = {.span_ns = 10 * S, .slice_ns = 1 * S};
	struct kt_agg_params ap = {.freq_hz = 1000, .ms_per_hit = 1.0, .ncpus = 2, .max_cpu = 2};
	struct kt_window *w;
	struct kt_agg *a, *saved = agg;
	struct kt_report_ctx c;
	struct kt_summary sum;
	struct kt_filter f;
	char err[512], want[256], *t;
	uint32_t task;
	int rc;

	kt_window_new(&wo, &w);
	kt_agg_new(w, sym, &ap, &a);
	task = kt_window_task(w, 300, 300);
	kt_window_add(w, 100 * S, kt_sym_lookup(sym, addr[XMIT]), 0, 0, task, 600);
	kt_window_add(w, 100 * S, kt_sym_lookup(sym, addr[IDLE]), 0, 1, task, 401);
	kt_window_advance(w, 101 * S);
	kt_filter_all(&f);
	kt_agg_summary(a, &f, &sum);
	ok(!sum.user_sampled && sum.unsampled_pct > 0 &&
	       sum.unsampled_pct + sum.busy_pct + sum.idle_pct > 99.999 &&
	       sum.unsampled_pct + sum.busy_pct + sum.idle_pct < 100.001,
	   "summary: user not sampled, the rest of the capacity unsampled");
	agg = a;
	ctx_init(&c, KT_FORMAT_TEXT);
	c.stacks = 0;
	t = render(&c, &rc, err, sizeof(err));
	snprintf(
	    want, sizeof(want),
	    "\nUser:     not sampled (-u to sample it); %.2f %% of the machine was not sampled "
	    "(user time, mostly)\n",
	    sum.unsampled_pct);
	ok(rc == 0 && strstr(t, want) != NULL, "text: user not sampled, with the unsampled share");
	ok(strstr(t, "User:     0 hits") == NULL, "text: never 'User: 0 hits' without -u");
	printf("# %s", want + 1);
	free(t);
	ctx_init(&c, KT_FORMAT_JSON);
	c.stacks = 0;
	t = render(&c, &rc, err, sizeof(err));
	snprintf(want, sizeof(want), "\"user_sampled\":false,\"unsampled_pct\":%.4f",
		 sum.unsampled_pct);
	ok(rc == 0 && strstr(t, want) != NULL, "json: user_sampled false and unsampled_pct");
	free(t);
	agg = saved;
	kt_agg_free(a);
	kt_window_free(w);

	/* The fixture has user hits: sampled, so hits and % as before. */
	ctx_init(&c, KT_FORMAT_JSON);
	t = render(&c, &rc, err, sizeof(err));
	ok(strstr(t, "\"user_sampled\":true,\"unsampled_pct\":0,") != NULL,
	   "json: user_sampled true and unsampled_pct 0 with user hits");
	free(t);
	ctx_init(&c, KT_FORMAT_TEXT);
	t = render(&c, &rc, err, sizeof(err));
	ok(strstr(t, "\nUser:     5 hits, ") != NULL, "text: user hits with -u");
	free(t);
}

/* A caller that writes many reports keeps their tables (batch mode): every report is the one
 * written afresh, also when the next has fewer rows (a CPU filter, one zoom less) or more. */
static void test_kept_results(void)
{
	static const enum kt_format fmts[] = {KT_FORMAT_TEXT, KT_FORMAT_JSON, KT_FORMAT_CSV};
	static const char *const zt[] = {"tcp", "nosym"};
	struct kt_report_results keep = {0};
	int bad = 0, n = 0;

	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
		for (int step = 0; step < 4; step++) {
			struct kt_report_ctx c;
			char err[512] = "", *fresh, *kept;
			int rf, rk;

			ctx_init(&c, fmts[f]);
			c.zoom = zt;
			c.nzoom = step == 2 ? 1 : 2;
			if (step == 1)
				c.filter.cpu = 1;
			fresh = render(&c, &rf, err, sizeof(err));
			c.keep = &keep;
			kept = render(&c, &rk, err, sizeof(err));
			n++;
			if (rf || rk || !fresh || !kept || strcmp(fresh, kept)) {
				if (!bad++)
					printf("# format %zu, report %d differs:\n%s\n--\n%s\n", f, step,
					       fresh ? fresh : "", kept ? kept : "");
			}
			free(fresh);
			free(kept);
		}
	}
	printf("# %d reports written with kept tables\n", n);
	is_int(bad, 0, "reports with kept tables are the ones written afresh, rows fewer or more");
	ok(keep.funcs.rows != NULL, "the tables were kept");
	kt_report_results_free(&keep);
	ok(keep.funcs.rows == NULL && keep.zoom[0].rows == NULL, "and freed");
}

int main(void)
{
	load();
	test_text();
	test_json_csv();
	test_folded();
	test_snapshot();
	test_user_unsampled();
	test_kept_results();
	kt_agg_free(agg);
	kt_window_free(win);
	kt_sym_free(sym);
	return tap_done();
}
