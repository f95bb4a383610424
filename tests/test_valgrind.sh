#!/bin/sh
# kerntop under valgrind memcheck: batch reports of replayed fixtures (every format, zoom,
# call chains, a kerntop recording), a short live run with -g and --record, the viewer under
# tmux (drill down, CPU screen, help, quit), and error exits. Each run must report no memory
# error (--error-exitcode=99); a clean exit must also leak nothing ("definitely lost: 0",
# or valgrind's "All heap blocks were freed"). Skips only on a sanitizer build: ASan replaces
# malloc and cannot run under valgrind.
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

# vg DESCRIPTION WANT_RC ARGS...: kerntop ARGS under memcheck.
vg() {
	desc=$1 want=$2
	shift 2
	N=$((N + 1))
	rc=0
	$VG --log-file="$TMP/vg$N.log" "$KERNTOP" "$@" >"$TMP/vg$N.out" 2>"$TMP/vg$N.err" || rc=$?
	is "$rc" "$want" "$desc: exit $want under memcheck"
	if grep -qE '^==[0-9]+== +(Invalid|Conditional|Use of uninit|Syscall param|Mismatched|Source and destination)|definitely lost: [1-9]|indirectly lost: [1-9]' "$TMP/vg$N.log"; then
		ok 1 "$desc: no memory error, nothing lost"
		head -30 "$TMP/vg$N.log" | sed 's/^/#   /'
	else
		ok 0 "$desc: no memory error, nothing lost"
	fi
	if [ "$want" = 0 ]; then
		like "$(grep -E 'definitely lost:|All heap blocks were freed' "$TMP/vg$N.log")" \
			"definitely lost: 0 bytes|All heap blocks were freed" "$desc: clean exit, definitely lost: 0"
	fi
}

vg "replay, text report" 0 -b --replay "$UI/ui.perf" $FIX
vg "replay, json with zoom" 0 -b --replay "$UI/ui.perf" $FIX --format json -z e1000e
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
	keys Enter
	sleep 0.3
	keys Enter
	sleep 0.3
	keys BSpace BSpace c
	sleep 0.3
	keys h
	sleep 0.3
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
done_testing
