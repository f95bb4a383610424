# pprof profiles read by their real consumer, go tool pprof: every profile kerntop writes is
# read without a word on stderr, and its -raw figures equal kerntop's own JSON report of the
# same replay exactly (per function, module, CPU label and stack). Also: a symbol-less
# module's buckets, source lines with an inlined frame (checked against addr2line -i), build
# ids from the sysroot's notes, label choice, one file per report, and the viewer's W.
. "${top_srcdir:-.}/tests/lib.sh"
command -v go >/dev/null 2>&1 || skip_all "go is not installed (apt-get install golang-go)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
CHECK="$top_srcdir/tests/tools/pprof_check.py"
A="$DATA/agg"

# go tool pprof must stay on this machine: no home to write to, no binaries to look for, and
# any network attempt goes to a closed port.
mkdir -p "$TMP/home" "$TMP/nobin"
export HOME="$TMP/home" PPROF_TMPDIR="$TMP/home" PPROF_BINARY_PATH="$TMP/nobin" \
	GOCACHE="$TMP/home/gocache" GOPROXY=off GOFLAGS=-mod=mod \
	http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 no_proxy=

# pprof_read FILE NAME: -raw into $TMP/NAME.raw, -traces into $TMP/NAME.traces; both quiet.
pprof_read() {
	go tool pprof -raw "$1" >"$TMP/$2.raw" 2>"$TMP/$2.err" &&
		go tool pprof -traces "$1" >"$TMP/$2.traces" 2>>"$TMP/$2.err"
	rc=$?
	[ $rc -eq 0 ] && [ ! -s "$TMP/$2.err" ]
	ok $? "go tool pprof reads $2 without a warning"
	[ -s "$TMP/$2.err" ] && sed 's/^/#   /' "$TMP/$2.err" | head -5
	return 0
}

# compare NAME JSON: every figure of pprof_check.py compare as a test line.
compare() {
	python3 "$CHECK" compare "$TMP/$1.raw" "$2" >"$TMP/$1.cmp" 2>&1
	grep -q . "$TMP/$1.cmp" || echo "FAIL no output from pprof_check.py" >>"$TMP/$1.cmp"
	while IFS= read -r l; do
		case "$l" in
		PASS*) ok 0 "$1: ${l#PASS }" ;;
		*) ok 1 "$1: $l" ;;
		esac
	done <"$TMP/$1.cmp"
}

replay_agg() { # replay_agg FORMAT OUT [OPTIONS...]
	f=$1 o=$2
	shift 2
	"$KERNTOP" -b --replay "$A/callchains.perf" --speed max --kallsyms "$A/kallsyms" \
		--modules "$A/modules" --format "$f" -o "$o" --top 1000000 "$@"
}

# 1. call chains, idle, user and a symbol-less module (nosym: buckets), on two CPUs
replay_agg pprof "$TMP/agg.pb.gz"
ok $? "batch --format pprof -o FILE"
replay_agg json "$TMP/agg.json"
gzip -t "$TMP/agg.pb.gz"
ok $? "the profile is gzip-compressed"
pprof_read "$TMP/agg.pb.gz" agg
compare agg "$TMP/agg.json"
grep -q 'nosym+0x40 ' "$TMP/agg.raw"
ok $? "buckets of the symbol-less module are functions named as on screen"
like "$(python3 "$CHECK" mappings "$TMP/agg.raw" | sort | tr '\n' ' ')" \
	'^\[kernel.kallsyms\] - \[FN\] \[nosym\] - \[FN\] \[tcp\] - \[FN\] $' \
	"one mapping per module with hits, functions resolved (no build ids from --kallsyms files)"
