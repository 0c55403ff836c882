#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lab_stamp: host time stamps for bench/bench_lab.sh.

  lab_stamp.py lines
      copies stdin to stdout, each line prefixed with the host's time
      ("EPOCH.mmm line") as it arrives: klabd's stderr.
  lab_stamp.py consoles DIR MAX_SECONDS
      follows every DIR/console-*.log (klabd starts a new one per cold
      boot) and prints each complete line as "EPOCH.mmm FILE line" within
      about 50 ms of QEMU writing it; stops after MAX_SECONDS or when
      killed.  Lets bench_lab time boot phases (kernel banner, /init) on
      the host's clock, which the guest's own clock cannot give across a
      kexec.
"""
import glob
import os
import sys
import time


def stamp_lines():
    for line in sys.stdin:
        sys.stdout.write("%.3f %s" % (time.time(), line))
        sys.stdout.flush()


def follow_consoles(rigdir, max_s):
    offsets, partial = {}, {}
    end = time.time() + max_s
    while time.time() < end:
        for path in sorted(glob.glob(os.path.join(rigdir, "console-*.log"))):
            try:
                with open(path, "rb") as f:
                    f.seek(offsets.get(path, 0))
                    data = f.read()
            except OSError:
                continue
            if not data:
                continue
            now = time.time()
            offsets[path] = offsets.get(path, 0) + len(data)
            text = partial.pop(path, b"") + data
            lines = text.split(b"\n")
            if lines[-1]:
                partial[path] = lines[-1]
            name = os.path.basename(path)
            for raw in lines[:-1]:
                line = raw.decode("utf-8", "replace").rstrip("\r")
                sys.stdout.write("%.3f %s %s\n" % (now, name, line))
        sys.stdout.flush()
        time.sleep(0.05)


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "lines":
        stamp_lines()
    elif len(sys.argv) == 4 and sys.argv[1] == "consoles":
        follow_consoles(sys.argv[2], float(sys.argv[3]))
    else:
        sys.stderr.write("usage: lab_stamp.py lines | consoles DIR MAX_SECONDS\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
