#!/bin/bash
# CPU cost of live sampling at 997 Hz on every CPU, over SECONDS (default 10): kerntop's live
# source alone (bench_source_live, a counting sink), with -g, the whole kerntop -b pipeline, and
# `perf record -a` at the same rate as the peer, each measured as user+system CPU of its own
# process, in one run. All with user-mode hits too (-u), so every tick of a busy CPU is a sample
# whatever else runs on the machine.
# Usage: bench/bench_live_overhead.sh [BUILDDIR [SECONDS]]   (as root, or perf_event_paranoid <= 0)
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
secs=${2:-10}
bin=$build/bench/bench_source_live
[ -x "$bin" ] || make -C "$build" bench/bench_source_live >/dev/null || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kt-bench.XXXXXX")
loads=
trap 'kill $loads 2>/dev/null; rm -rf "$tmp"' EXIT

# An idle CPU in tickless idle yields few cpu-clock samples: load every CPU (in the kernel, so
# the kernel-only sampling sees it all) to measure the full 997 Hz per CPU.
ncpu=$(nproc)
for i in $(seq 0 $((ncpu - 1))); do
	taskset -c "$i" dd if=/dev/zero of=/dev/null bs=1M 2>/dev/null &
	loads="$loads $!"
done
sleep 0.2

pct() { # pct CMD...: user+system CPU of CMD as % of one core over $secs
	TIMEFORMAT='%U %S'
	t=$( { time "$@" >"$tmp/out" 2>"$tmp/err"; } 2>&1 | tail -1)
	echo "$t" | awk -v s="$secs" '{ printf "%.3f", 100 * ($1 + $2) / s }'
}

kt=$("$bin" "$secs" 997 -u)
echo "$kt"
ktg=$("$bin" "$secs" 997 -g -u)
echo "$ktg"
kt_pct=$(echo "$kt" | sed 's/.*= \([0-9.]*\)% of one core/\1/')
if command -v perf >/dev/null 2>&1; then
	perf_pct=$(pct perf record -q -a -e cpu-clock -F 997 -o "$tmp/perf.data" -- sleep "$secs")
	echo "perf record -a -F 997 for $secs s: $perf_pct% of one core"
	awk -v a="$kt_pct" -v b="$perf_pct" 'BEGIN { if (b > 0) printf "ratio kerntop source / perf record: %.2f\n", a / b }'
fi
if [ -x "$build/kerntop" ]; then
	full=$(bash -c "TIMEFORMAT='%U %S'; { time '$build/kerntop' -u -b -n 1 -d '$secs' >/dev/null 2>'$tmp/kerr'; } 2>&1 | tail -1")
	if [ -s "$tmp/kerr" ]; then
		echo "kerntop -b (whole pipeline): not measured: $(head -1 "$tmp/kerr")"
	else
		echo "$full" | awk -v s="$secs" '{ printf "kerntop -u -b -d %s (whole pipeline): %.3f%% of one core\n", s, 100 * ($1 + $2) / s }'
	fi
fi