grep -q ': 0xffffffff81000000/0xffffffff81001000/0x0 \[kernel.kallsyms\]' "$TMP/agg.raw"
ok $? "[kernel.kallsyms] spans _stext.._etext"
grep -q ': 0xffffffffc0001000/0xffffffffc0005000/0x0 \[tcp\]' "$TMP/agg.raw"
ok $? "a module's mapping has its base and size from /proc/modules"
is "$(python3 "$CHECK" labels "$TMP/agg.raw")" "comm,context,cpu,pid,tid" "labels cpu, comm, pid, tid, context"
grep -q 'context:\[syscall entry/exit\]' "$TMP/agg.raw" && grep -q 'context:\[idle\]' "$TMP/agg.raw"
ok $? "the context label names the execution context (syscall entry/exit, idle)"
grep -q 'PeriodType: cpu nanoseconds' "$TMP/agg.raw" && grep -q '^Period: 1003009$' "$TMP/agg.raw" &&
	grep -q '^samples/count cpu/nanoseconds\[dflt\]' "$TMP/agg.raw" && grep -q '^Duration: 216m' "$TMP/agg.raw"
ok $? "sample types samples/count and cpu/nanoseconds, period 1003009 ns, duration"
grep -q '^ *40   40120360: ' "$TMP/agg.raw"
ok $? "cpu/nanoseconds is hits x period (40 x 1003009)"
grep -q 'tcp_write_xmit' "$TMP/agg.traces" && grep -q 'comm:  iperf3' "$TMP/agg.traces"
ok $? "-traces shows the chains and labels"

# the checker can fail: the same profile against another replay's report
"$KERNTOP" -b --replay "$DATA/stacks/stacks.perf" --speed max --kallsyms "$DATA/stacks/kallsyms" \
	--modules "$DATA/stacks/modules" --format json --top 1000000 -o "$TMP/other.json"
python3 "$CHECK" compare "$TMP/agg.raw" "$TMP/other.json" | grep -q '^FAIL hits per function'
ok $? "pprof_check.py reports a mismatch against another replay's JSON"

# 2. the stacks fixture too (deeper chains), and without -g chains: one location per sample
"$KERNTOP" -b --replay "$DATA/stacks/stacks.perf" --speed max --kallsyms "$DATA/stacks/kallsyms" \
	--modules "$DATA/stacks/modules" --format pprof -o "$TMP/stacks.pb.gz"
pprof_read "$TMP/stacks.pb.gz" stacks
compare stacks "$TMP/other.json"
"$KERNTOP" -b --replay "$DATA/replay/perf-script-nog.txt" --speed max --kallsyms "$DATA/replay/kallsyms" \
	--modules "$DATA/replay/modules" --format pprof -o "$TMP/nog.pb.gz" -u
"$KERNTOP" -b --replay "$DATA/replay/perf-script-nog.txt" --speed max --kallsyms "$DATA/replay/kallsyms" \
	--modules "$DATA/replay/modules" --format json --top 1000000 -o "$TMP/nog.json" -u
pprof_read "$TMP/nog.pb.gz" nog
compare nog "$TMP/nog.json"
is "$(python3 "$CHECK" chains "$TMP/nog.raw")" 1 "without call chains each sample is its one location"
is "$(grep -c 'context:' "$TMP/nog.raw")" 2 "without call chains only idle and user have a context label (unknown says nothing)"

# 3. --pprof-labels: fewer label sets (the cardinality trade-off) with the same totals
replay_agg pprof "$TMP/lab.pb.gz" --pprof-labels cpu,comm
pprof_read "$TMP/lab.pb.gz" lab
is "$(python3 "$CHECK" labels "$TMP/lab.raw")" "comm,cpu" "--pprof-labels cpu,comm drops pid, tid and context"
compare lab "$TMP/agg.json"
replay_agg pprof "$TMP/none.pb.gz" --pprof-labels none
pprof_read "$TMP/none.pb.gz" none
is "$(python3 "$CHECK" labels "$TMP/none.raw")" "" "--pprof-labels none: no labels"
compare none "$TMP/agg.json"
n_all=$(grep -c '^ *[0-9]* *[0-9]*: ' "$TMP/agg.raw")
n_few=$(grep -c '^ *[0-9]* *[0-9]*: ' "$TMP/none.raw")
[ "$n_few" -lt "$n_all" ]
ok $? "without labels equal chains merge into fewer samples ($n_few < $n_all)"
"$KERNTOP" -b --replay "$A/callchains.perf" --pprof-labels cpu,bogus 2>"$TMP/err"
is $? 2 "an unknown label is a usage error"
like "$(cat "$TMP/err")" "invalid value 'cpu,bogus' for --pprof-labels" "and says which"

