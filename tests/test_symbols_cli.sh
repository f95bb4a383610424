# The symbols options end to end: a replayed perf script over the tests/data/symbols fixtures
# (built-in modules carved out of vmlinux, a module without symbols, buckets, idle), and the
# errors kerntop prints for bad symbol files.
. "${top_srcdir:-.}/tests/lib.sh"

S="$DATA/symbols"
kt() { "$KERNTOP" -b --speed max --replay "$S/samples.perf" --kallsyms "$S/kallsyms" --modules "$S/modules" "$@"; }

out=$(kt --builtin-ranges "$S/builtin.ranges" 2>"$TMP/err")
is "$?" 0 "replay with fixture symbols"
like "$out" '^e1000 +3 ' "built-in module e1000 from modules.builtin.ranges"
like "$out" '^tcp_cubic +2 ' "built-in tcp_cubic (first of a shared range)"
like "$out" '^vmlinux +2 ' "what stays in vmlinux"
like "$out" '^nosyms +1 ' "module without symbols"
like "$out" '^\[idle\] +2 ' "default_idle and a cpu_idle_poll clone are idle"
like "$out" '^nosyms\+0x40 +nosyms +1 ' "bucket of the symbol-less module"
like "$out" '^vmlinux\+0x580 +vmlinux +1 ' "bucket in a symbol-less gap of vmlinux"
like "$out" '^memcpy +vmlinux +1 ' "best alias name"
is "$(grep -c 'malformed' "$TMP/err")" 1 "malformed fixture lines are reported once, not per line"

out=$(kt 2>/dev/null)
like "$out" '^vmlinux +7 ' "without the ranges file e1000 and tcp_cubic are vmlinux"

out=$(kt --builtin-ranges "$S/builtin.ranges" --idle-symbols 'e1000*' 2>/dev/null)
like "$out" '^\[idle\] +3 ' "--idle-symbols replaces the list (e1000* now idle)"
like "$out" '^vmlinux +4 ' "and default_idle counts as kernel work"

out=$(kt --builtin-ranges "$S/builtin.ranges" --idle-symbols '+e1000*' 2>/dev/null)
like "$out" '^\[idle\] +5 ' "--idle-symbols +e1000* adds to the list: e1000 and the default idle routines"
like "$out" '^vmlinux +2 ' "so default_idle stays idle"

out=$(kt --bucket 256 2>/dev/null)
like "$out" '^nosyms\+0x0 +nosyms +1 ' "--bucket 256"

out=$(kt -z nosyms 2>/dev/null)
like "$out" '^nosyms\+0x40 +1 ' "zoom into the symbol-less module lists buckets"

kt --kallsyms /nonexistent/kallsyms >"$TMP/o" 2>"$TMP/err"
is "$?" 1 "missing --kallsyms fails"
like "$(cat "$TMP/err")" '^kerntop: /nonexistent/kallsyms: cannot open \(No such file or directory\); check the path or pass --kallsyms FILE$' \
	"naming the file and the option"
: >"$TMP/empty"
kt --builtin-ranges "$TMP/empty" >"$TMP/o" 2>"$TMP/err"
is "$?" 1 "empty --builtin-ranges fails"
like "$(cat "$TMP/err")" "empty file; pass --builtin-ranges FILE" "saying it is empty"
kt --vmlinux "$S/kallsyms" >"$TMP/o" 2>"$TMP/err"
is "$?" 1 "a --vmlinux that is not ELF fails"
like "$(cat "$TMP/err")" 'not an ELF file' "saying so"
kt --vmlinux "$TMP/empty" >"$TMP/o" 2>"$TMP/err"
is "$?" 1 "an empty --vmlinux fails"
is "$(cat "$TMP/err")" "kerntop: $TMP/empty: not an ELF file; --vmlinux needs the running kernel's ELF image" \
	"naming it, without a '(no error)' cause"
