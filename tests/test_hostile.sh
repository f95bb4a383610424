#!/bin/sh
# Hostile inputs and hostile environments (issue 20): arguments, outputs, descriptors, terminal
# types, FIFOs, shrinking files, file-size limits, huge module lists, escapes in names and
# privileges under sudo. Each section names the defect it guards against; every check fails
# on the code before its fix. See docs/testing.md.
. "${top_srcdir:-..}/tests/lib.sh"
UI="$DATA/ui"
SYM="--kallsyms $UI/kallsyms --modules $UI/modules"

# run NAME ARGS...: kerntop ARGS, stdout to $TMP/NAME.out, stderr to $TMP/NAME.err, status in $rc;
# a hang is ended by SIGKILL after 60 s (status 137) so that the test fails instead of hanging
run() {
	name=$1
	shift
	rc=0
	timeout -s KILL "${LIMIT:-60}" "$KERNTOP" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null || rc=$?
}
err_of() { cat "$TMP/$1.err"; }
run_sudo() { # run_sudo UID GID NAME ARGS...: run as root with SUDO_UID/SUDO_GID set (as sudo does)
	u=$1 g=$2 name=$3
	shift 3
	rc=0
	timeout -s KILL "${LIMIT:-60}" env SUDO_UID="$u" SUDO_GID="$g" "$KERNTOP" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null || rc=$?
}
wait_for() { # wait_for COMMAND...: up to 20 s for COMMAND to succeed
	i=0
	while ! "$@"; do
		i=$((i + 1))
		[ $i -lt 400 ] || return 1
		sleep 0.05
	done
}
has_fd_to() { ls -l "/proc/$1/fd" 2>/dev/null | grep -q -- "$2"; }
gone() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*zombie' "/proc/$1/status" 2>/dev/null; }

# --- arguments ----------------------------------------------------------------------------
# strtoull skips blanks and negates: ' -18446744073709551615' used to be accepted as 1.
for v in ' -18446744073709551615' ' -1' '	5' '-0'; do
	run neg -b --replay "$UI/ui.perf" $SYM -c "$v"
	is "$rc" 2 "-c '$v' is a usage error"
	like "$(err_of neg)" "^kerntop: invalid value .* for --count" "-c '$v': the message names -c"
done
# a 100 KB argument is not echoed in full, and its control bytes never reach the terminal
big=$(head -c 100000 /dev/zero | tr '\0' 'x')
for o in -e -C -F --format; do
	run big "$o" "$big"
	is "$rc" 2 "$o with a 100 KB value exits 2"
	n=$(wc -c <"$TMP/big.err")
	ok $([ "$n" -lt 400 ]; echo $?) "$o with a 100 KB value: the message is short ($n bytes)"
done
run esc -e "$(printf 'a\033]0;pwned\007b')"
ok $(! grep -q "$(printf '\033')" "$TMP/esc.err"; echo $?) "-e echo: no escape byte reaches stderr"
like "$(err_of esc)" "invalid value 'a\?\]0;pwned\?b' for --event" "-e echo: control bytes shown as ?"
run stray "$big"
ok $([ "$(wc -c <"$TMP/stray.err")" -lt 400 ]; echo $?) "a 100 KB stray argument: the message is short"

