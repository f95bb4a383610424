#!/bin/sh
# --record on a full disk: the writer fails with a clear ENOSPC message and the partial file
# replays up to its last complete block. Uses a small tmpfs in a private mount namespace.
. "${top_srcdir:-..}/tests/lib.sh"
DUMP="$top_builddir/tests/test_replay_dump"

[ "$(id -u)" -eq 0 ] || skip_all "mounting a tmpfs needs root"
command -v unshare >/dev/null 2>&1 || skip_all "unshare is not installed"
mkdir "$TMP/full"
unshare -m sh -c "mount -t tmpfs -o size=256k kt-full '$TMP/full' &&
	'$DUMP' --synth '$TMP/full/rec' 200000 >'$TMP/w.out' 2>&1; echo \$? >'$TMP/w.rc';
	ls -l '$TMP/full/rec' >'$TMP/ls.out';
	'$DUMP' '$TMP/full/rec' >'$TMP/r.out' 2>&1; echo \$? >'$TMP/r.rc'" 2>"$TMP/unshare.err" ||
	skip_all "cannot mount a tmpfs here: $(head -1 "$TMP/unshare.err")"
is "$(cat "$TMP/w.rc")" 1 "writing to a full disk fails"
like "$(cat "$TMP/w.out")" "disk full after [0-9]+ bytes \(No space left on device\).*free space or record to another filesystem" "ENOSPC message names the cause and the fix"
like "$(cat "$TMP/ls.out")" "^-rw-------" "recording is mode 0600"
is "$(cat "$TMP/r.rc")" 0 "the partial recording replays"
n=$(sed -n 's/^samples //p' "$TMP/r.out")
ok $([ "${n:-0}" -gt 1000 ] && [ "$n" -lt 200000 ]; echo $?) "partial recording: complete blocks replayed ($n samples)"
like "$(sed -n 's/^skipped //p' "$TMP/r.out")" "^[01]$" "partial recording: at most one torn block skipped"
like "$(sed -n 's/^notice //p' "$TMP/r.out")" "truncated|end marker" "partial recording: a notice says why it stops"
done_testing
