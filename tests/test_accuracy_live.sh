#!/bin/sh
# Live accuracy: kerntop and the real perf sample the same kernel-heavy load at the same time
# for 8 s (-F 997 on both CPUs), and the kernel shares of the top functions must agree.
#
# Bound: each tool's share p of a function is a binomial estimate from its own n kernel samples
# (two independent cpu-clock timers), so the difference of the two has the standard deviation
#   sigma = sqrt(p (1 - p) (1/n_perf + 1/n_kerntop))
# We allow 3 sigma (computed from the measured p and n of each function: a false failure
# has a probability of about 0.3 % per function) plus 1 point for what is not sampling noise:
# kerntop's report tick and its last recorded sample are a few ms apart, and other tests change
# the load while we sample. With ~16000 samples each (quiet machine) and p = 0.5 (the worst
# case) that is 3 x 0.56 + 1 = 2.7 points; the test requires at least 3000 kernel samples per
# tool, where the worst case is 3 x 1.29 + 1 = 4.9 points, so the bound never exceeds 5 points.
# Compared: every function with at least 2 % of perf's kernel samples (up to 8) and every one
# with at least 2 % of kerntop's (up to 8: both directions, so a function only one tool puts on
# top is compared too), and the kernel totals of both tools (both must see the same load).
. "${top_srcdir:-..}/tests/lib.sh"
# the alias grouping both accuracy tests share (tests/tools/kallsyms_alias.py)
PYTHONPATH="$top_srcdir/tests/tools${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH

command -v perf >/dev/null 2>&1 || skip_all "perf is not installed"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
if ! "$KERNTOP" -b -n 1 -d 0.1 --format json >"$TMP/probe" 2>"$TMP/probe.err"; then
	skip_all "live sampling refused: $(head -1 "$TMP/probe.err")"
fi

PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
NICE=
[ "$(id -u)" -eq 0 ] && NICE="nice -n -10"

measure() { # measure DIR: one 8 s sampling of the load by both tools, into DIR
	mkdir -p "$1"
	# Kernel-heavy and steady: one big-read and one small-read dd per CPU. The small reads
	# put the syscall entry/exit path next to read_zero, so several functions carry a real
	# share. Under make -j2 other tests compete for the CPUs: the load, kerntop and perf run
	# at nice -10 for these 8 s so that the kernel samples approach the 2 x 997 x 8 = 16000
	# of a quiet machine and the load stays steady (other tests only slow down a little).
	for c in $(seq 0 $(($(nproc) - 1))); do
		$NICE taskset -c "$c" dd if=/dev/zero of=/dev/null bs=64k 2>/dev/null &
		PIDS="$PIDS $!"
		$NICE taskset -c "$c" dd if=/dev/zero of=/dev/null bs=512 2>/dev/null &
		PIDS="$PIDS $!"
	done
	# the load is on once every dd runs (its exec done), however loaded the machine: bounded
	for p in $PIDS; do
		w=200
		while [ "$w" -gt 0 ] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" != dd ]; do sleep 0.05; w=$((w - 1)); done
	done
	# kerntop is perf record's workload: perf samples the whole machine (-a) from before
	# kerntop starts until after it exits, however long start-up takes on a loaded machine
	# (no fixed sleep). perf samples on CLOCK_MONOTONIC (-k), the clock of kerntop's live
	# samples: kerntop also records its samples (--record), and perf's report is cut to the
	# first..last kerntop sample (--time), so both tools count the very same 8 s and not a
	# few hundred ms apart. perf record exits with its workload's status: kerntop's.
	$NICE perf record -q -B -N -k CLOCK_MONOTONIC -a -e cpu-clock -F 997 -o "$1/p.data" -- \
		"$KERNTOP" -b --format json -n 1 -d 8 -F 997 --top 100000 -o "$1/kt.json" \
		--record "$1/kt.rec" >"$1/rec.err" 2>&1
	echo $? >"$1/krc"
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	PIDS=
	perf report -i "$1/p.data" --stdio --header-only >/dev/null 2>&1
	echo $? >"$1/prc"
	"$top_builddir/tests/test_replay_dump" "$1/kt.rec" >"$1/dump.out" 2>&1
	first=$(sed -n 's/^first_ns //p' "$1/dump.out")
	last=$(sed -n 's/^last_ns //p' "$1/dump.out")
	echo "${first:-0} ${last:-0}" >"$1/span"
	span=$(awk -v a="${first:-0}" -v b="${last:-0}" 'BEGIN { printf "%.6f,%.6f", a / 1e9, b / 1e9 }')
	perf report -i "$1/p.data" --stdio --sort sym -F sample,sym --time "$span" >"$1/sym.txt" 2>/dev/null
	echo $? >"$1/src"
	compare "$1/sym.txt" "$1/kt.json" >"$1/cmp.out" 2>&1
	echo $? >"$1/cmprc"
}

