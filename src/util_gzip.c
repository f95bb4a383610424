/* gzip in memory through zlib: pprof profiles are gzip-compressed profile.proto messages,
 * written to files by the report layer and sent by the push worker. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <zlib.h>

#include "kerntop/util.h"

int kt_gzip(const uint8_t *in, size_t len, uint8_t **out, size_t *outlen)
{
	z_stream z = {0};
	uLong cap;
	int r;

	*out = NULL;
	*outlen = 0;
	if (len > UINT32_MAX / 2)
		return -EFBIG;
	/* windowBits 15 + 16: a gzip wrapper; level 6 is zlib's usual speed/size trade-off */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, (uLong)len);
	*out = malloc(cap);
	if (!*out) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	z.next_out = *out;
	z.avail_out = (uInt)cap;
	r = deflate(&z, Z_FINISH);
	*outlen = z.total_out;
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(*out);
		*out = NULL;
		*outlen = 0;
		return -EIO;
	}
	return 0;
}
