# Generates contexts.perf (and contexts-leaf.perf, the same samples without call chains) plus
# the kallsyms they need: `perf script` (-g) text with one group of samples per execution
# context rule (docs/contexts.md), counted by hand (tests/test_contexts_replay.sh).
# Run from this directory: python3 gen.py
#
# Groups (leaf first; count, CPU, task) and the context each must land in:
#   send    10 cpu0 app       tcp_sendmsg;do_sendfile;__x64_sys_sendfile64;x64_sys_call;...  syscall sendfile64
#   spin     6 cpu0 app       pvm_irq_enable;__raw_callee_save_pvm_irq_enable;
#                             _raw_spin_unlock_irqrestore;tcp_write_xmit;tcp_sendmsg;...      syscall sendfile64
#   recv     6 cpu1 app       tcp_recvmsg;__x64_sys_recvfrom;...                              syscall recvfrom
#   bh       3 cpu1 app       __local_bh_enable_ip;tcp_recvmsg;__x64_sys_recvfrom;...         syscall recvfrom
#   exit     2 cpu0 app       f;do_syscall_64;entry_SYSCALL_64                                syscall entry/exit
#   netrx    8 cpu0 app       f;net_rx_action;handle_softirqs;irq_exit_rcu;sysvec_apic_...;
#                             asm_sysvec_...;tcp_sendmsg;... (a syscall interrupted)          softirq NET_RX
#   ksoft    5 cpu1 ksoftirqd/1  f;net_rx_action;handle_softirqs;run_ksoftirqd;smpboot_thread_fn;
#                             kthread;ret_from_fork;ret_from_fork_asm                         softirq NET_RX (ksoftirqd)
#   timer    3 cpu1 swapper   run_timer_softirq;__do_softirq;irq_exit_rcu;... (pre-6.10)      softirq TIMER
#   disp     2 cpu0 swapper   pvm_irq_enable;handle_softirqs;__irq_exit_rcu;irq_exit_rcu;...  softirq dispatch
#   apic     4 cpu0 app       hrtimer_interrupt;__sysvec_apic_timer_interrupt;...;f;...      hardirq apic_timer_interrupt
#   dev      3 cpu1 swapper   vring_interrupt;__handle_irq_event_percpu;handle_irq_event;
#                             handle_edge_irq;common_interrupt;asm_common_interrupt;do_idle   hardirq vring_interrupt
#   spur     1 cpu1 swapper   asm_spurious_interrupt (only .irqentry.text says so)            hardirq spurious_interrupt
#   anon     1 cpu0 app       handle_edge_irq;common_interrupt;asm_common_interrupt;f         hardirq common_interrupt
#   nmi      1 cpu0 app       perf_event_nmi_handler;nmi_handle;default_do_nmi;exc_nmi;asm_exc_nmi  hardirq nmi
#   pf       4 cpu0 app       handle_mm_fault;do_user_addr_fault;exc_page_fault;asm_exc_page_fault  exception page_fault
#   kwork    5 cpu1 kworker/1:2  f;vmstat_update;process_one_work;worker_thread;kthread;...   kthread kworker:vmstat_update
#   kswapd   3 cpu0 kswapd0   shrink_node;kswapd;kthread;ret_from_fork;ret_from_fork_asm      kthread kswapd0
#   ksidle   1 cpu1 ksoftirqd/1  smpboot_thread_fn;kthread;ret_from_fork;ret_from_fork_asm  kthread ksoftirqd
#   idle     9 cpu0 swapper   default_idle;do_idle;cpu_startup_entry                          idle
#   cpuidle  2 cpu1 swapper   fancy_idle_enter (in .cpuidle.text only);do_idle;...           idle
#   loop     2 cpu1 swapper   tick_nohz_idle_enter;do_idle;cpu_startup_entry                  kthread swapper
#   user     4 cpu1 spinner   user frames only                                                user
#   other    1 cpu0 app       f;ret_from_fork;ret_from_fork_asm                              other ret_from_fork_asm
# 86 samples: 71 kernel, 11 idle, 4 user. IRQ-enabling helpers hold 11 kernel hits (spin 6,
# bh 3, disp 2: 15.5 %); --irq-owner charges them to tcp_write_xmit (6), tcp_recvmsg (3) and
# handle_softirqs (2).
import random

