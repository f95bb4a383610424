#!/bin/sh
# Soak test (make soak; not part of make check): kerntop samples live for MINUTES (default 30,
# at least 3) under a changing kernel load, and its resident memory must stay flat. The 10 s
# window holds only what was hit in the last 10 s; what outlives it (since-start totals, one
# location per function slice run, retired tasks and stacks) grows only with new kernel code,
# command names and call paths, up to caps, so after the first minute RSS must stay about flat.
# With r1..rN the RSS read after each minute (r1 when the window is full), allowance =
# r1 x 0.1 + 1 MiB:
#   1. overall:  rN <= r1 + allowance;
#   2. no trend: the least-squares slope of the last half (r[N/2+1]..rN, per minute), carried
#      over the whole run (x (N - 1) minutes), stays within the allowance: a steady rise at the
#      end fails even when it has not yet piled up past the overall bound.
# Fewer than 3 readings cannot show a trend (and 1 would compare r1 with itself): refused.
# The load churns everything the window interns: a big-read dd and a small-read dd per CPU
# (steady kernel functions), a fork loop (thousands of new pids and comms per minute), and
# file-system walks (many distinct kernel functions and call chains). kerntop runs in batch mode
# with -g (stack interning too) and one JSON report per second; RSS (VmRSS) is read from
# /proc/PID/status every SOAK_INTERVAL seconds (default 60).
#   tests/soak.sh [MINUTES]        env: KERNTOP=path/to/kerntop, SOAK_INTERVAL=60,
#                                  SOAK_CHURN=0 (only the dd load: no new pids, few new functions),
#                                  SOAK_LOG=FILE (kerntop's --log: memory figures per report)
set -u
min=${1:-30}
interval=${SOAK_INTERVAL:-60}
here=$(cd "$(dirname "$0")" && pwd)
K=${KERNTOP:-$here/../build/kerntop}
[ -x "$K" ] || { echo "soak: no kerntop binary at $K (set KERNTOP)" >&2; exit 2; }
[ "$min" -ge 3 ] 2>/dev/null || { echo "soak: at least 3 minutes (readings), not '$min': fewer show no trend" >&2; exit 2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kerntop-soak.XXXXXX")
PIDS=
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

for c in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$c" dd if=/dev/zero of=/dev/null bs=64k 2>/dev/null &
	PIDS="$PIDS $!"
	taskset -c "$c" dd if=/dev/zero of=/dev/null bs=512 2>/dev/null &
	PIDS="$PIDS $!"
done
if [ "${SOAK_CHURN:-1}" != 0 ]; then
	sh -c 'while :; do /bin/true; done' &
	PIDS="$PIDS $!"
	sh -c 'while :; do find /usr /proc/sys -maxdepth 3 >/dev/null 2>&1; done' &
	PIDS="$PIDS $!"
fi

# SOAK_LOG=FILE keeps kerntop's --log: window memory, tasks, stacks and RSS per report
"$K" -b -g -d 1 --format json ${SOAK_LOG:+--log "$SOAK_LOG"} >"$TMP/reports.json" 2>"$TMP/err" &
kp=$!
PIDS="$kp $PIDS"
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$kp/status" 2>/dev/null; }
echo "soak: kerntop pid $kp, $min minutes, RSS every $interval s (KiB), churn ${SOAK_CHURN:-1}"
first=
last=
all=
i=1
while [ $i -le "$min" ]; do
	sleep "$interval"
	if ! kill -0 "$kp" 2>/dev/null; then
		echo "not ok - kerntop died after $i interval(s): $(head -3 "$TMP/err")"
		exit 1
	fi
	r=$(rss)
	n=$(wc -l <"$TMP/reports.json")
	lost=$(tail -1 "$TMP/reports.json" | python3 -c 'import json,sys; d=json.loads(sys.stdin.readline()); print(d["samples"], d["lost"], len(d.get("stacks", [])))' 2>/dev/null)
	echo "minute $i: rss $r KiB, reports $n, last report samples/lost/stacks $lost"
	[ -n "$first" ] || first=$r
	last=$r
	all="$all $r"
	i=$((i + 1))
done
kill -TERM "$kp"
wait "$kp"
rc=$?
allow=$(( first / 10 + 1024 ))
limit=$(( first + allow ))
status=0
if [ "$rc" -eq 0 ]; then echo "ok 1 - kerntop exits 0 on SIGTERM"; else echo "not ok 1 - kerntop exit $rc"; status=1; fi
if [ "$last" -le "$limit" ]; then
	echo "ok 2 - RSS flat: first $first KiB, last $last KiB <= $limit KiB"
else
	echo "not ok 2 - RSS grew: first $first KiB, last $last KiB > $limit KiB"
	status=1
fi
# shellcheck disable=SC2086 # the readings are one word each
echo "# minute to minute (KiB):$(echo $all | awk '{ for (i = 2; i <= NF; i++) printf " %+d", $i - $(i - 1) }')"
# shellcheck disable=SC2086
trend=$(echo $all | awk '{
	n = NF; a = int(n / 2) + 1; m = n - a + 1
	for (i = a; i <= n; i++) { sx += i; sy += $i }
	for (i = a; i <= n; i++) { num += (i - sx / m) * ($i - sy / m); den += (i - sx / m) ^ 2 }
	printf "%.0f %d %d", num / den * (n - 1), a, n
}')
set -- $trend
if [ "$1" -le "$allow" ]; then
	echo "ok 3 - no growth trend: the slope of minutes $2..$3, carried over the run, adds $1 KiB <= $allow KiB"
else
	echo "not ok 3 - RSS still rising: the slope of minutes $2..$3, carried over the run, adds $1 KiB > $allow KiB"
	status=1
fi
if [ -s "$TMP/err" ]; then echo "# stderr: $(head -3 "$TMP/err")"; fi
echo "1..3"
exit $status
