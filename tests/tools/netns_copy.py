#!/usr/bin/env python3
"""TCP file copy with sendfile(2) between two network namespaces the caller made (the
contexts live test): `recv` listens on ADDR:PORT and reads every connection to its end,
`send` connects and sends FILE with sendfile, again and again, for SECONDS. Both stop on
their own (bounded loops); recv after SECONDS + 10 at the latest.

usage: netns_copy.py recv ADDR PORT SECONDS [--ready FILE]
       netns_copy.py send ADDR PORT SECONDS FILE [--ready FILE]
"""
import os
import socket
import sys
import time


def recv(addr, port, secs, ready):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, port))
    srv.listen(4)
    srv.settimeout(secs + 10)
    if ready:
        open(ready, "w").close()
    moved = 0
    end = time.monotonic() + secs + 10
    buf = bytearray(1 << 16)
    while time.monotonic() < end:
        try:
            c, _ = srv.accept()
        except socket.timeout:
            break
        c.settimeout(10)
        while True:
            try:
                n = c.recv_into(buf)
            except socket.timeout:
                n = 0
            if not n:
                break
            moved += n
        c.close()
        break
    print("received %d bytes" % moved, file=sys.stderr)
    return 0


def send(addr, port, secs, path, ready):
    deadline = time.monotonic() + 10
    while True:
        try:
            s = socket.create_connection((addr, port), timeout=2)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    s.settimeout(None)
    size = os.path.getsize(path)
    moved = 0
    first = True
    end = time.monotonic() + secs
    with open(path, "rb") as f:
        while time.monotonic() < end:
            off = 0
            while off < size:
                n = os.sendfile(s.fileno(), f.fileno(), off, size - off)
                if n <= 0:
                    break
                off += n
            moved += off
            if first and ready:
                open(ready, "w").close()
                first = False
    s.close()
    print("sent %d bytes" % moved, file=sys.stderr)
    return 0


def main():
    args = sys.argv[1:]
    ready = None
    if "--ready" in args:
        i = args.index("--ready")
        ready = args[i + 1]
        del args[i:i + 2]
    if len(args) >= 4 and args[0] == "recv":
        return recv(args[1], int(args[2]), float(args[3]), ready)
    if len(args) >= 5 and args[0] == "send":
        return send(args[1], int(args[2]), float(args[3]), args[4], ready)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
