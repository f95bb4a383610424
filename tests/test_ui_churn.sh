# Task churn in the viewer: 1500 short-lived "true" processes (one hit each) beside one "dd",
# replayed with a 2 s window in cumulative mode. Past the idle-task cap the tasks that left the
# window are merged into one "true [N tasks]" row, every hit still counted, and the task filter
# works on the merged row and on a real task.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/ui_lib.sh"
mkdir -p "$TMP/snap"

python3 - "$TMP/churn.txt" <<'PY'
import sys
out = ["# perf script -F comm,pid,tid,cpu,time,ip,sym,dso"]
t = 100.0
for i in range(1500):
    out.append("true %d/%d [000] %.6f:  ffffffff81000b10 _raw_spin_lock ([kernel.kallsyms])"
               % (20000 + i, 20000 + i, t))
    out.append("dd 500/500 [001] %.6f:  ffffffff81000710 copy_user_generic ([kernel.kallsyms])"
               % (t + 0.000001))
    t += 0.01
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY

ui_start 110 24 -- --replay "$TMP/churn.txt" --speed max --kallsyms "$UI_DATA/kallsyms" \
	--modules "$UI_DATA/modules" -w 2 --cumulative --snapshot-dir "$TMP/snap"
see 'replay finished' "the churn replay ran to the end"
see '^vmlinux +3000 ' "every hit counted since start"
keys t
see '^ +- +- true \[[0-9]+ tasks\] ' "tasks that left the window are merged into one row per command"
capture
merged=$(printf '%s\n' "$SCREEN" | sed -n 's/^ *- *- true \[\([0-9]*\) tasks\] *\([0-9]*\) .*/\1 \2/p')
nmerged=${merged% *}
hits=${merged#* }
is "$hits" "$nmerged" "the merged row has one hit per merged task"
ok "$([ "${nmerged:-0}" -ge 400 ] && [ "${nmerged:-0}" -le 1500 ]; echo $?)" "hundreds of tasks merged ($nmerged), not all: the rest are kept by pid"
see '^ +21499 +21499 true +1 ' "the newest task keeps its own row"
see '^ +500 +500 dd +1500 ' "the long-running task keeps its own row"
keys Home Down Enter
see '^kerntop .* tasks true \[[0-9]+ tasks\]' "Enter on the merged row: header shows the group filter"
see '^vmlinux +'"$nmerged"' ' "module list filtered to the merged tasks"
keys t Home Enter
see '^kerntop .* task 500 dd' "Enter on dd: header shows the task filter"
see '^vmlinux +1500 ' "module list filtered to dd"
keys q
see '^EXIT=0$' "q exits 0"
no_stderr
done_testing
