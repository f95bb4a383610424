# Annotate end to end: objects with hot loops compiled here (gcc -O2 -g) as a module directory
# and as a vmlinux, kallsyms and modules fixtures from them, samples replayed at known
# instructions; kerntop's --annotate listing must give exact per-instruction counts and the
# same mnemonics and operands as objdump -d -M intel on the same object (normalisation in
# tests/tools/annotate_check.py). Then the text sources: a synthetic /proc/kcore through
# --sysroot (preferred over vmlinux, and said so), a mismatching build id, no text at all, and
# a corrupt ELF.
. "${top_srcdir:-.}/tests/lib.sh"
CC=${CC:-cc}
command -v objdump >/dev/null 2>&1 || skip_all "objdump is not installed (apt-get install binutils)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
TOOLS="$top_srcdir/tests/tools"
M="$TMP/mods"
mkdir -p "$M"
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

long hot_copy(char *d, const char *s, long n)
{
	for (long i = 0; i < n; i++)
		d[i] = s[i] ^ 0x5a;
	return n;
}
C
$CC -O2 -g -c "$TMP/hot.c" -o "$M/hotmod.ko"
ok $? "compile a module with hot loops (-O2 -g)"
objdump -d -M intel --no-show-raw-insn "$M/hotmod.ko" >"$TMP/od.txt"

# offsets of a function's instructions, in order, from objdump
insns() { awk -v f="<$1>:" '$2 == f { on = 1; next } /^$/ { on = 0 } on && /^ *[0-9a-f]+:/ { sub(":", "", $1); print $1 }' "$TMP/od.txt"; }
nth() { insns "$1" | sed -n "$2p"; }
L1=$(nth hot_loop 1) L5=$(nth hot_loop 5) L9=$(nth hot_loop 9)
C6=$(nth hot_copy 6)
[ -n "$L1" ] && [ -n "$L9" ] && [ -n "$C6" ]
ok $? "objdump lists hot_loop and hot_copy ($L1 $L5 $L9, $C6)"
JNE=$(awk -v f="<hot_loop>:" '$2 == f { on = 1; next } /^$/ { on = 0 } on && $2 ~ /^j/ && $2 != "jmp" { sub(":", "", $1); x = $1 } END { print x }' "$TMP/od.txt")

base=0xffffffffc0020000
nm "$M/hotmod.ko" | while read -r a t name; do
	case $t in [Tt]) printf '%x t %s\t[hotmod]\n' $((base + 0x$a)) "$name" ;; esac
done >"$TMP/mod.syms"
{
	printf 'ffffffff81000000 T _stext\nffffffff81000100 T default_idle\nffffffff81001000 T _etext\n'
	cat "$TMP/mod.syms"
} >"$TMP/kallsyms"
printf 'hotmod 16384 0 - Live %s\n' "$base" >"$TMP/modules"
sample() { # time address
	printf 'dd 100/100 [000] %s: 1003009 cpu-clock: \n\t%x hot_loop ([hotmod])\n\n' "$1" "$2"
}
n=0
{
	emit() { i=0; while [ $i -lt "$2" ]; do n=$((n + 1)); sample "100.$(printf %04d $n)" $((base + 0x$1)); i=$((i + 1)); done; }
	emit "$L1" 1
	emit "$L5" 5
	emit "$JNE" 3
	emit "$C6" 4
} >"$TMP/s.perf"
FIX="--kallsyms $TMP/kallsyms --modules $TMP/modules --module-dir $M"

# shellcheck disable=SC2086 # FIX is a list of words
"$KERNTOP" -b --replay "$TMP/s.perf" --speed max $FIX --annotate hot_loop --annotate hotmod:hot_copy \
	--format json >"$TMP/r.json" 2>"$TMP/err"
ok $? "batch --annotate hot_loop --annotate hotmod:hot_copy (json)"
check "hot_loop: every instruction as objdump has it, 1 + 5 + 3 hits where they were sampled" \
	python3 "$TOOLS/annotate_check.py" "$TMP/r.json" hot_loop "$base" "$TMP/od.txt" "$L1:1,$L5:5,$JNE:3"
check "hot_copy: the same, 4 hits on its 6th instruction" \
	python3 "$TOOLS/annotate_check.py" "$TMP/r.json" hot_copy "$base" "$TMP/od.txt" "$C6:4"
field() { python3 -c "import json,sys; r=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print($2)" "$1"; }
is "$(field "$TMP/r.json" 'r["annotate"][0]["source"]+" "+r["annotate"][0]["module"]+" "+str(r["annotate"][0]["hits"])')" \
	"module hotmod 9" "source, module and hits of hot_loop"
