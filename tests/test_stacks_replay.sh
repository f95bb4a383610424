# Call stacks end to end on a replayed `perf script` fixture whose trees are known by hand
# (tests/data/stacks/gen.py): exact folded lines (root first, module-tagged), the JSON
# stacks array and the callers/callees trees it implies, --max-stack truncation, user
# frames dropped, the same samples without chains, and the strict folded format.
. "${top_srcdir:-.}/tests/lib.sh"

S="$DATA/stacks"
fc() { python3 "$top_srcdir/tests/tools/folded_check.py" "$@"; }
kt() { "$KERNTOP" -b --speed max --kallsyms "$S/kallsyms" --modules "$S/modules" "$@"; }

# The hand-computed folded export of stacks.perf (57 samples), hottest first.
cat >"$TMP/want.folded" <<'EOF'
[user] 11
default_idle_[k] 9
entry_SYSCALL_64_[k];do_syscall_64_[k];blob+0x40_[blob] 8
entry_SYSCALL_64_[k];do_syscall_64_[k];c_[k];m_xmit_[netmod] 7
entry_SYSCALL_64_[k];do_syscall_64_[k];a_[k];b_[k];g_[k] 6
entry_SYSCALL_64_[k];do_syscall_64_[k];a_[k];b_[k];f_[k] 5
asm_common_interrupt_[k];m_rx_[netmod];f_[k] 4
entry_SYSCALL_64_[k];do_syscall_64_[k];c_[k];f_[k] 3
entry_SYSCALL_64_[k];do_syscall_64_[k];a_[k];f_[k] 2
EOF
# The two 1-sample stacks: recursion r;r;r;f, and the 40-frame chain cut to 32 frames.
r31=$(printf 'r_[k];%.0s' $(seq 31))
{
	echo "entry_SYSCALL_64_[k];do_syscall_64_[k];r_[k];r_[k];r_[k];f_[k] 1"
	echo "${r31}g_[k] 1"
} >"$TMP/want.tail"

kt --replay "$S/stacks.perf" --format folded >"$TMP/f" 2>"$TMP/err"
is "$?" 0 "folded export of the replay"
is "$(cat "$TMP/err")" "" "nothing on stderr"
check "strict folded format, counts sum to the 57 samples" fc "$TMP/f" --samples 57 --lines 11 --max-frames 32
is "$(head -9 "$TMP/f")" "$(cat "$TMP/want.folded")" "the nine hottest stacks exactly, hottest first"
is "$(tail -2 "$TMP/f" | sort)" "$(sort "$TMP/want.tail")" "the two 1-sample stacks (recursion; 40 frames cut to the default 32)"

# speedscope's own importer, when the npm package is installed (npm install -g speedscope).
ss=${SPEEDSCOPE_DIR:-}
if [ -z "$ss" ] && command -v node >/dev/null && command -v npm >/dev/null; then
	ss="$(npm root -g 2>/dev/null)/speedscope"
fi
if [ -n "$ss" ] && [ -d "$ss/dist/release" ]; then
	node "$top_srcdir/tests/tools/speedscope_check.mjs" "$ss" "$TMP/f" >"$TMP/ss" 2>&1
	is "$(head -1 "$TMP/ss")" "stacks=11 weight=57 frames=68" "speedscope imports 11 stacks, 57 samples, 68 frames"
	is "$(sed 1d "$TMP/ss")" "$(awk '{ n = $NF; sub(/ [0-9]+$/, ""); print n "\t" $0 }' "$TMP/f")" \
		"speedscope reads every stack and count as written"
else
	echo "# speedscope is not installed (npm install -g speedscope): the strict parser alone checks the format"
fi

kt -g --replay "$S/stacks.perf" --format folded >"$TMP/fg"
is "$(cat "$TMP/fg")" "$(cat "$TMP/f")" "-g on a replay changes nothing: chains come from the file"

# --max-stack keeps the leaf-side frames, as the kernel does.
kt --replay "$S/stacks.perf" --max-stack 3 --format folded >"$TMP/f3"
check "--max-stack 3: strict format, same sample count" fc "$TMP/f3" --samples 57 --max-frames 3
cat >"$TMP/want3" <<'EOF'
[user] 11
default_idle_[k] 9
entry_SYSCALL_64_[k];do_syscall_64_[k];blob+0x40_[blob] 8
do_syscall_64_[k];c_[k];m_xmit_[netmod] 7
a_[k];b_[k];g_[k] 6
a_[k];b_[k];f_[k] 5
asm_common_interrupt_[k];m_rx_[netmod];f_[k] 4
do_syscall_64_[k];c_[k];f_[k] 3
do_syscall_64_[k];a_[k];f_[k] 2
r_[k];r_[k];f_[k] 1
r_[k];r_[k];g_[k] 1
EOF
is "$(sort "$TMP/f3")" "$(sort "$TMP/want3")" "--max-stack 3: exact truncated stacks"

kt --replay "$S/stacks.perf" --max-stack 1 --format folded >"$TMP/f1"
cat >"$TMP/want1" <<'EOF'
f_[k] 15
[user] 11
default_idle_[k] 9
blob+0x40_[blob] 8
g_[k] 7
m_xmit_[netmod] 7
EOF
is "$(sort "$TMP/f1")" "$(sort "$TMP/want1")" "--max-stack 1: leaves only (f 15 = 5+3+2+4+1)"

