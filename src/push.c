/* The push worker: one thread that posts queued pprof profiles to URL/ingest (Grafana
 * Pyroscope's ingest API) through a libcurl multi handle, so that stopping can interrupt a
 * transfer at once (curl_multi_wakeup) instead of waiting out a hung server. The sampling
 * loop only ever takes the mutex to append to the bounded queue or read the counters. */
#include "config.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kerntop/push.h"
#include "kerntop/util.h"

/* libcurl is loaded by the first kt_push_new (kt_dl_open), not at start: with its TLS and
 * authentication libraries it is most of what a viewer that never pushes would map. The
 * SONAME has been libcurl.so.4 since 2006 (curl 7.16). */
#define KT_CURL_SONAME "libcurl.so.4"

static struct {
	int loaded;
	void (*easy_cleanup)(CURL *curl);
	char *(*easy_escape)(CURL *handle, const char *string, int length);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	const char *(*easy_strerror)(CURLcode code);
	void (*free)(void *p);
	void (*global_cleanup)(void);
	CURLcode (*global_init)(long flags);
	CURLMcode (*multi_add_handle)(CURLM *multi, CURL *curl);
	CURLMcode (*multi_cleanup)(CURLM *multi);
	CURLMsg *(*multi_info_read)(CURLM *multi, int *msgs_in_queue);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_perform)(CURLM *multi, int *running);
	CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_nfds, int timeout_ms, int *ret);
	CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *curl);
	CURLMcode (*multi_wakeup)(CURLM *multi);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *data);
	void (*slist_free_all)(struct curl_slist *list);
} cu;

static int curl_load(char *err, size_t errlen)
{
	static const char *const names[] = {
		"curl_easy_cleanup",
		"curl_easy_escape",
		"curl_easy_getinfo",
		"curl_easy_init",
		"curl_easy_setopt",
		"curl_easy_strerror",
		"curl_free",
		"curl_global_cleanup",
		"curl_global_init",
		"curl_multi_add_handle",
		"curl_multi_cleanup",
		"curl_multi_info_read",
		"curl_multi_init",
		"curl_multi_perform",
		"curl_multi_poll",
		"curl_multi_remove_handle",
		"curl_multi_wakeup",
		"curl_slist_append",
		"curl_slist_free_all",
	};
	void *const slots[] = {
		&cu.easy_cleanup,
		&cu.easy_escape,
		&cu.easy_getinfo,
		&cu.easy_init,
		&cu.easy_setopt,
		&cu.easy_strerror,
		&cu.free,
		&cu.global_cleanup,
		&cu.global_init,
		&cu.multi_add_handle,
		&cu.multi_cleanup,
		&cu.multi_info_read,
		&cu.multi_init,
		&cu.multi_perform,
		&cu.multi_poll,
		&cu.multi_remove_handle,
		&cu.multi_wakeup,
		&cu.slist_append,
		&cu.slist_free_all,
	};
	char why[256];
	void *h;

	if (cu.loaded) /* kt_push_new, on the loop thread, is its only caller */
		return 0;
	h = kt_dl_open(KT_CURL_SONAME, "libcurl (Debian: libcurl4)", why, sizeof(why));
	for (size_t i = 0; h && i < sizeof(names) / sizeof(names[0]); i++)
		if (kt_dl_fn(h, KT_CURL_SONAME, names[i], slots[i], why, sizeof(why)) < 0)
			h = NULL;
	if (!h) {
		snprintf(err, errlen, "push: %s", why);
		return -ENOSYS;
	}
	cu.loaded = 1;
	return 0;
}

#define HEADER_FILE_MAX 65536

struct item {
	uint8_t *body;
	size_t len;
	uint64_t from_ns, until_ns;
	uint32_t attempts;
};

