#!/bin/sh
# Soak test (make soak; not part of make check): kerntop samples live for MINUTES (default 30)
# under a changing kernel load, and its resident memory must stay flat. The 10 s window holds
# only what was hit in the last 10 s, so after the first minute RSS must not grow:
#   last RSS <= first RSS x 1.1 + 1 MiB   (first = after minute 1, when the window is full)
# The load churns everything the window interns: a big-read dd and a small-read dd per CPU
# (steady kernel functions), a fork loop (thousands of new pids and comms per minute), and
# file-system walks (many distinct kernel functions and call chains). kerntop runs in batch mode
# with -g (stack interning too) and one JSON report per second; RSS (VmRSS) is read from
# /proc/PID/status every SOAK_INTERVAL seconds (default 60).
#   tests/soak.sh [MINUTES]        env: KERNTOP=path/to/kerntop, SOAK_INTERVAL=60,
#                                  SOAK_CHURN=0 (only the dd load: no new pids, few new functions)
set -u
min=${1:-30}
interval=${SOAK_INTERVAL:-60}
here=$(cd "$(dirname "$0")" && pwd)
K=${KERNTOP:-$here/../build/kerntop}
[ -x "$K" ] || { echo "soak: no kerntop binary at $K (set KERNTOP)" >&2; exit 2; }
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

"$K" -b -g -d 1 --format json >"$TMP/reports.json" 2>"$TMP/err" &
kp=$!
PIDS="$kp $PIDS"
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$kp/status" 2>/dev/null; }
echo "soak: kerntop pid $kp, $min minutes, RSS every $interval s (KiB), churn ${SOAK_CHURN:-1}"
first=
last=
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
	i=$((i + 1))
done
kill -TERM "$kp"
wait "$kp"
rc=$?
limit=$(( first * 11 / 10 + 1024 ))
status=0
if [ "$rc" -eq 0 ]; then echo "ok 1 - kerntop exits 0 on SIGTERM"; else echo "not ok 1 - kerntop exit $rc"; status=1; fi
if [ "$last" -le "$limit" ]; then
	echo "ok 2 - RSS flat: first $first KiB, last $last KiB <= $limit KiB"
else
	echo "not ok 2 - RSS grew: first $first KiB, last $last KiB > $limit KiB"
	status=1
fi
if [ -s "$TMP/err" ]; then echo "# stderr: $(head -3 "$TMP/err")"; fi
echo "1..2"
exit $status
