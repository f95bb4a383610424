# The viewer driven in tmux on a replayed perf-script fixture with known counts
# (tests/data/ui/gen.py): startup, drill-down and back, callers tree, CPU and task filters,
# sort, text filter, idle, window keys, help, snapshots, resize, quit and signals.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/ui_lib.sh"
mkdir -p "$TMP/snap"

ui_replay 100 30
see '^nosym +18 ' "startup: module rows appear"
rows_are '^Module' "[idle] vmlinux e1000e nosym [user]" "modules sorted by hits"
see '^\[idle\] +180 +180\.5 +46\.8% +1\.1% +22\.6 +[^ ]' "[idle] row: hits, CPU ms, %Kernel, %Machine, Hits/s, a trend"
see '^vmlinux +118 +118\.4 +30\.6% ' "vmlinux row"
see '^e1000e +65 ' "e1000e row"
see '^Module +\[Hits\] +CPU ms +%Kernel +%Machine +Hits/s +Trend$' "column header marks the sort column"
see '^kerntop REPLAY ui\.perf t=[0-9.]+s cpu-clock 997 Hz +window 10s +2 CPUs' "header: REPLAY marker, file, time, event, frequency, window, CPUs"
see '^kernel [0-9.]+% +idle [0-9.]+% +user [0-9.]+% +[0-9]+ samples/s +385 hits in 8\.0s +lost 0 +throttled 0$' "header: busy split, rate, hits, lost, throttled"
see '^cpu0 \[.*\] +[0-9.]+% +cpu1 \[' "header: per-CPU strip at 100 columns"
see '^modules +1/5$' "breadcrumb at the top level"
see '^Enter open +S stacks +c CPUs +t tasks +e ctx +s sort +/ filter +Spc pause +w snap +h help +q quit$' "key bar from the key table, no back on the root screen"
see 'replay finished' "status line: replay finished"

# drill-down: vmlinux > copy_user_generic > callers, and back
keys Down Enter
see '^modules > vmlinux +1/4$' "Enter on vmlinux: breadcrumb"
rows_are '^Function' "copy_user_generic tcp_sendmsg_locked tcp_sendmsg _raw_spin_lock" "functions of vmlinux by hits"
see '^copy_user_generic +60 +60\.2 ' "copy_user_generic row"
keys Enter
see '^modules > vmlinux > copy_user_generic ' "Enter on a function: its lines"
see '^\[callers\] who calls this function' "lines screen starts with a callers row"
see '^copy_user_generic\+0x0 +ffffffff81000700 +60 ' "line/bucket row with address and hits"
keys Enter
see '^modules > vmlinux > copy_user_generic > callers ' "Enter on [callers]: the tree"
see '^- copy_user_generic +vmlinux +60 +100\.0%' "tree root: the function"
see '^  - tcp_sendmsg_locked +vmlinux +50 +83\.3%' "hottest caller expanded first"
see '^        - __sys_sendto +vmlinux +50 ' "hottest path opened down the chain"
see '^  \+ ext4_file_write_iter +vmlinux +10 +16\.7%' "second caller collapsed"
keys End Right
see '^  - ext4_file_write_iter ' "Right expands the selected caller"
see '^    \+ do_syscall_64 +vmlinux +10 ' "its caller appears under it"
keys Left
see '^  \+ ext4_file_write_iter ' "Left collapses it"
unseen '^    \+ do_syscall_64 +vmlinux +10 ' "its callers are hidden again"
keys w
see 'snapshot written to .*/kerntop-[0-9]{8}-[0-9]{6}(-[0-9]+)?\.txt' "w on the tree: status shows the file"
snap=$(printf '%s\n' "$SCREEN" | sed -n 's/.*snapshot written to \([^ ]*\).*/\1/p')
tree=$(cat "$snap" 2>/dev/null)
like "$tree" 'tcp_sendmsg_locked' "tree snapshot has the hottest caller"
like "$tree" 'ext4_file_write_iter' "tree snapshot has the other caller"
# / on a tree keeps the matching nodes and the path to them, collapsed or not; s is not here
keys / s y s Enter
see 'callers +filter "sys" +1/10$' "/ on the tree: 10 nodes on paths to a match"
see '^  - ext4_file_write_iter +vmlinux +10 ' "the collapsed caller is shown open toward its matches"
see '^    - do_syscall_64 +vmlinux +10 ' "a match under it"
see '^          - do_syscall_64 +vmlinux +50 ' "and on the hot path"
keys / C-u z z z Enter
see '^  no rows match the filter' "no match: says so"
keys / C-u Enter
see '^  \+ ext4_file_write_iter +vmlinux +10 ' "filter cleared: the collapsed node is collapsed again"
keys s
see '^s: not on the callers screen \(h: keys\)' "s on a tree: not on this screen"
keys BSpace
see '^modules > vmlinux > copy_user_generic +' "Backspace: back to the lines"
keys Escape
see '^modules > vmlinux +1/4$' "Esc: back to the functions"
keys Left
see '^modules +2/5$' "Left: back to modules, selection still on vmlinux"
keys Down g
see '^modules +3/5$' "g does nothing on the module list"
see '^g: not on the modules screen \(h: keys\)' "and says so"

