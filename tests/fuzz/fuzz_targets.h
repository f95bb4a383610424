/* Fuzz targets of the replay readers: each takes any bytes and must neither crash nor hang. */
#ifndef KERNTOP_FUZZ_TARGETS_H
#define KERNTOP_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

int kt_fuzz_recording(const uint8_t *data, size_t size);
int kt_fuzz_perfscript(const uint8_t *data, size_t size);

#endif
