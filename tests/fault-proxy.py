#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fault-proxy.py: a TCP proxy between an agent and klabd that breaks
result uploads on purpose (tests/t2203-fault-agent.sh, docs/FAULTS.md).

    fault-proxy.py LISTEN-PORT-FILE KLABD-PORT PLAN

PLAN is a comma-separated list, one word per result upload (POST
.../results) in the order they come, then every later upload passes:
  cut   forward the headers and half the body, then close both sides
        (the upload cut off halfway: klabd must store nothing)
  drop  forward the whole upload, then close the agent's side before
        klabd's answer reaches it (stored, but the agent never knows:
        its retry must not store it twice)
  pass  forward it
Everything else is relayed byte for byte.  Prints one line per upload.
The proxy listens on 127.0.0.1, on a free port written to the file."""
import os
import socket
import sys
import threading

LOCK = threading.Lock()
UPLOADS = [0]


def next_plan(plan):
    with LOCK:
        n = UPLOADS[0]
        UPLOADS[0] += 1
    word = plan[n] if n < len(plan) else "pass"
    print("upload %d: %s" % (n + 1, word), flush=True)
    return word


def read_head(sock, buf):
    """Bytes up to the end of the headers (None at EOF), and the rest."""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            return None, buf
        buf += chunk
    i = buf.index(b"\r\n\r\n") + 4
    return buf[:i], buf[i:]


def content_length(head):
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            return int(v.strip())
    return 0


def recv_exact(sock, n, buf):
    while len(buf) < n:
        chunk = sock.recv(65536)
        if not chunk:
            break
        buf += chunk
    return buf[:n], buf[n:]


def read_response(sock, buf):
    """One whole response (skipping 100 Continue): its bytes, the rest."""
    out = b""
    while True:
        head, buf = read_head(sock, buf)
        if head is None:
            return None, buf
        out += head
        if b" 100 " not in head.split(b"\r\n")[0]:
            break
    body, buf = recv_exact(sock, content_length(head), buf)
    return out + body, buf


def serve(client, port, plan):
    server = socket.create_connection(("127.0.0.1", port))
    cbuf = sbuf = b""
    try:
        while True:
            head, cbuf = read_head(client, cbuf)
            if head is None:
                return
            line = head.split(b"\r\n")[0]
            is_upload = line.startswith(b"POST ") and b"/results" in line
            word = next_plan(plan) if is_upload else "pass"
            n = content_length(head)
            if b"100-continue" in head.lower():
                # answer the expectation ourselves; klabd gets no Expect
                head = b"\r\n".join(l for l in head.split(b"\r\n")
                                    if b"100-continue" not in l.lower())
                client.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            body, cbuf = recv_exact(client, n, cbuf)
            if word == "cut":
                server.sendall(head + body[:n // 2])
                return
            server.sendall(head + body)
            resp, sbuf = read_response(server, sbuf)
            if resp is None or word == "drop":
                return
            client.sendall(resp)
    except OSError:
        return
    finally:
        client.close()
        server.close()


def main():
    port_file, port, plan = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(64)
    with open(port_file + ".tmp", "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(port_file + ".tmp", port_file)
    while True:
        c, _ = ls.accept()
        threading.Thread(target=serve, args=(c, port, plan), daemon=True).start()


if __name__ == "__main__":
    main()
