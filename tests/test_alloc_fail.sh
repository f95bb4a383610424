#!/bin/sh
# Allocation failure (issue 20): under `ulimit -v` a replay reported "Samples: 0" with exit 0,
# with less memory every hit became [user], and one path printed an empty "kerntop: " message.
# tests/kerntop_allocfail (tests/seam/alloc_fail.c, linked with --wrap) fails kerntop's Nth
# malloc/calloc/realloc/strdup; each replay below runs once for every N of its allocations, and
# each run must either exit 0 with exactly the report of the run without a failure, or exit 1
# with one line "kerntop: ..." that names the memory problem: never another table, never a
# crash. Then a --push run every 7th allocation (the profiles sent carry every sample, or the
# loss is counted), and the installed binary under a range of `ulimit -v` limits around the
# least it needs.
. "${top_srcdir:-..}/tests/lib.sh"
AF="$top_builddir/tests/kerntop_allocfail"
UI="$DATA/ui"
ST="$DATA/stacks"
REC="$top_srcdir/tests/fuzz/corpus/rec-synth-40"

# sweep NAME MODE ARGS...: kerntop_allocfail ARGS with allocation N failing (MODE "": only the
# Nth; "+": the Nth and every later one) for N = 1 .. the number the clean run makes
sweep() {
	name=$1 mode=$2
	shift 2
	KERNTOP_ALLOC_COUNT="$TMP/count" "$AF" "$@" >"$TMP/ref.out" 2>"$TMP/ref.err" </dev/null
	is "$? $(cat "$TMP/ref.err")" "0 " "$name: the clean run exits 0 with nothing on stderr"
	calls=$(cat "$TMP/count" 2>/dev/null || echo 0)
	ok $([ "$calls" -gt 20 ]; echo $?) "$name: the seam counts its allocations ($calls)"
	bad=0 failed=0 i=1
	while [ "$i" -le "$calls" ]; do
		rc=0
		KERNTOP_ALLOC_FAIL="$i$mode" timeout -s KILL 60 "$AF" "$@" >"$TMP/n.out" 2>"$TMP/n.err" </dev/null || rc=$?
		if [ "$rc" = 0 ]; then
			# the JSON report's wall-clock time is the only field that may differ
			if [ "$(sed 's/"unix_time":[0-9.]*//' "$TMP/n.out")" != "$(sed 's/"unix_time":[0-9.]*//' "$TMP/ref.out")" ] ||
				[ -s "$TMP/n.err" ]; then
				bad=$((bad + 1))
				echo "#   allocation $i$mode: exit 0 with another report:"
				diff "$TMP/ref.out" "$TMP/n.out" | head -6 | sed 's/^/#     /'
				head -2 "$TMP/n.err" | sed 's/^/#     stderr: /'
			fi
		else
			failed=$((failed + 1))
			if [ "$rc" != 1 ] || [ "$(wc -l <"$TMP/n.err")" != 1 ] ||
				! grep -Eq '^kerntop: .*(out of memory|Cannot allocate memory)' "$TMP/n.err"; then
				bad=$((bad + 1))
				echo "#   allocation $i$mode: exit $rc, stderr: $(head -c 300 "$TMP/n.err")"
			fi
		fi
		i=$((i + 1))
	done
	is "$bad" 0 "$name: each of the $calls runs gives the exact report or one out-of-memory line and exit 1 ($failed ended in the error)"
}

sweep "text report, a zoom and annotate" "" -b --speed max -z e1000e --annotate copy_user_generic \
	--replay "$UI/ui.perf" --kallsyms "$UI/kallsyms" --modules "$UI/modules"
sweep "JSON report of a kerntop recording" "" -b --speed max --format json --replay "$REC"
sweep "folded stacks" "" -b --speed max --format folded \
	--replay "$ST/stacks.perf" --kallsyms "$ST/kallsyms" --modules "$ST/modules"
sweep "two reports of a 4 s window" "" -b -d 2 -w 4 --speed 50 --format csv \
	--replay "$UI/ui.perf" --kallsyms "$UI/kallsyms" --modules "$UI/modules"

