#!/usr/bin/env python3
"""Strict checker of folded stacks (Brendan Gregg's stackcollapse format, read by
flamegraph.pl, speedscope, inferno): stricter than the readers, so output that passes here
is read the same way by all of them.

Rules: the file is empty or ends with a newline; every line is `frame(;frame)* COUNT`, one
space before COUNT, COUNT a positive decimal integer without leading zeros; frames are
non-empty and hold no whitespace, ';' or control characters; no blank line, no CR, no
trailing blank; no stack appears twice (a writer must aggregate).

usage: folded_check.py FILE [--samples N] [--max-frames N] [--lines N] [--quiet]
Prints `lines=L samples=S max_frames=M` and exits 0, or prints the first errors and exits 1.
"""
import re
import sys

LINE = re.compile(r"^(\S+) ([1-9][0-9]*)$")
FRAME = re.compile(r"^[^\s;\x00-\x1f\x7f]+$")


def check(text, samples=None, max_frames=None, nlines=None):
    errs = []
    if text and not text.endswith("\n"):
        errs.append("the last line has no newline")
    seen = {}
    total = 0
    deepest = 0
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for no, line in enumerate(lines, 1):
        if "\r" in line:
            errs.append("line %d: carriage return" % no)
            continue
        m = LINE.match(line)
        if not m:
            errs.append("line %d: not 'frame;frame COUNT': %r" % (no, line[:200]))
            continue
        frames = m.group(1).split(";")
        for f in frames:
            if not f or not FRAME.match(f):
                errs.append("line %d: bad frame %r" % (no, f))
                break
        if m.group(1) in seen:
            errs.append("line %d: stack repeated from line %d" % (no, seen[m.group(1)]))
        seen[m.group(1)] = no
        total += int(m.group(2))
        deepest = max(deepest, len(frames))
        if max_frames is not None and len(frames) > max_frames:
            errs.append("line %d: %d frames, more than %d" % (no, len(frames), max_frames))
    if samples is not None and total != samples:
        errs.append("counts sum to %d, want %d samples" % (total, samples))
    if nlines is not None and len(lines) != nlines:
        errs.append("%d lines, want %d" % (len(lines), nlines))
    return errs, len(lines), total, deepest


def main(argv):
    opts = {"--samples": None, "--max-frames": None, "--lines": None}
    quiet = False
    files = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in opts:
            opts[a] = int(argv[i + 1])
            i += 2
            continue
        if a == "--quiet":
            quiet = True
        else:
            files.append(a)
        i += 1
    if len(files) != 1:
        print(__doc__.strip().split("\n\n")[-1], file=sys.stderr)
        return 2
    with open(files[0], "rb") as fp:
        raw = fp.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        print("%s: not UTF-8 (%s)" % (files[0], e))
        return 1
    errs, n, total, deepest = check(text, opts["--samples"], opts["--max-frames"], opts["--lines"])
    for e in errs[:20]:
        print("%s: %s" % (files[0], e))
    if not quiet or errs:
        print("lines=%d samples=%d max_frames=%d" % (n, total, deepest))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
