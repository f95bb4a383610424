#!/bin/sh
# A full disk, end to end through the kerntop binary, on a 64 KiB tmpfs mounted in a private
# mount namespace (unshare -m: nothing outside the test sees it, it goes away with the test).
#  - the viewer's w key on a full --snapshot-dir: a status-line error, no temp file, the viewer
#    still draws, and w works once space is freed;
#  - batch -o on a full disk: one clear ENOSPC line, exit 1, no file published, no temp left;
#  - --record on a full disk: one clear ENOSPC line, exit 1, and what docs/recording-format.md
#    promises: no file at all when not even the header and symbol blocks fit, otherwise a file
#    that replays up to its last complete block;
#  - --record filling the disk in the middle of a live run: the same, with samples before it.
. "${top_srcdir:-..}/tests/lib.sh"
DUMP="$top_builddir/tests/test_replay_dump"
UI="$DATA/ui"

[ "$(id -u)" -eq 0 ] || skip_all "mounting a tmpfs needs root"
command -v unshare >/dev/null 2>&1 || skip_all "unshare is not installed (util-linux)"

# --- the viewer's snapshot key (w) on a full disk --------------------------------------------
# The viewer runs in the tmux pane inside its own mount namespace with a full 64 KiB tmpfs as
# its --snapshot-dir; the test looks into that namespace with nsenter. w must fail on the
# status line naming the problem, leave no temp file, keep the viewer drawing, and work once
# space is freed.
if command -v tmux >/dev/null 2>&1 && command -v nsenter >/dev/null 2>&1; then
	. "$top_srcdir/tests/ui_lib.sh"
	SM="$TMP/snapmnt"
	mkdir "$SM"
	{
		echo '#!/bin/sh'
		echo "exec unshare -m sh -c 'mount -t tmpfs -o size=64k,mode=0755 kt-snap \"$SM\" || exit 97"
		echo "dd if=/dev/zero of=\"$SM/fill\" bs=4k 2>/dev/null"
		echo "echo \$\$ >\"$TMP/snap.pid\""
		echo "exec \"\$0\" \"\$@\"' \"$KERNTOP\" \"\$@\""
	} >"$TMP/snapwrap.sh"
	chmod +x "$TMP/snapwrap.sh"
	K0=$KERNTOP
	KERNTOP="$TMP/snapwrap.sh"
	ui_start 200 30 -- --replay "$UI/ui.perf" --speed max --kallsyms "$UI/kallsyms" \
		--modules "$UI/modules" --snapshot-dir "$SM"
	KERNTOP=$K0
	see "vmlinux" "viewer on a full snapshot directory: up" 10
	kpid=$(cat "$TMP/snap.pid" 2>/dev/null)
	inns() { nsenter -t "$kpid" -m "$@"; }
	like "$(inns df -k "$SM" 2>&1 | tail -1)" " 0 +100% " "the viewer's snapshot tmpfs is full"
	keys w
	see "snapshot failed: .*snapmnt/kerntop-[0-9-]+\.txt: no space left on the device; free space or write elsewhere" \
		"w on a full disk: the status line names the file, ENOSPC and the fix" 5
	is "$(inns ls -A "$SM" | tr '\n' ' ')" "fill " "w on a full disk: no snapshot and no temp file left"
	keys c
	see "^\[?CPU\]? +Hits" "w on a full disk: the viewer still draws (CPU screen)" 5
	keys Escape
	see "^Module +\[?Hits" "and goes back to the modules" 5
	inns rm "$SM/fill"
	keys w
	see "snapshot written to .*snapmnt/kerntop-[0-9-]+\.txt" "after freeing space, w writes the snapshot" 5
	snap=$(inns ls -A "$SM" | grep '^kerntop-')
	like "$snap" '^kerntop-[0-9]{8}-[0-9]{6}(-[0-9]+)?\.txt$' "one snapshot file, no temp file ($snap)"
	is "$(inns stat -c %a "$SM/$snap" 2>/dev/null)" 600 "the snapshot is mode 0600"
	like "$(inns cat "$SM/$snap" 2>/dev/null)" "^Module +Hits" "the snapshot holds the module table"
	keys q
	see "^EXIT=0" "viewer quits" 5
	no_stderr
else
	echo "ok $((T_N + 1)) - snapshot key on a full disk # SKIP needs tmux and nsenter"; T_N=$((T_N + 1))
fi

if ! "$KERNTOP" -b -n 1 -d 0.1 >/dev/null 2>"$TMP/probe.err"; then
	echo "ok $((T_N + 1)) - -o and --record on a full disk # SKIP live sampling refused: $(head -1 "$TMP/probe.err")"
	T_N=$((T_N + 1))
	done_testing
fi
mkdir "$TMP/mnt"
LOAD=
trap 'kill $LOAD 2>/dev/null; command -v tm >/dev/null && tm kill-server >/dev/null 2>&1; rm -rf "$TMP"' EXIT
dd if=/dev/zero of=/dev/null bs=64k 2>/dev/null &
LOAD=$!

