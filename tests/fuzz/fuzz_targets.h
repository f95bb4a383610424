/* Fuzz targets of the replay readers and the symbolizer's parsers: each takes any bytes and
 * must neither crash nor hang. Each returns 1 when the reader accepted the input (opened or
 * loaded it), 0 when it refused it with a message. */
#ifndef KERNTOP_FUZZ_TARGETS_H
#define KERNTOP_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

int kt_fuzz_recording(const uint8_t *data, size_t size);
int kt_fuzz_perfscript(const uint8_t *data, size_t size);
/* fuzz_symbols.c: the symbolizer's kallsyms, modules and modules.builtin.ranges parsers */
int kt_fuzz_kallsyms(const uint8_t *data, size_t size);
int kt_fuzz_modules(const uint8_t *data, size_t size);
int kt_fuzz_ranges(const uint8_t *data, size_t size);
/* fuzz_targets.c: the /proc/stat, /proc/softirqs and /proc/interrupts parsers, and the view
 * derived from two such readings; 1 when one of the parsers accepted the whole input */
int kt_fuzz_procstat(const uint8_t *data, size_t size);
/* fuzz_text.c: annotate's kernel text reader (the input as /proc/kcore and as a .ko) */
int kt_fuzz_text(const uint8_t *data, size_t size);
/* Removes the private directory kt_fuzz_text made (also done at exit) */
void kt_fuzz_text_done(void);

#endif