# g from a function row opens the callers directly
keys Up Enter Down g
see '^modules > vmlinux > tcp_sendmsg_locked > callers ' "g on a function opens its callers (breadcrumb)"
see '^- tcp_sendmsg_locked +vmlinux +30 +100\.0%' "tree of tcp_sendmsg_locked"
keys BSpace BSpace

# CPU screen and filter
keys c
see '^modules > CPUs ' "c opens the CPU screen"
see '^0 +233 \[' "cpu0 row: hits and bar"
see '^1 +152 \[' "cpu1 row"
keys w
see 'snapshot written to ' "w on the CPU screen (sorted by CPU)"
snap=$(printf '%s\n' "$SCREEN" | sed -n 's/.*snapshot written to \([^ ]*\).*/\1/p')
is "$(sed -n '/== modules on cpu 0 /,/^$/p' "$snap" 2>/dev/null | awk 'NR > 2 && NF { print $1 }' | tr '\n' ' ')" "[idle] vmlinux e1000e " "the CPUs' modules in the snapshot: by hits, not by the CPU screen's sort"
like "$(head -1 "$snap" 2>/dev/null)" '^kerntop .* report 2 at ' "the second snapshot of the session is report 2"
keys Down Enter
see '^kerntop .* cpu 1' "Enter on cpu1: header shows the CPU filter"
see '^e1000e +40 ' "module list filtered to cpu1"
rows_are '^Module' "[idle] e1000e vmlinux nosym [user]" "cpu1 modules by hits"
keys Home Down Enter
see '^e1000_clean_rx_irq +40 ' "drill-down keeps the CPU filter"
keys BSpace x
see '^vmlinux +118 ' "x clears the CPU filter"
unseen '^kerntop .* cpu 1' "header without the CPU filter"

# tasks screen and filter
keys t
see '^modules > tasks ' "t opens the tasks screen"
see '^ +0 +0 +swapper +180 ' "swapper task row"
see '^ +1000 +1000 +iperf3 +113 ' "iperf3 main thread row"
keys Down Enter
see '^kerntop .* task 1000 iperf3' "Enter on iperf3: header shows the task"
see '^vmlinux +88 ' "modules of iperf3's main thread"
rows_are '^Module' "vmlinux e1000e" "only the task's modules"
keys c
see '^0 +113 \[' "CPU screen under the task filter: cpu0 with the task's hits"
see '^1 +0 \[' "cpu1, where the task never ran, stays listed at 0"
keys Down m
see '^kerntop .* cpu 1 .*task 1000 iperf3|^kerntop .* task 1000 iperf3.* cpu 1' "so it can still be tagged"
keys m BSpace x

