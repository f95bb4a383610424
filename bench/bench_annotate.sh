#!/bin/bash
# Annotate speed: the annotate screen of a ~4 KiB function (compiled here, gcc -O2 -g) opens in
# under 50 ms (kt_agg_annotate: text, Capstone, hits, libdw lines), beside perf annotate --stdio
# of the same function from a perf.data of the same code run as a program (perf record of
# user mode: this machine's kernel has no such function and no /proc/kcore). Prints the ratio.
# Usage: bench/bench_annotate.sh [BUILDDIR]   (perf record needs perf_event_paranoid <= 2)
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
bin=$build/bench/bench_annotate
make -C "$build" bench/bench_annotate >/dev/null || exit 1
D=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/kt-bench-annot.XXXXXX")}
mkdir -p "$D"
N=${ANNOT_LINES:-155}
{
	echo '#include <stdlib.h>'
	echo '__attribute__((noinline)) long big_func(long *p, long n)'
	echo '{'
	echo '	long s = 1;'
	echo '	for (long i = 0; i < n; i++) {'
	for k in $(seq 1 "$N"); do
		echo "		s = (s ^ (p[(i + $k) & 63] * $((k * 2654435761 % 1000003)))) + (s >> $((k % 13 + 1)));"
	done
	echo '	}'
	echo '	return s;'
	echo '}'
	echo 'int main(int argc, char **argv)'
	echo '{'
	echo '	static long p[64];'
	echo '	long s = 0;'
	echo '	for (int i = 0; i < 64; i++) p[i] = i * 7;'
	echo '	for (long r = 0; r < (argc > 1 ? atol(argv[1]) : 100000); r++) s += big_func(p, 64);'
	echo '	return (int)(s & 1);'
	echo '}'
} >"$D/big.c"
gcc -O2 -g -c "$D/big.c" -o "$D/big.o" && gcc -O2 -g "$D/big.c" -o "$D/big" &&
	ld -Ttext=0xffffffff81000000 -e big_func --unresolved-symbols=ignore-all -o "$D/vmlinux" "$D/big.o" || exit 1
nm "$D/vmlinux" | awk '$2 ~ /^[Tt]$/ { print $1, "T", $3 }' | sort >"$D/kallsyms"
echo "big_func: $((0x$(nm -S "$D/vmlinux" | awk '$4 == "big_func" { print $2 }'))) bytes (gcc -O2 -g)"
printf 'dummy 4096 0 - Live 0xffffffffc0000000\n' >"$D/modules"
"$bin" "$D/kallsyms" "$D/modules" "$D/vmlinux" big_func 100000 | tee "$D/kt.txt"
kt=$(awk '/median of/ { print $(NF - 1) }' "$D/kt.txt")
first=$(awk '/first/ { print $(NF - 1) }' "$D/kt.txt")

PERF=$(command -v perf || true)
if [ -z "$PERF" ]; then
	echo "perf is not installed: no peer figure"
	exit 0
fi
if ! "$PERF" record -q -e cpu-clock:u -F 997 -o "$D/perf.data" "$D/big" 300000 >/dev/null 2>"$D/perf.err"; then
	echo "perf record refused ($(head -1 "$D/perf.err")): no peer figure"
	exit 0
fi
times=
for r in 1 2 3 4 5; do
	t0=$(date +%s%N)
	"$PERF" annotate --stdio -i "$D/perf.data" big_func >"$D/perf-annotate.txt" 2>/dev/null
	times="$times $(( ($(date +%s%N) - t0) / 1000 ))"
done
pa=$(printf '%s\n' $times | sort -n | sed -n 3p | awk '{ printf "%.1f", $1 / 1000 }')
pl=$(grep -cE '^ +[0-9.]+ +:' "$D/perf-annotate.txt")
echo "perf annotate --stdio big_func (perf.data, median of 5): $pa ms ($pl instruction lines)"
[ -n "$kt" ] && [ -n "$first" ] || { echo "annotate open: no kerntop figure (see above): MISSED"; exit 1; }
awk -v k="$kt" -v f="$first" -v p="$pa" 'BEGIN {
	printf "annotate open: kerntop %.2f ms (first %.2f ms), perf annotate %.1f ms, ratio kerntop/perf %.3f (first %.3f); target < 50 ms: %s\n",
		k, f, p, k / p, f / p, (f < 50 && k < 50) ? "met" : "MISSED" }'
[ -n "${BENCH_DIR:-}" ] || rm -rf "$D"
