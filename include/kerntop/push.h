/* Push: sends pprof profiles to a Pyroscope-compatible server (POST URL/ingest) off the
 * sampling path. kt_push is the transport: a worker thread, a bounded queue, retries with
 * backoff, the oldest profile dropped when the queue is full; it knows bytes and counters
 * only (util.h, libcurl, pthreads). kt_push_feed wraps the sample sink: it counts every
 * sample into a window of its own and cuts one profile per --push-interval of the source
 * clock (report.h's pprof writer). Neither prints. docs/fleet.md describes both. */
#ifndef KERNTOP_PUSH_H
#define KERNTOP_PUSH_H

#include <stddef.h>
#include <stdint.h>

struct kt_push;

struct kt_push_opts {
	const char *url;	   /* server base URL: URL/ingest is posted */
	const char *name;	   /* application name */
	const char *const *labels; /* "key=value" series labels, in order */
	unsigned nlabels;
	const char *header_file; /* "Name: value" lines, or NULL */
	uint32_t queue;		 /* profiles kept while the server lags (0: 8) */
	double timeout_s;	 /* one attempt (0: 10) */
	uint32_t attempts;	 /* per profile before it is dropped (0: 4) */
	double backoff_s;	 /* first retry delay, doubled per retry (0: 1) */
};

struct kt_push_stats {
	uint64_t sent;	       /* profiles the server accepted (2xx) */
	uint64_t failed;       /* attempts that failed (connection, timeout, HTTP status) */
	uint64_t dropped;      /* profiles given up: queue full, attempts used up, refused */
	uint64_t bytes;	       /* bytes of the profiles sent */
	uint32_t queued;       /* profiles waiting now */
	uint64_t queued_bytes; /* and their bytes: the queue's memory */
	uint64_t send_cpu_ns;  /* CPU time of the worker thread (HTTP, TLS) */
	uint64_t build_cpu_ns; /* CPU time of the loop building and compressing profiles */
	char last_error[200];  /* the last failure, "" when none yet */
};

/* Reads the header file, checks the URL and starts the worker. 0, or -errno with a message
 * naming the file or option and the fix. */
int kt_push_new(const struct kt_push_opts *o, struct kt_push **out, char *err, size_t errlen);
/* Queues one profile body (a gzip pprof; ownership of the malloc'd body is taken) covering
 * [from_ns, until_ns) Unix time. Never blocks on the network; with a full queue the oldest
 * waiting profile is dropped. */
void kt_push_send(struct kt_push *p, uint8_t *body, size_t len, uint64_t from_ns,
		  uint64_t until_ns);
void kt_push_stats(struct kt_push *p, struct kt_push_stats *st);
/* Stops the worker: the queue gets up to grace_s to drain, then a transfer in progress is
 * aborted and what is left is counted dropped. The counters stay readable. NULL-safe. */
void kt_push_finish(struct kt_push *p, double grace_s);
/* kt_push_finish(p, 0) if not done, then frees. NULL-safe. */
void kt_push_free(struct kt_push *p);

/* The interval feed: main.c calls it beside the window on every sample and tick. */
struct kt_push_feed;
struct kt_window;
struct kt_symbols;

struct kt_push_feed_opts {
	double interval_s;	       /* profile length on the source clock */
	double period_ns;	       /* CPU ns one hit stands for */
	unsigned labels;	       /* KT_PPROF_* sample labels */
	const struct kt_window *names; /* the main window: command names of tasks */
	uint64_t start_ns;	       /* source clock at start */
	uint64_t unix_start_ns;	       /* wall clock at start_ns */
};

/* Takes ownership of push. 0 or -errno with a message. */
int kt_push_feed_new(const struct kt_push_feed_opts *o, struct kt_symbols *s, struct kt_push *push,
		     struct kt_push_feed **out, char *err, size_t errlen);
/* One sample (locations as the window takes them, ctx its execution context id); cuts the
 * interval first when time_ns is past it. */
void kt_push_feed_sample(struct kt_push_feed *f, uint64_t time_ns, uint32_t loc,
			 const uint32_t *locs, uint32_t nlocs, uint32_t cpu, int32_t pid,
			 int32_t tid, uint32_t ctx);
void kt_push_feed_comm(struct kt_push_feed *f, int32_t pid, int32_t tid, const char *comm);
/* The refresh tick: cuts the interval when now_ns is past it. */
void kt_push_feed_tick(struct kt_push_feed *f, uint64_t now_ns);
/* The end: the partial interval up to now_ns is sent, then the queue gets grace_s. */
void kt_push_feed_finish(struct kt_push_feed *f, uint64_t now_ns, double grace_s);
/* Counters, plus samples counted and profiles cut (whether sent or not). */
void kt_push_feed_stats(struct kt_push_feed *f, struct kt_push_stats *st, uint64_t *samples,
			uint64_t *profiles);
void kt_push_feed_free(struct kt_push_feed *f);

#endif
