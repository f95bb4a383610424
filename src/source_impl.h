/* Internal contract of the source layer: the ops table behind struct kt_source, and the
 * recording writer the --record decorator calls. Shared by source.c (dispatch), source_perf.c
 * (live), source_rec.c (--record around any source) and source_record.c / source_replay.c
 * (recordings, perf script). */
#ifndef KERNTOP_SOURCE_IMPL_H
#define KERNTOP_SOURCE_IMPL_H

#include "kerntop/source.h"

struct kt_source;

/* A source asks the loop to wake at least this often (live: to drain the rings; a ring's
 * half-full wakeup watermark is the backstop) and, replaying at a pace, at most this often
 * while samples are due: the loop's work per wake is what it is live. Sample delivery lags
 * by at most this much; the loop reads the source again before each refresh. */
#define KT_SOURCE_DRAIN_MS 100

struct kt_source_ops {
	const char *name;
	void (*free)(struct kt_source *s);
	int (*pollfds)(struct kt_source *s, struct pollfd *fds, int max);
	int (*read)(struct kt_source *s, const struct kt_sink *sink, int *timeout_ms, char *err,
		    size_t errlen);
	uint64_t (*now)(const struct kt_source *s);
	int (*refresh)(struct kt_source *s, char *msg, size_t msglen);
	/* Records a /proc figures snapshot (the --record decorator); NULL: nothing to do. */
	int (*procstat)(struct kt_source *s, const struct kt_ps_snap *snap);
	/* The --record decorator's: a function's text into the recording, whether it records,
	 * and the end of the recording (kt_source_finish). NULL: not recording. */
	int (*text)(struct kt_source *s, uint64_t addr, const void *bytes, size_t len);
	int (*recording)(const struct kt_source *s);
	int (*finish)(struct kt_source *s, char *err, size_t errlen);
	/* Stops sampling; what was not read yet is never delivered (the live rings). NULL:
	 * nothing to stop. */
	void (*stop)(struct kt_source *s);
};

/* Every source starts with this header; implementations embed it as their first member. */
struct kt_source {
	const struct kt_source_ops *ops;
	struct kt_source_info info;
	struct kt_source_stats stats;
	char notice[512];
};

/* Opens a live perf source (source_perf.c). */
/* Appends msg to a notice in dst (len bytes), "; " between two (source.c). */
void kt_source_add_notice(char *dst, size_t len, const char *msg);

int kt_source_perf_open(const struct kt_source_opts *o, struct kt_source **out, char *err,
			size_t errlen);
/* Opens a replay of a kerntop recording or `perf script` text (source_replay.c). */
int kt_source_replay_open(const struct kt_source_opts *o, struct kt_source **out, char *err,
			  size_t errlen);
/* --record (source_rec.c): wraps in (taken over, freed on failure too) in a source that hands
 * every event to the caller's sink and then writes it to the recording o->record. */
int kt_source_rec_wrap(struct kt_source *in, const struct kt_source_opts *o,
		       struct kt_source **out, char *err, size_t errlen);

/* Recording writer (source_record.c): a versioned, checksummed block file, see
 * docs/recording-format.md. Samples are buffered into blocks; a crash leaves a file readable
 * up to the last complete block. */
struct kt_recorder;

/* Creates path (O_EXCL, 0600) and writes the header and the symbol context (the text of
 * kallsyms_path and modules_path, either may be NULL to omit it). */
int kt_rec_open(const char *path, const struct kt_source_info *info, const char *kallsyms_path,
		const char *modules_path, struct kt_recorder **out, char *err, size_t errlen);
/* The same, creating (and on failure removing) the file as user uid, group gid (uid <= 0: as
 * the process), while the symbol context is still read with the process's rights. */
int kt_rec_open_as(const char *path, const struct kt_source_info *info, const char *kallsyms_path,
		   const char *modules_path, long uid, long gid, struct kt_recorder **out,
		   char *err, size_t errlen);
/* kt_rec_open writing format version 1 (call chains whole) for kerntops before version 2:
 * bench/bench_bigmachine -1 makes the recordings the bench's earlier build replays. */
int kt_rec_open_v1(const char *path, const struct kt_source_info *info, const char *kallsyms_path,
		   const char *modules_path, struct kt_recorder **out, char *err, size_t errlen);
int kt_rec_sample(struct kt_recorder *r, const struct kt_sample *s);
int kt_rec_comm(struct kt_recorder *r, int32_t pid, int32_t tid, const char *comm, uint64_t t);
int kt_rec_lost(struct kt_recorder *r, uint32_t cpu, uint64_t count, uint64_t t);
int kt_rec_throttle(struct kt_recorder *r, uint32_t cpu, int throttled, uint64_t t);
/* One /proc figures snapshot as its own PROCSTAT block (written at once, after the records
 * before it). IRQ lines that would take the block past KT_REC_BLK_MAX are left out. */
int kt_rec_procstat(struct kt_recorder *r, const struct kt_ps_snap *s);
/* Writes one function's text bytes as a TEXT block (after the records so far). 0 or -errno. */
int kt_rec_text(struct kt_recorder *r, uint64_t addr, const void *bytes, size_t len);
/* Flushes the current block (called on each refresh so a crash loses at most one tick). */
int kt_rec_flush(struct kt_recorder *r, char *err, size_t errlen);
/* Flushes, writes the end marker, closes. Safe with NULL. Returns 0 or -errno (ENOSPC...). */
int kt_rec_close(struct kt_recorder *r, char *err, size_t errlen);

#endif
