#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The far ends of klab's alerts for tests/t2020-alerts.sh and
# bench/bench_alerts.sh: an SMTP sink (aiosmtpd) and a webhook receiver
# (http.server) on 127.0.0.1, in one process.
#
#   t2020-alerts-sink.py DIR SECRET
#
# Writes "smtp PORT" and "http PORT" to DIR/ports once both listen.  Each
# mail lands in DIR/mail-N.eml (the envelope in DIR/mail-N.env).  The
# webhook receiver answers POST /ok after verifying it as docs/API.md
# says: X-Klab-Signature is the HMAC-SHA256 of "TIMESTAMP.BODY" under
# SECRET, TIMESTAMP (X-Klab-Timestamp, unix seconds) at most 300 s from
# the receiver's clock (200 and DIR/hook-N.json holding the path,
# "verified", "why", the headers, the raw body and the parsed one; 401
# and "verified": false, "why" saying what failed, otherwise).  The
# receiver's clock runs DIR/skew seconds ahead when that file exists (a
# delivery replayed later, without waiting).  POST /fail always answers
# 500; POST /flaky answers
# 503 while DIR/down exists, else as /ok; POST /count only counts (for
# the benchmark, no file per request).  Every request is counted in
# DIR/requests.
import hashlib
import hmac
import itertools
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from aiosmtpd.controller import Controller

DIR, SECRET = sys.argv[1], sys.argv[2].encode()
seq = itertools.count(1)
lock = threading.Lock()
counts = {"requests": 0}


def next_name(prefix, ext):
    return os.path.join(DIR, "%s-%d.%s" % (prefix, next(seq), ext))


def verify(secret, ts, body, sig, now, max_age=300):
    """docs/API.md's check of a webhook: "" when it holds, else why not."""
    if not ts.isdigit():
        return "no X-Klab-Timestamp"
    if abs(now - int(ts)) > max_age:
        return "timestamp %s is %d s from now" % (ts, now - int(ts))
    msg = ts.encode() + b"." + body
    want = "sha256=" + hmac.new(secret, msg, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(want, sig):
        return "bad signature"
    return ""


def now():
    """The receiver's clock: real time plus DIR/skew seconds."""
    try:
        with open(os.path.join(DIR, "skew")) as f:
            skew = int(f.read().strip() or "0")
    except FileNotFoundError:
        skew = 0
    return int(time.time()) + skew


class Mails:
    async def handle_DATA(self, server, session, envelope):
        name = next_name("mail", "eml")
        with open(name[:-4] + ".env", "w") as f:
            f.write("from %s\n" % envelope.mail_from)
            for r in envelope.rcpt_tos:
                f.write("to %s\n" % r)
        with open(name + ".tmp", "wb") as f:
            f.write(envelope.original_content)
        os.rename(name + ".tmp", name)
        return "250 OK"


class Hooks(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, code):
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        with lock:
            counts["requests"] += 1
            with open(os.path.join(DIR, "requests"), "w") as f:
                f.write("%d\n" % counts["requests"])
        if self.path == "/count":
            return self.answer(200)
        if self.path == "/fail":
            return self.answer(500)
        if self.path == "/flaky" and os.path.exists(os.path.join(DIR, "down")):
            return self.answer(503)
        ts = self.headers.get("X-Klab-Timestamp", "")
        sig = self.headers.get("X-Klab-Signature", "")
        why = verify(SECRET, ts, body, sig, now())
        ok = why == ""
        rec = {"path": self.path, "verified": ok, "why": why,
               "event": self.headers.get("X-Klab-Event", ""),
               "delivery": self.headers.get("X-Klab-Delivery", ""),
               "timestamp": ts, "signature": sig, "raw": body.decode(),
               "body": json.loads(body.decode())}
        name = next_name("hook", "json")
        with open(name + ".tmp", "w") as f:
            json.dump(rec, f)
        os.rename(name + ".tmp", name)
        self.answer(200 if ok else 401)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    smtp_port = free_port()
    smtp = Controller(Mails(), hostname="127.0.0.1", port=smtp_port)
    smtp.start()
    http = ThreadingHTTPServer(("127.0.0.1", 0), Hooks)
    with open(os.path.join(DIR, "ports.tmp"), "w") as f:
        f.write("smtp %d\nhttp %d\n" % (smtp_port, http.server_address[1]))
    os.rename(os.path.join(DIR, "ports.tmp"), os.path.join(DIR, "ports"))
    try:
        http.serve_forever()
    finally:
        smtp.stop()


if __name__ == "__main__":
    main()
