#!/bin/bash
# Symbolizer speed on this machine's kallsyms: load time vs `cat /proc/kallsyms`, resolve on
# 10 M random kernel addresses vs a plain binary search, interning lookups (target < 50 ns).
# Usage: bench/bench_symbols.sh [BUILDDIR [KALLSYMS]]   (as root, or kernel.kptr_restrict=0)
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
bin=$build/bench/bench_symbols
make -C "$build" bench/bench_symbols >/dev/null || exit 1
exec "$bin" "${2:-/proc/kallsyms}"
