/* libFuzzer entry for the /proc/stat, /proc/softirqs and /proc/interrupts readers (built only
 * by tests/fuzz/run.sh). */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return kt_fuzz_procstat(data, size);
}
