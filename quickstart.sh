#!/bin/sh
# One command to get kerntop going on Debian 12:
#   ./quickstart.sh run [KERNTOP OPTIONS]  install what is missing, build, start the live viewer
#   ./quickstart.sh test                   the same build, then make check, then again under ASan/UBSan
# Both are idempotent: packages are installed once, builds are incremental (build/, build-asan/).
set -eu
cd "$(dirname "$0")"
top=$(pwd)

PACKAGES="gcc make autoconf automake pkg-config libncurses-dev libelf-dev libdw-dev libcapstone-dev linux-libc-dev"
TEST_PACKAGES="tmux linux-perf python3 valgrind"

missing() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
	done
}

install_missing() {
	need=$(missing "$@")
	[ -z "$need" ] && return 0
	echo "quickstart: installing $(echo $need | tr '\n' ' ')"
	if [ "$(id -u)" -ne 0 ]; then
		echo "quickstart: need root to install packages: run with sudo, or apt-get install $need" >&2
		exit 1
	fi
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need >/dev/null
}

build() { # build DIR [CONFIGURE ARGS]
	dir=$1
	shift
	if [ ! -x configure ] || [ configure.ac -nt configure ]; then
		./autogen.sh >/dev/null 2>&1 || { ./autogen.sh; exit 1; }
	fi
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ]; then
		(cd "$dir" && "$top/configure" --enable-werror "$@" >/dev/null) || { echo "quickstart: configure failed in $dir (see $dir/config.log)" >&2; exit 1; }
	fi
	make -C "$dir" -j"$(nproc)" >/dev/null || make -C "$dir"
}

case "${1:-}" in
run)
	shift
	install_missing $PACKAGES
	build build
	exec build/kerntop "$@"
	;;
test)
	install_missing $PACKAGES $TEST_PACKAGES
	build build
	rc=0
	make -C build -j"$(nproc)" check || rc=1
	build build-asan --enable-sanitizers
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		make -C build-asan -j"$(nproc)" check || rc=1
	for d in build build-asan; do
		[ -f "$d/test-suite.log" ] || continue
		grep -E '^(FAIL|ERROR|XPASS):' "$d/test-suite.log" | sed "s|^|$d: |"
		# What a failing test printed about it (its diagnostics), so a CI log explains itself.
		for t in $(sed -n 's/^\(FAIL\|ERROR\|XPASS\): \([^ ]*\)$/\2/p' "$d/test-suite.log" | sort -u); do
			log="$d/${t%.sh}.log"
			[ -f "$log" ] || continue
			echo "$d: $t: its failures and diagnostics:"
			grep -E '^(not ok|#|Bail out)' "$log" | head -60 | sed "s|^|    |"
		done
	done
	echo "quickstart: normal build: $(sh tests/summary.sh build/test-suite.log)"
	echo "quickstart: sanitizer build: $(sh tests/summary.sh build-asan/test-suite.log)"
	sh tests/summary.sh build/test-suite.log build-asan/test-suite.log
	exit $rc
	;;
*)
	echo "usage: ./quickstart.sh run [kerntop options] | ./quickstart.sh test" >&2
	exit 2
	;;
esac
