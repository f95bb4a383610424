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

# rec_samples FILE: the samples in the complete blocks of a recording, even one still written.
rec_samples() { "$DUMP" "$1" 2>/dev/null | sed -n 's/^samples //p'; }
# until_recorded PID FILE N: waits (bounded, 60 s) until kerntop PID has flushed more than N
# samples to FILE. Conditions, not sleeps: start-up alone takes a second on a loaded machine.
until_recorded() {
	w=600
	while [ "$w" -gt 0 ] && kill -0 "$1" 2>/dev/null; do
		[ "$(rec_samples "$2")" -gt "$3" ] 2>/dev/null && return 0
		sleep 0.1
		w=$((w - 1))
	done
	return 1
}
# until_ticked PID LOG: waits (bounded, 60 s) until kerntop PID has logged its first tick.
until_ticked() {
	w=600
	while [ "$w" -gt 0 ] && kill -0 "$1" 2>/dev/null; do
		grep -q '^.*tick: ' "$2" 2>/dev/null && return 0
		sleep 0.1
		w=$((w - 1))
	done
	return 1
}

# A clean run: SIGINT ends it (once more than 200 samples are flushed: a 0.5 s -d flushes the
# recording at each tick), the final report covers the whole run.
"$KERNTOP" -b -d 0.5 --cumulative -g --record "$TMP/rec" >"$TMP/live.out" 2>"$TMP/live.err" &
KT=$!
ok "$(until_recorded $KT "$TMP/rec" 200; echo $?)" "live run with --record: more than 200 samples recorded"
kill -INT $KT
wait $KT
is "$?" 0 "live run with --record ends on SIGINT with exit 0"
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
# and the final report (--cumulative) counts every sample delivered.
is "$rec" "$live" "recording holds exactly the reported samples"
ok $([ "$(field with_frames "$TMP/dump.out")" -gt $((rec / 2)) ]; echo $?) "most recorded samples carry a kernel chain"

"$KERNTOP" -b --replay "$TMP/rec" --speed max >"$TMP/replay.out" 2>&1
is "$?" 0 "kerntop -b --replay of the recording"
is "$(samples_line "$TMP/replay.out")" "$rec" "replay through the whole pipeline: same sample count"
like "$(cat "$TMP/replay.out")" "Source: +replay $TMP/rec" "report names the replayed file"
# The /proc readings of every refresh went in as PROCSTAT blocks and come back at their times.
"$KERNTOP" -b --replay "$TMP/rec" --speed max --format json >"$TMP/replay.json" 2>"$TMP/replay.err"
check "replay has the recorded /proc figures (PROCSTAT blocks)" python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).readline())
assert abs(sum(d["proc_stat"].values()) - 100) < 0.01, d
assert "NET_RX" in d["softirqs_per_s"] and d["proc_interval_s"] > 0, d
assert all("softirq_pct" in c for c in d["cpu"]), d["cpu"]' "$TMP/replay.json"

# Folded output in batch mode is one profile written at the end, over the whole run: after -n
# ticks (once -n reports concatenated, repeating every stack) and on SIGINT. The recording of
# the -n run replays to the very same profile.
FC="$top_srcdir/tests/tools/folded_check.py"
"$KERNTOP" -g -b -n 3 -d 0.4 --format folded --record "$TMP/frec" >"$TMP/f3.folded" 2>"$TMP/f3.err"
is "$?" 0 "live -g -b -n 3 --format folded"
check "live -n 3 folded: one strict profile (no stack repeated)" python3 "$FC" "$TMP/f3.folded"
n3=$(python3 "$FC" "$TMP/f3.folded" | sed -n 's/.*samples=\([0-9]*\).*/\1/p')
# The recording holds every sample of the run: the profile must count them all, not the
# last tick's (an exact count, whatever the machine's load).
is "${n3:-0}" "$(rec_samples "$TMP/frec")" "live -n 3 folded covers the whole 1.2 s run ($n3 samples, as many as recorded)"
ok $([ "${n3:-0}" -gt 0 ]; echo $?) "live -n 3 folded: samples"
"$KERNTOP" -b --replay "$TMP/frec" --speed max --format folded >"$TMP/frec.folded" 2>"$TMP/frec.err"
is "$(sort "$TMP/frec.folded" | md5sum)" "$(sort "$TMP/f3.folded" | md5sum)" "its recording replays to the same profile"
"$KERNTOP" -g -b -d 0.3 --format folded --log "$TMP/fint.log" >"$TMP/fint.folded" 2>"$TMP/fint.err" &
KT=$!
ok "$(until_ticked $KT "$TMP/fint.log"; echo $?)" "live folded run: first tick"
kill -INT $KT
wait $KT
is "$?" 0 "live folded run ended by SIGINT, exit 0"
check "live folded on SIGINT: one strict profile" python3 "$FC" "$TMP/fint.folded"

# kill -9 in the middle (once more than 100 samples are flushed): the blocks flushed at each
# refresh stay readable.
"$KERNTOP" -b -d 0.3 --record "$TMP/killed" >/dev/null 2>&1 &
KT=$!
ok "$(until_recorded $KT "$TMP/killed" 100; echo $?)" "more than 100 samples flushed before kill -9"
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
like "$(cat "$TMP/killed.err")" "^kerntop: .*killed: replayed [0-9]+ samples; (no end marker \(kerntop was killed, or its disk or size limit filled\)|truncated)" \
	"killed recording: batch replay says on stderr that it was not closed"
done_testing
