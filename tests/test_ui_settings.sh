# Saved settings in the viewer (docs/settings.md), driven in tmux on the UI replay fixture: O
# writes the viewer's sort, hidden and per-CPU columns, window, delay, idle and irq-owner to
# $XDG_CONFIG_HOME/kerntop/kerntoprc (mode 0600, replaced by a rename), the next start applies
# them, the command line wins, --no-config ignores the file, bad lines give one notice, and
# under sudo the file is the invoking user's.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/ui_lib.sh"
mkdir -p "$TMP/snap"
X="$TMP/xdg"
RC="$X/kerntop/kerntoprc"

ui_replay 100 30 XDG_CONFIG_HOME="$X"
see '^Module +\[Hits\] +CPU ms +%Kernel +%Machine +Hits/s +Trend$' "no file: the default columns and sort"
keys s
see '^Module +Hits +CPU ms +%Kernel +%Machine +\[Hits/s\] +Trend$' "s: sort by Hits/s"
keys r
see '\[Hits/s\]\^ +Trend$' "r: reversed"
keys i
see 'idle hidden' "i: idle hidden"
keys +
see 'window 20s' "+: a 20 s window"
keys p
see '^Module +Hits +CPU ms +%Kernel +%Machine +\[Hits/s\]\^ +Trend +cpu0 +cpu1' "p: per-CPU columns"
keys H
see 'hide columns \(comma list, empty shows all\):' "H prompts for the columns to hide"
keys 'cpu ms, %machine' Enter
see '^Module +Hits +%Kernel +\[Hits/s\]\^ +Trend +cpu0 +cpu1' "CPU ms and %Machine hidden (titles in any case)"
see 'hidden: CPU ms,%Machine \(O saves it\)' "H says what is hidden"
keys H C-u 'hits' Enter
see "no optional column 'hits': H hides CPU ms, %Machine, Hits/s, Δ%, Ratio, Trend" "H refuses a column that cannot go, listing those that can"
keys H C-u 'CPU ms,%Machine,Hits/s' Enter
see '^Module +\[Hits\] +%Kernel +Trend +cpu0 +cpu1' "hiding the sort column sorts by Hits again"
keys s
see '^Module +Hits +%Kernel +\[Trend\] +cpu0' "s: the Trend (rising), the next column not hidden"
keys s
see '^\[Module\] +Hits +%Kernel +Trend +cpu0' "s skips the hidden columns"
keys s
see '^Module +\[Hits\] +%Kernel +Trend +cpu0' "s: back to Hits"
keys H C-u 'CPU ms,%Machine' Enter s r
keys d C-u 2 Enter
see 'refresh every 2s' "d: a 2 s refresh"
keys o
see '  irq-owner  idle hidden' "o: irq-owner on"
keys h
see '^kerntop keys' "h: help"
keys End
see '^  O +save sort, columns, window, delay, idle, irq-owner, colour for the next start$' "help lists O"
see ' O save settings ' "the help screen's key bar offers O"
keys h
see '^Module ' "h again: back"
check "no settings file before O" test ! -e "$RC"
keys O
see "settings saved to $RC" "O: saved, the status line names the file"
is "$(stat -c %a "$RC")" 600 "the file is mode 0600"
is "$(stat -c %a "$X/kerntop")" 700 "its new directory is mode 0700"
is "$(grep -v '^#' "$RC")" "sort = rate
sort_reverse = yes
hidden_columns = CPU ms,%Machine
per_cpu = yes
window = 20
cumulative = no
delay = 2
show_idle = no
color = yes
irq_owner = yes" "the file holds exactly the viewer's settings"
# A second O replaces the file by a rename (a new inode): a reader never sees half a file.
ino=$(stat -c %i "$RC")
keys O
see "settings saved to $RC" "O again"
check "the file was replaced by a rename (new inode)" test "$(stat -c %i "$RC")" != "$ino"
is "$(ls -A "$X/kerntop")" "kerntoprc" "no temp file left beside it"

# the next start applies them
ui_replay 100 30 XDG_CONFIG_HOME="$X"
see '^Module +Hits +%Kernel +\[Hits/s\]\^ +Trend +cpu0 +cpu1' "restart: columns hidden, per-CPU columns on, saved sort"
see 'window 20s' "restart: the 20 s window"
see 'idle hidden' "restart: idle hidden"
see '  irq-owner  idle hidden' "restart: irq-owner on"
rows_are '^Module' "[user] nosym e1000e vmlinux" "restart: sorted by the saved column (rate), reversed, without idle"
keys H C-u Enter
see '^Module +Hits +CPU ms +%Kernel +%Machine +\[Hits/s\]\^ +Trend +cpu0' "H with nothing: every column back, sort column marked"
no_stderr

