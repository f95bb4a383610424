/* Internal to the replay half of the source layer: the recording format constants, CRC32 and
 * varints shared by the writer (source_record.c) and the readers, and the two decoders
 * (kerntop recordings, `perf script` text). Decoders work on a memory buffer so that the
 * replay source (an mmap'd file) and the fuzz targets (a fuzzer's buffer) share them. */
#ifndef KERNTOP_SOURCE_REPLAY_IMPL_H
#define KERNTOP_SOURCE_REPLAY_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "kerntop/procstat.h"
#include "kerntop/sample.h"
#include "kerntop/source.h"

/* Recording format, see docs/recording-format.md. All integers little-endian. */
#define KT_REC_MAGIC "KTREC\r\n\032"
#define KT_REC_MAGIC_LEN 8
#define KT_REC_VERSION 2 /* 2: call chains by id (KT_RS_CHAIN); 1 is written without -g */
#define KT_REC_HDR_FIXED 54 /* bytes before the event name */
#define KT_REC_HDR_MAX (1u << 20)
#define KT_REC_BLK_HDR 16	     /* type, len, nrec, crc */
#define KT_REC_BLK_MAX (1u << 20)    /* largest event block a reader accepts */
#define KT_REC_SYMS_MAX (256u << 20) /* largest symbol-context block */
#define KT_REC_MAX_CPU 8192 /* more CPUs than any kernel config: anything above is corrupt */
#define KT_REC_EVENT_MAX 63
#define KT_REC_TEXT_MAX (256u << 10) /* text bytes of one TEXT record (one function) */

enum {
	KT_REC_F_CALLCHAIN = 1u << 0,
	KT_REC_F_USER = 1u << 1,
};

enum {
	KT_BLK_KALLSYMS = 1,
	KT_BLK_MODULES = 2,
	KT_BLK_SAMPLES = 3,
	KT_BLK_COMM = 4,
	KT_BLK_LOST = 5,
	KT_BLK_THROTTLE = 6,
	KT_BLK_PROCSTAT = 7, /* one /proc figures snapshot (issue 13) */
	KT_BLK_TEXT = 8,     /* one function's text bytes: u64 addr, then the bytes (annotate) */
	KT_BLK_END = 16,
};

/* First byte of a sample record. */
enum {
	KT_RS_USER = 1u << 0,	     /* KT_SAMPLE_USER */
	KT_RS_SAME_PERIOD = 1u << 1, /* period as the previous sample of the block */
	KT_RS_PID_IS_TID = 1u << 2,
	KT_RS_FRAMES = 1u << 3, /* a frame count and frames follow */
	KT_RS_SAME_CPU = 1u << 4,
	KT_RS_XFLAGS = 1u << 5, /* other sample flags follow as a varint */
	/* version 2: with KT_RS_FRAMES, the chain's callers (the frames after the first) are
	 * also defined as the id that follows the frames; without, the first frame (a delta
	 * from the ip) and the id of callers defined before replace the count and frames */
	KT_RS_CHAIN = 1u << 6,
	KT_RS_KNOWN_V1 = 0x3f,
	KT_RS_KNOWN = 0x7f,
};

/* Call chains by id (version 2, source_rec_chains.c). A reference names one of the last
 * KT_REC_CHAIN_IDS chains defined, whose frames are among the last KT_REC_CHAIN_FRAMES frames
 * defined: the writer starts a new set of ids (an epoch) before either would be passed, and
 * the reader keeps exactly that much, so its memory is bounded whatever the file holds. */
#define KT_REC_CHAIN_IDS (1u << 15)
#define KT_REC_CHAIN_FRAMES (1u << 20)
/* The writer also starts an epoch after this many bytes of file, so that a damaged block's
 * definitions cost the samples that name them up to there at most (a writer's choice, not a
 * rule of the format: 17 % more bytes in the bench's 256-CPU recording with chains). */
#define KT_REC_CHAIN_EPOCH_BYTES (16u << 20)

