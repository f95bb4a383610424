#!/bin/bash
# Scale (issue 14): kerntop replaying a big machine at recorded speed with -d 1, what the live
# loop would do there, today's build against the design before issue 14 in the same run.
#   bench/bench_scale.sh [BUILD_DIR]
# Environment: SCALE_BASE=ff163ee (the "before" commit: the window and queries before issue
# 14, with --log's refresh times), SCALE_CPUS=256, SCALE_SECS=15 (seconds of samples: the 10 s
# window is full for the last 5), SCALE_DEPTH=32 (the -g run's chain depth; 0 skips it),
# SCALE_MODEL="2 64 256 1024" (CPU counts of the cost model, today's build only; empty skips
# it), SCALE_MODEL_SECS=11 (its seconds of samples: the window is full at the last tick),
# SCALE_LONG_SECS=150 (the viewer's long run, today's build only; 0 skips it),
# SCALE_LONG_G_SECS=45 (the same with SCALE_DEPTH-frame chains; 0 skips it; its recording
# takes 186 MB), SCALE_REPS=3 (paced replays of each build and input in the 15 s tables,
# before and after taking turns; the CPU and p99 rows give their median and range, the
# other rows those of the last), SCALE_CUM=1 (the viewer once more with --cumulative, the
# since-start view, each build once; 0 skips it), BENCH_DIR (inputs and the before build;
# kept between runs).
# 1. builds the before commit's kerntop once (git archive into BENCH_DIR/base-COMMIT);
# 2. bench_bigmachine writes SCALE_CPUS CPUs x 997 Hz x SCALE_SECS s (8 tasks per CPU, 5000
#    functions with a Zipf spread), without chains and with SCALE_DEPTH-frame chains (and
#    these again in recording format version 1, for the before build);
# 3. each build replays each input: kerntop -b --replay FILE -d 1 --log LOG (recorded speed);
#    own CPU = (user + system) / seconds of samples (and the same from 11 s to the end, once
#    the window is full: a long run's cost), peak RSS = getrusage's maxrss, refresh =
#    the tick lines' refresh_ms (p50, p99, max), lost = generated - delivered samples; then
#    the viewer replaying it in a 200x50 tmux pane (kerntop --replay FILE --log LOG): own CPU
#    from /proc/PID/schedstat, VmHWM, and its refresh (query + draw) from the log;
# 4. the cost model: per CPU count, ns per sample (--speed max), window bytes per tuple and
#    refresh ms (paced);
# 5. the viewer's long runs: SCALE_LONG_SECS of samples, its own CPU per 30 s, its since-start
#    records and VmHWM as they grow; then SCALE_LONG_G_SECS with chains, per 15 s.
# Prints one table per input with before, after, after/before and the issue's target.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${1:-${top_builddir:-$top/build}}
K=${KERNTOP:-$build/kerntop}
GEN=$build/bench/bench_bigmachine
base=${SCALE_BASE:-ff163ee}
ncpu=${SCALE_CPUS:-256}
secs=${SCALE_SECS:-15}
depth=${SCALE_DEPTH:-32}
model=${SCALE_MODEL-2 64 256 1024}
msecs=${SCALE_MODEL_SECS:-11}
dir=${BENCH_DIR:-/tmp/kerntop-bench-scale}
longs=${SCALE_LONG_SECS:-150}
longg=${SCALE_LONG_G_SECS:-45}
reps=${SCALE_REPS:-3}
cumv=${SCALE_CUM:-1}
[ -x "$K" ] || { echo "bench_scale: build $K first" >&2; exit 2; }
[ -x "$GEN" ] || { echo "bench_scale: build $GEN first (make check builds it)" >&2; exit 2; }
mkdir -p "$dir"

# --- 1. the before build ---
B=$dir/base-$base
if [ ! -x "$B/build/kerntop" ]; then
	echo "bench_scale: building the before commit $base in $B (once)"
	rm -rf "$B" && mkdir -p "$B/src" "$B/build"
	git -C "$top" archive "$base" | tar -x -C "$B/src" || { echo "bench_scale: no commit $base in $top" >&2; exit 1; }
	(cd "$B/src" && ./autogen.sh && cd "$B/build" && ../src/configure CFLAGS="-O2 -g" &&
		{ make -j2 proto/profile.pb-c.c proto/profile.pb-c.h 2>/dev/null || true; } && make -j2 kerntop) \
		>"$B/build.log" 2>&1 || { tail -20 "$B/build.log"; echo "bench_scale: the before build failed" >&2; exit 1; }