# sort and reverse; the selection follows its row (nosym) when the order changes
keys Home Down Down Down
see '^modules +4/5$' "nosym selected"
keys s
see '^Module +Hits .* \[Hits/s\] +Trend$' "s: sort by the next column"
keys s
see '^Module +Hits .* Hits/s +\[Trend\]$' "s again: sort by rising (the Trend column)"
keys s
see '^\[Module\] ' "s again: sort by name"
rows_are '^\[Module\]' "[idle] [user] e1000e nosym vmlinux" "modules by name"
keys r
see '^\[Module\]\^ ' "r reverses"
see '^modules +2/5$' "the selection moved with nosym to row 2"
rows_are '^\[Module\]' "vmlinux nosym e1000e [user] [idle]" "modules by name, reversed"
keys r '>'
see '^Module +\[Hits\] ' "> moves the sort column right"
keys '<'
see '^\[Module\] ' "< moves it left"
keys '>'

# text filter typed on the status line
keys /
see '^filter \(substring, empty clears\):' "/ prompts on the status line"
keys e 1 0
see '^filter \(substring, empty clears\): e10$' "typed text echoes"
keys Enter
see 'filter "e10"' "breadcrumb shows the filter"
rows_are '^Module' "e1000e" "only matching rows"
keys / C-u Enter
see '^vmlinux +118 ' "empty filter clears"

# help generated from the key table
keys h
see '^kerntop keys' "h opens help"
see 'Backspace Left Esc +back to the previous screen' "help folds aliases"
keys End
see 'Space +pause/resume' "End scrolls help: Space is listed"
see 'q +quit' "help lists q"
keys Escape
see '^modules +' "Esc leaves help"

# snapshot of the module list with every level under it, mode 0600
keys w
see 'snapshot written to ' "w on modules"
snap=$(printf '%s\n' "$SCREEN" | sed -n 's/.*snapshot written to \([^ ]*\).*/\1/p')
ok "$([ -f "$snap" ]; echo $?)" "snapshot file exists"
is "$(stat -c %a "$snap" 2>/dev/null)" 600 "snapshot mode 0600"
body=$(cat "$snap" 2>/dev/null)
like "$body" '^vmlinux +118 ' "snapshot: module table"
like "$body" 'copy_user_generic +60 ' "snapshot: functions under the modules"
like "$body" 'e1000_clean_rx_irq' "snapshot: every module's functions"
case "$snap" in "$TMP/snap/"*) ok 0 "snapshot in --snapshot-dir" ;; *) ok 1 "snapshot in --snapshot-dir ($snap)" ;; esac

# W: format and path on the status line
keys W
see '^snapshot format \(text, json, csv, folded, pprof\): text$' "W asks for the format"
keys C-u j s o n Enter
see '^snapshot file: .*\.json$' "then for the file, with a fresh default name"
keys C-u
tm send-keys -t "$S" -l "$TMP/snap/mine.json"
keys Enter
see "snapshot written to $TMP/snap/mine.json" "W writes the chosen file"
if command -v python3 >/dev/null 2>&1; then
	check "W json snapshot parses" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/snap/mine.json"
else
	like "$(head -c 1 "$TMP/snap/mine.json")" '^[{[]' "W json snapshot starts like JSON"
fi
keys W C-u x m l Enter
see "unknown snapshot format 'xml'" "W rejects an unknown format"
keys W Enter C-u
tm send-keys -t "$S" -l "$TMP/snap/mine.json"
keys Enter
see 'snapshot failed: ' "W refuses to overwrite a file"

# resize to 40x12 and back
tm resize-window -t "$S" -x 40 -y 12
see 'terminal too small \(need 60x10\)' "40x12: too small message"
tm resize-window -t "$S" -x 100 -y 30
see '^vmlinux +118 ' "back to 100x30: rows again"
tm resize-window -t "$S" -x 64 -y 14
see '^vmlinux +118 +118\.4 +30\.6%' "64x14: degraded layout keeps the key columns"
unseen '^cpu0 \[' "64x14: no per-CPU strip"
tm resize-window -t "$S" -x 100 -y 30

# q restores the terminal
keys q
see '^EXIT=0$' "q exits 0"
is "$(tm display-message -p -t "$S" '#{alternate_on}')" 0 "no alternate screen left after q"
like "$(cat "$TMP/ui.log")" 'first full frame' "log records the first full frame"

