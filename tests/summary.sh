#!/bin/sh
# Prints the plain closing line "N passed, N failed, N skipped" from Automake test-suite.log files.
#   tests/summary.sh [--status] LOG...
# With --status it also exits 1 when a test failed or a log is missing (the tests did not finish),
# so that make check can print the line last and still fail.
status=0
[ "${1:-}" = "--status" ] && { status=1; shift; }
pass=0 fail=0 skip=0 missing=
for log in "$@"; do
	[ -f "$log" ] || { missing="$missing $log"; continue; }
	p=$(sed -n 's/^# PASS: *\([0-9]*\).*/\1/p' "$log" | head -1)
	x=$(sed -n 's/^# XFAIL: *\([0-9]*\).*/\1/p' "$log" | head -1)
	f=$(sed -n 's/^# FAIL: *\([0-9]*\).*/\1/p' "$log" | head -1)
	xp=$(sed -n 's/^# XPASS: *\([0-9]*\).*/\1/p' "$log" | head -1)
	e=$(sed -n 's/^# ERROR: *\([0-9]*\).*/\1/p' "$log" | head -1)
	s=$(sed -n 's/^# SKIP: *\([0-9]*\).*/\1/p' "$log" | head -1)
	pass=$((pass + ${p:-0} + ${x:-0}))
	fail=$((fail + ${f:-0} + ${xp:-0} + ${e:-0}))
	skip=$((skip + ${s:-0}))
done
[ -z "$missing" ] || echo "summary.sh: no$missing: the tests did not finish (see the errors above)" >&2
echo "$pass passed, $fail failed, $skip skipped"
[ "$status" -eq 0 ] || { [ "$fail" -eq 0 ] && [ -z "$missing" ]; }
