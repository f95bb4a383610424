# Generates stacks.perf (and stacks-leaf.perf, the same samples without call chains): `perf script` (-g) text whose callers trees are known by hand
# (tests/test_stacks_replay.sh, tests/test_stacks_tree.c, tests/test_stacks_ui.sh).
# Run from this directory: python3 gen.py
#
# Stacks, root first, with their sample counts (57 samples, 2 CPUs):
#   A  entry_SYSCALL_64;do_syscall_64;a;b;f              5
#   B  entry_SYSCALL_64;do_syscall_64;c;f                3  (user frames follow: dropped)
#   C  entry_SYSCALL_64;do_syscall_64;a;f                2
#   D  asm_common_interrupt;m_rx[netmod];f               4
#   E  entry_SYSCALL_64;do_syscall_64;a;b;g              6
#   F  entry_SYSCALL_64;do_syscall_64;c;m_xmit[netmod]   7
#   G  entry_SYSCALL_64;do_syscall_64;blob+0x40[blob]    8  (module without symbols)
#   H  default_idle                                      9  (idle, no chain beyond the leaf)
#   I  [user]                                           11  (user-mode samples)
#   J  entry_SYSCALL_64;do_syscall_64;r;r;r;f            1  (recursion)
#   K  entry_SYSCALL_64;do_syscall_64;r x37;g            1  (40 frames: --max-stack 32 cuts it)
# Callers of f (15): b 5 (<- a <- do_syscall_64 <- entry), m_rx 4 (<- asm_common_interrupt),
# c 3, a 2, r 1 (<- r <- r <- do_syscall_64 <- entry).
import random

K = 0xffffffff81000000
NET = 0xffffffffc0002000
BLOB = 0xffffffffc0010000
# frame key -> (address, symbol as perf prints it, dso)
FR = {
    'entry': (K + 0x100 + 0x2f, 'entry_SYSCALL_64', '[kernel.kallsyms]'),
    'sys': (K + 0x200 + 0x41, 'do_syscall_64', '[kernel.kallsyms]'),
    'irq': (K + 0x300 + 0x1a, 'asm_common_interrupt', '[kernel.kallsyms]'),
    'a': (K + 0x400 + 0x12, 'a', '[kernel.kallsyms]'),
    'b': (K + 0x500 + 0x22, 'b', '[kernel.kallsyms]'),
    'c': (K + 0x600 + 0x32, 'c', '[kernel.kallsyms]'),
    'f': (K + 0x700 + 0x08, 'f', '[kernel.kallsyms]'),
    'f2': (K + 0x700 + 0x48, 'f', '[kernel.kallsyms]'),   # another address in f
    'g': (K + 0x800 + 0x10, 'g', '[kernel.kallsyms]'),
    'r': (K + 0x900 + 0x1c, 'r', '[kernel.kallsyms]'),
    'idle': (K + 0xa00 + 0x0b, 'default_idle', '[kernel.kallsyms]'),
    'm_rx': (NET + 0x100 + 0x30, 'm_rx', '[netmod]'),
    'm_xmit': (NET + 0x200 + 0x14, 'm_xmit', '[netmod]'),
    'blob': (BLOB + 0x50, '[unknown]', '[blob]'),
}
USER_TAIL = ['\t    7f00000011a0 __libc_send+0x10 (/usr/lib/x86_64-linux-gnu/libc.so.6)',
             '\t    5555000012c4 main+0x24 (/usr/bin/app)']
USER_ONLY = ['\t    555500001300 spin+0x8 (/usr/bin/app)',
             '\t    7f0000002000 __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)']
TASK = dict(app0=('app', 100, 100), app1=('app', 100, 101), soft=('ksoftirqd/0', 15, 15),
            swapper=('swapper', 0, 0), user=('spinner', 300, 300))
# (label, count, cpu, task, frames leaf first, user frames appended)
GROUPS = [
    ('A', 5, 0, 'app0', ['f', 'b', 'a', 'sys', 'entry'], None),
    ('B', 3, 1, 'app1', ['f2', 'c', 'sys', 'entry'], USER_TAIL),
    ('C', 2, 1, 'app0', ['f', 'a', 'sys', 'entry'], None),
    ('D', 4, 0, 'soft', ['f2', 'm_rx', 'irq'], None),
    ('E', 6, 0, 'app0', ['g', 'b', 'a', 'sys', 'entry'], None),
    ('F', 7, 1, 'app1', ['m_xmit', 'c', 'sys', 'entry'], USER_TAIL),
    ('G', 8, 1, 'app1', ['blob', 'sys', 'entry'], None),
    ('H', 9, 0, 'swapper', ['idle'], None),
    ('I', 11, 1, 'user', [], USER_ONLY),
    ('J', 1, 0, 'app0', ['f', 'r', 'r', 'r', 'sys', 'entry'], None),
    ('K', 1, 1, 'app0', ['g'] + ['r'] * 37 + ['sys', 'entry'], None),
]


def main():
    samples = []
    for label, count, cpu, task, frames, tail in GROUPS:
        samples += [(cpu, task, frames, tail)] * count
    random.seed(7)
    random.shuffle(samples)
    out = []
    for i, (cpu, task, frames, tail) in enumerate(samples):
        comm, pid, tid = TASK[task]
        t = 50 + i * 0.002
        out.append('%s %d/%d [%03d] %.6f:    1003009 cpu-clock:pppH: ' % (comm, pid, tid, cpu, t))
        for f in frames:
            addr, sym, dso = FR[f]
            out.append('\t%16x %s+0x%x (%s)' % (addr, sym, addr & 0xff, dso))
        out += tail or []
        out.append('')
    with open('stacks.perf', 'w') as fp:
        fp.write('\n'.join(out) + '\n')
    # The same samples as `perf script` prints them without -g: the leaf on the sample line.
    leaf = []
    for line in out:
        if not line:
            continue
        if not line.startswith('\t'):
            leaf.append(line)
        elif leaf[-1].endswith(': '):
            leaf[-1] += line[1:].lstrip()
    with open('stacks-leaf.perf', 'w') as fp:
        fp.write('\n'.join(leaf) + '\n')


if __name__ == '__main__':
    main()