# --- --push: a profile that misses samples is never sent --------------------------------------
# The push feed keeps its own window per interval; a sample it could not hold used to leave a
# short profile that was pushed as if whole. Every 7th allocation of a replay pushing 1 s
# intervals to a local receiver fails in turn: exit 1 with the one line, or exit 0 with the
# same report (its push counters aside) and either every sample in the profiles received, or
# the lost interval counted in "dropped".
if command -v python3 >/dev/null 2>&1; then
	SRV="$TMP/srv"
	mkdir "$SRV"
	python3 "$top_srcdir/tests/tools/ingest_server.py" "$SRV" ok &
	SRVPID=$!
	trap 'kill $SRVPID 2>/dev/null; rm -rf "$TMP"' EXIT
	n=100
	while [ ! -s "$SRV/port" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
	P="-b --speed max --format json --push http://127.0.0.1:$(cat "$SRV/port" 2>/dev/null) --push-interval 1 --replay $UI/ui.perf --kallsyms $UI/kallsyms --modules $UI/modules"
	strip() { sed 's/"unix_time":[0-9.]*//; s/"push":{[^}]*}//' "$1"; }
	KERNTOP_ALLOC_COUNT="$TMP/count" "$AF" $P >"$TMP/pref.out" 2>"$TMP/pref.err" </dev/null
	is "$? $(python3 "$top_srcdir/tests/tools/pprof_total.py" "$SRV"/req-*.body)" "0 385" "--push, clean run: the profiles received hold all 385 samples"
	calls=$(cat "$TMP/count")
	bad=0 dropped=0 i=1
	while [ "$i" -le "$calls" ]; do
		rm -f "$SRV"/req-*
		rc=0
		KERNTOP_ALLOC_FAIL=$i timeout -s KILL 60 "$AF" $P >"$TMP/p.out" 2>"$TMP/p.err" </dev/null || rc=$?
		if [ "$rc" = 0 ]; then
			d=$(sed -n 's/.*"push":{[^}]*"dropped":\([0-9]*\).*/\1/p' "$TMP/p.out" | tail -1)
			got=$(python3 "$top_srcdir/tests/tools/pprof_total.py" "$SRV"/req-*.body 2>/dev/null)
			if [ "$(strip "$TMP/p.out")" != "$(strip "$TMP/pref.out")" ] || [ -s "$TMP/p.err" ] ||
				{ [ "${d:-0}" = 0 ] && [ "$got" != 385 ]; }; then
				bad=$((bad + 1))
				echo "#   allocation $i: exit 0, dropped ${d:-?}, $got samples received, stderr: $(head -c 200 "$TMP/p.err")"
			fi
			[ "${d:-0}" = 0 ] || dropped=$((dropped + 1))
		elif [ "$rc" != 1 ] || [ "$(wc -l <"$TMP/p.err")" != 1 ] ||
			! grep -Eq '^kerntop: .*(out of memory|Cannot allocate memory)' "$TMP/p.err"; then
			bad=$((bad + 1))
			echo "#   allocation $i: exit $rc, stderr: $(head -c 300 "$TMP/p.err")"
		fi
		i=$((i + 7))
	done
	is "$bad" 0 "--push, every 7th of $calls allocations failing: the exact report with every sample pushed or the loss counted ($dropped runs dropped an interval), or the one line and exit 1"
	kill $SRVPID 2>/dev/null
else
	echo "# SKIP --push: python3 is not installed (the receiver is a Python script)"
fi

# --- the installed binary under ulimit -v ------------------------------------------------------
# The limits around the least address space kerntop needs for this replay: below it the
# dynamic loader itself fails (exit 127, not kerntop's), and lower still the kernel cannot
# even finish the exec (SIGSEGV before any code of the program runs); then kerntop's
# allocations fail one by one as the limit rises (on this machine: 3.5 to 4.5 MiB, since the
# ELF and DWARF libraries are loaded on first use; 26 to 30 MiB before). A limit under which
# `kerntop --version` does not run is one where the program never started. Every run kerntop
# starts must give the exact report or the one-line error.
if ldd "$KERNTOP" 2>/dev/null | grep -q 'libasan'; then
	echo "# SKIP ulimit -v: an ASan build reserves terabytes of address space at start"
else
	S="--replay $UI/ui.perf --kallsyms $UI/kallsyms --modules $UI/modules"
	"$KERNTOP" -b --speed max $S >"$TMP/uref.out" 2>&1
	vrun() { # vrun KB: the replay under ulimit -v KB; status in $rc
		rc=0
		(ulimit -v "$1" && exec "$KERNTOP" -b --speed max $S) >"$TMP/u.out" 2>"$TMP/u.err" </dev/null || rc=$?
	}
	# the least limit (KiB) with a clean run, by bisection between 1 MiB and 4 GiB
	lo=1024 hi=4194304
	while [ $((hi - lo)) -gt 64 ]; do
		mid=$(((lo + hi) / 2))
		vrun "$mid"
		if [ "$rc" = 0 ]; then hi=$mid; else lo=$mid; fi
	done
	vrun "$hi"
	is "$rc" 0 "ulimit -v: the replay runs at $hi KiB"
	bad=0 started=0 v=$((hi - 4096))
	while [ "$v" -le $((hi + 256)) ]; do
		if ! { (ulimit -v "$v" && exec "$KERNTOP" --version) >/dev/null 2>&1 </dev/null; } 2>/dev/null; then
			v=$((v + 64))
			continue # the exec or the loader failed: the program never started
		fi
		vrun "$v"
		# the dynamic loader and a library's constructor (GnuTLS, under libcurl) fail before
		# kerntop's main runs: not kerntop's messages
		sed -i '/^Error in GnuTLS initialization/d' "$TMP/u.err"
		if [ "$rc" = 127 ] && grep -Eq 'error while loading shared libraries|cannot allocate TLS data' "$TMP/u.err"; then
			:
		elif [ "$rc" = 0 ]; then
			started=$((started + 1))
			cmp -s "$TMP/u.out" "$TMP/uref.out" || {
				bad=$((bad + 1))
				echo "#   ulimit -v $v: exit 0 with another report"
			}
		else
			started=$((started + 1))
			if [ "$rc" != 1 ] || [ "$(wc -l <"$TMP/u.err")" != 1 ] ||
				! grep -Eq '^kerntop: .*(out of memory|Cannot allocate memory)' "$TMP/u.err"; then
				bad=$((bad + 1))
				echo "#   ulimit -v $v: exit $rc, stderr: $(head -c 300 "$TMP/u.err")"
			fi
		fi
		v=$((v + 64))
	done
	ok $([ "$started" -gt 10 ]; echo $?) "ulimit -v: kerntop started in $started of the runs from $((hi - 4096)) to $((hi + 256)) KiB"
	is "$bad" 0 "ulimit -v: each gives the exact report or one out-of-memory line and exit 1"
fi

done_testing