K = 0xffffffff81000000
FUNCS = [
    '_stext',
    # .irqentry.text
    '@__irqentry_text_start', 'asm_common_interrupt', 'asm_sysvec_apic_timer_interrupt',
    'asm_exc_page_fault', 'asm_spurious_interrupt', '@__irqentry_text_end',
    'entry_SYSCALL_64', 'do_syscall_64', 'x64_sys_call', '__x64_sys_sendfile64', 'do_sendfile',
    '__x64_sys_recvfrom', 'tcp_recvmsg', 'tcp_sendmsg', 'tcp_write_xmit',
    'handle_softirqs', '__do_softirq', 'net_rx_action', 'run_timer_softirq', 'run_ksoftirqd',
    'smpboot_thread_fn', 'kthread', 'ret_from_fork', 'ret_from_fork_asm',
    'irq_exit_rcu', '__irq_exit_rcu', 'sysvec_apic_timer_interrupt',
    '__sysvec_apic_timer_interrupt', 'hrtimer_interrupt', 'common_interrupt',
    '__handle_irq_event_percpu', 'handle_irq_event', 'handle_edge_irq', 'vring_interrupt',
    'perf_event_nmi_handler', 'nmi_handle', 'default_do_nmi', 'exc_nmi', 'asm_exc_nmi',
    'exc_page_fault', 'do_user_addr_fault', 'handle_mm_fault',
    'process_one_work', 'worker_thread', 'vmstat_update', 'kswapd', 'shrink_node',
    'do_idle', 'cpu_startup_entry', 'tick_nohz_idle_enter',
    'pvm_irq_enable', '__raw_callee_save_pvm_irq_enable', '_raw_spin_unlock_irqrestore',
    '__local_bh_enable_ip', 'f',
    # .cpuidle.text
    '@__cpuidle_text_start', 'default_idle', 'fancy_idle_enter', '@__cpuidle_text_end',
    '_etext',
]
ADDR = {}
SYMS = []
a = K
for name in FUNCS:
    if name.startswith('@'):  # a section bound: shares the next function's address
        SYMS.append((a, 'T', name[1:]))
        continue
    ADDR[name] = a
    SYMS.append((a, 't' if name.islower() else 'T', name))
    a += 0x100

SYSCALL = ['x64_sys_call', 'do_syscall_64', 'entry_SYSCALL_64']
SEND = ['tcp_sendmsg', 'do_sendfile', '__x64_sys_sendfile64'] + SYSCALL
RECV = ['tcp_recvmsg', '__x64_sys_recvfrom'] + SYSCALL
APIC = ['sysvec_apic_timer_interrupt', 'asm_sysvec_apic_timer_interrupt']
FORK = ['kthread', 'ret_from_fork', 'ret_from_fork_asm']
IDLE = ['do_idle', 'cpu_startup_entry']
USER_ONLY = ['\t    555500001300 spin+0x8 (/usr/bin/app)',
             '\t    7f0000002000 __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)']
TASK = dict(app0=('app', 100, 100), app1=('app', 100, 101), soft=('ksoftirqd/1', 15, 15),
            swapper=('swapper/0', 0, 0), swapper1=('swapper/1', 0, 0),
            kwork=('kworker/1:2', 50, 50), kswapd=('kswapd0', 60, 60), user=('spinner', 300, 300))
