# Baselines and --diff in batch mode (docs/history.md) on two generated perf-script fixtures
# with hand-counted answers: A = fa 50, fb 30, fc 20; B = fa 20, fb 30, fd 50 (100 samples
# each over the same 9.9 ms). --baseline A in each of its kinds (perf script, a kerntop
# recording, a JSON report) gives B's rows the same exact deltas in JSON, text and CSV;
# --diff A B lists them by absolute change with the two-proportion z-test; bad inputs fail
# with one line.
. "${top_srcdir:-.}/tests/lib.sh"

DUMP="$top_builddir/tests/test_replay_dump"
cat >"$TMP/kallsyms" <<'EOF'
ffffffff81000000 T _stext
ffffffff81000100 T fa
ffffffff81000200 T fb
ffffffff81000300 T fc
ffffffff81000400 T fd
ffffffff81001000 T _etext
EOF
echo 'e1000e 65536 0 - Live 0xffffffffc0100000' >"$TMP/modules"
gen() { # gen NAME:COUNT...: samples 0.1 ms apart from t = 100.0001 s
	i=0
	for spec in "$@"; do
		name=${spec%:*} n=${spec#*:} k=0
		case $name in fa) a=ffffffff81000100 ;; fb) a=ffffffff81000200 ;; fc) a=ffffffff81000300 ;; fd) a=ffffffff81000400 ;; esac
		while [ "$k" -lt "$n" ]; do
			i=$((i + 1)) k=$((k + 1))
			printf 'dd 100/100 [000] 100.%04d: 1003009 cpu-clock: \n\t%s %s ([kernel.kallsyms])\n\n' "$i" "$a" "$name"
		done
	done
}
gen fa:50 fb:30 fc:20 >"$TMP/A.perf"
gen fa:20 fb:30 fd:50 >"$TMP/B.perf"
kt() { "$KERNTOP" -b --speed max --kallsyms "$TMP/kallsyms" --modules "$TMP/modules" "$@"; }
js() { # js FILE EXPR: a value of the JSON report, via python
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
fn() { # fn FILE NAME KEY: a function row's field
	js "$1" "[f.get('$3') for f in d['functions'] if f['name'] == '$2'][0]"
}

kt --replay "$TMP/A.perf" --format json >"$TMP/A.json"
ok $? "A as a JSON report"
"$DUMP" --convert "$TMP/A.perf" "$TMP/A.ktrec" "$TMP/kallsyms" >/dev/null
ok $? "A as a kerntop recording"
kt --replay "$TMP/B.perf" --format json >"$TMP/B.json"
ok $? "B as a JSON report"

for kind in perf ktrec json; do
	kt --replay "$TMP/B.perf" --format json --baseline "$TMP/A.$kind" >"$TMP/b-$kind.json" 2>"$TMP/err"
	ok $? "B against A.$kind"
	is "$(js "$TMP/b-$kind.json" "d['baseline']['samples'], d['baseline']['source'].endswith('A.$kind')")" \
		"100 True" "A.$kind: the baseline object (samples, source)"
	is "$(fn "$TMP/b-$kind.json" fa delta_pct) $(fn "$TMP/b-$kind.json" fa rate_ratio) $(fn "$TMP/b-$kind.json" fa baseline_state)" \
		"-30 0.4 both" "A.$kind: fa 50 % -> 20 %: -30 points, 0.4x"
	is "$(fn "$TMP/b-$kind.json" fb delta_pct) $(fn "$TMP/b-$kind.json" fb rate_ratio)" "0 1" "A.$kind: fb unchanged"
	is "$(fn "$TMP/b-$kind.json" fd delta_pct) $(fn "$TMP/b-$kind.json" fd rate_ratio) $(fn "$TMP/b-$kind.json" fd baseline_state)" \
		"50 None new" "A.$kind: fd appeared: +50 points, no ratio (null)"
	is "$(fn "$TMP/b-$kind.json" fc hits) $(fn "$TMP/b-$kind.json" fc delta_pct) $(fn "$TMP/b-$kind.json" fc baseline_hits) $(fn "$TMP/b-$kind.json" fc baseline_state)" \
		"0 -20 20 gone" "A.$kind: fc vanished: a row with 0 hits, -20 points"
	is "$(js "$TMP/b-$kind.json" "[(m['name'], m['delta_pct'], m['rate_ratio']) for m in d['modules']]")" \
		"[('vmlinux', 0, 1)]" "A.$kind: the module row"
done

out=$(kt --replay "$TMP/B.perf" --baseline "$TMP/A.json")
like "$out" "Function Module +Hits +msec +%Total +Hits/s +Delta pp +Ratio" "text: the baseline columns"
like "$out" "fd +vmlinux +50 .* \+50\.00 +new" "text: fd new"
like "$out" "fa +vmlinux +20 .* -30\.00 +0\.40x" "text: fa -30.00, 0.40x"
like "$out" "fc +vmlinux +0 .* -20\.00 +gone" "text: fc gone"
csv=$(kt --replay "$TMP/B.perf" --baseline "$TMP/A.perf" --format csv)
is "$(printf '%s\n' "$csv" | head -1)" "report,time,kind,module,name,hits,ms,pct,pct_machine,per_s,idle,delta_pct,rate_ratio" \
	"CSV: two columns more with a baseline"
like "$csv" "function,vmlinux,fa,20,.*,-30\.0000,0\.4000" "CSV: fa"
like "$csv" "function,vmlinux,fd,50,.*,50\.0000,$" "CSV: fd (no ratio)"

# --diff: the same answer from every kind of input
for pair in "perf perf" "ktrec json" "json perf"; do
	set -- $pair
	kt --diff "$TMP/A.$1" "$TMP/B.$2" --format json >"$TMP/d.json" 2>"$TMP/err"
	ok $? "--diff A.$1 B.$2"
	is "$(js "$TMP/d.json" "[(f['name'], f['hits_a'], f['hits_b'], f['delta_pct'], f['state'], f['significant']) for f in d['functions']]")" \
		"[('fd', 0, 50, 50, 'new', True), ('fa', 50, 20, -30, 'both', True), ('fc', 20, 0, -20, 'gone', True), ('fb', 30, 30, 0, 'both', False)]" \
		"--diff A.$1 B.$2: functions by absolute change, z-test marks"
done
# z of fa: p = 70/200, se = sqrt(p (1 - p) (1/100 + 1/100)), z = (0.2 - 0.5) / se = -4.4475
is "$(js "$TMP/d.json" "[round(f['z'], 4) for f in d['functions']]")" "[8.165, -4.4475, -4.714, 0]" \
	"the z statistics, as computed by hand"
is "$(js "$TMP/d.json" "d['test']['z_threshold'], d['a']['samples'], d['b']['samples']")" "3.29 100 100" \
	"the threshold and both sides' samples"
out=$(kt --diff "$TMP/A.perf" "$TMP/B.perf")
like "$out" "Test: +two-proportion z-test .* \|z\| >= 3\.29" "text: the test is stated"
like "$out" "fd \[vmlinux\] +0 +50 +0\.00% +50\.00% +\+50\.00 +new +8\.16 +new, beyond noise" "text: fd row"
like "$out" "fb \[vmlinux\] +30 +30 .* 1\.00x +0\.00 +within noise" "text: fb within noise"
like "$out" "Modules \(1 rows" "one table per level: modules"
like "$out" "Contexts \(4 rows" "and contexts"
csv=$(kt --diff "$TMP/A.perf" "$TMP/B.perf" --format csv)
like "$csv" "^level,module,name,hits_a,hits_b,pct_a,pct_b,delta_pct,rate_ratio,z,significant" "--diff csv header"
like "$csv" "functions,vmlinux,fa,50,20,50\.0000,20\.0000,-30\.0000,0\.40x,-4\.447,1" "--diff csv row"

# bad inputs: one line, exit 1 (cannot run) or 2 (usage)
printf '{"version":1,"samples":5,"modules":[{"name":' >"$TMP/bad.json"
err=$(kt --replay "$TMP/B.perf" --baseline "$TMP/bad.json" 2>&1 >/dev/null); rc=$?
is "$rc" 1 "a cut JSON report: exit 1"
like "$err" "^kerntop: --baseline: .*bad\.json: not a kerntop JSON report" "names the file and the problem"
is "$(printf '%s\n' "$err" | wc -l)" 1 "in one line"
err=$(kt --replay "$TMP/B.perf" --baseline "$TMP/nothere" 2>&1 >/dev/null); rc=$?
is "$rc" 1 "a missing baseline: exit 1"
like "$err" "nothere" "named"
err=$(kt --diff "$TMP/A.perf" 2>&1 >/dev/null); rc=$?
is "$rc" 2 "--diff with one file: usage error"
like "$err" "--diff needs two files" "says so"
err=$(kt --diff "$TMP/A.perf" "$TMP/B.perf" --format folded 2>&1 >/dev/null); rc=$?
is "$rc" 2 "--diff --format folded: usage error"
err=$(kt --diff "$TMP/A.perf" "$TMP/B.perf" -o "$TMP/d.txt" 2>&1 >/dev/null); rc=$?
is "$rc" 2 "--diff -o: usage error (it writes to standard output)"
like "$err" "redirect" "says how"
check "and no file written" test ! -e "$TMP/d.txt"
done_testing