# Ctrl-C and SIGTERM restore it too
ui_replay 100 30
see '^vmlinux +118 ' "started again"
keys C-c
see '^EXIT=0$' "Ctrl-C exits 0"
is "$(tm display-message -p -t "$S" '#{alternate_on}')" 0 "no alternate screen left after Ctrl-C"
ui_replay 100 30
see '^vmlinux +118 ' "started again"
pid=$(tm display-message -p -t "$S" '#{pane_pid}')
kpid=$(pgrep -P "$pid" -x kerntop | head -1)
kill -TERM "$kpid"
see '^EXIT=0$' "SIGTERM exits 0"
is "$(tm display-message -p -t "$S" '#{alternate_on}')" 0 "no alternate screen left after SIGTERM"

# a fatal signal: main's handler restores the terminal, then dies of the signal (SIGABRT, which
# the sanitizers leave to the program)
ui_replay 100 30
see '^vmlinux +118 ' "started for SIGABRT"
pid=$(tm display-message -p -t "$S" '#{pane_pid}')
kpid=$(pgrep -P "$pid" -x kerntop | head -1)
kill -ABRT "$kpid"
see '^EXIT=134$' "SIGABRT: died of the signal"
is "$(tm display-message -p -t "$S" '#{alternate_on}')" 0 "no alternate screen left after SIGABRT"
sed -i '/^Aborted/d' "$TMP/stderr" # the wrapper shell's own notice of the death

# per-CPU columns
ui_replay 100 30
see '^vmlinux +118 ' "started for per-CPU columns"
keys p
see '^Module +\[Hits\] .* cpu0 +cpu1$' "p adds per-CPU columns"
see '^vmlinux +118 .* 88 +30$' "vmlinux hits per CPU"
keys p
see '^Module +\[Hits\] +CPU ms +%Kernel +%Machine +Hits/s +Trend$' "p again removes them"
keys q

# colour, NO_COLOR, --no-color
ui_replay 100 30
see '^vmlinux +118 ' "started again"
like "$(tm capture-pane -p -e -t "$S" | head -3)" "$(printf '\033')\\[[0-9;]*3[1-6]m" "colour by default"
keys q
ui_replay 100 30 NO_COLOR=1
see '^vmlinux +118 ' "started again"
out=$(tm capture-pane -p -e -t "$S" | head -30)
if printf '%s\n' "$out" | grep -q "$(printf '\033')\[[0-9;]*3[0-7]m"; then ok 1 "NO_COLOR: no colour"; else ok 0 "NO_COLOR: no colour"; fi
like "$out" "$(printf '\033')\\[[0-9;]*7m" "NO_COLOR: reverse video instead"
keys q

# without call chains the callers screen says how to get them
ui_start 100 30 -- --replay "$DATA/replay/perf-script-nog.txt" --speed max \
	--kallsyms "$DATA/replay/kallsyms" --modules "$DATA/replay/modules"
see '^vmlinux +1 ' "replay without -g: modules"
keys f
see '^modules > top functions ' "f: top functions"
keys End g
see 'no call chains were sampled: start kerntop with -g' "g without chains: how to get them"
keys q

# mouse: an X10 press+release (the pane's TERM=tmux-256color has kmous=\E[M) at column X, line Y
click() {
	b=$(printf "\\$(printf %o $((33 + $1)))")
	c=$(printf "\\$(printf %o $((33 + $2)))")
	tm send-keys -t "$S" -l "$(printf '\033[M %s%s\033[M#%s%s' "$b" "$c" "$b" "$c")"
}
ui_replay 100 30
see '^vmlinux +118 ' "started for the mouse"
click 3 7
see '^modules +3/5$' "click selects the row"
click 3 7
see '^modules > e1000e +1/2$' "click on the selected row opens it"
keys q
ui_replay 100 30 -- --no-mouse
see '^vmlinux +118 ' "started with --no-mouse"
click 3 7
# keys are read in order: once Down shows, the click before it has been read too, and taken
# it would have moved the selection to row 3 first (4/5 after Down)
keys Down
see '^modules +2/5$' "--no-mouse: clicks are not taken (Down after the click lands on 2/5)"
keys q

