#!/bin/sh
# A long run compressed (issue 14, "Memory stays bounded in long runs"): stress-ng runs a
# different stressor every SOAK_STEP seconds (processes forking, pipes, sockets on loopback,
# files, memory maps, futexes: new pids, commands, kernel functions and call paths every few
# seconds), and the whole set SOAK_PASSES times. Beside it kerntop samples live with call
# chains at 1999 Hz as `kerntop -b -g -F 1999 -d 1` (the issue's run). Memory may grow during
# the first pass, which fills the window and meets every stressor once; after it, RSS may not
# pass its peak in the first pass by more than 10 % (the largest of the readings after each
# stressor, in each pass): what outlives the window
# (interned tasks and stacks, locations) is bounded by the code the kernel runs, not by run
# time. The viewer runs beside it in a tmux pane and its RSS is printed, not judged: its
# since-start totals (for the z key) still grow with task and call-path churn, up to their
# cap (docs/report-format.md, "Memory"; issue 14 left open for it). Under ASan (quarantine,
# shadow memory) RSS is printed, not judged, as in test_push.sh; the run itself still counts.
#   env: SOAK_PASSES=3, SOAK_STEP=2 (seconds per stressor)
. "${top_srcdir:-.}/tests/lib.sh"

passes=${SOAK_PASSES:-3}
step=${SOAK_STEP:-2}
# fork fifth: its thousands of short tasks grow the task table, and about 10 s later, as they
# leave the window, more than 1024 idle ones are retired into groups; both have to happen
# within the first pass, with the window nearly full (fork first met an empty window, and
# the second pass set the high-water mark the first had not: 10-16 % in one run of four; fork
# last left the retirement to the second pass)
STRESSORS="pipe switch mmap futex fork open dentry get sem udp hdd sock poll brk"

if ! command -v stress-ng >/dev/null 2>&1; then
	ok 1 "stress-ng is installed (apt-get install stress-ng; ./quickstart.sh test installs it)"
	done_testing
fi
if ! command -v tmux >/dev/null 2>&1; then
	ok 1 "tmux is installed (apt-get install tmux; ./quickstart.sh test installs it)"
	done_testing
fi
if ! "$KERNTOP" -g -b -n 1 -d 0.1 --format json >"$TMP/probe" 2>"$TMP/probe.err"; then
	skip_all "live sampling refused: $(head -1 "$TMP/probe.err")"
fi

S=kt-soak-$$
tm() { tmux -L "$S" -f /dev/null "$@"; }
BP=
cleanup() {
	[ -n "$BP" ] && kill "$BP" 2>/dev/null
	tm kill-server >/dev/null 2>&1
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP/stress"

"$KERNTOP" -b -g -F 1999 -d 1 --format json --log "$TMP/batch.log" >/dev/null 2>"$TMP/batch.err" &
BP=$!
tm new-session -d -s v -x 200 -y 50 "exec '$KERNTOP' -g -F 1999 --no-config --log '$TMP/view.log'"
VP=$(tm display-message -p -t v '#{pane_pid}')
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
# both have started sampling: the batch run's first report, the viewer's first refresh
n=300
while { ! grep -q ' tick: ' "$TMP/batch.log" 2>/dev/null || ! grep -q 'refresh:' "$TMP/view.log" 2>/dev/null; } && [ "$n" -gt 0 ]; do
	sleep 0.1
	n=$((n - 1))
done
ok "$([ "$n" -gt 0 ]; echo $?)" "both kerntops sample (a batch report and a viewer refresh)"

failed=0
b1= v1= bmax=0 vmax=0 bseen= vseen=
p=1
while [ "$p" -le "$passes" ]; do
	# RSS after every stressor, the largest of the pass kept: one reading per pass moved
	# by a megabyte either way with what was allocated at that moment (a refresh's tables)
	b=0 v=0
	for s in $STRESSORS; do
		# from inside its directory: the open stressor leaves a file in the working one
		(cd "$TMP/stress" && stress-ng --"$s" 2 --timeout "${step}s" --temp-path "$TMP/stress" \
			--hdd-bytes 8m -q >/dev/null 2>&1) || failed="$failed $s"
		x=$(rss "$BP") y=$(rss "$VP")
		if [ -z "$x" ] || [ -z "$y" ]; then
			b= v=
			break
		fi
		[ "$x" -gt "$b" ] && b=$x
		[ "$y" -gt "$v" ] && v=$y
	done
	bseen="$bseen ${b:-dead}"
	vseen="$vseen ${v:-dead}"
	if [ -z "$b" ] || [ -z "$v" ]; then
		break
	fi
	if [ "$p" -eq 1 ]; then
		b1=$b
		v1=$v
	else
		[ "$b" -gt "$bmax" ] && bmax=$b
		[ "$v" -gt "$vmax" ] && vmax=$v
	fi
	p=$((p + 1))
done
echo "# peak RSS (KiB) of each pass: batch$bseen; viewer$vseen"
ok "$([ "$p" -gt "$passes" ]; echo $?)" "both kerntops ran through $passes passes of the stressors"
fl=${failed#0}
ok "$([ "$failed" = 0 ]; echo $?)" "every stressor ran (failed:${fl:- none})"
if nm -D "$KERNTOP" 2>/dev/null | grep -q __asan_init || nm "$KERNTOP" 2>/dev/null | grep -q __asan_init; then
	# ASan keeps freed blocks in its quarantine and maps shadow memory: RSS says nothing here
	echo "# ASan build: batch RSS ${b1:-?} -> at most $bmax KiB not judged (quarantine)"
elif [ -n "$b1" ] && [ "$p" -gt "$passes" ]; then
	ok "$([ $((bmax * 10)) -le $((b1 * 11)) ]; echo $?)" \
		"batch -b -g: after the first pass its peak RSS stays within 10 % (first $b1 KiB, then at most $bmax)"
	echo "# viewer -g: peak RSS $v1 KiB in the first pass, then at most $vmax KiB (not judged)"
	tail -1 "$TMP/view.log" | sed 's/.*draw [0-9.]* ms, /# viewer at the end: /'
fi
kill -INT "$BP"
wait "$BP"
rc=$?
BP=
is "$rc" 0 "the batch run exits 0 on SIGINT"
tm send-keys -t v q
n=100
while tm has-session -t v 2>/dev/null && [ "$n" -gt 0 ]; do
	sleep 0.1
	n=$((n - 1))
done
ok "$([ "$n" -gt 0 ]; echo $?)" "the viewer quits on q"
grep -q 'batch: tick:' "$TMP/batch.log" && tail -1 "$TMP/batch.log" | sed 's/^/# /'
done_testing
