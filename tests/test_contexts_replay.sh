# Execution contexts end to end on a replayed `perf script` fixture with one group of samples
# per context rule (tests/data/contexts/gen.py counts them by hand): the JSON contexts array
# exactly, its shares summing to 100, the text and CSV tables, folded stacks rooted at their
# context, the same samples without chains (unknown), and --irq-owner's charging exactly.
. "${top_srcdir:-.}/tests/lib.sh"

C="$DATA/contexts"
kt() { "$KERNTOP" -b --speed max --kallsyms "$C/kallsyms" --modules "$C/modules" "$@"; }
# "kind name hits" per context, hottest first then by label, from a JSON report on stdin
ctxs() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
for c in sorted(d["contexts"], key=lambda c: (-c["hits"], c["kind"], c["name"])):
    print(c["kind"], c["name"] or "-", c["hits"])'
}

cat >"$TMP/want" <<'EOF'
syscall sendfile64 16
idle - 11
syscall recvfrom 9
softirq NET_RX 8
kthread kworker:vmstat_update 5
softirq NET_RX (ksoftirqd) 5
exception page_fault 4
hardirq apic_timer_interrupt 4
user - 4
hardirq vring_interrupt 3
kthread kswapd0 3
softirq TIMER 3
kthread swapper 2
softirq dispatch 2
syscall entry/exit 2
hardirq common_interrupt 1
hardirq nmi 1
hardirq spurious_interrupt 1
kthread ksoftirqd 1
other ret_from_fork_asm 1
EOF

kt --replay "$C/contexts.perf" --format json >"$TMP/j" 2>"$TMP/err"
is "$?" 0 "JSON report of the contexts fixture"
is "$(ctxs <"$TMP/j")" "$(cat "$TMP/want")" "every context with its hand-counted hits"
is "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["samples"], d["kernel"], d["idle"], d["user"], round(sum(c["pct"] for c in d["contexts"]), 2),
      d["irq_owner"], round(d["irq_helper_pct"], 1))' "$TMP/j")" "86 71 11 4 100.0 False 15.5" \
	"86 samples, shares summing to 100, irq_owner off, helpers at 11 of 71 kernel hits"
is "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s:%d" % (f["name"], f["hits"]) for f in d["functions"] if f.get("irq_helper")))' "$TMP/j")" \
	"pvm_irq_enable:8 __local_bh_enable_ip:3" "the IRQ-enabling helpers are marked in the functions table"
like "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("notice", ""))' "$TMP/j")" \
	'^15% of kernel hits are in IRQ-enabling helpers: cpu-clock cannot fire with IRQs off.*--irq-owner' \
	"the JSON notice explains the IRQ-off skew and names the fix"
is "$(cat "$TMP/err")" "" "nothing on stderr: the reports carry the notice"
kt --replay "$C/contexts.perf" --format json --log "$TMP/log" >/dev/null
like "$(cat "$TMP/log")" 'batch: notice: 15% of kernel hits are in IRQ-enabling helpers' "and the --log has it"

# The same samples without call chains: nothing but idle (the leaf says it), user and unknown.
kt --replay "$C/contexts-leaf.perf" --format json >"$TMP/jl" 2>"$TMP/err"
is "$(ctxs <"$TMP/jl" | tr '\n' ' ')" "unknown - 71 idle - 11 user - 4 " "without chains: unknown 71, idle 11, user 4"

# Text and CSV tables.
kt --replay "$C/contexts.perf" >"$TMP/t" 2>"$TMP/err"
like "$(sed -n '/^Contexts$/,/^$/p' "$TMP/t")" \
	'softirq NET_RX \(ksoftirqd\) +5 +5\.0 +5\.81% ' "the text report's contexts table"
like "$(cat "$TMP/t")" '^Notice: +15% of kernel hits are in IRQ-enabling helpers' "the text report's notice line"
kt --replay "$C/contexts.perf" --format csv >"$TMP/c" 2>"$TMP/err"
is "$(grep -c ',context,' "$TMP/c")" 20 "CSV: one context row per context"
like "$(grep ',context,softirq,' "$TMP/c" | cut -d, -f4-6 | LC_ALL=C sort | tr '\n' ' ')" \
	'^softirq,NET_RX \(ksoftirqd\),5 softirq,NET_RX,8 softirq,TIMER,3 softirq,dispatch,2 $' \
	"CSV context rows: kind in the module column, name, hits"

