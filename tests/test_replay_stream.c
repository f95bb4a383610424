/* The replay decoders read a big file through a window (struct kt_rwin): every input they read
 * from memory must decode to the same events, counts and notices through a file window of any
 * step, down to one byte (the fuzz corpus, recordings with TEXT blocks, text with a line over
 * the limit); a file cut while it is read ends the replay with a notice, never a crash. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kerntop/util.h"
#include "source_impl.h"
#include "source_replay_impl.h"
#include "tap.h"
#include "test_replay_synth.h"

static char tmpdir[] = "/tmp/kt-test-replay-stream.XXXXXX";

static const char *tmp(const char *name)
{
	static char buf[2][4096];
	static int i;

	i = (i + 1) % 2;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

/* A transcript of one decoding: what a replay would see, as text. */
struct tr {
	char *s;
	size_t n, cap;
};

static void add(struct tr *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct tr *t, const char *fmt, ...)
{
	va_list ap;
	int w;

	for (;;) {
		va_start(ap, fmt);
		w = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
		va_end(ap);
		if (w >= 0 && t->s && (size_t)w < t->cap - t->n) {
			t->n += (size_t)w;
			return;
		}
		t->cap = (t->cap + (size_t)w + 1) * 2;
		t->s = realloc(t->s, t->cap);
		if (!t->s)
			abort();
	}
}

static uint64_t fnv(const void *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const uint8_t *)p)[i]) * 1099511628211ull;
	return h;
}

static void add_info(struct tr *t, const struct kt_rp_info *in)
{
	add(t, "info %s %llu %llu %u %u %d %d ks=%zu:%llx mod=%zu:%llx texts=%zu\n", in->event,
	    (unsigned long long)in->freq_hz, (unsigned long long)in->period, in->ncpus, in->max_cpu,
	    in->callchain, in->user, in->kallsyms_len,
	    in->kallsyms ? (unsigned long long)fnv(in->kallsyms, in->kallsyms_len + 1) : 0ull,
	    in->modules_len,
	    in->modules ? (unsigned long long)fnv(in->modules, in->modules_len + 1) : 0ull,
	    in->ntexts);
	for (uint32_t i = 0; i < in->ncpus; i++)
		add(t, " %u", in->cpus[i]);
	for (size_t i = 0; i < in->ntexts; i++)
		add(t, " text %llx %zu %llx", (unsigned long long)in->texts[i].addr,
		    in->texts[i].len,
		    (unsigned long long)fnv(in->texts[i].bytes, in->texts[i].len));
	add(t, "\n");
}

static void add_event(struct tr *t, const struct kt_rp_event *ev)
{
	const struct kt_sample *s = &ev->s;

	switch (ev->type) {
	case KT_EV_SAMPLE:
		add(t, "S %llu %u %d %d %llx %llu %x %u", (unsigned long long)s->time_ns, s->cpu,
		    s->pid, s->tid, (unsigned long long)s->ip, (unsigned long long)s->period,
		    s->flags, s->nr_frames);
		for (uint32_t i = 0; i < s->nr_frames; i++)
			add(t, " %llx", (unsigned long long)s->frames[i]);
		add(t, "\n");
		break;
	case KT_EV_COMM:
		add(t, "C %llu %d %d %s\n", (unsigned long long)ev->time_ns, ev->pid, ev->tid,
		    ev->comm);
		break;
	case KT_EV_PROCSTAT:
		add(t, "P %llu %u %llu\n", (unsigned long long)ev->time_ns, ev->ps->have,
		    (unsigned long long)ev->ps->total[0]);
		break;
	default:
		add(t, "E %d %llu %u %llu %d\n", ev->type, (unsigned long long)ev->time_ns, ev->cpu,
		    (unsigned long long)ev->count, ev->throttled);
	}
}

/* The data as a decoder reads it: from memory (step 0), or path through a window of step
 * bytes. Returns the file's descriptor (the caller closes it), or -1. */
static int window(struct kt_rwin *w, const void *buf, size_t len, const char *path, size_t step)
{
	int fd = -1;

	if (step) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		kt_rwin_file(w, fd, len, step);
	} else {
		kt_rwin_mem(w, buf, len);
	}
	return fd;
}

/* Decodes a recording (step 0: from memory) into t. */
static void run_rec(struct tr *t, const void *buf, size_t len, const char *path, size_t step,
		    int crc)
{
	struct kt_rrec d;
	struct kt_rp_event ev;
	struct kt_rwin w;
	char err[KT_ERRLEN] = "";
	int fd = window(&w, buf, len, path, step), e;

	e = kt_rrec_open_win(&d, &w, crc, err, sizeof(err));
	add(t, "open %d %s\n", e, e < 0 ? err : d.notice);
	if (e == 0) {
		add_info(t, &d.info);
		while (kt_rrec_next(&d, &ev))
			add_event(t, &ev);
		add(t, "end %llu %llu %llu %s\n", (unsigned long long)d.samples,
		    (unsigned long long)d.skipped, (unsigned long long)d.pos, d.notice);
	}
	kt_rrec_close(&d);
	if (fd >= 0)
		close(fd);
}

