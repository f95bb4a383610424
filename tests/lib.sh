# Shared helpers for kerntop's shell tests: TAP output, fixtures, temp dirs.
# Source it; set nothing before. Every test prints TAP and ends with `done_testing`.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${KERNTOP:=$top_builddir/kerntop}"
DATA="$top_srcdir/tests/data"
T_N=0
T_FAILED=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kerntop-test.XXXXXX")
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

ok() { # ok COND_EXIT_STATUS DESCRIPTION
	T_N=$((T_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $T_N - $2"
	else
		T_FAILED=$((T_FAILED + 1))
		echo "not ok $T_N - $2"
	fi
}

check() { # check DESCRIPTION COMMAND...
	desc=$1
	shift
	if "$@" >"$TMP/check.out" 2>&1; then ok 0 "$desc"; else ok 1 "$desc"; sed 's/^/#   /' "$TMP/check.out" | head -20; fi
}

is() { # is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got '$1', want '$2'"; fi
}

like() { # like TEXT REGEX DESCRIPTION
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then ok 0 "$3"; else ok 1 "$3"; printf '%s\n' "$1" | head -20 | sed 's/^/#   /'; echo "#   does not match /$2/"; fi
}

skip_all() { # skip_all REASON: only when the facility is really refused on this machine
	echo "1..0 # SKIP $1"
	exit 0
}

done_testing() {
	echo "1..$T_N"
	[ "$T_FAILED" -eq 0 ]
	exit $?
}