# 4. source lines with an inlined helper: Lines leaf first, as addr2line -i gives them
CC=${CC:-cc}
M="$TMP/mods"
mkdir -p "$M"
cat >"$M/hotmod.c" <<'EOF'
static inline __attribute__((always_inline)) int helper(volatile int *p, int i)
{
	return p[i] * 3;
}

int hot_sum(volatile int *p, int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += helper(p, i);
	return s;
}
EOF
$CC -g -O1 -c "$M/hotmod.c" -o "$M/hotmod.ko"
ok $? "compile a module with -g"
# an offset in the inlined helper and one outside it, found with addr2line -i itself
off_in= off_out=
for o in $(seq 0 63); do
	n=$(addr2line -i -e "$M/hotmod.ko" -j .text "$(printf 0x%x "$o")" | wc -l)
	[ "$n" -eq 2 ] && [ -z "$off_in" ] && off_in=$o
	[ "$n" -eq 1 ] && [ -n "$off_in" ] && [ -z "$off_out" ] && off_out=$o
done
[ -n "$off_in" ] && [ -n "$off_out" ]
ok $? "addr2line -i finds inlined code at +$off_in and plain code at +$off_out"
want_in=$(addr2line -i -f -e "$M/hotmod.ko" -j .text "$(printf 0x%x "$off_in")" | paste -d' ' - - | tr '\n' '|')
want_out=$(addr2line -i -f -e "$M/hotmod.ko" -j .text "$(printf 0x%x "$off_out")" | paste -d' ' - -)
base=0xffffffffc0020000
cat >"$TMP/lkallsyms" <<'EOF'
ffffffff81000000 T _stext
ffffffff81000100 T default_idle
ffffffff81001000 T _etext
ffffffffc0020000 t hot_sum	[hotmod]
ffffffffc0030000 t plain_fn	[plainmod]
EOF
printf 'hotmod 16384 0 - Live %s\nplainmod 16384 0 - Live 0xffffffffc0030000\n' "$base" >"$TMP/lmodules"
sample() { # time address name module cpu
	printf 'dd 100/100 [00%s] %s: 1003009 cpu-clock: \n\t%x %s ([%s])\n\n' "$5" "$1" "$2" "$3" "$4"
}
{
	for i in 1 2 3 4 5 6; do sample "100.00$i" $((base + off_in)) hot_sum hotmod 0; done
	for i in 1 2 3; do sample "100.10$i" $((base + off_out)) hot_sum hotmod 1; done
	for i in 1 2; do sample "100.20$i" $((0xffffffffc0030000 + 0x48)) plain_fn plainmod 1; done
} >"$TMP/lines.perf"
for f in pprof json; do
	"$KERNTOP" -b --replay "$TMP/lines.perf" --speed max --kallsyms "$TMP/lkallsyms" \
		--modules "$TMP/lmodules" --module-dir "$M" --format $f -o "$TMP/lines.$f" --top 1000000
done
pprof_read "$TMP/lines.pprof" lines
compare lines "$TMP/lines.json"
locs=$(python3 "$CHECK" locations "$TMP/lines.raw")
printf '%s\n' "$locs" | grep -qxF "${want_in%|}"
ok $? "the inlined location has two Lines, leaf first: ${want_in%|}"
printf '%s\n' "$locs" | grep -qxF "$want_out"
ok $? "the plain location has one Line: $want_out"
printf '%s\n' "$locs" | grep -qx 'plain_fn :0'
ok $? "a module without debug info: function, no line"
maps=$(python3 "$CHECK" mappings "$TMP/lines.raw" | sort | tr '\n' ' ')
is "$maps" "[hotmod] - [FN][FL][LN][IN] [plainmod] - [FN] " \
	"has_filenames, has_line_numbers, has_inline_frames only where libdw gave lines"

