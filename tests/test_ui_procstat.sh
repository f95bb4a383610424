# The kernel-accounted /proc figures in the viewer: a recording with PROCSTAT blocks (the
# hand-counted fixtures tests/data/procstat/t0 and t1) shows hi, si and st in the header and
# sy hi si st, the top softirq vectors and the busiest IRQ lines on the CPU screen; recorded
# as cycles, the header's split comes from /proc/stat and says so; without them, nothing.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/ui_lib.sh"

P="$DATA/procstat"
DUMP="$top_builddir/tests/test_replay_dump"
for ev in cpu-clock cycles; do
	"$DUMP" --convert-ps "$P/replay.perf" "$TMP/$ev.ktrec" "$DATA/ui/kallsyms" "$ev" \
		10:"$P/t0" 12:"$P/t1" || exit 1
done
"$DUMP" --convert "$P/replay.perf" "$TMP/none.ktrec" "$DATA/ui/kallsyms" || exit 1
"$DUMP" --convert-ps "$P/replay-leaf.perf" "$TMP/leaf.ktrec" "$DATA/ui/kallsyms" cpu-clock \
	10:"$P/t0" 12:"$P/t1" || exit 1
view() { ui_start 240 24 -- --replay "$TMP/$1.ktrec" --speed max --modules "$DATA/ui/modules"; }

view cpu-clock
see '^kernel [0-9.]+%  idle [0-9.]+%  user ~[0-9.]+%  hi 2\.5%  si 5\.0%  st 2\.5%  ' \
	"header: hi si st of the machine (+5 +10 +5 ticks of 200)"
see 'replay finished' "replay done"
keys c
see '^\[CPU\] .* sy +hi +si +st Top softirqs +Busiest IRQs' "CPU screen: kernel-accounted columns"
see '^0 .* 20\.0% +5\.0% +10\.0% +5\.0% NET_RX 300/s, TIMER 250/s +LOC 250/s, 41 virtio3-rx 100/s' \
	"cpu0: sy hi si st, top vectors, busiest IRQ lines"
see '^2 .* 10\.0% +0\.0% +0\.0% +0\.0% NET_RX 1000/s, TIMER 50/s, SCHED 10/s +LOC 500/s, 42 virtio3-tx' \
	"cpu2: the third /proc/softirqs column"
no_stderr

view cycles
see '^kernel 22\.5%  idle 50\.0%  user 25\.0% \(/proc/stat\)  hi 2\.5%  si 5\.0%  st 2\.5%  ' \
	"cycles: busy = sy+hi+si, idle = id+wa, user = us+ni, from /proc/stat, said"
see 'replay finished' "replay done"
keys c
see '^0 +3 \[#+u+\.+ *\] +35\.0% +~?40\.0% +20\.0% ' "cycles: cpu0 split from /proc/stat"

# without call chains the contexts screen shows the kernel's accounting instead
view leaf
see 'replay finished' "chainless replay done"
keys e
see 'contexts need call chains' "contexts screen: chains are missing"
see '^  instead, the kernel.s own accounting over the last 2\.0 s: hi 2\.5%  si 5\.0%  st 2\.5%  sy 15\.0%$' \
	"contexts screen without chains: the machine's hi si st from /proc/stat"
see '^  softirqs: NET_RX 1300/s, TIMER 300/s, SCHED 10/s$' "and its busiest softirq vectors"
see '^    cpu0: si 10\.0%  hi 5\.0%  NET_RX 300/s, TIMER 250/s$' "and each CPU's"
no_stderr

view none
see 'replay finished' "replay without PROCSTAT done"
capture
like "$(screen_line 2)" '^kernel [0-9.]+%  idle [0-9.]+%  user ~[0-9.]+%  [0-9]+ samples/s' \
	"no /proc figures: no hi si st"
keys c
see '^2 .* - +- +- +- *$' "CPU screen: - where there are no /proc figures"
no_stderr
done_testing
