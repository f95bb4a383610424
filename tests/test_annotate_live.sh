#!/bin/sh
# Recordings keep annotate, live: kerntop --record samples the running kernel with a --sysroot
# whose /proc/kcore is a synthetic ELF core of zero bytes over [_stext, _etext) (this machine
# has no /proc/kcore); the recording's TEXT blocks carry those bytes, and --replay of it
# annotates the hottest function from the recording ("add byte ptr [rax], al" everywhere: the
# bytes are the recording's, not any file's), with every hit on an instruction or counted.
. "${top_srcdir:-..}/tests/lib.sh"
if ! "$KERNTOP" -b -n 1 -d 0.2 >"$TMP/probe.out" 2>&1; then
	grep -qiE 'paranoid|permission|CAP_PERFMON' "$TMP/probe.out" && skip_all "perf_event_open refused: $(head -1 "$TMP/probe.out")"
fi
[ -r /proc/kallsyms ] && awk '$3 == "_stext" && $1 != "0000000000000000" { f = 1 } END { exit !f }' /proc/kallsyms ||
	skip_all "/proc/kallsyms hides addresses (kptr_restrict): no kernel text range"
R="$TMP/root"
mkdir -p "$R/proc" "$R/sys/devices/system/cpu"
cp /proc/kallsyms "$R/proc/kallsyms"
cp /proc/modules "$R/proc/modules" 2>/dev/null || : >"$R/proc/modules"
cp /sys/devices/system/cpu/online "$R/sys/devices/system/cpu/online"
stext=$(awk '$3 == "_stext" { print $1; exit }' "$R/proc/kallsyms")
etext=$(awk '$3 == "_etext" { print $1; exit }' "$R/proc/kallsyms")
python3 "$top_srcdir/tests/tools/mkelf.py" kcore-zero "$R/proc/kcore" "0x$stext" "0x$etext"
ok $? "a synthetic kcore over _stext.._etext ($stext..$etext)"

dd if=/dev/zero of=/dev/null bs=512 2>/dev/null &
LOAD=$!
trap 'kill $LOAD 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
"$KERNTOP" -b -n 2 -d 0.5 --sysroot "$R" --record "$TMP/rec" --format json >"$TMP/live.json" 2>"$TMP/live.err"
ok $? "live --record with the sysroot's kcore"
kill $LOAD 2>/dev/null

"$KERNTOP" -b --replay "$TMP/rec" --speed max --format json >"$TMP/r1.json" 2>"$TMP/r1.err"
ok $? "replay the recording"
fn=$(python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print(next(f["name"] for f in r["functions"] if f["module"] == "vmlinux" and not f.get("idle") and "+0x" not in f["name"]))' "$TMP/r1.json" 2>/dev/null)
[ -n "$fn" ]
ok $? "its hottest vmlinux function: $fn"
# somewhere else: no kcore, no vmlinux, only the recording
"$KERNTOP" -b --replay "$TMP/rec" --speed max --format json --annotate "vmlinux:$fn" >"$TMP/r2.json" 2>"$TMP/r2.err"
ok $? "replay with --annotate vmlinux:$fn"
check "annotated from the recording: its (zero) bytes, every hit counted" python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
a = r["annotate"][0]
assert a["source"] == "recording", a.get("error", a["source"])
assert a["insns"], "no instructions"
bad = [i["asm"] for i in a["insns"] if i["asm"] != "add byte ptr [rax], al"]
assert not bad, bad[:3]
on = sum(i["hits"] for i in a["insns"])
assert on + a["outside"] == a["hits"] and a["hits"] > 0, (on, a["outside"], a["hits"])
f = next(f for f in r["functions"] if f["name"] == a["function"])
assert a["hits"] == f["hits"], (a["hits"], f["hits"])
print("%d instructions, %d hits (%d between instruction starts)" % (len(a["insns"]), a["hits"], a["outside"]))
' "$TMP/r2.json"
done_testing