struct kt_push {
	struct kt_push_opts o;
	char *base; /* URL up to and including "/ingest?name=NAME{labels}" (escaped) */
	struct curl_slist *headers;
	CURLM *multi;
	pthread_t thread;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;   /* queue, stop and abort changes */
	pthread_cond_t done; /* the worker went idle or ended */
	struct item *q;	     /* ring of o.queue items */
	uint32_t head, n;
	int inflight; /* q[head] is being sent */
	int stop;     /* drain, then end */
	int abort;    /* end now */
	int ended;
	struct kt_push_stats st;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void deadline_ts(double secs, struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += (time_t)secs;
	ts->tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void set_error(struct kt_push *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_error(struct kt_push *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->st.last_error, sizeof(p->st.last_error), fmt, ap);
	va_end(ap);
}

/* Drops the head item (sent, refused or out of attempts); called with the mutex held. */
static void pop(struct kt_push *p)
{
	free(p->q[p->head].body);
	p->q[p->head].body = NULL;
	p->head = (p->head + 1) % p->o.queue;
	p->n--;
}

static size_t discard(char *ptr, size_t size, size_t nmemb, void *ud)
{
	(void)ptr;
	(void)ud;
	return size * nmemb;
}

/* One POST of it; 0 when the server took it, 1 for a failure worth retrying, 2 for a
 * refusal that retrying will not change (4xx other than 408/429), -1 when aborted. The
 * message goes to msg. */
static int post(struct kt_push *p, const struct item *it, char *msg, size_t msglen)
{
	char url[4096];
	CURL *c = cu.easy_init();
	CURLMsg *m;
	long code = 0;
	int running = 1, left, r = 1;
	CURLcode res = CURLE_OK;

	if (!c) {
		snprintf(msg, msglen, "out of memory");
		return 1;
	}
	/* from rounds down, until up: the profile lies inside [from, until] */
	snprintf(url, sizeof(url), "%s&from=%llu&until=%llu&format=pprof&spyName=kerntop", p->base,
		 (unsigned long long)(it->from_ns / 1000000000ull),
		 (unsigned long long)((it->until_ns + 999999999ull) / 1000000000ull));
	cu.easy_setopt(c, CURLOPT_URL, url);
	cu.easy_setopt(c, CURLOPT_POST, 1L);
	cu.easy_setopt(c, CURLOPT_POSTFIELDS, (const char *)it->body);
	cu.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)it->len);
	cu.easy_setopt(c, CURLOPT_HTTPHEADER, p->headers);
	cu.easy_setopt(c, CURLOPT_USERAGENT, "kerntop/" PACKAGE_VERSION);
	cu.easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(p->o.timeout_s * 1000));
	cu.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(p->o.timeout_s * 1000));
	cu.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	cu.easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	/* TLS verification and the *_proxy environment are libcurl's defaults: kept */
	cu.multi_add_handle(p->multi, c);
	while (running) {
		int abort_now;

		if (cu.multi_perform(p->multi, &running) != CURLM_OK)
			break;
		if (!running)
			break;
		cu.multi_poll(p->multi, NULL, 0, 1000, NULL);
		pthread_mutex_lock(&p->mu);
		abort_now = p->abort;
		pthread_mutex_unlock(&p->mu);
		if (abort_now) {
			r = -1;
			break;
		}
	}
	while (r != -1 && (m = cu.multi_info_read(p->multi, &left)))
		if (m->msg == CURLMSG_DONE)
			res = m->data.result;
	cu.multi_remove_handle(p->multi, c);
	if (r == -1) {
		snprintf(msg, msglen, "stopped while sending");
	} else if (res != CURLE_OK) {
		snprintf(msg, msglen, "%s", cu.easy_strerror(res));
		r = 1;
	} else {
		cu.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (code >= 200 && code < 300) {
			r = 0;
		} else {
			snprintf(msg, msglen, "HTTP %ld from the server%s", code,
				 code == 401 || code == 403
				     ? ": check the credentials in --push-header-file"
				     : "");
			r = code >= 400 && code < 500 && code != 408 && code != 429 ? 2 : 1;
		}
	}
	cu.easy_cleanup(c);
	return r;
}

