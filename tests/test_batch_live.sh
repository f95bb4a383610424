# Batch mode live: JSON reports under a dd load (structure and plausible numbers), SIGINT
# with -o, and -g under a loopback TCP pump (callers of the tcp functions appear, folded
# export parses). Skips only when perf_event_open is refused here.
. "${top_srcdir:-.}/tests/lib.sh"

if ! "$KERNTOP" -b -n 1 -d 0.1 --format json >"$TMP/probe" 2>"$TMP/probe.err"; then
	skip_all "live sampling refused: $(head -1 "$TMP/probe.err")"
fi
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT

dd if=/dev/zero of=/dev/null bs=64k count=100000000 2>/dev/null &
PIDS="$PIDS $!"
"$KERNTOP" -b -n 2 -d 0.5 --top 1000 --format json >"$TMP/live.json" 2>"$TMP/err"
is "$?" 0 "kerntop -b -n 2 -d 0.5 --format json"
check "two reports with the schema and plausible numbers" python3 - "$TMP/live.json" "$(getconf _NPROCESSORS_ONLN)" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
ncpu = int(sys.argv[2])
assert len(lines) == 2, len(lines)
for i, l in enumerate(lines):
    d = json.loads(l)
    for k in "version time source event freq_hz window_s cpus samples kernel user idle lost modules functions cpu".split():
        assert k in d, k
    assert d["report"] == i + 1 and d["source"] == "live" and d["version"] == 1
    assert d["freq_hz"] == 997 and d["window_s"] == 10 and 1 <= d["cpus"] <= ncpu, d
    assert d["samples"] > 0 and d["kernel"] > 0, d["samples"]
    assert d["samples"] == d["kernel"] + d["user"] + d["idle"]
    assert sum(m["hits"] for m in d["modules"]) == d["samples"]
    assert sum(c["hits"] for c in d["cpu"]) == d["samples"]
    assert 0 < d["covered_s"] <= 10.5
    cap = d["covered_s"] * d["freq_hz"] * d["cpus"]
    assert d["samples"] <= cap * 1.2 + 50, (d["samples"], cap)
    assert any(m["name"] == "vmlinux" for m in d["modules"])
    for m in d["modules"]:
        assert m["hits"] > 0 and abs(m["ms"] - m["hits"] * 1000 / 997) < 0.01 and 0 < m["pct"] <= 100
    f = [x["name"] for x in d["functions"]]
    assert any(("zero" in n or "clear" in n or "copy" in n) for n in f), f[:10]
r1, r2 = (json.loads(l) for l in lines)
assert r2["time"] > r1["time"] and r2["samples"] >= r1["samples"] * 0.5
PY

# The kernel-accounted figures of each report: /proc/stat shares of the machine and of each
# CPU summing to 100, a rate for every /proc/softirqs vector; -e auto said what it chose.
check "kernel-accounted figures: /proc/stat shares sum to 100, every softirq vector has a rate" \
	python3 - "$TMP/live.json" <<'PY'
import json, sys
vecs = [l.split(":")[0].strip() for l in open("/proc/softirqs").read().splitlines()[1:] if ":" in l]
for l in open(sys.argv[1]).read().splitlines():
    d = json.loads(l)
    assert abs(sum(d["proc_stat"].values()) - 100) < 0.01, d["proc_stat"]
    assert d["softirq_pct"] == d["proc_stat"]["si"] and d["irq_pct"] == d["proc_stat"]["hi"]
    assert sorted(d["softirqs_per_s"]) == sorted(vecs), (d["softirqs_per_s"], vecs)
    assert 0 < d["proc_interval_s"] < 5, d["proc_interval_s"]
    for c in d["cpu"]:
        assert abs(sum(c["proc_stat"].values()) - 100) < 0.01, c
        assert sum(c["softirqs_per_s"].values()) >= 0 and len(c["top_irqs"]) <= 3
    # the dd load keeps the local timer ticking on every CPU
    assert sum(sum(i["per_s"] for i in c["top_irqs"]) for c in d["cpu"]) > 0
PY
ev=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["event"])' "$TMP/live.json")
if [ "$ev" = cpu-clock ]; then
	like "$(cat "$TMP/err")" '^kerntop: -e auto: no cycles event here \(.*\): sampling cpu-clock$' \
		"-e auto on a machine without cycles: cpu-clock, with a one-line notice"
	is "$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["idle_source"])' "$TMP/live.json")" \
		samples "cpu-clock: the split comes from the samples"
else
	is "$ev $(grep -c 'no cycles event' "$TMP/err")" "cycles 0" "-e auto where the PMU has cycles: cycles, no notice"
fi

# SIGINT once two reports are in the -o temp file (whole lines counted, a bounded wait: on a
# loaded machine start-up alone takes most of a second, so a fixed sleep is not enough).
"$KERNTOP" -b -d 0.3 --format json -o "$TMP/sigint.json" 2>"$TMP/err" &
kp=$!
seen=0 n=600
while [ "$n" -gt 0 ] && [ "$seen" -lt 2 ]; do
	sleep 0.05
	seen=$(cat "$TMP"/.kerntop-"$kp"-*.tmp 2>/dev/null | wc -l | tr -d ' ')
	n=$((n - 1))
done
ok "$([ "$seen" -ge 2 ]; echo $?)" "two reports written within 30 s of -d 0.3"
kill -INT "$kp"
wait "$kp"
is "$?" 0 "SIGINT ends batch mode cleanly"
is "$(stat -c %a "$TMP/sigint.json" 2>/dev/null)" 600 "-o file published, mode 0600"
check "reports every -d, then a last one" python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
seen = int(sys.argv[2])
assert len(r) >= 3 and len(r) > seen, (len(r), seen)
assert [x["report"] for x in r] == list(range(1, len(r) + 1)), [x["report"] for x in r]
' "$TMP/sigint.json" "$seen"

# The loopback pump (127.0.0.1 only) runs until the cleanup kills it; the -g run starts once
# data flows.
python3 "$top_srcdir/tests/tools/tcp_pump.py" 60 --ready "$TMP/ready" 2>/dev/null &
PIDS="$PIDS $!"
n=300
while [ ! -e "$TMP/ready" ] && [ "$n" -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
"$KERNTOP" -b -g -n 1 -d 1.2 --format json >"$TMP/g.json" 2>"$TMP/err"
is "$?" 0 "-g live report"
check "callers of the tcp functions appear in the stacks" python3 - "$TMP/g.json" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read())
st = d["stacks"]
assert st, "no stacks"
tcp = [s for s in st if any(f.startswith("tcp_") for f in s["frames"]) and len(s["frames"]) >= 3]
assert tcp, [s["frames"] for s in st[:5]]
s = tcp[0]
i = max(i for i, f in enumerate(s["frames"]) if f.startswith("tcp_"))
assert i > 0, s["frames"]  # something calls the tcp function
PY
"$KERNTOP" -b -g -n 1 -d 0.8 --format folded >"$TMP/g.folded" 2>"$TMP/err"
is "$?" 0 "-g live folded export"
check "folded lines parse (frames;frames count)" python3 - "$TMP/g.folded" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines
for l in lines:
    m = re.match(r"^([^ ]+) (\d+)$", l)
    assert m and all(m.group(1).split(";")), l
assert any(";" in l for l in lines)
PY
done_testing