# --- output paths checked before anything runs ----------------------------------------------
mkdir "$TMP/outdir"
for args in "-o|" "-o|$TMP/outdir/" "-o|$TMP/outdir" "--record|" "--record|$TMP/outdir/" \
	"--log|" "--log|$TMP/outdir"; do
	opt=${args%%|*} path=${args#*|}
	if [ "$opt" = --record ]; then
		run outp -b -n 1 -d 0.05 "$opt" "$path"
	else
		run outp -b --speed max --replay "$UI/ui.perf" $SYM "$opt" "$path"
	fi
	is "$rc" 2 "$opt '$path' is refused up front (exit 2)"
	like "$(err_of outp)" "^kerntop: $opt (needs a file name|'.*' is a directory)" "$opt '$path': the message says why"
	is "$(wc -c <"$TMP/outp.out" | tr -d ' ')" 0 "$opt '$path': no report was written"
done
is "$(ls -A "$TMP/outdir")" "" "nothing was created in the directory"

# --- perf script numbers that overflow 64 bits ------------------------------------------------
# A 20-digit period or an 11-digit time in seconds used to wrap silently.
cp "$UI/ui.perf" "$TMP/ovf.perf"
printf 'swapper 0/0 [000] 99999999999.000000: 1003009 cpu-clock: \n\tffffffff81000800 default_idle+0x0 ([kernel.kallsyms])\n\n' >>"$TMP/ovf.perf"
printf 'swapper 0/0 [000] 101.000000: 99999999999999999999 cpu-clock: \n\tffffffff81000800 default_idle+0x0 ([kernel.kallsyms])\n\n' >>"$TMP/ovf.perf"
run ovf -b --speed max --format json --replay "$TMP/ovf.perf" $SYM
is "$rc" 0 "overflowing perf script numbers: exit 0"
like "$(head -1 "$TMP/ovf.out")" '"samples": ?385,' "the two overflowing samples are not counted"
# each bad sample line and its orphaned frame line: 4 skipped lines
like "$(head -1 "$TMP/ovf.out")" '"skipped": ?4,' "they are counted as skipped lines"
like "$(err_of ovf)" "will be skipped" "a notice says lines are skipped"

# --- closed standard descriptors ------------------------------------------------------------
# With fd 1 closed, the --log file took descriptor 1 and the reports went into it.
rc=0
"$KERNTOP" -b --speed max --replay "$UI/ui.perf" $SYM --log "$TMP/closed.log" 2>"$TMP/closed.err" 1>&- || rc=$?
is "$rc" 0 "fd 1 closed: exit 0"
ok $(! grep -q 'Top functions' "$TMP/closed.log"; echo $?) "fd 1 closed: no report in the --log file"
like "$(cat "$TMP/closed.log")" "batch: start:" "fd 1 closed: the log is a log"
rc=0
"$KERNTOP" -b --speed max --replay "$UI/ui.perf" $SYM -o "$TMP/closed2.txt" 2>&- 1>&- 0<&- || rc=$?
is "$rc" 0 "fds 0, 1 and 2 closed: exit 0"
like "$(cat "$TMP/closed2.txt")" "^Module +Hits" "fds 0, 1 and 2 closed: the -o report is whole"

# --- --log gets the checks of the other outputs, and its write errors end the run --------------
mkdir "$TMP/ww" && chmod 0777 "$TMP/ww"
run logww -b --speed max --replay "$UI/ui.perf" $SYM --log "$TMP/ww/k.log"
is "$rc" 1 "--log in a world-writable directory without the sticky bit: exit 1"
like "$(err_of logww)" "^kerntop: --log $TMP/ww/k.log: world-writable directory without the sticky bit" "--log: the message says why"
ok $([ ! -e "$TMP/ww/k.log" ]; echo $?) "--log: no file created there"
# a directory above the target that is world-writable without the sticky bit (anyone can
# rename the private directory under it and put their own in its place)
mkdir -p "$TMP/ww/priv" && chmod 0700 "$TMP/ww/priv"
for opt in -o --log; do
	run anc -b --speed max --replay "$UI/ui.perf" $SYM $opt "$TMP/ww/priv/f"
	is "$rc" 1 "$opt under a world-writable ancestor without the sticky bit: exit 1"
	like "$(err_of anc)" "world-writable directory without the sticky bit above the target \\($TMP/ww\\)" \
		"$opt: the message names the ancestor"
	ok $([ ! -e "$TMP/ww/priv/f" ]; echo $?) "$opt: nothing written"
done
chmod 1777 "$TMP/ww"
run anc_sticky -b --speed max --replay "$UI/ui.perf" $SYM -o "$TMP/ww/priv/f"
is "$rc" 0 "with the sticky bit on the ancestor (like /tmp) it works"
if [ -w /dev/full ]; then
	run logfull -b --speed max --replay "$UI/ui.perf" $SYM --log /dev/full
	is "$rc" 1 "--log /dev/full: exit 1"
	like "$(err_of logfull)" "^kerntop: --log /dev/full: write failed \\(No space left on device\\)" "--log /dev/full: the message says why"
else
	echo "# SKIP --log /dev/full: /dev/full is not writable here"
fi
mkfifo "$TMP/log.fifo"
run logfifo -b --speed max --replay "$UI/ui.perf" $SYM --log "$TMP/log.fifo"
is "$rc" 1 "--log on a FIFO: refused at once (exit 1), no wait for a reader"
like "$(err_of logfifo)" "not a regular file" "--log on a FIFO: the message says why"
if [ "$(id -u)" = 0 ]; then
	: >"$TMP/other.log" && chown 65534:65534 "$TMP/other.log"
	run logother -b --speed max --replay "$UI/ui.perf" $SYM --log "$TMP/other.log"
	is "$rc" 1 "--log on a file another user created: exit 1"
	like "$(err_of logother)" "belongs to another user \\(uid 65534\\)" "--log: the message names the owner"
	is "$(wc -c <"$TMP/other.log" | tr -d ' ')" 0 "--log: the other user's file is untouched"
else
	echo "# SKIP --log on another user's file: needs root to create one (running as $(id -un))"
fi

# a long path used to push the reason out of the 512-byte message
long=$TMP
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do long="$long/$(printf '%0200d' "$i")"; done
for opt in -o --log; do
	run longp -b --speed max --replay "$UI/ui.perf" $SYM $opt "$long/out"
	is "$rc" 1 "$opt with a 3300-byte path in a missing directory: exit 1"
	like "$(err_of longp)" "No such file or directory" "$opt with a long path: the reason is in the message"
done

# --- FIFOs and pipes that never close -----------------------------------------------------------
# Symbol files that are FIFOs used to block in open() (nobody writes) with SIGINT, SIGTERM and
# SIGHUP already blocked for the signalfd: only SIGKILL ended it. They are refused at once now.
mkfifo "$TMP/sym.fifo"
for opt in --kallsyms --modules --builtin-ranges --vmlinux; do
	if [ "$opt" = --kallsyms ]; then
		LIMIT=10 run fifo_$opt -b --speed max --replay "$UI/ui.perf" --modules "$UI/modules" $opt "$TMP/sym.fifo"
	else
		LIMIT=10 run fifo_$opt -b --speed max --replay "$UI/ui.perf" $SYM $opt "$TMP/sym.fifo"
	fi
	is "$rc" 1 "$opt on a FIFO nobody writes: refused at once (exit 1)"
	like "$(err_of fifo_$opt)" "sym.fifo: not a regular file \(a FIFO, pipe or device\); give a regular file" "$opt on a FIFO: the message says why"
done
# /dev/stdin fed by a pipe whose writer stays (a writer holding a FIFO open, writing nothing)
mkfifo "$TMP/stdin.fifo"
sh -c 'trap "exit 0" TERM; exec 3>"$1"; while :; do sleep 1; done' w "$TMP/stdin.fifo" &
wpid=$!
rc=0
timeout -s KILL 10 "$KERNTOP" -b --speed max --replay "$UI/ui.perf" --modules "$UI/modules" \
	--kallsyms /dev/stdin <"$TMP/stdin.fifo" >/dev/null 2>"$TMP/stdin.err" || rc=$?
kill -TERM $wpid 2>/dev/null
wait $wpid 2>/dev/null
is "$rc" 1 "--kallsyms /dev/stdin from a pipe that stays open: refused (exit 1)"
like "$(cat "$TMP/stdin.err")" "not a regular file" "--kallsyms /dev/stdin: the message says why"
# a NAME.ko under --module-dir that is a FIFO
# (a symbolic link to one: the directory walk takes links, since distributions link .ko files)
mkdir "$TMP/kos" && ln -s "$TMP/sym.fifo" "$TMP/kos/e1000e.ko"
LIMIT=10 run fifo_ko -b --speed max --replay "$UI/ui.perf" $SYM --module-dir "$TMP/kos"
ok $([ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; echo $?) "--module-dir with e1000e.ko a link to a FIFO: no hang (exit $rc)"
like "$(err_of fifo_ko)" "1 ELF files without symbols or unreadable" "--module-dir: the FIFO .ko is counted as unreadable"

# A --replay FIFO or pipe is read like a file (to its end, at most 4 GiB), so a writer that
# never closes keeps kerntop waiting, but interruptibly: each quit signal ends it.
mkfifo "$TMP/replay.fifo"
for sig in INT TERM HUP; do
	# the writer holds the FIFO open and writes nothing (no fixed sleep: it waits on a signal)
	sh -c 'trap "exit 0" TERM; exec 3>"$1"; while :; do sleep 1; done' w "$TMP/replay.fifo" &
	wpid=$!
	# default dispositions: a shell may start background jobs with INT ignored, nohup with HUP
	env --default-signal=INT,HUP,TERM "$KERNTOP" -b --replay "$TMP/replay.fifo" $SYM >/dev/null 2>&1 &
	kpid=$!
	wait_for has_fd_to $kpid replay.fifo
	ok $? "--replay FIFO with a silent writer: kerntop waits on it (SIG$sig test)"
	kill -$sig $kpid
	if wait_for gone $kpid; then ok 0 "SIG$sig ends kerntop while it waits on the FIFO"; else
		ok 1 "SIG$sig ends kerntop while it waits on the FIFO"; kill -KILL $kpid; fi
	wait $kpid 2>/dev/null
	kill -TERM $wpid 2>/dev/null
	wait $wpid 2>/dev/null
done
# the same FIFO whose writer sends perf script text and closes: replayed in full
cat "$UI/ui.perf" >"$TMP/replay.fifo" &
LIMIT=20 run fifo_ok -b --speed max --format json --replay "$TMP/replay.fifo" $SYM
wait
like "$rc $(head -1 "$TMP/fifo_ok.out")" '^0 .*"samples": ?385,' "--replay FIFO whose writer closes: every sample"

# --- a replayed file cut while it is read ---------------------------------------------------------
# It was mapped: reading past the new end raised SIGBUS (exit 135). Now it is read whole first.
cp "$UI/ui.perf" "$TMP/shrink.perf"
"$KERNTOP" -b -d 0.3 -n 4 --format json --replay "$TMP/shrink.perf" $SYM >"$TMP/shrink.out" 2>"$TMP/shrink.err" &
kpid=$!
wait_for grep -q '"report":1,' "$TMP/shrink.out"
: >"$TMP/shrink.perf"
rc=0
wait $kpid || rc=$?
is "$rc" 0 "a replayed file cut to 0 bytes while replayed: exit 0 (no SIGBUS)"
is "$(grep -c '"report":' "$TMP/shrink.out")" 4 "it reports to the end"

# --- a file-size limit (ulimit -f) ------------------------------------------------------------
# SIGXFSZ used to kill kerntop with no message, leaving the hidden temporary -o file behind.
mkdir "$TMP/fsz"
rc=0
(ulimit -f 4 && exec "$KERNTOP" -b --speed max --format json --replay "$UI/ui.perf" $SYM -o "$TMP/fsz/r.json") \
	>/dev/null 2>"$TMP/fsz.err" || rc=$?
is "$rc" 1 "-o past ulimit -f: exit 1 (not killed by SIGXFSZ)"
like "$(cat "$TMP/fsz.err")" "^kerntop: .*r.json: File too large \(the file size limit, ulimit -f\)" "-o past ulimit -f: the message says so"
is "$(ls -A "$TMP/fsz")" "" "-o past ulimit -f: no file and no temporary file left"

# --- loading: many modules, interruptible ------------------------------------------------------
# Each new [module] tag of a kallsyms was a linear search of the modules: 100k distinct tags took
# 30 s here (quadratic), 200k about 2 minutes, with SIGINT blocked. The name index makes it
# linear (about 1 s for 200k). The 60 s limit is a hang guard with a wide margin, not a timing.
python3 - "$TMP/many.kallsyms" "$TMP/many.modules" <<'PY'
import sys
n = 200000
with open(sys.argv[1], "w") as f:
    f.write("ffffffff81000000 T _stext\nffffffff81000800 T default_idle\n"
            "ffffffff81001000 T copy_user_generic\nffffffff81100000 T _etext\n")
    for i in range(n):
        f.write("%x t fn%d\t[m%d]\n" % (0xffffffffd0000000 + i * 0x1000, i, i))
with open(sys.argv[2], "w") as f:
    f.write("e1000e 65536 0 - Live 0xffffffffc0100000\n")
PY
LIMIT=60 run many -b --speed max --format json --replay "$UI/ui.perf" --kallsyms "$TMP/many.kallsyms" --modules "$TMP/many.modules"
is "$rc" 0 "a kallsyms with 200000 distinct [module] tags loads (exit $rc, a hang guard of 60 s)"
like "$(head -1 "$TMP/many.out")" '"samples": ?385,' "and the replay has every sample"
# the same symbols inside a kerntop recording (its kallsyms block)
"$top_builddir/tests/test_replay_dump" --convert "$UI/ui.perf" "$TMP/many.rec" "$TMP/many.kallsyms" >/dev/null 2>&1
LIMIT=60 run manyrec -b --speed max --format json --replay "$TMP/many.rec"
is "$rc" 0 "a recording whose kallsyms has 200000 [module] tags loads (exit $rc)"
like "$(head -1 "$TMP/manyrec.out")" '"samples": ?385,' "and replays every sample"
# SIGINT while it loads (paced: loaded, it would run 8 s more unless the signal is taken)
env --default-signal=INT "$KERNTOP" -b --replay "$TMP/many.rec" >/dev/null 2>&1 &
kpid=$!
is_kerntop() { grep -q kerntop "/proc/$1/cmdline" 2>/dev/null; }
wait_for is_kerntop $kpid
kill -INT $kpid
if wait_for gone $kpid; then ok 0 "SIGINT during the load of a 200000-module recording ends kerntop"; else
	ok 1 "SIGINT during the load of a 200000-module recording ends kerntop"; kill -KILL $kpid; fi
wait $kpid 2>/dev/null

# --- escapes in names -----------------------------------------------------------------------------
# Symbol and module names from a kallsyms file or a recording reached the terminal raw in batch
# text tables and in the --zoom "known modules" message; JSON got invalid UTF-8.
python3 - "$UI/kallsyms" "$TMP/esc.kallsyms" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
b = b.replace(b" copy_user_generic\n", b" copy\x1b]0;owned\x07\x1b[2J_generic\n")
b = b.replace(b" tcp_sendmsg\n", b" tcp\xff\x9b31m_sendmsg\n")
b = b.replace(b"[e1000e]", b"[e1000e\x1b[5m]")
open(sys.argv[2], "wb").write(b)
PY
printf 'e1000e\033[5m 65536 0 - Live 0xffffffffc0100000\nnosym 8192 0 - Live 0xffffffffc0200000\n' >"$TMP/esc.modules"
ESCSYM="--kallsyms $TMP/esc.kallsyms --modules $TMP/esc.modules"
no_ctl() { # no_ctl FILE: no ESC, BEL, CSI (0x9b) byte in FILE
	! LC_ALL=C grep -q "$(printf '[\033\007\233]')" "$1"
}
run esctext -b --speed max --replay "$UI/ui.perf" $ESCSYM -z vmlinux -z "$(printf 'e1000e\033[5m')"
is "$rc" 0 "names with escapes: the text report is written"
check "text report: no escape, BEL or CSI byte" no_ctl "$TMP/esctext.out"
like "$(cat "$TMP/esctext.out")" 'copy\?\]0;owned\?\?\[2J_generic' "text report: the name is shown with ? for control bytes"
like "$(cat "$TMP/esctext.out")" 'tcp\?\?31m_sendmsg' "text report: invalid UTF-8 bytes shown as ?"
like "$(cat "$TMP/esctext.out")" 'Zoom: e1000e\?\[5m' "text report: the zoomed module name too"
run esczoom -b --speed max --replay "$UI/ui.perf" $ESCSYM -z qqqqqqqqqqqq
is "$rc" 1 "an unknown --zoom: exit 1"
check "the known-modules message has no escape byte" no_ctl "$TMP/esczoom.err"
like "$(err_of esczoom)" 'known modules include: .*e1000e\?\[5m' "the known-modules message shows the module with ?"
run escjson -b --speed max --format json --replay "$UI/ui.perf" $ESCSYM
is "$rc" 0 "names with escapes: the JSON report is written"
check "JSON is valid UTF-8 and parses" python3 -c 'import json,sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$TMP/escjson.out"
check "JSON escapes the control bytes and keeps the invalid bytes as \\u00ff, \\u009b" python3 -c '
import json, sys
names = {f["name"] for f in json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))["functions"]}
assert "copy\x1b]0;owned\x07\x1b[2J_generic" in names, names
assert "tcp\xff\x9b31m_sendmsg" in names, names' "$TMP/escjson.out"

