# Contexts live: two network namespaces joined by a veth pair, a TCP file copy with
# sendfile from one to the other (tests/tools/netns_copy.py), and `kerntop -g -b --format
# json` sampling meanwhile. The copy's receive side runs as softirq NET_RX, so NET_RX must
# hold at least 5 % of the kernel hits and be among the four busiest non-idle contexts
# (measured on this VM with a script over `perf script` of the same copy: sendfile 20 %,
# recvfrom 19 %, NET_RX 11 %). Both ends and kerntop stay on one CPU (below). Run it under
# flock /work/live.lock (docs/testing.md).
. "${top_srcdir:-.}/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "network namespaces need root"
command -v ip >/dev/null 2>&1 || skip_all "iproute2 is not installed (apt-get install iproute2)"
NA=ktctxa$$
NB=ktctxb$$
cleanup() {
	ip netns del "$NA" >/dev/null 2>&1
	ip netns del "$NB" >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
if ! ip netns add "$NA" 2>"$TMP/ns.err"; then
	skip_all "cannot create a network namespace: $(head -1 "$TMP/ns.err")"
fi
ip netns add "$NB"
ip link add kta$$ netns "$NA" type veth peer name ktb$$ netns "$NB" ||
	skip_all "cannot create a veth pair (no veth module?)"
ip -n "$NA" addr add 10.213.13.1/24 dev kta$$
ip -n "$NB" addr add 10.213.13.2/24 dev ktb$$
for ns in "$NA" "$NB"; do
	ip -n "$ns" link set lo up
done
ip -n "$NA" link set kta$$ up
ip -n "$NB" link set ktb$$ up

# a 32 MiB file, copied over and over for 8 s at most
head -c $((32 << 20)) /dev/urandom >"$TMP/file"
PY="python3 $top_srcdir/tests/tools/netns_copy.py"
# Both ends on one CPU, sampled alone: veth delivers on the sender's CPU, so the copy's
# softirq work is there, and the machine's other work (a parallel make check, other
# users) mostly moves to the other CPUs instead of diluting the shares.
CPU=
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -gt 1 ]; then
	CPU=$(($(nproc) - 1))
	PY="taskset -c $CPU $PY"
