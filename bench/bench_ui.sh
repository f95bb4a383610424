#!/bin/sh
# Viewer benchmark (not run by make check), against `perf top` in the same run:
#  1. launch to first full screen (module rows drawn) with the live kallsyms, median of N runs:
#     kerntop's own --log stamp, and for both tools the first capture-pane poll showing data;
#  2. own CPU while idle-viewing at 997 Hz on every CPU: utime+stime from /proc/PID/stat
#     over S seconds, kerntop vs perf top.
# Usage: bench/bench_ui.sh [KERNTOP] (default ./kerntop or build/kerntop); RUNS=5 SECS=10.
set -u
KERNTOP=${1:-}
[ -n "$KERNTOP" ] || for k in ./kerntop build/kerntop; do [ -x "$k" ] && KERNTOP=$k && break; done
[ -x "$KERNTOP" ] || { echo "bench_ui: give the kerntop binary as the first argument" >&2; exit 2; }
KERNTOP=$(cd "$(dirname "$KERNTOP")" && pwd)/$(basename "$KERNTOP")
RUNS=${RUNS:-5}
SECS=${SECS:-10}
command -v tmux >/dev/null || { echo "bench_ui: needs tmux" >&2; exit 2; }
PERF=$(command -v perf || true)
SOCK=kerntop-bench-$$
TMP=$(mktemp -d)
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server >/dev/null 2>&1; rm -rf "$TMP"' EXIT
now_ns() { date +%s%N; }
HZ=$(getconf CLK_TCK)

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'; }

# start CMD: runs CMD in a fresh 120x40 pane; the pane's shell writes its launch stamp first.
N=0
start() {
	N=$((N + 1))
	tm new-session -d -s "b$N" -x 120 -y 40 "sh -c 'date +%s%N > $TMP/t0; exec $1'"
	[ "$N" -gt 1 ] && tm kill-session -t "b$((N - 1))" >/dev/null 2>&1
	return 0
}

# poll REGEX: ns from the launch stamp to the first capture that matches (5 ms polls, 5 s cap).
poll() {
	n=1000
	while [ $n -gt 0 ]; do
		if tm capture-pane -p -t "b$N" 2>/dev/null | grep -Eq -- "$1"; then
			t=$(now_ns)
			echo $(( (t - $(cat "$TMP/t0")) / 1000 ))
			return 0
		fi
		sleep 0.005
		n=$((n - 1))
	done
	echo nan
}

pid_of() { # the tool's pid: the pane process exec'd it
	tm display-message -p -t "b$N" '#{pane_pid}'
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

echo "== launch to first full screen (live kallsyms, median of $RUNS) =="
: > "$TMP/k_log"; : > "$TMP/k_up"; : > "$TMP/k_poll"; : > "$TMP/p_poll"
for i in $(seq "$RUNS"); do
	rm -f "$TMP/ui.log"
	start "$KERNTOP --log $TMP/ui.log"
	poll '^vmlinux +[0-9]+ ' >> "$TMP/k_poll"
	t0=$(cat "$TMP/t0")
	# the log stamp is seconds.micro of CLOCK_REALTIME
	awk -v t0="$t0" '/first full frame/ { split($1, a, "."); print (a[1] * 1000000 + a[2]) - int(t0 / 1000); exit }' "$TMP/ui.log" >> "$TMP/k_log"
	awk -v t0="$t0" '/viewer up/ { split($1, a, "."); print (a[1] * 1000000 + a[2]) - int(t0 / 1000); exit }' "$TMP/ui.log" >> "$TMP/k_up"
	tm send-keys -t "b$N" q
	sleep 0.3
	if [ -n "$PERF" ]; then
		start "$PERF top -F 997 -a"
		poll '(Samples|Overhead)' >> "$TMP/p_poll"
		tm send-keys -t "b$N" q
		sleep 0.5
	fi
done
k_log=$(median < "$TMP/k_log")
k_poll=$(median < "$TMP/k_poll")
p_poll=$(median < "$TMP/p_poll")
k_up=$(median < "$TMP/k_up")
awk -v a="$k_up" 'BEGIN { printf "kerntop pipeline ready, viewer up:     %8.1f ms (options, kallsyms, perf fds)\n", a / 1000 }'
awk -v a="$k_log" 'BEGIN { printf "kerntop first full frame (own log):    %8.1f ms (target < 150 ms)\n", a / 1000 }'
awk -v a="$k_poll" 'BEGIN { printf "kerntop first data on screen (poll):   %8.1f ms\n", a / 1000 }'
if [ -n "$PERF" ]; then
	awk -v a="$p_poll" -v k="$k_poll" 'BEGIN { printf "perf top first data on screen (poll):  %8.1f ms   kerntop/perf top = %.2f\n", a / 1000, (a > 0 ? k / a : 0) }'
fi

echo "== own CPU while idle-viewing at 997 Hz, $SECS s =="
measure() { # measure CMD: CPU % of one CPU used by the tool over SECS after a 2 s warm-up
	start "$1"
	sleep 2
	pid=$(pid_of)
	a=$(cpu_ticks "$pid")
	sleep "$SECS"
	b=$(cpu_ticks "$pid")
	tm send-keys -t "b$N" q
	sleep 0.5
	awk -v a="$a" -v b="$b" -v hz="$HZ" -v s="$SECS" 'BEGIN { printf "%.2f", (b - a) / hz / s * 100 }'
}
k_cpu=$(measure "$KERNTOP -F 997")
echo "kerntop -F 997:   $k_cpu % of one CPU ($(nproc) CPUs sampled)"
if [ -n "$PERF" ]; then
	p_cpu=$(measure "$PERF top -F 997 -a")
	echo "perf top -F 997:  $p_cpu % of one CPU"
	awk -v k="$k_cpu" -v p="$p_cpu" 'BEGIN { printf "kerntop/perf top CPU = %.2f\n", (p > 0 ? k / p : 0) }'
fi