static void *worker(void *arg)
{
	struct kt_push *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct item it;
		char msg[sizeof(p->st.last_error)];
		uint64_t t0;
		int r;

		while (!p->n && !p->stop && !p->abort) {
			pthread_cond_broadcast(&p->done);
			pthread_cond_wait(&p->cv, &p->mu);
		}
		if (p->abort || (!p->n && p->stop))
			break;
		it = p->q[p->head];
		p->inflight = 1;
		pthread_mutex_unlock(&p->mu);
		t0 = thread_cpu_ns();
		r = post(p, &it, msg, sizeof(msg));
		t0 = thread_cpu_ns() - t0;
		pthread_mutex_lock(&p->mu);
		p->st.send_cpu_ns += t0;
		p->inflight = 0;
		if (r == -1)
			break;
		if (r == 0) {
			p->st.sent++;
			p->st.bytes += it.len;
			pop(p);
			continue;
		}
		p->st.failed++;
		set_error(p, "%s", msg);
		/* refused, out of attempts, or stopping: no more tries for this one */
		if (r == 2 || ++p->q[p->head].attempts >= p->o.attempts || p->stop) {
			p->st.dropped++;
			pop(p);
			continue;
		}
		/* back off before the retry; a stop or abort cuts the wait short */
		{
			struct timespec ts;
			double wait = p->o.backoff_s * (double)(1u << (p->q[p->head].attempts - 1));

			deadline_ts(wait, &ts);
			while (!p->abort && !p->stop &&
			       pthread_cond_timedwait(&p->cv, &p->mu, &ts) != ETIMEDOUT)
				;
		}
	}
	p->ended = 1;
	pthread_cond_broadcast(&p->done);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* "Name: value" lines of the header file into p->headers (blank lines and # comments
 * skipped). */
static int read_headers(struct kt_push *p, const char *path, char *err, size_t errlen)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len;
	int lineno = 0;

	if (kt_read_file(path, HEADER_FILE_MAX, &buf, &len, err, errlen) < 0) {
		char m[KT_ERRLEN];

		snprintf(m, sizeof(m), "%s", err);
		snprintf(err, errlen, "--push-header-file: %s", m);
		return -EINVAL;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(line), name;
		struct curl_slist *h;

		lineno++;
		while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
			line[--n] = 0;
		if (!n || line[0] == '#')
			continue;
		name = strcspn(line, ": \t");
		if (!name || line[name] != ':') {
			snprintf(err, errlen,
				 "--push-header-file %s: line %d is not a 'Name: value' header",
				 path, lineno);
			free(buf);
			return -EINVAL;
		}
		h = cu.slist_append(p->headers, line);
		if (!h) {
			free(buf);
			snprintf(err, errlen, "push: out of memory");
			return -ENOMEM;
		}
		p->headers = h;
	}
	free(buf);
	return 0;
}

/* URL/ingest?name=NAME{k=v,...}, the application name and labels escaped once. */
static int make_base(struct kt_push *p, char *err, size_t errlen)
{
	char name[2048], host[256];
	size_t used, ulen = strlen(p->o.url);
	int has_host = 0;
	char *esc;

	used = (size_t)snprintf(name, sizeof(name), "%s{", p->o.name);
	for (unsigned i = 0; i < p->o.nlabels && used < sizeof(name); i++) {
		if (!strncmp(p->o.labels[i], "host=", 5))
			has_host = 1;
		used += (size_t)snprintf(name + used, sizeof(name) - used, "%s%s", i ? "," : "",
					 p->o.labels[i]);
	}
	if (!has_host && used < sizeof(name) && gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = 0;
		used += (size_t)snprintf(name + used, sizeof(name) - used, "%shost=%s",
					 p->o.nlabels ? "," : "", host);
	}
	if (used + 2 > sizeof(name)) {
		snprintf(err, errlen, "--push-label: the labels are too long (at most %zu bytes)",
			 sizeof(name) - 2);
		return -EINVAL;
	}
	strcat(name, "}");
	esc = cu.easy_escape(NULL, name, 0);
	while (ulen && p->o.url[ulen - 1] == '/')
		ulen--;
	p->base = esc ? malloc(ulen + strlen(esc) + 32) : NULL;
	if (!p->base) {
		cu.free(esc);
		snprintf(err, errlen, "push: out of memory");
		return -ENOMEM;
	}
	sprintf(p->base, "%.*s%s?name=%s", (int)ulen, p->o.url,
		ulen >= 7 && !strncmp(p->o.url + ulen - 7, "/ingest", 7) ? "" : "/ingest", esc);
	cu.free(esc);
	return 0;
}