static void run_ps(struct tr *t, const void *buf, size_t len, const char *path, size_t step)
{
	struct kt_pscript d;
	struct kt_rp_event ev;
	struct kt_rwin w;
	char err[KT_ERRLEN] = "";
	int fd = window(&w, buf, len, path, step), e;

	e = kt_pscript_open_win(&d, &w, err, sizeof(err));
	add(t, "open %d %s\n", e, e < 0 ? err : d.notice);
	if (e == 0) {
		add_info(t, &d.info);
		add(t, "prescan %llu %llu %llu %llu\n", (unsigned long long)d.nsamples,
		    (unsigned long long)d.first_t, (unsigned long long)d.last_t,
		    (unsigned long long)d.prescan_skipped);
		while (kt_pscript_next(&d, &ev))
			add_event(t, &ev);
		add(t, "end %llu %zu\n", (unsigned long long)d.skipped, d.pos);
	}
	kt_pscript_close(&d);
	if (fd >= 0)
		close(fd);
}

static int write_file(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "we");
	int e = !f || (n && fwrite(b, 1, n, f) != n);

	if (f && fclose(f))
		e = 1;
	return e ? -1 : 0;
}

/* The data decoded from memory and through windows of several steps: 0 when all agree. */
static int compare(const void *buf, size_t len, int is_rec, int crc, char *first, size_t flen)
{
	static const size_t steps[] = {1, 7, 300, 4096, 1 << 20};
	struct tr want = {0};
	const char *path = tmp("input");
	int bad = 0;

	if (write_file(path, buf, len) < 0) {
		snprintf(first, flen, "cannot write %s", path);
		return 1;
	}
	if (is_rec)
		run_rec(&want, buf, len, NULL, 0, crc);
	else
		run_ps(&want, buf, len, NULL, 0);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct tr got = {0};

		if (is_rec)
			run_rec(&got, buf, len, path, steps[i], crc);
		else
			run_ps(&got, buf, len, path, steps[i]);
		if (got.n != want.n || memcmp(got.s, want.s, want.n) != 0) {
			size_t k = 0;

			while (k < got.n && k < want.n && got.s[k] == want.s[k])
				k++;
			if (!bad++)
				snprintf(first, flen,
					 "step %zu differs at byte %zu: '%.60s' vs '%.60s'",
					 steps[i], k, got.s + k, want.s + k);
		}
		free(got.s);
	}
	free(want.s);
	return bad;
}

