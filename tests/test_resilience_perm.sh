#!/bin/sh
# perf_event_open refused. The message path through the injection seam of the test build
# tests/kerntop_test (KERNTOP_INJECT_PERF_ERRNO, batch and viewer), and the real thing: an unprivileged user
# (setpriv --reuid=65534) under kernel.perf_event_paranoid=3, the strictest setting.
# The sysctl is global, so it is set for the few ms of one kerntop run and restored at once
# (and by the EXIT trap if the test dies); perf_event_paranoid does not apply to root, so the
# other tests, which sample as root, are not affected by it.
. "${top_srcdir:-..}/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
: "${KERNTOP_TEST:=$top_builddir/tests/kerntop_test}"

refused() { # refused DESCRIPTION: $rc and $TMP/err of a refused start
	is "$rc" 1 "$1: exit 1"
	is "$(wc -l <"$TMP/err" | tr -d ' ')" 1 "$1: one line"
	like "$(cat "$TMP/err")" "^kerntop: perf_event_open .*(permission denied|operation not permitted); .*perf_event_paranoid.*CAP_PERFMON.*root" \
		"$1: names perf_event_paranoid, CAP_PERFMON and root"
}

for e in EACCES EPERM; do
	rc=0
	KERNTOP_INJECT_PERF_ERRNO=$e "$KERNTOP_TEST" -b -n 1 -d 0.1 >"$TMP/out" 2>"$TMP/err" || rc=$?
	refused "injected $e, batch"
	is "$(wc -c <"$TMP/out" | tr -d ' ')" 0 "injected $e, batch: no report on stdout"
done
rc=0
KERNTOP_INJECT_PERF_ERRNO=EACCES "$KERNTOP_TEST" -b -n 1 -d 0.1 -o "$TMP/never.json" --record "$TMP/never.rec" >"$TMP/out" 2>"$TMP/err" || rc=$?
refused "injected EACCES with -o and --record"
is "$(ls "$TMP" | grep -c never)" 0 "injected EACCES: neither the -o nor the --record file is left"

# The viewer: the refusal comes before curses starts, so the terminal is never touched.
if command -v tmux >/dev/null 2>&1; then
	. "$top_srcdir/tests/ui_lib.sh"
	real=$KERNTOP KERNTOP=$KERNTOP_TEST
	ui_start 80 24 KERNTOP_INJECT_PERF_ERRNO=EACCES --
	KERNTOP=$real
	see "^EXIT=1" "injected EACCES, viewer: exit 1" 30
	like "$(cat "$TMP/stderr" 2>/dev/null)" "^kerntop: perf_event_open cpu-clock on cpu [0-9]+: permission denied" "injected EACCES, viewer: the message is on stderr"
	is "$(wc -l <"$TMP/stderr" | tr -d ' ')" 1 "injected EACCES, viewer: one line"
	is "$(tm display -p -t "$S" '#{alternate_on}')" 0 "injected EACCES, viewer: not left in the alternate screen"
fi

# The real refusal.
P=/proc/sys/kernel/perf_event_paranoid
if [ "$(id -u)" -ne 0 ]; then
	echo "ok $((T_N + 1)) - real refusal # SKIP needs root to set $P and become nobody"; T_N=$((T_N + 1))
elif ! command -v setpriv >/dev/null 2>&1; then
	echo "ok $((T_N + 1)) - real refusal # SKIP setpriv is not installed (util-linux)"; T_N=$((T_N + 1))
else
	old=$(cat $P)
	# Every way out restores the global setting: the normal path at once, the EXIT trap if
	# the test fails on the way, and INT/TERM/HUP (sh runs no EXIT trap on a fatal signal).
	restore() { [ "$(cat $P)" = "$old" ] || echo "$old" >$P 2>/dev/null; }
	trap 'restore; tm kill-server >/dev/null 2>&1; rm -rf "$TMP"' EXIT
	trap 'restore; exit 129' HUP
	trap 'restore; exit 130' INT
	trap 'restore; exit 143' TERM
	if ! echo 3 >$P 2>"$TMP/sysctl.err"; then
		echo "ok $((T_N + 1)) - real refusal # SKIP cannot write $P: $(head -1 "$TMP/sysctl.err")"; T_N=$((T_N + 1))
	else
		rc=0
		# bounded: a kerntop that hung would otherwise keep the sysctl at 3
		timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups "$KERNTOP" -b -n 1 -d 0.1 \
			>"$TMP/out" 2>"$TMP/err" || rc=$?
		restore
		is "$(cat $P)" "$old" "perf_event_paranoid restored to $old"
		refused "nobody under perf_event_paranoid=3"
		like "$(cat "$TMP/err")" "\(it is 3" "nobody under perf_event_paranoid=3: the message quotes the current value"
	fi
fi
done_testing
