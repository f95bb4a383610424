# Helpers for the tmux-driven viewer tests: a private tmux server, one session at a time running
# kerntop under sh (which survives Ctrl-C with a no-op trap, so a quit shows the shell's EXIT= line on the normal screen), and polling
# assertions on capture-pane text. Source after tests/lib.sh.
command -v tmux >/dev/null 2>&1 || skip_all "tmux is not installed (apt-get install tmux)"
SOCK=kerntop-test-$$
UI_DATA="$DATA/ui"
SCREEN=
S=
UI_N=0
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server >/dev/null 2>&1; rm -rf "$TMP"' EXIT

# ui_start W H ENV... -- ARGS...: a fresh session running "env ENV... kerntop ARGS", its
# stderr collected in $TMP/stderr (the viewer must write nothing there; sanitizers would).
ui_start() {
	w=$1 h=$2
	shift 2
	envs=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs="$envs '$1'"; shift; done
	[ $# -gt 0 ] && shift
	# a private, empty settings directory unless the test gives its own (a later env wins)
	cmd="env XDG_CONFIG_HOME='$TMP/config'$envs '$KERNTOP'"
	for a in "$@"; do cmd="$cmd '$a'"; done
	cmd="$cmd 2>>'$TMP/stderr'"
	# a new session before the old one goes, so the server never exits between the two
	old=$S
	UI_N=$((UI_N + 1))
	S=ui$UI_N
	tm new-session -d -s "$S" -x "$w" -y "$h" "sh -c \"trap : INT; $cmd; echo EXIT=\\\$?; exec sleep 600\""
	tm set-option -t "$S" status off >/dev/null
	[ -n "$old" ] && tm kill-session -t "$old" >/dev/null 2>&1
	return 0
}

# ui_replay W H [ENV...] [-- OPTIONS...]: the UI fixture replayed at full speed (every count
# known), with extra environment and options.
ui_replay() {
	rw=$1 rh=$2
	shift 2
	renv=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do renv="$renv $1"; shift; done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2086 # env assignments are single words
	ui_start "$rw" "$rh" $renv -- --replay "$UI_DATA/ui.perf" --speed max \
		--kallsyms "$UI_DATA/kallsyms" --modules "$UI_DATA/modules" \
		--snapshot-dir "$TMP/snap" --log "$TMP/ui.log" "$@"
}

keys() { tm send-keys -t "$S" "$@"; }
capture() { SCREEN=$(tm capture-pane -p -t "$S"); }
screen_line() { capture; printf '%s\n' "$SCREEN" | sed -n "$1p"; } # screen_line N: line N now

# wait_for REGEX [SECONDS]: polls the pane every 0.1 s until a line matches.
wait_for() {
	n=$(( ${2:-10} * 10 ))
	while [ "$n" -gt 0 ]; do
		capture
		printf '%s\n' "$SCREEN" | grep -Eq -- "$1" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# wait_gone REGEX [SECONDS]: polls until no line matches.
wait_gone() {
	n=$(( ${2:-10} * 10 ))
	while [ "$n" -gt 0 ]; do
		capture
		printf '%s\n' "$SCREEN" | grep -Eq -- "$1" || return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

dump() { printf '%s\n' "$SCREEN" | sed 's/^/#   /'; }

see() { # see REGEX DESCRIPTION [SECONDS]
	if wait_for "$1" "${3:-10}"; then ok 0 "$2"; else ok 1 "$2"; dump; echo "#   never matched /$1/"; fi
}

unseen() { # unseen REGEX DESCRIPTION [SECONDS]
	if wait_gone "$1" "${3:-10}"; then ok 0 "$2"; else ok 1 "$2"; dump; echo "#   still matches /$1/"; fi
}

# The first word of each table row under the column header line matching REGEX.
rows_after() {
	printf '%s\n' "$SCREEN" | awk -v re="$1" 'f && NF == 0 { exit } f { print $1 } $0 ~ re { f = 1 }' |
		tr '\n' ' ' | sed 's/ $//'
}

rows_are() { # rows_are HEADER_REGEX WANT DESCRIPTION: polls until the row names equal WANT
	n=100
	while [ "$n" -gt 0 ]; do
		capture
		[ "$(rows_after "$1")" = "$2" ] && { ok 0 "$3"; return; }
		sleep 0.1
		n=$((n - 1))
	done
	is "$(rows_after "$1")" "$2" "$3"
}

no_stderr() { # the viewer wrote nothing to stderr (no message behind curses, no sanitizer report)
	if [ -s "$TMP/stderr" ]; then ok 1 "nothing on stderr"; sed 's/^/#   /' "$TMP/stderr" | head -20; else ok 0 "nothing on stderr"; fi
}
