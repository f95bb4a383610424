#!/bin/sh
# Bounded libFuzzer session on the replay readers and the symbolizer's text parsers (clang
# with libclang-rt-14-dev on Debian).
#   tests/fuzz/run.sh [SECONDS] [--save]
# SECONDS (default 60) is split between the targets: recording, perfscript, kallsyms, modules,
# ranges, text (annotate's kcore/ELF text reader) and procstat (FUZZ_TARGETS="kallsyms ranges" picks some). New inputs are kept in a work
# directory, a fresh mktemp -d removed after a clean run unless FUZZ_WORK names one (which
# must be ours); --save merges the interesting small ones (<= 4 KiB) into tests/fuzz/corpus/
# so that make check replays them. A crash leaves its input in the work directory and makes
# the script fail.
set -eu
secs=${1:-60}
save=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CC=${CC_FUZZ:-clang}
targets=${FUZZ_TARGETS:-recording perfscript kallsyms modules ranges text procstat}
command -v "$CC" >/dev/null || { echo "run.sh: $CC not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }

# A fixed path under /tmp could be pre-created (or symlinked) by another user while we run as
# root: the default is a fresh private directory, and a given one must be a directory we own.
if [ -n "${FUZZ_WORK:-}" ]; then
	work=$FUZZ_WORK
	if [ -L "$work" ] || { [ -e "$work" ] && { [ ! -d "$work" ] || [ ! -O "$work" ]; }; }; then
		echo "run.sh: FUZZ_WORK=$work exists and is not a directory of ours: pick another path" >&2
		exit 2
	fi
	mkdir -p -m 700 "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/kerntop-fuzz.XXXXXX")
fi
echo "run.sh: work directory $work"

# The sources only need _GNU_SOURCE from config.h.
printf '#define _GNU_SOURCE 1\n' >"$work/config.h"
SRC_REPLAY="$top/src/source_replay_rec.c $top/src/source_perfscript.c $top/src/source_replay_crc.c $top/src/source_rec_chains.c $here/fuzz_targets.c \
	$top/src/procstat.c $top/src/procstat_parse.c $top/src/util_file.c"
SRC_SYMBOLS="$top/src/symbols_core.c $top/src/symbols_build.c $top/src/symbols_lookup.c $top/src/symbols_kallsyms.c \
	$top/src/symbols_elf.c $top/src/symbols_ctx.c $top/src/symbols_text.c $top/src/util_file.c $here/fuzz_symbols.c"
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$work -I$top/include -I$top/src"
for t in $targets; do
	case $t in
	recording|perfscript|procstat) src=$SRC_REPLAY libs= ;;
	kallsyms|modules|ranges) src=$SRC_SYMBOLS libs="-ldw -lelf" ;;
	text) src="$SRC_SYMBOLS $here/fuzz_symtext.c" libs="-ldw -lelf" ;;
	*) echo "run.sh: unknown target $t" >&2; exit 2 ;;
	esac
	# shellcheck disable=SC2086
	$CC $FLAGS -o "$work/fuzz_$t" "$here/fuzz_$t.c" $src $libs
done

n=$(echo $targets | wc -w)
each=$((secs / n))
[ "$each" -ge 1 ] || each=1
status=0
for t in $targets; do
	mkdir -p "$work/corpus_$t" "$work/artifacts_$t"
	cp "$here"/corpus/* "$work/corpus_$t"/
	"$work/fuzz_$t" -max_total_time="$each" -max_len=8192 -timeout=5 -rss_limit_mb=1024 \
		-print_final_stats=1 -artifact_prefix="$work/artifacts_$t/" "$work/corpus_$t" \
		>"$work/log_$t" 2>&1 || status=1
	echo "$t:"
	tail -n 12 "$work/log_$t" | grep -E 'stat::number_of_executed_units|stat::new_units_added|ERROR|SUMMARY' || true
done
# Slow inputs: a kallsyms with 100 000 distinct [module] tags, too big for -max_len, run once
# through the kallsyms target under libFuzzer's -timeout: the quadratic module lookup took
# 30 s on it (issue 20), the indexed one well under a second.
case " $targets " in *" kallsyms "*)
	awk 'BEGIN { print "ffffffff81000000 T _stext"; print "ffffffff81100000 T _etext";
		for (i = 0; i < 100000; i++) printf "%x t f%d\t[m%d]\n", 3221225472 + i * 4096, i, i }' |
		sed '3,$s/^/ffffffff/' >"$work/kallsyms-100k-modules"
	"$work/fuzz_kallsyms" -timeout=5 -rss_limit_mb=1024 "$work/kallsyms-100k-modules" \
		>"$work/log_kallsyms_many" 2>&1 || status=1
	echo "kallsyms, 100000 modules: $(grep -cE 'ERROR|timeout' "$work/log_kallsyms_many") errors"
	;;
esac
if [ "$status" -ne 0 ]; then
	echo "run.sh: a fuzzer found a crash; inputs in $work/artifacts_*/" >&2
	exit 1
fi
if [ "$save" = "--save" ]; then
	for t in $targets; do
		# the saved corpus goes in first, so that the merge keeps only inputs adding coverage
		rm -rf "$work/min_$t"
		mkdir -p "$work/min_$t"
		cp "$here"/corpus/* "$work/min_$t"/
		"$work/fuzz_$t" -merge=1 -max_len=4096 "$work/min_$t" "$work/corpus_$t" >/dev/null 2>&1
		for f in "$work/min_$t"/*; do
			[ -f "$f" ] && [ ! -e "$here/corpus/$(basename "$f")" ] &&
				[ "$(wc -c <"$f")" -le 4096 ] || continue
			cp "$f" "$here/corpus/$t-$(basename "$f" | cut -c1-16)"
		done
	done
	echo "corpus: $(ls "$here/corpus" | wc -l) files in $here/corpus"
fi
[ -n "${FUZZ_WORK:-}" ] || rm -rf "$work"
