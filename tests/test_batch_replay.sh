# Batch mode end to end on a replayed `perf script` fixture with call chains: exact tables in
# every format, one report for a --speed max replay, -w, -n, -o (atomic, no clobber, 0600),
# --zoom errors. Expected counts: see tests/data/agg/gen.py.
. "${top_srcdir:-.}/tests/lib.sh"

A="$DATA/agg"
kt() { "$KERNTOP" -b --replay "$A/callchains.perf" --kallsyms "$A/kallsyms" --modules "$A/modules" "$@"; }

out=$(kt --speed max -z tcp 2>"$TMP/err")
is "$?" 0 "text report of a replay"
is "$(printf '%s\n' "$out" | grep -c '^kerntop .* report ')" 1 "--speed max prints exactly one report"
like "$out" '^Source:   replay .*callchains.perf$' "header names the source"
like "$out" '^Event:    cpu-clock at 997 Hz per CPU \(1.003 ms per hit\)$' "event, frequency, ms per hit"
like "$out" '^Window:   cumulative since start \(covers 0.216 s\)$' "the whole file (no -w)"
like "$out" '^CPUs:     2$' "CPUs"
like "$out" '^Samples:  217 \(1004.6/s of 1994 possible\), lost 0, throttled 0, skipped 0$' "samples, lost, skipped"
like "$out" '^Kernel:   122 hits, busy 28.33 % of machine$' "kernel busy share"
like "$out" '^Idle:     90 hits, 20.90 % of machine$' "idle kept apart"
like "$out" '^Module +Hits +msec +%Total +Hits/s$' "KernRate-like module header"
like "$out" '^\[idle\] +90 +90.3 +41.47% +416.7$' "[idle] row"
like "$out" '^tcp +70 +70.2 +32.26% +324.1$' "tcp row"
like "$out" '^vmlinux +40 +40.1 +18.43% +185.2$' "vmlinux row"
like "$out" '^nosym +12 +12.0 +5.53% +55.6$' "symbol-less module row"
like "$out" '^\[user\] +5 +5.0 +2.30% +23.1$' "[user] row"
like "$out" '^tcp_write_xmit +tcp +60 +60.2 +27.65% +277.8$' "top function"
like "$out" '^cpu0 +122 +62 +0 +60 +28.8%  tcp +tcp_write_xmit$' "cpu0 row"
like "$out" '^cpu1 +95 +60 +5 +30 +27.9%  vmlinux +read_zero$' "cpu1 row"
like "$out" '^Zoom: tcp \(2 functions with hits, bucket size 64 bytes\)$' "zoom title"
like "$out" '^tcp_push +10 +10.0 +4.61% +14.29% +46.3$' "zoom row"

out=$(kt --speed max -z nosym)
like "$out" '^Zoom: nosym \(3 functions with hits, no symbols: address buckets, bucket size 64 bytes\)$' \
	"zoom into a module without symbols says so"
like "$out" '^nosym\+0x40 +8 ' "and lists its buckets"

# -z repeats, as in KernRate: one zoom table per module, in order; a repeated name counts once
out=$(kt --speed max -z tcp -z nosym -z tcp)
is "$(printf '%s\n' "$out" | grep -o '^Zoom: [a-z]*' | tr '\n' ' ')" "Zoom: tcp Zoom: nosym " \
	"two -z modules: two zoom tables, in command-line order"
kt --speed max -z a -z b -z c -z d -z e -z f -z g -z h -z i >"$TMP/o" 2>"$TMP/err"
is "$?" 2 "a ninth -z is a usage error"
like "$(cat "$TMP/err")" '^kerntop: too many -z options: at most 8 modules' "saying the limit"
kt --speed max -z tcp -z tpc >"$TMP/o" 2>"$TMP/err"
like "$(cat "$TMP/err")" '^kerntop: --zoom tpc: no such module' "every -z module is checked"

kt --speed max -z qqqqqqqq >"$TMP/o" 2>"$TMP/err"
like "$?.$(cat "$TMP/err")" '^1\.kerntop: --zoom qqqqqqqq: no such module; known modules include: vmlinux, .*tcp, nosym, \[idle\]$' \
	"no near name: the message lists known modules instead"
