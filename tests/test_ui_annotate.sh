# The annotate screen end to end (tmux): a module compiled here with hot loops (-O2 -g), given by
# --module-dir, sampled in a replayed perf script. a on a function opens its instructions with
# the hits on each and source lines; s sorts by hits; / filters; Enter on a call opens the called
# function's screen; w writes the listing into the snapshot; a from a lines screen opens at the
# selected line; z (the old a) still toggles the cumulative mode; a function without text says
# why on screen.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/ui_lib.sh"
CC=${CC:-cc}
command -v objdump >/dev/null 2>&1 || skip_all "objdump is not installed (apt-get install binutils)"
M="$TMP/mods"
mkdir -p "$M" "$TMP/snap"
cat >"$TMP/hot.c" <<'C'
__attribute__((noinline)) int hot_mul(int x)
{
	return x * 13 ^ (x >> 3);
}

int hot_loop(volatile int *p, int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += hot_mul(p[i]) + p[i] * 7;
	return s;
}
C
$CC -O2 -g -c "$TMP/hot.c" -o "$TMP/hot.o"
ok $? "compile an object with a hot loop"
# linked as a vmlinux, so that the call into hot_mul is resolved (a .ko's waits for relocation)
ld -Ttext=0xffffffff81000000 -e hot_loop -o "$TMP/vmlinux" "$TMP/hot.o"
ok $? "link it as a vmlinux"
objdump -d -M intel --no-show-raw-insn "$TMP/vmlinux" >"$TMP/od.txt"
# function-relative offset of instruction N of a function, as the screen shows it
addrs() { awk -v f="<$1>:" '$2 == f { on = 1; next } /^$/ { on = 0 } on && /^ *[0-9a-f]+:/ { sub(":", "", $1); print $1 }' "$TMP/od.txt"; }
fstart() { nm "$TMP/vmlinux" | awk -v f="$1" '$3 == f { print $1 }'; }
rel() { printf '%x' $((0x$(addrs "$1" | sed -n "$2p") - 0x$(fstart "$1"))); }
abs() { addrs "$1" | sed -n "$2p"; }
L5=$(rel hot_loop 5) L9=$(rel hot_loop 9)
CALL=$(awk '/<hot_loop>:/ { on = 1; next } /^$/ { on = 0 } on && $2 == "call" { sub(":", "", $1); print $1 }' "$TMP/od.txt")
CALLREL=$(printf '%x' $((0x$CALL - 0x$(fstart hot_loop))))
{
	nm "$TMP/vmlinux" | awk '$2 ~ /^[Tt]$/ { print $1, "T", $3 }'
	printf 'ffffffff81100000 T _etext\nffffffffc0030000 t plain_fn\t[plainmod]\n'
} | sort >"$TMP/kallsyms"
printf 'plainmod 16384 0 - Live 0xffffffffc0030000\n' >"$TMP/modules"
sample() { printf 'dd 100/100 [000] 100.%04d: 1003009 cpu-clock: \n\t%s f ([%s])\n\n' "$1" "$2" "$3"; }
{
	n=0
	for a in "$(abs hot_loop 5)" "$(abs hot_loop 5)" "$(abs hot_loop 5)" "$(abs hot_loop 5)" \
		"$(abs hot_loop 5)" "$(abs hot_loop 9)" "$(abs hot_loop 9)" "$(abs hot_mul 1)"; do
		n=$((n + 1))
		sample $n "$a" kernel.kallsyms
	done
	sample 20 ffffffffc0030040 plainmod
} >"$TMP/s.perf"

ui_start 110 34 -- --replay "$TMP/s.perf" --speed max --kallsyms "$TMP/kallsyms" \
	--modules "$TMP/modules" --vmlinux "$TMP/vmlinux" --snapshot-dir "$TMP/snap" -z vmlinux
see '^hot_loop +7 ' "-z vmlinux: hot_loop with 7 hits"
# Capstone is loaded on the first annotate, not at start (8 MiB of the viewer's RSS with libcurl)
kpid=$(pgrep -nf -- "--replay $TMP/s.perf")
maps=$(cat "/proc/$kpid/maps" 2>/dev/null)
ok "$([ -n "$maps" ] && ! printf '%s' "$maps" | grep -q 'libcapstone\|libcurl'; echo $?)" \
	"before the first annotate the viewer maps neither Capstone nor libcurl"
keys a
see '^hot_loop \(vmlinux\) 0xffffffff810000[0-9a-f]+, [0-9]+ bytes, 7 hits since start, text from vmlinux, by address' \
	"a opens the annotate screen: function, size, hits, the text's source"
