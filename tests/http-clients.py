#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile HTTP clients for tests/t2004-http-limits.sh.

  http-clients.py idle PORT N SRC...       N connections, nothing sent
  http-clients.py upload PORT N SIZE SENT  N POSTs declaring SIZE bytes,
                                           SENT of them sent, then stalled
  http-clients.py expect PORT SIZE         one POST declaring SIZE bytes
                                           with "Expect: 100-continue" and
                                           no body: prints what klabd
                                           answers within 5 s

The connections are spread round-robin over the source addresses SRC
(127.0.0.X).  Once they are open the helper prints one line,
"open=A closed=B failed=C answers=S:N,..." (A still open, B closed by
klabd within a second, C never connected, N answered with status S),
and keeps the open ones until it gets SIGTERM.
"""
import os
import select
import signal
import socket
import sys
import time


def connect_all(port, n, srcs):
    """Non-blocking connects, n of them; returns (sockets, failed)."""
    pending = {}
    failed = 0
    poller = select.poll()
    for i in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.bind((srcs[i % len(srcs)], 0))
            s.connect_ex(("127.0.0.1", port))
        except OSError:
            s.close()
            failed += 1
            continue
        pending[s.fileno()] = s
        poller.register(s, select.POLLOUT)
    done = []
    deadline = time.monotonic() + 10
    while pending and time.monotonic() < deadline:
        for fd, _ in poller.poll(500):
            s = pending.pop(fd)
            poller.unregister(fd)
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                s.close()
                failed += 1
            else:
                done.append(s)
    for s in pending.values():
        s.close()
        failed += 1
    return done, failed


def count_closed(socks, answers):
    """Sockets klabd closed (EOF or reset) are dropped and counted; the
    status of what klabd answered on any of them goes to answers."""
    poller = select.poll()
    byfd = {}
    for s in socks:
        s.setblocking(False)
        byfd[s.fileno()] = s
        poller.register(s, select.POLLIN)
    closed = 0
    for fd, _ in poller.poll(0):
        s = byfd[fd]
        got, eof = b"", False
        while True:
            try:
                data = s.recv(65536)
            except BlockingIOError:
                break
            except OSError:
                data = b""
            if not data:
                eof = True
                break
            got += data
        if got.startswith(b"HTTP/1.1 "):
            code = got[9:12].decode()
            answers[code] = answers.get(code, 0) + 1
        if eof:
            closed += 1
            socks.remove(s)
            s.close()
    return closed


def auth_header():
    """The caller's bearer token ($KLAB_TOKEN), if any, as a header line."""
    tok = os.environ.get("KLAB_TOKEN", "")
    return "Authorization: Bearer %s\r\n" % tok if tok else ""


def send_uploads(port, socks, size, sent):
    head = ("POST /api/import?format=klab HTTP/1.1\r\n"
            "Host: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
            "%sContent-Length: %d\r\n\r\n"
            % (port, auth_header(), size)).encode()
    body = b"{" + b" " * (sent - 1)
    for s in socks:
        s.setblocking(True)
        s.settimeout(5)
        try:
            s.sendall(head + body)
        except OSError:
            pass


def expect(port, size):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(("POST /api/import?format=klab HTTP/1.1\r\n"
               "Host: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
               "%sExpect: 100-continue\r\nContent-Length: %d\r\n\r\n"
               % (port, auth_header(), size)).encode())
    got = b""
    try:
        while True:
            data = s.recv(65536)
            if not data:
                break
            got += data
    except OSError:
        pass
    sys.stdout.write(got.decode("utf-8", "replace"))
    return 0


def main():
    if sys.argv[1:2] == ["expect"] and len(sys.argv) == 4:
        return expect(int(sys.argv[2]), int(sys.argv[3]))
    if len(sys.argv) < (5 if sys.argv[1:2] == ["idle"] else 6):
        sys.stderr.write(__doc__)
        return 2
    port, n = int(sys.argv[2]), int(sys.argv[3])
    if sys.argv[1] == "idle":
        srcs = sys.argv[4:]
    else:
        srcs = ["127.0.0.1"]
    socks, failed = connect_all(port, n, srcs)
    if sys.argv[1] == "upload":
        send_uploads(port, socks, int(sys.argv[4]), int(sys.argv[5]))
    time.sleep(1)
    answers = {}
    closed = count_closed(socks, answers)
    print("open=%d closed=%d failed=%d answers=%s" % (
        len(socks), closed, failed,
        ",".join("%s:%d" % kv for kv in sorted(answers.items()))),
        flush=True)
    signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
    while True:
        signal.pause()


if __name__ == "__main__":
    sys.exit(main())
