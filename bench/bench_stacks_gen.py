#!/usr/bin/env python3
"""Writes the inputs of bench/bench_stacks.sh into DIR: the same N samples as `perf script`
text with call chains (g.txt) and without them (nog.txt: the leaf on the sample line, as
perf script prints a recording made without -g), plus kallsyms and modules for them.

usage: bench_stacks_gen.py DIR N [NCPUS [DEPTH]]
Stacks: 4000 distinct chains of 4..24 frames (mean about 13) walked over a call graph of
600 kernel functions and 2 modules, drawn with a Zipf-like weight, on 2 CPUs at 997 Hz.
NCPUS spreads the samples over that many CPUs, each at 997 Hz (256: the scale issue's
machine); DEPTH makes every chain exactly DEPTH frames (32: perf's default --max-stack is
127, kerntop's 32).
"""
import os
import random
import sys


def main():
    d, n = sys.argv[1], int(sys.argv[2])
    ncpus = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    depth = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    rnd = random.Random(42)
    base = 0xffffffff81000000
    funcs = []  # (addr, name, dso)
    with open(os.path.join(d, "kallsyms"), "w") as ks:
        ks.write("%016x T _stext\n" % base)
        for i in range(600):
            a = base + 0x1000 + i * 0x200
            funcs.append((a, "kfunc_%d" % i, "[kernel.kallsyms]"))
            ks.write("%016x %s kfunc_%d\n" % (a, "Tt"[i & 1], i))
        ks.write("%016x T _etext\n" % (base + 0x1000 + 600 * 0x200))
        for m, mb in (("netdrv", 0xffffffffc0100000), ("fsmod", 0xffffffffc0200000)):
            for i in range(50):
                a = mb + 0x100 + i * 0x100
                funcs.append((a, "%s_fn%d" % (m, i), "[%s]" % m))
                ks.write("%016x t %s_fn%d\t[%s]\n" % (a, m, i, m))
    with open(os.path.join(d, "modules"), "w") as mf:
        mf.write("netdrv 65536 0 - Live 0xffffffffc0100000\n")
        mf.write("fsmod 65536 0 - Live 0xffffffffc0200000\n")
    # Each function calls into a few "deeper" ones: chains are walks from roots to leaves.
    nf = len(funcs)
    callees = [[rnd.randrange(i + 1, min(nf, i + 25)) for _ in range(3)] if i < nf - 1 else []
               for i in range(nf)]
    chains = []
    for _ in range(4000):
        want = depth or rnd.randint(4, 24)
        f = rnd.randrange(0, 40)  # entry points
        walk = [f]
        while len(walk) < want and (callees[f] or depth):
            # a fixed depth past the deepest function recurses in it, as real code does
            f = rnd.choice(callees[f]) if callees[f] else f
            walk.append(f)
        chains.append(walk[::-1])  # leaf first
    weights = [1.0 / (i + 1) for i in range(len(chains))]
    picks = rnd.choices(range(len(chains)), weights=weights, k=n)
    lines_g = {}
    lines_leaf = {}
    for c in set(picks):
        fr = []
        for j, fi in enumerate(chains[c]):
            a, name, dso = funcs[fi]
            off = 0x10 + (j * 7 + c) % 0x1e0 if dso == "[kernel.kallsyms]" else 0x8 + (c % 0xf0)
            fr.append("\t%16x %s+0x%x (%s)\n" % (a + off, name, off, dso))
        lines_g[c] = "".join(fr)
        lines_leaf[c] = fr[0][1:].lstrip()
    tasks = [("app%d" % i, 1000 + i) for i in range(16)]
    with open(os.path.join(d, "g.txt.tmp"), "w") as g, open(os.path.join(d, "nog.txt.tmp"), "w") as ng:
        for i, c in enumerate(picks):
            comm, tid = tasks[c % 16]
            hdr = "%s %d/%d [%03d] %.6f:    1003009 cpu-clock:pppH: " % (
                comm, tid, tid, i % ncpus, 1000 + (i // ncpus) / 997.0)
            g.write(hdr + "\n" + lines_g[c] + "\n")
            ng.write(hdr + lines_leaf[c])
    os.rename(os.path.join(d, "g.txt.tmp"), os.path.join(d, "g.txt"))
    os.rename(os.path.join(d, "nog.txt.tmp"), os.path.join(d, "nog.txt"))
    frames = sum(len(chains[c]) for c in picks)
    print("generated %d samples, %d distinct stacks, %.1f frames per sample" %
          (n, len(set(picks)), frames / n))


if __name__ == "__main__":
    main()