static void test_corpus(void)
{
	const char *dir = tap_data("../fuzz/corpus");
	/* (tests/data/../fuzz/corpus: the corpus the fuzz targets start from) */
	DIR *dp = opendir(dir);
	struct dirent *de;
	int nrec = 0, nps = 0, bad = 0;
	char first[400] = "", path[4096];

	ok(dp != NULL, "the fuzz corpus is there");
	if (!dp)
		return;
	while ((de = readdir(dp))) {
		int is_rec = strncmp(de->d_name, "rec", 3) == 0;
		char *buf = NULL, err[KT_ERRLEN];
		size_t len = 0;

		if (!is_rec && strncmp(de->d_name, "perfscript", 10) != 0 &&
		    strncmp(de->d_name, "ps-", 3) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (kt_read_file(path, 64 << 20, &buf, &len, err, sizeof(err)) < 0)
			continue;
		for (int crc = is_rec ? 0 : 1; crc < 2; crc++) {
			char one[300];

			if (compare(buf, len, is_rec, crc, one, sizeof(one)) && !bad++)
				snprintf(first, sizeof(first), "%.80s: %s", de->d_name, one);
		}
		nrec += is_rec;
		nps += !is_rec;
		free(buf);
	}
	closedir(dp);
	ok(nrec > 100 && nps > 100, "corpus: recordings and perf script texts found");
	is_int(bad, 0, "every corpus input decodes the same from memory and through windows");
	if (bad)
		printf("# first: %s\n", first);
}

/* A recording with the symbol context and TEXT blocks between the samples. */
static void test_texts(void)
{
	struct kt_source_info in;
	struct kt_recorder *rec;
	struct synth g;
	char err[KT_ERRLEN] = "", *buf = NULL, first[300] = "";
	uint8_t text[3000];
	size_t len = 0;
	int e, ntext = 0;

	synth_info(&in, 1);
	e = kt_rec_open(tmp("t.ktrec"), &in, tap_data("replay/kallsyms"),
			tap_data("replay/modules"), &rec, err, sizeof(err));
	is_int(e, 0, "recording with texts opened");
	if (e < 0)
		return;
	synth_init(&g, 20000, 2000000000ull);
	while (synth_next(&g, 1)) {
		if (g.type == SY_SAMPLE) {
			kt_rec_sample(rec, &g.s);
			if (g.i % 2000 == 0) {
				for (size_t i = 0; i < sizeof(text); i++)
					text[i] = (uint8_t)(i * 7 + g.i);
				kt_rec_text(rec, 0xffffffff81000000ull + g.i, text,
					    100 + (size_t)ntext * 250);
				ntext++;
			}
		} else if (g.type == SY_COMM) {
			kt_rec_comm(rec, g.s.pid, g.s.tid, g.comm, g.t);
		}
	}
	is_int(kt_rec_close(rec, err, sizeof(err)), 0, "recording with texts closed");
	kt_read_file(tmp("t.ktrec"), 64 << 20, &buf, &len, err, sizeof(err));
	ok(len > 100000, "the recording is bigger than the windows");
	is_int(compare(buf, len, 1, 1, first, sizeof(first)), 0,
	       "texts, symbols and samples: the same through windows");
	if (first[0])
		printf("# %s\n", first);
	{
		struct kt_rrec d;
		struct kt_rwin w;
		int fd = open(tmp("input"), O_RDONLY | O_CLOEXEC);

		kt_rwin_file(&w, fd, len, 4096);
		e = kt_rrec_open_win(&d, &w, 1, err, sizeof(err));
		ok(e == 0 && d.info.ntexts == (size_t)ntext && d.info.kallsyms && d.info.modules &&
		       d.info.kallsyms[d.info.kallsyms_len] == 0,
		   "through a window: every text, and the symbol files as NUL-ended copies");
		ok(e == 0 && d.w.cap <= 4096, "the window gives back what the symbol blocks took");
		kt_rrec_close(&d);
		close(fd);
	}
	free(buf);
}

/* perf script text with a line over the limit, CRLF ends and no newline at the end. */
static void add_sample(struct tr *t, int i)
{
	add(t,
	    "cat 42/42 [001] 100.%06d: 1000000 cpu-clock: ffffffff81000%03x do_sys+0x1 "
	    "([kernel.kallsyms])\r\n\tffffffff81000100 f ([kernel.kallsyms])\n\n",
	    i, i);
}

static void test_long_line(void)
{
	struct tr t = {0};
	char first[300] = "";
	int bad;

	for (int i = 0; i < 300; i++)
		add_sample(&t, i);
	add(&t, "junk ");
	for (unsigned i = 0; i < KT_PSCRIPT_LINE_MAX / 16 + 10; i++)
		add(&t, "0123456789abcdef");
	add(&t, "\n");
	for (int i = 300; i < 400; i++)
		add_sample(&t, i);
	add(&t, "cat 42/42 [001] 200.000000: 1000000 cpu-clock: ffffffff81000fff x ([kernel])");
	bad = compare(t.s, t.n, 0, 1, first, sizeof(first));
	is_int(bad, 0, "a line over 1 MiB, CRLF, no final newline: the same through windows");
	if (bad)
		printf("# %s\n", first);
	{
		struct kt_pscript d;
		struct kt_rp_event ev;
		char err[KT_ERRLEN];
		uint64_t n = 0;

		ok(kt_pscript_open(&d, t.s, t.n, err, sizeof(err)) == 0 && d.nsamples == 401 &&
		       d.prescan_skipped == 1 && strstr(d.notice, "a line over"),
		   "the long line is one skipped line, named in the notice");
		while (kt_pscript_next(&d, &ev))
			n += ev.type == KT_EV_SAMPLE;
		is_int(n, 401, "every sample around it is read");
		is_int(d.skipped, 1, "and the line counted once");
		kt_pscript_close(&d);
	}
	free(t.s);
}

/* The file cut to half while the decoder reads it through a window. */
static void test_cut(void)
{
	char err[KT_ERRLEN] = "";
	const char *path = tmp("cut.ktrec");
	struct kt_rrec d;
	struct kt_rp_event ev;
	struct kt_rwin w;
	uint64_t n = 0, total = 60000;
	struct stat st;
	int fd, e;

	e = synth_write(path, total, 2000000000ull, 1, NULL, NULL, 500, err, sizeof(err));
	is_int(e, 0, "a recording to cut");
	fd = open(path, O_RDWR | O_CLOEXEC);
	fstat(fd, &st);
	kt_rwin_file(&w, fd, (size_t)st.st_size, 8192);
	e = kt_rrec_open_win(&d, &w, 1, err, sizeof(err));
	is_int(e, 0, "opened through a window");
	while (n < 1000 && kt_rrec_next(&d, &ev))
		n += ev.type == KT_EV_SAMPLE;
	ok(ftruncate(fd, st.st_size / 2) == 0, "the file is cut to half while read");
	while (kt_rrec_next(&d, &ev))
		n += ev.type == KT_EV_SAMPLE;
	ok(n > 1000 && n < total, "the replay ends at the cut (some samples, not all)");
	ok(strstr(d.notice, "truncated") != NULL && d.skipped >= 1,
	   "a notice says where the data ended");
	printf("# %llu samples; %s\n", (unsigned long long)n, d.notice);
	kt_rrec_close(&d);
	close(fd);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_corpus();
	test_texts();
	test_long_line();
	test_cut();
	if (!getenv("KEEP_TMP")) {
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd) != 0)
			perror("rm");
	}
	return tap_done();
}
