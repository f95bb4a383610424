# The /proc figures through a recording: PROCSTAT blocks (type 7) made from the hand-counted
# fixtures tests/data/procstat/t0 and t1 (2 s apart) replay into exact shares and rates in
# every report format; recorded as cycles, the busy/idle split comes from /proc/stat; a
# recording without them has none; a damaged PROCSTAT block is skipped, counted.
. "${top_srcdir:-.}/tests/lib.sh"

P="$DATA/procstat"
DUMP="$top_builddir/tests/test_replay_dump"
mk() { # mk OUT EVENT: the six samples of replay.perf with snapshots at 10 s and 12 s
	"$DUMP" --convert-ps "$P/replay.perf" "$1" "$DATA/ui/kallsyms" "$2" 10:"$P/t0" 12:"$P/t1"
}
kt() { f=$1; shift; "$KERNTOP" -b --replay "$f" --speed max --modules "$DATA/ui/modules" "$@"; }
js() { # js FILE EXPR: a value of the JSON report, via python
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

check "recording with PROCSTAT blocks written" mk "$TMP/r.ktrec" cpu-clock
kt "$TMP/r.ktrec" --format json >"$TMP/r.json" 2>"$TMP/err"
is "$?" 0 "JSON report of the replay"
is "$(cat "$TMP/err")" "" "no notice"
is "$(js "$TMP/r.json" 'd["irq_pct"], d["softirq_pct"], d["steal_pct"]')" "2.5 5 2.5" \
	"machine hi si st: +5 +10 +5 ticks of 200"
is "$(js "$TMP/r.json" 'd["proc_stat"]["us"], d["proc_stat"]["sy"], d["proc_stat"]["id"], d["proc_stat"]["wa"]')" \
	"25 15 45 5" "machine us sy id wa"
is "$(js "$TMP/r.json" 'd["softirqs_per_s"]["NET_RX"], d["softirqs_per_s"]["TIMER"], d["softirqs_per_s"]["HI"]')" \
	"1300 300 0" "machine softirq rates over 2 s"
is "$(js "$TMP/r.json" 'd["proc_interval_s"], d["idle_source"]')" "2 samples" \
	"interval; cpu-clock splits by samples"
is "$(js "$TMP/r.json" '[(c["cpu"], c["irq_pct"], c["softirq_pct"], c["steal_pct"]) for c in d["cpu"]]')" \
	"[(0, 5, 10, 5), (2, 0, 0, 0)]" "per-CPU hi si st"
is "$(js "$TMP/r.json" '[(c["cpu"], c["softirqs_per_s"]["NET_RX"]) for c in d["cpu"]]')" \
	"[(0, 300), (2, 1000)]" "per-CPU NET_RX rates (cpu2 is the third column)"
is "$(js "$TMP/r.json" '[(i["irq"], i["per_s"]) for i in d["cpu"][1]["top_irqs"]]')" \
	"[('LOC', 500), ('42', 300), ('24', 1)]" "cpu2's busiest IRQ lines"
is "$(js "$TMP/r.json" 'd["cpu"][0]["top_irqs"][1]["desc"]')" \
	"PCI-MSIX-0000:00:04.0 1-edge virtio3-rx" "IRQ description"

out=$(kt "$TMP/r.ktrec" 2>&1)
like "$out" '^/proc/stat: us 25.0%  ni 0.0%  sy 15.0%  id 45.0%  wa 5.0%  hi 2.5%  si 5.0%  st 2.5% over 2.000 s$' \
	"text: the machine's shares"
like "$out" '^Softirqs: NET_RX 1300/s, TIMER 300/s, SCHED 10/s$' "text: busiest vectors"
like "$out" '^0 +40.0% +0.0% +20.0% +20.0% +0.0% +5.0% +10.0% +5.0%  NET_RX 300/s, TIMER 250/s; LOC 250/s, 41 virtio3-rx 100/s$' \
	"text: cpu0 row with softirqs and IRQs"
like "$out" '^2 +10.0% .* 70.0% +10.0% +0.0% +0.0% +0.0%  NET_RX 1000/s, TIMER 50/s, SCHED 10/s; LOC 500/s, 42 virtio3-tx 300/s, 24 ACPI:Ged 1/s$' \
	"text: cpu2 row"

csv=$(kt "$TMP/r.ktrec" --format csv 2>&1)
like "$csv" '^1,2\.500,procstat,all,si_pct,,,5\.0000,,,0$' "CSV: machine softirq share"
like "$csv" '^1,2\.500,procstat,cpu2,softirq NET_RX,,,,,1000\.000,0$' "CSV: cpu2 NET_RX rate"
is "$(printf '%s\n' "$csv" | grep -c ',procstat,cpu1,')" 0 "CSV: no rows for cpu1 (no /proc/stat line)"

check "the same recorded as cycles" mk "$TMP/c.ktrec" cycles
kt "$TMP/c.ktrec" --format json >"$TMP/c.json" 2>"$TMP/err"
is "$(js "$TMP/c.json" 'd["event"], d["idle_source"]')" "cycles proc_stat" \
	"cycles: the split comes from /proc/stat"
is "$(js "$TMP/c.json" 'd["busy_pct"], d["idle_pct"], d["user_pct"]')" "22.5 50 25" \
	"busy = sy+hi+si, idle = id+wa, user = us+ni"
like "$(kt "$TMP/c.ktrec" 2>&1)" '^Split:    busy/idle from /proc/stat' "text says which"

# Without PROCSTAT blocks: no kernel-accounted fields, and the reports say so.
"$DUMP" --convert "$P/replay.perf" "$TMP/n.ktrec" "$DATA/ui/kallsyms"
kt "$TMP/n.ktrec" --format json >"$TMP/n.json" 2>&1
is "$(js "$TMP/n.json" '"softirq_pct" in d, "softirqs_per_s" in d, "irq_pct" in d["cpu"][0], d["idle_source"]')" \
	"False False False samples" "no PROCSTAT: the fields are absent"
like "$(kt "$TMP/n.ktrec" 2>&1)" '^Kernel-accounted: not available' "text: says they are not there"

# A damaged PROCSTAT block is skipped like any block: the other one still replays.
python3 - "$TMP/r.ktrec" "$TMP/d.ktrec" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
hl = struct.unpack_from("<I", b, 12)[0]
pos, n = hl, 0
while pos + 16 <= len(b):
    t, ln = struct.unpack_from("<II", b, pos)
    if t == 7 and n == 0:
        b[pos + 16 + 3] ^= 0xff  # a byte of the first snapshot's payload
        n += 1
    pos += 16 + ln
open(sys.argv[2], "wb").write(b)
PY
kt "$TMP/d.ktrec" --format json >"$TMP/d.json" 2>"$TMP/err"
is "$?" 0 "damaged PROCSTAT block: still replays"
is "$(js "$TMP/d.json" 'd["skipped"], "softirq_pct" in d')" "1 False" \
	"one block skipped, counted; one snapshot is no interval"
like "$(cat "$TMP/err")" 'bad checksum' "the end notice names it"
done_testing
