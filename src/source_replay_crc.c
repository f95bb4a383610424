/* CRC32 (IEEE 802.3, reflected, as zlib's crc32) for the recording's block checksums.
 * Slice-by-8 so that checking a replay costs little next to decoding it. */
#include "config.h"

#include "source_replay_impl.h"

static uint32_t crc_tab[8][256];
static int crc_ready;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
	crc_ready = 1;
}

/* crc is the previous value (0 to start); chaining calls equals one call over the whole. */
uint32_t kt_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!crc_ready)
		crc_init();
	crc = ~crc;
	while (len >= 8) {
		uint32_t a = kt_get_u32(p) ^ crc, b = kt_get_u32(p + 4);

		crc = crc_tab[7][a & 0xff] ^ crc_tab[6][(a >> 8) & 0xff] ^
		      crc_tab[5][(a >> 16) & 0xff] ^ crc_tab[4][a >> 24] ^
		      crc_tab[3][b & 0xff] ^ crc_tab[2][(b >> 8) & 0xff] ^
		      crc_tab[1][(b >> 16) & 0xff] ^ crc_tab[0][b >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = crc_tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
