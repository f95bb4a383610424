# Source lines end to end: a module compiled here with -g, given by --module-dir, sampled in a
# replayed perf script; the viewer's deepest level shows file:line rows (libdw), checked against
# addr2line on the same object, and a snapshot keeps them. A function of a module without debug
# info shows address buckets at that level instead.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/ui_lib.sh"
CC=${CC:-cc}
M="$TMP/mods"
mkdir -p "$M" "$TMP/snap"
cat >"$M/hotmod.c" <<'EOF'
int hot_sum(volatile int *p, int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += p[i] * 3;
	return s;
}
EOF
$CC -g -O0 -c "$M/hotmod.c" -o "$M/hotmod.ko"
ok $? "compile a module with -g"
# the loop body and the return are on different lines: their offsets from addr2line itself
offs=$(seq 0 127)
lines=$(addr2line -e "$M/hotmod.ko" -j .text $(printf '0x%x ' $offs) | sed 's/.*://; s/ .*//')
off_a=$(printf '%s\n' "$lines" | grep -n -m1 '^6$' | cut -d: -f1)
off_b=$(printf '%s\n' "$lines" | grep -n -m1 '^7$' | cut -d: -f1)
off_a=$((${off_a:-0} - 1)) off_b=$((${off_b:-0} - 1))
[ "$off_a" -ge 0 ] && [ "$off_b" -ge 0 ]
ok $? "addr2line places offsets on lines 6 and 7 ($off_a, $off_b)"

base=0xffffffffc0020000
cat >"$TMP/kallsyms" <<'EOF'
ffffffff81000000 T _stext
ffffffff81000100 T default_idle
ffffffff81000200 T read_zero
ffffffff81001000 T _etext
ffffffffc0020000 t hot_sum	[hotmod]
ffffffffc0030000 t plain_fn	[plainmod]
EOF
printf 'hotmod 16384 0 - Live %s\nplainmod 16384 0 - Live 0xffffffffc0030000\n' "$base" >"$TMP/modules"
sample() { # time address name module
	printf 'dd 100/100 [000] %s: 1003009 cpu-clock: \n\t%x %s ([%s])\n\n' "$1" "$2" "$3" "$4"
}
{
	t=100
	for i in 1 2 3 4 5 6; do sample "$t.00$i" $((base + off_a)) hot_sum hotmod; done
	for i in 1 2 3; do sample "$t.10$i" $((base + off_b)) hot_sum hotmod; done
	for i in 1 2; do sample "$t.20$i" $((0xffffffffc0030000 + 0x48)) plain_fn plainmod; done
} >"$TMP/s.perf"

ui_start 100 30 -- --replay "$TMP/s.perf" --speed max --kallsyms "$TMP/kallsyms" \
	--modules "$TMP/modules" --module-dir "$M" --snapshot-dir "$TMP/snap" -z hotmod
see '^hot_sum +9 ' "-z hotmod opens on its functions: hot_sum from the ELF"
keys Enter
see '^modules > hotmod > hot_sum ' "Enter on hot_sum: its lines"
see '^hotmod\.c:6 .* 6 ' "the loop body line, where addr2line puts it, 6 hits"
see '^hotmod\.c:7 .* 3 ' "the return line, 3 hits"
unseen '^hot_sum\+0x' "no address buckets when lines are known"
keys w
see 'snapshot written to ' "w writes a snapshot"
snap=$(printf '%s\n' "$SCREEN" | sed -n 's/.*snapshot written to \([^ ]*\).*/\1/p')
like "$(cat "$snap" 2>/dev/null)" 'hotmod\.c:6' "the snapshot keeps the source line rows"
keys BSpace BSpace
see '^modules +1/' "back to the modules"
keys / p l a i n Enter Enter
see '^plain_fn +2 ' "plainmod has no ELF: kallsyms names its function"
keys Enter
see '^plain_fn\+0x40 .* 2 ' "and its deepest level is 64-byte address buckets"
keys q
see 'EXIT=0' "quit"

no_stderr
done_testing
