/* Storage behind a kt_result: rows, a string pool and per-CPU / frame arrays, reused from
 * one query to the next so a refresh allocates nothing once the sizes have settled. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agg_impl.h"

#define POOL_BLOCK 65536

struct rpriv *kt_agg_priv(struct kt_result *r)
{
	if (!r->priv)
		r->priv = calloc(1, sizeof(struct rpriv));
	return r->priv;
}

const char *kt_agg_strdup(struct kt_result *r, const char *str)
{
	struct rpriv *p = kt_agg_priv(r);
	struct pool *pl;
	size_t len = strlen(str) + 1;
	char *d;

	if (!p)
		return "";
	pl = &p->pool;
	if (len > POOL_BLOCK)
		len = POOL_BLOCK;
	if (!pl->nblk || pl->pos + len > POOL_BLOCK) {
		if (pl->nblk && pl->cur + 1 < pl->nblk) {
			pl->cur++;
		} else {
			char **nb = realloc(pl->blk, (pl->nblk + 1) * sizeof(*nb));

			if (!nb) {
				p->nomem = 1;
				return "";
			}
			pl->blk = nb;
			nb[pl->nblk] = malloc(POOL_BLOCK);
			if (!nb[pl->nblk]) {
				p->nomem = 1;
				return "";
			}
			pl->cur = pl->nblk++;
		}
		pl->pos = 0;
	}
	d = pl->blk[pl->cur] + pl->pos;
	memcpy(d, str, len - 1);
	d[len - 1] = 0;
	pl->pos += len;
	return d;
}

struct kt_row *kt_agg_row_new(struct kt_result *r)
{
	struct rpriv *p = kt_agg_priv(r);
	struct kt_row *row;

	if (!p ||
	    kt_grow((void **)&r->rows, &p->rowcap, (uint32_t)r->nrows + 1, sizeof(*r->rows)) < 0)
		return NULL;
	row = &r->rows[r->nrows++];
	memset(row, 0, sizeof(*row));
	row->parent = -1;
	return row;
}

void kt_agg_result_reset(struct kt_result *r)
{
	struct rpriv *p = kt_agg_priv(r);

	r->nrows = 0;
	r->total_rows = 0;
	if (p) {
		p->pool.cur = 0;
		p->pool.pos = 0;
		p->nframes = 0;
		p->nomem = 0;
	}
}

void kt_result_free(struct kt_result *r)
{
	struct rpriv *p;

	if (!r)
		return;
	p = r->priv;
	if (p) {
		for (uint32_t i = 0; i < p->pool.nblk; i++)
			free(p->pool.blk[i]);
		free(p->pool.blk);
		free(p->percpu);
		free(p->frames);
		free(p->trend);
		free(p);
	}
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
