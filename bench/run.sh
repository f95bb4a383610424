#!/bin/bash
# make bench: builds kerntop optimised (-O2, no sanitizers) in build-bench/, runs every layer's
# benchmark script in bench/, then measures kerntop against perf itself in the same run and
# prints ONE table: metric, kerntop, peer, ratio kerntop/peer.
#   bench/run.sh            (as root: system-wide sampling, perf top, /proc/PID of both)
# Environment: BENCH_BUILD=DIR (default build-bench), BENCH_QUICK=1 (1 M replay samples and
# 5 s measurements instead of 5 M and 10 s), BENCH_SKIP_LAYERS=1 (only the table),
# RUNS=5 (startup repetitions), SECS=10 (CPU/RSS window), LOST_SECS=5.
# Results of a run on the project machine: docs/performance.md.
# bash only (arrays): under sh, run again with bash
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
B=${BENCH_BUILD:-$top/build-bench}
QUICK=${BENCH_QUICK:-0}
RUNS=${RUNS:-5}
SECS=${SECS:-10}
LOST_SECS=${LOST_SECS:-5}
REPLAY_N=5000000
if [ "$QUICK" = 1 ]; then
	SECS=5 LOST_SECS=3 RUNS=3 REPLAY_N=1000000
fi
LOG=$B/bench-logs
K=$B/kerntop
PERF=$(command -v perf || true)
[ "$(id -u)" -eq 0 ] || echo "bench: not root: live figures may be refused (perf_event_paranoid)" >&2

# --- 1. optimised build ----------------------------------------------------------------------
mkdir -p "$B" "$LOG"
(
	cd "$B" || exit 1
	if [ ! -f Makefile ]; then
		"$top/configure" CFLAGS="-O2 -g" >"$LOG/configure.log" 2>&1 || { tail -20 "$LOG/configure.log"; exit 1; }
	fi
	make -j2 kerntop >"$LOG/make.log" 2>&1 || make kerntop >>"$LOG/make.log" 2>&1 || { tail -20 "$LOG/make.log"; exit 1; }
	# The layers' bench programs and the replay helper (built, not run, by make check).
	for p in bench/bench_symbols bench/bench_agg bench/bench_annotate bench/bench_source_live bench/bench_contexts bench/bench_bigmachine tests/test_replay_dump tests/test_source_many; do
		make -j2 "$p" >>"$LOG/make.log" 2>&1 || echo "bench: could not build $p (see $LOG/make.log)"
	done
) || { echo "bench: the optimised build failed" >&2; exit 1; }
if ldd "$K" | grep -qE 'lib(a|ub|t)san'; then
	echo "bench: $K is a sanitizer build; remove $B and rerun" >&2
	exit 1
fi
echo "bench: optimised build in $B ($(grep -m1 '^CFLAGS = ' "$B/Makefile"))"
echo "bench: $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), perf ${PERF:+$($PERF --version | awk '{ print $3 }')}, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# --- 2. every layer's benchmark --------------------------------------------------------------
if [ "${BENCH_SKIP_LAYERS:-0}" != 1 ]; then
	for s in "$here"/bench_*.sh; do
		name=$(basename "$s" .sh)
		case $name in bench_proof*) continue ;; esac
		case $name in
		bench_ui*) args=("$K") ;;
		bench_live_overhead*|bench_callgraph*) args=("$B" "$SECS") ;;
		*) args=("$B") ;;
		esac
		echo
		echo "=== $name ${args[*]} ==="
		t0=$(date +%s)
		BENCH_DIR="$B/data-$name" BENCH_SAMPLES=$REPLAY_N KERNTOP="$K" top_builddir="$B" \
			timeout 1800 bash "$s" "${args[@]}" >"$LOG/$name.log" 2>&1
		rc=$?
		cat "$LOG/$name.log"
		echo "--- $name: exit $rc, $(( $(date +%s) - t0 )) s (log: $LOG/$name.log)"
	done
fi

