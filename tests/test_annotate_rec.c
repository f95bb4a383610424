/* Recordings keep annotate: TEXT blocks (type 8) written by kt_rec_text next to samples and
 * the symbol context, read back by the replay as kt_source_info.texts; a damaged TEXT block is
 * left out (counted as skipped), and the samples still replay.
 *
 * With arguments it writes a recording for tests/test_annotate.sh:
 *   test_annotate_rec OUT KALLSYMS TEXTFILE TEXT_ADDR ADDR:N[,ADDR:N...]
 * (TEXTFILE's bytes as the text at TEXT_ADDR, N samples at each hex ADDR). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kerntop/source.h"
#include "kerntop/util.h"
#include "source_impl.h"
#include "source_replay_impl.h"
#include "tap.h"
#include "test_replay_synth.h"

static int write_rec(const char *path, const char *kallsyms, const uint8_t *text, size_t tlen,
		     uint64_t taddr, const char *spec, char *err, size_t errlen)
{
	struct kt_source_info in;
	struct kt_recorder *rec;
	struct kt_sample smp = {.period = 1003009, .pid = 7, .tid = 7, .cpu = 0};
	uint64_t t = 1000000;
	const char *p = spec;
	int e;

	synth_info(&in, 0);
	in.user = 0;
	e = kt_rec_open(path, &in, kallsyms, NULL, &rec, err, errlen);
	if (e)
		return e;
	while (p && *p) {
		char *end;
		uint64_t a = strtoull(p, &end, 16), n = 0;

		if (*end == ':')
			n = strtoull(end + 1, &end, 10);
		for (uint64_t i = 0; i < n; i++) {
			smp.ip = a;
			smp.time_ns = t += 1000000;
			kt_rec_sample(rec, &smp);
		}
		p = *end == ',' ? end + 1 : NULL;
	}
	e = kt_rec_text(rec, taddr, text, tlen);
	if (e)
		return e;
	return kt_rec_close(rec, err, errlen);
}

static struct kt_source *open_rec(const char *path, char *err, size_t errlen)
{
	struct kt_source_opts o = {.replay = path, .speed = 0};
	struct kt_source *s = NULL;

	if (kt_source_replay_open(&o, &s, err, errlen) < 0)
		return NULL;
	return s;
}

static void count(void *ctx, const struct kt_sample *s)
{
	(*(uint64_t *)ctx)++;
}

static uint64_t drain(struct kt_source *s)
{
	uint64_t n = 0;
	struct kt_sink k = {.ctx = &n, .sample = count};
	char err[KT_ERRLEN];
	int to, r;

	while ((r = kt_source_read(s, &k, &to, err, sizeof(err))) == 0)
		;
	return n;
}

static void roundtrip(void)
{
	char path[] = "/tmp/kt-annot-rec.XXXXXX", err[KT_ERRLEN];
	uint8_t text[300];
	const struct kt_source_info *in;
	struct kt_source *s;
	FILE *f;
	long off;
	int fd = mkstemp(path);

	close(fd);
	unlink(path);
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (uint8_t)(i * 7 + 1);
	is_int(write_rec(path, NULL, text, sizeof(text), 0xffffffff81000100ull,
			 "ffffffff81000104:3,ffffffff81000110:2", err, sizeof(err)),
	       0, "a recording with 5 samples and one TEXT block");
	s = open_rec(path, err, sizeof(err));
	ok(s != NULL, "it replays");
	if (!s)
		return;
	in = kt_source_info(s);
	is_int(in->ntexts, 1, "one text");
	if (in->ntexts == 1) {
		is_int(in->texts[0].addr == 0xffffffff81000100ull, 1, "at its address");
		is_int(in->texts[0].len, sizeof(text), "with its length");
		ok(!memcmp(in->texts[0].bytes, text, sizeof(text)), "and the same bytes");
	}
	is_int(drain(s), 5, "every sample is delivered");
	is_int(s->stats.skipped, 0, "the TEXT block is not counted as skipped");
	kt_source_free(s);

	/* one byte of the text flipped: the block's checksum fails */
	f = fopen(path, "r+b");
	ok(f != NULL, "reopen the file");
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	off = ftell(f) - 40; /* inside the text: the END block is 16 + 4 varints after it */
	fseek(f, off, SEEK_SET);
	{
		int c = fgetc(f);

		fseek(f, off, SEEK_SET);
		fputc(c ^ 0xff, f);
	}
	fclose(f);
	s = open_rec(path, err, sizeof(err));
	ok(s != NULL, "a damaged TEXT block: still replays");
	if (!s)
		return;
	in = kt_source_info(s);
	is_int(in->ntexts, 0, "the damaged text is left out");
	is_int(drain(s), 5, "every sample is still delivered");
	is_int(s->stats.skipped, 1, "and the damaged block is counted as skipped");
	kt_source_free(s);
	unlink(path);
}

int main(int argc, char **argv)
{
	char err[KT_ERRLEN], *buf = NULL;
	size_t len;

	if (argc == 6) {
		if (kt_read_file(argv[3], 1u << 20, &buf, &len, err, sizeof(err)) < 0 ||
		    write_rec(argv[1], argv[2], (const uint8_t *)buf, len,
			      strtoull(argv[4], NULL, 16), argv[5], err, sizeof(err)) < 0) {
			fprintf(stderr, "test_annotate_rec: %s\n", err);
			return 1;
		}
		free(buf);
		return 0;
	}
	roundtrip();
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
