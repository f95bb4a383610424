#!/bin/sh
# Replay accuracy: a perf.data made here with the real perf, turned into `perf script` text and
# replayed by kerntop, must give EXACTLY perf report's counts, for the module table
# (perf --sort dso) and for the kernel function table (perf --sort sym). Both read the same
# samples, so any difference is a bug, not sampling noise. Names are mapped explicitly:
#   perf [kernel.kallsyms]            = kerntop vmlinux + [idle] (kerntop splits the idle
#                                       routines into their own pseudo-module)
#   perf [NAME] (a loadable module)   = kerntop NAME
#   perf user DSOs, [vdso], [vsyscall] and user-half [unknown] = kerntop [user]
#   perf kernel-half [unknown]        = kerntop [unknown] (kernel address with no module)
#   perf [k] 0xADDR (no symbol)       = kerntop rows without a kallsyms name, compared as a total
#   aliases (two kallsyms names at one address, e.g. memset and __pi_memset): perf and kerntop
#   may pick different ones, so both sides are mapped to the first name of the address group
# (perf record -B -N: no build-id collection, which costs seconds and changes nothing here.)
# This machine's kernel is monolithic (no loadable module), so the recorded comparison only
# ever sees [user] and vmlinux + [idle]. Modules are compared first on a replayed fixture,
# tests/data/accuracy (gen.py): perf script text whose samples fall in five modules (one
# without any symbol, first and last bytes, addresses before a module's first symbol), in
# vmlinux, idle routines, user space and kernel addresses no module holds, with the matching
# kallsyms and modules files. perf report cannot read text, and a perf.data needs the running
# kernel's modules, so the expected table is counted by the test itself from each line's dso
# field (and sym field for the functions): exact agreement again.
. "${top_srcdir:-..}/tests/lib.sh"
# the alias grouping both accuracy tests share (tests/tools/kallsyms_alias.py)
PYTHONPATH="$top_srcdir/tests/tools${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH

command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"

# --- modules, replayed fixture ------------------------------------------------------------
A="$DATA/accuracy"
"$KERNTOP" --replay "$A/modules.perf" --speed max -b --format json --top 1000000 \
	--kallsyms "$A/kallsyms" --modules "$A/modules" --idle-symbols default_idle,intel_idle \
	-o "$TMP/mod.json" 2>"$TMP/mod.err"
is "$?" 0 "kerntop replays the module fixture"
like "$(cat "$TMP/mod.err")" "^$" "module fixture: nothing on stderr"
python3 - "$A/modules.perf" "$TMP/mod.json" >"$TMP/cmp.mod" 2>&1 <<'PY'
import json, re, sys
from collections import Counter
IDLE = ("default_idle", "intel_idle")  # the --idle-symbols given above
want, wantf = Counter(), Counter()
for l in open(sys.argv[1]):
    m = re.search(r" [0-9a-f]+ (\S+) \(([^()]*)\)$", l)
    sym, dso = m.group(1), m.group(2)
    name = "(no symbol)" if sym == "[unknown]" else sym.split("+0x")[0]
    if dso == "[kernel.kallsyms]":
        mod = "[idle]" if name in IDLE else "vmlinux"
    elif dso == "[unknown]":
        mod = "[unknown]"
    elif dso.startswith("[") and dso not in ("[vdso]", "[vsyscall]"):
        mod = dso[1:-1]
    else:
        mod = "[user]"
    want[mod] += 1
    if mod != "[user]":  # an idle routine is a vmlinux function flagged idle
        wantf["vmlinux" if mod == "[idle]" else mod, name] += 1
d = json.loads(open(sys.argv[2]).readline())
got = Counter({m["name"]: m["hits"] for m in d["modules"]})
gotf = Counter()
bad = []
for f in d["functions"]:
    if f["module"] != "[user]":
        gotf[f["module"], "(no symbol)" if "+0x" in f["name"] else f["name"]] += f["hits"]
        if f["idle"] != (f["name"] in IDLE):
            bad.append("function %s: idle flag %s" % (f["name"], f["idle"]))
print("# modules: %s" % ", ".join("%s=%d" % kv for kv in want.most_common()))
bad += ["module %s: dso count %d, kerntop %d" % (k, want[k], got[k])
        for k in sorted(set(want) | set(got)) if want[k] != got[k]]