/* The writer's chains of the current epoch: frames -> id. */
struct kt_wchains {
	uint64_t base;	   /* id of the epoch's first chain */
	uint32_t n, nf;	   /* chains and frames defined in this epoch */
	uint32_t *slot;	   /* hash table of 2 x KT_REC_CHAIN_IDS: chain index + 1, 0 empty */
	uint32_t *off;	   /* KT_REC_CHAIN_IDS: a chain's first frame in frames */
	uint16_t *len;	   /* KT_REC_CHAIN_IDS: its frame count */
	uint64_t *frames;  /* KT_REC_CHAIN_FRAMES */
	int failed;	   /* an allocation failed: chains are written whole from then on */
};

/* The id of frames[0, n): 1 and *id when the chain was defined in this epoch, 0 and the id it
 * is now defined as when it is new, -1 when it cannot be given one (no memory: write it whole,
 * without an id). */
int kt_wchains_id(struct kt_wchains *c, const uint64_t *frames, uint32_t n, uint64_t *id);
/* Forgets the epoch's chains: the next ones are defined again, with new ids. */
void kt_wchains_epoch(struct kt_wchains *c);
void kt_wchains_free(struct kt_wchains *c);

/* The reader's last chains: a ring of ids and a ring of 32-bit words holding their frames,
 * one word a frame when the chain's frames share their upper half (kernel text, modules:
 * nearly always), else two: half the cache lines a reference reads, and at most 2 words for
 * each of the 2^20 frames a reference may reach back. */
#define KT_RCHAIN_WORDS (2 * KT_REC_CHAIN_FRAMES)

struct kt_rchains {
	struct kt_rchain {
		uint64_t id, start; /* id + 1 (0: never defined); its first word's position */
		uint32_t n, hi;	    /* frames, and their upper half when compact */
	} *ring;		    /* KT_REC_CHAIN_IDS, by id modulo */
	uint32_t *words;	    /* KT_RCHAIN_WORDS, by position modulo */
	uint64_t pos;		    /* words written so far (the next one's position) */
	uint64_t last;		    /* id + 1 of the last chain defined, 0 before the first */
	int failed; /* allocation failed: no chain is kept (references are unresolved) */
};

/* Fetches chain id's ring entry (stage 0), or, once it has come, its first frames (1). */
void kt_rchains_prefetch(const struct kt_rchains *c, uint64_t id, int stage);
/* Keeps frames[0, n) as id. -1 when id does not follow the last one defined (a corrupt
 * record), else 0 (also when memory is short: the chain is then not kept). */
int kt_rchains_define(struct kt_rchains *c, uint64_t id, const uint64_t *frames, uint32_t n);
/* Copies the frames of chain id to out (room for KT_MAX_STACK - 1) and returns their count, or
 * -1 when it is not (or no longer) kept: a damaged block held its definition, or the file is
 * corrupt. */
int kt_rchains_get(const struct kt_rchains *c, uint64_t id, uint64_t *out);
void kt_rchains_free(struct kt_rchains *c);

uint32_t kt_crc32(uint32_t crc, const void *buf, size_t len);

