# History in the viewer (docs/history.md), driven in tmux on generated perf-script replays
# with known per-second counts: the Trend column's exact sparklines (block characters in a
# UTF-8 locale, the ASCII ramp with --ascii), R sorts by rising, T shows the peak, the Trend
# gives way first on a narrow terminal.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/ui_lib.sh"
mkdir -p "$TMP/snap"

cat >"$TMP/kallsyms" <<'EOF'
ffffffff81000000 T _stext
ffffffff81000100 T fa
ffffffff81000200 T fb
ffffffff81000300 T fc
ffffffff81000400 T fd
ffffffff81001000 T _etext
EOF
echo 'e1000e 65536 0 - Live 0xffffffffc0100000' >"$TMP/modules"
sample() { # time address name
	printf 'dd 100/100 [000] %s: 1003009 cpu-clock: \n\t%x %s ([kernel.kallsyms])\n\n' "$1" "$2" "$3"
}
# counts per second 100..108 (slices 0..8); one fd hit at 109.5 completes slice 8 and stays
# in the open slice 9, outside the trend
FA="1 2 3 4 5 6 7 8 8" FB="8 8 8 8 8 0 0 0 0" FC="0 0 0 0 0 0 0 6 12"
gen() {
	k=0
	for a in $FA; do
		b=$(echo $FB | cut -d' ' -f$((k + 1))) c=$(echo $FC | cut -d' ' -f$((k + 1)))
		i=0
		for f in "fa $a 0x100" "fb $b 0x200" "fc $c 0x300"; do
			set -- $f
			n=0
			while [ "$n" -lt "$2" ]; do
				i=$((i + 1)) n=$((n + 1))
				sample "$((100 + k)).$(printf '%03d' $((i * 20)))" $((0xffffffff81000000 + $3)) "$1"
			done
		done
		k=$((k + 1))
	done
	sample 109.500 $((0xffffffff81000400)) fd
}
gen >"$TMP/trend.perf"

trend_start() { # W H ENV... -- OPTIONS...
	tw=$1 th=$2
	shift 2
	tenv=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do tenv="$tenv $1"; shift; done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2086 # env assignments are single words
	ui_start "$tw" "$th" $tenv -- --replay "$TMP/trend.perf" --speed max --kallsyms "$TMP/kallsyms" \
		--modules "$TMP/modules" --snapshot-dir "$TMP/snap" -w 10 -d 1 "$@"
}

trend_start 100 24 LANG=C.UTF-8 LC_ALL=C.UTF-8 -- -z vmlinux
wait_for '^fd +1 |EXIT=' 30 || true
if printf '%s\n' "$SCREEN" | grep -q 'EXIT='; then dump; sed 's/^/#   /' "$TMP/stderr"; echo "Bail out! kerntop did not start"; exit 1; fi
see '^Function +\[Hits\] .*Hits/s +Trend$' "functions: a Trend column, last"
see '^fa +44 .* ▁▂▃▄▅▆▇██$' "fa: one level per second, newest on the right, peak at full height"
see '^fb +40 .* █████    $|^fb +40 .* █████$' "fb: busy first, then nothing (blank: no hits)"
see '^fc +18 .* ▄█$' "fc: only the last two seconds, scaled to its own peak"
see '^fd +1 ' "fd: its one hit counts in the table"
see '^fd +1 +[0-9. %]+$' "fd: but its open slice is not in the trend"
keys R
see '^Function +Hits .*Hits/s +\[Trend\]$' "R: sorted by the Trend (rising)"
rows_are '^Function' "fc fa fd fb" "rising: fc (6/s), fa (4.2/s), fd (0), fb (-6.7/s)"
keys T
see '^fc +18 .* ▄█ +12\.0$' "T: the peak rate beside the sparkline"
see '^fa +44 .* ▆▇██ +8\.0$' "fa: the newest points, its peak 8/s"
keys T
see '^fa +44 .* ▁▂▃▄▅▆▇██$' "T again: the whole sparkline"
keys BSpace
see '^vmlinux +103 .* [^ ]+ *$' "modules screen: a Trend too"
keys t
see '^ +100 +100 +dd +103 .*[^ ]+$' "tasks screen: a Trend too"
keys c
see '^0 +103 .*[^ ]+$' "CPU screen: a Trend too"
keys q
see 'EXIT=0' "q quits"

trend_start 100 24 LANG=C.UTF-8 LC_ALL=C.UTF-8 -- -z vmlinux --ascii
see '^fa +44 .* _\.-:=\+\*##$' "--ascii: the ASCII ramp in a UTF-8 locale"
keys q
trend_start 100 24 LANG=C LC_ALL=C -- -z vmlinux
see '^fc +18 .* :#$' "C locale: the ASCII ramp (6 of 12: level 4)"
see '^fb +40 .* #####' "fb in ASCII"
keys q

