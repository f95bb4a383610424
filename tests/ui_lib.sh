# Helpers for the tmux-driven viewer tests: a private tmux server, one session "ui" running
# kerntop under sh (which survives Ctrl-C with a no-op trap, so a quit shows the shell's EXIT= line on the normal screen), and polling
# assertions on capture-pane text. Source after tests/lib.sh.
command -v tmux >/dev/null 2>&1 || skip_all "tmux is not installed (apt-get install tmux)"
SOCK=kerntop-test-$$
UI_DATA="$DATA/ui"
SCREEN=
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server >/dev/null 2>&1; rm -rf "$TMP"' EXIT

# ui_start W H ENV... -- ARGS...: a fresh session running "env ENV... kerntop ARGS".
ui_start() {
	w=$1 h=$2
	shift 2
	envs=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs="$envs '$1'"; shift; done
	[ $# -gt 0 ] && shift
	cmd="env$envs '$KERNTOP'"
	for a in "$@"; do cmd="$cmd '$a'"; done
	tm kill-session -t ui >/dev/null 2>&1
	tm new-session -d -s ui -x "$w" -y "$h" "sh -c \"trap : INT; $cmd; echo EXIT=\\\$?; exec sleep 600\""
	tm set-option -t ui status off >/dev/null
}

# Replay of the UI fixture at full speed (every count known), extra options appended.
ui_replay() {
	w=$1 h=$2
	shift 2
	ui_start "$w" "$h" "$@" -- --replay "$UI_DATA/ui.perf" --speed max \
		--kallsyms "$UI_DATA/kallsyms" --modules "$UI_DATA/modules" \
		--snapshot-dir "$TMP/snap" --log "$TMP/ui.log"
}

keys() { tm send-keys -t ui "$@"; }
capture() { SCREEN=$(tm capture-pane -p -t ui); }

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