compare() { # compare PERF_SYM_TXT KERNTOP_JSON: exit 0 when the shares agree
python3 - "$1" "$2" /proc/kallsyms <<'PY'
import json, math, re, sys
from collections import Counter
sym_txt, kt_json, kallsyms = sys.argv[1:4]
# Aliases (two names at one address): both tools may pick different ones; both sides map to
# the group's smallest name (tests/tools/kallsyms_alias.py, shared with test_accuracy_replay).
from kallsyms_alias import alias_map
canon = alias_map(kallsyms)
perf = Counter()
for l in open(sym_txt, errors="replace"):
    m = re.match(r"\s*(\d+)\s+\[k\] (\S+)", l)
    if m:
        perf[canon.get(m.group(2), m.group(2))] += int(m.group(1))
d = json.loads(open(kt_json).readline())
kt = Counter()
for f in d["functions"]:
    if f["module"] != "[user]":
        kt[canon.get(f["name"], f["name"])] += f["hits"]
np_, nk = sum(perf.values()), sum(kt.values())
print("# kernel samples: perf %d, kerntop %d (kerntop lost %d)" % (np_, nk, d["lost"]))
worst = 3 * math.sqrt(0.25 * (1 / max(np_, 1) + 1 / max(nk, 1))) + 0.01
print("# bound: 3 sigma + 1 point, at worst (p = 0.5) %.1f points with these n" % (100 * worst))
bad = 0
if np_ < 3000 or nk < 3000:
    print("not enough kernel samples to compare (want >= 3000 each: a bound <= 4.9 points)")
    bad += 1
# Totals: both timers tick on the same CPUs over the same span.
tol = 3 * math.sqrt(np_ + nk) + 0.02 * max(np_, nk)
if abs(np_ - nk) > tol:
    print("kernel sample totals differ by %d (> %.0f)" % (abs(np_ - nk), tol))
    bad += 1
top = [n for n, c in perf.most_common(8) if c >= 0.02 * np_]
if not top:
    print("no function with 2 % of perf's samples")
    bad += 1
top += [n for n, c in kt.most_common(8) if c >= 0.02 * nk and n not in top]
for name in top:
    pp, pk = perf[name] / np_, kt[name] / nk
    p = (perf[name] + kt[name]) / (np_ + nk)
    bound = 3 * math.sqrt(p * (1 - p) * (1 / np_ + 1 / nk)) + 0.01
    ok = abs(pp - pk) <= bound
    print("%s %-40s perf %6.2f%%  kerntop %6.2f%%  diff %5.2f  bound %4.2f points%s" % (
        "#" if ok else "MISMATCH", name, 100 * pp, 100 * pk, 100 * abs(pp - pk), 100 * bound,
        "" if perf[name] >= 0.02 * np_ else "  (kerntop's top)"))
    bad += not ok
sys.exit(1 if bad else 0)
PY
}

# Two measurements at most. The bound makes a false failure of one sampling rare but, on a CI
# machine shared with the rest of make check, a burst of other work inside the 8 s can still
# shift one tool's counts (one CI run on 2026-12-03 failed here; later runs on this machine,
# alone and under make -j2 check, all agreed within half the bound). A real disagreement, a
# bug in kerntop's sampling or symbols, shows in both; the first one is printed in full.
D="$TMP/1"
measure "$D"
if [ "$(cat "$D/cmprc")" -ne 0 ]; then
	echo "# first measurement disagreed (kerntop exit $(cat "$D/krc")); its comparison:"
	sed 's/^/#   /' "$D/cmp.out"
	echo "# measuring once more"
	D="$TMP/2"
	measure "$D"
fi

is "$(cat "$D/prc")" 0 "perf record -a -e cpu-clock -F 997 wrote its perf.data"
is "$(cat "$D/krc")" 0 "kerntop -b --format json -n 1 -d 8 -F 997 ran under it"
[ "$(cat "$D/krc")" -eq 0 ] || sed 's/^/# /' "$D/rec.err"
read -r first last <"$D/span"
ok $([ "$last" -gt "$first" ]; echo $?) "kerntop's sample times from its recording ($first..$last ns)"
is "$(cat "$D/src")" 0 "perf report --stdio --sort sym --time (kerntop's span)"
rc=$(cat "$D/cmprc")
grep '^#' "$D/cmp.out"
ok "$rc" "top kernel functions' shares (perf's and kerntop's) agree within 3 sigma + 1 point (<= 4.9)"
[ "$rc" -eq 0 ] && [ -s "$D/cmp.out" ] || grep -v '^#' "$D/cmp.out" | sed 's/^/#   /'

check "kerntop saw every CPU and lost no sample" python3 - "$D/kt.json" "$(nproc)" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).readline())
assert d["cpus"] == int(sys.argv[2]), d["cpus"]
assert d["lost"] == 0, d["lost"]
assert all(c["hits"] > 0 for c in d["cpu"]), d["cpu"]
PY
done_testing
