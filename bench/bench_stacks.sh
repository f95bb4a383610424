#!/bin/sh
# Ingest cost of call chains: the same samples replayed with and without -g, in samples/s.
#   bench/bench_stacks.sh [BUILD_DIR]   (env: BENCH_SAMPLES=1000000, BENCH_DIR=/tmp/kerntop-bench-stacks,
#                                        BENCH_RUNS=3 (best of), KEEP=1 keeps the inputs,
#                                        BENCH_CPUS=2 and BENCH_DEPTH=0 (4..24 frames): the
#                                        generator's machine, e.g. 256 CPUs of 32-frame chains)
# 1. bench_stacks_gen.py writes N samples as `perf script` text with call chains (mean 13
#    frames, 4000 distinct stacks, 700 functions in vmlinux and 2 modules) and the very same
#    samples without the frame lines (the leaf on the sample line, as perf script prints a
#    recording made without -g);
# 2. test_replay_dump --convert turns both into kerntop recordings;
# 3. times kerntop -b --replay FILE --speed max (read, symbolize every frame, intern stacks,
#    window, one JSON report with the stacks array) and the replay reader alone, for the text
#    and the recording, with and without chains.
# Prints samples/s of each and the ratio with -g / without (< 1: chains cost that much).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${top_builddir:-$here/../build}}
KERNTOP=${KERNTOP:-$build/kerntop}
DUMP=$build/tests/test_replay_dump
n=${BENCH_SAMPLES:-1000000}
ncpus=${BENCH_CPUS:-2}
depth=${BENCH_DEPTH:-0}
runs=${BENCH_RUNS:-3}
dir=${BENCH_DIR:-/tmp/kerntop-bench-stacks}
[ -x "$KERNTOP" ] || { echo "bench_stacks: build $KERNTOP first" >&2; exit 2; }
[ -x "$DUMP" ] || { echo "bench_stacks: build $DUMP first (make check builds it)" >&2; exit 2; }
mkdir -p "$dir"

if [ "$(cat "$dir/params" 2>/dev/null)" != "$n $ncpus $depth" ] || [ ! -s "$dir/g.txt" ] || [ ! -s "$dir/nog.txt" ]; then
	rm -f "$dir/g.ktrec" "$dir/nog.ktrec"
	python3 "$here/bench_stacks_gen.py" "$dir" "$n" "$ncpus" "$depth"
	echo "$n $ncpus $depth" >"$dir/params"
fi
for f in g nog; do
	if [ ! -s "$dir/$f.ktrec" ]; then
		rm -f "$dir/$f.ktrec.tmp"
		"$DUMP" --convert "$dir/$f.txt" "$dir/$f.ktrec.tmp" "$dir/kallsyms" >/dev/null
		mv "$dir/$f.ktrec.tmp" "$dir/$f.ktrec"
	fi
done
cat "$dir/g.txt" "$dir/nog.txt" "$dir/g.ktrec" "$dir/nog.ktrec" >/dev/null

now() { date +%s.%N; }
# best wall time of $runs runs of a command (stdout discarded) in $t
best() {
	t=
	i=0
	while [ "$i" -lt "$runs" ]; do
		t0=$(now)
		"$@" >/dev/null 2>"$dir/err" || { echo "failed: $*" >&2; cat "$dir/err" >&2; exit 1; }
		t1=$(now)
		d=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$t" ] || [ "$(echo "$d < $t" | bc -l)" = 1 ]; then t=$d; fi
		i=$((i + 1))
	done
}
kt() { "$KERNTOP" -b --replay "$1" --speed max --kallsyms "$dir/kallsyms" --modules "$dir/modules" --format json; }
rate() { echo "$n / $1" | bc -l | xargs printf '%.0f'; }
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
# samples/s of the work beyond reading (kerntop minus the reader alone), or "-" when too small
net() { if [ "$(echo "$1 - $2 > 0.005" | bc -l)" = 1 ]; then rate "$(echo "$1 - $2" | bc -l)"; else echo -; fi; }

echo "samples: $n; text: $(du -h "$dir/g.txt" | cut -f1) with chains, $(du -h "$dir/nog.txt" | cut -f1) without;" \
	"recordings: $(du -h "$dir/g.ktrec" | cut -f1) / $(du -h "$dir/nog.ktrec" | cut -f1); best of $runs"
printf '\n%-34s %9s %12s %9s %14s\n' "input" "seconds" "samples/s" "reader s" "beyond read/s"
for src in txt ktrec; do
	for f in nog g; do
		best kt "$dir/$f.$src"
		tk=$t
		best "$DUMP" "$dir/$f.$src"
		tr=$t
		eval "t_${f}_${src}=$tk r_${f}_${src}=$tr"
		label="$( [ "$f" = g ] && echo "with -g" || echo "without -g")"
		printf '%-34s %9.3f %12s %9.3f %14s\n' "$src $label" "$tk" "$(rate "$tk")" "$tr" "$(net "$tk" "$tr")"
	done
done
best "$KERNTOP" -b --replay "$dir/g.ktrec" --speed max --max-stack 1 --kallsyms "$dir/kallsyms" \
	--modules "$dir/modules" --format json
printf '%-34s %9.3f %12s\n' "ktrec with -g, --max-stack 1" "$t" "$(rate "$t")"
echo
echo "ratio with -g / without, whole pipeline: text $(ratio "$t_nog_txt" "$t_g_txt"), recording $(ratio "$t_nog_ktrec" "$t_g_ktrec")"
gb=$(echo "$t_g_ktrec - $r_g_ktrec" | bc -l)
nb=$(echo "$t_nog_ktrec - $r_nog_ktrec" | bc -l)
if [ "$(echo "$gb > 0.005 && $nb > 0.005" | bc -l)" = 1 ]; then
	echo "ratio with -g / without, beyond reading (recording): $(ratio "$nb" "$gb")"
fi
# The replay holds n / (ncpus * 997) s of a machine sampled at 997 Hz: ingesting it live would
# take this share of one core (the reader included, as a live ring drain would be).
span=$(echo "$n / ($ncpus * 997)" | bc -l)
echo "as live at 997 Hz on $ncpus CPUs ($(printf '%.2f' "$span") s of samples):" \
	"without -g $(echo "100 * $t_nog_ktrec / $span" | bc -l | xargs printf '%.1f')% of one core," \
	"with -g $(echo "100 * $t_g_ktrec / $span" | bc -l | xargs printf '%.1f')%"
frames=$(grep -c '^	' "$dir/g.txt" || true)
echo "per frame: $(echo "($t_g_ktrec - $t_nog_ktrec) * 1000000000 / $frames" | bc -l | xargs printf '%.1f') ns of extra ingest for each of $frames frames"
[ "${KEEP:-0}" = 1 ] || rm -f "$dir/g.txt" "$dir/nog.txt" "$dir/g.ktrec" "$dir/nog.ktrec" "$dir/params"
