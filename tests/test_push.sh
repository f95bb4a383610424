# --push against a receiver this test starts on 127.0.0.1 (tests/tools/ingest_server.py): the
# ingest URL's parameters and labels, the headers from --push-header-file, every body a valid
# pprof (go tool pprof), one profile per interval whose counts are the fixture's own, the sum
# over all pushed profiles equal to the samples replayed; then a server that answers 500 and
# one that never answers: no sample lost, failures and drops counted, the queue and memory
# bounded, and kerntop exits at once on SIGINT (batch) and on q (viewer).
. "${top_srcdir:-.}/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
command -v go >/dev/null 2>&1 || skip_all "go is not installed (apt-get install golang-go)"
CHECK="$top_srcdir/tests/tools/pprof_check.py"
A="$DATA/agg"
mkdir -p "$TMP/home" "$TMP/nobin"
export HOME="$TMP/home" PPROF_TMPDIR="$TMP/home" PPROF_BINARY_PATH="$TMP/nobin" \
	GOCACHE="$TMP/home/gocache" GOPROXY=off http_proxy= https_proxy= no_proxy='*'
SERVERS=

# A recording of SECS seconds at RATE samples/s on 2 CPUs (call chains, two commands), and the
# number of samples in each second after the first sample: $TMP/NAME.perf, $TMP/NAME.counts.
fixture() { # NAME SECS RATE
	python3 - "$TMP/$1" "$2" "$3" <<'EOF'
import sys
path, secs, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t0, counts = 100.0, [0] * secs
with open(path + ".perf", "w") as f:
    for i in range(secs * rate):
        t = t0 + i / rate
        cpu = i % 2
        if i % 3 == 0:
            f.write("iperf3 200/%d [%03d] %.6f: 1003009 cpu-clock: \n" % (200 + cpu, cpu, t))
            f.write("\tffffffffc0001410 tcp_write_xmit+0x0 ([tcp])\n")
            f.write("\tffffffffc0001040 tcp_sendmsg+0x0 ([tcp])\n")
            f.write("\tffffffff81000230 do_syscall_64+0x0 ([kernel.kallsyms])\n\n")
        else:
            f.write("swapper 0/0 [%03d] %.6f: 1003009 cpu-clock: \n" % (cpu, t))
            f.write("\tffffffff8100070b default_idle+0x0 ([kernel.kallsyms])\n\n")
        counts[int(i / rate)] += 1
with open(path + ".counts", "w") as f:
    f.write(" ".join(map(str, counts)) + "\n")
EOF
}

# start_server MODE: a receiver in $TMP/srv-MODE; sets URL once it listens (bounded wait).
start_server() {
	d="$TMP/srv-$1"
	mkdir -p "$d"
	python3 "$top_srcdir/tests/tools/ingest_server.py" "$d" "$1" &
	SERVERS="$SERVERS $!"
	n=100
	while [ ! -s "$d/port" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
	URL="http://127.0.0.1:$(cat "$d/port" 2>/dev/null)"
	[ -s "$d/port" ]
	ok $? "the $1 receiver listens on 127.0.0.1"
}
trap 'for p in $SERVERS; do kill $p 2>/dev/null; done; rm -rf "$TMP"' EXIT

jget() { # jget FILE EXPR: a field of the last JSON report
	python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]; print(eval(sys.argv[2]))' "$1" "$2"
}
logval() { # logval FILE KEY: KEY=N of the last push: line, 0 before there is one
	v=$(grep -s ' push: ' "$1" | tail -1 | sed -n "s/.* $2=\([0-9]*\).*/\1/p")
	echo "${v:-0}"
}

fixture six 6 40
total=$(python3 -c 'import sys; print(sum(map(int, open(sys.argv[1]).read().split())))' "$TMP/six.counts")
cat >"$TMP/headers" <<'EOF'
# tenant and token for a multi-tenant Pyroscope
X-Scope-OrgID: tenant-a
Authorization: Bearer s3cret-token
EOF
chmod 600 "$TMP/headers"

# 1. a server that takes everything
start_server ok
"$KERNTOP" -b --replay "$TMP/six.perf" --speed max --kallsyms "$A/kallsyms" --modules "$A/modules" \
	--push "$URL" --push-interval 1 --push-name kerntop.test --push-label env=ci \
	--push-header-file "$TMP/headers" --format json -o "$TMP/ok.json" --log "$TMP/ok.log" 2>"$TMP/ok.err"
is $? 0 "a replay with --push exits 0"
S="$TMP/srv-ok"
nreq=$(ls "$S" | grep -c '\.query$')
is "$nreq" 6 "six seconds of recording, --push-interval 1: six requests"
is "$(jget "$TMP/ok.json" 'r["push"]')" "{'sent': 6, 'failed': 0, 'dropped': 0, 'last_error': None}" \
	"the JSON report counts push: {sent, failed, dropped, last_error}"
