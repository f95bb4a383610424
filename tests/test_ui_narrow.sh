# The viewer at 80 columns and below, driven in tmux on the replayed UI fixtures
# (tests/data/ui/gen.py): the key bar keeps w and Space, the title keeps its markers, status
# messages fit and go away, help wraps, keys do nothing while the terminal is too small,
# per-CPU columns and the CPU screen's bar use the width, user ~N% without -u, CPU sets.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/ui_lib.sh"
mkdir -p "$TMP/snap"
# The test build of kerntop: its status-line clock runs ahead by the seconds in $CLOCK
# (tests/seam/ui_clock_offset.c), so the 5 s and 15 s status timeouts pass at once.
KERNTOP=${KERNTOP_TEST:-$top_builddir/tests/kerntop_test}
CLOCK="$TMP/clock"
echo 0 >"$CLOCK"
skip_ahead() { echo $(($(cat "$CLOCK") + $1)) >"$CLOCK"; } # skip_ahead SECONDS
ui_replay() { # every session reads the skipping clock
	rw=$1 rh=$2
	shift 2
	renv="KERNTOP_TEST_CLOCK=$CLOCK"
	while [ $# -gt 0 ] && [ "$1" != -- ]; do renv="$renv $1"; shift; done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2086 # env assignments are single words
	ui_start "$rw" "$rh" $renv -- --replay "$UI_DATA/ui.perf" --speed max \
		--kallsyms "$UI_DATA/kallsyms" --modules "$UI_DATA/modules" \
		--snapshot-dir "$TMP/snap" --log "$TMP/ui.log" "$@"
}
snapfile() { printf '%s\n' "$SCREEN" | sed -n 's/.*snapshot written to \([^ ]*\).*/\1/p'; }
nsnaps() { find "$TMP/snap" -type f | wc -l | tr -d ' '; }

ui_replay 80 24
see '^nosym +18 ' "80x24: module rows"
see '^Enter open +c CPUs +t tasks +s sort +/ filter +Spc pause +w snap +h help +q quit$' "root key bar at 80: w and Space kept, no back"
see '^kerntop REPLAY ui\.perf t=8\.0s cpu-clock 997 Hz +window 10s +2 CPUs$' "title at 80"
see '^kernel 1\.3% +idle 1\.1% +user 0\.0% +385 hits in 8\.0s +lost 0 +throttled 0$' "figures at 80: samples/s gives way to throttled"
see '^cpu0 \[.*\] +1\.4% +cpu1 \[.*\] +1\.1%' "per-CPU strip at 80"
keys Down Enter
see '^Enter open +Esc back +g callers +G callees +Spc pause +w snap +h help +q quit$' "functions key bar at 80: short labels make room for back, w and Space"
keys Enter Enter
see '^Enter open +Right open +Left close +Esc back +Spc pause +w snap +h help +q quit$' "callers key bar at 80"
keys BSpace BSpace BSpace

# status messages: informational ones go at the next key or after 5 s
keys i
see '^idle hidden$' "i: informational status"
keys Down
unseen '^idle hidden$' "the next key clears it"
keys i
see '^idle shown$' "i again"
skip_ahead 6
unseen '^idle shown$' "and it goes by itself after 5 s (the viewer's clock skipped 6 s)"
keys Up

# markers survive every filter at 80 columns: CPU, task, idle, PAUSED
keys t
see '^ +1000 +1000 +iperf3 +113 ' "tasks screen"
keys Down Enter i ' '
see '^kerntop REPLAY ui\.perf t=8\.0s +window 10s +task 1000 iperf3 +idle hidden +PAUSED$' "task filter, idle hidden and PAUSED all on the title (event and CPU count gave way)"
see '^cpu0 \[.*\] +1\.4% +cpu1 \[ +\] +0\.0%' "strip under the task filter: cpu1 without hits shows 0 %"
keys c m
see '^kerntop REPLAY ui\.perf t=8\.0s +cpu 0 +task 1000 iperf3 +idle hidden +PAUSED$' "m on the CPU screen: the set (cpu 0) joins the markers (the window gave way)"
keys Escape x ' ' i
unseen 'PAUSED' "x, Space, i: back to normal"

# help at 80 columns: wrapped, aligned, no entry without help text
keys h
see '^  Enter +open the row: module > functions > lines > callers or$' "help: a long line breaks at a space"
see '^ {22}callees; stack > frames > lines; CPU, task or context:$' "and goes on under its text"
see '^  Backspace Left Esc  back to the previous screen$' "key column as wide as the widest keys"
keys End
see '^  Ctrl-L +repaint the whole terminal$' "Ctrl-L alone (no 'resize')"
unseen 'resize' "the resize pseudo-key is not listed"
keys h

# too small: only q, resize and Ctrl-L act
before=$(nsnaps)
see '^modules +2/5$' "on the modules screen, vmlinux (the selection followed it when x cleared the filters)"
tm resize-window -t "$S" -x 40 -y 12
see 'terminal too small \(need 60x10\)' "40x12: too small"
keys Down Enter w c
sleep 0.5
tm resize-window -t "$S" -x 20 -y 12
see '^ too small \(60x10\)$' "20 columns: the message still fits"
tm resize-window -t "$S" -x 80 -y 24
see '^modules +2/5$' "back at 80x24 on the same screen and row: Down and Enter did nothing"
is "$(nsnaps)" "$before" "and w wrote no file"
keys q
see '^EXIT=0$' "q quits"

# a long file name shrinks in the middle; REPLAY, t= and PAUSED stay
long="$TMP/a-very-long-recording-name-of-the-iperf-reproduction-on-host-b.perf"
cp "$UI_DATA/ui.perf" "$long"
ui_start 80 24 -- --replay "$long" --speed max --kallsyms "$UI_DATA/kallsyms" \
	--modules "$UI_DATA/modules" --snapshot-dir "$TMP/snap"
see 'replay finished' "long file name: started"
keys ' '
see '^kerntop REPLAY a-very-long-re[a-z-]*\.\.\.[a-z-]*-host-b\.perf t=8\.0s +window 10s +PAUSED$' "the name loses its middle, the markers stay"
keys q

# status messages longer than the line keep their end (what to do)
touch "$TMP/a-file-not-a-directory"
deep="$TMP/a-file-not-a-directory/with/a/long/path/under/it/for/snapshots"
ui_replay 80 24 -- --snapshot-dir "$TMP/a-file-not-a-directory"
see '^w will fail: /tmp/.*\.\.\.[a-z]*: not a directory; choose a directory to write into$' "a --snapshot-dir that is a file: said at start, the path loses its middle"
keys w
see '^snapshot failed: .*: not a directory; choose a directory to write into$' "w: 'not a directory', not 'File exists'"
keys W Enter C-u
tm send-keys -t "$S" -l "$deep/x.txt"
keys Enter
see '^snapshot failed: /tm.*\.\.\.[a-z]*: Not a directory; create the directory or choose$' "a long error: the path shortened, the rest wrapped"
see '^another path$' "onto the key bar's line"
skip_ahead 16
see '^Enter open ' "the key bar comes back when the error goes (15 s; the clock skipped 16 s)"
keys q

# per-CPU columns: other columns give way; a '+N' counts the CPUs that do not fit
ui_replay 80 24
see '^vmlinux +118 ' "started for p"
keys Down Enter p
see '^Function +\[Hits\] +CPU ms +%Kernel +%Machine +cpu0 +cpu1$' "p at 80: both CPUs (Hits/s gave way)"
see '^copy_user_generic +60 .* 50 +10$' "per-CPU hits"
keys q
awk 'BEGIN { for (i = 0; i < 120; i++) { c = i % 12;
	printf "iperf3 1000/1000 [%03d] %.6f: 1003009 cpu-clock: \n", c, 100 + i * 0.01;
	printf "\tffffffff81000700 copy_user_generic+0x0 ([kernel.kallsyms])\n\n" } }' >"$TMP/cpus12.perf"
