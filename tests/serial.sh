# Runs one test of make check (the TAP driver's LOG_COMPILER): serial.sh COMMAND... TEST.
# The tests named *live* (the suite's convention for a test that samples the live kernel, so a
# new one cannot be forgotten) and those listed in KT_SERIAL_TESTS (they sample live or load
# every CPU) run one at a time, under an exclusive lock on the build tree's tests/serial.lock,
# so that under any make -jN no two of them overlap and none sees another's load. The others
# run at once. flock -o: the lock is held by flock alone, never by a daemon a test leaves.
for t; do :; done
name=${t##*/}
serial=
case " ${KT_SERIAL_TESTS:-} " in *" $name "*) serial=1 ;; esac
case "$name" in *live*) serial=1 ;; esac
case "$serial" in
1)
	if ! command -v flock >/dev/null 2>&1; then
		echo "Bail out! flock is not installed (apt-get install util-linux): the live tests must run one at a time"
		exit 99
	fi
	exec flock -o "${top_builddir:-.}/tests/serial.lock" "$@"
	;;
esac
exec "$@"
