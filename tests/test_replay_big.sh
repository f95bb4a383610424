# A replayed file bigger than what kerntop reads whole (32 MiB) is read through a window, and
# so is a stream that passes 32 MiB (kept in an unlinked file in $TMPDIR): the same report as
# the same bytes held whole (a stream where $TMPDIR cannot take it), with the RSS of the
# pipeline and not of the text (bench/bench_replay_stream.sh measures a 360 MB one).
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
mkdir "$TMP/spool"
# shellcheck disable=SC2086
cat "$TMP/big.txt" | TMPDIR="$TMP/spool" "$KERNTOP" -b --speed max --format json \
	--replay /dev/stdin $SYM --log "$TMP/pipe.log" >"$TMP/pipe.json" 2>"$TMP/pipe.err"
is "$?" 0 "replayed from a pipe (kept in TMPDIR)"
is "$(ls -A "$TMP/spool")" "" "the stream's file was unlinked: nothing is left in TMPDIR"
# shellcheck disable=SC2086
cat "$TMP/big.txt" | TMPDIR="$TMP/none" "$KERNTOP" -b --speed max --format json \
	--replay /dev/stdin $SYM --log "$TMP/whole.log" >"$TMP/whole.json" 2>"$TMP/whole.err"
is "$?" 0 "replayed from a pipe that no TMPDIR can take (held whole)"
same() { # same A B: the last JSON reports of two runs agree but for the path and the clock
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.loads(open(f).read().splitlines()[-1]) for f in sys.argv[1:3])
for d in (a, b):
    for k in ("path", "unix_time"):
        d.pop(k, None)
assert a["samples"] == 95680, a["samples"]
assert a == b, [k for k in a if a.get(k) != b.get(k)]
PY
}
check "the same report from the file and the pipe (95 680 samples, functions, stacks, CPUs)" \
	same "$TMP/file.json" "$TMP/pipe.json"
check "the same report from the pipe held whole" same "$TMP/file.json" "$TMP/whole.json"
peak() { sed -n 's/.* rss_kb=\([0-9]*\).*/\1/p' "$1" | sort -n | tail -n 1; }
file_rss=$(peak "$TMP/file.log")
pipe_rss=$(peak "$TMP/pipe.log")
whole_rss=$(peak "$TMP/whole.log")
echo "# peak RSS in the log: file $file_rss KiB, pipe $pipe_rss KiB, pipe held whole $whole_rss KiB, the text $size_kb KiB"
check "held whole, the pipe's RSS holds the text ($whole_rss >= $size_kb KiB)" \
	test "${whole_rss:-0}" -ge "$size_kb"
check "through the window, the file's does not: under that minus half the text" \
	test "${file_rss:-999999999}" -lt $(( whole_rss - size_kb / 2 ))
check "kept in TMPDIR, the pipe's does not either" \
	test "${pipe_rss:-999999999}" -lt $(( whole_rss - size_kb / 2 ))

# A file size limit the stream does not fit: one line naming it and the way out, exit 1.
# shellcheck disable=SC2086
( ulimit -f 20000; head -c 40000000 "$TMP/big.txt" | TMPDIR="$TMP/spool" "$KERNTOP" -b \
	--speed max --replay /dev/stdin $SYM >/dev/null 2>"$TMP/fsize.err" )
is "$?" 1 "a stream over the file size limit: exit 1"
is "$(wc -l <"$TMP/fsize.err")" 1 "one line"
like "$(cat "$TMP/fsize.err")" \
	"keeping the stream in .*/spool failed \\(File too large\\); raise the file size limit \\(ulimit -f\\)" \
	"it names the directory, the limit and the fix"
done_testing