grep -q libcapstone "/proc/$kpid/maps"
ok $? "the annotate screen loaded Capstone"
see "^ +5 +71\\.43 +$L5  " "the hottest instruction: 5 hits, 71.43 % of the function, at its offset"
see "^ +2 +28\\.57 +$L9  " "the other sampled one: 2 hits"
see '^ +hot\.c:1[01]$' "source lines interleaved"
see "^ +2 +28\\.57 +$CALLREL  call 0x[0-9a-f]+ <hot_mul>" "the call with its target by name"
keys s
see 'by hits' "s sorts by hits"
is "$(rows_after '^ +Hits +%Func' | cut -d' ' -f1-2)" "5 2" "hottest first"
keys s
see 'by address' "s again: by address"
keys / l e a Enter
see 'filter lea' "/ filters the instructions"
unseen '  test ' "rows that do not match are gone"
keys / C-u Enter
see '  test ' "an empty filter shows them again"
keys w
see 'snapshot written to ' "w writes a snapshot"
snap=$(printf '%s\n' "$SCREEN" | sed -n 's/.*snapshot written to \([^ ]*\).*/\1/p')
like "$(cat "$snap" 2>/dev/null)" "^Annotate hot_loop \\(vmlinux\\)" "the snapshot includes the annotate listing"
like "$(cat "$snap" 2>/dev/null)" "^ +5 +71\\.43 +$(abs hot_loop 5)  " "with the hits per instruction"
keys z
see 'cumulative: counting since start' "z (the old a) toggles the cumulative mode"
keys z
see 'window: counting the last seconds' "z again: the rolling window"
keys / c a l l Enter
see "^ +2 +28\\.57 +$CALLREL  call " "/call: the call row, selected"
keys Enter
see '^hot_mul \(vmlinux\) 0x[0-9a-f]+, [0-9]+ bytes, 1 hits' "Enter on the call opens hot_mul's annotate screen"
see '^modules > vmlinux > hot_loop > annotate > hot_mul > annotate' "on top of hot_loop's"
keys BSpace
see '^hot_loop \(vmlinux\)' "Backspace: back to hot_loop's"
keys a
see '^modules > vmlinux +' "a again: back to the functions"
keys Enter
see '^modules > vmlinux > hot_loop ' "Enter: hot_loop's lines"
keys End
# End must have moved the selection (not just shown the row) before a opens at it: wait until
# the reverse-video row is line 11 (the last line of hot_loop).
n=0
while [ $n -lt 300 ]; do
	sel=$(tm capture-pane -e -p -t "$S" | grep -E "$(printf '\033')\[([0-9;]*;)?(7|46)m" | grep -v '^.\[[0-9;]*m *Hits' | head -1)
	case $sel in *"hot.c:11 "*) break ;; esac
	# rows still arriving under load can push line 11 below the row End selected: press again
	[ $((n % 10)) -eq 9 ] && keys End
	sleep 0.1
	n=$((n + 1))
done
like "$sel" 'hot\.c:11 ' "the line of the call is selected"
# every row of a lines screen carries the function's id: a refresh (z forces one) must keep the
# selection on line 11, not move it to the first (hottest) line
keys z
see 'cumulative: counting since start' "z on the lines screen: a refresh"
sel=$(tm capture-pane -e -p -t "$S" | grep -E "$(printf '\033')\[([0-9;]*;)?(7|46)m" | grep -v '^.\[[0-9;]*m *Hits' | head -1)
like "$sel" 'hot\.c:11 ' "the selection stays on line 11 across the refresh"
keys z
see 'window: counting the last seconds' "z again: the rolling window"
keys a
see '^hot_loop \(vmlinux\)' "a on a line opens the annotate screen"
# the selected row is drawn in reverse (or the selection colour): the first instruction of
# line 11 at or after the line's address, the call
n=0
while [ $n -lt 300 ]; do
	sel=$(tm capture-pane -e -p -t "$S" | grep -E "$(printf '\033')\[([0-9;]*;)?(7|46)m" | grep -v '^.\[[0-9;]*m *Hits' | head -1)
	case $sel in *"call "*) break ;; esac
	sleep 0.1
	n=$((n + 1))
done
like "$sel" "call 0x" "opened at that line: its instruction is selected"
keys BSpace BSpace BSpace
see '^modules +1/' "back to the modules"
keys / p l a i n Enter Enter
see '^plain_fn +1 ' "plainmod: plain_fn"
keys a
see 'no kernel text: .*and no --module-dir given' "no text: the reason on screen, naming the fix"
keys q
see 'EXIT=0' "quit"
no_stderr
done_testing