# the command line wins; --no-config ignores the file
ui_replay 100 30 XDG_CONFIG_HOME="$X" -- -w 5
see 'window 5s' "-w on the command line wins over window = 20"
see 'idle hidden' "and the rest of the file still applies"
ui_replay 100 30 XDG_CONFIG_HOME="$X" -- --no-config
see '^Module +\[Hits\] +CPU ms +%Kernel +%Machine +Hits/s +Trend$' "--no-config: default columns and sort"
see 'window 10s' "--no-config: default window"
unseen 'idle hidden' "--no-config: idle shown"
unseen 'irq-owner' "--no-config: irq-owner off"

# unknown and malformed lines: skipped with one notice, the rest applies, no failure
printf 'sort = name\nfrobnicate = 1\nwindow = soon\nthis is no setting\nshow_idle = no\n' >"$RC"
ui_replay 100 30 XDG_CONFIG_HOME="$X"
see "kerntoprc line 2 \\('frobnicate'\\): unknown key, skipped \\(3 lines skipped in all\\)" \
	"one notice for three bad lines, naming the first"
see '^\[?Module\]? +Hits' "the viewer runs"
see '^\[Module\] +Hits +CPU ms' "sort = name applied around the bad lines"
see 'idle hidden' "show_idle = no applied"
no_stderr

# Under sudo the file is the invoking user's, written as that user: kerntop drops to SUDO_UID
# after setup (and with --keep-privileges writes as the user).
if id nobody >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	NU=$(id -u nobody)
	NG=$(id -g nobody)
	SD=$(mktemp -d "${TMPDIR:-/tmp}/kerntop-sudo.XXXXXX")
	chmod 755 "$SD"
	mkdir "$SD/xdg" "$SD/snap"
	chown "$NU:$NG" "$SD/xdg" "$SD/snap"
	# The replay is opened as the user (kerntop drops root first), and the build tree may sit
	# under a directory only root can enter (a mktemp -d clone): give the user its own copies.
	mkdir "$SD/data"
	cp "$UI_DATA/ui.perf" "$UI_DATA/kallsyms" "$UI_DATA/modules" "$SD/data/"
	chmod 755 "$SD/data"
	chmod 644 "$SD/data/"*
	sudo_run() { # sudo_run XDG_CONFIG_HOME=DIR [OPTIONS...]
		xdg=$1
		shift
		ui_start 100 30 SUDO_UID="$NU" SUDO_GID="$NG" HOME=/root "$xdg" -- --replay "$SD/data/ui.perf" \
			--speed max --kallsyms "$SD/data/kallsyms" --modules "$SD/data/modules" \
			--snapshot-dir "$SD/snap" "$@"
	}
	sudo_run XDG_CONFIG_HOME="$SD/xdg"
	see '^Module +\[Hits\]' "sudo: the viewer runs as the user"
	keys O
	see "settings saved to $SD/xdg/kerntop/kerntoprc" "sudo: O saves into the user's XDG_CONFIG_HOME"
	is "$(stat -c %u:%a "$SD/xdg/kerntop/kerntoprc")" "$NU:600" "sudo: the file is the user's, mode 0600"
	rm -rf "$SD/xdg/kerntop"
	sudo_run XDG_CONFIG_HOME="$SD/xdg" --keep-privileges
	see '^Module +\[Hits\]' "sudo --keep-privileges: the viewer runs as root"
	keys O
	see "settings saved to $SD/xdg/kerntop/kerntoprc" "sudo --keep-privileges: saved"
	is "$(stat -c %u "$SD/xdg/kerntop/kerntoprc") $(stat -c %u "$SD/xdg/kerntop")" "$NU $NU" \
		"sudo --keep-privileges: file and directory still the user's"
	# root's XDG_CONFIG_HOME (not the user's directory) is not used: the user's home is
	sudo_run XDG_CONFIG_HOME="$TMP/rootcfg"
	keys O
	see "settings not saved: cannot create /nonexistent" "sudo: root's XDG_CONFIG_HOME ignored, the user's home tried"
	check "nothing written into root's directory" test ! -e "$TMP/rootcfg/kerntop"
	tm kill-session -t "$S" >/dev/null 2>&1
	rm -rf "$SD"
else
	echo "# sudo cases need root and a nobody user: not run"
fi

done_testing