# 5. build ids from the notes the kernel publishes, read under --sysroot
R="$TMP/sysroot"
cp -r "$DATA/symbols/sysroot" "$R"
mkdir -p "$R/sys/kernel" "$R/sys/module/sysmod/notes"
python3 - "$R" <<'EOF'
import struct, sys
def note(name, typ, desc):
    n = name + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack("<III", len(n), len(desc), typ) + pad(n) + pad(desc)
linux = note(b"Linux", 6, b"\x01\x01\x00\x00")
open(sys.argv[1] + "/sys/kernel/notes", "wb").write(linux + note(b"GNU", 3, bytes(range(0x10, 0x24))))
open(sys.argv[1] + "/sys/module/sysmod/notes/.note.gnu.build-id", "wb").write(note(b"GNU", 3, bytes.fromhex("c0ffee00") * 5))
EOF
{
	printf 'dd 100/100 [000] 100.001: 1003009 cpu-clock: \n\tffffffff81000010 sys_func ([kernel.kallsyms])\n\n'
	printf 'dd 100/100 [000] 100.002: 1003009 cpu-clock: \n\tffffffffc0002000 sysmod_fn ([sysmod])\n\n'
} >"$TMP/bid.perf"
"$KERNTOP" -b --replay "$TMP/bid.perf" --speed max --sysroot "$R" --format pprof -o "$TMP/bid.pb.gz"
pprof_read "$TMP/bid.pb.gz" bid
maps=$(python3 "$CHECK" mappings "$TMP/bid.raw" | sort | tr '\n' ' ')
is "$maps" "[kernel.kallsyms] 101112131415161718191a1b1c1d1e1f20212223 [FN] [sysmod] c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00 [FN] " \
	"build ids from sys/kernel/notes and sys/module/NAME/notes"

# 6. -o DIR: one profile per report, each a valid pprof of that report's window
mkdir -p "$TMP/per"
"$KERNTOP" -b --replay "$A/callchains.perf" --speed max --kallsyms "$A/kallsyms" \
	--modules "$A/modules" --format pprof -o "$TMP/per" -w 10
ls "$TMP/per" >"$TMP/per.ls"
is "$(cat "$TMP/per.ls")" "kerntop-000001.pb.gz" "-o DIR writes kerntop-NNNNNN.pb.gz per report"
pprof_read "$TMP/per/kerntop-000001.pb.gz" per
compare per "$TMP/agg.json"

# 7. the viewer's W offers pprof: the whole profile under the screen's filters
. "$top_srcdir/tests/ui_lib.sh"
mkdir -p "$TMP/snap"
ui_start 120 30 -- --replay "$A/callchains.perf" --speed max --kallsyms "$A/kallsyms" \
	--modules "$A/modules" --snapshot-dir "$TMP/snap"
see 'replay finished' "the viewer replays the fixture"
keys W
see 'snapshot format \(text, json, csv, folded, pprof\)' "W offers pprof"
keys C-u pprof Enter
see 'snapshot file: .*\.pb\.gz' "a .pb.gz file name is proposed"
keys Enter
see 'snapshot written to ' "W pprof writes the snapshot"
snap=$(ls "$TMP/snap"/*.pb.gz 2>/dev/null | head -1)
[ -n "$snap" ]
ok $? "the snapshot file exists"
pprof_read "${snap:-/nonexistent}" snap
compare snap "$TMP/agg.json"
keys q
see '^EXIT=0' "q quits"
[ ! -s "$TMP/stderr" ]
ok $? "the viewer wrote nothing to stderr"
done_testing
