# The viewer's callers tree driven in tmux (private server -L kerntop-stacks-PID) on the
# hand-counted call-chain fixture (tests/data/stacks/gen.py): g on a function and Enter on
# [callers] open the tree of f, hottest path expanded; Right expands a caller, Left collapses
# it; w writes the whole tree to a text snapshot, W to a folded one (exact contents).
. "${top_srcdir:-.}/tests/lib.sh"
command -v tmux >/dev/null 2>&1 || skip_all "tmux is not installed (apt-get install tmux)"

S="$DATA/stacks"
SOCK=kerntop-stacks-$$
SCREEN=
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server >/dev/null 2>&1; rm -rf "$TMP"' EXIT
mkdir -p "$TMP/snap"

keys() { tm send-keys -t st "$@"; }
capture() { SCREEN=$(tm capture-pane -p -t st); }
wait_for() { # wait_for REGEX [SECONDS]: polls the pane until a line matches
	n=$(( ${2:-10} * 10 ))
	while [ "$n" -gt 0 ]; do
		capture
		printf '%s\n' "$SCREEN" | grep -Eq -- "$1" && return 0
		# kerntop has exited (the shell printed EXIT=): no use waiting
		printf '%s\n' "$SCREEN" | grep -Eq 'EXIT=[0-9]+$' && return 1
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}
wait_gone() {
	n=$(( ${2:-10} * 10 ))
	while [ "$n" -gt 0 ]; do
		capture
		printf '%s\n' "$SCREEN" | grep -Eq -- "$1" || return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}
dump() { printf '%s\n' "$SCREEN" | sed 's/^/#   /'; }
see() { if wait_for "$1"; then ok 0 "$2"; else ok 1 "$2"; dump; echo "#   never matched /$1/"; fi; }
unseen() { if wait_gone "$1"; then ok 0 "$2"; else ok 1 "$2"; dump; echo "#   still matches /$1/"; fi; }

tm new-session -d -s st -x 110 -y 32 "sh -c \"'$KERNTOP' --replay '$S/stacks.perf' --speed max \
--kallsyms '$S/kallsyms' --modules '$S/modules' --cumulative --snapshot-dir '$TMP/snap' \
--log '$TMP/ui.log'; echo EXIT=\\\$?; exec sleep 600\""
tm set-option -t st status off >/dev/null

see 'replay finished' "the replay of the fixture finishes"
see '^vmlinux +22 ' "modules: vmlinux holds f 15 + g 7"
keys Enter
see '^f +15 ' "Enter on vmlinux: f with 15 hits"
keys g
see ' > f > callers ' "g on f opens its callers (breadcrumb)"
see '^- f +vmlinux +15 +100\.0%' "tree root: f, 15 hits, 100 %"
see '^  - b +vmlinux +5 +33\.3%' "hottest caller b (a->b->f 5) first, expanded"
see '^    - a +vmlinux +5 +33\.3%' "its caller a, expanded"
see '^      - do_syscall_64 +vmlinux +5 ' "down the hottest chain"
see '^          entry_SYSCALL_64 +vmlinux +5 ' "to the root of the chain, a leaf row"
see '^  \+ m_rx +netmod +4 +26\.7%' "the module caller m_rx, collapsed"
see '^  \+ c +vmlinux +3 +20\.0%' "c->f 3, collapsed"
see '^  \+ a +vmlinux +2 +13\.3%' "a->f 2: a direct caller too, collapsed"
see '^  \+ r +vmlinux +1 +6\.7%' "recursion r->r->r->f 1, collapsed"
capture
is "$(printf '%s\n' "$SCREEN" | grep -cE '^ *[-+ ] [A-Za-z0-9_]+ +(vmlinux|netmod) +[0-9]+ ')" 9 "nine visible tree rows"

keys End Up Up Up Right
see '^  - m_rx +netmod +4 ' "Right expands m_rx"
see '^      asm_common_interrupt +vmlinux +4 +26\.7%' "its caller appears under it"
keys Left
see '^  \+ m_rx +netmod +4 ' "Left collapses m_rx"
unseen 'asm_common_interrupt' "its caller is hidden again"
keys End Right
see '^  - r +vmlinux +1 ' "Right expands r"
see '^    \+ r +vmlinux +1 ' "showing the recursive caller r, collapsed"
keys Right Right
see '^      \+ r +vmlinux +1 ' "Right on an open node steps onto its caller; again expands it"
keys Home Down Left
see '^  \+ b +vmlinux +5 ' "Left on the open b collapses the hottest chain"
unseen '^      - do_syscall_64 +vmlinux +5 ' "its callers are hidden"