is "$(jget "$TMP/ok.json" 'r["samples"]')" "$total" "the report has every sample ($total)"
host=$(hostname)
bad=0 sum=0 prev_from=0 i=1
counts=$(cat "$TMP/six.counts")
for want in $counts; do
	q=$(cat "$S/req-$i.query")
	dec=$(python3 -c 'import sys,urllib.parse as u; p=u.urlsplit(sys.argv[1]); q=u.parse_qs(p.query); print(p.path, q["name"][0], q["format"][0], q["from"][0], q["until"][0])' "$q")
	set -- $dec
	[ "$1" = /ingest ] && [ "$2" = "kerntop.test{env=ci,host=$host}" ] && [ "$3" = pprof ] || {
		bad=1
		echo "#   request $i: $dec"
	}
	[ "$5" -gt "$4" ] && [ "$4" -ge "$prev_from" ] || { bad=1; echo "#   request $i: from $4 until $5"; }
	prev_from=$4
	go tool pprof -raw "$S/req-$i.body" >"$TMP/req-$i.raw" 2>"$TMP/req-$i.err" && [ ! -s "$TMP/req-$i.err" ] ||
		{ bad=1; echo "#   request $i: go tool pprof: $(head -2 "$TMP/req-$i.err")"; }
	got=$(python3 "$CHECK" total "$TMP/req-$i.raw")
	[ "$got" = "$want" ] || { bad=1; echo "#   request $i: $got samples, want $want"; }
	sum=$((sum + ${got:-0}))
	i=$((i + 1))
done
is "$bad" 0 "each request: POST /ingest?name=kerntop.test{env=ci,host=$host}&from<until&format=pprof, a valid pprof with that second's samples ($counts)"
is "$sum" "$total" "the pushed profiles sum to the samples replayed"
grep -qx 'X-Scope-OrgID: tenant-a' "$S/req-1.headers" && grep -qx 'Authorization: Bearer s3cret-token' "$S/req-1.headers"
ok $? "the headers from --push-header-file reach the server"
grep -qx 'Content-Type: application/octet-stream' "$S/req-1.headers"
ok $? "the body goes as application/octet-stream"
like "$(python3 "$CHECK" labels "$TMP/req-1.raw")" "^comm,context,cpu$" "pushed profiles carry cpu, comm and context (not pid/tid) by default"
like "$(grep ' push: ' "$TMP/ok.log" | tail -1)" "samples=$total profiles=6 sent=6 failed=0 dropped=0 queued=0" \
	"the batch --log counts the push"
[ ! -s "$TMP/ok.err" ]
ok $? "nothing on stderr"

# --pprof-labels applies to pushed profiles too
"$KERNTOP" -b --replay "$TMP/six.perf" --speed max --kallsyms "$A/kallsyms" --modules "$A/modules" \
	--push "$URL" --push-interval 10 --pprof-labels cpu,comm,pid,tid -o "$TMP/all.txt"
is "$(ls "$S" | grep -c '\.query$')" 7 "one more request"
go tool pprof -raw "$S/req-7.body" >"$TMP/all.raw" 2>/dev/null
is "$(python3 "$CHECK" labels "$TMP/all.raw")" "comm,cpu,pid,tid" "--pprof-labels cpu,comm,pid,tid: all four pushed"
is "$(python3 "$CHECK" total "$TMP/all.raw")" "$total" "one interval longer than the replay: one profile of every sample"

# header file errors are caught before sampling
printf 'not a header\n' >"$TMP/badhdr"
"$KERNTOP" -b --replay "$TMP/six.perf" --speed max --kallsyms "$A/kallsyms" --modules "$A/modules" \
	--push "$URL" --push-header-file "$TMP/badhdr" -o "$TMP/x.txt" 2>"$TMP/err"
is $? 1 "a malformed --push-header-file is an error"
like "$(cat "$TMP/err")" "push-header-file .*badhdr: line 1 is not a 'Name: value' header" "naming the line"
"$KERNTOP" -b --replay "$TMP/six.perf" --speed max --push "$URL" --push-header-file "$TMP/nope" \
	-o "$TMP/y.txt" 2>"$TMP/err"
is $? 1 "a missing --push-header-file is an error"
like "$(cat "$TMP/err")" "push-header-file: .*nope" "naming the file"

# 2. a server that answers 500: retries, then drops; the report loses nothing
start_server 500
"$KERNTOP" -b --replay "$TMP/six.perf" --speed max --kallsyms "$A/kallsyms" --modules "$A/modules" \
	--push "$URL" --push-interval 1 --format json -o "$TMP/500.json" --log "$TMP/500.log"
