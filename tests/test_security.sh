#!/bin/sh
# Files kerntop writes hold kernel addresses: the batch -o report, --record recordings and the
# viewer's snapshots are created exclusively (O_EXCL|O_NOFOLLOW), mode 0600, never over an
# existing file or through a symlink (which is left untouched, and so is its target), and never
# in a world-writable directory without the sticky bit. Under sudo (SUDO_UID/SUDO_GID) kerntop
# drops to the invoking user once perf and the kernel files are open; --keep-privileges stays
# root. Replays of the fixture where no sampling is needed, live runs for the privilege drop.
. "${top_srcdir:-..}/tests/lib.sh"
UI="$DATA/ui"
REPLAY="--replay $UI/ui.perf --speed max --kallsyms $UI/kallsyms --modules $UI/modules"
umask 022

sig() { stat -c '%i %s %Y %a %U' "$1" 2>/dev/null; cat "$1" 2>/dev/null | md5sum; }
refuse() { # refuse DESCRIPTION REGEX COMMAND...: exit 1 with one line matching REGEX
	desc=$1 re=$2
	shift 2
	rc=0
	"$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	is "$rc" 1 "$desc: refused with exit 1"
	like "$(cat "$TMP/err")" "^kerntop: .*$re" "$desc: the message says why"
}

mkdir "$TMP/d"
# --- the -o report ------------------------------------------------------------------------
"$KERNTOP" -b $REPLAY -o "$TMP/d/new.txt" 2>"$TMP/err"
is "$?" 0 "-o into a fresh path works"
is "$(stat -c %a "$TMP/d/new.txt")" 600 "-o file is mode 0600 (umask 022)"

echo "precious" >"$TMP/d/exists"
before=$(sig "$TMP/d/exists")
refuse "-o onto an existing file" "already exists" "$KERNTOP" -b $REPLAY -o "$TMP/d/exists"
is "$(sig "$TMP/d/exists")" "$before" "-o onto an existing file: the file is untouched"

echo "target" >"$TMP/target"
ln -s "$TMP/target" "$TMP/d/link"
before=$(sig "$TMP/target")
refuse "-o onto a symlink" "exists|symlink|link" "$KERNTOP" -b $REPLAY -o "$TMP/d/link"
is "$(sig "$TMP/target")" "$before" "-o onto a symlink: the target is untouched"
is "$(readlink "$TMP/d/link")" "$TMP/target" "-o onto a symlink: the link is untouched"

ln -s "$TMP/victim" "$TMP/d/dangling"
refuse "-o onto a dangling symlink" "exists|symlink|link" "$KERNTOP" -b $REPLAY -o "$TMP/d/dangling"
ok $([ ! -e "$TMP/victim" ]; echo $?) "-o onto a dangling symlink: its target is not created"
is "$(ls -A "$TMP/d" | grep -c '^\.kerntop-')" 0 "-o refusals leave no temp file"

mkdir "$TMP/ww" "$TMP/sticky"
chmod 0777 "$TMP/ww"
chmod 1777 "$TMP/sticky"
refuse "-o into a world-writable directory without the sticky bit" "world-writable" \
	"$KERNTOP" -b $REPLAY -o "$TMP/ww/r.txt"
is "$(ls -A "$TMP/ww" | wc -l | tr -d ' ')" 0 "world-writable directory: nothing written there"
"$KERNTOP" -b $REPLAY -o "$TMP/sticky/r.txt" 2>"$TMP/err"
is "$?" 0 "-o into a world-writable directory with the sticky bit (like /tmp) works"

