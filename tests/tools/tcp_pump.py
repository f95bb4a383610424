#!/usr/bin/env python3
"""Loopback TCP load for the call-stack tests: a sender and a receiver on 127.0.0.1 move
data as fast as they can for SECONDS (default 3), then both exit. Never any other address.

usage: tcp_pump.py [SECONDS] [--ready FILE]   (FILE is created once data flows)
"""
import os
import socket
import sys
import threading
import time


def main():
    args = sys.argv[1:]
    ready = None
    if "--ready" in args:
        i = args.index("--ready")
        ready = args[i + 1]
        del args[i:i + 2]
    secs = float(args[0]) if args else 3.0
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))  # loopback only, any free port
    srv.listen(1)
    moved = [0]

    def receive():
        c, _ = srv.accept()
        buf = bytearray(1 << 16)
        while True:
            n = c.recv_into(buf)
            if not n:
                break
            moved[0] += n
        c.close()

    t = threading.Thread(target=receive, daemon=True)
    t.start()
    snd = socket.create_connection(srv.getsockname())
    data = b"k" * (1 << 16)
    end = time.monotonic() + secs
    first = True
    while time.monotonic() < end:
        snd.sendall(data)
        if first and ready:
            open(ready, "w").close()
            first = False
    snd.close()
    t.join(5)
    print("moved %d bytes" % moved[0], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
