# The contexts screen (e) and the o key driven in tmux on the hand-counted contexts fixture
# (tests/data/contexts/gen.py): every context with its hits and per-CPU columns, Enter
# filtering every screen (header, breadcrumb, modules, functions), x clearing it, the
# IRQ-enabling helpers marked, o charging them to their callers live, the IRQ-off notice,
# and the message without call chains.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/ui_lib.sh"

C="$DATA/contexts"
mkdir -p "$TMP/snap"
start() { # start FIXTURE: replayed at full speed, cumulative (every count known)
	ui_start 130 40 -- --replay "$C/$1" --speed max --kallsyms "$C/kallsyms" \
		--modules "$C/modules" --cumulative --snapshot-dir "$TMP/snap" --log "$TMP/ui.log"
}

start contexts.perf
see ' 86 hits in ' "the replay of the fixture is in"
see '15% of kernel hits are in IRQ-enabling help' "the status line explains the IRQ-off skew"
keys e
see '^modules > contexts ' "e opens the contexts screen"
see '^Context +\[Hits\] +CPU ms +%Kernel +%Machine +Hits/s +Trend +cpu0 +cpu1$' "its columns, one per CPU"
see '^syscall sendfile64 +16 +16\.0 +18\.6% .* 16 +0$' "sendfile64: 16 hits, all on cpu0"
see '^softirq NET_RX \(ksoftirqd\) +5 .* 0 +5$' "ksoftirqd's NET_RX: 5 hits on cpu1"
see '^other ret_from_fork_asm +1 ' "down to the last context"
capture
is "$(printf '%s\n' "$SCREEN" | awk '/^Context/ { f = 1; next } f && NF == 0 { exit } f { n++ } END { print n }')" 20 \
	"20 contexts listed"
see 'e contexts' "the key bar lists e"
keys w
see 'snapshot written to [^ ]*\.txt' "w writes a snapshot of the contexts screen"
snap=$(printf '%s\n' "$SCREEN" | sed -n 's/.*snapshot written to \([^ ]*\.txt\).*/\1/p')
like "$(cat "$snap" 2>/dev/null)" '== contexts \(20 of 20 rows\) ==' "the snapshot lists the 20 contexts"
like "$(cat "$snap" 2>/dev/null)" '== modules in softirq NET_RX \(1 of 1 rows\) ==' "and each context's modules under it"

# Enter on softirq NET_RX: every screen shows it only
keys Down Down Down Enter
see 'ctx:softirq NET_RX' "the header names the context filter"
see '^\[softirq NET_RX\] modules ' "the breadcrumb starts with it"
see '^vmlinux +8 +8\.0 +100\.0% ' "modules under NET_RX: vmlinux 8"
see ' 8 hits in ' "the header figures follow the filter"
keys f
see '^f +vmlinux +8 ' "top functions under NET_RX: f 8"
keys e
see '^\*softirq NET_RX +8 ' "the contexts screen marks the chosen context and still lists all"
see '^syscall sendfile64 +16 ' "every context still listed"
keys Enter
see 'showing all contexts' "Enter on it again clears the filter"
unseen 'ctx:softirq' "the header marker is gone"

# the helpers are marked; o charges them to their callers
keys BSpace f
see '^pvm_irq_enable \[irq-on\] +vmlinux +8 ' "pvm_irq_enable is marked as an IRQ-enabling helper"
keys o
see 'irq-owner: hits in IRQ-enabling helpers are charged to their callers' "o: says what it does"
see ' 2 CPUs  irq-owner' "the header says irq-owner is on"
see '^tcp_write_xmit +vmlinux +6 ' "tcp_write_xmit now holds its 6 helper hits"
see '^tcp_recvmsg +vmlinux +9 ' "tcp_recvmsg 6 + 3"
unseen '^pvm_irq_enable' "pvm_irq_enable holds nothing"
keys o
see '^pvm_irq_enable \[irq-on\] +vmlinux +8 ' "o again: raw numbers back"
keys e Down Down Down Enter f x
see 'filters cleared' "x clears the context filter too"
unseen 'ctx:softirq' "no context marker after x"
keys q
see 'EXIT=0' "q quits"
no_stderr

# without chains the screen says what is missing
start contexts-leaf.perf
see ' 86 hits in ' "the chainless replay is in"
see '15% of kernel hits are in IRQ-enabling help.*or use -e cycles' "the notice says -g is needed" 
keys e
see '^unknown +71 ' "without chains: unknown 71"
see 'contexts need call chains: start kerntop with -g' "and the screen says why"
keys q
see 'EXIT=0' "q quits"
no_stderr

done_testing