is "$(field "$TMP/r.json" '[round(i["pct"], 2) for i in r["annotate"][0]["insns"] if i["hits"]]')" \
	"[11.11, 55.56, 33.33]" "% of the function per instruction"
like "$(field "$TMP/r.json" 'sorted(set("%s:%d" % (i["file"], i["line"]) for i in r["annotate"][0]["insns"] if "file" in i))')" \
	"hot.c:11" "source lines from libdw (the loop body, line 11)"

# shellcheck disable=SC2086
"$KERNTOP" -b --replay "$TMP/s.perf" --speed max $FIX --annotate hot_loop >"$TMP/r.txt" 2>&1
ok $? "the text report with --annotate"
like "$(cat "$TMP/r.txt")" '^Annotate hot_loop \(hotmod\) at 0xffffffffc00200[0-9a-f]+, [0-9]+ bytes, 9 hits, text from module$' \
	"text listing header"
like "$(cat "$TMP/r.txt")" "^ +5 +55\.56 +ffffffffc0020*$L5 " "the hottest instruction with its hits and %"
like "$(cat "$TMP/r.txt")" '^ +hot\.c:11$' "source lines interleaved (file base names)"

# shellcheck disable=SC2086
"$KERNTOP" -b --replay "$TMP/s.perf" --speed max $FIX --annotate no_such_fn >"$TMP/o" 2>"$TMP/e"
is "$?" 1 "an unknown --annotate function is an error before sampling (as an unknown -z)"
like "$(cat "$TMP/e")" '--annotate no_such_fn: no such function' "and says so"

# --- vmlinux, kcore and build ids, through --sysroot ---
R="$TMP/root"
mkdir -p "$R/proc" "$R/sys/kernel"
ld -r -o /dev/null /dev/null 2>/dev/null
ld -Ttext=0xffffffff81000000 -e hot_loop --build-id=sha1 -o "$TMP/vmlinux" "$M/hotmod.ko" 2>"$TMP/ld.err"
ok $? "link the object as a vmlinux at 0xffffffff81000000"
vbase=$(nm "$TMP/vmlinux" | awk '$3 == "hot_loop" { print $1 }')
vid=$(readelf -n "$TMP/vmlinux" | awk '/Build ID/ { print $3 }')
nm "$TMP/vmlinux" | awk '$2 ~ /^[Tt]$/ { print $1, "T", $3 }' | sort >"$R/proc/kallsyms"
: >"$R/proc/modules"
objcopy -O binary --only-section=.text "$TMP/vmlinux" "$TMP/text.bin"
tbase=$(readelf -SW "$TMP/vmlinux" | awk '{ for (i = 1; i < NF; i++) if ($i == ".text") print $(i + 2) }')
vsample() { printf 'dd 100/100 [000] 100.%04d: 1003009 cpu-clock: \n\t%s hot_loop ([kernel.kallsyms])\n\n' "$1" "$2"; }
{
	i=1
	for k in 1 2 3 4 5 6 7; do vsample $i "$(printf %x $((0x$tbase + 0x$L5)))"; i=$((i + 1)); done
} >"$TMP/v.perf"
loff=$((0x$vbase - 0x$tbase)) # hot_loop's offset in .text

run_root() { "$KERNTOP" -b --replay "$TMP/v.perf" --speed max --sysroot "$R" --format json --annotate hot_loop "$@" >"$TMP/v.json" 2>"$TMP/v.err"; }
run_root
ok $? "a perf script replay against the sysroot's kallsyms, no kcore, no vmlinux"
is "$(field "$TMP/v.json" 'r["annotate"][0]["error"]')" \
	"no kernel text: /proc/kcore is absent (CONFIG_PROC_KCORE=n) and no --vmlinux given" \
	"no text: one line naming the fix"
is "$(field "$TMP/v.json" 'r["annotate"][0]["source"]+" "+str(r["annotate"][0]["hits"])')" "none 7" \
	"the function and its hits are still reported"

run_root --vmlinux "$TMP/vmlinux"
is "$(field "$TMP/v.json" 'r["annotate"][0]["source"]')" vmlinux "--vmlinux: text from vmlinux"
objdump -d -M intel --no-show-raw-insn "$TMP/vmlinux" >"$TMP/odv.txt"
check "vmlinux text: objdump's instructions, 7 hits" \
	python3 "$TOOLS/annotate_check.py" "$TMP/v.json" hot_loop 0 "$TMP/odv.txt" "$(printf %x $((0x$tbase + 0x$L5))):7"