fi
# One copy and one sampling of it, into directory $1: j (kerntop's JSON), ctx (the figures)
copy_and_sample() {
	mkdir -p "$1"
	rm -f "$TMP/listening" "$TMP/flowing"
	ip netns exec "$NB" $PY recv 10.213.13.2 5201 8 --ready "$TMP/listening" 2>"$1/recv.err" &
	rpid=$!
	n=100
	while [ ! -e "$TMP/listening" ] && [ "$n" -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
	ok $([ -e "$TMP/listening" ]; echo $?) "the receiver listens in its namespace"
	ip netns exec "$NA" $PY send 10.213.13.2 5201 8 "$TMP/file" --ready "$TMP/flowing" 2>"$1/send.err" &
	spid=$!
	n=100
	while [ ! -e "$TMP/flowing" ] && [ "$n" -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
	ok $([ -e "$TMP/flowing" ]; echo $?) "data flows over the veth pair"
	# 4 s of samples while the copy runs (it runs 8 s: the window ends before it does)
	"$KERNTOP" -g -b -n 1 -d 4 ${CPU:+-C $CPU} --format json >"$1/j" 2>"$1/kt.err"
	is "$?" 0 "kerntop -g -b --format json during the copy"
	wait "$spid"
	is "$?" 0 "the sender finished"
	wait "$rpid"
	like "$(cat "$1/recv.err")" '^received [1-9][0-9]{6,} bytes$' "megabytes crossed the veth pair"
	[ -s "$1/j" ] || return 0
	python3 - "$1/j" >"$1/ctx" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	ctx = d["contexts"]
	busy = [c for c in sorted(ctx, key=lambda c: -c["hits"]) if c["kind"] != "idle"]
	netrx = sum(c["pct"] for c in ctx if c["kind"] == "softirq" and c["name"].startswith("NET_RX"))
	rank = [i for i, c in enumerate(busy) if c["kind"] == "softirq" and c["name"] == "NET_RX"]
	kernel = d["kernel"] + d["idle"] + d["user"]
	print("kernel_hits %d" % kernel)
	print("netrx_pct %.2f" % netrx)
	print("netrx_rank %d" % (rank[0] + 1 if rank else 0))
	print("unknown_pct %.2f" % sum(c["pct"] for c in ctx if c["kind"] == "unknown"))
	print("sum_pct %.1f" % sum(c["pct"] for c in ctx))
	# kerntop's softirq share of the machine (ksoftirqd's included: the tick accounting of
	# /proc/stat charges it to softirq too) against /proc/stat's over the same interval
	cap = d["covered_s"] * d["freq_hz"] * d["cpus"]
	print("kt_si %.2f" % (100.0 * sum(c["hits"] for c in ctx if c["kind"] == "softirq") / cap))
	# /proc/stat's share over the CPUs kerntop sampled (the copy's one CPU when pinned), as
	# kerntop's is: the mean of those CPUs' rows, or the machine's when the rows lack it
	rows = [c["softirq_pct"] for c in d["cpu"] if "softirq_pct" in c]
	print("stat_si %.2f" % (sum(rows) / len(rows) if rows else d.get("softirq_pct", -1)))
	print("netrx_per_s %.0f" % max([c.get("softirqs_per_s", {}).get("NET_RX", 0) for c in d["cpu"]] + [0]))
	print("covered_s %.3f proc_interval_s %.3f" % (d["covered_s"], d.get("proc_interval_s", -1)))
	for c in busy[:6]:
	    print("# %-10s %-32s %6d %6.2f%%" % (c["kind"], c["name"], c["hits"], c["pct"]))
	EOF
}
get() { sed -n "s/^$1 //p" "$D/ctx"; }
# the figures that depend on the machine's other load (the shares, the rank, the agreement
# with /proc/stat); 0 when all hold
judge() {
	[ -s "$D/ctx" ] || return 1
	awk -v p="$(get netrx_pct)" -v r="$(get netrx_rank)" -v k="$(get kt_si)" -v s="$(get stat_si)" \
		'BEGIN { d = k - s; if (d < 0) d = -d; m = k > s ? k : s
		exit !(p >= 5 && r >= 1 && r <= 4 && s >= 0 && d <= 3 + 0.25 * m) }'
}
# Two measurements at most, as in test_accuracy_live.sh: the shares are judged on one CPU that
# the rest of a parallel make check (or CI's other work) can also load, which moves a 4 s
# sampling and /proc/stat's 250 Hz tick differently; a second copy is an independent retry.
D="$TMP/m1"
copy_and_sample "$D"
if ! judge; then
	echo "# first measurement disagreed; its figures:"
	sed 's/^/#   /' "$D/ctx"
	D="$TMP/m2"
	copy_and_sample "$D"
fi
sed -n 's/^# /# busiest: /p' "$D/ctx"
ok $([ "$(get kernel_hits)" -gt 1000 ]; echo $?) "enough samples to judge ($(get kernel_hits))"
is "$(get sum_pct)" "100.0" "the contexts' shares sum to 100"
is "$(get unknown_pct)" "0.00" "with -g no sample is unknown"
ok $(awk -v p="$(get netrx_pct)" 'BEGIN { exit !(p >= 5) }'; echo $?) \
	"softirq NET_RX holds at least 5 % of kernel hits ($(get netrx_pct) %)"
r=$(get netrx_rank)
ok $([ "$r" -ge 1 ] && [ "$r" -le 4 ]; echo $?) "softirq NET_RX is among the four busiest non-idle contexts (rank $r)"

# The kernel-accounted side (/proc/softirqs, /proc/stat, read by kerntop over the same run).
# The bound is stated and justified in docs/testing.md ("softirq share against /proc/stat").
ok $(awk -v r="$(get netrx_per_s)" 'BEGIN { exit !(r > 0) }'; echo $?) \
	"NET_RX softirqs per second are non-zero on some CPU ($(get netrx_per_s)/s)"
kt_si=$(get kt_si)
st_si=$(get stat_si)
echo "# softirq share: kerntop $kt_si %, /proc/stat $st_si % ($(get covered_s))"
ok $(awk -v k="$kt_si" -v s="$st_si" 'BEGIN { d = k - s; if (d < 0) d = -d; m = k > s ? k : s
	exit !(s >= 0 && d <= 3 + 0.25 * m) }'; echo $?) \
	"kerntop's softirq share agrees with /proc/stat's: |$kt_si - $st_si| <= 3 + 25 % of the larger"

done_testing
