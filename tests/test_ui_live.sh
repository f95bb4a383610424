# The viewer on live perf data in tmux: the module list shows vmlinux and a busy figure
# within 2 s, Space freezes the screen while sampling goes on (w then writes what is on
# screen) and resumes to the current state, and q restores the terminal.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/ui_lib.sh"

if ! err=$("$KERNTOP" -b -n 1 -d 0.2 2>&1 >/dev/null); then
	case "$err" in
	*perf_event_open*|*paranoid*|*permission*) skip_all "live sampling refused here: $err" ;;
	esac
fi

mkdir -p "$TMP/snap"
ui_start 100 30 -- -d 0.5 --log "$TMP/ui.log" --snapshot-dir "$TMP/snap"
see '^vmlinux +[0-9]+ ' "live: vmlinux row within the wait" 5
# kallsyms only: libelf, libdw (and their compressors), Capstone and libcurl are not mapped,
# as nothing asked for them (issue 14: the viewer's 8 MiB)
kpid=$(pgrep -nf -- "--log $TMP/ui.log")
maps=$(cat "/proc/$kpid/maps" 2>/dev/null)
ok "$([ -n "$maps" ] && ! printf '%s' "$maps" | grep -q 'libelf\|libdw\|libcapstone\|libcurl'; echo $?)" \
	"the live viewer maps neither libelf, libdw, Capstone nor libcurl"
see '^kernel [0-9]+\.[0-9]% +idle [0-9]+\.[0-9]% +user ~[0-9]+\.[0-9]% +[0-9]+ samples/s' "live without -u: busy/idle split, user ~ what they leave"
see '^kerntop live cpu-clock 997 Hz +window 10s +[0-9]+ CPUs' "live header: event, frequency, window, CPUs"

keys ' '
see '^kerntop .*PAUSED' "Space: PAUSED in the header"
a=$(screen_line 2)
sleep 1.5
b=$(screen_line 2)
is "$b" "$a" "paused: the figures stay frozen over 3 refresh ticks"
# w while paused writes the moment on screen, not the data that came in since
hits=$(printf '%s\n' "$a" | sed -n 's/.* \([0-9][0-9]*\) hits in .*/\1/p')
keys w
see 'snapshot written to .* \(the paused screen\)' "w while paused: the snapshot of the paused screen"
snap=$(printf '%s\n' "$SCREEN" | sed -n 's/.*snapshot written to \([^ ]*\).*/\1/p')
like "$(sed -n 's/^Samples: *\([0-9]*\) .*/\1/p' "$snap" 2>/dev/null)" "^$hits\$" "the file's samples are the $hits hits on the frozen screen"
like "$(head -1 "$snap" 2>/dev/null)" '^kerntop .* report 1 at ' "the first snapshot is report 1"
keys ' '
unseen '^kerntop .*PAUSED' "Space again: resumed"
n=50
while [ "$n" -gt 0 ] && [ "$(screen_line 2)" = "$a" ]; do sleep 0.1; n=$((n - 1)); done
ok "$([ "$(screen_line 2)" != "$a" ]; echo $?)" "resumed: the figures move on"

keys q
see '^EXIT=0$' "q exits 0"
is "$(tm display-message -p -t "$S" '#{alternate_on}')" 0 "no alternate screen left"
like "$(cat "$TMP/ui.log")" 'first full frame \([0-9]+ rows\) after [0-9.]+ ms' "log: first full frame"

# one CPU, recording: REC on the title, '1 CPU', a strip of that CPU only
ui_start 100 30 -- -d 0.5 -C 0 --record "$TMP/rec.ktr" --snapshot-dir "$TMP/snap"
see '^kerntop live REC cpu-clock 997 Hz +window 10s +1 CPU$' "--record: REC marker; -C 0: 1 CPU" 5
see '^cpu0 +\[.*\] +[0-9.]+% *$' "the strip has cpu0 alone"
keys q
see '^EXIT=0$' "q exits 0 while recording"
no_stderr
done_testing