bad += ["function %s %s: sym count %d, kerntop %d" % (k + (wantf[k], gotf[k]))
        for k in sorted(set(wantf) | set(gotf)) if wantf[k] != gotf[k]]
if sum(1 for k in want if k not in ("vmlinux", "[idle]", "[user]", "[unknown]")) < 5:
    bad.append("the fixture lost its modules")
print("\n".join(bad[:30]))
sys.exit(1 if bad else 0)
PY
rc=$?
grep '^#' "$TMP/cmp.mod"
ok $rc "module fixture: the module table equals the count of the dso field, each module's functions the count of the sym field, exactly"
[ $rc -eq 0 ] || grep -v '^#' "$TMP/cmp.mod" | sed 's/^/#   /'

# --- perf record on this machine ----------------------------------------------------------
command -v perf >/dev/null 2>&1 || skip_all "perf is not installed"

PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
# Kernel-heavy load on both CPUs: big reads of /dev/zero (read_zero, clear_user) and tiny
# reads (syscall entry/exit, fdget, vfs_read), so the function table has many rows.
dd if=/dev/zero of=/dev/null bs=64k 2>/dev/null &
PIDS="$PIDS $!"
dd if=/dev/zero of=/dev/null bs=16 2>/dev/null &
PIDS="$PIDS $!"
if ! perf record -q -B -N -a -e cpu-clock -F 997 -o "$TMP/p.data" -- sleep 1.5 >"$TMP/rec.err" 2>&1; then
	grep -qiE 'permission|paranoid|not permitted' "$TMP/rec.err" && skip_all "perf record refused: $(head -1 "$TMP/rec.err")"
	sed 's/^/# /' "$TMP/rec.err"
	ok 1 "perf record ran"
	done_testing
fi
for p in $PIDS; do kill "$p" 2>/dev/null; done
PIDS=

perf script -i "$TMP/p.data" >"$TMP/p.txt" 2>"$TMP/script.err"
is "$?" 0 "perf script converts the recording"
perf report -i "$TMP/p.data" --stdio --sort dso -F sample,dso >"$TMP/dso.txt" 2>/dev/null
is "$?" 0 "perf report --sort dso"
perf report -i "$TMP/p.data" --stdio --sort sym -F sample,sym >"$TMP/sym.txt" 2>/dev/null
is "$?" 0 "perf report --sort sym"
# Only to split perf's [unknown] DSO into its kernel and user halves.
perf report -i "$TMP/p.data" --stdio --sort dso,sym -F sample,dso,sym >"$TMP/dsosym.txt" 2>/dev/null

"$KERNTOP" --replay "$TMP/p.txt" --speed max -b --format json --top 1000000 \
	-o "$TMP/kt.json" 2>"$TMP/kt.err"
is "$?" 0 "kerntop replays the perf script text"
like "$(cat "$TMP/kt.err")" "^$" "kerntop printed nothing on stderr"

check "kerntop read every sample perf script printed" python3 - "$TMP/p.txt" "$TMP/kt.json" <<'PY'
import json, re, sys
n = sum(1 for l in open(sys.argv[1], errors="replace")
        if not l.startswith("\t") and re.search(r" \[\d+\] +\d+\.\d+:", l))
d = json.loads(open(sys.argv[2]).readline())
assert d["samples"] == n, (d["samples"], n)
assert n > 1000, n
PY

check "alias groups: names sharing an address, even through a chain, map to the smallest" \
	python3 "$top_srcdir/tests/tools/kallsyms_alias.py"

# The comparison itself: one python program, one line of output per mismatch.
cat >"$TMP/cmp.py" <<'PY'
import json, re, sys
from collections import Counter
dso_txt, sym_txt, dsosym_txt, kt_json, what, kallsyms = sys.argv[1:7]

# Alias groups: every name sharing an address with another maps to the group's smallest name
# (tests/tools/kallsyms_alias.py, shared with test_accuracy_live.sh).
from kallsyms_alias import alias_map
canon = alias_map(kallsyms)
def alias(n):
    return canon.get(n, n)

def rows(path, nf):
    """Data rows of a perf report -F sample,... table: (samples, field, field...)."""
    for l in open(path, errors="replace"):
        if l.startswith("#") or not l.strip():
            continue
        m = re.match(r"\s*(\d+)\s+(.*?)\s*$", l)
        if not m:
            continue
        yield int(m.group(1)), m.group(2)

