#!/bin/sh
# One command to get kerntop going on Debian 12:
#   ./quickstart.sh run [KERNTOP OPTIONS]  install what is missing, build, start the live viewer
#   ./quickstart.sh test                   the same build, then make check, then again under ASan/UBSan
# Both are idempotent: packages are installed once, builds are incremental (build/, build-asan/).
set -eu
cd "$(dirname "$0")"
top=$(pwd)

PACKAGES="gcc make autoconf automake pkg-config libncurses-dev libelf-dev libdw-dev libcapstone-dev linux-libc-dev libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libcurl4-openssl-dev"
TEST_PACKAGES="tmux linux-perf python3 valgrind debhelper dpkg-dev fakeroot lintian iproute2 golang-go bash-completion stress-ng"
# The same build dependencies on distributions without apt-get (installed by hand; the names
# are those of the Fedora/RHEL and Arch package databases, also listed in README.md).
DNF_PACKAGES="gcc make autoconf automake pkgconf-pkg-config ncurses-devel elfutils-libelf-devel elfutils-devel capstone-devel kernel-headers protobuf-c-devel protobuf-c-compiler zlib-devel libcurl-devel"
DNF_TEST_PACKAGES="tmux perf python3 valgrind iproute golang bash-completion stress-ng"
PACMAN_PACKAGES="gcc make autoconf automake pkgconf ncurses libelf capstone linux-api-headers protobuf-c zlib curl"
PACMAN_TEST_PACKAGES="tmux perf python valgrind iproute2 go bash-completion stress-ng"
# What configure needs, checked without a package manager (pkg-config modules and tools).
NEED_PC="ncursesw libelf libdw capstone libprotobuf-c zlib libcurl"
NEED_TOOLS="cc make autoreconf pkg-config protoc-c"

missing() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
	done
}

# Without apt-get: say what to install by hand, then go on only if configure's needs are met.
no_apt() {
	tools_missing=
	for t in $NEED_TOOLS; do command -v "$t" >/dev/null 2>&1 || tools_missing="$tools_missing $t"; done
	pc_missing=
	if command -v pkg-config >/dev/null 2>&1; then
		for m in $NEED_PC; do pkg-config --exists "$m" || pc_missing="$pc_missing $m"; done
	else
		pc_missing=" $NEED_PC"
	fi
	[ -z "$tools_missing$pc_missing" ] && [ "${1:-}" != test ] && return 0
	cat >&2 <<EOF
quickstart: no apt-get here: install kerntop's build dependencies with your package manager.
  Fedora, RHEL, CentOS Stream:  sudo dnf install $DNF_PACKAGES
      and for ./quickstart.sh test:  sudo dnf install $DNF_TEST_PACKAGES
  Arch Linux:  sudo pacman -S --needed $PACMAN_PACKAGES
      and for ./quickstart.sh test:  sudo pacman -S --needed $PACMAN_TEST_PACKAGES
  (make package-check builds a Debian package and needs dpkg-buildpackage, debhelper and lintian.)
EOF
	if [ -n "$tools_missing$pc_missing" ]; then
		echo "quickstart: missing now:${tools_missing}${pc_missing} (tools, then pkg-config modules)" >&2
		exit 1
	fi
}

install_missing() {
	if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
		no_apt "${MODE:-run}"
		return 0
	fi
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
	MODE=run
	install_missing $PACKAGES
	build build
	exec build/kerntop "$@"
	;;
test)
	MODE=test
	install_missing $PACKAGES $TEST_PACKAGES
	build build
	rc=0
	make -C build -j"$(nproc)" check || rc=1
	# The Debian package built from this tree, linted, unpacked and run (needs dpkg-buildpackage).
	if command -v dpkg-buildpackage >/dev/null 2>&1; then
		make -C build package-check >build/package-check.log 2>&1 || rc=1
		grep -E '^(not ok|#)|^ok [0-9]+ - dpkg-buildpackage' build/package-check.log | sed 's|^|build: package-check: |'
		echo "quickstart: package-check: $(grep -c '^ok' build/package-check.log) passed, $(grep -c '^not ok' build/package-check.log) failed"
	else
		echo "quickstart: package-check skipped: no dpkg-buildpackage on this machine"
	fi
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
