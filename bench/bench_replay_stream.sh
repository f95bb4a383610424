#!/bin/bash
# Streaming replay (issue 14): a big `perf script` text and a big kerntop recording replayed at
# full speed from the file (read through a window), from a pipe no TMPDIR can take (read whole,
# as every file was before) and from a pipe kept in an unlinked file in TMPDIR (then read
# through the window), in the same run: peak RSS, wall and CPU time, samples/s.
#   bench/bench_replay_stream.sh [BUILD_DIR]
# Environment: STREAM_MB=360 (about the size of each input), BENCH_DIR=/tmp/kerntop-bench-stream
# (inputs, kept between runs).
# The inputs come from bench_bigmachine: 64 CPUs x 997 Hz, 500 functions, 8-frame chains as
# text (about 30 MB per second of samples) and 32-frame chains as a recording (about 6.5 MB).
# The target: the file's RSS at most 64 MiB over what the pipeline needs without the file
# (the pipe's RSS minus the file's size), at the same or better samples/s.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${top_builddir:-$here/../build}}
K=${KERNTOP:-$build/kerntop}
GEN=$build/bench/bench_bigmachine
mb=${STREAM_MB:-360}
dir=${BENCH_DIR:-/tmp/kerntop-bench-stream}
[ -x "$K" ] && [ -x "$GEN" ] || { echo "bench_replay_stream: build $K and $GEN first" >&2; exit 2; }
mkdir -p "$dir/txt" "$dir/rec"

gen() { # gen SUBDIR SECONDS ARGS...: the input, unless it is there with the same parameters
	local d=$dir/$1 s=$2
	shift 2
	if [ "$(cat "$d/params" 2>/dev/null)" != "$s $*" ]; then
		"$GEN" -c 64 -s "$s" -t 2 -f 500 "$@" "$d" >"$d/gen.out" || exit 1
		echo "$s $*" >"$d/params"
	fi
}
gen txt "$(python3 -c "print(round($mb / 30, 1))")" -g 8 -T
gen rec "$(python3 -c "print(round($mb / 6.5, 1))")" -g 32

# run MODE FILE: "wall cpu maxrss_kib samples" of kerntop replaying FILE at full speed, from the
# file or through a pipe (cat | kerntop --replay /dev/stdin); wait4 gives kerntop's own rusage.
run() {
	python3 - "$K" "$1" "$2" <<'PY'
import json, os, subprocess, sys, time
k, mode, f = sys.argv[1:4]
d = os.path.dirname(f)
args = [k, "-b", "--speed", "max", "--format", "json", "--kallsyms", d + "/kallsyms",
        "--modules", d + "/modules", "--replay", f if mode == "file" else "/dev/stdin"]
env = dict(os.environ)
# a pipe is kept in an unlinked file in TMPDIR past 32 MiB; with no TMPDIR to take it, whole
env["TMPDIR"] = d if mode == "spool" else d + "/no-such-dir" if mode == "pipe" else env.get("TMPDIR", "/tmp")
t0 = time.time()
cat = None
if mode != "file":
    cat = subprocess.Popen(["cat", f], stdout=subprocess.PIPE)
p = subprocess.Popen(args, stdin=cat.stdout if cat else subprocess.DEVNULL, stdout=subprocess.PIPE,
                     env=env)
if cat:
    cat.stdout.close()
out = p.stdout.read()
_, status, ru = os.wait4(p.pid, 0)
wall = time.time() - t0
if cat:
    cat.wait()
samples = json.loads(out.splitlines()[-1])["samples"] if status == 0 else 0
print("%.3f %.3f %d %d" % (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, samples))
PY
}

cat "$dir/txt/big.txt" "$dir/rec/big.ktrec" >/dev/null
printf '%-42s %10s %10s %12s %12s %8s\n' "input" "wall s" "CPU s" "samples/s" "peak RSS" "target"
for inp in txt/big.txt rec/big.ktrec; do
	f=$dir/$inp
	size=$(stat -c %s "$f")
	read -r pw pc pr ps < <(run pipe "$f")
	read -r fw fc fr fs < <(run file "$f")
	read -r sw sc sr ss < <(run spool "$f")
	# what the pipeline needs without the file: the pipe's RSS minus the file it holds
	need=$(( pr - size / 1024 ))
	lab="$(basename "$f") ($(( size >> 20 )) MiB)"
	printf '%-42s %10s %10s %12s %9.1f MiB %8s\n' "$lab, pipe (read whole)" "$pw" "$pc" \
		"$(python3 -c "print(round($ps / $pw))")" "$(python3 -c "print($pr / 1024)")" "-"
	printf '%-42s %10s %10s %12s %9.1f MiB %8s\n' "$lab, file (streamed)" "$fw" "$fc" \
		"$(python3 -c "print(round($fs / $fw))")" "$(python3 -c "print($fr / 1024)")" \
		"$([ "$fr" -le $(( need + 65536 )) ] && echo met || echo NO)"
	printf '%-42s %10s %10s %12s %9.1f MiB %8s\n' "$lab, pipe (kept in TMPDIR)" "$sw" "$sc" \
		"$(python3 -c "print(round($ss / $sw))")" "$(python3 -c "print($sr / 1024)")" \
		"$([ "$sr" -le $(( need + 65536 )) ] && echo met || echo NO)"
	echo "  streamed / whole: RSS $(python3 -c "print('%.2f' % ($fr / $pr))"), samples/s $(python3 -c "print('%.2f' % ($fs / $fw / ($ps / $pw)))"); pipeline without the file $(python3 -c "print('%.1f' % ($need / 1024))") MiB; same samples: $([ "$fs" = "$ps" ] && [ "$ss" = "$ps" ] && echo yes || echo NO)"
done
