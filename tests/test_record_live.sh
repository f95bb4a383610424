#!/bin/sh
# --record while sampling live, then --replay: the recording carries the samples, the CPUs, the
# call chains and this machine's kallsyms; a kill -9 in the middle leaves a file that replays up
# to its last complete block.
. "${top_srcdir:-..}/tests/lib.sh"
DUMP="$top_builddir/tests/test_replay_dump"
field() { sed -n "s/^$1 //p" "$2"; }
samples_line() { sed -n 's/^Samples: *\([0-9]*\).*/\1/p' "$1" | tail -1; }

if ! "$KERNTOP" -b -n 1 -d 0.2 >"$TMP/probe.out" 2>&1; then
	grep -qiE 'paranoid|permission|CAP_PERFMON' "$TMP/probe.out" && skip_all "perf_event_open refused: $(head -1 "$TMP/probe.out")"
fi
dd if=/dev/zero of=/dev/null bs=4k 2>/dev/null &
LOAD=$!
trap 'kill $LOAD 2>/dev/null; rm -rf "$TMP"' EXIT

# A clean run: SIGINT ends it, the final report covers the whole run.
timeout -s INT 3 "$KERNTOP" -b -d 10 -g --record "$TMP/rec" >"$TMP/live.out" 2>"$TMP/live.err"
is "$?" 124 "live run with --record ends on SIGINT"
like "$(ls -l "$TMP/rec")" "^-rw-------" "recording is mode 0600"
check "recording replays" "$DUMP" "$TMP/rec"
"$DUMP" "$TMP/rec" >"$TMP/dump.out" 2>&1
is "$(field skipped "$TMP/dump.out")" 0 "clean recording: nothing skipped"
is "$(field notice "$TMP/dump.out")" "" "clean recording: no notice (end marker present)"
is "$(field ncpus "$TMP/dump.out")" "$(nproc)" "recording: every online CPU"
is "$(field callchain "$TMP/dump.out")" 1 "recording: -g call chains flagged"
is "$(field kallsyms_len "$TMP/dump.out")" "$(wc -c </proc/kallsyms)" "recording carries this machine's kallsyms"
live=$(samples_line "$TMP/live.out")
rec=$(field samples "$TMP/dump.out")
ok $([ "${live:-0}" -gt 200 ]; echo $?) "live run sampled ($live samples)"
# The recording holds exactly what the sink saw: sampling stops before the recording closes,
# and the final report (a 3 s run in a 10 s window) counts every sample delivered.
is "$rec" "$live" "recording holds exactly the reported samples"
ok $([ "$(field with_frames "$TMP/dump.out")" -gt $((rec / 2)) ]; echo $?) "most recorded samples carry a kernel chain"

"$KERNTOP" -b --replay "$TMP/rec" --speed max >"$TMP/replay.out" 2>&1
is "$?" 0 "kerntop -b --replay of the recording"
is "$(samples_line "$TMP/replay.out")" "$rec" "replay through the whole pipeline: same sample count"
like "$(cat "$TMP/replay.out")" "Source: +replay $TMP/rec" "report names the replayed file"

# Folded output in batch mode is one profile written at the end, over the whole run: after -n
# ticks (once -n reports concatenated, repeating every stack) and on SIGINT. The recording of
# the -n run replays to the very same profile.
FC="$top_srcdir/tests/tools/folded_check.py"
"$KERNTOP" -g -b -n 3 -d 0.4 --format folded --record "$TMP/frec" >"$TMP/f3.folded" 2>"$TMP/f3.err"
is "$?" 0 "live -g -b -n 3 --format folded"
check "live -n 3 folded: one strict profile (no stack repeated)" python3 "$FC" "$TMP/f3.folded"
n3=$(python3 "$FC" "$TMP/f3.folded" | sed -n 's/.*samples=\([0-9]*\).*/\1/p')
ok $([ "${n3:-0}" -gt 500 ]; echo $?) "live -n 3 folded covers the whole 1.2 s run ($n3 samples)"
"$KERNTOP" -b --replay "$TMP/frec" --speed max --format folded >"$TMP/frec.folded" 2>&1
is "$(sort "$TMP/frec.folded" | md5sum)" "$(sort "$TMP/f3.folded" | md5sum)" "its recording replays to the same profile"
timeout -s INT 1.2 "$KERNTOP" -g -b -d 0.3 --format folded >"$TMP/fint.folded" 2>"$TMP/fint.err"
is "$?" 124 "live folded run ended by SIGINT"
check "live folded on SIGINT: one strict profile" python3 "$FC" "$TMP/fint.folded"

# kill -9 in the middle: the blocks flushed at each refresh stay readable.
"$KERNTOP" -b -d 0.3 --record "$TMP/killed" >/dev/null 2>&1 &
KT=$!
sleep 1.5
kill -9 $KT
wait $KT 2>/dev/null
"$DUMP" "$TMP/killed" >"$TMP/killed.out" 2>&1
is "$?" 0 "killed recording replays"
ok $([ "$(field samples "$TMP/killed.out")" -gt 100 ]; echo $?) "killed recording: flushed samples replayed ($(field samples "$TMP/killed.out"))"
like "$(field skipped "$TMP/killed.out")" "^[01]$" "killed recording: at most one torn block"
like "$(field notice "$TMP/killed.out")" "end marker|truncated" "killed recording: a notice says it was not closed"
"$KERNTOP" -b --replay "$TMP/killed" --speed max >"$TMP/killed.report" 2>"$TMP/killed.err"
is "$?" 0 "kerntop -b --replay of the killed recording: exit 0"
is "$(samples_line "$TMP/killed.report")" "$(field samples "$TMP/killed.out")" "killed recording: the report counts every flushed sample"
like "$(tail -1 "$TMP/killed.err")" "^kerntop: .*killed: replayed [0-9]+ samples; (no end marker \(kerntop did not exit cleanly\)|truncated)" \
	"killed recording: batch replay says on stderr that it was not closed"
done_testing
