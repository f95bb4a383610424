#!/bin/sh
# Signal storms during live sampling. Batch mode: hundreds of SIGWINCH change nothing, then a
# storm of SIGINT or SIGTERM ends it once, cleanly (exit 0, the -o file published whole, the
# --record file replayable). The viewer under tmux: SIGWINCH storms and real resizes, then a
# SIGINT/SIGTERM storm, and a fatal SIGSEGV: each time the terminal is restored (the pane has
# left the alternate screen, the cursor is visible, stty shows icanon and echo).
. "${top_srcdir:-..}/tests/lib.sh"
DUMP="$top_builddir/tests/test_replay_dump"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
if ! "$KERNTOP" -b -n 1 -d 0.1 --format json >"$TMP/probe" 2>"$TMP/probe.err"; then
	skip_all "live sampling refused: $(head -1 "$TMP/probe.err")"
fi
. "$top_srcdir/tests/ui_lib.sh"
LOAD=
trap 'kill $LOAD 2>/dev/null; tm kill-server >/dev/null 2>&1; rm -rf "$TMP"' EXIT
dd if=/dev/zero of=/dev/null bs=64k 2>/dev/null &
LOAD=$!

storm() { # storm SIG COUNT PID: COUNT signals as fast as the shell sends them
	i=0
	while [ $i -lt "$2" ]; do
		kill -"$1" "$3" 2>/dev/null || break
		i=$((i + 1))
	done
}
# lines PID: whole report lines kerntop PID has written so far into its -o temp file in $TMP
lines() { cat "$TMP"/.kerntop-"$1"-*.tmp 2>/dev/null | wc -l | tr -d ' '; }
# wait_reports PID N SECONDS: until kerntop PID has written N reports, or SECONDS pass. The
# timed part of a test starts from a report seen, not from a fixed sleep: on a loaded machine
# kerntop's start-up alone takes most of a second.
wait_reports() {
	n=$(( $3 * 20 ))
	while [ $n -gt 0 ] && [ "$(lines "$1")" -lt "$2" ]; do sleep 0.05; n=$((n - 1)); done
	[ "$(lines "$1")" -ge "$2" ]
}
reports() { python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert [x["report"] for x in r] == list(range(1, len(r) + 1))
print(len(r))' "$1" 2>/dev/null || echo bad; }

# --- batch mode ---------------------------------------------------------------------------
for sig in INT TERM; do
	f="$TMP/batch-$sig.json"
	"$KERNTOP" -b -d 0.2 --format json -o "$f" --record "$TMP/rec-$sig" 2>"$TMP/err-$sig" &
	kp=$!
	wait_reports $kp 1 30
	ok $? "batch, $sig run: the first report is written"
	storm WINCH 300 $kp
	seen=$(lines $kp)
	wait_reports $kp $((seen + 1)) 10
	ok $? "batch, $sig run: still reporting after 300 SIGWINCH ($(lines $kp) reports)"
	seen=$(lines $kp)
	storm $sig 100 $kp
	wait $kp
	is "$?" 0 "batch: a storm of 100 SIG$sig ends it with exit 0"
	like "$(grep -vE '^kerntop: (-e auto: no cycles event here|[0-9]+% of kernel hits are in IRQ-enabling helpers)' "$TMP/err-$sig")" "^$" "batch, SIG$sig: nothing on stderr (but the one-line notices of -e auto and of the IRQ-off skew)"
	n=$(reports "$f")
	ok $([ "$n" != bad ] && [ "$n" -ge 2 ] && [ "$n" -gt "$seen" ]; echo $?) \
		"batch, SIG$sig: -o file published, $n whole JSON reports ($seen before the signal, then a last one)"
	is "$(ls -a "$TMP" | grep -c '^\.kerntop-')" 0 "batch, SIG$sig: no temp file left"
	"$DUMP" "$TMP/rec-$sig" >"$TMP/dump-$sig" 2>&1
	is "$?" 0 "batch, SIG$sig: the --record file replays"
	is "$(sed -n 's/^skipped //p' "$TMP/dump-$sig")" 0 "batch, SIG$sig: the recording closed cleanly (nothing skipped)"
done

# Interleaved storms from two senders at once: SIGWINCH keeps coming while SIGINT arrives.
"$KERNTOP" -b -d 0.2 --format json -o "$TMP/mixed.json" --record "$TMP/rec-mixed" 2>"$TMP/err-mixed" &
kp=$!
wait_reports $kp 1 30
ok $? "batch, mixed storm: the first report is written"
storm WINCH 2000 $kp &
sp=$!
sleep 0.1
storm INT 20 $kp
wait $kp
is "$?" 0 "batch: SIGINT during a SIGWINCH storm exits 0"
wait $sp 2>/dev/null
n=$(reports "$TMP/mixed.json")
ok $([ "$n" != bad ] && [ "$n" -ge 1 ]; echo $?) "batch, mixed storm: whole reports ($n)"

# --- the viewer under tmux ----------------------------------------------------------------
# term_restored DESCRIPTION: kerntop has exited and the pane's terminal is back to normal.
term_restored() {
	see "^EXIT=$2" "$1: kerntop exited with status $2" 10
	is "$(tm display -p -t "$S" '#{alternate_on}')" 0 "$1: alternate screen left (rmcup)"
	is "$(tm display -p -t "$S" '#{cursor_flag}')" 1 "$1: cursor visible"
	tty=$(tm display -p -t "$S" '#{pane_tty}')
	modes=$(stty -a -F "$tty" 2>&1 | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo|isig|icrnl|opost)' | tr '\n' ' ')
	is "$modes" "icrnl opost isig icanon echo " "$1: stty shows a sane line discipline"
}
until_logged() { # until_logged TEXT LOG: bounded wait (30 s) for a line of the viewer's --log
	w=300
	while [ "$w" -gt 0 ] && ! grep -q "$1" "$2" 2>/dev/null; do sleep 0.1; w=$((w - 1)); done
}
kpid() { ps -o pid= --ppid "$(tm display -p -t "$S" '#{pane_pid}')" | tr -d ' ' | head -1; }

for sig in INT TERM; do
	ui_start 100 30 -- -d 0.2 --log "$TMP/ui-$sig.log"
	see "vmlinux" "viewer ($sig run): the live module list is up" 10
	kp=$(kpid)
	storm WINCH 300 "$kp"
	tm resize-window -t "$S" -x 40 -y 12 2>/dev/null
	until_logged "resize 40x12" "$TMP/ui-$sig.log"
	tm resize-window -t "$S" -x 100 -y 30 2>/dev/null
	storm WINCH 300 "$kp"
	# keys act only once the viewer is back at 100x30 (too small, they do nothing): the last
	# size it logged, after the 40x12 one, must be 100x30
	w=300
	while [ "$w" -gt 0 ] && [ "$(grep -o 'resize [0-9]*x[0-9]*' "$TMP/ui-$sig.log" | tail -1)" != "resize 100x30" ]; do
		sleep 0.1
		w=$((w - 1))
	done
	ok "$(kill -0 "$kp" 2>/dev/null; echo $?)" "viewer: still running after the storms (its pid is alive)"
	ok "$(grep -c 'resize 40x12' "$TMP/ui-$sig.log" >/dev/null; echo $?)" "viewer: the real resize reached it"
	# still drawing and reading keys: a screen it was not on before (the old one may linger)
	keys c
	see "^modules > CPUs " "viewer: still drawing after 600 SIGWINCH and two resizes (c opens the CPU screen)" 10
	keys Escape
	see "^modules +[0-9]+/[0-9]+$" "viewer: and back to the module list" 10
	storm "$sig" 50 "$kp"
	term_restored "viewer, storm of 50 SIG$sig" 0
done

# A fatal signal: the emergency path restores the terminal, then the default action runs.
ui_start 100 30 -- -d 0.2
see "vmlinux" "viewer (SIGSEGV run): the live module list is up" 10
kill -SEGV "$(kpid)"
term_restored "viewer, SIGSEGV" 139
done_testing