kt --speed max -z tpc >"$TMP/o" 2>"$TMP/err"
is "$?" 1 "unknown --zoom module fails"
like "$(cat "$TMP/err")" '^kerntop: --zoom tpc: no such module; did you mean: tcp$' "naming the near module"
is "$(wc -c <"$TMP/o" | tr -d ' ')" 0 "before printing anything"

kt --speed max -g -z tcp --format json >"$TMP/j"
is "$(wc -l <"$TMP/j" | tr -d ' ')" 1 "one JSON line"
check "json holds the exact figures" python3 - "$TMP/j" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read())
for k in "version time source event freq_hz window_s cpus samples kernel user idle lost modules functions cpu zoom stacks".split():
    assert k in d, k
assert (d["version"], d["source"], d["event"], d["freq_hz"], d["cpus"]) == (1, "replay", "cpu-clock", 997, 2), d
assert (d["samples"], d["kernel"], d["user"], d["idle"], d["lost"]) == (217, 122, 5, 90, 0)
m = {x["name"]: x for x in d["modules"]}
assert [x["name"] for x in d["modules"]] == ["[idle]", "tcp", "vmlinux", "nosym", "[user]"]
assert m["tcp"]["hits"] == 70 and abs(m["tcp"]["ms"] - 70 * 1.003009) < 1e-3
assert abs(m["tcp"]["pct"] - 70 / 217 * 100) < 1e-3 and abs(m["tcp"]["per_s"] - 70 / 0.216) < 1e-2
assert m["[idle]"]["idle"] is True and m["tcp"]["idle"] is False
f = {x["name"]: x for x in d["functions"]}
assert f["default_idle"]["idle"] and f["default_idle"]["module"] == "vmlinux"
assert f["read_zero"]["hits"] == 25 and f["copy_user"]["hits"] == 15
assert [(c["cpu"], c["hits"], c["kernel"], c["user"], c["idle"]) for c in d["cpu"]] == [(0, 122, 62, 0, 60), (1, 95, 60, 5, 30)]
z = d["zoom"]
assert z["module"] == "tcp" and [(x["name"], x["hits"]) for x in z["functions"]] == [("tcp_write_xmit", 60), ("tcp_push", 10)]
s = d["stacks"]
assert s[0] == {**s[0], "frames": ["default_idle_[k]"], "hits": 90}
assert s[1]["frames"] == ["entry_SYSCALL_64_[k]", "do_syscall_64_[k]", "tcp_sendmsg_[tcp]", "tcp_push_[tcp]", "tcp_write_xmit_[tcp]"] and s[1]["hits"] == 40
assert sum(x["hits"] for x in s) == 217
PY

kt --speed max --format folded >"$TMP/f"
is "$?" 0 "folded export"
check "folded lines are flamegraph.pl-clean and exact" python3 - "$TMP/f" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
want = {
 "entry_SYSCALL_64_[k];do_syscall_64_[k];tcp_sendmsg_[tcp];tcp_push_[tcp];tcp_write_xmit_[tcp]": 40,
 "entry_SYSCALL_64_[k];do_syscall_64_[k];tcp_sendmsg_[tcp];tcp_write_xmit_[tcp]": 20,
 "entry_SYSCALL_64_[k];do_syscall_64_[k];tcp_sendmsg_[tcp];tcp_push_[tcp]": 10,
 "entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_read_[k];vfs_read_[k];read_zero_[k]": 25,
 "entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_read_[k];vfs_read_[k];read_zero_[k];copy_user_[k]": 15,
 "default_idle_[k]": 90, "nosym+0x40_[nosym]": 8, "nosym+0x80_[nosym]": 2, "nosym+0xc0_[nosym]": 2,
 "[user]": 5,
}
got = {}
for l in lines:
    # flamegraph.pl: /^(.*)\s+?(\d+(?:\.\d*)?)$/, frames split on ';', none empty, no blanks
    m = re.match(r"^([^ ;][^ ]*[^ ;]|[^ ;]) (\d+)$", l)
    assert m, l
    assert all(fr for fr in m.group(1).split(";")), l
    got[m.group(1)] = int(m.group(2))
