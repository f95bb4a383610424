#!/bin/sh
# Replays the saved fuzz corpus (tests/fuzz/corpus/*) through every target (the two replay
# readers, the kallsyms, modules and modules.builtin.ranges parsers): the bounded resilience
# run of make check. Longer fuzzing: tests/fuzz/run.sh SECONDS.
# Run from anywhere: lib.sh would look for tests/ next to this script otherwise.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/lib.sh"
n=$(ls "$top_srcdir/tests/fuzz/corpus" | wc -l)
[ "$n" -gt 0 ] || { echo "not ok 1 - corpus is empty"; echo "1..1"; exit 1; }
FC="$top_builddir/tests/fuzz/fuzz_corpus"
# The driver can fail: a file it cannot feed (as a crashing one) is a not ok and exit 1.
out=$("$FC" "$TMP/missing" 2>/dev/null); rc=$?
like "$rc $out" "^1 not ok 1 - $TMP/missing: exit status 64" "a file the driver cannot run fails it"
# Its TAP lines follow ours, renumbered. Its own temporary files in a directory of its own:
# each child's (the text target's kcore and .ko) must be gone when it ends.
mkdir "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" "$FC" "$top_srcdir"/tests/fuzz/corpus/* >"$TMP/out"
rc=$?
left=$(ls -A "$TMP/tmpdir" | wc -l)
[ "$left" -eq 0 ] || ls -A "$TMP/tmpdir" | head -3 | sed 's/^/# left: /'
awk -v n="$T_N" '/^(not )?ok [0-9]+/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { $i += n; break } print; next }
	/^1\.\.[0-9]+$/ { next } { print }' "$TMP/out"
T_N=$((T_N + $(grep -cE '^(not )?ok ' "$TMP/out")))
T_FAILED=$((T_FAILED + $(grep -c '^not ok ' "$TMP/out")))
ok "$([ "$rc" -eq 0 ] || [ "$T_FAILED" -gt 0 ]; echo $?)" "the driver's exit status agrees with its TAP"
is "$left" 0 "and it leaves no temporary file behind (one directory per corpus file, before)"
done_testing
