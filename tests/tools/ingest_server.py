#!/usr/bin/env python3
"""A stand-in for a Pyroscope server on 127.0.0.1, for tests/test_push.sh.

  ingest_server.py DIR MODE     MODE: ok (200), 500 (always fails) or hang (never answers)

Listens on an ephemeral port, written to DIR/port once it accepts. Each request is stored as
DIR/req-N.query (the request line's target), DIR/req-N.headers and DIR/req-N.body (N from 1,
in arrival order). It ends by itself after 300 s, so a failed test never leaves it behind.
"""
import http.server
import os
import sys
import threading

DIR, MODE = sys.argv[1], sys.argv[2]
lock = threading.Lock()
count = [0]
forever = threading.Event()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        with lock:
            count[0] += 1
            base = os.path.join(DIR, "req-%d" % count[0])
        with open(base + ".headers", "w") as f:
            f.write(str(self.headers))
        with open(base + ".body", "wb") as f:
            f.write(body)
        with open(base + ".query", "w") as f:  # last: its presence means the others are there
            f.write(self.path + "\n")
        if MODE == "hang":
            forever.wait(300)
            return
        code = 200 if MODE == "ok" else 500
        msg = b"ok\n" if code == 200 else b"ingester unavailable\n"
        self.send_response(code)
        self.send_header("Content-Length", str(len(msg)))
        self.end_headers()
        self.wfile.write(msg)

    def log_message(self, fmt, *args):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
srv.daemon_threads = True
with open(os.path.join(DIR, "port.tmp"), "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
stopper = threading.Timer(300, srv.shutdown)
stopper.daemon = True
stopper.start()
srv.serve_forever()
