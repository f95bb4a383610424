#!/bin/sh
# Valgrind memcheck on kerntop and on every C unit test.
# kerntop: batch reports of replayed fixtures (every format, zoom, call chains, a kerntop
# recording), a short live run with -g and --record, the viewer under tmux (drill down, CPU
# screen, help, quit), and error exits. The unit test binaries (tests/test_*.c): each must pass
# its own TAP plan under memcheck. Every run must report no memory error (--error-exitcode=99,
# every "ERROR SUMMARY: 0 errors", forked children included); a clean exit must also leak
# nothing ("definitely lost: 0", or valgrind's "All heap blocks were freed"). Skips only on a
# sanitizer build: ASan replaces malloc and cannot run under valgrind.
. "${top_srcdir:-..}/tests/lib.sh"
DUMP="$top_builddir/tests/test_replay_dump"
command -v valgrind >/dev/null 2>&1 || skip_all "valgrind is not installed (apt-get install valgrind)"
if ldd "$KERNTOP" 2>/dev/null | grep -qE 'lib(a|ub|t)san'; then
	skip_all "$KERNTOP is a sanitizer build; valgrind cannot run it (use a normal build)"
fi
UI="$DATA/ui"
ST="$DATA/stacks"
FIX="--speed max --kallsyms $UI/kallsyms --modules $UI/modules"
VG="valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect --error-exitcode=99"
N=0

# vg_clean DESCRIPTION LOG: memcheck found no error (every ERROR SUMMARY of the log, one per
# process, says 0 errors) and nothing was lost.
vg_clean() {
	if grep -qE '^==[0-9]+== +(Invalid|Conditional|Use of uninit|Syscall param|Mismatched|Source and destination)|definitely lost: [1-9]|indirectly lost: [1-9]' "$2" ||
		! grep -q 'ERROR SUMMARY: ' "$2" || grep 'ERROR SUMMARY: ' "$2" | grep -vq 'ERROR SUMMARY: 0 errors'; then
		ok 1 "$1: no memory error, nothing lost"
		head -30 "$2" | sed 's/^/#   /'
	else
		ok 0 "$1: no memory error, nothing lost"
	fi
}

# vg DESCRIPTION WANT_RC ARGS...: kerntop ARGS under memcheck.
vg() {
	desc=$1 want=$2
	shift 2
	N=$((N + 1))
	rc=0
	$VG --log-file="$TMP/vg$N.log" "$KERNTOP" "$@" >"$TMP/vg$N.out" 2>"$TMP/vg$N.err" || rc=$?
	is "$rc" "$want" "$desc: exit $want under memcheck"
	vg_clean "$desc" "$TMP/vg$N.log"
	if [ "$want" = 0 ]; then
		like "$(grep -E 'definitely lost:|All heap blocks were freed' "$TMP/vg$N.log")" \
			"definitely lost: 0 bytes|All heap blocks were freed" "$desc: clean exit, definitely lost: 0"
	fi
}

# --- the C unit tests, in two lanes in the background while kerntop's runs go on -----------
# Every tests/test_*.c is a unit test run here, except the helper tools listed in NOT_UNIT.
# KT_MEMCHECK leaves out test_window_retire's hour-long memory simulations (minutes under memcheck;
# they measure growth, which the normal run checks), and turns test_source_live's "nothing
# lost at 20000 Hz" into "every sample delivered or counted lost" (a memcheck drain is too
# slow for the rate; the normal run checks the ring size). About 40 s of wall time per lane here.
NOT_UNIT="test_replay_dump"
LANE1="test_replay test_replay_stream test_replay_chains test_symbols test_symbols_cache test_report test_window test_window_addr test_window_cum test_window_since test_window_retire test_symbols_elf test_agg test_agg_proj test_stacks_tree test_util test_settings test_procstat test_source_auto test_contexts test_annotate_rec test_ui_keys test_ui_layout test_history"
LANE2="test_source_live_hotplug test_source_live test_symbols_live test_source_live_ring test_source_many"
unit_lane() { # unit_lane TEST...: each under memcheck, its exit status in $TMP/u-TEST.rc
	for t in "$@"; do
		rc=0
		KT_MEMCHECK=1 $VG --log-file="$TMP/u-$t.log" "$top_builddir/tests/$t" \
			>"$TMP/u-$t.out" 2>"$TMP/u-$t.err" || rc=$?
		echo "$rc" >"$TMP/u-$t.rc"
	done
}
START=$(date +%s)
# shellcheck disable=SC2086 # the lanes are word lists
unit_lane $LANE1 &
U1=$!
# shellcheck disable=SC2086
unit_lane $LANE2 &
U2=$!