assert got == want, got
PY

# Folded output in batch mode is one profile, written at the end, over the whole run: a paced
# replay with -n 3 (once three reports of overlapping windows, every stack repeated) and one
# ended by the end of the file give the same exact profile of all 217 samples.
FC="$top_srcdir/tests/tools/folded_check.py"
kt --speed 1 -n 3 -d 0.05 --format folded >"$TMP/f3"
is "$?" 0 "paced replay, -n 3, folded"
check "paced replay, -n 3, folded: one strict profile (no stack repeated)" python3 "$FC" "$TMP/f3"
kt --speed 2 --format folded >"$TMP/fend"
check "paced replay to its end, folded: one strict profile of the whole file" python3 "$FC" "$TMP/fend" --samples 217
is "$(sort "$TMP/fend" | md5sum)" "$(sort "$TMP/f" | md5sum)" "paced replay to its end: the same profile as --speed max"
kt --speed 1 -w 0.1 -d 0.05 --format folded >"$TMP/fw"
check "folded with -w 0.1 given: one strict profile of the last 0.1 s only (97 samples, as at --speed max)" \
	python3 "$FC" "$TMP/fw" --samples 97

kt --speed max --format csv >"$TMP/c"
check "csv parses with one row per module and function" python3 - "$TMP/c" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert list(rows[0].keys()) == "report time kind module name hits ms pct pct_machine per_s idle".split()
mods = [(r["module"], int(r["hits"])) for r in rows if r["kind"] == "module"]
assert mods == [("[idle]", 90), ("tcp", 70), ("vmlinux", 40), ("nosym", 12), ("[user]", 5)], mods
assert len([r for r in rows if r["kind"] == "function"]) == 9
PY

out=$(kt --speed max -w 0.1 --format json)
check "-w given: only the last 0.1 s of the replay" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["samples"] == 97 and d["cumulative"] is False and abs(d["covered_s"] - 0.096) < 1e-9, d["samples"]
' "$out"

out=$(kt --speed max --cumulative -n 1 --format json)
check "-n 1 at --speed max: one report of the whole file" python3 -c '
import json, sys
l = sys.argv[1].splitlines()
assert len(l) == 1 and json.loads(l[0])["samples"] == 217
' "$out"

out=$(kt --speed 1 -n 2 -d 0.1 --format json)
check "paced replay: -n 2 reports, growing" python3 -c '
import json, sys
r = [json.loads(l) for l in sys.argv[1].splitlines()]
assert [x["report"] for x in r] == [1, 2], r
assert 0 < r[0]["samples"] <= r[1]["samples"] <= 217
' "$out"

kt --speed max --format json -o "$TMP/report.json"
is "$?" 0 "-o FILE"
is "$(stat -c %a "$TMP/report.json")" 600 "written mode 0600"
check "-o holds the JSON" python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["samples"] == 217' "$TMP/report.json"
echo keep >"$TMP/exists"
kt --speed max -o "$TMP/exists" 2>"$TMP/err"
is "$?" 1 "-o never overwrites"
like "$(cat "$TMP/err")" 'already exists' "and says why"
is "$(cat "$TMP/exists")" keep "the existing file is untouched"
# A name taken while kerntop runs: the reports are kept under the temporary name (named in
# the message), not discarded, and the other file is untouched.
# The name is taken once the first report is in the temporary file (a condition, not a fixed
# sleep); at --speed 0.1 the replay then still has about 2 s to go.
kt --speed 0.1 -d 0.1 --format json -o "$TMP/taken.json" 2>"$TMP/taken.err" &
kp=$!
w=600
while [ "$w" -gt 0 ] && kill -0 $kp 2>/dev/null && ! [ -s "$(ls "$TMP"/.kerntop-*.tmp 2>/dev/null | head -1)" ]; do sleep 0.05; w=$((w - 1)); done
echo other >"$TMP/taken.json"
wait $kp
is "$?" 1 "-o name taken during the run: exit 1"
kept=$(sed -n 's/.*the reports are kept in \([^:]*\): rename it$/\1/p' "$TMP/taken.err")
like "$(cat "$TMP/taken.err")" "^kerntop: .*taken.json: created by someone else while kerntop ran, not overwriting it; the reports are kept in .*/\.kerntop-[0-9]+-[0-9]+\.tmp: rename it$" \
	"-o name taken: one line naming the kept temporary file"