is "$(field "$TMP/v.json" '[i.get("target_name") for i in r["annotate"][0]["insns"] if i["asm"].startswith("call")]')" \
	"['hot_mul']" "a linked call's target is named"

# a kcore whose hot_loop starts with another 2-byte instruction (as the kernel patches itself)
python3 "$TOOLS/mkelf.py" kcore "$R/proc/kcore" "0x$tbase" "$TMP/text.bin" "$loff" 31f6
ok $? "build a synthetic kcore (ELF core, one PT_LOAD at 0x$tbase)"
first() { field "$TMP/v.json" 'r["annotate"][0]["insns"][0]["asm"]'; }
run_root --vmlinux "$TMP/vmlinux"
is "$(field "$TMP/v.json" 'r["annotate"][0]["source"]')" kcore "kcore and vmlinux: kcore is preferred, and named"
is "$(first)" "xor esi, esi" "the live (patched) code is what is shown"
run_root
is "$(field "$TMP/v.json" 'r["annotate"][0]["source"]+" "+str(r["annotate"][0]["insns"][0]["hits"])')" "kcore 0" \
	"kcore alone"
check "kcore text: 7 hits on the same instruction" \
	python3 -c "import json,sys; r=json.loads(open(sys.argv[1]).read()); a=r['annotate'][0]; sys.exit(0 if [i['hits'] for i in a['insns'] if i['addr']==0x$tbase + 0x$L5]==[7] else 1)" "$TMP/v.json"