int kt_push_new(const struct kt_push_opts *o, struct kt_push **out, char *err, size_t errlen)
{
	struct kt_push *p = calloc(1, sizeof(*p));
	struct curl_slist *h;
	int r;

	*out = NULL;
	if (!p) {
		snprintf(err, errlen, "push: out of memory");
		return -ENOMEM;
	}
	p->o = *o;
	if (!p->o.queue)
		p->o.queue = 8;
	if (p->o.queue < 2)
		p->o.queue = 2;
	if (p->o.timeout_s <= 0)
		p->o.timeout_s = 10;
	if (!p->o.attempts)
		p->o.attempts = 4;
	if (p->o.backoff_s <= 0)
		p->o.backoff_s = 1;
	r = curl_load(err, errlen);
	if (r < 0) {
		free(p);
		return r;
	}
	if (cu.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		free(p);
		snprintf(err, errlen, "push: libcurl failed to initialise");
		return -EIO;
	}
	pthread_mutex_init(&p->mu, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&p->cv, &ca);
		pthread_cond_init(&p->done, &ca);
		pthread_condattr_destroy(&ca);
	}
	r = o->header_file ? read_headers(p, o->header_file, err, errlen) : 0;
	if (!r)
		r = make_base(p, err, errlen);
	if (!r) {
		h = cu.slist_append(p->headers, "Content-Type: application/octet-stream");
		if (h)
			p->headers = h;
		/* no "Expect: 100-continue" round trip before each body */
		h = h ? cu.slist_append(p->headers, "Expect:") : NULL;
		if (h)
			p->headers = h;
		p->q = calloc(p->o.queue, sizeof(*p->q));
		p->multi = cu.multi_init();
		if (!h || !p->q || !p->multi) {
			snprintf(err, errlen, "push: out of memory");
			r = -ENOMEM;
		}
	}
	if (!r) {
		/* The worker (and any thread libcurl starts from it) takes no process signal:
		 * SIGINT, SIGTERM and SIGHUP are the loop's, read from its signalfd. Started with
		 * them open, the worker could take a SIGINT first, and under a shell that runs
		 * kerntop in the background (SIGINT ignored) drop it: the loop never saw it. */
		sigset_t all, old;
		int e;

		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		e = pthread_create(&p->thread, NULL, worker, p);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (e != 0) {
			snprintf(err, errlen, "push: cannot start the worker thread");
			r = -EAGAIN;
		}
	}
	if (r) {
		kt_push_free(p);
		return r;
	}
	p->started = 1;
	*out = p;
	return 0;
}

void kt_push_send(struct kt_push *p, uint8_t *body, size_t len, uint64_t from_ns, uint64_t until_ns)
{
	uint32_t slot;

	pthread_mutex_lock(&p->mu);
	if (p->n == p->o.queue) {
		/* full: the oldest profile not on the wire goes */
		uint32_t victim = (p->head + (p->inflight ? 1 : 0)) % p->o.queue;

		free(p->q[victim].body);
		if (victim == p->head) {
			p->head = (p->head + 1) % p->o.queue;
		} else {
			/* close the gap: move the newer ones down by one */
			for (uint32_t i = 1; i + 1 < p->n; i++) {
				uint32_t a = (p->head + i) % p->o.queue, b = (a + 1) % p->o.queue;

				p->q[a] = p->q[b];
			}
		}
		p->n--;
		p->st.dropped++;
	}
	slot = (p->head + p->n) % p->o.queue;
	p->q[slot] = (struct item){body, len, from_ns, until_ns, 0};
	p->n++;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void kt_push_stats(struct kt_push *p, struct kt_push_stats *st)
{
	pthread_mutex_lock(&p->mu);
	*st = p->st;
	st->queued = p->n;
	st->queued_bytes = 0;
	for (uint32_t i = 0; i < p->n; i++)
		st->queued_bytes += p->q[(p->head + i) % p->o.queue].len;
	pthread_mutex_unlock(&p->mu);
}

void kt_push_finish(struct kt_push *p, double grace_s)
{
	if (p && p->started) {
		struct timespec ts;
		double end = now_s() + grace_s;

		pthread_mutex_lock(&p->mu);
		p->stop = 1;
		pthread_cond_broadcast(&p->cv);
		deadline_ts(grace_s, &ts);
		while (!p->ended && (p->n || p->inflight) && now_s() < end)
			pthread_cond_timedwait(&p->done, &p->mu, &ts);
		p->abort = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		cu.multi_wakeup(p->multi);
		pthread_join(p->thread, NULL);
		p->started = 0;
		p->st.dropped += p->n;
		while (p->n)
			pop(p);
	}
}

void kt_push_free(struct kt_push *p)
{
	if (!p)
		return;
	kt_push_finish(p, 0);
	while (p->n)
		pop(p);
	free(p->q);
	if (p->multi)
		cu.multi_cleanup(p->multi);
	cu.slist_free_all(p->headers);
	free(p->base);
	pthread_cond_destroy(&p->cv);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p);
	cu.global_cleanup();
}