GROUPS = [
    ('send', 10, 0, 'app0', SEND),
    ('spin', 6, 0, 'app0', ['pvm_irq_enable', '__raw_callee_save_pvm_irq_enable',
                           '_raw_spin_unlock_irqrestore', 'tcp_write_xmit'] + SEND),
    ('recv', 6, 1, 'app1', RECV),
    ('bh', 3, 1, 'app1', ['__local_bh_enable_ip'] + RECV),
    ('exit', 2, 0, 'app0', ['f', 'do_syscall_64', 'entry_SYSCALL_64']),
    ('netrx', 8, 0, 'app0', ['f', 'net_rx_action', 'handle_softirqs', 'irq_exit_rcu'] + APIC + SEND),
    ('ksoft', 5, 1, 'soft', ['f', 'net_rx_action', 'handle_softirqs', 'run_ksoftirqd',
                             'smpboot_thread_fn'] + FORK),
    ('timer', 3, 1, 'swapper1', ['run_timer_softirq', '__do_softirq', 'irq_exit_rcu'] + APIC + IDLE),
    ('disp', 2, 0, 'swapper', ['pvm_irq_enable', 'handle_softirqs', '__irq_exit_rcu',
                               'irq_exit_rcu'] + APIC + IDLE),
    ('apic', 4, 0, 'app0', ['hrtimer_interrupt', '__sysvec_apic_timer_interrupt'] + APIC +
     ['f'] + SYSCALL),
    ('dev', 3, 1, 'swapper1', ['vring_interrupt', '__handle_irq_event_percpu', 'handle_irq_event',
                               'handle_edge_irq', 'common_interrupt', 'asm_common_interrupt'] + IDLE),
    ('spur', 1, 1, 'swapper1', ['asm_spurious_interrupt']),
    ('anon', 1, 0, 'app0', ['handle_edge_irq', 'common_interrupt', 'asm_common_interrupt', 'f']),
    ('nmi', 1, 0, 'app0', ['perf_event_nmi_handler', 'nmi_handle', 'default_do_nmi', 'exc_nmi',
                           'asm_exc_nmi']),
    ('pf', 4, 0, 'app0', ['handle_mm_fault', 'do_user_addr_fault', 'exc_page_fault',
                          'asm_exc_page_fault']),
    ('kwork', 5, 1, 'kwork', ['f', 'vmstat_update', 'process_one_work', 'worker_thread'] + FORK),
    ('kswapd', 3, 0, 'kswapd', ['shrink_node', 'kswapd'] + FORK),
    ('ksidle', 1, 1, 'soft', ['smpboot_thread_fn'] + FORK),
    ('idle', 9, 0, 'swapper', ['default_idle'] + IDLE),
    ('cpuidle', 2, 1, 'swapper1', ['fancy_idle_enter'] + IDLE),
    ('loop', 2, 1, 'swapper1', ['tick_nohz_idle_enter'] + IDLE),
    ('user', 4, 1, 'user', None),
    ('other', 1, 0, 'app0', ['f', 'ret_from_fork', 'ret_from_fork_asm']),
]


def main():
    with open('modules', 'w') as fp:
        fp.write('dummymod 16384 0 - Live 0xffffffffc0002000\n')
    with open('kallsyms', 'w') as fp:
        for addr, t, name in SYMS:
            fp.write('%016x %s %s\n' % (addr, t, name))
    samples = []
    for label, count, cpu, task, frames in GROUPS:
        samples += [(cpu, task, frames)] * count
    random.seed(13)
    random.shuffle(samples)
    out = []
    for i, (cpu, task, frames) in enumerate(samples):
        comm, pid, tid = TASK[task]
        t = 70 + i * 0.002
        out.append('%s %d/%d [%03d] %.6f:    1003009 cpu-clock:pppH: ' % (comm, pid, tid, cpu, t))
        if frames is None:
            out += USER_ONLY
        for j, f in enumerate(frames or []):
            addr = ADDR[f] + (0x10 if j == 0 else 0x20)  # leaf, then return addresses
            out.append('\t%16x %s+0x%x ([kernel.kallsyms])' % (addr, f, addr & 0xff))
        out.append('')
    with open('contexts.perf', 'w') as fp:
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
    with open('contexts-leaf.perf', 'w') as fp:
        fp.write('\n'.join(leaf) + '\n')


if __name__ == '__main__':
    main()
