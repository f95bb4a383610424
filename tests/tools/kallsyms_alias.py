"""Alias groups of a kallsyms file, for the accuracy tests that compare kerntop with perf.

Two text symbols at one address (memset and __pi_memset) are one function that perf and
kerntop may name differently. alias_map(path) maps every name that shares an address with
another, directly or through a chain of shared addresses, to the smallest name of its group;
names alone at their address are not in the map (look them up with .get(name, name)).
"""


def alias_map(kallsyms):
    parent = {}

    def find(n):
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            # the smaller name is the root, so the root is the group's smallest name
            if rb < ra:
                ra, rb = rb, ra
            parent[rb] = ra

    by_addr = {}
    with open(kallsyms, errors="replace") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 3 and fields[1] in "tTwW":
                by_addr.setdefault(fields[0], set()).add(fields[2])
    for names in by_addr.values():
        if len(names) > 1:
            names = sorted(names)
            for n in names:
                parent.setdefault(n, n)
            for n in names[1:]:
                union(names[0], n)
    return {n: find(n) for n in parent}


if __name__ == "__main__":
    # self-test on a hand-made file: a chain of two addresses makes one group
    import os
    import tempfile

    with tempfile.NamedTemporaryFile("w", delete=False) as t:
        t.write("ffffffff81000000 T memset\nffffffff81000000 T __pi_memset\n"
                "ffffffff81000100 t zeta\nffffffff81000100 t __pi_memset\n"
                "ffffffff81000200 T alone\nffffffff81000300 D data_a\n"
                "ffffffff81000300 D data_b\n")
    m = alias_map(t.name)
    os.unlink(t.name)
    assert m == {"memset": "__pi_memset", "__pi_memset": "__pi_memset",
                 "zeta": "__pi_memset"}, m
    print("ok")