ui_start 80 24 -- --replay "$TMP/cpus12.perf" --speed max --kallsyms "$UI_DATA/kallsyms" \
	--modules "$UI_DATA/modules" --snapshot-dir "$TMP/snap"
see 'replay finished' "12 CPUs: started"
see '^kerntop REPLAY cpus12\.perf .* 12 CPUs$' "12 CPUs in the title"
keys p
see '^Module +\[Hits\] +%Kernel +cpu0 +cpu1 +cpu2 +cpu3 +cpu4 +\+7$' "p: five CPU columns and +7"
see '^vmlinux +120 +100\.0% +10 +10 +10 +10 +10$' "their hits"
keys p c m Down m m
see 'cpus 0,2-3' "m on 0, 2, 3: the set, ranges folded"
see '^\*2 +10 ' "the set is marked on the CPU screen"
keys Escape
see '^vmlinux +30 ' "every screen shows the set's hits"
keys p
see '^Module +\[Hits\] .* cpu0 +cpu2 +cpu3$' "per-CPU columns: the set's CPUs"
keys w
see 'snapshot written to ' "w with a CPU set"
like "$(cat "$(snapfile)" 2>/dev/null)" '== modules on cpus 0,2-3 \(1 of 1 rows\) ==' "the snapshot's title names the set"
keys c Enter
see '^kerntop .*  cpu 0$' "Enter on a CPU: that CPU only"
keys x
unseen '^kerntop .*cpu 0' "x: all CPUs"
keys q

# the CPU screen's bar takes the spare width; Top function stays at 80
ui_replay 130 24
see '^vmlinux +118 ' "started at 130 columns"
keys c
see '^0 +233 \[[ #u.]{30,}\] +1\.4% +0\.0% +1\.5% +vmlinux +copy_user_generic' "130 columns: a wide bar"
tm resize-window -t "$S" -x 80 -y 24
see '^0 +233 \[[ #u.]{12,}\] +1\.4% +0\.0% +1\.5% copy_user_generic$' "80 columns: Top function kept"
keys q

# without -u the header and the CPU screen show user as what kernel and idle leave
ui_start 100 24 -- --replay "$UI_DATA/ui-nouser.perf" --speed max --kallsyms "$UI_DATA/kallsyms" \
	--modules "$UI_DATA/modules" --snapshot-dir "$TMP/snap"
see '^kernel 1\.3% +idle 1\.1% +user ~97\.6% ' "header: user ~97.6%, not user 0.0%"
keys c
see '^0 +233 \[u+ *\] +1\.4% +~97\.1% +1\.5% ' "CPU screen: ~97.1% on cpu0 (100 - 1.4 - 1.5)"
keys q

no_stderr
done_testing