is $? 0 "a refusing server does not fail the run"
is "$(jget "$TMP/500.json" 'r["samples"]')" "$total" "no sample lost"
is "$(jget "$TMP/500.json" 'r["push"]["sent"]')" 0 "nothing counted sent"
f=$(jget "$TMP/500.json" 'r["push"]["failed"]')
[ "${f:-0}" -ge 1 ]
ok $? "failed attempts counted ($f)"
is "$(jget "$TMP/500.json" 'r["push"]["dropped"]')" 6 "all six profiles counted dropped"
like "$(jget "$TMP/500.json" 'r["push"]["last_error"]')" "HTTP 500" "last_error says HTTP 500"
n500=$(ls "$TMP/srv-500" | grep -c '\.query$')
is "$n500" "$f" "every failed attempt reached the server"
# paced: a profile is retried with backoff while newer ones wait behind it
n500=$(ls "$TMP/srv-500" | grep -c '\.query$')
"$KERNTOP" -b --replay "$TMP/six.perf" --speed 2 --kallsyms "$A/kallsyms" --modules "$A/modules" \
	--push "$URL" --push-interval 1 --format json -o "$TMP/500b.json" --log "$TMP/500b.log"
f=$(jget "$TMP/500b.json" 'r["push"]["failed"]')
[ "${f:-0}" -gt 6 ]
ok $? "retries: more failed attempts ($f) than profiles (6)"
is "$(($(ls "$TMP/srv-500" | grep -c '\.query$') - n500))" "$f" "each one a request the server saw"
is "$(jget "$TMP/500b.json" 'r["push"]["dropped"]')" 6 "and at the end every profile counted dropped"
is "$(jget "$TMP/500b.json" 'r["samples"]')" "$total" "no sample lost"

# 3. a server that never answers, a paced replay, SIGINT: bounded queue, flat memory, prompt exit
fixture long 40 50
start_server hang
"$KERNTOP" -b --replay "$TMP/long.perf" --speed 4 --kallsyms "$A/kallsyms" --modules "$A/modules" \
	--push "$URL" --push-interval 0.1 -d 0.2 --cumulative --format json -o "$TMP/hang.json" \
	--log "$TMP/hang.log" &
kpid=$!
n=300
while [ $n -gt 0 ] && [ "$(logval "$TMP/hang.log" dropped)" -lt 40 ]; do sleep 0.1; n=$((n - 1)); done
[ "$(logval "$TMP/hang.log" dropped)" -ge 40 ]
ok $? "with the server hung, profiles are dropped once the queue is full"
kill -INT $kpid
n=100
while kill -0 $kpid 2>/dev/null && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
kill -0 $kpid 2>/dev/null
ok $((1 - $?)) "kerntop exits promptly on SIGINT with a transfer hanging"
kill -9 $kpid 2>/dev/null
wait $kpid
is $? 0 "exit status 0"
fed=$(logval "$TMP/hang.log" samples)
is "$(jget "$TMP/hang.json" 'r["samples"]')" "$fed" "the final report has every sample read ($fed): none lost"
is "$(jget "$TMP/hang.json" 'r["lost"]')" 0 "and the source lost none"
is "$(jget "$TMP/hang.json" 'r["push"]["sent"]')" 0 "nothing sent to a hung server"
prof=$(logval "$TMP/hang.log" profiles)
drop=$(jget "$TMP/hang.json" 'r["push"]["dropped"]')
is "$drop" "$prof" "every profile cut is counted dropped ($prof)"
maxq=$(sed -n 's/.* queued=\([0-9]*\).*/\1/p' "$TMP/hang.log" | sort -n | tail -1)
[ "${maxq:-99}" -le 8 ]
ok $? "the queue never holds more than 8 profiles (at most $maxq)"
maxb=$(sed -n 's/.* queued_bytes=\([0-9]*\).*/\1/p' "$TMP/hang.log" | sort -n | tail -1)
[ "${maxb:-999999}" -le 65536 ]
ok $? "the queue's memory stays bounded (at most $maxb bytes)"
rss=$(sed -n 's/.*: tick: .* rss_kb=\([0-9]*\).*/\1/p' "$TMP/hang.log")
first=$(printf '%s\n' "$rss" | sed -n 5p) last=$(printf '%s\n' "$rss" | tail -1)
if nm -D "$KERNTOP" 2>/dev/null | grep -q __asan_init || nm "$KERNTOP" 2>/dev/null | grep -q __asan_init; then
	# ASan keeps freed blocks in its quarantine: RSS grows with every freed profile
	echo "# ASan build: rss ${first:-?} -> ${last:-?} KiB not checked (quarantine)"
else
	[ -n "$first" ] && [ $((last - first)) -lt 1024 ]
	ok $? "memory stays flat while dropping (rss ${first:-?} -> ${last:-?} KiB)"
fi

# 4. the viewer: push counters on the header, q quits at once with the server hung
. "$top_srcdir/tests/ui_lib.sh"
trap 'tm kill-server >/dev/null 2>&1; for p in $SERVERS; do kill $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
ui_start 140 30 -- --replay "$TMP/long.perf" --speed 4 --kallsyms "$A/kallsyms" --modules "$A/modules" \
	--push "$URL" --push-interval 0.1 -d 0.2
see 'push [0-9]+ sent [0-9]+ failed [1-9][0-9]* dropped' "the header counts pushes, failures and drops" 30
keys q
see '^EXIT=0' "q quits promptly with a transfer hanging" 8
done_testing