vg "replay, text report" 0 -b --replay "$UI/ui.perf" $FIX
vg "replay, json with zoom" 0 -b --replay "$UI/ui.perf" $FIX --format json -z e1000e
vg "replay, --annotate of a function without text" 0 -b --replay "$UI/ui.perf" $FIX --format json --annotate do_syscall_64
vg "replay, csv to -o" 0 -b --replay "$UI/ui.perf" $FIX --format csv -o "$TMP/out.csv"
vg "replay, -w window, -n 2 reports" 0 -b --replay "$UI/ui.perf" --speed 50 --kallsyms "$UI/kallsyms" --modules "$UI/modules" -w 2 -d 0.05 -n 2
vg "replay of call chains, folded" 0 -b --replay "$ST/stacks.perf" --speed max --kallsyms "$ST/kallsyms" --modules "$ST/modules" -g --format folded
"$DUMP" --convert "$UI/ui.perf" "$TMP/ui.rec" "$UI/kallsyms" >/dev/null 2>&1
vg "replay of a kerntop recording" 0 -b --replay "$TMP/ui.rec" --speed max --format json
vg "error exit: corrupt recording" 1 -b --replay "$DATA/ui/kallsyms" --speed max
vg "error exit: zoom of an unknown module" 1 -b --replay "$UI/ui.perf" $FIX -z nosuchmodule
vg "error exit: existing -o file" 1 -b --replay "$UI/ui.perf" $FIX -o "$TMP/out.csv"

if "$KERNTOP" -b -n 1 -d 0.1 >/dev/null 2>&1; then
	dd if=/dev/zero of=/dev/null bs=64k 2>/dev/null &
	LOAD=$!
	trap 'kill $LOAD 2>/dev/null; rm -rf "$TMP"' EXIT
	vg "live, -g, --record, 2 reports" 0 -b -n 2 -d 0.5 -g --format json --record "$TMP/live.rec"
	kill $LOAD
	vg "replay of the live recording" 0 -b --replay "$TMP/live.rec" --speed max -g --format folded
else
	echo "ok $((T_N + 1)) - live run # SKIP live sampling refused here"; T_N=$((T_N + 1))
fi

# The viewer: the same memcheck, run by a wrapper inside the tmux pane.
if command -v tmux >/dev/null 2>&1; then
	. "$top_srcdir/tests/ui_lib.sh"
	cat >"$TMP/vgk" <<EOF
#!/bin/sh
exec $VG --log-file="$TMP/vg-ui.log" "$KERNTOP" "\$@"
EOF
	chmod +x "$TMP/vgk"
	REAL=$KERNTOP
	KERNTOP=$TMP/vgk
	ui_replay 100 30
	KERNTOP=$REAL
	see "vmlinux" "viewer under memcheck: up" 20
	# each screen drawn under memcheck before the next key (waited for, not slept)
	keys Enter
	see "^modules > [^ ]+ +[0-9]+/[0-9]+\$" "viewer under memcheck: functions" 20
	keys Enter
	see "^modules > [^ ]+ > " "viewer under memcheck: lines" 20
	keys BSpace BSpace c
	see "^modules > CPUs " "viewer under memcheck: CPU screen" 20
	keys h
	see "^kerntop keys" "viewer under memcheck: help" 20
	keys Escape q
	see "^EXIT=" "viewer under memcheck: quits" 20
	like "$SCREEN" "EXIT=0" "viewer under memcheck: exit 0"
	if grep -qE '^==[0-9]+== +(Invalid|Conditional|Use of uninit|Syscall param|Mismatched)|definitely lost: [1-9]|indirectly lost: [1-9]' "$TMP/vg-ui.log"; then
		ok 1 "viewer: no memory error, nothing lost"
		head -30 "$TMP/vg-ui.log" | sed 's/^/#   /'
	else
		ok 0 "viewer: no memory error, nothing lost"
	fi
	like "$(grep -E 'definitely lost:|All heap blocks were freed' "$TMP/vg-ui.log")" \
		"definitely lost: 0 bytes|All heap blocks were freed" "viewer: clean exit, definitely lost: 0"
fi

wait $U1 $U2
listed=$(for f in "$top_srcdir"/tests/test_*.c; do basename "$f" .c; done | sort | tr '\n' ' ')
is "$listed" "$(echo $LANE1 $LANE2 $NOT_UNIT | tr ' ' '\n' | sort | tr '\n' ' ')" \
	"every tests/test_*.c is run under memcheck (or is a helper tool)"
for t in $LANE1 $LANE2; do
	is "$(cat "$TMP/u-$t.rc" 2>/dev/null)" 0 "unit $t: passes under memcheck"
	[ "$(cat "$TMP/u-$t.rc" 2>/dev/null)" = 0 ] || grep -E '^not ok|^Bail' "$TMP/u-$t.out" | head -5 | sed 's/^/#   /'
	like "$(tail -1 "$TMP/u-$t.out" 2>/dev/null)" '^1\.\.[0-9]+' "unit $t: its TAP plan is complete"
	vg_clean "unit $t" "$TMP/u-$t.log"
	like "$(grep -E 'definitely lost:|All heap blocks were freed' "$TMP/u-$t.log")" \
		"definitely lost: 0 bytes|All heap blocks were freed" "unit $t: definitely lost: 0"
done
echo "# memcheck runs took $(($(date +%s) - START)) s of wall time"
done_testing
