#!/bin/sh
# Hostile environments for the viewer (issue 20), driven in tmux:
#  - W's file prompt is pre-filled with the snapshot path: it was cut at 255 bytes, so a
#    --snapshot-dir deep enough wrote (or failed to write) somewhere else; paths up to
#    PATH_MAX now go through whole, and the prompt shows the end of a path wider than the line;
#  - --log on a device that fails every write (/dev/full): the status line says so once and
#    logging stops, the viewer goes on (batch mode's exit 1 is in test_hostile.sh).
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
done_testing