# --- --record -----------------------------------------------------------------------------
LIVE_OK=1
"$KERNTOP" -b -n 1 -d 0.1 >/dev/null 2>"$TMP/probe.err" || LIVE_OK=0
if [ $LIVE_OK = 1 ]; then
	"$KERNTOP" -b -n 1 -d 0.1 --record "$TMP/d/rec" >/dev/null 2>"$TMP/err"
	is "$?" 0 "--record into a fresh path works"
	is "$(stat -c %a "$TMP/d/rec")" 600 "--record file is mode 0600"
	before=$(sig "$TMP/d/exists")
	refuse "--record onto an existing file" "exists" "$KERNTOP" -b -n 1 -d 0.1 --record "$TMP/d/exists"
	is "$(sig "$TMP/d/exists")" "$before" "--record onto an existing file: the file is untouched"
	before=$(sig "$TMP/target")
	refuse "--record onto a symlink" "exists|symlink|link|Too many levels" "$KERNTOP" -b -n 1 -d 0.1 --record "$TMP/d/link"
	is "$(sig "$TMP/target")" "$before" "--record onto a symlink: the target is untouched"
	refuse "--record onto a dangling symlink" "exists|symlink|link|Too many levels" "$KERNTOP" -b -n 1 -d 0.1 --record "$TMP/d/dangling"
	ok $([ ! -e "$TMP/victim" ]; echo $?) "--record onto a dangling symlink: its target is not created"
	refuse "--record into a world-writable directory without the sticky bit" "world-writable" \
		"$KERNTOP" -b -n 1 -d 0.1 --record "$TMP/ww/rec"
	is "$(ls -A "$TMP/ww" | wc -l | tr -d ' ')" 0 "world-writable directory: no recording written there"
else
	echo "ok $((T_N + 1)) - --record checks # SKIP live sampling refused: $(head -1 "$TMP/probe.err")"; T_N=$((T_N + 1))
fi

# --- viewer snapshots ---------------------------------------------------------------------
if command -v tmux >/dev/null 2>&1; then
	. "$top_srcdir/tests/ui_lib.sh"
	mkdir -p "$TMP/snap"
	ui_start 100 30 -- $REPLAY --snapshot-dir "$TMP/snap"
	see "vmlinux" "viewer up on the fixture" 10
	keys w
	see "snapshot written to " "w: the viewer says the snapshot is written" 10
	snap=$(ls "$TMP/snap" | head -1)
	ok $([ -n "$snap" ]; echo $?) "w writes a snapshot ($snap)"
	[ -n "$snap" ] && is "$(stat -c %a "$TMP/snap/$snap")" 600 "snapshot is mode 0600"
	keys q
	see "^EXIT=0" "viewer quits" 5
	ui_start 100 30 -- $REPLAY --snapshot-dir "$TMP/ww"
	see "vmlinux" "viewer up with a world-writable snapshot directory" 10
	keys w
	see "world-writable" "w into a world-writable directory: refused on the status line" 5
	is "$(ls -A "$TMP/ww" | wc -l | tr -d ' ')" 0 "no snapshot written into the world-writable directory"
	keys q
else
	echo "ok $((T_N + 1)) - viewer snapshots # SKIP tmux is not installed"; T_N=$((T_N + 1))
fi

# --- privilege drop under sudo ------------------------------------------------------------
if [ "$(id -u)" -ne 0 ] || [ $LIVE_OK = 0 ]; then
	echo "ok $((T_N + 1)) - privilege drop # SKIP needs root and live sampling"; T_N=$((T_N + 1))
	done_testing
fi
chmod 0711 "$TMP"
mkdir "$TMP/user"
chown 65534:65534 "$TMP/user"
chmod 0700 "$TMP/user"
# uid_of PID: the Uid: and Gid: lines and the supplementary groups of a running process.
ids_of() { awk '/^(Uid|Gid|Groups):/ { $1 = $1; printf "%s;", $0 }' "/proc/$1/status"; }
# wait_setup DIR PID: until the -o temp file appears in DIR (opened once setup and the drop
# are done; a sanitizer build takes longer to get there), at most 10 s.
wait_setup() {
	n=200
	while [ $n -gt 0 ] && kill -0 "$2" 2>/dev/null && ! ls -A "$1" | grep -q '^\.kerntop-'; do
		sleep 0.05
		n=$((n - 1))
	done
}
SUDO_UID=65534 SUDO_GID=65534 SUDO_USER=nobody "$KERNTOP" -b -n 4 -d 0.3 -o "$TMP/user/out.json" --format json 2>"$TMP/err" &
kp=$!
wait_setup "$TMP/user" $kp
ids=$(ids_of $kp)
wait $kp
is "$?" 0 "under sudo: kerntop runs to the end"
# Every report after the first comes after the drop: the perf rings opened as root must
# still deliver samples to the user's process.
check "under sudo: 4 reports, samples in each after the drop" python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) == 4, len(r)
assert all(x["samples"] > 0 for x in r[1:]), [x["samples"] for x in r]
' "$TMP/user/out.json"
like "$ids" "^Uid: 65534 65534 65534 65534;Gid: 65534 65534 65534 65534;Groups: 65534;" "under sudo: runs as SUDO_UID/SUDO_GID with the user's own groups (nobody: 65534) after opening perf ($ids)"
is "$(stat -c '%u:%g %a' "$TMP/user/out.json" 2>/dev/null)" "65534:65534 600" "under sudo: the -o file belongs to the user, mode 0600"
# the notices allowed: the IRQ-off skew of a cpu-clock run, which depends on what the
# machine runs meanwhile (docs/contexts.md), and -e auto's on a machine without cycles
like "$(grep -vE '^kerntop: (-e auto: no cycles event here|[0-9]+% of kernel hits are in IRQ-enabling helpers)' "$TMP/err")" "^$" "under sudo: nothing on stderr (but the one-line notices of -e auto and of the IRQ-off skew)"
refuse "under sudo, -o into a root-only directory" "not writable|Permission denied" \
	env SUDO_UID=65534 SUDO_GID=65534 "$KERNTOP" -b -n 1 -d 0.1 -o "$TMP/d/as-nobody.json"

