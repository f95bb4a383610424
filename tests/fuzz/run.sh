#!/bin/sh
# Bounded libFuzzer session on the replay readers (clang with libclang-rt-14-dev on Debian).
#   tests/fuzz/run.sh [SECONDS] [--save]
# SECONDS (default 60) is split between the recording and the perf script targets. New inputs
# are kept in a work directory; --save merges the interesting small ones (<= 4 KiB) into
# tests/fuzz/corpus/ so that make check replays them. A crash leaves its input in the work
# directory and makes the script fail.
set -eu
secs=${1:-60}
save=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CC=${CC_FUZZ:-clang}
work=${FUZZ_WORK:-/tmp/kerntop-fuzz}
mkdir -p "$work"
command -v "$CC" >/dev/null || { echo "run.sh: $CC not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }

# The readers only need _GNU_SOURCE from config.h.
printf '#define _GNU_SOURCE 1\n' >"$work/config.h"
SRC="$top/src/source_replay_rec.c $top/src/source_perfscript.c $top/src/source_replay_crc.c $here/fuzz_targets.c"
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$work -I$top/include -I$top/src"
for t in recording perfscript; do
	# shellcheck disable=SC2086
	$CC $FLAGS -o "$work/fuzz_$t" "$here/fuzz_$t.c" $SRC
done

half=$((secs / 2))
[ "$half" -ge 1 ] || half=1
status=0
for t in recording perfscript; do
	mkdir -p "$work/corpus_$t" "$work/artifacts_$t"
	cp "$here"/corpus/* "$work/corpus_$t"/
	"$work/fuzz_$t" -max_total_time="$half" -max_len=8192 -timeout=5 -rss_limit_mb=1024 \
		-print_final_stats=1 -artifact_prefix="$work/artifacts_$t/" "$work/corpus_$t" \
		>"$work/log_$t" 2>&1 || status=1
	tail -n 12 "$work/log_$t" | grep -E 'stat::number_of_executed_units|stat::new_units_added|ERROR|SUMMARY' || true
done
if [ "$status" -ne 0 ]; then
	echo "run.sh: a fuzzer found a crash; inputs in $work/artifacts_*/" >&2
	exit 1
fi
if [ "$save" = "--save" ]; then
	for t in recording perfscript; do
		mkdir -p "$work/min_$t"
		"$work/fuzz_$t" -merge=1 -max_len=4096 "$work/min_$t" "$work/corpus_$t" >/dev/null 2>&1
		for f in "$work/min_$t"/*; do
			[ -f "$f" ] && [ "$(wc -c <"$f")" -le 4096 ] || continue
			cp "$f" "$here/corpus/$t-$(basename "$f" | cut -c1-16)"
		done
	done
	echo "corpus: $(ls "$here/corpus" | wc -l) files in $here/corpus"
fi
