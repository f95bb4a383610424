#!/usr/bin/env python3
"""pprof_total.py FILE...: the sum of the first sample value (samples/count) over gzipped pprof
profiles, read with a minimal protobuf decoder (no go, no library): test_alloc_fail.sh checks with
it that the profiles --push sent carry every sample."""
import gzip
import sys

def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        f, wt = k >> 3, k & 7
        if wt == 0: v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i); v = b[i:i + n]; i += n
        elif wt == 1: v = b[i:i + 8]; i += 8
        elif wt == 5: v = b[i:i + 4]; i += 4
        else: raise ValueError(wt)
        yield f, wt, v
total = 0
for path in sys.argv[1:]:
    for f, wt, v in fields(gzip.decompress(open(path, "rb").read())):
        if f != 2: continue
        for g, gw, gv in fields(v):
            if g != 2: continue
            if gw == 2:
                x, j = varint(gv, 0); total += x
            else:
                total += gv
            break
print(total)
