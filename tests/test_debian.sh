# The Debian packaging agrees with the build: debian/changelog's version is configure's (so
# `kerntop --version` of the package says the package version), and Build-Depends lists exactly
# the packages configure.ac checks for. Each PKG_CHECK_MODULES module, AC_CHECK_LIB /
# AC_SEARCH_LIBS library, AC_CHECK_HEADER(S) header and AC_CHECK_PROG(S) / AC_PATH_PROG(S)
# program is mapped to the Debian package that ships it on this machine (dpkg -S), so a check
# added to configure.ac without its Build-Depends line (or the reverse) fails here.
. "${top_srcdir:-.}/tests/lib.sh"

command -v dpkg-query >/dev/null 2>&1 || skip_all "not a Debian system (no dpkg-query)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed (apt-get install python3)"

ac_version=$(sed -n 's/^AC_INIT(\[kerntop\], *\[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
deb_version=$(sed -n '1s/^kerntop (\([^)]*\)).*/\1/p' "$top_srcdir/debian/changelog")
like "$ac_version" '^[0-9]+\.[0-9]+\.[0-9]+$' "configure.ac's AC_INIT has a version ($ac_version)"
# A native package: the Debian version is the upstream version itself, with no -revision.
is "$deb_version" "$ac_version" "debian/changelog's top entry is configure's version"
is "$(cat "$top_srcdir/debian/source/format")" "3.0 (native)" "a native source format (no -N revision)"
if [ -x "$KERNTOP" ]; then
	is "$("$KERNTOP" --version)" "kerntop $deb_version" "the built binary says the package version"
fi

# What configure.ac checks for, as Debian package names (one a line, sorted).
: >"$TMP/pc"
python3 - "$top_srcdir/configure.ac" "$TMP/pc" >"$TMP/need" 2>"$TMP/need.err" <<'PY'
import glob, os, re, shutil, subprocess, sys

text = open(sys.argv[1]).read()
# m4 comments (dnl, #) would hide nothing we need, but could mention a macro: drop them.
text = "\n".join(re.sub(r"(^|\s)(dnl\b|#).*", "", l) for l in text.splitlines())

def args(macro):
    """The first two bracketed arguments of each call of macro."""
    for m in re.finditer(r"\b" + macro + r"\(\s*\[([^]]*)\](?:\s*,\s*\[([^]]*)\])?", text):
        yield m.group(1), m.group(2) or ""

def owner(path):
    out = subprocess.run(["dpkg-query", "-S", path], capture_output=True, text=True)
    if out.returncode:
        sys.exit("no Debian package ships " + path + ": install what configure.ac needs")
    return out.stdout.split(":")[0].split(",")[0].strip()

def libdirs():
    arch = subprocess.run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"], capture_output=True,
                          text=True).stdout.strip()
    return ["/usr/lib/" + arch, "/usr/lib", "/lib/" + arch]

need = set()
if "PKG_PROG_PKG_CONFIG" in text or "PKG_CHECK_MODULES" in text:
    need.add("pkg-config")
for macro in ("PKG_CHECK_MODULES", "PKG_CHECK_MODULES_STATIC", "PKG_CHECK_EXISTS"):
    for a1, a2 in args(macro):
        mods = a1 if macro == "PKG_CHECK_EXISTS" else a2
        for mod in re.findall(r"[A-Za-z_][\w.+-]*", re.sub(r"[<>=!]+\s*[\w.]+", "", mods)):
            pc = subprocess.run(["pkg-config", "--variable=pcfiledir", mod], capture_output=True,
                                text=True).stdout.strip()
            if not pc:
                sys.exit("pkg-config module " + mod + " is not installed")
            need.add(owner(os.path.realpath(os.path.join(pc, mod + ".pc"))))
            open(sys.argv[2], "a").write(mod + "\n")
for macro in ("AC_CHECK_LIB", "AC_SEARCH_LIBS"):
    for a1, a2 in args(macro):
        libs = a1.split() if macro == "AC_CHECK_LIB" else a2.split()
        for lib in libs:
            found = [p for d in libdirs() for p in glob.glob(d + "/lib" + lib + ".so")]
            if not found:
                sys.exit("lib" + lib + ".so (" + macro + ") is not installed")
            need.add(owner(found[0]))
for macro in ("AC_CHECK_HEADER", "AC_CHECK_HEADERS"):
    for a1, _ in args(macro):
        for h in a1.split():
            need.add(owner("/usr/include/" + h))
