# Generates modules.perf, kallsyms and modules: `perf script` text (no -g, one line a sample, as
# `perf record -a` without -g prints it) whose samples fall in loadable modules, vmlinux, idle
# routines, user space and kernel addresses no module holds, for the replayed module-table
# comparison of tests/test_accuracy_replay.sh. The dso field of each line is what perf would
# print for that address with this kallsyms and modules: the test counts it independently and
# compares with kerntop's module table. Run: python3 gen.py (deterministic).
import random

K = 0xffffffff81000000
# name, base, size, [(offset, symbol)]: a module with no symbol at all (nosym_drv), addresses
# before a module's first symbol and on its first and last byte are in the samples too.
MODS = [
    ('e1000', 0xffffffffc0100000, 0x30000, [(0x100, 'e1000_xmit_frame'), (0x2000, 'e1000_clean_rx_irq'),
                                             (0x5000, 'e1000_watchdog'), (0x9000, 'e1000_intr')]),
    ('ext4', 0xffffffffc0200000, 0x80000, [(0x400, 'ext4_file_write_iter'), (0x8000, 'ext4_da_write_begin'),
                                           (0x20000, 'ext4_mark_iloc_dirty'), (0x50000, 'ext4_es_lookup_extent')]),
    ('nf_conntrack', 0xffffffffc0300000, 0x20000, [(0x80, 'nf_conntrack_in'), (0x3000, '__nf_conntrack_find_get'),
                                                  (0x8000, 'nf_ct_seq_offset')]),
    ('kvm_amd', 0xffffffffc0400000, 0x40000, [(0x200, 'svm_vcpu_run'), (0x10000, 'svm_handle_exit')]),
    ('nosym_drv', 0xffffffffc0500000, 0x4000, []),
]
VML = [(0x100, 'entry_SYSCALL_64'), (0x400, 'do_syscall_64'), (0x900, 'read_zero'),
       (0x1200, 'clear_user_rep_good'), (0x2000, '__fdget_pos'), (0x2800, 'vfs_read'),
       (0x4000, 'tcp_sendmsg_locked'), (0x6000, 'nf_hook_slow'), (0x7000, 'default_idle'),
       (0x7400, 'intel_idle'), (0x8000, 'schedule'), (0xa000, '_raw_spin_lock')]
IDLE = ('default_idle', 'intel_idle')  # passed to kerntop as --idle-symbols
ETEXT = K + 0x10000

ks = ['%016x T _stext' % K]
ks += ['%016x %s %s' % (K + o, 't' if n in IDLE else 'T', n) for o, n in VML]
ks.append('%016x T _etext' % ETEXT)
for name, base, size, syms in MODS:
    ks += ['%016x t %s\t[%s]' % (base + o, s, name) for o, s in syms]
open('kallsyms', 'w').write('\n'.join(ks) + '\n')
open('modules', 'w').write(''.join('%s %d 0 - Live 0x%016x\n' % (n, s, b) for n, b, s, _ in MODS))

random.seed(11)


def func_addr(table, base, end):
    """A random address inside a random function of table (offsets from base), and its name."""
    i = random.randrange(len(table))
    lo = base + table[i][0]
    hi = base + table[i + 1][0] if i + 1 < len(table) else end
    a = random.randrange(lo, hi)
    return a, '%s+0x%x' % (table[i][1], a - lo)


def pick():
    """(address, sym field, dso field) of one sample."""
    r = random.random()
    if r < 0.30:  # vmlinux, idle routines included
        a, s = func_addr(VML, K, ETEXT)
        return a, s, '[kernel.kallsyms]'
    if r < 0.40:  # user space: binaries, libraries, the vdso
        a = random.choice([0x55d0c0001000, 0x7f3a12345000, 0x7ffd5e3f1000]) + random.randrange(0x1000)
        return a, '[unknown]', random.choice(['/usr/bin/dd', '/usr/lib/x86_64-linux-gnu/libc.so.6', '[vdso]'])
    if r < 0.43:  # kernel half, in no module and past _etext: perf's [unknown]
        a = random.choice([0xffffffffc0600000, 0xffffffffc0380000]) + random.randrange(0x1000)
        return a, '[unknown]', '[unknown]'
    name, base, size, syms = MODS[random.choices(range(len(MODS)), weights=[30, 25, 15, 8, 3])[0]]
    e = random.random()
    if not syms or e < 0.05:  # no symbol: before the first one, or a module without any
        a = base + random.randrange(syms[0][0] if syms else size)
        return a, '[unknown]', '[%s]' % name
    if e < 0.07:  # the first and the last byte of the module
        a = random.choice([base, base + size - 1])
        s = '[unknown]' if a < base + syms[0][0] else '%s+0x%x' % (syms[-1][1], a - base - syms[-1][0])
        return a, s, '[%s]' % name
    a, s = func_addr(syms, base, base + size)
    return a, s, '[%s]' % name


TASKS = [('dd', 2000), ('iperf3', 3100), ('swapper', 0), ('kworker/0:1', 40), ('qemu-kvm', 5200)]
out = []
t = 200.0
for i in range(4000):
    comm, pid = random.choice(TASKS)
    a, s, dso = pick()
    t += random.uniform(0.0002, 0.0008)
    out.append('%16s %5d [%03d] %.6f: %10d cpu-clock: %16x %s (%s)' % (
        comm, pid, random.randrange(2), t, 1003009, a, s, dso))
open('modules.perf', 'w').write('\n'.join(out) + '\n')
