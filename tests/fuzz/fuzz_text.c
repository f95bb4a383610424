/* libFuzzer entry for annotate's kernel text reader (built only by tests/fuzz/run.sh). */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kt_fuzz_text(data, size);
	return 0; /* libFuzzer reserves other values */
}