d = json.loads(open(kt_json).readline())
bad = []

if what == "dso":
    # Kernel/user halves of perf's [unknown] DSO, from the dso,sym table.
    unk = Counter()
    for n, rest in rows(dsosym_txt, 2):
        if rest.startswith("[unknown]"):
            unk["k" if "[k]" in rest else "u"] += n
    want = Counter()
    for n, name in rows(dso_txt, 1):
        if name == "[kernel.kallsyms]" or name.startswith("[kernel.kallsyms]"):
            want["vmlinux+[idle]"] += n
        elif name == "[unknown]":
            pass
        elif name.startswith("[") and name.endswith("]") and name not in ("[vdso]", "[vsyscall]", "[vectors]"):
            want[name[1:-1]] += n
        else:
            want["[user]"] += n
    want["[user]"] += unk["u"]
    if unk["k"]:
        want["[unknown]"] += unk["k"]
    got = Counter()
    for m in d["modules"]:
        key = "vmlinux+[idle]" if m["name"] in ("vmlinux", "[idle]") else m["name"]
        got[key] += m["hits"]
    for k in sorted(set(want) | set(got)):
        if want[k] != got[k]:
            bad.append("module %s: perf %d, kerntop %d" % (k, want[k], got[k]))
    print("# modules compared: %s" % ", ".join("%s=%d" % kv for kv in sorted(want.items())))
    if sum(got.values()) != d["samples"]:
        bad.append("module hits %d != samples %d" % (sum(got.values()), d["samples"]))
else:
    want = Counter()
    for n, rest in rows(sym_txt, 1):
        if not rest.startswith("[k] "):
            continue
        name = rest[4:].strip()
        want["(no symbol)" if re.match(r"0x[0-9a-f]+$", name) else alias(name)] += n
    got = Counter()
    for f in d["functions"]:
        if f["module"] in ("[user]",):
            continue
        name = f["name"]
        # A kernel address kerntop could not name is a module+offset bucket or [unknown].
        if f["module"] == "[unknown]" or re.match(r"^(0x[0-9a-f]+|.*\+0x[0-9a-f]+)$", name):
            name = "(no symbol)"
        got[alias(name)] += f["hits"]
    for k in sorted(set(want) | set(got)):
        if want[k] != got[k]:
            bad.append("function %s: perf %d, kerntop %d" % (k, want[k], got[k]))
    print("# functions compared: %d names, %d kernel samples; top: %s" % (
        len(want), sum(want.values()),
        ", ".join("%s=%d" % kv for kv in want.most_common(5))))
for b in bad[:30]:
    print(b)
sys.exit(1 if bad else 0)
PY

python3 "$TMP/cmp.py" "$TMP/dso.txt" "$TMP/sym.txt" "$TMP/dsosym.txt" "$TMP/kt.json" dso /proc/kallsyms >"$TMP/cmp.dso" 2>&1
rc=$?
grep '^#' "$TMP/cmp.dso"
ok $rc "module table: kerntop hits equal perf report --sort dso exactly"
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/cmp.dso" | grep -v '^#   #'

python3 "$TMP/cmp.py" "$TMP/dso.txt" "$TMP/sym.txt" "$TMP/dsosym.txt" "$TMP/kt.json" sym /proc/kallsyms >"$TMP/cmp.sym" 2>&1
rc=$?
grep '^#' "$TMP/cmp.sym"
ok $rc "kernel function table: kerntop hits equal perf report --sort sym exactly"
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/cmp.sym" | grep -v '^#   #'

# The same comparison through the CSV writer: the module rows must carry the same counts.
"$KERNTOP" --replay "$TMP/p.txt" --speed max -b --format csv --top 1000000 >"$TMP/kt.csv" 2>/dev/null
is "$?" 0 "kerntop replays the same text to CSV"
check "CSV module hits equal the JSON ones" python3 - "$TMP/kt.csv" "$TMP/kt.json" <<'PY'
import csv, json, sys
d = json.loads(open(sys.argv[2]).readline())
want = {m["name"]: m["hits"] for m in d["modules"]}
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[0]
got = {}
for r in rows[1:]:
    rec = dict(zip(hdr, r))
    if rec.get("kind", rec.get("type")) in ("module",):
        got[rec.get("module") or rec.get("name")] = int(rec["hits"])
assert got == want, (got, want)
PY
done_testing
