# A replayed file bigger than what kerntop reads whole (32 MiB) is read through a window: the
# same report as the same bytes read whole from a pipe, with the RSS of the pipeline and not of
# the file (bench/bench_replay_stream.sh measures a 360 MB one).
. "${top_srcdir:-.}/tests/lib.sh"

GEN=$top_builddir/bench/bench_bigmachine
# 64 CPUs x 997 Hz x 1.5 s with 8-frame chains: 95 680 samples, about 45 MB of text
"$GEN" -c 64 -s 1.5 -t 2 -f 500 -g 8 -T "$TMP" >/dev/null
is "$?" 0 "generator: a big perf script text"
size_kb=$(( $(stat -c %s "$TMP/big.txt") / 1024 ))
check "the text is over 32 MiB ($size_kb KiB)" test "$size_kb" -gt 32768

SYM="--kallsyms $TMP/kallsyms --modules $TMP/modules"
# shellcheck disable=SC2086
"$KERNTOP" -b --speed max --format json --replay "$TMP/big.txt" $SYM --log "$TMP/file.log" \
	>"$TMP/file.json" 2>"$TMP/file.err"
is "$?" 0 "replayed from the file"
# shellcheck disable=SC2086
cat "$TMP/big.txt" | "$KERNTOP" -b --speed max --format json --replay /dev/stdin $SYM \
	--log "$TMP/pipe.log" >"$TMP/pipe.json" 2>"$TMP/pipe.err"
is "$?" 0 "replayed from a pipe (read whole)"
check "the same report both ways (95 680 samples, functions, stacks, CPUs)" python3 - "$TMP/file.json" "$TMP/pipe.json" <<'PY'
import json, sys
a, b = (json.loads(open(f).read().splitlines()[-1]) for f in sys.argv[1:3])
for d in (a, b):
    for k in ("path", "unix_time"):
        d.pop(k, None)
assert a["samples"] == 95680, a["samples"]
assert a == b, [k for k in a if a.get(k) != b.get(k)]
PY
peak() { sed -n 's/.* rss_kb=\([0-9]*\).*/\1/p' "$1" | sort -n | tail -n 1; }
file_rss=$(peak "$TMP/file.log")
pipe_rss=$(peak "$TMP/pipe.log")
echo "# peak RSS in the log: file $file_rss KiB, pipe $pipe_rss KiB, the text $size_kb KiB"
check "read whole, the pipe's RSS holds the text ($pipe_rss >= $size_kb KiB)" test "${pipe_rss:-0}" -ge "$size_kb"
check "through the window, the file's does not: under the pipe's minus half the text" \
	test "${file_rss:-999999999}" -lt $(( pipe_rss - size_kb / 2 ))
done_testing