for macro in ("AC_CHECK_PROG", "AC_CHECK_PROGS", "AC_PATH_PROG", "AC_PATH_PROGS"):
    for _, a2 in args(macro):
        for prog in a2.split():
            p = shutil.which(prog)
            if p:
                need.add(owner(os.path.realpath(p)))
                break
        else:
            sys.exit("none of the programs " + a2 + " (" + macro + ") is installed")
# build-essential is implied by every Debian build and never listed.
need -= {"libc6-dev", "gcc", "g++", "make", "dpkg-dev"}
print("\n".join(sorted(need)))
PY
is "$?" 0 "configure.ac's checks map to Debian packages"
sed 's/^/#   /' "$TMP/need.err"

# Build-Depends of debian/control without debhelper-compat, versions or architectures.
awk '/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, ""); print; next }
     on && /^[ \t]/ { print; next } { on = 0 }' "$top_srcdir/debian/control" |
	tr ',' '\n' | sed 's/[[(].*//; s/^[ \t]*//; s/[ \t]*$//' | grep -v -e '^$' -e '^debhelper-compat$' |
	sort >"$TMP/have"
is "$(tr '\n' ' ' <"$TMP/have")" "$(tr '\n' ' ' <"$TMP/need")" \
	"Build-Depends (debhelper-compat aside) is exactly what configure.ac checks for"
diff "$TMP/need" "$TMP/have" | sed -n 's/^</#   missing from Build-Depends:/p; s/^>/#   in Build-Depends, not in configure.ac:/p'

# Libraries kerntop loads on first use (dlopen: Capstone, libcurl, libelf, libdw) are not in
# its ELF NEEDED list, so ${shlibs:Depends} cannot see them: the packages that ship them must
# be named, in Recommends for the optional ones (annotate and --push say what to install
# when absent) or in Depends (libelf1 and libdw1: every --vmlinux, --module-dir and line).
if [ -x "$KERNTOP" ] && command -v readelf >/dev/null 2>&1; then
	readelf -d "$KERNTOP" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | sort >"$TMP/needed"
	strings -a "$KERNTOP" | grep -E '^lib[a-z0-9_+-]+\.so\.[0-9]+$' | sort -u >"$TMP/sonames"
	dl=$(comm -23 "$TMP/sonames" "$TMP/needed" | tr '\n' ' ')
	like "$dl" 'libcapstone\.so\.[0-9]+ .*libcurl\.so\.4|libcurl\.so\.4 .*libcapstone' \
		"the binary names the libraries it loads on first use ($dl)"
	named=$(sed -n 's/^\(Depends\|Recommends\): *//p' "$top_srcdir/debian/control" |
		tr ',' '\n' | sed 's/^[ \t]*//; s/[ \t(].*//' | sort | tr '\n' ' ')
	for so in $dl; do
		pkg=$(dpkg -S "*/$so" 2>/dev/null | sed -n '1s/:.*//p')
		case " $named " in
		*" $pkg "*) ok 0 "$so (package $pkg) is in Depends or Recommends" ;;
		*) ok 1 "$so (package ${pkg:-unknown}) is in Depends or Recommends ($named)" ;;
		esac
	done
fi

# quickstart.sh checks the same pkg-config modules where there is no apt-get (and prints the
# dnf and pacman names for them): a module added to configure.ac must be added there too.
qs_pc=$(sed -n 's/^NEED_PC="\(.*\)"$/\1/p' "$top_srcdir/quickstart.sh" | tr ' ' '\n' | sort | tr '\n' ' ')
is "$qs_pc" "$(sort -u "$TMP/pc" | tr '\n' ' ')" "quickstart.sh's NEED_PC is configure.ac's pkg-config modules"

# README's table of dnf and pacman names is quickstart.sh's lists (what it prints without apt-get).
qs() { sed -n "s/^$1=\"\\(.*\\)\"\$/\\1/p" "$top_srcdir/quickstart.sh"; }
row() { # row build|tests COLUMN: the README table cell, without backquotes
	sed -n "s/^| $1 | \(.*\) |\$/\1/p" "$top_srcdir/README.md" | awk -F ' [|] ' -v c="$2" '{ print $c }' | tr -d '`'
}
is "$(row build 1)" "$(qs DNF_PACKAGES)" "README's dnf build packages are quickstart.sh's DNF_PACKAGES"
is "$(row tests 1)" "$(qs DNF_TEST_PACKAGES)" "README's dnf test packages are quickstart.sh's DNF_TEST_PACKAGES"
is "$(row build 2)" "$(qs PACMAN_PACKAGES)" "README's pacman build packages are quickstart.sh's PACMAN_PACKAGES"
is "$(row tests 2)" "$(qs PACMAN_TEST_PACKAGES)" "README's pacman test packages are quickstart.sh's PACMAN_TEST_PACKAGES"

done_testing
