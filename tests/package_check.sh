# make package-check: builds the Debian package from `make distdir`'s tree with
# dpkg-buildpackage -us -uc -b, runs lintian on it (no error allowed; the warnings kept are
# listed in docs/packaging.md), unpacks the .deb into a scratch root (dpkg -x, nothing is
# installed on this machine) and runs the packaged binary: --help, --version against the
# package's version, and a batch replay of a fixture with hand-counted rows.
. "${top_srcdir:-.}/tests/lib.sh"

for t in dpkg-buildpackage dpkg-deb lintian fakeroot dh; do
	command -v "$t" >/dev/null 2>&1 ||
		skip_all "$t is not installed (apt-get install debhelper dpkg-dev fakeroot lintian)"
done

W="$top_builddir/package-check"
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")
rm -rf "$W"
mkdir -p "$W"

# The source tree the package is built from: exactly what `make dist` ships.
make -C "$top_builddir" -s distdir >"$W/distdir.log" 2>&1
is "$?" 0 "make distdir"
mv "$top_builddir/kerntop-$version" "$W/" || exit 1
start=$(date +%s)
(cd "$W/kerntop-$version" && DEB_BUILD_OPTIONS="parallel=$(nproc) nocheck" \
	dpkg-buildpackage -us -uc -b) >"$W/build.log" 2>&1
rc=$?
is "$rc" 0 "dpkg-buildpackage -us -uc -b builds ($(($(date +%s) - start)) s)"
[ "$rc" -eq 0 ] || tail -30 "$W/build.log" | sed 's/^/#   /'
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
deb="$W/kerntop_${version}_${arch}.deb"
check "the .deb is kerntop_${version}_${arch}.deb" test -f "$deb"
is "$(dpkg-deb -f "$deb" Package Version | tr '\n' ' ')" "Package: kerntop Version: $version " \
	"the package's name and version"

lintian --tag-display-limit 0 "$W/kerntop_${version}_${arch}.changes" >"$W/lintian.log" 2>&1
is "$(grep -c '^E:' "$W/lintian.log")" 0 "lintian reports no error"
grep -E '^[EWINPX]: ' "$W/lintian.log" | sed 's/^/#   lintian: /'
echo "#   lintian: $(grep -c '^E:' "$W/lintian.log") errors, $(grep -c '^W:' "$W/lintian.log") warnings"
# The warnings we keep, each explained in docs/packaging.md; anything else is new.
kept=$(sed -n 's/^- `\([a-z0-9-]*\)`.*/\1/p' "$top_srcdir/docs/packaging.md" | sort -u)
new=$(sed -n 's/^W: [^:]*: \([a-z0-9-]*\).*/\1/p' "$W/lintian.log" | sort -u |
	while read -r tag; do printf '%s\n' "$kept" | grep -qx "$tag" || echo "$tag"; done)
is "$new" "" "lintian warns only where docs/packaging.md says why"

R="$W/root"
dpkg -x "$deb" "$R"
is "$?" 0 "dpkg -x unpacks the .deb into a scratch root"
check "the package ships /usr/bin/kerntop" test -x "$R/usr/bin/kerntop"
check "the package ships the man page" test -s "$R/usr/share/man/man1/kerntop.1.gz"
check "the package ships the bash completion" test -s "$R/usr/share/bash-completion/completions/kerntop"
check "the package ships the README" test -s "$R/usr/share/doc/kerntop/README.md.gz"
check "the settings file's format (docs/settings.md)" sh -c "test -s '$R/usr/share/doc/kerntop/settings.md' || test -s '$R/usr/share/doc/kerntop/settings.md.gz'"
check "and the copyright file" test -s "$R/usr/share/doc/kerntop/copyright"

K="$R/usr/bin/kerntop"
like "$("$K" --help 2>&1)" '^Usage: kerntop \[OPTION\]\.\.\.$' "the packaged kerntop --help"
is "$("$K" --version 2>&1)" "kerntop $version" "the packaged kerntop --version is the package version"
A="$DATA/agg"
out=$("$K" -b --replay "$A/callchains.perf" --kallsyms "$A/kallsyms" --modules "$A/modules" \
	--speed max 2>&1)
is "$?" 0 "the packaged kerntop replays a fixture"
like "$out" '^tcp +70 +70.2 +32.26% +324.1$' "with the hand-counted tcp row"
like "$out" '^\[idle\] +90 +90.3 +41.47% +416.7$' "and the [idle] row"

# The packaged completion, sourced as bash-completion loads it, completes the packaged binary.
if [ -f /usr/share/bash-completion/bash_completion ]; then
	got=$(bash -c '. /usr/share/bash-completion/bash_completion; . "$1"
		COMP_WORDS=("$2" --format ""); COMP_CWORD=2; COMP_LINE="$2 --format "; COMP_POINT=${#COMP_LINE}
		_kerntop "$2" "" --format; printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' \
		sh "$R/usr/share/bash-completion/completions/kerntop" "$K")
	like "$got" '^csv (.* )?json (.* )?text $' "the packaged completion completes the packaged kerntop"
fi

done_testing
