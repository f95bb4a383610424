#!/bin/sh
# Hostile environments for the viewer (issue 20), driven in tmux:
#  - W's file prompt is pre-filled with the snapshot path: it was cut at 255 bytes, so a
#    --snapshot-dir deep enough wrote (or failed to write) somewhere else; paths up to
#    PATH_MAX now go through whole, and the prompt shows the end of a path wider than the line;
#  - --log on a device that fails every write (/dev/full): the status line says so once and
#    logging stops, the viewer goes on (batch mode's exit 1 is in test_hostile.sh);
#  - allocation failure (tests/kerntop_allocfail): every 5th allocation of a viewer replay
#    failing in turn ends in one out-of-memory line and exit 1, or in the exact table (a
#    failed query says so on the status line and the next refresh redraws it).
. "${top_srcdir:-..}/tests/lib.sh"
. "$top_srcdir/tests/ui_lib.sh"
U="$DATA/ui"

# --- W with a snapshot directory past 255 bytes ---------------------------------------------------
long="$TMP"
while [ "${#long}" -lt 400 ]; do long="$long/directory-with-a-long-name-$((${#long} % 97))"; done
mkdir -p "$long"
ui_start 120 30 -- --replay "$U/ui.perf" --speed max --kallsyms "$U/kallsyms" \
	--modules "$U/modules" --snapshot-dir "$long"
see 'replay finished' "the viewer replays the fixture" 30
keys W
see 'snapshot format \(text, json, csv, folded, pprof\)' "W asks for the format"
keys Enter
see 'snapshot file: <.*/kerntop-[0-9]{8}-[0-9]{6}(-[0-9]+)?\.txt *$' \
	"the ${#long}-byte directory's file: the prompt shows the path's end after a <"
keys Enter
see 'snapshot written to ' "the snapshot is written"
snap=$(ls "$long" 2>/dev/null)
like "$snap" '^kerntop-[0-9]{8}-[0-9]{6}(-[0-9]+)?\.txt$' "one snapshot in the ${#long}-byte directory (not a path cut at 255)"
like "$(cat "$long/$snap" 2>/dev/null)" "^Module +Hits" "it holds the module table"
is "$(find "$TMP" -name 'kerntop-[0-9]*' | wc -l | tr -d ' ')" 1 "no other snapshot anywhere under the test directory"
# a long path typed in full (the prompt took 255 bytes at most): the line shows its end
keys W Enter
see 'snapshot file: <' "W again: the long path is offered"
keys C-u "$long/typed-by-hand.csv"
see 'snapshot file: <.*/typed-by-hand\.csv *$' "the typed path's end shows at the end of the line"
keys Enter
see 'snapshot written to ' "written under the typed path"
[ -f "$long/typed-by-hand.csv" ]
ok $? "the file is the whole typed path ($((${#long} + 18)) bytes)"
keys q
see '^EXIT=0' "q quits"
no_stderr

# --- --log /dev/full ----------------------------------------------------------------------------
if [ -w /dev/full ]; then
	: >"$TMP/stderr"
	ui_start 120 30 -- --replay "$U/ui.perf" --speed 0.5 --kallsyms "$U/kallsyms" \
		--modules "$U/modules" --log /dev/full
	see '--log /dev/full: write failed \(No space left on device\), logging stopped' \
		"--log /dev/full: the status line names the file, the error and that logging stopped" 30
	see 'e1000e' "the viewer goes on drawing the profile" 30
	keys q
	see '^EXIT=0' "q quits (exit 0: the failure was shown on the screen)"
	no_stderr
else
	echo "# SKIP --log /dev/full: /dev/full is not writable here"
fi
# --- allocation failure in the viewer ----------------------------------------------------------
AF="$top_builddir/tests/kerntop_allocfail"
table() { printf '%s\n' "$SCREEN" | awk '/^Module/ { f = 1; next } f && NF == 0 { exit } f'; }
K0=$KERNTOP
KERNTOP=$AF
: >"$TMP/stderr"
ui_start 120 30 KERNTOP_ALLOC_COUNT="$TMP/count" -- --replay "$U/ui.perf" --speed max \
	--kallsyms "$U/kallsyms" --modules "$U/modules"
see 'replay finished' "kerntop_allocfail: the viewer replays the fixture" 30
capture
want=$(table)
is "$(rows_after '^Module')" "[idle] vmlinux e1000e nosym [user]" "the clean run's modules"
keys q
see '^EXIT=0' "q quits"
calls=$(cat "$TMP/count" 2>/dev/null || echo 0)
bad=0 runs=0 k=1
while [ "$k" -le "$calls" ]; do
	: >"$TMP/stderr"
	ui_start 120 30 KERNTOP_ALLOC_FAIL=$k -- --replay "$U/ui.perf" --speed max \
		--kallsyms "$U/kallsyms" --modules "$U/modules"
	runs=$((runs + 1))
	wait_for '^EXIT=|replay finished' 30
	if printf '%s\n' "$SCREEN" | grep -q '^EXIT='; then
		if ! printf '%s\n' "$SCREEN" | grep -q '^EXIT=1' || [ "$(wc -l <"$TMP/stderr")" != 1 ] ||
			! grep -Eq '^kerntop: .*(out of memory|Cannot allocate memory)' "$TMP/stderr"; then
			bad=$((bad + 1))
			echo "#   allocation $k: $(printf '%s\n' "$SCREEN" | grep '^EXIT='), stderr: $(head -c 200 "$TMP/stderr")"
		fi
	else
		n=100
		while [ "$n" -gt 0 ] && capture && [ "$(table)" != "$want" ]; do
			sleep 0.1
			n=$((n - 1))
		done
		[ "$n" -gt 0 ] || { bad=$((bad + 1)); echo "#   allocation $k: another table:"; table | sed 's/^/#     /'; }
		keys q
		wait_for '^EXIT=' 10
		if ! printf '%s\n' "$SCREEN" | grep -q '^EXIT=0' || [ -s "$TMP/stderr" ]; then
			bad=$((bad + 1))
			echo "#   allocation $k: after q $(printf '%s\n' "$SCREEN" | grep '^EXIT='), stderr: $(head -c 200 "$TMP/stderr")"
		fi
	fi
	k=$((k + 5))
done
ok $([ "$calls" -gt 20 ]; echo $?) "the viewer's replay makes $calls allocations"
is "$bad" 0 "each of $runs runs (every 5th allocation failing) ends in one out-of-memory line and exit 1, or shows the exact module table and quits with 0"
KERNTOP=$K0
done_testing
