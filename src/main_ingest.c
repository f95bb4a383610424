/* The program's sample sink: each sample's locations, task, stack and execution context into
 * the window, in batches whose cache misses overlap (issue 14), and the other events the
 * source delivers (task names, lost counts, replayed /proc snapshots). */
#include "config.h"

#include <string.h>

#include "main_impl.h"

/* The execution context of a sample, classified once per distinct stack (and once per
 * kernel thread's command) and cached in the window's tags as id + 1. */
static uint32_t sample_ctx(struct app *a, uint32_t loc, uint32_t stack, uint32_t task, int user)
{
	uint32_t tag;

	if (user)
		return KT_CTXID_USER;
	if (kt_sym_loc_idle(a->sym, loc))
		return KT_CTXID_IDLE;
	if (!stack)
		return KT_CTXID_UNKNOWN;
	tag = kt_window_stack_tag(a->win, stack, KT_STACK_TAG_CTX);
	if (!tag) {
		uint32_t n;
		const uint32_t *fr = kt_window_stack_frames(a->win, stack, &n);

		tag = kt_sym_ctx_classify(a->sym, fr, n);
		tag = tag == KT_CTX_BY_COMM ? UINT32_MAX : tag + 1;
		kt_window_stack_set_tag(a->win, stack, KT_STACK_TAG_CTX, tag);
	}
	if (tag != UINT32_MAX)
		return tag - 1;
	tag = kt_window_task_tag(a->win, task);
	if (!tag) {
		const struct kt_task *t = kt_window_task_info(a->win, task);

		tag = kt_sym_ctx_comm(a->sym, t ? t->comm : "") + 1;
		kt_window_task_set_tag(a->win, task, tag);
	}
	return tag - 1;
}

/* The location of a sample's address, or of its chain's leaf. */
static uint32_t sample_loc(struct app *a, const struct kt_sample *s)
{
	return s->flags & KT_SAMPLE_USER ? KT_LOC_USER : kt_sym_lookup(a->sym, s->ip);
}

/* The chain's leaf is nearly always the sample's own kernel address, found once. */
static uint32_t sample_leaf(struct app *a, const struct kt_sample *s, uint32_t loc)
{
	if (!s->nr_frames)
		return 0;
	if (s->frames[0] == s->ip && !(s->flags & KT_SAMPLE_USER))
		return loc;
	return kt_sym_lookup(a->sym, s->frames[0]);
}

static uint32_t sample_depth(const struct kt_sample *s)
{
	return s->nr_frames < KT_MAX_STACK ? s->nr_frames : KT_MAX_STACK;
}

/* One sample into the window, the locations of its address and its leaf looked up already,
 * and with a chain, its key in the chain cache (NULL: made here). */
static void ingest(struct app *a, const struct kt_sample *s, uint32_t loc, uint32_t leaf,
		   const struct kt_chain_key *key)
{
	uint32_t stack = 0, task, n = 0, cid;

	if (!(s->flags & KT_SAMPLE_USER) && a->want_addr)
		kt_window_addr_add(a->win, s->ip, 1);
	if (s->nr_frames) {
		uint32_t slot;

		n = sample_depth(s);
		stack = key ? kt_window_stack_cached_key(a->win, key, n, leaf, &slot)
			    : kt_window_stack_cached(a->win, s->frames, n, leaf, &slot);
		if (stack && a->feed) {
			uint32_t m;
			const uint32_t *fr = kt_window_stack_frames(a->win, stack, &m);

			memcpy(a->locs, fr, m * sizeof(*fr));
		} else if (!stack) {
			a->locs[0] = leaf;
			for (uint32_t i = 1; i < n; i++)
				a->locs[i] = kt_sym_lookup(a->sym, s->frames[i]);
			stack = kt_window_stack(a->win, a->locs, n);
			kt_window_stack_cache_put(a->win, slot, s->frames, n, leaf, stack);
		}
	}
	task = kt_window_task(a->win, s->pid, s->tid);
	cid = sample_ctx(a, loc, stack, task, s->flags & KT_SAMPLE_USER);
	kt_window_add_ctx(a->win, s->time_ns, loc, stack, s->cpu, task, cid, 1);
	if (a->feed)
		kt_push_feed_sample(a->feed, s->time_ns, loc, a->locs, n, s->cpu, s->pid, s->tid,
				    cid);
}

