# The big-machine generator (bench/bench_bigmachine, issue 14) on a small machine: exact
# sample and frame counts per CPU, the same samples as a recording and as perf script text
# (the reader's digest), pinned tasks unless migration is asked for, the Zipf head on top of
# kerntop's report, and a usage error for bad options. The big runs are in make bench.
. "${top_srcdir:-.}/tests/lib.sh"

GEN=$top_builddir/bench/bench_bigmachine
DUMP=$top_builddir/tests/test_replay_dump
field() { sed -n "s/^$1 //p" "$2"; }

# 64 CPUs x 997 Hz x 0.2 s = 199 ticks x 64 CPUs = 12 736 samples
"$GEN" -c 64 -s 0.2 -t 2 -f 50 "$TMP" >"$TMP/gen.out"
is "$?" 0 "generator: a recording of 64 CPUs"
"$DUMP" "$TMP/big.ktrec" >"$TMP/rec.dump"
is "$(field samples "$TMP/rec.dump").$(field kernel "$TMP/rec.dump").$(field frames "$TMP/rec.dump")" \
	"12736.12736.0" "12 736 kernel samples, no frames"
is "$(field samples_per_cpu "$TMP/rec.dump" | tr ' ' '\n' | sed 's/^[0-9]*://' | sort -u)" 199 \
	"199 samples on each CPU"
is "$(field ncpus "$TMP/rec.dump").$(field comm_events "$TMP/rec.dump").$(field callchain "$TMP/rec.dump")" \
	"64.128.0" "64 CPUs, a name for each of the 128 tasks, no chains"
"$GEN" -c 64 -s 0.2 -t 2 -f 50 -T "$TMP" >/dev/null
"$DUMP" "$TMP/big.txt" >"$TMP/txt.dump"
is "$(field digest "$TMP/txt.dump")" "$(field digest "$TMP/rec.dump")" \
	"perf script text: the same samples (IP, task, CPU) as the recording"
# pinned: CPU 0 runs its own 2 tasks; with migration, tasks of other CPUs too
is "$(awk '$3 == "[000]" {print $2}' "$TMP/big.txt" | sort -u | wc -l)" 2 "no migration: 2 tasks on CPU 0"
"$GEN" -c 64 -s 0.2 -t 2 -f 50 -m 0.5 -T "$TMP" >/dev/null
n=$(awk '$3 == "[000]" {print $2}' "$TMP/big.txt" | sort -u | wc -l)
check "migration 0.5: more than 2 tasks on CPU 0 ($n)" test "$n" -gt 2

"$GEN" -c 64 -s 0.2 -t 2 -f 50 -g 8 -S 100 "$TMP" >/dev/null
"$DUMP" "$TMP/big.ktrec" >"$TMP/g.dump"
is "$(field with_frames "$TMP/g.dump").$(field frames "$TMP/g.dump").$(field callchain "$TMP/g.dump")" \
	"12736.101888.1" "-g 8: every sample has 8 frames"
"$GEN" -c 64 -s 0.2 -t 2 -f 50 -g 8 -S 100 -T "$TMP" >/dev/null
"$DUMP" "$TMP/big.txt" >"$TMP/gt.dump"
is "$(field digest "$TMP/gt.dump")" "$(field digest "$TMP/g.dump")" "-g 8 as text: the same samples and frames"

# Zipf s=1 over 50 functions: the first has 1/H(50) = 22.2 % of the samples, the most
"$GEN" -c 64 -s 0.2 -t 2 -f 50 "$TMP" >/dev/null
"$KERNTOP" -b --speed max --replay "$TMP/big.ktrec" --format json >"$TMP/r.json" 2>"$TMP/err"
is "$?" 0 "kerntop replays the recording (its own kallsyms and modules)"
check "report: 12 736 samples, kfn_0 on top with 18-27 %, modules mod0..mod3 sampled" python3 - "$TMP/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["samples"] == 12736, d["samples"]
top = d["functions"][0]
assert top["name"] == "kfn_0", top
assert 0.18 * 12736 <= top["hits"] <= 0.27 * 12736, top["hits"]
mods = {m["name"] for m in d["modules"]}
assert {"vmlinux", "mod0", "mod1", "mod2", "mod3"} <= mods, mods
PY

"$GEN" -c 0 "$TMP" >/dev/null 2>"$TMP/err"
is "$?.$(head -n 1 "$TMP/err" | cut -d" " -f1-3)" "2.usage: bench_bigmachine [-c" "-c 0: usage, exit 2"
done_testing
