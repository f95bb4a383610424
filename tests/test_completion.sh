# bash completion (completions/kerntop) driven as bash drives it: COMP_WORDS, COMP_CWORD,
# COMP_LINE and COMP_POINT set, _kerntop called, COMPREPLY compared with the exact candidates.
# The command word is the built kerntop, whose --help the completion reads at completion time.
. "${top_srcdir:-.}/tests/lib.sh"

BC=/usr/share/bash-completion/bash_completion
command -v bash >/dev/null 2>&1 || skip_all "bash is not installed"
[ -f "$BC" ] || skip_all "bash-completion is not installed (apt-get install bash-completion)"

# complete WORD... : the sorted candidates when the cursor is at the end of the last word.
complete_line() {
	bash -c '
		. "$1"; . "$2"; shift 2
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_kerntop "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ $//"
	' sh "$BC" "$top_srcdir/completions/kerntop" "$@" 2>>"$TMP/stderr"
}
: >"$TMP/stderr"

K="$KERNTOP"
# every long option of --help, so a new option completes without an edit of the script
want=$("$K" --help | grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z-]*( [A-Z][A-Z0-9_|a-z]*)?' |
	sed -E 's/^ +(-[A-Za-z], )?//; s/ [A-Z].*/=/' | sort | tr '\n' ' ' | sed 's/ $//')
is "$(complete_line "$K" --)" "$want" "-- offers every long option of --help (= where a value follows)"
nos=$(printf '%s\n' $want | grep -- '^--no-' | tr '\n' ' ' | sed 's/ $//')
like "$nos" '(^| )--no-color( --[a-z-]+)* --no-mouse' "--help has --no- options (at least --no-color, --no-mouse)"
is "$(complete_line "$K" --no-)" "$nos" "--no- offers exactly the --no- options"
is "$(complete_line "$K" --rep)" "--replay=" "one candidate: --replay= (no space after it)"
# the formats as --help lists them ("text (default), json, csv or folded")
formats=$("$K" --help | sed -n 's/^ *--format FMT *//p' | sed 's/([^)]*)//g; s/,/ /g; s/ or / /g' |
	tr ' ' '\n' | grep . | sort | tr '\n' ' ' | sed 's/ $//')
like "$formats" '^csv folded json( [a-z]+)* text' "--help lists the formats (at least csv folded json text)"
is "$(complete_line "$K" --format "")" "$formats" "--format values from --help"
is "$(complete_line "$K" --format j)" "json" "--format j"
is "$(complete_line "$K" --format=c)" "csv" "--format=c (the = form)"
is "$(complete_line "$K" -e "")" "auto cpu-clock cycles task-clock" "-e events"
is "$(complete_line "$K" --event c)" "cpu-clock cycles" "--event c"
is "$(complete_line "$K" --speed "")" "max" "--speed X|max offers max"
is "$(complete_line "$K" -F "")" "" "-F HZ: a number, nothing offered"

# file and directory arguments
mkdir -p "$TMP/d/sub" && : >"$TMP/d/rec.perf" && : >"$TMP/d/notes.txt"
is "$(cd "$TMP/d" && complete_line "$K" --replay "")" "notes.txt rec.perf sub" "--replay FILE: files"
is "$(cd "$TMP/d" && complete_line "$K" --baseline "")" "notes.txt rec.perf sub" "--baseline FILE: files"
is "$(cd "$TMP/d" && complete_line "$K" --diff "")" "notes.txt rec.perf sub" "--diff A: files"
is "$(cd "$TMP/d" && complete_line "$K" --diff rec.perf "")" "notes.txt rec.perf sub" "--diff A B: files for B too"
is "$(cd "$TMP/d" && complete_line "$K" --snapshot-dir "")" "sub" "--snapshot-dir DIR: directories only"
is "$(cd "$TMP/d" && complete_line "$K" -o r)" "rec.perf" "-o FILE: files by prefix"
is "$(cd "$TMP/d" && complete_line "$K" --log=n)" "notes.txt" "--log=FILE: files by prefix"

