#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A slowloris against klabd, for tests/t2012-http-slowloris.sh and
bench/bench_slowloris.sh (issue 29).

  slowloris.py [--body=SIZE|--body=chunked] PORT N INTERVAL SRC...

N connections to 127.0.0.1:PORT, spread round-robin over the source
addresses SRC (127.0.0.X).  Each sends the start of a request
("GET / HTTP/1.1" and a Host line) and then one more byte of a header
that never ends every INTERVAL seconds, so that an idle timeout never
fires and the request never arrives.  With --body, each sends whole
headers of a POST /login instead, declaring a body of SIZE bytes (or a
chunked one), and then drips the body a byte at a time.  A connection the server closes (or
refuses) is opened again at the next tick.  Once the first connections
are up it prints one line, "open=A", then every INTERVAL a line
"t=S open=A closed=B reopened=C failed=D" (totals since the start), and
runs until SIGTERM.
"""
import errno
import select
import signal
import socket
import sys
import time

START = b"GET / HTTP/1.1\r\nHost: klab\r\n"
DRIP = b"X-Slow: " + b"a" * 60 + b"\r\n"
POST = (b"POST /login HTTP/1.1\r\nHost: klab\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\n")


def body_mode(arg):
    """START and DRIP for --body=SIZE or --body=chunked."""
    global START, DRIP
    if arg == "chunked":
        START = POST + b"Transfer-Encoding: chunked\r\n\r\n"
        DRIP = b"1\r\na\r\n"
    else:
        START = POST + b"Content-Length: %d\r\n\r\n" % int(arg)
        DRIP = b"a"


class Loris:
    def __init__(self, port, srcs):
        self.port = port
        self.srcs = srcs
        self.socks = {}      # fd -> [socket, bytes of DRIP sent, src]
        self.poller = select.poll()
        self.closed = self.reopened = self.failed = 0

    def open(self, src):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.bind((src, 0))
            rc = s.connect_ex(("127.0.0.1", self.port))
        except OSError:
            s.close()
            self.failed += 1
            return False
        if rc not in (0, errno.EINPROGRESS):
            s.close()
            self.failed += 1
            return False
        self.socks[s.fileno()] = [s, -1, src]
        self.poller.register(s, select.POLLIN)
        return True

    def drop(self, fd):
        s, _, src = self.socks.pop(fd)
        self.poller.unregister(fd)
        s.close()
        self.closed += 1
        return src

    def drip(self):
        """One byte more on every connection: the request's start on a
        new one (its connect done by now), then DRIP, byte by byte."""
        for fd in list(self.socks):
            ent = self.socks[fd]
            data = START if ent[1] < 0 else DRIP[ent[1] % len(DRIP):][:1]
            try:
                ent[0].send(data)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                self.drop(fd)
                continue
            ent[1] += 1

    def watch(self, ms, dropped):
        """Wait up to ms for the server to close or answer; closed ones
        go to dropped (their source addresses)."""
        for fd, _ in self.poller.poll(ms):
            if fd not in self.socks:
                continue
            try:
                got = self.socks[fd][0].recv(4096)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                got = b""
            # an answer (a 408, a 503) or the end: the slot is gone
            dropped.append(self.drop(fd))


def main():
    args = sys.argv[1:]
    if args and args[0].startswith("--body="):
        body_mode(args.pop(0)[len("--body="):])
    port, n, interval = int(args[0]), int(args[1]), float(args[2])
    srcs = args[3:] or ["127.0.0.2"]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    lo = Loris(port, srcs)
    for i in range(n):
        lo.open(srcs[i % len(srcs)])
    t0 = time.monotonic()
    lo.watch(500, [])
    print("open=%d" % len(lo.socks), flush=True)
    dropped, tick = [], time.monotonic()
    while True:
        tick += interval
        while True:
            left = tick - time.monotonic()
            if left <= 0:
                break
            lo.watch(int(left * 1000) + 1, dropped)
        for src in dropped:
            if lo.open(src):
                lo.reopened += 1
        dropped = []
        while len(lo.socks) + len(dropped) < n:
            if not lo.open(srcs[len(lo.socks) % len(srcs)]):
                break
            lo.reopened += 1
        lo.drip()
        print("t=%d open=%d closed=%d reopened=%d failed=%d" %
              (time.monotonic() - t0, len(lo.socks), lo.closed,
               lo.reopened, lo.failed), flush=True)


if __name__ == "__main__":
    main()
