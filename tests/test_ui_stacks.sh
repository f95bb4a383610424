# The viewer's callees tree (G, [callees]) and hottest-stacks screen (S, Enter: frames) driven
# in tmux on the hand-counted call-chain fixture (tests/data/stacks/gen.py): exact callees
# counts, the stacks of f (15 hits: a->b->f 5, m_rx->f 4, c->f 3, a->f 2, r->r->r->f 1), of g
# (the 40-frame stack cut to 32 and elided to fit), of the module netmod, and the snapshots.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/ui_lib.sh"

SD="$DATA/stacks"
mkdir -p "$TMP/snap"
start() { # start WIDTH: the fixture replayed at full speed, cumulative (every count known)
	ui_start "$1" 32 -- --replay "$SD/stacks.perf" --speed max --kallsyms "$SD/kallsyms" \
		--modules "$SD/modules" --cumulative --snapshot-dir "$TMP/snap" --log "$TMP/ui.log"
}
# the rows under the column header matching $1, whole lines without trailing blanks
lines_after() {
	printf '%s\n' "$SCREEN" | awk -v re="$1" 'f && NF == 0 { exit } f { sub(/ +$/, ""); print } $0 ~ re { f = 1 }'
}
snapfile() { # the file named on the status line after w
	printf '%s\n' "$SCREEN" | sed -n 's/.*snapshot written to \([^ ]*\.txt\).*/\1/p'
}

start 110
see 'replay finished' "the replay of the fixture finishes"
see '^vmlinux +22 ' "modules: vmlinux"
keys Enter
see '^f +15 ' "functions of vmlinux: f with 15 hits"
see 'g callers +G callees ' "the key bar lists G"

# [callees] on the lines screen; f is a leaf everywhere: no callees
keys Enter
see '^\[callers\] who calls this function' "lines: the [callers] row"
see '^\[callees\] what this function calls \(Enter or G\)$' "lines: the [callees] row under it (no 'needs -g': chains were sampled)"
keys Home Down Enter
see '^modules > vmlinux > f > callees ' "Enter on [callees]: the callees tree"
see '^Callee +Module +Hits +%Func +%Kernel$' "callees columns"
see '^  f +vmlinux +15 +100\.0% +26\.3%$' "root f, 15 hits, no children"
see 'no callees in the current window: the function is the leaf of every stack' "f calls nothing: says so"
keys BSpace BSpace

# G on a node of f's callers tree: the callees of do_syscall_64 (32 samples pass through it)
keys g
see '^      - do_syscall_64 +vmlinux +5 ' "callers of f, hottest chain open"
keys Down Down Down G
see '^modules > vmlinux > f > callers > do_syscall_64 > callees ' "G on a caller: its callees (breadcrumb)"
see '^- do_syscall_64 +vmlinux +32 +100\.0%' "root do_syscall_64: 32 samples"
capture
is "$(lines_after '^Callee ')" "- do_syscall_64                                                       vmlinux             32  100.0%    56.1%
  - a                                                                 vmlinux             13   40.6%    22.8%
    - b                                                               vmlinux             11   34.4%    19.3%
        g                                                             vmlinux              6   18.8%    10.5%
        f                                                             vmlinux              5   15.6%     8.8%
      f                                                               vmlinux              2    6.2%     3.5%
  + c                                                                 vmlinux             10   31.2%    17.5%
    blob+0x40                                                         blob                 8   25.0%    14.0%
  + r                                                                 vmlinux              1    3.1%     1.8%" \
	"callees tree: hottest first, hottest chain open, exact counts"
