/* Names the user types or reads beside the views: --zoom module lookup with near-name
 * suggestions, and the compact label of a CPU set ("0,2-3"). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "agg_impl.h"
#include "kerntop/util.h"

static unsigned edit_distance(const char *x, const char *y)
{
	unsigned d[64], nx = (unsigned)strlen(x), ny = (unsigned)strlen(y);

	if (nx > 62 || ny > 62)
		return 99;
	for (unsigned j = 0; j <= ny; j++)
		d[j] = j;
	for (unsigned i = 1; i <= nx; i++) {
		unsigned prev = d[0], tmp;

		d[0] = i;
		for (unsigned j = 1; j <= ny; j++) {
			unsigned best = prev + (tolower((unsigned char)x[i - 1]) !=
						tolower((unsigned char)y[j - 1]));

			tmp = d[j];
			if (d[j] + 1 < best)
				best = d[j] + 1;
			if (d[j - 1] + 1 < best)
				best = d[j - 1] + 1;
			d[j] = best;
			prev = tmp;
		}
	}
	return d[ny];
}

int kt_agg_module_find(const struct kt_agg *a, const char *name, uint32_t *id, char *near,
		       size_t nearlen)
{
	uint32_t nm = kt_sym_nmodules(a->s);
	size_t used = 0;
	int found;

	if (near && nearlen)
		near[0] = 0;
	if (!strcmp(name, "[idle]") || !strcmp(name, "idle")) {
		*id = KT_AGG_IDLE_MODULE;
		return 0;
	}
	found = kt_sym_module_find(a->s, name);
	if (found < 0)
		for (uint32_t i = 0; i < nm; i++)
			if (!strcasecmp(kt_agg_module_name(a, i), name))
				found = (int)i;
	if (found >= 0) {
		*id = (uint32_t)found;
		return 0;
	}
	for (uint32_t i = 0; near && i < nm; i++) {
		const char *m = kt_agg_module_name(a, i);
		size_t ln = strlen(name);

		if (strncasecmp(m, name, ln < 3 ? ln : 3) && !kt_contains_ci(m, name) &&
		    !kt_contains_ci(name, m) && edit_distance(m, name) > 2)
			continue;
		if (used + strlen(m) + 3 >= nearlen)
			break;
		used += (size_t)snprintf(near + used, nearlen - used, "%s%s", used ? ", " : "", m);
	}
	return -ENOENT;
}

uint32_t kt_cpuset_format(const uint64_t *set, uint32_t max, char *buf, size_t len)
{
	uint32_t k = 0;
	size_t n = 0;

	if (len)
		buf[0] = 0;
	for (uint32_t c = 0; c < max; c++) {
		uint32_t e = c;

		if (!kt_cpuset_has(set, c))
			continue;
		while (e + 1 < max && kt_cpuset_has(set, e + 1))
			e++;
		k += e - c + 1;
		if (n < len && e == c)
			n += (size_t)snprintf(buf + n, len - n, "%s%u", n ? "," : "", c);
		else if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%u-%u", n ? "," : "", c, e);
		c = e;
	}
	return k;
}
