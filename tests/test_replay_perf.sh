#!/bin/sh
# perf script import of files made here by the real perf: with and without call chains, the
# default output and -F comm,pid,tid,cpu,time,ip,sym,dso. Counts, CPUs and comms must equal
# what perf itself prints for the same perf.data.
. "${top_srcdir:-..}/tests/lib.sh"
DUMP="$top_builddir/tests/test_replay_dump"

command -v perf >/dev/null 2>&1 || skip_all "perf is not installed"

# A kernel-heavy load on every online CPU, so that each one has busy kernel samples (a CPU in
# tickless idle may give perf none in a second).
NCPU=$(nproc)
LOAD=
i=0
while [ "$i" -lt "$NCPU" ]; do
	dd if=/dev/zero of=/dev/null bs=4k 2>/dev/null &
	LOAD="$LOAD $!"
	i=$((i + 1))
done
trap 'kill $LOAD 2>/dev/null; rm -rf "$TMP"' EXIT
if ! perf record -q -a -e cpu-clock -F 997 -g -o "$TMP/g.data" -- sleep 1 >"$TMP/rec.err" 2>&1; then
	kill $LOAD
	grep -qiE 'permission|paranoid|not permitted' "$TMP/rec.err" && skip_all "perf record refused: $(head -1 "$TMP/rec.err")"
	cat "$TMP/rec.err" | sed 's/^/# /'
	ok 1 "perf record -g ran"
	done_testing
fi
perf record -q -a -e cpu-clock -F 997 -o "$TMP/n.data" -- sleep 1 >/dev/null 2>&1
kill $LOAD

F=comm,pid,tid,cpu,time,ip,sym,dso
perf script -i "$TMP/g.data" >"$TMP/g.txt" 2>/dev/null
perf script -i "$TMP/g.data" -F $F >"$TMP/gF.txt" 2>/dev/null
perf script -i "$TMP/n.data" >"$TMP/n.txt" 2>/dev/null
perf script -i "$TMP/n.data" -F $F >"$TMP/nF.txt" 2>/dev/null

field() { sed -n "s/^$1 //p" "$2"; }
# Sample lines as perf prints them: not indented by a tab, with " [cpu] secs.frac:".
nsamples() { grep -cE '^[^	].* \[[0-9]+\] +[0-9]+\.[0-9]+:' "$1"; }
perf_cpus() { perf script -i "$1" -F cpu 2>/dev/null | tr -d '[] ' | sed 's/^0*\([0-9]\)/\1/' | sort -un | paste -sd, -; }
perf_comms() { perf script -i "$1" -F comm 2>/dev/null | sed 's/^ *//; s/ *$//' | LC_ALL=C sort -u | paste -sd, -; }

for f in g gF n nF; do
	check "replay of perf script ($f) succeeds" "$DUMP" "$TMP/$f.txt"
	"$DUMP" "$TMP/$f.txt" >"$TMP/$f.out" 2>&1
done
# Sample lines of a -g file followed by no frame line: perf had no address for them (an empty
# call chain, now and then, with no ip column); the reader skips them, counted.
noaddr() { awk 'h && !/^\t/ { n++ } { h = !/^\t/ && / \[[0-9]+\] +[0-9]+\.[0-9]+:/ } END { print n + 0 }' "$1"; }
for f in g n; do
	data="$TMP/$f.data"
	want=$(nsamples "$TMP/$f.txt")
	na=0
	[ $f = g ] && na=$(noaddr "$TMP/g.txt")
	ok $([ "$want" -gt 500 ]; echo $?) "perf recorded enough samples ($f: $want, $na without an address)"
	is "$(field samples "$TMP/$f.out")" "$((want - na))" "$f: sample count equals perf's sample lines with an address"
	is "$(field samples "$TMP/${f}F.out")" "$((want - na))" "$f -F: sample count equals perf's sample lines with an address"
	is "$(field skipped "$TMP/$f.out")" "$na" "$f: only the samples without an address skipped ($na)"
	is "$(field skipped "$TMP/${f}F.out")" "$na" "$f -F: only the samples without an address skipped ($na)"
	is "$(field cpus "$TMP/$f.out")" "$(perf_cpus "$data")" "$f: cpus equal perf's"
	is "$(field ncpus "$TMP/$f.out")" "$NCPU" "$f: every online CPU sampled ($NCPU)"
	is "$(LC_ALL=C field comms "$TMP/$f.out")" "$(perf_comms "$data")" "$f: comms equal perf's"
	is "$(field digest "$TMP/$f.out")" "$(field digest "$TMP/${f}F.out")" \
		"$f: default and -F outputs give identical samples (ip, tid, cpu, frames)"
	is "$(field samples_per_cpu "$TMP/$f.out")" "$(field samples_per_cpu "$TMP/${f}F.out")" \
		"$f: same samples per CPU from both outputs"
done
# Kernel samples: perf's own ip column, kernel half of the address space, minus [vsyscall].
kern=$(perf script -i "$TMP/n.data" -F ip 2>/dev/null | awk '{ if (length($1) == 16 && $1 ~ /^ffff/ && $1 !~ /^ffffffffff6/) n++ } END { print n+0 }')
is "$(field kernel "$TMP/n.out")" "$kern" "kernel samples equal perf's kernel-address samples"
is "$(field callchain "$TMP/g.out")" 1 "-g file: call chains detected"
is "$(field callchain "$TMP/n.out")" 0 "no -g: no call chains"
with=$(field with_frames "$TMP/g.out")
ok $([ "$with" -gt 0 ] && [ "$with" -le "$(field kernel "$TMP/g.out")" ]; echo $?) "-g: kernel samples carry kernel frames ($with)"
is "$(field period "$TMP/n.out")" "$(perf script -i "$TMP/n.data" -F period 2>/dev/null | awk '{s+=$1} END {printf "%d", s/NR}')" "period is perf's mean period"
done_testing