keys End Up Up Right
see '^  - c +vmlinux +10 ' "Right expands c"
see '^      m_xmit +netmod +7 +21\.9%' "c calls m_xmit 7 times"
see '^      f +vmlinux +3 +9\.4%' "and f 3 times"
keys Left
see '^  \+ c +vmlinux +10 ' "Left collapses c"
unseen 'm_xmit' "its callees are hidden again"
keys Home Down Left
see '^  \+ a +vmlinux +13 ' "Left on the open a collapses it"
unseen '^    - b ' "b is hidden"
keys w
see 'snapshot written to [^ ]*\.txt' "w writes a text snapshot of the callees tree"
snap=$(snapfile)
like "$(cat "$snap" 2>/dev/null)" '^== callees of do_syscall_64 \(14 of 14 rows\) ==$' "snapshot title: callees, all 14 rows"
sed -n '/^== callees of/,$p' "$snap" 2>/dev/null | sed 1d | sed '/^$/,$d' >"$TMP/got.tree"
is "$(cat "$TMP/got.tree")" "      Hits   %Func  Function -> callees
        32 100.00%  do_syscall_64 [vmlinux]
        13  40.62%    a [vmlinux]
        11  34.38%      b [vmlinux]
         6  18.75%        g [vmlinux]
         5  15.62%        f [vmlinux]
         2   6.25%      f [vmlinux]
        10  31.25%    c [vmlinux]
         7  21.88%      m_xmit [netmod]
         3   9.38%      f [vmlinux]
         8  25.00%    blob+0x40 [blob]
         1   3.12%    r [vmlinux]
         1   3.12%      r [vmlinux]
         1   3.12%        r [vmlinux]
         1   3.12%          f [vmlinux]" "the snapshot holds the whole callees tree, collapsed nodes included"
# S and g on a tree node: the views about that node's function
keys Home Down Down
see '^modules > vmlinux > f > callers > do_syscall_64 > callees +3/5' "c selected"
keys S
see '^modules > vmlinux > f > callers > do_syscall_64 > callees > c > stacks' "S on a node: its stacks"
see 'no sampled stack ends in this function in the current window' "c is never a leaf: says so"
keys BSpace g
see '^modules > vmlinux > f > callers > do_syscall_64 > callees > c > callers ' "g on a node: its callers"
see '^  c +vmlinux +0 +0\.0%' "callers count stacks ending in c: none"
see 'no sampled stack ends in this function in the current window \(G: what it calls' "and says so"
keys BSpace BSpace BSpace
see '^f +15 ' "back to the functions"

# S on f: its hottest stacks
keys S
see '^modules > vmlinux > f > stacks +1/5$' "S on f: its stacks (breadcrumb, 5 stacks)"
see '^Stack \(root > \.\.\. > leaf\) +\[Hits\] +%Func +%Kernel$' "stacks columns"
capture
lines_after '^Stack ' | sed 's/  */ /g' >"$TMP/got.stacks"
is "$(cat "$TMP/got.stacks")" "entry_SYSCALL_64 > do_syscall_64 > a > b > f 5 33.3% 8.8%
asm_common_interrupt > m_rx > f 4 26.7% 7.0%
entry_SYSCALL_64 > do_syscall_64 > c > f 3 20.0% 5.3%
entry_SYSCALL_64 > do_syscall_64 > a > f 2 13.3% 3.5%
entry_SYSCALL_64 > do_syscall_64 > r > r > r > f 1 6.7% 1.8%" "one row per stack of f, hottest first, hits and %"
keys Down Enter
see '^modules > vmlinux > f > stacks > stack 2$' "Enter on the second stack: its frames"
see '^ +# Frame \(root first\) +Module$' "frames header"
capture
is "$(lines_after '^ +# Frame' | sed 's/  */ /g')" " 1 asm_common_interrupt vmlinux
 2 m_rx netmod
 3 f vmlinux" "one frame per line, root first, with its module"
see "this stack: 4 hits, 26\\.7% of the function's stacks, 7\\.0% %Kernel" "how hot the stack is"
keys G
see '^modules > vmlinux > f > stacks > stack 2 > asm_common_interrupt > callees ' "G on a frame: its callees"
see '^  - m_rx +netmod +4 +100\.0%' "asm_common_interrupt -> m_rx 4"
see '^      f +vmlinux +4 +100\.0%' "-> f 4"
keys BSpace
keys Down Enter
see '^modules > vmlinux > f > stacks > stack 2 > m_rx ' "Enter on a frame: that function's lines"
see '^\[callees\] ' "with its [callers] and [callees] rows"
keys BSpace BSpace
see '^modules > vmlinux > f > stacks +2/5$' "back on the stacks, selection kept"
keys / M _ R x Enter
see '^modules > vmlinux > f > stacks +filter "M_Rx" +1/1$' "/ on the stacks: a case-insensitive frame filter"
capture
is "$(lines_after '^Stack ' | sed 's/  */ /g')" "asm_common_interrupt > m_rx > f 4 26.7% 7.0%" "only the stack through m_rx, % still of all of f's stacks"
keys / C-u Enter
see '^modules > vmlinux > f > stacks +1/5$' "empty filter: every stack again"
keys Down
see '^modules > vmlinux > f > stacks +2/5$' "second stack selected"
keys Space Space
see 'resumed' "a new status line (the last one named the callees snapshot)"
keys w
see 'snapshot written to [^ ]*\.txt' "w on the stacks screen writes a text snapshot"
snap=$(snapfile)
sed -n '/^== stacks of f/,$p' "$snap" 2>/dev/null | sed '/^$/,$d' >"$TMP/got.snap"
is "$(cat "$TMP/got.snap")" "== stacks of f (5 of 5 rows) ==
      Hits  %Total  Stack (root first)
         5   8.77%  entry_SYSCALL_64_[k];do_syscall_64_[k];a_[k];b_[k];f_[k]
         4   7.02%  asm_common_interrupt_[k];m_rx_[netmod];f_[k]
         3   5.26%  entry_SYSCALL_64_[k];do_syscall_64_[k];c_[k];f_[k]
         2   3.51%  entry_SYSCALL_64_[k];do_syscall_64_[k];a_[k];f_[k]
         1   1.75%  entry_SYSCALL_64_[k];do_syscall_64_[k];r_[k];r_[k];r_[k];f_[k]" \
	"the snapshot holds every stack of f"