# libelf is loaded when the first ELF file is opened: a broken one says what to install
mkdir "$TMP/badlib"
echo "not a library" >"$TMP/badlib/libelf.so.1"
LD_LIBRARY_PATH="$TMP/badlib" kt --vmlinux "$TMP/empty" >"$TMP/o" 2>"$TMP/err"
is "$?" 1 "--vmlinux with a libelf that cannot be loaded fails"
like "$(cat "$TMP/err")" "^kerntop: libelf\.so\.1 cannot be loaded \(.*\); install the Debian package libelf1; --vmlinux needs the running kernel's ELF image\$" \
	"one line naming the library, the loader's reason and the package"
# A --module-dir where nothing matches a loaded module is a notice, not silence
mkdir "$TMP/nokos" "$TMP/otherkos"
: >"$TMP/otherkos/not_loaded.ko"
for d in nokos otherkos; do
	out=$(kt --module-dir "$TMP/$d" 2>"$TMP/err")
	is "$?" 0 "--module-dir without a match ($d) still runs"
	like "$(cat "$TMP/err")" "--module-dir $TMP/$d: no NAME\.ko matches a loaded module" "and says so ($d)"
done
cp "$TMP/otherkos/not_loaded.ko" "$TMP/otherkos/nosyms.ko"
kt --module-dir "$TMP/otherkos" >/dev/null 2>"$TMP/err"
like "$(cat "$TMP/err")" "1 ELF files without symbols or unreadable" "a matching (broken) nosyms.ko is used"
is "$(grep -c 'no NAME.ko matches' "$TMP/err")" 0 "so no 'no match' notice"

# Unreadable, not only missing (EACCES): mode-000 copies, read as nobody when we are root
# (root reads any file), directly otherwise.
as_user=
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null || { ok 1 "setpriv (util-linux) is needed to test EACCES as root"; done_testing; }
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
A="$TMP/acc"
mkdir "$A" && chmod 711 "$TMP" "$A"
for f in kallsyms modules builtin.ranges samples.perf; do cp "$S/$f" "$A/$f" && chmod 644 "$A/$f"; done
cp "$S/kallsyms" "$A/locked" && chmod 000 "$A/locked"
mkdir "$A/lockeddir" && chmod 000 "$A/lockeddir"
ka() { $as_user "$KERNTOP" -b --speed max --replay "$A/samples.perf" "$@"; }
for opt in --kallsyms --modules --builtin-ranges; do
	case $opt in
	--kallsyms) set -- --kallsyms "$A/locked" --modules "$A/modules" ;;
	--modules) set -- --kallsyms "$A/kallsyms" --modules "$A/locked" ;;
	*) set -- --kallsyms "$A/kallsyms" --modules "$A/modules" --builtin-ranges "$A/locked" ;;
	esac
	ka "$@" >"$TMP/o" 2>"$TMP/err"
	is "$?" 1 "an unreadable $opt file fails"
	is "$(cat "$TMP/err")" "kerntop: $A/locked: cannot open (Permission denied); check the path or pass $opt FILE" \
		"$opt: one line naming the file, the cause and the option"
done
ka --kallsyms "$A/kallsyms" --modules "$A/modules" --vmlinux "$A/locked" >"$TMP/o" 2>"$TMP/err"
is "$?" 1 "an unreadable --vmlinux fails"
is "$(cat "$TMP/err")" "kerntop: $A/locked: cannot open (Permission denied); --vmlinux needs the running kernel's ELF image" \
	"--vmlinux: naming the file and the cause"
ka --kallsyms "$A/kallsyms" --modules "$A/modules" --module-dir "$A/lockeddir" >"$TMP/o" 2>"$TMP/err"
is "$?" 1 "an unreadable --module-dir fails"
like "$(cat "$TMP/err")" "^kerntop: $A/lockeddir: cannot open the --module-dir directory \(Permission denied\)" \
	"--module-dir: naming the directory and the cause"
chmod 700 "$A/lockeddir"
done_testing