# -z names come from the kallsyms the line would read
S="$DATA/symbols/sysroot"
is "$(complete_line "$K" --sysroot "$S" -z "")" "sysmod vmlinux" "-z: modules of --sysroot DIR/proc/kallsyms"
is "$(complete_line "$K" --sysroot="$S" --zoom s)" "sysmod" "--zoom with --sysroot=DIR, by prefix"
U="$DATA/ui"
mods=$(awk '$4 ~ /^\[/ { print substr($4, 2, length($4) - 2) }' "$U/kallsyms" | sort -u | tr '\n' ' ')
is "$(complete_line "$K" --kallsyms "$U/kallsyms" -z "")" "$(printf '%s\n' $mods vmlinux | sort | tr '\n' ' ' | sed 's/ $//')" \
	"-z: modules of --kallsyms FILE"
# --annotate FUNC or MODULE:FUNC: text symbols of the same kallsyms, by prefix
is "$(complete_line "$K" --kallsyms "$U/kallsyms" --annotate tcp_)" "tcp_sendmsg tcp_sendmsg_locked" \
	"--annotate: function names by prefix"
is "$(complete_line "$K" --kallsyms "$U/kallsyms" --annotate e1000_)" \
	"e1000_clean_rx_irq e1000_watchdog e1000_xmit_frame" "--annotate: module functions too"
# as bash splits "e1000e:e1000_w" (COMP_WORDBREAKS has ':'), candidates keep only what follows
got=$(bash -c '. "$1"; . "$2"; K=$3; U=$4
	COMP_WORDS=("$K" --kallsyms "$U/kallsyms" --annotate e1000e : e1000_w); COMP_CWORD=6
	COMP_LINE="$K --kallsyms $U/kallsyms --annotate e1000e:e1000_w"; COMP_POINT=${#COMP_LINE}
	_kerntop "$K" e1000_w :; printf "%s\n" "${COMPREPLY[@]}"' sh "$BC" "$top_srcdir/completions/kerntop" "$K" "$U" 2>>"$TMP/stderr")
is "$got" "e1000_watchdog" "--annotate MODULE:FUNC, split at ':' as bash does"
got=$(bash -c '. "$1"; . "$2"; K=$3; U=$4
	COMP_WORDS=("$K" --kallsyms "$U/kallsyms" --annotate vmlinux : tcp); COMP_CWORD=6
	COMP_LINE="$K --kallsyms $U/kallsyms --annotate vmlinux:tcp"; COMP_POINT=${#COMP_LINE}
	_kerntop "$K" tcp :; printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' sh "$BC" "$top_srcdir/completions/kerntop" "$K" "$U" 2>>"$TMP/stderr")
is "$got" "tcp_sendmsg tcp_sendmsg_locked " "--annotate vmlinux:FUNC: the core kernel's functions"

live=$( (echo vmlinux; awk '$4 ~ /^\[/ { m = substr($4, 2, length($4) - 2); if (m !~ /^__builtin__/ && m != "bpf") print m }' /proc/kallsyms) |
	sort -u | tr '\n' ' ' | sed 's/ $//')
is "$(complete_line "$K" -z "")" "$live" "-z without --sysroot: the live /proc/kallsyms modules"

# Nothing on stderr but compopt's complaint that no completion is running (we call _kerntop
# directly; under bash's completion it sets nospace).
is "$(grep -v 'compopt: not currently executing completion function' "$TMP/stderr")" "" \
	"the completion function writes no errors"

# the script registers itself for the kerntop command
is "$(bash -c '. "$1"; . "$2"; complete -p kerntop' sh "$BC" "$top_srcdir/completions/kerntop")" \
	"complete -F _kerntop kerntop" "complete -F _kerntop kerntop"

done_testing