# --- under sudo: the files the user names are read with the user's rights ------------------------
# The user kerntop drops to (nobody) must be able to read the test data: a source tree in a
# 0700 directory (mktemp -d) hides it, and every check below would fail for that reason alone.
data_hidden=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
	! setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$UI/kallsyms"; then
	data_hidden=1
fi
if [ -n "$data_hidden" ]; then
	echo "# SKIP under sudo: user 65534 cannot read $UI" \
		"(a parent directory is not searchable by others; chmod o+x it)"
elif [ "$(id -u)" = 0 ]; then
	# a root-only file: a replay used to read it as root before dropping (and told whether a
	# root path exists); now a replay drops before opening anything
	cp "$UI/ui.perf" "$TMP/rootonly.perf" && chmod 0600 "$TMP/rootonly.perf"
	chmod 0711 "$TMP"
	run_sudo 65534 65534 sudo_rep -b --speed max --replay "$TMP/rootonly.perf" $SYM
	is "$rc" 1 "under sudo, --replay of a root-only file: refused (exit 1)"
	like "$(err_of sudo_rep)" "rootonly.perf: cannot open replay file \(Permission denied\)" "under sudo, --replay: the message says why"
	cp "$UI/kallsyms" "$TMP/rootonly.kallsyms" && chmod 0600 "$TMP/rootonly.kallsyms"
	chmod 0644 "$TMP/rootonly.perf"
	run_sudo 65534 65534 sudo_ks -b --speed max --replay "$TMP/rootonly.perf" --modules "$UI/modules" --kallsyms "$TMP/rootonly.kallsyms"
	is "$rc" 1 "under sudo, a root-only --kallsyms: refused (exit 1)"
	like "$(err_of sudo_ks)" "rootonly.kallsyms: cannot open \(Permission denied\)" "under sudo, --kallsyms: the message says why"
	run_sudo 65534 65534 sudo_ok -b --speed max --format json --replay "$TMP/rootonly.perf" $SYM
	like "$rc $(head -1 "$TMP/sudo_ok.out")" '^0 .*"samples": ?385,' "under sudo, a replay of files the user may read works as before"
	# supplementary groups are kept: a directory shared with one of the user's groups is
	# writable for them (it used to be refused: the groups were cleared)
	member=$(getent group | awk -F: '$4 != "" && $3 != 0 { split($4, m, ","); print m[1] ":" $3; exit }')
	if [ -n "$member" ] && id -u "${member%%:*}" >/dev/null 2>&1; then
		user=${member%%:*} grp=${member#*:}
		mkdir "$TMP/shared" && chown root:"$grp" "$TMP/shared" && chmod 0770 "$TMP/shared"
		run_sudo "$(id -u "$user")" "$(id -g "$user")" sudo_grp -b --speed max --replay "$TMP/rootonly.perf" $SYM -o "$TMP/shared/r.txt"
		is "$rc" 0 "under sudo as $user, -o into a root:$grp 0770 directory ($user is in group $grp): written"
		is "$(stat -c %U "$TMP/shared/r.txt" 2>/dev/null)" "$user" "the report belongs to $user"
	else
		echo "# SKIP supplementary groups: no user with a supplementary group on this machine"
	fi
	chmod 0700 "$TMP"
else
	echo "# SKIP under sudo: needs root (running as $(id -un))"
fi

# --- kallsyms addresses hidden: the notice names the real cause ------------------------------
# A replay as a user who is not root advised kptr_restrict=0 when kptr_restrict was already 0
# and perf_event_paranoid (above 1) hid the addresses. Now the sysroot's two sysctls are read
# for its own /proc/kallsyms and the one that hides them is named, with its fix.
SR="$TMP/kptr"
mkdir -p "$SR/proc/sys/kernel"
sed 's/^[0-9a-f]\{16\}/0000000000000000/' "$UI/kallsyms" >"$SR/proc/kallsyms"
cp "$UI/modules" "$SR/proc/modules"
cp "$UI/ui.perf" "$SR/ui.perf"
chmod -R a+rX "$SR"
asuser= # as a user who is not root: ourselves, or nobody when we are root
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null 2>&1 && asuser="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 0711 "$TMP"
fi
kptr() { # kptr KPTR_RESTRICT PERF_EVENT_PARANOID: the notice line of a replay as a user
	echo "$1" >"$SR/proc/sys/kernel/kptr_restrict"
	echo "$2" >"$SR/proc/sys/kernel/perf_event_paranoid"
	$asuser "$KERNTOP" -b --speed max --replay "$SR/ui.perf" --sysroot "$SR" 2>&1 >/dev/null </dev/null |
		grep 'every address reads as 0'
}
if [ "$(id -u)" != 0 ] || [ -n "$asuser" ]; then
	n=$(kptr 0 2)
	like "$n" "\(kernel\.perf_event_paranoid is 2: above 1 the kernel hides them from users who are not root; kptr_restrict is already 0\): run as root or sysctl kernel\.perf_event_paranoid=1" \
		"kptr_restrict 0, perf_event_paranoid 2, not root: the notice names perf_event_paranoid and its fix"
	ok $(! printf '%s' "$n" | grep -q 'kptr_restrict=0'; echo $?) "and does not advise kptr_restrict=0"
	n=$(kptr 1 1)
	like "$n" "\(kernel\.kptr_restrict is 1: only root sees them\): run as root, or sysctl kernel\.kptr_restrict=0; kernel hits" \
		"kptr_restrict 1, perf_event_paranoid 1: the notice names kptr_restrict alone"
	n=$(kptr 1 3)
	like "$n" "kptr_restrict is 1: only root sees them\): run as root, or sysctl kernel\.kptr_restrict=0 and kernel\.perf_event_paranoid=1;" \
		"kptr_restrict 1, perf_event_paranoid 3: both settings to change, or root"
	n=$(kptr 2 2)
	like "$n" "kptr_restrict is 2, which hides them from every user, root too\): sysctl kernel\.kptr_restrict=0 and kernel\.perf_event_paranoid=1, or run as root with kptr_restrict=1;" \
		"kptr_restrict 2: root alone does not help, the notice says so"
	n=$(kptr 0 1)
	like "$n" "though kernel\.kptr_restrict is 0 and perf_event_paranoid 1 \(lockdown or a security module" \
		"neither setting hides them: the notice does not blame either"
	rm "$SR/proc/sys/kernel/perf_event_paranoid"
	n=$($asuser "$KERNTOP" -b --speed max --replay "$SR/ui.perf" --sysroot "$SR" 2>&1 >/dev/null </dev/null | grep 'every address')
	like "$n" "\(kernel\.kptr_restrict, or kernel\.perf_event_paranoid above 1 for a user who is not root\)" \
		"a sysctl unreadable: both possible causes are named"
else
	echo "# SKIP kptr notice as a user who is not root: running as root without setpriv"
fi
n=$($asuser "$KERNTOP" -b --speed max --replay "$SR/ui.perf" --kallsyms "$SR/proc/kallsyms" --modules "$SR/proc/modules" 2>&1 >/dev/null </dev/null | grep 'every address')
like "$n" "kallsyms: every address reads as 0 \(kernel\.kptr_restrict" "a --kallsyms FILE (another moment, maybe another machine): the generic notice"
if [ "$(id -u)" = 0 ]; then
	echo 2 >"$SR/proc/sys/kernel/kptr_restrict"
	echo 2 >"$SR/proc/sys/kernel/perf_event_paranoid"
	n=$("$KERNTOP" -b --speed max --replay "$SR/ui.perf" --sysroot "$SR" 2>&1 >/dev/null </dev/null | grep 'every address')
	like "$n" "kptr_restrict is 2, which hides them from every user, root too\): sysctl kernel\.kptr_restrict=1;" \
		"as root under kptr_restrict 2: sysctl kernel.kptr_restrict=1"
	chmod 0700 "$TMP"
fi

# --- the viewer on a terminal without cursor addressing -------------------------------------
if command -v script >/dev/null 2>&1; then
	rc=0
	TERM=dumb timeout 20 script -qec "$KERNTOP --replay $UI/ui.perf $SYM" /dev/null \
		</dev/null >"$TMP/dumb.out" 2>&1 || rc=$?
	is "$rc" 1 "TERM=dumb: the viewer refuses to start (exit 1)"
	like "$(cat "$TMP/dumb.out")" "terminal type 'dumb'.*use -b" "TERM=dumb: the message names the terminal and -b"
else
	echo "# SKIP TERM=dumb: script(1) is not installed"
fi

done_testing