rm "$R/proc/kcore"
python3 "$TOOLS/mkelf.py" notes "$R/sys/kernel/notes" 00112233445566778899aabbccddeeff00112233
run_root --vmlinux "$TMP/vmlinux"
like "$(field "$TMP/v.json" 'r["annotate"][0]["error"]')" \
	"build id ${vid%"${vid#????????????}"}\.\.\. does not match the running kernel's 001122334455\.\.\. \(/sys/kernel/notes\): give the ELF file of the running kernel" \
	"a vmlinux with another build id than /sys/kernel/notes is refused"
python3 "$TOOLS/mkelf.py" notes "$R/sys/kernel/notes" "$vid"
run_root --vmlinux "$TMP/vmlinux"
is "$(field "$TMP/v.json" 'r["annotate"][0]["source"]')" vmlinux "the same build id is accepted"
rm "$R/sys/kernel/notes"

# a kerntop recording carries the text (TEXT blocks): annotate on a machine without the ELF
lsize=$(nm -S "$TMP/vmlinux" | awk '$4 == "hot_loop" { print $2 }')
dd if="$TMP/text.bin" of="$TMP/hot_loop.bin" bs=1 skip=$loff count=$((0x$lsize)) 2>/dev/null
"$top_builddir/tests/test_annotate_rec" "$TMP/rec.ktrec" "$R/proc/kallsyms" "$TMP/hot_loop.bin" "$vbase" \
	"$(printf %x $((0x$tbase + 0x$L5))):6,$(printf %x $((0x$tbase + 0x$L1))):2"
ok $? "write a recording with samples in hot_loop and its TEXT block"
"$KERNTOP" -b --replay "$TMP/rec.ktrec" --speed max --format json --annotate hot_loop >"$TMP/rec.json" 2>"$TMP/rec.err"
ok $? "replay it elsewhere (no kcore, no vmlinux) with --annotate"
is "$(field "$TMP/rec.json" 'r["annotate"][0]["source"]+" "+str(r["annotate"][0]["hits"])')" "recording 8" \
	"the text comes from the recording"
check "recorded text: objdump's instructions, 6 + 2 hits" \
	python3 "$TOOLS/annotate_check.py" "$TMP/rec.json" hot_loop 0 "$TMP/odv.txt" \
	"$(printf %x $((0x$tbase + 0x$L5))):6,$(printf %x $((0x$tbase + 0x$L1))):2"

# a module whose notes (/sys/module/NAME/notes) name another build id than its .ko
MR="$TMP/mroot"
mkdir -p "$MR/proc" "$MR/sys/module/hotmod/notes" "$TMP/bmods"
ld -r --build-id=sha1 -o "$TMP/bmods/hotmod.ko" "$M/hotmod.ko"
mid=$(readelf -n "$TMP/bmods/hotmod.ko" | awk '/Build ID/ { print $3 }')
cp "$TMP/kallsyms" "$MR/proc/kallsyms"
cp "$TMP/modules" "$MR/proc/modules"
python3 "$TOOLS/mkelf.py" notes "$MR/sys/module/hotmod/notes/.note.gnu.build-id" ffeeddccbbaa99887766554433221100ffeeddcc
"$KERNTOP" -b --replay "$TMP/s.perf" --speed max --sysroot "$MR" --module-dir "$TMP/bmods" --annotate hot_loop \
	--format json >"$TMP/m.json" 2>"$TMP/m.err"
like "$(field "$TMP/m.json" 'r["annotate"][0]["error"]')" \
	"hotmod\.ko: build id ${mid%"${mid#????????????}"}\.\.\. does not match the running kernel's ffeeddccbbaa\.\.\. \(/sys/module/hotmod/notes/\.note\.gnu\.build-id\): give the ELF file of the running module" \
	"a .ko with another build id than /sys/module/NAME/notes is refused"
python3 "$TOOLS/mkelf.py" notes "$MR/sys/module/hotmod/notes/.note.gnu.build-id" "$mid"
"$KERNTOP" -b --replay "$TMP/s.perf" --speed max --sysroot "$MR" --module-dir "$TMP/bmods" --annotate hot_loop \
	--format json >"$TMP/m.json" 2>"$TMP/m.err"
is "$(field "$TMP/m.json" 'r["annotate"][0]["source"]+" "+str(r["annotate"][0]["hits"])')" "module 9" \
	"the same build id: text from the .ko"

# kcore refused: under lockdown (confidentiality) and for a user without CAP_SYS_RAWIO, each
# with its own reason; --vmlinux still gives text
python3 "$TOOLS/mkelf.py" kcore "$R/proc/kcore" "0x$tbase" "$TMP/text.bin" "$loff" 31f6
mkdir -p "$R/sys/kernel/security"
printf 'none integrity [confidentiality]\n' >"$R/sys/kernel/security/lockdown"
run_root
like "$(field "$TMP/v.json" 'r["annotate"][0]["error"]')" \
	"/proc/kcore is refused under kernel lockdown \(confidentiality\)" "lockdown: kcore refused, named"
run_root --vmlinux "$TMP/vmlinux"
is "$(field "$TMP/v.json" 'r["annotate"][0]["source"]')" vmlinux "lockdown: --vmlinux still gives the text"
printf 'none [integrity] confidentiality\n' >"$R/sys/kernel/security/lockdown"
run_root
is "$(field "$TMP/v.json" 'r["annotate"][0]["source"]')" kcore "integrity lockdown: kcore is still read"
rm -r "$R/sys/kernel/security"
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	T_N=$((T_N + 1))
	echo "ok $T_N - kcore EACCES # SKIP needs root and setpriv (util-linux) to replay as another user"
else
	chmod 0400 "$R/proc/kcore"
	chmod 0755 "$TMP"
	timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$KERNTOP" -b --replay "$TMP/v.perf" \
		--speed max --sysroot "$R" --format json --annotate hot_loop >"$TMP/v.json" 2>"$TMP/v.err"
	ok $? "a replay as uid 65534 with a kcore only root may read"
	like "$(field "$TMP/v.json" 'r["annotate"][0]["error"]')" \
		"/proc/kcore needs root or CAP_SYS_RAWIO \(Permission denied\)" "kcore EACCES: the reason names root or CAP_SYS_RAWIO"
	chmod 0700 "$TMP"
fi
rm "$R/proc/kcore"

# a corrupt kcore: not a crash, a reason
printf 'garbage' >"$R/proc/kcore"
run_root
like "$(field "$TMP/v.json" 'r["annotate"][0]["error"]')" "kcore: not an ELF core file" "a corrupt kcore is named"
rm "$R/proc/kcore"

# corrupt module ELF: symbols load, the text does not
mkdir -p "$TMP/bad"
python3 "$TOOLS/mkelf.py" badtext "$M/hotmod.ko" "$TMP/bad/hotmod.ko"
"$KERNTOP" -b --replay "$TMP/s.perf" --speed max --kallsyms "$TMP/kallsyms" --modules "$TMP/modules" \
	--module-dir "$TMP/bad" --annotate hot_loop --format json >"$TMP/b.json" 2>"$TMP/b.err"
ok $? "a module ELF whose .text points past its end: the report is still written"
like "$(field "$TMP/b.json" 'r["annotate"][0]["error"]')" "hotmod.ko: .*truncated or corrupt" "and names the file"
head -c 300 "$TMP/vmlinux" >"$TMP/vmlinux.short"
run_root --vmlinux "$TMP/vmlinux.short"
ok $? "a truncated --vmlinux: the report is still written (kallsyms names the functions)"
like "$(field "$TMP/v.json" 'r["annotate"][0]["error"]')" "vmlinux\.short has no section at 0x" "and its text is not read, with the file named"
done_testing
