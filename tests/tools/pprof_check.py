#!/usr/bin/env python3
"""Reads `go tool pprof -raw` output of a kerntop profile and checks it against kerntop's own
JSON report of the same data, or prints parts of it for the shell tests.

  pprof_check.py compare RAW JSON   one "PASS what" / "FAIL what: detail" line per figure:
                                     total, functions, modules, cpus, contexts, stacks (-g)
  pprof_check.py total RAW...       samples/count summed over every profile
  pprof_check.py locations RAW      one line per location: func file:line|func file:line...
  pprof_check.py mappings RAW       one line per mapping: file build_id flags
  pprof_check.py labels RAW         the label keys used, sorted, comma-separated
  pprof_check.py chains RAW         the longest location chain of any sample
"""
import collections
import json
import re
import sys

SAMPLE_RE = re.compile(r"^\s+(-?\d+)\s+(-?\d+):((?:\s+\d+)*)\s*$")
LABEL_RE = re.compile(r"(\w+):\[([^\]]*)\]")
LOC_RE = re.compile(r"^\s+(\d+): 0x([0-9a-f]+)(?: M=(\d+))? (.*) s=\d+$")
LINE_RE = re.compile(r"^\s+(\S.*) s=\d+$")
MAP_RE = re.compile(r"^(\d+): 0x([0-9a-f]+)/0x([0-9a-f]+)/0x([0-9a-f]+)\s+(\S+)\s*(.*)$")


def parse(path):
    samples, locs, maps = [], {}, {}
    section, cur = None, None
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line in ("Samples:", "Locations", "Mappings"):
                section = line
                continue
            if section == "Samples:":
                m = SAMPLE_RE.match(line)
                if m:
                    cur = {"count": int(m.group(1)), "ns": int(m.group(2)),
                           "locs": [int(x) for x in m.group(3).split()], "labels": {}}
                    samples.append(cur)
                elif cur is not None:
                    for k, v in LABEL_RE.findall(line):
                        # numbers carry a unit ("0 cpu"); strings may hold spaces
                        cur["labels"][k] = v.split(" ")[0] if k in ("cpu", "pid", "tid") else v
            elif section == "Locations":
                m = LOC_RE.match(line)
                if m:
                    cur = {"addr": int(m.group(2), 16), "map": int(m.group(3) or 0),
                           "lines": [m.group(4)]}
                    locs[int(m.group(1))] = cur
                else:
                    m = LINE_RE.match(line)
                    if m and cur is not None:
                        cur["lines"].append(m.group(1))
            elif section == "Mappings":
                m = MAP_RE.match(line)
                if m:
                    rest = m.group(6).split()
                    flags = "".join(x for x in rest if x.startswith("["))
                    bid = " ".join(x for x in rest if not x.startswith("["))
                    maps[int(m.group(1))] = {"file": m.group(5), "build_id": bid,
                                             "flags": flags}
    return samples, locs, maps


def func_of(line):
    """'name file:line' -> name (the function of a location's line)."""
    return line.rsplit(" ", 1)[0]


def module_of(loc, maps):
    if not loc["map"]:
        return "[user]" if func_of(loc["lines"][-1]) == "[user]" else "[unknown]"
    f = maps[loc["map"]]["file"]
    return "vmlinux" if f == "[kernel.kallsyms]" else f.strip("[]")


def folded(name, module):
    """A frame as kerntop's folded output writes it."""
    name = re.sub(r"[ ;\n]", "_", name)
    if module == "[user]":
        return name
    if module == "vmlinux":
        return name + "_[k]"
    return name + "_[" + re.sub(r"[ ;]", "_", module.replace("[", "").replace("]", "")) + "]"


def diff(a, b):
    keys = sorted(set(a) | set(b), key=str)
    return "; ".join("%s pprof %s json %s" % (k, a.get(k, 0), b.get(k, 0))
                     for k in keys if a.get(k, 0) != b.get(k, 0))[:600]


def compare(rawpath, jsonpath):
    samples, locs, maps = parse(rawpath)
    with open(jsonpath) as f:
        rep = [json.loads(x) for x in f if x.strip()][-1]
    out = []

    def check(what, a, b):
        a = {k: v for k, v in a.items() if v}
        b = {k: v for k, v in b.items() if v}
        if a == b:
            out.append("PASS %s (%d entries, %d hits)" % (what, len(a), sum(a.values())))
        else:
            out.append("FAIL %s: %s" % (what, diff(a, b)))

    total = sum(s["count"] for s in samples)
    check("total samples", {"all": total}, {"all": rep["samples"]})
    pf, pm, pc, ps = (collections.Counter() for _ in range(4))
    for s in samples:
        leaf = locs[s["locs"][0]]
        mod = module_of(leaf, maps)
        pf[(mod, func_of(leaf["lines"][-1]))] += s["count"]
        pm[mod] += s["count"]
        pc[int(s["labels"].get("cpu", -1))] += s["count"]
        frames = []
        for lid in reversed(s["locs"]):
            loc = locs[lid]
            frames.append(folded(func_of(loc["lines"][-1]), module_of(loc, maps)))
        ps[tuple(frames)] += s["count"]
    jf = collections.Counter()
    idle = collections.Counter()
    for r in rep["functions"]:
        jf[(r["module"], r["name"])] += r["hits"]
        if r["idle"]:
            idle[r["module"]] += r["hits"]
    check("hits per function", pf, jf)
    jm = collections.Counter()
    for r in rep["modules"]:
        if r["name"] != "[idle]":
            jm[r["name"]] += r["hits"]
        else:
            check("[idle] = the idle functions", {"idle": r["hits"]},
                  {"idle": sum(idle.values())})
    jm.update(idle)  # pprof keeps idle functions in their own module
    check("hits per module", pm, jm)
    if any("cpu" in s["labels"] for s in samples):  # --pprof-labels may leave it out
        check("hits per cpu label", pc,
              collections.Counter({r["cpu"]: r["hits"] for r in rep["cpu"]}))
    if "contexts" in rep and any("context" in s["labels"] for s in samples):
        pctx = collections.Counter()
        for s in samples:
            pctx[s["labels"].get("context", "unknown")] += s["count"]
        jctx = collections.Counter()
        for r in rep["contexts"]:
            jctx[(r["kind"] + " " + r["name"]).strip()] += r["hits"]
        check("hits per context label", pctx, jctx)
    if "stacks" in rep:
        js = collections.Counter()
        for r in rep["stacks"]:
            js[tuple(r["frames"])] += r["hits"]
        check("hits per stack", ps, js)
    print("\n".join(out))
    return 0


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "compare":
        return compare(args[0], args[1])
    if cmd == "total":
        print(sum(s["count"] for a in args for s in parse(a)[0]))
    elif cmd == "locations":
        samples, locs, maps = parse(args[0])
        for i in sorted(locs):
            print("|".join(locs[i]["lines"]))
    elif cmd == "mappings":
        for m in parse(args[0])[2].values():
            print(m["file"], m["build_id"] or "-", m["flags"])
    elif cmd == "labels":
        print(",".join(sorted({k for s in parse(args[0])[0] for k in s["labels"]})))
    elif cmd == "chains":
        print(max((len(s["locs"]) for s in parse(args[0])[0]), default=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
