#!/bin/sh
# What --push costs a host: bytes per pushed profile and CPU per push (building and gzipping
# the profile on the loop thread, plus the worker's HTTP), against a receiver on 127.0.0.1
# (tests/tools/ingest_server.py), from the figures kerntop logs (--log "push:" lines).
#   bench/bench_push.sh [BUILD_DIR]   (env: BENCH_DIR=/tmp/kerntop-bench-push, PUSH_SECS=2,
#                                      PUSH_LIVE=0 skips live, KEEP=1 keeps inputs)
# 1. synthetic: bench_stacks_gen.py writes PUSH_SECS seconds of a 256-CPU host sampled at
#    997 Hz with call chains (4000 stacks, 16 tasks); replayed at full speed with
#    --push-interval 1, for each --pprof-labels choice: the label-cardinality trade-off.
# 2. live (as root, as make bench runs; PUSH_LIVE=0 skips it): this machine at
#    997 Hz with -g for 3 intervals of 2 s, under a kernel-heavy load (dd from /dev/zero).
# Prints one line per run: profiles, KiB per profile, ms CPU per push, ratio of the CPU per
# push to the length of the interval.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${top_builddir:-$here/../build}}
KERNTOP=${KERNTOP:-$build/kerntop}
dir=${BENCH_DIR:-/tmp/kerntop-bench-push}
secs=${PUSH_SECS:-2}
[ -x "$KERNTOP" ] || { echo "bench_push: build $KERNTOP first" >&2; exit 2; }
mkdir -p "$dir/srv"
rm -f "$dir"/srv/* "$dir"/*.log
python3 "$here/../tests/tools/ingest_server.py" "$dir/srv" ok &
srv=$!
trap 'kill $srv 2>/dev/null; [ "${KEEP:-0}" = 1 ] || rm -rf "$dir/srv"' EXIT
n=100
while [ ! -s "$dir/srv/port" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
URL="http://127.0.0.1:$(cat "$dir/srv/port")"

n=$((256 * 997 * secs))
if [ "$(cat "$dir/params" 2>/dev/null)" != "$n 256" ] || [ ! -s "$dir/g.txt" ]; then
	python3 "$here/bench_stacks_gen.py" "$dir" "$n" 256
	echo "$n 256" >"$dir/params"
fi

# report NAME LOG INTERVAL: the last push: line of LOG as one result line
report() {
	awk -v name="$1" -v iv="$3" '/ push: /{ l = $0 } END {
		split(l, f, " "); for (i in f) { split(f[i], kv, "="); v[kv[1]] = kv[2] }
		p = v["sent"] ? v["sent"] : 1; ms = (v["build_cpu_ms"] + v["send_cpu_ms"]) / p
		printf "%-34s %3d profiles  %9.1f KiB/profile  %8.2f ms CPU/push (build %.2f + send %.2f)  %.5f of the interval\n",
			name, v["sent"], v["bytes"] / p / 1024, ms, v["build_cpu_ms"] / p, v["send_cpu_ms"] / p, ms / 1000 / iv
	}' "$2"
}

echo "bench_push: $n samples of a synthetic 256-CPU host at 997 Hz with call chains, --push-interval 1"
for labels in cpu,comm,pid,tid cpu,comm comm none; do
	rm -f "$dir/srv"/req-*
	"$KERNTOP" -b --replay "$dir/g.txt" --speed max --kallsyms "$dir/kallsyms" --modules "$dir/modules" \
		--push "$URL" --push-interval 1 --pprof-labels "$labels" \
		--log "$dir/syn-$labels.log" >/dev/null
	report "256 CPUs, labels $labels" "$dir/syn-$labels.log" 1
done

live=${PUSH_LIVE:-$([ "$(id -u)" -eq 0 ] && echo 1 || echo 0)}
if [ "$live" = 1 ]; then
	loads=
	for c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$c" dd if=/dev/zero of=/dev/null bs=1M 2>/dev/null &
		loads="$loads $!"
	done
	"$KERNTOP" -b -g -F 997 --push "$URL" --push-interval 2 -d 2 -n 3 \
		--log "$dir/live.log" >/dev/null || true
	kill $loads 2>/dev/null || true
	report "live $(nproc) CPUs at 997 Hz, -g, cpu,comm" "$dir/live.log" 2
fi
[ "${KEEP:-0}" = 1 ] || rm -f "$dir/g.txt" "$dir/nog.txt" "$dir/params"