# b in a paced replay: 8 s of fa alone (20/s), then fa and fb together (20/s each); with a
# 2 s window, b taken in the first phase makes fa's share fall by 50 points and fb appear
pace() {
	i=0
	while [ "$i" -lt 320 ]; do
		t=$((i * 50))
		sample "$((100 + t / 1000)).$(printf '%03d' $((t % 1000)))" $((0xffffffff81000100)) fa
		[ "$i" -ge 160 ] && sample "$((100 + t / 1000)).$(printf '%03d' $((t % 1000 + 25)))" $((0xffffffff81000200)) fb
		i=$((i + 1))
	done
}
pace >"$TMP/pace.perf"
ui_start 110 24 LANG=C.UTF-8 LC_ALL=C.UTF-8 -- --replay "$TMP/pace.perf" --speed 1 --kallsyms "$TMP/kallsyms" \
	--modules "$TMP/modules" -w 2 -d 0.5 -z vmlinux
see '^fa +[0-9]+ ' "paced replay: fa counted" 30
# b only while fb has not come yet (t < 8 s): re-checked right before the key
n=0
until wait_for '^kerntop REPLAY pace\.perf t=[2-6]\.' 1 && ! printf '%s\n' "$SCREEN" | grep -q '^fb '; do
	n=$((n + 1))
	[ "$n" -gt 30 ] && break
done
keys b
see 'baseline: the window now \([0-9]+ samples\); B clears it' "b: the window taken as the baseline"
see 'vs baseline' "the header says so"
see '^Function +\[Hits\] .*Hits/s +Δ% +Ratio +Trend$' "Δ% and Ratio columns before the Trend"
see '^fa +[0-9]+ .* \+0\.0 +1\.00x ' "fa against itself: +0.0, 1.00x" 30
see '^fb +[0-9]+ .* \+50\.0 +new ' "the load changes: fb appears, +50.0 points, new" 40
see '^fa +[0-9]+ .* -50\.0 +(0\.9[89]|1\.0[012])x ' "fa's share falls by 50 points at about the same rate" 40
keys B
see 'baseline cleared' "B clears it"
see '^Function +\[Hits\] .*Hits/s +Trend$' "the Δ columns go with it"
keys q

# history meters: 6 s of fa at 500/s (50 % of one CPU at 997 Hz) and default_idle at 200/s
# (20 %), refreshed every 0.5 s; a perf script replay has no /proc/stat: si is n/a
cat >"$TMP/kallsyms2" <<'EOF'
ffffffff81000000 T _stext
ffffffff81000100 T fa
ffffffff81000800 t default_idle
ffffffff81001000 T _etext
EOF
python3 - "$TMP/meters.perf" <<'EOF'
import sys
with open(sys.argv[1], 'w') as out:
    for ms in range(6000):
        t = 100 + ms / 1000
        if ms % 2 == 0:
            out.write('dd 100/100 [000] %.6f: 1003009 cpu-clock: \n\tffffffff81000100 fa ([kernel.kallsyms])\n\n' % t)
        if ms % 5 == 1:
            out.write('swapper 0/0 [000] %.6f: 1003009 cpu-clock: \n\tffffffff81000800 default_idle ([kernel.kallsyms])\n\n' % t)
EOF
ui_start 100 40 LANG=C.UTF-8 LC_ALL=C.UTF-8 -- --replay "$TMP/meters.perf" --speed 1 -d 0.5 \
	--kallsyms "$TMP/kallsyms2" --modules "$TMP/modules"
see '^busy 50\.[0-9]% +▅▅▅▅▅ +si +n/a +idle 20\.[0-9]% +▂▂▂▂▂$' \
	"40 rows: one line of meters, busy at level 5 (50 %), idle at level 2 (20 %), si unknown" 30
keys M
see '^busy 50\.[0-9]% +▅{8,}$' "M: big, busy on a line of its own, the points kept (8 or more)"
see '^si +n/a$' "si on its own line"
see '^idle 20\.[0-9]% +▂{8,}$' "idle on its own"
keys M
unseen '^busy ' "M again: off"
keys M
see '^busy [0-9.]+% ' "M again: one line"
keys q
ui_start 100 30 LANG=C.UTF-8 LC_ALL=C.UTF-8 -- --replay "$TMP/meters.perf" --speed max \
	--kallsyms "$TMP/kallsyms2" --modules "$TMP/modules"
see '^vmlinux +3000 ' "30 rows: started"
unseen '^busy ' "below 36 rows the one-line meters stay out of the way"
keys M
see '^busy ' "M shows them big there"
keys q

# narrow: the Trend goes first, before CPU ms, %Machine and Hits/s
trend_start 72 24 LANG=C.UTF-8 LC_ALL=C.UTF-8 -- -z vmlinux
see '^Function +\[Hits\] +CPU ms +%Kernel +%Machine +Hits/s$' "72 columns: every column but the Trend"
keys R
see 'the Trend column|rising' "R still sorts by rising without the column shown"
keys q
no_stderr
done_testing