# window keys last: shrinking the window drops slices for good
ui_replay 100 30
see '^vmlinux +118 ' "started for the window keys"
# idle, window, cumulative, delay
keys i
see 'idle hidden' "i hides idle"
unseen '^\[idle\] ' "no [idle] row"
keys i
see '^\[idle\] +180 ' "i shows idle again"
keys +
see 'window 20s' "+ lengthens the window"
keys - -
see 'window 5s' "- shortens it"
keys z
see '^kerntop .* cumulative' "z: cumulative"
keys z
see '^kerntop .* window 5s' "z again: the window"
keys d C-u 0 . 5 Enter
see 'refresh every 0\.5s' "d sets the delay"
keys d C-u x Enter
see 'invalid delay' "d rejects a bad delay"

keys q

# -z MODULE opens on that module's functions, as KernRate's -z zooms; Backspace goes up
ui_replay 100 30 -- -z e1000e -z vmlinux
see '^modules > e1000e +1/[0-9]+$' "-z e1000e: the viewer opens on its functions"
see '^Function +\[Hits\]' "a function list"
keys BSpace
see '^modules +1/5$' "Backspace: up to the module list"
keys q
ui_replay 100 30 -- -z e1000f
see 'EXIT=1' "-z with an unknown module: the viewer does not start"
like "$(cat "$TMP/stderr")" "kerntop: --zoom e1000f: no such module; did you mean: e1000e" "and says which module is meant"
: >"$TMP/stderr"
ui_start 100 30 -- --replay "$UI_DATA/ui.perf" --kallsyms "$UI_DATA/kallsyms" \
	--modules "$UI_DATA/modules" --log "$TMP/nodir/ui.log"
see 'EXIT=1' "an unwritable --log: the viewer does not start"
is "$(cat "$TMP/stderr")" "kerntop: --log $TMP/nodir/ui.log: cannot open (No such file or directory); choose a writable file" \
	"the same one-line error as in batch mode"
: >"$TMP/stderr"

# Pause freezes every figure of the header, the source's counters too: a paced replay of a
# recording with a throttle record after every 10th sample (38 over its 8 s) keeps counting
# throttles while the screen is paused, and the header must not show them (nor the replay
# clock move) until Space again. At a quarter of its speed (32 s): on a loaded machine
# (make -j8 check on 2 CPUs) the pause came after the whole recording at full speed, and
# nothing was left to count on resuming.
"$top_builddir/tests/test_replay_dump" --convert "$UI_DATA/ui.perf" "$TMP/thr.rec" "$UI_DATA/kallsyms" 10
throttled() { printf '%s\n' "$1" | sed -n 's/.* throttled \([0-9][0-9]*\)$/\1/p'; }
ui_start 100 30 -- --replay "$TMP/thr.rec" --speed 0.25 -d 0.2 --modules "$UI_DATA/modules"
see ' throttled [1-9][0-9]*$' "paced replay of throttle records: the header counts them" 5
keys ' '
see '^kerntop .*PAUSED' "Space: paused"
a1=$(screen_line 1)
a=$(screen_line 2)
sleep 1.5
b1=$(screen_line 1)
b=$(screen_line 2)
is "$b" "$a" "paused: samples, hits and the throttled count stay frozen while throttles come in"
is "$b1" "$a1" "paused: the replay clock (t=) stays at the frozen tick's time"
keys ' '
unseen '^kerntop .*PAUSED' "Space again: resumed"
# polled (bounded, 10 s), not a fixed sleep: how soon the next tick draws depends on the load
n=100
c=$(screen_line 2)
while [ "$n" -gt 0 ] && ! [ "$(throttled "$c")" -gt "$(throttled "$a")" ] 2>/dev/null; do
	sleep 0.1
	n=$((n - 1))
	c=$(screen_line 2)
done
ok $([ "$(throttled "$c")" -gt "$(throttled "$a")" ] 2>/dev/null; echo $?) \
	"resumed: the count moved on (paused $(throttled "$a"), now $(throttled "$c"))"
keys q

no_stderr
done_testing