is "$(cat "$TMP/taken.json")" other "-o name taken: the other file is untouched"
check "-o name taken: the kept file holds every report, the last with all 217 samples" python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) >= 2 and r[-1]["samples"] == 217, [x["samples"] for x in r]
' "$kept"
rm -f "$kept" "$TMP/taken.json" "$TMP/taken.err"

# The reader of stdout goes away (kerntop -b | head): exit 0, nothing on stderr.
{ kt --speed 0.5 -d 0.05 --format json 2>"$TMP/pipe.err"; echo $? >"$TMP/pipe.rc"; } | head -c 100 >/dev/null
is "$(cat "$TMP/pipe.rc").$(cat "$TMP/pipe.err")" "0." "stdout closed by its reader: exit 0 quietly, as top -b | head"
rm -f "$TMP/pipe.rc" "$TMP/pipe.err"

# --log in batch mode: a start line, one line per refresh with the figures a soak needs
# (samples, lost, window memory, tasks, stacks, RSS), the final report's line, the end.
# (--speed 0.25: about 17 ticks of 50 ms, so at least two even on a starved machine)
kt -g --speed 0.25 -d 0.05 --format json --log "$TMP/b.log" >/dev/null 2>&1
is "$?" 0 "batch --log"
is "$(stat -c %a "$TMP/b.log")" 600 "batch --log: mode 0600"
check "batch --log: start, ticks with growing figures, final with all 217 samples, end" python3 - "$TMP/b.log" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert all(re.match(r"^\d+\.\d{6} batch: ", l) for l in lines), lines
body = [l.split(" batch: ", 1)[1] for l in lines]
assert body[0].startswith("start: replay ") and body[0].endswith(", cpu-clock, 2 CPUs, format json, -d 0.05, -n 0"), body[0]
assert body[-1] == "end: exit 0", body[-1]
pat = re.compile(r"^(tick|final): ticks=(\d+) reports=(\d+) t=[0-9.]+s window_samples=(\d+) samples=(\d+) lost=(\d+) "
                 r"skipped=(\d+) window_mem=(\d+) tasks=(\d+) stacks=(\d+) cum=(\d+) locs=(\d+) rss_kb=(\d+) refresh_ms=(\d+\.\d{3})$")
rows = [pat.match(b) for b in body[1:-1]]
assert rows and all(rows), body
ticks = [m for m in rows if m.group(1) == "tick"]
assert len(ticks) >= 2 and rows[-1].group(1) == "final", body
assert [int(m.group(2)) for m in ticks] == list(range(1, len(ticks) + 1))
s = [int(m.group(5)) for m in rows]
assert s == sorted(s) and s[-1] == 217, s
f = rows[-1]
assert int(f.group(4)) == 217 and int(f.group(6)) == 0 and int(f.group(7)) == 0
assert int(f.group(8)) > 0 and int(f.group(9)) >= 4 and int(f.group(10)) >= 5 and int(f.group(12)) >= 5 and int(f.group(13)) > 1000, body[-2]
PY
kt --speed max --log "$TMP/nodir/b.log" >/dev/null 2>"$TMP/err"
is "$?.$(cat "$TMP/err")" "1.kerntop: --log $TMP/nodir/b.log: cannot open (No such file or directory); choose a writable file" \
	"batch --log into a missing directory: a clear error"
rm -f "$TMP/b.log"

left=$(ls -A "$TMP" | grep -v -e '^report.json$' -e '^exists$' -e '^err$' -e '^[ojfc]$' -e '^f3$' -e '^fend$' -e '^fw$' -e '^check.out$')
is "$left" "" "no temporary file left behind"
done_testing
