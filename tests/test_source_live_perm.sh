# End to end: when perf_event_open is refused, kerntop exits 1 with one line explaining
# perf_event_paranoid, CAP_PERFMON and root (injected through tests/kerntop_test, the test build
# whose perf system calls are the seam tests/seam/perf_inject.c (KERNTOP_INJECT_PERF_ERRNO),
# and for real as nobody when we are root under perf_event_paranoid >= 1). Sampling settings
# the kernel would not honour as asked are refused too, before sampling starts.
. "${top_srcdir:-.}/tests/lib.sh"

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unreadable)
: "${KERNTOP_TEST:=$top_builddir/tests/kerntop_test}"

# The installed kerntop has no injection hook: the variables mean nothing to it (the test
# build has them, which shows the check can see them).
is "$(grep -c KERNTOP_INJECT "$KERNTOP")" 0 "kerntop holds no KERNTOP_INJECT_ variable"
ok "$([ "$(grep -c KERNTOP_INJECT "$KERNTOP_TEST")" -gt 0 ]; echo $?)" "the test build does"
out=$(KERNTOP_INJECT_PERF_ERRNO=EACCES "$KERNTOP" -b -n 1 -d 0.1 --format json 2>&1); rc=$?
is "$rc" 0 "KERNTOP_INJECT_PERF_ERRNO=EACCES kerntop: samples as if unset"

denied() { # denied DESCRIPTION COMMAND...
	desc=$1
	shift
	err=$("$@" 2>&1 >/dev/null); rc=$?
	is "$rc" 1 "$desc: exit 1"
	like "$err" "^kerntop: perf_event_open cpu-clock on cpu [0-9]+: (permission denied|operation not permitted); " "$desc: names the call"
	like "$err" "kernel\.perf_event_paranoid <= 0 \(it is $paranoid: " "$desc: names perf_event_paranoid and its value"
	like "$err" "CAP_PERFMON.*root" "$desc: names CAP_PERFMON and root"
	n=$(printf '%s\n' "$err" | wc -l)
	is "$n" 1 "$desc: one line"
}

denied "injected EACCES, batch" env KERNTOP_INJECT_PERF_ERRNO=EACCES "$KERNTOP_TEST" -b -n 1 -d 0.1
denied "injected EPERM, batch" env KERNTOP_INJECT_PERF_ERRNO=EPERM "$KERNTOP_TEST" -b -n 1 -d 0.1
denied "injected EACCES, viewer" env KERNTOP_INJECT_PERF_ERRNO=EACCES TERM=dumb "$KERNTOP_TEST"

err=$(KERNTOP_INJECT_PERF_ERRNO=EMFILE "$KERNTOP_TEST" -b -n 1 -d 0.1 2>&1 >/dev/null); rc=$?
is "$rc" 1 "too many files: exit 1"
like "$err" "too many open files; raise the limit \(ulimit -n\)" "too many files: names the fix"

# A clock period under the kernel's 10 us hrtimer floor: a usage error (exit 2), not a run
# that reports 1 MHz, absurd busy figures and thousands of lost samples.
for ev in cpu-clock task-clock; do
	err=$("$KERNTOP" -b -n 1 -d 0.1 -e $ev -c 1000 2>&1 >/dev/null); rc=$?
	is "$rc" 2 "-e $ev -c 1000: usage error, exit 2"
	is "$err" "kerntop: invalid value '1000' for -c: $ev samples at most every 10000 ns (the kernel's timer floor); use -c 10000 or more, or -F HZ (see kerntop --help)" \
		"-e $ev -c 1000: one line naming the floor and the fix"
done
out=$("$KERNTOP" -b -n 1 -d 0.2 -c 10000 --format json 2>"$TMP/err"); rc=$?
is "$rc" 0 "-c 10000: runs"
like "$out" '"freq_hz":100000,' "-c 10000: reported as 100000 Hz"
# -c with cycles where the PMU has none (or the seam says so): the count would silently become
# nanoseconds of cpu-clock, so it is refused; with -F the fallback is only a notice.
err=$(KERNTOP_INJECT_PERF_ERRNO=ENOENT "$KERNTOP_TEST" -b -n 1 -d 0.1 -e cycles -c 1000 2>&1 >/dev/null); rc=$?
is "$rc" 1 "-e cycles -c 1000 without cycles: refused, exit 1"
like "$err" "^kerntop: -e cycles is not supported here \(no such hardware event\), and -c 1000 counts cycles: sample cpu-clock with -F HZ" \
	"-e cycles -c without cycles: says why and what to use"
err=$(KERNTOP_INJECT_PERF_ERRNO=ENOENT "$KERNTOP_TEST" -b -n 1 -d 0.1 -e cycles -F 500 2>&1 >/dev/null); rc=$?
is "$rc.$err" "0.kerntop: cycles not supported here (no such hardware event): sampling cpu-clock" \
	"-e cycles -F without cycles: a notice, then cpu-clock"

if [ "$(id -u)" = 0 ] && [ "$paranoid" != unreadable ] && [ "$paranoid" -ge 1 ] && command -v setpriv >/dev/null; then
	denied "as nobody" setpriv --reuid=65534 --regid=65534 --clear-groups "$KERNTOP" -b -n 1 -d 0.1
else
	echo "ok $((T_N + 1)) - as nobody # SKIP needs root, setpriv and perf_event_paranoid >= 1"
	T_N=$((T_N + 1))
fi
done_testing
