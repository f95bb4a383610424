#!/bin/sh
# Ingest cost of execution-context classification with -g (docs/contexts.md): the same
# call-chain samples ingested as main.c does, without and with classification, in ns per
# sample (bench/bench_contexts.c), on the machine's own kallsyms.
#   bench/bench_contexts.sh [BUILD_DIR]   (env: BENCH_SAMPLES=2000000)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${top_builddir:-$here/../build}}
prog=$build/bench/bench_contexts
[ -x "$prog" ] || { echo "bench_contexts: build $prog first (make check builds it)" >&2; exit 2; }
n=${BENCH_SAMPLES:-2000000}
[ "$n" -gt 2000000 ] && n=2000000
"$prog" "$n" 4000
