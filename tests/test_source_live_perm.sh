# End to end: when perf_event_open is refused, kerntop exits 1 with one line explaining
# perf_event_paranoid, CAP_PERFMON and root (via the KERNTOP_INJECT_PERF_ERRNO test hook,
# and for real as nobody when we are root under perf_event_paranoid >= 1).
. "${top_srcdir:-.}/tests/lib.sh"

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unreadable)

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

denied "injected EACCES, batch" env KERNTOP_INJECT_PERF_ERRNO=EACCES "$KERNTOP" -b -n 1 -d 0.1
denied "injected EPERM, batch" env KERNTOP_INJECT_PERF_ERRNO=EPERM "$KERNTOP" -b -n 1 -d 0.1
denied "injected EACCES, viewer" env KERNTOP_INJECT_PERF_ERRNO=EACCES TERM=dumb "$KERNTOP"

err=$(KERNTOP_INJECT_PERF_ERRNO=EMFILE "$KERNTOP" -b -n 1 -d 0.1 2>&1 >/dev/null); rc=$?
is "$rc" 1 "too many files: exit 1"
like "$err" "too many open files; raise the limit \(ulimit -n\)" "too many files: names the fix"

if [ "$(id -u)" = 0 ] && [ "$paranoid" != unreadable ] && [ "$paranoid" -ge 1 ] && command -v setpriv >/dev/null; then
	denied "as nobody" setpriv --reuid=65534 --regid=65534 --clear-groups "$KERNTOP" -b -n 1 -d 0.1
else
	echo "ok $((T_N + 1)) - as nobody # SKIP needs root, setpriv and perf_event_paranoid >= 1"
	T_N=$((T_N + 1))
fi
done_testing
