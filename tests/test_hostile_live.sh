#!/bin/sh
# A file-size limit (ulimit -f) reached by a live --record (issue 20): SIGXFSZ used to kill
# kerntop with no message (exit 153), leaving a torn last block. Now it is treated like a full
# disk: one line naming the limit, the recording cut back to its last complete block, exit 1.
# It samples the live kernel, so it runs serialised (tests/serial.sh: its name has "live").
. "${top_srcdir:-..}/tests/lib.sh"
DUMP="$top_builddir/tests/test_replay_dump"
UI="$DATA/ui"
field() { sed -n "s/^$1 //p" "$2"; }

if ! "$KERNTOP" -e cpu-clock -b -n 1 -d 0.2 >"$TMP/probe.out" 2>&1; then
	grep -qiE 'paranoid|permission|CAP_PERFMON' "$TMP/probe.out" && skip_all "perf_event_open refused: $(head -1 "$TMP/probe.out")"
fi
dd if=/dev/zero of=/dev/null bs=4k 2>/dev/null &
LOAD=$!
trap 'kill $LOAD 2>/dev/null; rm -rf "$TMP"' EXIT

# The unit of this shell's ulimit -f (POSIX says 512 bytes; bash counts 1024).
{ (ulimit -f 1 && exec head -c 4096 /dev/zero >"$TMP/unit") 2>/dev/null; } 2>/dev/null
unit=$(wc -c <"$TMP/unit" | tr -d ' ')
like "$unit" '^(512|1024)$' "this shell's ulimit -f counts blocks of $unit bytes"

# The recording's start (header, CPUs, the fixture's kallsyms and modules, the first /proc
# figures) with a few samples, to put the limit 32 KiB past it.
K="-e cpu-clock -u -b -d 0.2 --kallsyms $UI/kallsyms --modules $UI/modules"
mkdir "$TMP/probe"
"$KERNTOP" $K -n 1 --record "$TMP/probe/p.rec" >/dev/null 2>&1
base=$(wc -c <"$TMP/probe/p.rec" | tr -d ' ')
limit=$(((base + 32768) / unit))
mkdir "$TMP/lim"
rc=0
(ulimit -f "$limit" && exec "$KERNTOP" $K -n 300 --record "$TMP/lim/l.rec") \
	>/dev/null 2>"$TMP/lim.err" </dev/null || rc=$?
is "$rc" 1 "--record past ulimit -f ($limit blocks, $((limit * unit)) bytes): exit 1, not killed by SIGXFSZ (153)"
like "$(cat "$TMP/lim.err")" "^kerntop: .*l\.rec: the file size limit \(ulimit -f\) is reached after [0-9]+ bytes; the recording is readable up to its last complete block: raise the limit or record shorter$" \
	"the message names the limit, what was kept and the fix"
is "$(wc -l <"$TMP/lim.err" | tr -d ' ')" 1 "one line"
is "$(ls -A "$TMP/lim" | tr '\n' ' ')" "l.rec " "the recording stays, and nothing else (no temporary file)"
size=$(wc -c <"$TMP/lim/l.rec" | tr -d ' ')
ok $([ "$size" -gt "$base" ] && [ "$size" -le $((limit * unit)) ]; echo $?) \
	"its size ($size) is past the start ($base) and within the limit ($((limit * unit)))"
"$DUMP" "$TMP/lim/l.rec" >"$TMP/lim.dump" 2>&1
is "$?" 0 "the recording replays (test_replay_dump)"
n=$(field samples "$TMP/lim.dump")
ok $([ "${n:-0}" -gt 0 ]; echo $?) "the samples before the limit are there (${n:-0})"
is "$(field skipped "$TMP/lim.dump")" 0 "no torn last block (the part of the block that did not fit was cut off)"
rc=0
"$KERNTOP" -b --replay "$TMP/lim/l.rec" --speed max >"$TMP/lim.report" 2>"$TMP/lim.replay.err" || rc=$?
is "$rc" 0 "kerntop --replay of it: exit 0"
is "$(sed -n 's/^Samples: *\([0-9]*\).*/\1/p' "$TMP/lim.report" | tail -1)" "$n" "the report counts every sample kept"
like "$(cat "$TMP/lim.replay.err")" "no end marker \(kerntop was killed, or its disk or size limit filled\)" \
	"the replay says where the recording stops"
done_testing