static inline void kt_put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void kt_put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void kt_put_u64(uint8_t *p, uint64_t v)
{
	kt_put_u32(p, (uint32_t)v);
	kt_put_u32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t kt_get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t kt_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t kt_get_u64(const uint8_t *p)
{
	return (uint64_t)kt_get_u32(p) | (uint64_t)kt_get_u32(p + 4) << 32;
}

static inline uint8_t *kt_put_var(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint64_t kt_zig(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t kt_unzig(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Reads a varint; returns NULL when it runs past end or is longer than 10 bytes. */
static inline const uint8_t *kt_get_var(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;

	while (p < end && shift < 64) {
		uint8_t b = *p++;

		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return p;
		}
		shift += 7;
	}
	return NULL;
}

/* The bytes a decoder reads: a buffer holding all of them (the fuzz targets, a pipe read whole),
 * or a regular file read through a window that slides forward, so that replaying a file of any
 * size keeps a few MiB of it in memory (source_replay_win.c). */
struct kt_rwin {
	const uint8_t *buf; /* bytes [base, base + have) of the data */
	size_t base, have;
	size_t len;	  /* the data's length: a file's size at open, less once found cut */
	int fd;		  /* -1: buf holds all the data */
	int err;	  /* errno of a failed read (the data then ends there) */
	uint8_t *own;	  /* the window's memory (file mode) */
	size_t cap, step; /* its size, and the least a refill reads */
};

void kt_rwin_mem(struct kt_rwin *w, const void *buf, size_t len);
/* A window over fd (not owned), whose size is size; step: the least one refill reads. */
void kt_rwin_file(struct kt_rwin *w, int fd, size_t size, size_t step);
/* Frees a file window's memory (the next read refills it); nothing for a buffer. */
void kt_rwin_free(struct kt_rwin *w);
/* Frees it only when a long read grew it past its step; else it is kept for the next reads
 * (its first fill faulted in every page: 256 for the 1 MiB step, a thousand and 11 ms on a
 * VM for the 4 MiB it was). */
void kt_rwin_shrink(struct kt_rwin *w);
/* Copies bytes [pos, pos + n) to out without moving the window. 0, or -1 past the end. */
int kt_rwin_copy(struct kt_rwin *w, size_t pos, void *out, size_t n);
const uint8_t *kt_rwin_fill(struct kt_rwin *w, size_t pos, size_t n);

/* Bytes [pos, pos + n) of the data, valid until the next call (of either function); NULL when
 * they pass its end (a file read shorter than its size shortens len: the data ends there). */
static inline const uint8_t *kt_rwin_at(struct kt_rwin *w, size_t pos, size_t n)
{
	if (pos >= w->base && n <= w->have && pos - w->base <= w->have - n)
		return w->buf + (pos - w->base);
	return kt_rwin_fill(w, pos, n);
}

/* The window's bytes from pos (which it holds) to its end. */
static inline size_t kt_rwin_held(const struct kt_rwin *w, size_t pos)
{
	return w->base + w->have - pos;
}

/* One decoded event, valid until the next call of the decoder. */
enum { KT_EV_NONE, KT_EV_SAMPLE, KT_EV_COMM, KT_EV_LOST, KT_EV_THROTTLE, KT_EV_PROCSTAT };

struct kt_rp_event {
	int type;
	uint64_t time_ns;
	struct kt_sample s; /* KT_EV_SAMPLE; s.frames points into the decoder */
	int32_t pid, tid;   /* KT_EV_COMM */
	const char *comm;
	uint32_t cpu; /* KT_EV_LOST, KT_EV_THROTTLE */
	uint64_t count;
	int throttled;
	const struct kt_ps_snap *ps; /* KT_EV_PROCSTAT, owned by the decoder */
};

/* What a decoder learned about the source from the file. */
struct kt_rp_info {
	char event[KT_REC_EVENT_MAX + 1];
	uint64_t freq_hz, period;
	uint32_t ncpus, max_cpu;
	uint32_t *cpus; /* malloc'd, owned by the decoder */
	int callchain, user;
	const char *kallsyms, *modules; /* NUL-terminated copies owned by the decoder, or NULL */
	size_t kallsyms_len, modules_len;
	struct kt_source_text *texts; /* TEXT blocks (bytes copied, owned by the decoder) */
	size_t ntexts, captexts;
};

/* Kerntop recording decoder (source_replay_rec.c). */
/* A sample decoded ahead of its delivery (kt_rrec_next), with its chain's reference to resolve. */
#define KT_RREC_AHEAD 8
struct kt_rrec_ref {
	uint64_t id, leaf; /* ref: the callers' id, and the leaf's frame */
	int ref;
};
struct kt_rrec_ahead {
	struct kt_sample s;
	struct kt_rrec_ref r;
};

struct kt_rrec {
	struct kt_rwin w;	/* the data (the decoder frees a file window, not its fd) */
	size_t pos;		/* next block header */
	const uint8_t *p, *end; /* records of the current block */
	uint32_t type;
	int check_crc;
	int done;
	uint64_t t, ip, period; /* delta state, reset per block */
	uint32_t cpu;
	uint64_t samples, end_samples;
	int have_end;
	uint64_t skipped;      /* every skip below, and a stop, counted once each */
	uint64_t damaged;      /* event blocks with a bad checksum skipped */
	size_t first_damaged;  /* byte offset of the first of them */
	uint64_t damaged_recs; /* their record counts (as their headers say) */
	uint64_t bad_records, bad_cpu, unknown_blocks;
	uint64_t lost_chains;	/* samples whose chain's definition was not read (skipped) */
	uint32_t version;
	struct kt_rchains chains;
	struct kt_rrec_ahead q[KT_RREC_AHEAD]; /* decoded, not yet delivered: from q[qhead] */
	uint32_t qhead, qn;
	int syms_bad;	    /* bit 0: kallsyms block damaged, bit 1: modules block */
	char syms[240];	    /* what replaces them (the notice at open) */
	char stop[240];	    /* why the replay stopped before the end of the data */
	char rerr[80];	    /* a failed read, told in stop */
	char *syms_copy[2]; /* kallsyms and modules payloads (info points to them) */
	char notice[512];
	char comm[256];
	struct kt_rp_info info;
	uint64_t frames[KT_MAX_STACK];
	struct kt_ps_snap *ps; /* PROCSTAT records decode into it (allocated at the first) */
	uint64_t procstat;     /* PROCSTAT records delivered */
};

int kt_rrec_is_recording(const void *buf, size_t len);
/* Parses the header and the symbol-context blocks. Returns 0 or -errno with a message. The
 * symbol blocks and the TEXT blocks are copied (info points to the copies): the data need not
 * outlive the open. */
int kt_rrec_open(struct kt_rrec *d, const void *buf, size_t len, int check_crc, char *err,
		 size_t errlen);
/* The same over a window the decoder takes (kt_rwin_file). */
int kt_rrec_open_win(struct kt_rrec *d, const struct kt_rwin *w, int check_crc, char *err,
		     size_t errlen);
/* Next event: 1, or 0 at the end (an end marker, the end of the data, or a torn block or a
 * damaged length, which is counted in skipped). A block with a bad checksum whose length
 * still leads to a good block (or to the end of the data) is skipped, counted, and the
 * replay goes on. At the end, notice sums up what was lost ("" for a clean recording). */
int kt_rrec_next(struct kt_rrec *d, struct kt_rp_event *ev);
void kt_rrec_close(struct kt_rrec *d);

/* `perf script` text decoder (source_perfscript.c). */
struct kt_pscript_comm;

/* A line longer than this is skipped as garbage (perf prints a few hundred bytes). */
#define KT_PSCRIPT_LINE_MAX (1u << 20)

struct kt_pscript {
	struct kt_rwin w;
	size_t pos;
	uint64_t nsamples, first_t, last_t;
	uint64_t skipped, prescan_skipped;
	char first_bad[61]; /* first skipped line, quoted in the notice */
	int have_pending;
	struct kt_rp_event pending;
	struct kt_pscript_comm *comms;
	uint32_t comm_cap, comm_n;
	char comm[64];
	char notice[256];
	struct kt_rp_info info;
	uint64_t frames[KT_MAX_STACK];
};

/* Scans the whole text once (CPUs, samples, time span), fails with a message when it is empty
 * or has no sample line. Returns 0 or -errno. */
int kt_pscript_open(struct kt_pscript *d, const char *buf, size_t len, char *err, size_t errlen);
/* The same over a window the decoder takes (kt_rwin_file): the text is read twice. */
int kt_pscript_open_win(struct kt_pscript *d, const struct kt_rwin *w, char *err, size_t errlen);
/* Next event: 1, or 0 at the end. Garbage lines are counted in skipped. */
int kt_pscript_next(struct kt_pscript *d, struct kt_rp_event *ev);
void kt_pscript_close(struct kt_pscript *d);

#endif