kt --replay "$S/stacks.perf" --max-stack 256 --format folded >"$TMP/f256"
r37=$(printf 'r_[k];%.0s' $(seq 37))
grep -qxF "entry_SYSCALL_64_[k];do_syscall_64_[k];${r37}g_[k] 1" "$TMP/f256"
ok "$?" "--max-stack 256: the 40-frame chain whole"
check "--max-stack 256: strict format" fc "$TMP/f256" --samples 57 --max-frames 40

# Without call chains (perf script without -g) every sample is a one-frame stack.
kt --replay "$S/stacks-leaf.perf" --format folded >"$TMP/fl"
is "$(sort "$TMP/fl")" "$(sort "$TMP/want1")" "a file without chains folds to its leaves"
kt --replay "$S/stacks-leaf.perf" --format json >"$TMP/jl"
check "JSON without chains has no stacks array" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["samples"] == 57 and "stacks" not in d, sorted(d)' "$TMP/jl"

"$KERNTOP" -b -n 1 --no-call-graph --format folded >/dev/null 2>"$TMP/err"
is "$?" 2 "live --format folded with --no-call-graph is a usage error"
like "$(cat "$TMP/err")" 'folded needs call chains: drop --no-call-graph' "saying to drop it"
"$KERNTOP" -b -g --max-stack 257 >/dev/null 2>"$TMP/err"
is "$?" 2 "--max-stack above 256 is refused"

# JSON: the stacks array, and the callers/callees trees it implies, computed by hand.
kt --replay "$S/stacks.perf" --top 100 --format json >"$TMP/j"
is "$?" 0 "JSON report of the replay"
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["event"])' "$TMP/j")" cpu-clock \
	"perf script's event modifiers (cpu-clock:pppH) are not part of the event name"
check "JSON stacks and the trees they imply" python3 - "$TMP/j" "$TMP/f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["samples"], d["kernel"], d["idle"], d["user"]) == (57, 37, 9, 11), d["samples"]
st = d["stacks"]
assert len(st) == 11 and sum(s["hits"] for s in st) == 57
hits = [s["hits"] for s in st]
assert hits == sorted(hits, reverse=True), hits
folded = {}
for l in open(sys.argv[2]).read().splitlines():
    k, n = l.rsplit(" ", 1)
    folded[k] = int(n)
assert {";".join(s["frames"]): s["hits"] for s in st} == folded, "JSON stacks == folded lines"
byname = {";".join(s["frames"]): s for s in st}
s = byname["asm_common_interrupt_[k];m_rx_[netmod];f_[k]"]
assert abs(s["pct"] - 4 / 57 * 100) < 1e-3 and abs(s["ms"] - 4 * 1.003009) < 1e-3, s
assert s["idle"] is False and byname["default_idle_[k]"]["idle"] is True

def strip(f):
    return f.rsplit("_[", 1)[0] if f.endswith("]") and "_[" in f else f

def callers(leaf):
    """Callers tree of leaf: {path (leaf first, callers outward): hits}."""
    t = {}
    for s in st:
        fr = [strip(f) for f in s["frames"]][::-1]  # leaf first
        if fr[0] != leaf:
            continue
        for i in range(1, len(fr) + 1):
            t[tuple(fr[:i])] = t.get(tuple(fr[:i]), 0) + s["hits"]
    return t

c = callers("f")
assert c[("f",)] == 15
kids = {p[1]: n for p, n in c.items() if len(p) == 2}
assert kids == {"b": 5, "m_rx": 4, "c": 3, "a": 2, "r": 1}, kids
assert c[("f", "b", "a", "do_syscall_64", "entry_SYSCALL_64")] == 5
assert c[("f", "a", "do_syscall_64", "entry_SYSCALL_64")] == 2
assert c[("f", "m_rx", "asm_common_interrupt")] == 4
assert c[("f", "r", "r", "r", "do_syscall_64", "entry_SYSCALL_64")] == 1
assert len(c) == 18, len(c)  # rows of the tree, the function itself included
g = callers("g")
assert g[("g",)] == 7 and g[("g", "b", "a")] == 6 and g[("g", "r")] == 1
# callees of a: samples with a on the stack (13), a -> b 11 -> {g 6, f 5}, a -> f 2
ce = {}
for s in st:
    fr = [strip(f) for f in s["frames"]]  # root first
    if "a" in fr:
        i = fr.index("a")
        for j in range(i + 1, len(fr) + 1):
            ce[tuple(fr[i:j])] = ce.get(tuple(fr[i:j]), 0) + s["hits"]
assert ce == {("a",): 13, ("a", "b"): 11, ("a", "b", "g"): 6, ("a", "b", "f"): 5, ("a", "f"): 2}, ce
PY

kt --replay "$S/stacks.perf" --top 100 >"$TMP/t"
out=$(cat "$TMP/t")
like "$out" '^Hottest stacks$' "text report has the hottest stacks table"
like "$out" '^ +4 +7\.02%  asm_common_interrupt_\[k\];m_rx_\[netmod\];f_\[k\]$' "a module-tagged stack row"
like "$out" '^f +vmlinux +15 ' "f is the top kernel function with its 15 hits"
done_testing