fi
OLD=$B/build/kerntop

# --- 2. inputs ---
# gen NAME ARGS...: DIR/NAME/big.ktrec, made once per set of arguments; with chains (-g) also
# DIR/NAME/v1/big.ktrec, the same samples in recording format version 1 (chains whole), which
# the before build replays: it predates version 2 (chains by id), and reads what it wrote
gen() {
	local d=$dir/$1
	shift
	mkdir -p "$d"
	# (the params file names the format too: inputs made before version 2 are made again)
	if [ "$(cat "$d/params" 2>/dev/null)" != "$* (format 2)" ] || [ ! -s "$d/big.ktrec" ]; then
		rm -rf "$d/v1"
		"$GEN" "$@" "$d" >"$d/gen.out" || exit 1
		case " $* " in *" -g "*)
			mkdir -p "$d/v1" && "$GEN" -1 "$@" "$d/v1" >/dev/null || exit 1 ;;
		esac
		echo "$* (format 2)" >"$d/params"
	fi
	sed 's/^bench_bigmachine: //' "$d/gen.out"
}

# --- 3. paced replays ---
# run BINARY FILE LOG [ARGS]: prints "cpu_s rss_kib wall_s steady_cpu_s steady_s" of one paced
# replay; steady_*: its own CPU from 11 s after the start (the 10 s window full) to 0.5 s before
# the samples end (what a run of hours costs, without the start: reading the symbols, the
# tables growing to their size), from /proc/PID/task/*/schedstat; "0 0" when the replay is
# shorter than 13 s
run() {
	local bin=$1 f=$2 log=$3
	shift 3
	rm -f "$log"
	python3 - "$bin" "$f" "$log" "$secs" "$@" <<'PY'
import glob, os, subprocess, sys, time
bin, f, log, secs = sys.argv[1:5]
secs = float(secs)
def oncpu(pid):
    t = 0
    for st in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            t += int(open(st).read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return t / 1e9
t0 = time.monotonic()
p = subprocess.Popen([bin, "-b", "--replay", f, "-d", "1", "--log", log] + sys.argv[5:],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
steady, span = 0.0, 0.0
if secs >= 13:
    a0, a1 = 11.0, secs - 0.5
    time.sleep(max(0.0, t0 + a0 - time.monotonic()))
    c0 = oncpu(p.pid)
    time.sleep(max(0.0, t0 + a1 - time.monotonic()))
    c1 = oncpu(p.pid)
    if os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:  # still running
        steady, span = c1 - c0, a1 - a0
err = p.stderr.read()
# wait4, not getrusage(RUSAGE_CHILDREN): the latter also counts what this interpreter's own
# parents waited for before it was exec'd (a pyenv shim's children: 0.28 s on this VM)
_, status, ru = os.wait4(p.pid, 0)
wall = time.monotonic() - t0
if status:
    sys.exit("bench_scale: %s failed: %s" % (bin, err.decode()[-300:]))
print("%.3f %d %.3f %.3f %.1f" % (ru.ru_utime + ru.ru_stime, ru.ru_maxrss, wall, steady, span))
PY
}
# stats LOG: "p50 p99 max ticks delivered window_mem cum full_p99 full_ticks" of the tick
# lines; full_*: the ticks once the 10 s window is full (the first ones also size the tables)
stats() {
	python3 - "$1" <<'PY'
import re, sys
ms, full, last = [], [], ""
for l in open(sys.argv[1]):
    m = re.search(r" (tick|final): .* t=([0-9.]+)s .*refresh_ms=([0-9.]+)", l)
    if m:
        if m.group(1) == "tick":
            ms.append(float(m.group(3)))
            if float(m.group(2)) > 10.5:
                full.append(float(m.group(3)))
        last = l
ms.sort()
full.sort()
pick = lambda v, q: v[min(len(v) - 1, int(q * len(v)))] if v else 0
g = lambda k: re.search(" " + k + r"=(\d+)", last).group(1)
print("%.1f %.1f %.1f %d %s %s %s %.1f %d" % (pick(ms, 0.5), pick(ms, 0.99), ms[-1] if ms else 0,
                                             len(ms), g("samples"), g("window_mem"), g("cum"),
                                             pick(full, 0.99), len(full)))
PY
}
ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print('%.2f' % (a / b) if b else '-')" "$1" "$2"; }
pct() { python3 -c "import sys; print('%.1f' % (100 * float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }
mib() { python3 -c "import sys; print('%.1f' % (int(sys.argv[1]) / 1024))" "$1"; }
# cpus NUMS... / DEN: the median of 100 * NUM / DEN (the lower of two), and the range when
# there are several:
# "8.1 (7.9-8.6)"; "-" when DEN is 0
cpus() {
	python3 - "$@" <<'PY'
import sys
a = sys.argv[1:]
den = float(a[a.index("/") + 1])
v = sorted(100 * float(x) / den for x in a[:a.index("/")]) if den else []
if not v:
    print("-")
elif len(v) == 1:
    print("%.1f" % v[0])
else:
    print("%.1f (%.1f-%.1f)" % (v[(len(v) - 1) // 2], v[0], v[-1]))
PY
}
# medr NUMS...: their median and range, as cpus gives them
medr() { cpus "$@" / 100; }
# med "FIGURES": the median's number alone ("8.1 (7.9-8.6)" -> 8.1)
med() { echo "${1%% *}"; }

compare() { # compare NAME CPU_TARGET RSS_TARGET
	local name=$1 ct=$2 rt=$3 f=$dir/$1/big.ktrec of=$dir/$1/big.ktrec n
	[ -s "$dir/$name/v1/big.ktrec" ] && of=$dir/$name/v1/big.ktrec
	n=$(sed -n 's/^bench_bigmachine: \([0-9]*\) samples.*/\1/p' "$dir/$name/gen.out")
	cat "$f" "$of" >/dev/null
	local ocs=() oss=() ncs=() nss=() ovcs=() ovss=() nvcs=() nvss=() r
	local o99s=() ofs=() n99s=() nfs=() v99s=() w99s=()
	for ((r = 0; r < reps; r++)); do
		read -r oc orss ow osc osp < <(run "$OLD" "$of" "$dir/$name/old.log") || exit 1
		read -r op50 op99 omax oticks osamp omem ocum ofull ofn < <(stats "$dir/$name/old.log")
		read -r nc nrss nw nsc nsp < <(run "$K" "$f" "$dir/$name/new.log") || exit 1
		read -r np50 np99 nmax nticks nsamp nmem ncum nfull nfn < <(stats "$dir/$name/new.log")
		ocs+=("$oc") oss+=("$osc") ncs+=("$nc") nss+=("$nsc")
		o99s+=("$op99") ofs+=("$ofull") n99s+=("$np99") nfs+=("$nfull")
	done
	op99=$(medr "${o99s[@]}") np99=$(medr "${n99s[@]}") ofull=$(medr "${ofs[@]}") nfull=$(medr "${nfs[@]}")
	local ocpu ncpu2 oscpu nscpu
	ocpu=$(cpus "${ocs[@]}" / "$secs") ncpu2=$(cpus "${ncs[@]}" / "$secs")
	oscpu=$(cpus "${oss[@]}" / "$osp") nscpu=$(cpus "${nss[@]}" / "$nsp")
	echo
	echo "$name: $(cat "$dir/$name/params"); file $(du -h "$f" | cut -f1)$([ "$of" = "$f" ] || echo " (version 1 for the before build: $(du -h "$of" | cut -f1))")"
	echo "(CPU and p99 rows: the median of $reps paced replays of each build, taking turns, and"
	echo " their range; the other rows: the last replay of each)"
	printf '%-38s %18s %18s %6s  %s\n' metric "before" "after" "ratio" "target (met?)"
	row() { printf '%-38s %18s %18s %6s  %s\n' "$1" "$2" "$3" "$(ratio "$(med "$3")" "$(med "$2")")" "$4"; }
	met() { python3 -c "import sys; print('-' if sys.argv[2] == '-' else 'yes' if float(sys.argv[1]) <= float(sys.argv[2]) else 'NO')" "$1" "$2"; }
	row "own CPU, % of one core" "$ocpu" "$ncpu2" "<= $ct ($(met "$(med "$ncpu2")" "$ct"))"
	if [ "$nsp" != 0.0 ] && [ "$osp" != 0.0 ]; then
		row "  the same, window full (last ${nsp} s)" "$oscpu" "$nscpu" "<= $ct ($(met "$(med "$nscpu")" "$ct"))"
	fi
	row "wall s of the ${secs} s replay" "$ow" "$nw" "(a replay that falls behind takes longer)"
	row "peak RSS, MiB" "$(mib "$orss")" "$(mib "$nrss")" "<= $rt ($(met "$(mib "$nrss")" "$rt"))"
	row "refresh p50, ms" "$op50" "$np50" ""
	row "refresh p99, ms ($nticks ticks)" "$op99" "$np99" "<= 20 ($(met "$(med "$np99")" 20))"
	row "  the same once the window is full ($nfn)" "$ofull" "$nfull" "<= 20 ($(met "$(med "$nfull")" 20))"
	row "refresh max, ms" "$omax" "$nmax" ""
	row "window_mem at the end, MiB" "$(mib $((omem / 1024)))" "$(mib $((nmem / 1024)))" ""
	row "samples lost (generated - delivered)" "$((n - osamp))" "$((n - nsamp))" "0 ($( [ $((n - nsamp)) = 0 ] && echo yes || echo NO))"
	command -v tmux >/dev/null || { echo "(no tmux: the viewer rows are left out)"; return; }
	for ((r = 0; r < reps; r++)); do
		read -r ovc ovh ovs ovsp < <(view "$OLD" "$of" "$dir/$name/oldui.log")
		read -r vp50 vp99 vmax vn < <(vstats "$dir/$name/oldui.log")
		read -r nvc nvh nvs nvsp < <(view "$K" "$f" "$dir/$name/newui.log")
		read -r wp50 wp99 wmax wn < <(vstats "$dir/$name/newui.log")
		ovcs+=("$ovc") ovss+=("$ovs") nvcs+=("$nvc") nvss+=("$nvs")
		v99s+=("$vp99") w99s+=("$wp99")
	done
	vp99=$(medr "${v99s[@]}") wp99=$(medr "${w99s[@]}")
	local ovcpu nvcpu
	ovcpu=$(cpus "${ovcs[@]}" / "$secs") nvcpu=$(cpus "${nvcs[@]}" / "$secs")
	row "viewer: own CPU, % of one core" "$ovcpu" "$nvcpu" "<= $ct ($(met "$(med "$nvcpu")" "$ct"))"
	if [ "$nvsp" != 0 ] && [ "$ovsp" != 0 ]; then
		ovcpu=$(cpus "${ovss[@]}" / "$ovsp") nvcpu=$(cpus "${nvss[@]}" / "$nvsp")
		row "  the same, window full (last ${nvsp} s)" "$ovcpu" "$nvcpu" "<= $ct ($(met "$(med "$nvcpu")" "$ct"))"
	fi
	row "viewer: peak RSS, MiB" "$(mib "$ovh")" "$(mib "$nvh")" "<= $rt ($(met "$(mib "$nvh")" "$rt"))"
	row "viewer: refresh p50, ms (query + draw)" "$vp50" "$wp50" ""
	row "viewer: refresh p99, ms ($wn refreshes)" "$vp99" "$wp99" "<= 20 ($(met "$(med "$wp99")" 20))"
	[ "$cumv" != 0 ] || return 0
	# the since-start view (z, --cumulative): every screen must keep working
	read -r ovc ovh _ _ < <(view "$OLD" "$of" "$dir/$name/oldcum.log" --cumulative)
	read -r vp50 vp99 _ _ < <(vstats "$dir/$name/oldcum.log")
	read -r nvc nvh _ _ < <(view "$K" "$f" "$dir/$name/newcum.log" --cumulative)
	read -r wp50 wp99 _ wn < <(vstats "$dir/$name/newcum.log")
	row "viewer --cumulative: own CPU, %" "$(cpus "$ovc" / "$secs")" "$(cpus "$nvc" / "$secs")" ""
	row "viewer --cumulative: peak RSS, MiB" "$(mib "$ovh")" "$(mib "$nvh")" ""
	row "viewer --cumulative: refresh p50, ms" "$vp50" "$wp50" ""
	row "viewer --cumulative: refresh p99, ms ($wn)" "$vp99" "$wp99" "<= 20 ($(met "$wp99" 20))"
}

# view BINARY FILE LOG [OPTION]: "cpu_s hwm_kib steady_cpu_s steady_s" of the viewer replaying
# FILE in tmux until its end (steady_*: as run's, "0 0" for a replay shorter than 13 s)
S=kt-scale-$$
tm() { tmux -L "$S" -f /dev/null "$@"; }
trap 'tm kill-server >/dev/null 2>&1' EXIT
view() {
	local bin=$1 f=$2 log=$3 opt=${4:-} pid a b h t0 c0=0 c1=0 span=0
	rm -f "$log"
	tm kill-session -t v >/dev/null 2>&1
	t0=$(date +%s.%N)
	tm new-session -d -s v -x 200 -y 50 "exec $bin $opt --replay $f --log $log"
	pid=$(tm display-message -p -t v '#{pane_pid}')
	until_s() { # until_s S: sleeps until S seconds after the viewer started
		sleep "$(python3 -c "import sys, time; print(max(0, float(sys.argv[1]) + float(sys.argv[2]) - time.time()))" "$t0" "$1")"
	}
	if [ "${secs%.*}" -ge 13 ]; then
		until_s 11
		c0=$(awk '{ print $1 }' /proc/"$pid"/schedstat 2>/dev/null)
		until_s "$(python3 -c "print($secs - 0.5)")"
		c1=$(awk '{ print $1 }' /proc/"$pid"/schedstat 2>/dev/null)
		span=$(python3 -c "print('%.1f' % ($secs - 0.5 - 11))")
	fi
	# the replay's last sample and two more ticks (a viewer that falls behind is cut there)
	until_s "$((${secs%.*} + 2))"
	b=$(awk '{ print $1 }' /proc/"$pid"/schedstat 2>/dev/null)
	h=$(awk '/^VmHWM:/ { print $2 }' /proc/"$pid"/status 2>/dev/null)
	tm kill-session -t v >/dev/null 2>&1
	echo "$(python3 -c "print('%.3f %s %.3f %s' % (${b:-0} / 1e9, '${h:-0}', (${c1:-0} - ${c0:-0}) / 1e9, '$span'))")"
}
# vstats LOG: "p50 p99 max refreshes" of the viewer's refresh lines (query + draw)
vstats() {
	python3 - "$1" <<'PY'
import re, sys
ms = sorted(float(m.group(1)) + float(m.group(2)) for m in
            (re.search(r"refresh: query ([0-9.]+) ms, draw ([0-9.]+) ms", l) for l in open(sys.argv[1])) if m)
pick = lambda q: ms[min(len(ms) - 1, int(q * len(ms)))] if ms else 0
print("%.1f %.1f %.1f %d" % (pick(0.5), pick(0.99), ms[-1] if ms else 0, len(ms)))
PY
}

echo "bench_scale: before = $base ($(git -C "$top" log -1 --format=%s "$base" 2>/dev/null | cut -c1-60)), after = $K"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
gen nog -c "$ncpu" -s "$secs"
compare nog 5 64
if [ "$depth" != 0 ]; then
	gen g -c "$ncpu" -s "$secs" -g "$depth"
	compare g 10 "-"
fi

# --- 4. cost model (today's build) ---
if [ -n "$model" ]; then
	echo
	echo "cost model (after; without chains, 8 tasks per CPU, 5000 functions, 10 s window, -d 1):"
	printf '%6s %10s %12s %14s %12s %12s %12s\n' CPUs samples "ns/sample" "bytes/tuple" "refresh p50" "refresh p99" "CPU % core"
	for c in $model; do
		gen "m$c" -c "$c" -s "$msecs" >/dev/null
		f=$dir/m$c/big.ktrec
		n=$(sed -n 's/^bench_bigmachine: \([0-9]*\) samples.*/\1/p' "$dir/m$c/gen.out")
		t0=$(date +%s.%N)
		"$K" -b --replay "$f" --speed max --log "$dir/m$c/max.log" >/dev/null 2>&1
		t1=$(date +%s.%N)
		read -r cc _ _ _ _ < <(secs=$msecs run "$K" "$f" "$dir/m$c/paced.log")
		read -r p50 p99 _ _ _ mem _ < <(stats "$dir/m$c/paced.log")
		# tuples in the window: at most its samples; bytes per sample of the window is the bound
		ws=$(grep ' tick: ' "$dir/m$c/paced.log" | tail -1 | sed -n 's/.*window_samples=\([0-9]*\).*/\1/p')
		printf '%6s %10s %12s %14s %12s %12s %12s\n' "$c" "$n" \
			"$(python3 -c "print('%.0f' % (($t1 - $t0) * 1e9 / $n))")" \
			"$(python3 -c "print('%.0f' % ($mem / max(1, ${ws:-1})))")" "$p50" "$p99" "$(pct "$cc" "$msecs")"
	done
	echo "(bytes/tuple: window_mem / samples in the window, an upper bound per distinct key)"
fi

# --- 5. long runs of the viewer (today's build): the since-start totals, which only the
# viewer keeps, take in every expired slice, and with chains the stacks that leave the window
# are retired from them; the 15 s replays above see 5 s of this ---
# long_view NAME SECS STEP GEN_ARGS KERNTOP_ARGS: own CPU per interval (the first 15 s, then
# to each multiple of STEP s and the end), the since-start records and VmHWM at each end
long_view() {
	local name=$1 ls=$2 step=$3 gargs=$4 kargs=$5 f pid prev=0 t=0 c h cum at
	gen "$name" -c "$ncpu" -s "$ls" $gargs >/dev/null
	f=$dir/$name/big.ktrec
	rm -f "$dir/$name/ui.log"
	tm kill-session -t v >/dev/null 2>&1
	t0=$(date +%s.%N)
	tm new-session -d -s v -x 200 -y 50 "exec $K $kargs --replay $f --log $dir/$name/ui.log"
	pid=$(tm display-message -p -t v '#{pane_pid}')
	echo
	echo "long run (after; the viewer${kargs:+ $kargs} replaying $ncpu CPUs x 997 Hz for $ls s${gargs:+ ($gargs)}, own CPU"
	echo "per interval from /proc/PID/schedstat, its since-start records and VmHWM at the interval's end):"
	printf '%10s %14s %14s %12s\n' "seconds" "CPU % core" "since-start" "VmHWM MiB"
	for at in 15 $(seq "$step" "$step" "$ls") "$ls"; do
		[ "$at" -gt "$t" ] || continue
		[ "$at" -le "$ls" ] || break
		sleep "$(python3 -c "import sys, time; print(max(0, float(sys.argv[1]) + $at - time.time()))" "$t0")"
		c=$(awk '{ print $1 }' /proc/"$pid"/schedstat 2>/dev/null)
		h=$(awk '/^VmHWM:/ { print $2 }' /proc/"$pid"/status 2>/dev/null)
		cum=$(grep -o ' cum=[0-9]*' "$dir/$name/ui.log" 2>/dev/null | tail -1 | cut -d= -f2)
		printf '%10s %14s %14s %12s\n' "$t-$at" \
			"$(python3 -c "print('%.1f' % ((${c:-0} - $prev) / 1e9 / ($at - $t) * 100))")" \
			"${cum:-?}" "$(mib "${h:-0}")"
		prev=${c:-0}
		t=$at
	done
	tm kill-session -t v >/dev/null 2>&1
}
if command -v tmux >/dev/null; then
	if [ "${longs:-0}" -gt 0 ]; then
		long_view long "$longs" 30 "" ""
		echo "(issue 14's viewer targets: <= 5 % of a core, <= 64 MiB; docs/performance.md, \"Long runs at 256 CPUs\")"
	fi
	if [ "${longg:-0}" -gt 0 ] && [ "$depth" != 0 ]; then
		long_view longg "$longg" 15 "-g $depth" "-g"
		echo "(with chains: <= 10 % of a core; docs/performance.md, \"Long runs with chains\")"
	fi
fi