SUDO_UID=65534 SUDO_GID=65534 "$KERNTOP" -b -n 1 -d 0.2 --record "$TMP/user/rec.ktr" >/dev/null 2>"$TMP/err"
is "$?" 0 "under sudo with --record: kerntop runs"
is "$(stat -c '%u:%g %a' "$TMP/user/rec.ktr" 2>/dev/null)" "65534:65534 600" "under sudo: the recording belongs to the user, mode 0600"
"$KERNTOP" -b --speed max --format json --replay "$TMP/user/rec.ktr" >"$TMP/user-rec.json" 2>"$TMP/err"
check "under sudo: the recording replays with samples and root's kallsyms (named functions)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["samples"] > 0 and d["skipped"] == 0, d["samples"]
assert any(f["module"] == "vmlinux" and not f["name"].startswith("vmlinux+") for f in d["functions"]), d["functions"][:3]
' "$TMP/user-rec.json"
# The recording is created as the user: a directory only root may write is refused exactly
# like -o, and nothing is left there (once, the file was created as root and chowned).
mkdir "$TMP/rootonly"
chmod 0755 "$TMP/rootonly"
refuse "under sudo, --record into a root-owned 0755 directory" "rootonly: not writable \(Permission denied\)" \
	env SUDO_UID=65534 SUDO_GID=65534 "$KERNTOP" -b -n 1 -d 0.1 --record "$TMP/rootonly/planted"
is "$(ls -A "$TMP/rootonly" | wc -l | tr -d ' ')" 0 "under sudo, root-only directory: no file planted there"
# A directory writable only through root's group is refused too: the user gets no groups.
mkdir "$TMP/rootgroup"
chmod 0770 "$TMP/rootgroup"
refuse "under sudo, --record into a root-group directory" "not writable|Permission denied" \
	env SUDO_UID=65534 SUDO_GID=65534 "$KERNTOP" -b -n 1 -d 0.1 --record "$TMP/rootgroup/planted"
is "$(ls -A "$TMP/rootgroup" | wc -l | tr -d ' ')" 0 "under sudo, root-group directory: no file planted there"

SUDO_UID=65534 SUDO_GID=65534 "$KERNTOP" -b -n 4 -d 0.3 --keep-privileges -o "$TMP/d/kept.json" 2>"$TMP/err" &
kp=$!
wait_setup "$TMP/d" $kp
ids=$(ids_of $kp)
wait $kp
is "$?" 0 "--keep-privileges under sudo: kerntop runs"
like "$ids" "^Uid: 0 0 0 0;Gid: 0 0 0 0;" "--keep-privileges: stays root ($ids)"
is "$(stat -c '%u:%g' "$TMP/d/kept.json" 2>/dev/null)" "0:0" "--keep-privileges: the -o file belongs to root"

SUDO_UID=0 SUDO_GID=0 "$KERNTOP" -b -n 1 -d 0.1 >/dev/null 2>"$TMP/err"
is "$?" 0 "SUDO_UID=0 (sudo from root): runs, nothing to drop"
done_testing
