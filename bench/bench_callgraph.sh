#!/bin/bash
# What call chains (the default since issue 13) cost, in one run:
# 1. live at 997 Hz on every CPU, each CPU busy in the kernel (a dd per CPU): the CPU time of
#    `kerntop -b` with chains (the default) and with --no-call-graph, alternating ROUNDS times,
#    and `perf record -a` with and without -g as the peer, each as % of one core;
# 2. the synthetic 256-CPU machine with 32-frame chains (bench_stacks.sh BENCH_CPUS=256
#    BENCH_DEPTH=32): replayed with and without chains, and what ingesting it live would take.
# Usage: bench/bench_callgraph.sh [BUILDDIR [SECONDS [ROUNDS]]]   (root: system-wide sampling)
# BENCH_CG_PART=live or replay runs one part only (the live part under /work/live.lock, say).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
secs=${2:-10}
rounds=${3:-2}
K=${KERNTOP:-$build/kerntop}
part=${BENCH_CG_PART:-both}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kt-bench-cg.XXXXXX")
loads=
trap 'kill $loads 2>/dev/null; rm -rf "$tmp"' EXIT
if [ "$part" != replay ]; then
for i in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$i" dd if=/dev/zero of=/dev/null bs=1M 2>/dev/null &
	loads="$loads $!"
done
sleep 0.2
pct() { # pct CMD...: user+system CPU of CMD as % of one core over $secs
	TIMEFORMAT='%U %S'
	{ time "$@" >"$tmp/out" 2>"$tmp/err"; } 2>&1 | tail -1 | awk -v s="$secs" '{ printf "%.2f", 100 * ($1 + $2) / s }'
}
echo "live, $(nproc) CPUs busy, 997 Hz, $secs s each, % of one core:"
printf '%-6s %10s %16s %12s %14s\n' round "kerntop" "--no-call-graph" "perf -a -g" "perf -a"
for r in $(seq 1 "$rounds"); do
	a=$(pct "$K" -b -n 1 -d "$secs" -F 997 --format json)
	b=$(pct "$K" -b -n 1 -d "$secs" -F 997 --no-call-graph --format json)
	c=-
	d=-
	if command -v perf >/dev/null 2>&1; then
		c=$(pct perf record -q -a -g -e cpu-clock -F 997 -o "$tmp/g.data" -- sleep "$secs")
		d=$(pct perf record -q -a -e cpu-clock -F 997 -o "$tmp/n.data" -- sleep "$secs")
	fi
	printf '%-6s %10s %16s %12s %14s\n' "$r" "$a" "$b" "$c" "$d"
done
kill $loads 2>/dev/null
loads=
fi
[ "$part" = live ] && exit 0
echo
echo "synthetic 256-CPU machine, 32-frame chains (bench_stacks.sh):"
BENCH_CPUS=256 BENCH_DEPTH=32 BENCH_DIR="${BENCH_DIR:-/tmp/kerntop-bench-cg}" \
	KERNTOP="$K" sh "$here/bench_stacks.sh" "$build"
