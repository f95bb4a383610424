#!/usr/bin/env python3
"""Compares kerntop's annotate JSON with objdump -d -M intel on the same object.

annotate_check.py REPORT.json FUNC BASE OBJDUMP.txt EXPECT
  REPORT.json  one kerntop --format json report with --annotate FUNC
  BASE         the runtime address of the object's .text (kerntop's addresses minus BASE are
               objdump's offsets)
  OBJDUMP.txt  objdump -d -M intel --no-show-raw-insn of the object
  EXPECT       "off:hits,off:hits,..." (hex offsets): every other instruction has 0 hits

Both sides print Intel syntax; the normalisation that makes the comparison exact:
  - lower case, every blank removed ("dword ptr [rdx - 4]" == "DWORD PTR [rdx-0x4]");
  - numbers compared by value (capstone prints small immediates in decimal, objdump in hex),
    objdump's bare hex branch targets read as hex, kerntop's targets taken minus BASE;
  - objdump's "<sym+off>" comments dropped; the default scale "*1" and zero displacement
    "+0x0" objdump spells out dropped ("[rax+rax*1+0x0]" == "[rax + rax]").
Exits non-zero, printing each difference, when an instruction's address, size order,
mnemonic, operands or hits differ."""
import json
import re
import sys

BRANCH = re.compile(r"^(j[a-z]+|call|loop[a-z]*|jmp)$")


def norm_ops(mnem, ops, base, side):
    ops = re.sub(r"\s*<[^>]*>", "", ops).lower()
    if BRANCH.match(mnem) and re.fullmatch(r"(0x)?[0-9a-f]+", ops.strip()):
        v = int(ops.strip(), 16)
        if side == "kt":
            v -= base
        return str(v)
    ops = re.sub(r"\s+", "", ops)
    ops = ops.replace("*1]", "]").replace("*1+", "+").replace("*1-", "-")
    ops = re.sub(r"\+0x0\]", "]", ops)
    ops = re.sub(r"(?<![0-9a-z_])(0x[0-9a-f]+|[0-9]+)(?![0-9a-z_])",
                 lambda m: str(int(m.group(1), 0)), ops)
    return ops


def objdump_func(path, func):
    insns, cur = {}, None
    for line in open(path):
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r"^\s*([0-9a-f]+):\t(.*)$", line.rstrip("\n"))
        if m and cur == func:
            text = m.group(2).strip()
            mnem, _, ops = text.partition(" ")
            insns[int(m.group(1), 16)] = (mnem, norm_ops(mnem, ops.strip(), 0, "od"))
    return insns


def main():
    report, func, base, od, expect = sys.argv[1:6]
    base = int(base, 0)
    want_hits = {}
    for kv in filter(None, expect.split(",")):
        k, v = kv.split(":")
        want_hits[int(k, 16)] = int(v)
    rep = json.loads(open(report).read().splitlines()[-1])
    an = [a for a in rep["annotate"] if a["function"] == func]
    if len(an) != 1:
        sys.exit("no annotate entry for %s" % func)
    an = an[0]
    ref = objdump_func(od, func)
    bad = 0
    got = {}
    for i in an["insns"]:
        off = i["addr"] - base
        mnem, _, ops = i["asm"].partition(" ")
        got[off] = (mnem, norm_ops(mnem, ops, base, "kt"), i["hits"])
    # objdump lists the padding after the symbol's end under the same label: compare the
    # instructions inside the function (kerntop's range)
    for off in sorted(got):
        if off not in ref:
            print("kerntop 0x%x %s %s: not an objdump instruction" % (off, *got[off][:2]))
            bad += 1
        elif ref[off] != got[off][:2]:
            print("0x%x: kerntop '%s %s', objdump '%s %s'" % (off, *got[off][:2], *ref[off]))
            bad += 1
        if got[off][2] != want_hits.get(off, 0):
            print("0x%x: %d hits, want %d" % (off, got[off][2], want_hits.get(off, 0)))
            bad += 1
    missing = [o for o in ref if min(got) <= o <= max(got) and o not in got]
    for o in missing:
        print("objdump 0x%x %s %s: missing in kerntop" % (o, *ref[o]))
        bad += 1
    for off in want_hits:
        if off not in got:
            print("expected hits at 0x%x, no such instruction" % off)
            bad += 1
    total = sum(v[2] for v in got.values())
    if total != an["hits"]:
        print("instruction hits sum to %d, the function has %d" % (total, an["hits"]))
        bad += 1
    print("%d instructions compared, %d differences" % (len(got), bad))
    sys.exit(1 if bad else 0)


main()
