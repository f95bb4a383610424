#!/bin/sh
# Replays the saved fuzz corpus (tests/fuzz/corpus/*) through every target (the two replay
# readers, the kallsyms, modules and modules.builtin.ranges parsers): the bounded resilience
# run of make check. Longer fuzzing: tests/fuzz/run.sh SECONDS.
# Run from anywhere: lib.sh would look for tests/ next to this script otherwise.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/lib.sh"
n=$(ls "$top_srcdir/tests/fuzz/corpus" | wc -l)
[ "$n" -gt 0 ] || { echo "not ok 1 - corpus is empty"; echo "1..1"; exit 1; }
exec "$top_builddir/tests/fuzz/fuzz_corpus" "$top_srcdir"/tests/fuzz/corpus/*