keys BSpace

# g's stacks: the 40-frame stack is cut to 32 frames (--max-stack) and elided to fit
keys Down S
see '^modules > vmlinux > g > stacks +1/2$' "S on g: two stacks"
see '^entry_SYSCALL_64 > do_syscall_64 > a > b > g +6 +85\.7% ' "the hottest stack of g, whole"
see '^r > \.\.\. > (r > )+g +1 +14\.3% ' "the deep one: root, ellipsis, the frames next to the leaf"
capture
row=$(printf '%s\n' "$SCREEN" | grep '^r > \.\.\. ' | sed 's/ *[0-9]* *14\.3%.*//; s/ *$//')
ok "$([ "${#row}" -le 82 ] && [ "${#row}" -ge 70 ] && echo 0 || echo 1)" "the elided stack fills its column (${#row} of 82 cells)"
keys Down Enter
see '^ +1 r +vmlinux$' "its frames, root first: r"
capture
is "$(printf '%s\n' "$SCREEN" | grep -cE '^ +[0-9]+ r +vmlinux$')" 23 "r frames fill the page (23 of 31 shown)"
keys End
see '^ +32 g +vmlinux$' "End: 32 frames, the leaf g last"
see "this stack: 1 hits, 14\\.3% of the function's stacks" "the deep stack's figures"
keys BSpace BSpace BSpace

# S on a module: the stacks whose leaf is in netmod; W writes them folded
keys End
see '^modules +5/5$' "netmod selected"
keys S
see '^modules > netmod > stacks +1/1$' "S on a module: its stacks"
see '^Stack \(root > \.\.\. > leaf\) +\[Hits\] +%Module +%Kernel$' "module stacks: %Module"
see '^entry_SYSCALL_64 > do_syscall_64 > c > m_xmit +7 +100\.0% +12\.3%$' "netmod's one stack (m_xmit 7)"
keys W C-u folded Enter
see 'snapshot file: ' "W asks for the file"
keys C-u "$TMP/snap/netmod.folded" Enter
see 'snapshot written to .*netmod\.folded' "W writes a folded snapshot of the module's stacks"
is "$(cat "$TMP/snap/netmod.folded" 2>/dev/null)" "entry_SYSCALL_64_[k];do_syscall_64_[k];c_[k];m_xmit_[netmod] 7" "folded: netmod's stack"
keys BSpace

# help lists the new keys
keys h
see '^  G +callees tree \(needs -g\)  \(functions, top functions, lines, callers, callees, frames\)$' "help: G and where it works"
see '^  S +hottest stacks \(needs -g\)  \(modules, functions, .*, callees,$' "help: S, on modules too"
see '^ {22}frames\)$' "the rest of the line wrapped under the text"
keys h

# a wide key bar has room for S too
start 140
see 'replay finished' "started at 140 columns"
keys Enter
see 'g callers +G callees +S stacks .* h help +q quit$' "140 columns: the key bar lists S"

# a narrow terminal elides more
start 60
see 'replay finished' "started at 60 columns"
keys Enter Down S
see '^entry_SYSCALL_64 > \.\.\. > b > g +6 ' "60 columns: root, ellipsis, leaf end"
see '^r > \.\.\. > (r > )+g +1 ' "the deep stack too"
keys q
see '^EXIT=0$' "q quits cleanly"
no_stderr
done_testing
