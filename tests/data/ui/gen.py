# Generates ui.perf: `perf script -F comm,pid,tid,cpu,time,period,event,ip,sym,dso -g` text with
# known counts for the viewer tests (tests/test_ui*.sh), and ui-nouser.perf without the user-mode
# samples. Run: python3 gen.py (deterministic).
import random
K = 0xffffffff81000000
E = 0xffffffffc0100000
NS = 0xffffffffc0200000
F = dict(entry=(K + 0x100, 'entry_SYSCALL_64'), sys=(K + 0x200, 'do_syscall_64'),
         sendto=(K + 0x300, '__sys_sendto'), sock=(K + 0x400, 'sock_sendmsg'),
         send=(K + 0x500, 'tcp_sendmsg'), locked=(K + 0x600, 'tcp_sendmsg_locked'),
         copy=(K + 0x700, 'copy_user_generic'), idle=(K + 0x800, 'default_idle'),
         ext4=(K + 0xa00, 'ext4_file_write_iter'), lock=(K + 0xb00, '_raw_spin_lock'),
         xmit=(E + 0x100, 'e1000_xmit_frame'), rx=(E + 0x400, 'e1000_clean_rx_irq'),
         ns1=(NS + 0x40, '[unknown]'), ns2=(NS + 0x1000, '[unknown]'))
SEND = ['send', 'sock', 'sendto', 'sys', 'entry']
T = dict(ip0=('iperf3', 1000, 1000), ip1=('iperf3', 1000, 1001), dd=('dd', 2000, 2000),
         sw=('swapper', 0, 0), softirq=('ksoftirqd/1', 15, 15), kw=('kworker/1:2', 50, 50))
# (count, cpu, task, frames leaf first, or 'USER')
groups = [
    (120, 0, 'sw', ['idle']),
    (60, 1, 'sw', ['idle']),
    (50, 0, 'ip0', ['copy', 'locked'] + SEND),
    (30, 0, 'ip0', ['locked'] + SEND),
    (20, 1, 'ip1', SEND),
    (10, 1, 'dd', ['copy', 'ext4', 'sys', 'entry']),
    (40, 1, 'softirq', ['rx']),
    (25, 0, 'ip0', ['xmit', 'locked'] + SEND),
    (12, 1, 'kw', ['ns1']),
    (6, 1, 'kw', ['ns2']),
    (8, 0, 'ip0', ['lock', 'locked'] + SEND),
    (4, 1, 'dd', 'USER'),
]
samples = []
for count, cpu, task, frames in groups:
    samples += [(cpu, task, frames)] * count
random.seed(7)
random.shuffle(samples)


def write(path, user):
    out = []
    for i, (cpu, task, frames) in enumerate(samples):
        comm, pid, tid = T[task]
        t = 100 + i * 8.0 / len(samples)
        if frames == 'USER' and not user:
            continue
        out.append('%s %d/%d [%03d] %.6f: 1003009 cpu-clock: ' % (comm, pid, tid, cpu, t))
        if frames == 'USER':
            out.append('\t    7f0000001234 write+0xd (/usr/lib/x86_64-linux-gnu/libc.so.6)')
        else:
            for f in frames:
                a, name = F[f]
                dso = '[e1000e]' if E <= a < NS else ('[nosym]' if a >= NS else '[kernel.kallsyms]')
                out.append('\t%16x %s+0x0 (%s)' % (a, name, dso))
        out.append('')
    open(path, 'w').write('\n'.join(out) + '\n')


write('ui.perf', True)
# the same without the 4 user-mode samples: a run without -u (the header shows user ~N%)
write('ui-nouser.perf', False)
