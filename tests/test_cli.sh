# End-to-end checks of the command line: --help, --version, usage errors and exit status 2.
. "${top_srcdir:-.}/tests/lib.sh"

out=$("$KERNTOP" --help 2>&1); rc=$?
is "$rc" 0 "--help exits 0"
# --help is generated from src/options.c's one table (as is getopt's): the man page and the
# README must document exactly the options it lists, so a new option cannot skip the docs
help_opts=$(printf '%s\n' "$out" | grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+' | sort)
man_opts=$(awk '/^\.TP/ { getline; print }' "$top_srcdir/docs/kerntop.1" | sed 's/\\-/-/g' |
	grep -oE -- '--[a-z][a-z-]*' | sort -u)
readme_opts=$(sed -n '/^## Options/,/^## /p' "$top_srcdir/README.md" | grep '^| `-' | sed 's/ | .*//' |
	grep -oE -- '--[a-z][a-z-]*' | sort -u)
like "$(printf '%s\n' $help_opts | tr '\n' ' ')" "--annotate .*--batch .*--event .*--help .*--zoom $" \
	"--help lists the long options (at least --annotate --batch --event --help --zoom)"
is "$(printf '%s\n' $help_opts | uniq -d)" "" "--help lists each option once"
is "$man_opts" "$help_opts" "kerntop(1) has an entry for every option of --help, and no other"
is "$readme_opts" "$help_opts" "README's options table has a row for every option of --help, and no other"
for opt in -e -F -c -C -u -g -w -d -b -n -o -z -h -V; do
	like "$out" "^  $opt, --" "--help pairs $opt with its long name"
done
like "$out" "default 997" "--help names the default frequency"

# the built-in idle list: --help prints it (from symbols.h) and the man page must say the same
help_idle=$(printf '%s\n' "$out" | sed -n '/Built in:$/,/^$/p' | sed '1d' | tr -d ' \n')
man_idle=$(sed -n '/^\.BI \\-\\-idle-symbols/,/^\.RE/p' "$top_srcdir/docs/kerntop.1" |
	sed -n '/^\.nf$/,/^\.fi$/p' | sed '1d;$d' | tr -d ' \n')
like "$help_idle" '^default_idle,default_idle_call,.*,cpu_do_idle$' "--help lists the built-in idle list"
like "$help_idle" ',intel_idle\*,' "with its prefixes"
is "$man_idle" "$help_idle" "kerntop(1) lists the same idle routines as --help"

out=$("$KERNTOP" --version); rc=$?
is "$rc" 0 "--version exits 0"
like "$out" "^kerntop [0-9]+\.[0-9]+" "--version prints the version"

usage() { # usage DESCRIPTION REGEX ARGS...
	desc=$1 re=$2
	shift 2
	err=$("$KERNTOP" "$@" 2>&1 >/dev/null); rc=$?
	is "$rc" 2 "$desc exits 2"
	like "$err" "$re" "$desc: message"
	n=$(printf '%s\n' "$err" | wc -l)
	is "$n" 1 "$desc: one line"
}
usage "unknown long option" "unknown option '--bogus'" --bogus
usage "push URL without a scheme" "invalid value 'pyro:4040' for --push" --push pyro:4040
usage "bad push interval" "invalid value '0' for --push-interval" --push-interval 0
usage "bad push name" "invalid value 'a b' for --push-name" --push-name 'a b'
usage "push label without =" "invalid value 'env' for --push-label" --push-label env
usage "push label with a comma" "invalid value 'env=a,b' for --push-label" --push-label env=a,b
usage "bad pprof label" "invalid value 'pod' for --pprof-labels" --pprof-labels pod
usage "unknown short option" "unknown option -Q" -Q
usage "missing value" "option --freq needs a value" --freq
usage "missing value (short)" "option -F needs a value" -F
usage "bad frequency" "invalid value 'abc' for --freq" -F abc
usage "zero frequency" "invalid value '0' for --freq" -F 0
usage "bad event" "invalid value 'instructions' for --event" -e instructions
usage "bad format" "invalid value 'xml' for --format" --format xml
usage "bad bucket" "power of two" --bucket 100
usage "bad window" "invalid value '-1' for --window" -w -1
usage "bad speed" "invalid value 'fast' for --speed" --speed fast
usage "bad cpu list" "CPU list" -C 'a-b'
# the -C syntax is a usage error (2) before anything opens; only the CPUs' existence waits for perf
for l in '5-2' ',' '-' '0,,1' '1-0' '0,' '' ' 1' '1-' '-3' '0-1,' '8192' '99999999999999999999'; do
	usage "cpu list '$l'" "invalid value '$l' for --cpu: expected a CPU list such as 0,2-3" -C "$l"
done
for l in '0' '1' '0-1' '0,1' '1,0' '0-1,1' '8191'; do
	"$KERNTOP" -C "$l" --help >/dev/null 2>&1
	is "$?" 0 "cpu list '$l' is valid syntax"
done
usage "flag given a value" "^kerntop: option --help takes no value" --help=x
usage "flag given a value (abbreviated)" "^kerntop: option --cumulative takes no value" --cumulative=1
usage "flag given an empty value" "^kerntop: option --batch takes no value" --batch=
usage "-F with -c" "exclude each other" -F 99 -c 1000
usage "stray argument" "unexpected argument 'foo'" foo
usage "folded with --no-call-graph" "needs call chains: drop --no-call-graph" -b --no-call-graph --format folded
usage "--irq-owner with --no-call-graph" "needs call chains to find the callers: drop --no-call-graph" -b --no-call-graph --irq-owner
usage "--folded-context without folded" "applies to batch folded output" -b --folded-context

done_testing