# --- 3. kerntop against perf, same run ------------------------------------------------------
[ -n "$PERF" ] || { echo "bench: perf is not installed: no peer figures" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kt-bench.XXXXXX")
SOCK=kt-bench-$$
LOADS=
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
stop_load() { [ -n "$LOADS" ] && kill $LOADS 2>/dev/null; LOADS=; }
trap 'stop_load; tm kill-server >/dev/null 2>&1; rm -rf "$TMP"' EXIT
# Kernel-heavy load on every CPU, so that 997 Hz sampling yields ~997 samples/s per CPU.
start_load() {
	for c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$c" dd if=/dev/zero of=/dev/null bs=64k 2>/dev/null &
		LOADS="$LOADS $!"
	done
	sleep 0.3
}
now_ns() { date +%s%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'; }
ROWS=$TMP/rows
: >"$ROWS"
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$ROWS"; } # metric kt peer peername better

# 3a. Replay ingest vs perf report on the same samples (bench_replay's files when it made them).
D=$B/data-bench_replay
if [ ! -s "$D/perf.data" ] || [ ! -s "$D/perf.txt" ]; then
	D=$TMP/replay
	mkdir -p "$D"
	hz=50000
	secs=$(( REPLAY_N / (hz * $(nproc)) + 2 ))
	echo "bench: recording $REPLAY_N samples for the replay ingest ($secs s at $hz Hz)"
	start_load
	$PERF record -q -B -N -a -e cpu-clock -F $hz -o "$D/perf.data" -- sleep "$secs" 2>/dev/null
	stop_load
	$PERF script -i "$D/perf.data" >"$D/perf.txt" 2>/dev/null
fi
n=$(grep -cE '^[^	].* \[[0-9]+\] +[0-9]+\.[0-9]+:' "$D/perf.txt")
cat "$D/perf.data" "$D/perf.txt" >/dev/null
secs_of() { # secs_of CMD...: wall seconds, best of 2 (page cache warm)
	best=
	for i in 1 2; do
		t0=$(now_ns)
		"$@" >/dev/null 2>"$TMP/err" || { echo nan; return; }
		t=$(( $(now_ns) - t0 ))
		[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
	done
	awk -v t="$best" 'BEGIN { printf "%.3f", t / 1e9 }'
}
t_perf=$(secs_of $PERF report -i "$D/perf.data" --stdio --sort dso,sym)
t_kt=$(secs_of "$K" -b --replay "$D/perf.txt" --speed max)
rate() { awk -v n="$n" -v t="$1" 'BEGIN { if (t + 0 > 0) printf "%.0f", n / t; else print "nan" }'; }
row "replay ingest, samples/s ($n samples: perf script text vs perf.data)" "$(rate "$t_kt")" "$(rate "$t_perf")" "perf report --stdio --sort dso,sym" higher
if [ -x "$B/tests/test_replay_dump" ]; then
	[ -s "$D/rec.ktrec" ] || "$B/tests/test_replay_dump" --convert "$D/perf.txt" "$D/rec.ktrec" /proc/kallsyms >/dev/null 2>&1
	if [ -s "$D/rec.ktrec" ]; then
		t_ktr=$(secs_of "$K" -b --replay "$D/rec.ktrec" --speed max)
		row "replay ingest, samples/s (kerntop recording vs perf.data)" "$(rate "$t_ktr")" "$(rate "$t_perf")" "perf report --stdio --sort dso,sym" higher
	fi
fi

# 3b. Startup to first screen with data, in tmux (perf top needs a tty), live kallsyms.
start_pane() { # start_pane CMD: a fresh 120x40 pane running CMD (exec'd: the pane pid is CMD)
	tm kill-session -t b >/dev/null 2>&1
	tm new-session -d -s b -x 120 -y 40 "exec $1"
}
first_screen() { # first_screen CMD REGEX: ms from launch to a capture matching REGEX
	t0=$(now_ns)
	start_pane "$1"
	i=0
	while [ $i -lt 2000 ]; do
		if tm capture-pane -p -t b 2>/dev/null | grep -Eq -- "$2"; then
			awk -v t="$(( $(now_ns) - t0 ))" 'BEGIN { printf "%.1f\n", t / 1e6 }'
			tm kill-session -t b >/dev/null 2>&1
			return
		fi
		sleep 0.005
		i=$((i + 1))
	done
	echo nan
	tm capture-pane -p -t b >"$TMP/timeout-screen" 2>/dev/null
	tm kill-session -t b >/dev/null 2>&1
}
start_load
: >"$TMP/st_k"
: >"$TMP/st_p"
for i in $(seq "$RUNS"); do
	first_screen "$K" '^ *vmlinux +[0-9]+ ' >>"$TMP/st_k"
	sleep 0.3
	first_screen "$PERF top -e cpu-clock:k -F 997 -d 1" '[0-9.]+% +.*\[k\] ' >>"$TMP/st_p"
	sleep 0.3
done
row "startup to first screen with data, ms (median of $RUNS, refresh 1 s)" "$(median <"$TMP/st_k")" "$(median <"$TMP/st_p")" "perf top -e cpu-clock:k -F 997 -d 1" lower

# 3c/3d. Own CPU while viewing at 997 Hz on every CPU, and peak RSS (VmHWM).
# CPU time from /proc/PID/task/*/schedstat (ns on CPU, every thread: perf top has several),
# finer than the 10 ms ticks of /proc/PID/stat.
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'; }
view_cost() { # view_cost CMD: "cpu_pct hwm_mib" over SECS after a 2 s warm-up
	start_pane "$1"
	sleep 2
	pid=$(tm display-message -p -t b '#{pane_pid}')
	a=$(cpu_ns "$pid")
	t0=$(now_ns)
	sleep "$SECS"
	b=$(cpu_ns "$pid")
	t=$(( $(now_ns) - t0 ))
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	tm kill-session -t b >/dev/null 2>&1
	awk -v a="${a:-0}" -v b="${b:-0}" -v t="$t" -v h="${hwm:-0}" \
		'BEGIN { printf "%.3f %.1f\n", 100 * (b - a) / t, h / 1024 }'
}
read -r k_cpu k_rss <<<"$(view_cost "$K")"
read -r p_cpu p_rss <<<"$(view_cost "$PERF top -e cpu-clock:k -F 997 -d 1")"
row "own CPU while viewing, % of one core ($SECS s, 997 Hz x $(nproc) CPUs, refresh 1 s)" "$k_cpu" "$p_cpu" "perf top -e cpu-clock:k -F 997 -d 1" lower
row "peak RSS while viewing, MiB (VmHWM)" "$k_rss" "$p_rss" "perf top -e cpu-clock:k -F 997 -d 1" lower

# 3e. Lost samples at 997/5000/20000/50000/100000 Hz, user+kernel on every busy CPU, LOST_SECS each.
for hz in 997 5000 20000 50000 100000; do
	"$K" -u -b --format json -n 1 -d "$LOST_SECS" -F $hz >"$TMP/l.json" 2>"$TMP/l.err"
	kl=$(python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); print("%d/%d" % (d["lost"], d["samples"] + d["lost"]))' "$TMP/l.json" 2>/dev/null || echo "err")
	$PERF record -q -B -N -a -e cpu-clock -F $hz -o "$TMP/l.data" -- sleep "$LOST_SECS" >/dev/null 2>&1
	pn=$($PERF script -i "$TMP/l.data" -F cpu 2>/dev/null | wc -l)
	pl=$($PERF report -i "$TMP/l.data" --stdio --sort dso 2>/dev/null | awk -v n="$pn" '/Total Lost Samples:/ { l = $NF } END { printf "%d/%d", l, n + l }')
	row "lost samples at $hz Hz (lost/total, $LOST_SECS s)" "$kl" "$pl" "perf record -a -e cpu-clock -F $hz" lower
	rm -f "$TMP/l.data"
done
stop_load

# 3f. Annotate open of a ~4 KiB function, from bench_annotate.sh of section 2 (same run).
if [ -s "$LOG/bench_annotate.log" ]; then
	read -r a_kt a_first a_perf < <(awk '/^annotate open: kerntop/ { print $4, $7, $11 }' "$LOG/bench_annotate.log" | tr -d '(')
	[ -n "${a_kt:-}" ] && row "annotate screen of a 4 KiB function opens, ms (median; first $a_first ms)" "$a_kt" "${a_perf:-nan}" "perf annotate --stdio (perf.data)" lower
fi

# 3g. A 256-CPU machine replayed at recorded speed with -d 1 (bench_scale.sh of section 2):
# today's build against the design before issue 14, built from git in the same run.
if [ -s "$LOG/bench_scale.log" ]; then
	scale_row() { # scale_row INPUT METRIC LABEL
		awk -v inp="$1:" -v m="$2" '$1 == inp { on = 1; next } on && /^$/ { on = 0 }
			on && index($0, m) == 1 { s = $0; sub(/^ +/, "", s); split(s, f, /   */); print f[2], f[3]; exit }' "$LOG/bench_scale.log"
	}
	for inp in nog g; do
		lab=$([ $inp = g ] && echo "256 CPUs x 997 Hz, 32-frame chains" || echo "256 CPUs x 997 Hz, no chains")
		read -r b a < <(scale_row $inp "own CPU, % of one core")
		[ -n "${a:-}" ] && row "paced replay of $lab, -d 1: own CPU, % of one core" "$a" "$b" "kerntop before issue 14 (bench_scale.sh)" lower
		read -r b a < <(scale_row $inp "refresh p99, ms")
		[ -n "${a:-}" ] && row "paced replay of $lab: refresh p99, ms" "$a" "$b" "kerntop before issue 14" lower
		read -r b a < <(scale_row $inp "  the same once the window is full")
		[ -n "${a:-}" ] && row "paced replay of $lab: refresh p99 once the window is full, ms" "$a" "$b" "kerntop before issue 14" lower
		read -r b a < <(scale_row $inp "peak RSS, MiB")
		[ -n "${a:-}" ] && row "paced replay of $lab: peak RSS, MiB" "$a" "$b" "kerntop before issue 14" lower
		read -r b a < <(scale_row $inp "viewer: refresh p99, ms")
		[ -n "${a:-}" ] && row "viewer replaying $lab: refresh p99 (query + draw), ms" "$a" "$b" "kerntop before issue 14" lower
		read -r b a < <(scale_row $inp "viewer: own CPU, % of one core")
		[ -n "${a:-}" ] && row "viewer replaying $lab: own CPU, % of one core" "$a" "$b" "kerntop before issue 14" lower
	done
fi

# 3g'. Streaming replay (bench_replay_stream.sh of section 2): peak RSS replaying a ~360 MB
# file, read through a window, against the same build reading the same bytes whole (a pipe).
if [ -s "$LOG/bench_replay_stream.log" ]; then
	for inp in big.txt big.ktrec; do
		p=$(awk -v i="$inp" '$1 == i && /pipe \(read whole\)/ { print $(NF - 2) }' "$LOG/bench_replay_stream.log")
		f=$(awk -v i="$inp" '$1 == i && /file \(streamed\)/ { print $(NF - 2) }' "$LOG/bench_replay_stream.log")
		lab=$([ $inp = big.txt ] && echo "perf script text" || echo "kerntop recording")
		[ -n "$f" ] && row "replay of a ~360 MB $lab at full speed: peak RSS, MiB" "$f" "$p" "the same build reading it whole (a pipe)" lower
		sp=$(awk -v i="$inp" '$1 == i && /pipe \(kept in TMPDIR\)/ { print $(NF - 2) }' "$LOG/bench_replay_stream.log")
		[ -n "$sp" ] && row "the same from a pipe (kept in TMPDIR): peak RSS, MiB" "$sp" "$p" "the same build reading it whole (a pipe)" lower
	done
fi

# 3h. The one poll() loop with 256 (and 1024) rings: synthetic rings filled in real time at
# 997 Hz by tests/test_source_many's producer thread (the kernel's side), drained by the source
# as main.c's loop does; the loop thread's CPU time only (decoding into a counting sink, no
# symbolizing). Peer: the same harness with 2 rings, per sample.
if [ -x "$B/tests/test_source_many" ]; then
	many() { "$B/tests/test_source_many" --bench "$1" 997 "$2" 2>/dev/null | sed -n "s/.* $3 \([^ ]*\).*/\1/p"; }
	m2=$(many 2 5 ns_per_sample)
	for n in 256 1024; do
		out=$("$B/tests/test_source_many" --bench $n 997 5 2>/dev/null)
		ns=$(printf '%s\n' "$out" | sed -n 's/.* ns_per_sample \([^ ]*\).*/\1/p')
		pct=$(printf '%s\n' "$out" | sed -n 's/.* loop_cpu_pct \([^ ]*\).*/\1/p')
		lost=$(printf '%s\n' "$out" | sed -n 's/.* lost \([0-9]*\).*/\1/p')
		row "poll loop + drain of $n synthetic rings at 997 Hz, ns per sample ($pct % of one core, lost $lost)" "${ns:-nan}" "${m2:-nan}" "the same loop with 2 rings" lower
	done
fi

# --- 4. the table ---------------------------------------------------------------------------
{
	echo
	echo "=== kerntop vs perf, one run on $(hostname) at $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg) ==="
	awk -F'\t' 'BEGIN { printf "%-78s %12s %12s %8s  %s\n", "metric", "kerntop", "peer", "ratio", "peer (better)" }
	function num(s) { if (s ~ /\//) { split(s, a, "/"); return a[1] + 0 } return s + 0 }
	{
		k = num($2); p = num($3)
		r = (p > 0) ? sprintf("%.2f", k / p) : (k == 0 ? "=" : "inf")
		printf "%-78s %12s %12s %8s  %s (%s is better)\n", $1, $2, $3, r, $4, $5
	}' "$ROWS"
	echo "(ratio = kerntop / peer; lost samples compare the lost counts, 0/0 prints =)"
} | tee "$LOG/table.txt"
