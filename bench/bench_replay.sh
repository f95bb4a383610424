#!/bin/sh
# Replay ingest speed vs `perf report --stdio --sort dso,sym` on the same samples, in one run.
#   bench/bench_replay.sh [BUILD_DIR]        (env: BENCH_SAMPLES=5000000, BENCH_G=1 for -g,
#                                             BENCH_DIR=/tmp/kerntop-bench-replay, KEEP=1)
# 1. perf record -a -e cpu-clock -F 50000 under a dd load until at least BENCH_SAMPLES samples;
# 2. perf script to text, and the same samples re-recorded as a kerntop recording;
# 3. times perf report on perf.data, kerntop -b --replay on the text and on the recording
#    (the whole pipeline: symbolize, window, aggregate, report), and the replay reader alone.
# Prints samples/s for each and the ratio kerntop/perf report (> 1: kerntop ingests faster).
set -eu
build=${1:-${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)/build}}
KERNTOP=${KERNTOP:-$build/kerntop}
DUMP=$build/tests/test_replay_dump
want=${BENCH_SAMPLES:-5000000}
dir=${BENCH_DIR:-/tmp/kerntop-bench-replay}
g=
[ "${BENCH_G:-0}" = 1 ] && g=-g
[ -x "$DUMP" ] || { echo "bench_replay: build $DUMP first (make check builds it)" >&2; exit 2; }
command -v perf >/dev/null || { echo "bench_replay: perf is not installed" >&2; exit 2; }
mkdir -p "$dir"

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc -l; }
# Wall seconds of a command (stdout discarded) in $t, its exit status in $rc.
timeit() { t0=$(now); rc=0; "$@" >/dev/null 2>"$dir/err" || rc=$?; t1=$(now); t=$(elapsed "$t0" "$t1"); }

ncpu=$(nproc)
hz=50000
secs=$(( (want * 125 / 100) / (hz * ncpu) + 2 ))
if [ ! -s "$dir/perf.data" ] || [ "$(cat "$dir/params" 2>/dev/null)" != "$want $g" ]; then
	echo "recording: perf record -a -e cpu-clock -F $hz $g for $secs s under load..."
	load=
	for i in $(seq "$ncpu"); do
		dd if=/dev/zero of=/dev/null bs=4k 2>/dev/null &
		load="$load $!"
	done
	rm -f "$dir/perf.data" "$dir/perf.txt" "$dir/rec.ktrec"
	perf record -q -a -e cpu-clock -F $hz $g -o "$dir/perf.data" -- sleep "$secs" 2>/dev/null || true
	# shellcheck disable=SC2086
	kill $load 2>/dev/null || true
	echo "$want $g" >"$dir/params"
fi
# Written under a temporary name: an interrupted run never leaves a partial file behind.
if [ ! -s "$dir/perf.txt" ]; then
	perf script -i "$dir/perf.data" >"$dir/perf.txt.tmp" 2>/dev/null
	mv "$dir/perf.txt.tmp" "$dir/perf.txt"
fi
if [ ! -s "$dir/rec.ktrec" ]; then
	rm -f "$dir/rec.ktrec.tmp"
	"$DUMP" --convert "$dir/perf.txt" "$dir/rec.ktrec.tmp" /proc/kallsyms
	mv "$dir/rec.ktrec.tmp" "$dir/rec.ktrec"
fi

n=$(grep -cE '^[^	].* \[[0-9]+\] +[0-9]+\.[0-9]+:' "$dir/perf.txt")
echo "samples: $n (perf script lines), text $(du -h "$dir/perf.txt" | cut -f1), perf.data $(du -h "$dir/perf.data" | cut -f1), kerntop recording $(du -h "$dir/rec.ktrec" | cut -f1)"
[ "$n" -ge "$want" ] || echo "warning: only $n samples (< $want): raise BENCH_SAMPLES's recording time"

# Warm the page cache so that every contender reads from memory.
cat "$dir/perf.data" "$dir/perf.txt" "$dir/rec.ktrec" >/dev/null

timeit perf report -i "$dir/perf.data" --stdio --sort dso,sym; t_perf=$t
[ "$rc" -eq 0 ] || { echo "perf report failed:"; cat "$dir/err"; exit 1; }
timeit "$DUMP" "$dir/perf.txt"; t_rd_txt=$t
timeit "$DUMP" "$dir/rec.ktrec"; t_rd_rec=$t
timeit "$KERNTOP" -b --replay "$dir/perf.txt" --speed max; t_kt_txt=$t; rc_txt=$rc
cp "$dir/err" "$dir/err_txt"
timeit "$KERNTOP" -b --replay "$dir/rec.ktrec" --speed max; t_kt_rec=$t; rc_rec=$rc
cp "$dir/err" "$dir/err_rec"

rate() { echo "$n / $1" | bc -l | xargs printf '%.0f'; }
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
printf '\n%-52s %9s %14s %10s\n' "ingest of the same $n samples" "seconds" "samples/s" "vs perf"
printf '%-52s %9.2f %14s %10s\n' "perf report --stdio --sort dso,sym (perf.data)" "$t_perf" "$(rate "$t_perf")" "1.00"
if [ "$rc_txt" -eq 0 ]; then
	printf '%-52s %9.2f %14s %9sx\n' "kerntop -b --replay perf.txt --speed max" "$t_kt_txt" "$(rate "$t_kt_txt")" "$(ratio "$t_perf" "$t_kt_txt")"
else
	echo "kerntop -b --replay perf.txt failed: $(head -1 "$dir/err_txt")"
fi
if [ "$rc_rec" -eq 0 ]; then
	printf '%-52s %9.2f %14s %9sx\n' "kerntop -b --replay rec.ktrec --speed max" "$t_kt_rec" "$(rate "$t_kt_rec")" "$(ratio "$t_perf" "$t_kt_rec")"
else
	echo "kerntop -b --replay rec.ktrec failed: $(head -1 "$dir/err_rec")"
fi
printf '%-52s %9.2f %14s %9sx\n' "replay reader alone, perf script text" "$t_rd_txt" "$(rate "$t_rd_txt")" "$(ratio "$t_perf" "$t_rd_txt")"
printf '%-52s %9.2f %14s %9sx\n' "replay reader alone, kerntop recording" "$t_rd_rec" "$(rate "$t_rd_rec")" "$(ratio "$t_perf" "$t_rd_rec")"
echo "(vs perf = perf report seconds / this row's seconds; > 1 means faster than perf report)"
[ "${KEEP:-1}" = 1 ] || rm -rf "$dir"
