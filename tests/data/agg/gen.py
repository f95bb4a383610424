# Generates callchains.perf: `perf script` (-g) text with known counts (see test_batch_replay.sh).
import random
E = 0xffffffff81000000
A = dict(entry=E+0x100+0x20, sys=E+0x200+0x30, vfs=E+0x300+0x10, ksys=E+0x400+0x18,
         rz_a=E+0x500+0x10, rz_b=E+0x500+0x50, rz_call=E+0x500+0x60, cu=E+0x600+0x8,
         idle=E+0x700+0xb, send=0xffffffffc0001000+0x40, push=0xffffffffc0001200+0x20,
         xmit=0xffffffffc0001400+0x10, ns_a=0xffffffffc0010050, ns_b=0xffffffffc0010090,
         ns_c=0xffffffffc00100c8)
N = dict(entry='entry_SYSCALL_64', sys='do_syscall_64', vfs='vfs_read', ksys='ksys_read',
         rz_a='read_zero', rz_b='read_zero', rz_call='read_zero', cu='copy_user',
         idle='default_idle', send='tcp_sendmsg', push='tcp_push', xmit='tcp_write_xmit',
         ns_a='[unknown]', ns_b='[unknown]', ns_c='[unknown]')
T = dict(iperf0=('iperf3', 200, 200), iperf1=('iperf3', 200, 201), dd=('dd', 300, 300),
         swapper=('swapper', 0, 0), kw=('kworker/0:1', 50, 50))
# (count, cpu, task, frames leaf first; 'USER' = a user-mode sample)
groups = [
    (40, 0, 'iperf0', ['xmit', 'push', 'send', 'sys', 'entry']),
    (20, 1, 'iperf1', ['xmit', 'send', 'sys', 'entry']),
    (10, 0, 'iperf0', ['push', 'send', 'sys', 'entry']),
    (15, 1, 'dd', ['rz_a', 'vfs', 'ksys', 'sys', 'entry']),
    (10, 1, 'dd', ['rz_b', 'vfs', 'ksys', 'sys', 'entry']),
    (15, 1, 'dd', ['cu', 'rz_call', 'vfs', 'ksys', 'sys', 'entry']),
    (60, 0, 'swapper', ['idle']),
    (30, 1, 'swapper', ['idle']),
    (8, 0, 'kw', ['ns_a']),
    (2, 0, 'kw', ['ns_b']),
    (2, 0, 'kw', ['ns_c']),
    (5, 1, 'dd', 'USER'),
]
samples = []
for count, cpu, task, frames in groups:
    samples += [(cpu, task, frames)] * count
random.seed(1)
random.shuffle(samples)
out = []
for i, (cpu, task, frames) in enumerate(samples):
    comm, pid, tid = T[task]
    t = 100 + i * 0.001
    out.append('%s %d/%d [%03d] %.6f: 1003009 cpu-clock: ' % (comm, pid, tid, cpu, t))
    if frames == 'USER':
        out.append('\t    7f0000001234 read+0xd (/usr/lib/x86_64-linux-gnu/libc.so.6)')
    else:
        for f in frames:
            a = A[f]
            dso = '[tcp]' if a >= 0xffffffffc0001000 and a < 0xffffffffc0010000 else (
                '[nosym]' if a >= 0xffffffffc0010000 else '[kernel.kallsyms]')
            out.append('\t%16x %s+0x%x (%s)' % (a, N[f], 0, dso))
    out.append('')
open('callchains.perf', 'w').write('\n'.join(out) + '\n')