/* Ingests the waiting samples in their order, in three passes so that the cache misses of
 * one sample overlap those of the others (issue 14: on a big machine each sample's symbol,
 * task and window entries are misses, and one sample at a time they were most of its cost):
 * fetch their symbol cache and task index lines (exact addresses wait in a log of their own,
 * window_addr.c); look up their locations (symbols do not depend on the window, so taking
 * them first changes nothing) and fetch their task and window entries; then add them one by
 * one, as they came. Fetching the chain cache's slots too made no difference that could be
 * measured: it is not done. */
static void ingest_batch(struct app *a)
{
	uint32_t loc[SAMPLE_BATCH], leaf[SAMPLE_BATCH], n = a->npend;
	struct kt_chain_key key[SAMPLE_BATCH];
	int chains = 0;
	const struct kt_sample *p = a->pend;

	a->npend = 0;
	kt_mem_huge_check();
	for (uint32_t i = 0; i < n; i++) {
		kt_sym_prefetch(a->sym, p[i].ip);
		if (p[i].nr_frames && p[i].frames[0] != p[i].ip)
			kt_sym_prefetch(a->sym, p[i].frames[0]);
		kt_window_task_prefetch(a->win, p[i].pid, p[i].tid, 0);
	}
	for (uint32_t i = 0; i < n; i++) {
		loc[i] = sample_loc(a, &p[i]);
		leaf[i] = sample_leaf(a, &p[i], loc[i]);
		kt_window_task_prefetch(a->win, p[i].pid, p[i].tid, 1);
		if (p[i].nr_frames) { /* its narrow entry is found through its stack */
			key[i] = kt_window_chain_key(p[i].frames, sample_depth(&p[i]), leaf[i]);
			kt_window_chain_prefetch(a->win, &key[i], 0);
			chains = 1;
		} else {
			kt_window_loc_prefetch(a->win, loc[i]);
		}
	}
	for (uint32_t i = 0; chains && i < n; i++)
		if (p[i].nr_frames)
			kt_window_chain_prefetch(a->win, &key[i], 1);
	for (uint32_t i = 0; chains && i < n; i++)
		if (p[i].nr_frames)
			kt_window_chain_prefetch(a->win, &key[i], 2);
	for (uint32_t i = 0; i < n; i++)
		ingest(a, &p[i], loc[i], leaf[i], p[i].nr_frames ? &key[i] : NULL);
}

static void on_sample(void *ctx, const struct kt_sample *s)
{
	struct app *a = ctx;
	struct kt_sample *p;

	if (s->nr_frames > KT_WINDOW_CHAIN_DEPTH) { /* its frames are valid only now */
		uint32_t loc;

		if (a->npend)
			ingest_batch(a);
		loc = sample_loc(a, s);
		ingest(a, s, loc, sample_leaf(a, s, loc), NULL);
		return;
	}
	p = &a->pend[a->npend];
	*p = *s;
	if (s->nr_frames) {
		memcpy(a->pendfr[a->npend], s->frames, s->nr_frames * sizeof(*s->frames));
		p->frames = a->pendfr[a->npend];
	}
	if (++a->npend == SAMPLE_BATCH)
		ingest_batch(a);
}

static void on_comm(void *ctx, int32_t pid, int32_t tid, const char *comm, uint64_t t)
{
	struct app *a = ctx;

	if (a->npend)
		ingest_batch(a);

	kt_window_comm(a->win, pid, tid, comm);
	if (a->feed)
		kt_push_feed_comm(a->feed, pid, tid, comm);
}

static void on_procstat(void *ctx, const struct kt_ps_snap *snap)
{
	struct app *a = ctx;

	if (a->npend)
		ingest_batch(a);

	kt_procstat_feed(a->proc, snap);
}

static void on_lost(void *ctx, uint32_t cpu, uint64_t count, uint64_t t)
{
	struct app *a = ctx;

	if (a->npend)
		ingest_batch(a);

	kt_window_add_lost(a->win, t, cpu, count);
}

void kt_main_sink(struct kt_sink *sink, struct app *a)
{
	sink->ctx = a;
	sink->sample = on_sample;
	sink->comm = on_comm;
	sink->lost = on_lost;
	sink->procstat = on_procstat;
}

void kt_main_ingest(struct app *a)
{
	if (a->npend)
		ingest_batch(a);
}
