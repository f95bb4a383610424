#!/bin/bash
# Window + aggregator speed: ingest samples/s with symbolization (target > 20 M/s on one
# core), with and without -g, and one refresh query over 100k distinct keys.
# Usage: bench/bench_agg.sh [BUILDDIR [KALLSYMS [MODULES]]]   (as root for /proc/kallsyms)
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
make -C "$build" bench/bench_agg >/dev/null || exit 1
shift || true
exec "$build/bench/bench_agg" "$@"