# Folded stacks rooted at their context.
kt --replay "$C/contexts.perf" --format folded --folded-context >"$TMP/f" 2>"$TMP/err"
is "$?" 0 "folded export with the context as root"
is "$(awk '{ n += $NF } END { print n }' "$TMP/f")" 86 "counts sum to the 86 samples"
is "$(grep -c '' "$TMP/f")" 23 "one line per (context, stack): 23"
like "$(cat "$TMP/f")" '^\[softirq NET_RX \(ksoftirqd\)\];ret_from_fork_asm_\[k\];ret_from_fork_\[k\];kthread_\[k\];smpboot_thread_fn_\[k\];run_ksoftirqd_\[k\];handle_softirqs_\[k\];net_rx_action_\[k\];f_\[k\] 5$' \
	"a ksoftirqd stack under [softirq NET_RX (ksoftirqd)]"
is "$(grep -c '^\[syscall sendfile64\];' "$TMP/f")" 2 "sendfile64 holds its two stacks"
is "$(sed 's/;.*//' "$TMP/f" | uniq | grep -c '')" 20 "each context's stacks are together"

# --irq-owner: helper hits go to the first caller outside the helpers.
kt --replay "$C/contexts.perf" --format json --irq-owner >"$TMP/jo" 2>"$TMP/err"
is "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
h = {f["name"]: f["hits"] for f in d["functions"]}
print(d["irq_owner"], d["kernel"], h.get("pvm_irq_enable", 0), h.get("__local_bh_enable_ip", 0),
      h.get("tcp_write_xmit"), h.get("tcp_recvmsg"), h.get("handle_softirqs"), h.get("f"))' "$TMP/jo")" \
	"True 71 0 0 6 9 2 21" \
	"--irq-owner: helpers 0; tcp_write_xmit 6, tcp_recvmsg 6+3, handle_softirqs 2; others unchanged"
is "$(ctxs <"$TMP/jo")" "$(cat "$TMP/want")" "--irq-owner leaves the contexts as they are"
like "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("notice", ""))' "$TMP/jo")" \
	'^15% of kernel hits landed in IRQ-enabling helpers .*--irq-owner charges them' "the notice says the charging is on"
kt --replay "$C/contexts.perf" --irq-owner >"$TMP/to" 2>"$TMP/err"
like "$(cat "$TMP/to")" '^IRQ owner: on' "the text header says --irq-owner is on"
kt --replay "$C/contexts.perf" --format folded --irq-owner >"$TMP/fo" 2>"$TMP/err"
like "$(cat "$TMP/fo")" ';tcp_sendmsg_\[k\];tcp_write_xmit_\[k\] 6$' "folded: the spinlock stack ends at its owner"
is "$(grep -c 'irq_enable\|bh_enable' "$TMP/fo")" 0 "folded: no helper frame left at a leaf"
is "$(awk '{ n += $NF } END { print n }' "$TMP/fo")" 86 "folded under --irq-owner still counts 86"

# A task renamed mid-stream: its samples before the rename count under the old command,
# those after under the new, although kerntop takes samples in a few at a time (a rename
# ends such a batch first).
{
	for i in 0 1 2 3 4; do
		[ "$i" -lt 3 ] && c=kswapd0 || c=reclaimer
		printf '%s 60/60 [000] 70.0%d0000:    1003009 cpu-clock:pppH: \n' "$c" "$i"
		printf '\tffffffff81002d10 shrink_node+0x10 ([kernel.kallsyms])\n'
		printf '\tffffffff81002c20 kswapd+0x20 ([kernel.kallsyms])\n'
		printf '\tffffffff81001420 kthread+0x20 ([kernel.kallsyms])\n'
		printf '\tffffffff81001520 ret_from_fork+0x20 ([kernel.kallsyms])\n\n'
	done
} >"$TMP/rename.perf"
kt --replay "$TMP/rename.perf" --format json >"$TMP/jr" 2>"$TMP/err"
is "$(ctxs <"$TMP/jr" | tr '\n' ' ')" "kthread kswapd0 3 kthread reclaimer 2 " \
	"a renamed kernel thread: 3 samples under its old command, 2 under its new"

done_testing