# All steps run inside one namespace; each writes its status and listing under $TMP/out.
mkdir "$TMP/out"
cat >"$TMP/steps.sh" <<EOF
set -u
M="$TMP/mnt"; O="$TMP/out"; K="$KERNTOP"; D="$DUMP"
mount -t tmpfs -o size=64k,mode=0755 kt-full "\$M" || exit 97
dd if=/dev/zero of="\$M/fill" bs=4k 2>/dev/null
df -k "\$M" | tail -1 >"\$O/df-full"

# -e cpu-clock: the event is named, so -e auto's notice on a machine without cycles does not add a line to the one-line checks below.
"\$K" -e cpu-clock -b -n 1 -d 0.2 --format json -o "\$M/out.json" >"\$O/o.stdout" 2>"\$O/o.err"; echo \$? >"\$O/o.rc"
ls -A "\$M" >"\$O/o.ls"

"\$K" -e cpu-clock -b -n 1 -d 0.2 --record "\$M/rec" >/dev/null 2>"\$O/r.err"; echo \$? >"\$O/r.rc"
ls -A "\$M" >"\$O/r.ls"

# Room for the header and a small symbol context, not for 6 s of samples at 2 x 997 Hz.
rm "\$M/fill"
dd if=/dev/zero of="\$M/fill" bs=1k count=40 2>/dev/null
"\$K" -e cpu-clock -u -b -n 30 -d 0.2 --kallsyms "$UI/kallsyms" --modules "$UI/modules" --record "\$M/rec2" \
	>/dev/null 2>"\$O/m.err"; echo \$? >"\$O/m.rc"
ls -A "\$M" >"\$O/m.ls"
"\$D" "\$M/rec2" >"\$O/m.dump" 2>&1; echo \$? >"\$O/m.dump.rc"
"\$K" -b --speed max --format json --replay "\$M/rec2" >"\$O/m.json" 2>"\$O/m.replay.err"; echo \$? >"\$O/m.replay.rc"
EOF
unshare -m sh "$TMP/steps.sh" 2>"$TMP/unshare.err"
urc=$?
[ $urc -eq 97 ] && skip_all "mount -t tmpfs refused: $(head -1 "$TMP/unshare.err")"
[ -s "$TMP/out/o.rc" ] || skip_all "unshare -m refused: $(head -1 "$TMP/unshare.err")"
O="$TMP/out"
like "$(cat "$O/df-full")" " 0 +100% " "the tmpfs is full"

is "$(cat "$O/o.rc")" 1 "-o on a full disk: exit 1"
like "$(cat "$O/o.err")" "^kerntop: .*out\.json.*[Nn]o space left.*(free space|elsewhere|another)" "-o on a full disk: the message names the file, ENOSPC and the fix"
is "$(wc -l <"$O/o.err" | tr -d ' ')" 1 "-o on a full disk: one line"
is "$(cat "$O/o.ls" | tr '\n' ' ')" "fill " "-o on a full disk: no file published, no temp file left"

is "$(cat "$O/r.rc")" 1 "--record on a full disk: exit 1"
like "$(cat "$O/r.err")" "^kerntop: .*/rec: disk full before the recording could start \(No space left on device\); nothing was kept: free space or record to another filesystem" \
	"--record on a full disk: the message names the file, ENOSPC and the fix"
is "$(wc -l <"$O/r.err" | tr -d ' ')" 1 "--record on a full disk: one line"
is "$(cat "$O/r.ls" | tr '\n' ' ')" "fill " "--record on a full disk: nothing replayable fits, so no file is left"

is "$(cat "$O/m.rc")" 1 "--record filling the disk during a live run: exit 1"
like "$(cat "$O/m.err")" "^kerntop: .*/rec2: disk full after [0-9]+ bytes \(No space left on device\); the recording is readable up to its last complete block" \
	"--record filling the disk: the ENOSPC message"
is "$(wc -l <"$O/m.err" | tr -d ' ')" 1 "--record filling the disk: the message is printed once"
is "$(cat "$O/m.ls" | tr '\n' ' ')" "fill rec2 " "--record filling the disk: the partial recording stays"
is "$(cat "$O/m.dump.rc")" 0 "--record filling the disk: the partial recording replays"
n=$(sed -n 's/^samples //p' "$O/m.dump")
ok $([ "${n:-0}" -gt 100 ]; echo $?) "--record filling the disk: the samples before the failure are there (${n:-0})"
is "$(sed -n 's/^skipped //p' "$O/m.dump")" 0 "--record filling the disk: no torn last block (the part that fit was cut off)"
is "$(cat "$O/m.replay.rc")" 0 "--record filling the disk: kerntop --replay reads it"
like "$(cat "$O/m.replay.err")" "no end marker \(kerntop was killed, or its disk or size limit filled\)" "--record filling the disk: the replay says where it stops"
done_testing
