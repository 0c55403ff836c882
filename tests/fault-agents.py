#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fault-agents.py: N scripted agents of remote rigs r0..rN-1 (tokens
t0..tN-1) for tests/t2205-fault-klabd-kill.sh (docs/FAULTS.md).

    fault-agents.py take   URL N OUT      register, poll until each rig holds
                                          a job; OUT: "rig job" lines
    fault-agents.py upload URL JOBS OUT   every job's results at once, each
                                          body sent slowly (rig i over
                                          0.3 + 0.1 i s); OUT: "job status"
                                          (000: no answer)
    fault-agents.py retry  URL JOBS OUT   the same uploads, at full speed,
                                          for the jobs not acknowledged

Uploads speak HTTP/1.1 on a plain socket, so a body can be trickled."""
import json
import socket
import sys
import threading
import time
import urllib.request
from urllib.parse import urlparse


def call(url, method, path, token, body=None):
    req = urllib.request.Request(url + path, method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Authorization": "Bearer " + token,
                                          "Content-Type": "application/json"})
    try:
        # a poll for a job whose boot files are being prepared is parked
        # until they are, even with wait=0: on a new machine that is the
        # rig base image built first (minutes)
        with urllib.request.urlopen(req, timeout=900) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def take(url, n, out):
    jobs = {}
    for i in range(n):
        call(url, "POST", "/api/agent/register", "t%d" % i,
             {"kernel_release": "6.1.0-host", "job": 0})
    deadline = time.time() + 900
    while len(jobs) < n and time.time() < deadline:
        for i in range(n):
            if i in jobs:
                continue
            st, body = call(url, "GET", "/api/agent/next?wait=0", "t%d" % i)
            if st == 200:
                jobs[i] = json.loads(body)["job"]["id"]
        time.sleep(0.2)
    with open(out, "w") as f:
        for i in sorted(jobs):
            f.write("%d %d\n" % (i, jobs[i]))
    return 0 if len(jobs) == n else 1


def doc(rig, job, kernel):
    return json.dumps({"schema": "klab-results/1", "kernel": kernel,
                       "results": [{"metric": "dbench.throughput", "unit": "MB/s",
                                    "value": 100.0 + rig, "direction": "higher"}],
                       "raw": {"klab-run.log": "x" * 65536}}).encode()


def upload(url, rig, job, kernel, secs, results, lock, live):
    u = urlparse(url)
    body = doc(rig, job, kernel)
    head = ("POST /api/agent/jobs/%d/results HTTP/1.1\r\nHost: %s\r\n"
            "Authorization: Bearer t%d\r\nContent-Type: application/json\r\n"
            "Content-Length: %d\r\nConnection: close\r\n\r\n"
            % (job, u.netloc, rig, len(body))).encode()
    status = "000"
    try:
        s = socket.create_connection((u.hostname, u.port), timeout=30)
        s.sendall(head)
        pieces = 20
        step = len(body) // pieces + 1
        for k in range(0, len(body), step):
            s.sendall(body[k:k + step])
            if secs:
                time.sleep(secs / pieces)
        answer = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
        s.close()
        if answer.startswith(b"HTTP/1."):
            status = answer.split()[1].decode()
    except OSError:
        pass
    with lock:
        results.append((job, status))
        # each answer as it comes, for a caller that acts on the first
        with open(live, "a") as f:
            f.write("%d %s\n" % (job, status))


def uploads(url, jobs_file, out, slow):
    rows = [tuple(map(int, l.split())) for l in open(jobs_file) if l.strip()]
    kernel = sys.argv[5] if len(sys.argv) > 5 else ""
    results, lock, threads = [], threading.Lock(), []
    for rig, job in rows:
        secs = 0.3 + 0.1 * rig if slow else 0
        t = threading.Thread(target=upload, args=(url, rig, job, kernel, secs,
                                                  results, lock, out + ".live"))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    with open(out, "w") as f:
        for job, status in sorted(results):
            f.write("%d %s\n" % (job, status))
    return 0


def main():
    mode, url = sys.argv[1], sys.argv[2]
    if mode == "take":
        return take(url, int(sys.argv[3]), sys.argv[4])
    return uploads(url, sys.argv[3], sys.argv[4], mode == "upload")


if __name__ == "__main__":
    sys.exit(main())