keys w
see 'snapshot written to [^ ]*\.txt' "w writes a text snapshot of the tree"
snap=$(printf '%s\n' "$SCREEN" | sed -n 's/.*snapshot written to \([^ ]*\.txt\).*/\1/p')
cat >"$TMP/want.tree" <<'EOF'
      Hits   %Func  Function <- callers
        15 100.00%  f [vmlinux]
         5  33.33%    b [vmlinux]
         5  33.33%      a [vmlinux]
         5  33.33%        do_syscall_64 [vmlinux]
         5  33.33%          entry_SYSCALL_64 [vmlinux]
         4  26.67%    m_rx [netmod]
         4  26.67%      asm_common_interrupt [vmlinux]
         3  20.00%    c [vmlinux]
         3  20.00%      do_syscall_64 [vmlinux]
         3  20.00%        entry_SYSCALL_64 [vmlinux]
         2  13.33%    a [vmlinux]
         2  13.33%      do_syscall_64 [vmlinux]
         2  13.33%        entry_SYSCALL_64 [vmlinux]
         1   6.67%    r [vmlinux]
         1   6.67%      r [vmlinux]
         1   6.67%        r [vmlinux]
         1   6.67%          do_syscall_64 [vmlinux]
         1   6.67%            entry_SYSCALL_64 [vmlinux]
EOF
like "$(cat "$snap" 2>/dev/null)" '^== callers of f \(18 of 18 rows\) ==$' "snapshot title: callers of f, all 18 rows"
sed -n '/^== callers of f/,$p' "$snap" 2>/dev/null | sed 1d | sed '/^$/,$d' >"$TMP/got.tree"
is "$(cat "$TMP/got.tree")" "$(cat "$TMP/want.tree")" "the snapshot holds the whole tree, collapsed nodes included"

keys W C-u folded Enter
see 'snapshot file: ' "W asks for the file after the format"
keys C-u "$TMP/snap/tree.folded" Enter
see 'snapshot written to .*tree\.folded' "W writes a folded snapshot"
cat >"$TMP/want.folded" <<'EOF'
entry_SYSCALL_64_[k];do_syscall_64_[k];a_[k];b_[k];f_[k] 5
asm_common_interrupt_[k];m_rx_[netmod];f_[k] 4
entry_SYSCALL_64_[k];do_syscall_64_[k];c_[k];f_[k] 3
entry_SYSCALL_64_[k];do_syscall_64_[k];a_[k];f_[k] 2
entry_SYSCALL_64_[k];do_syscall_64_[k];r_[k];r_[k];r_[k];f_[k] 1
EOF
is "$(cat "$TMP/snap/tree.folded" 2>/dev/null)" "$(cat "$TMP/want.folded")" "folded snapshot of the tree: f's stacks, 15 samples"
check "and it is strictly folded" python3 "$top_srcdir/tests/tools/folded_check.py" "$TMP/snap/tree.folded" --samples 15

keys W C-u json Enter
see 'snapshot file: ' "W json: asks for the file"
keys C-u "$TMP/snap/tree.json" Enter
see 'snapshot written to .*tree\.json' "W writes a JSON snapshot"
check "JSON snapshot: the tree rows with depth, parent and % of f" python3 - "$TMP/snap/tree.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["snapshot"]
assert t["view"] == "callers" and t["title"] == "callers of f" and t["total_rows"] == 18, t["title"]
rows = [(r["name"], r["module"], r["hits"], r["depth"], r["parent"]) for r in t["rows"]]
want = [("f", "vmlinux", 15, 0, -1), ("b", "vmlinux", 5, 1, 0), ("a", "vmlinux", 5, 2, 1),
        ("do_syscall_64", "vmlinux", 5, 3, 2), ("entry_SYSCALL_64", "vmlinux", 5, 4, 3),
        ("m_rx", "netmod", 4, 1, 0), ("asm_common_interrupt", "vmlinux", 4, 2, 5),
        ("c", "vmlinux", 3, 1, 0), ("do_syscall_64", "vmlinux", 3, 2, 7),
        ("entry_SYSCALL_64", "vmlinux", 3, 3, 8), ("a", "vmlinux", 2, 1, 0),
        ("do_syscall_64", "vmlinux", 2, 2, 10), ("entry_SYSCALL_64", "vmlinux", 2, 3, 11),
        ("r", "vmlinux", 1, 1, 0), ("r", "vmlinux", 1, 2, 13), ("r", "vmlinux", 1, 3, 14),
        ("do_syscall_64", "vmlinux", 1, 4, 15), ("entry_SYSCALL_64", "vmlinux", 1, 5, 16)]
assert rows == want, rows
assert abs(t["rows"][5]["pct_function"] - 4 / 15 * 100) < 1e-3
assert d["samples"] == 57
PY

# The other way in: Enter on f opens its lines, whose [callers] row opens the same tree.
keys BSpace
see '^f +15 ' "Backspace: back to the functions"
keys Enter
see '^\[callers\]' "Enter on f: lines screen with a [callers] row"
keys Home Enter
see '^- f +vmlinux +15 +100\.0%' "Enter on [callers]: the tree of f"
keys q
see '^EXIT=0$' "q quits cleanly"
done_testing
