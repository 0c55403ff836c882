#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the whole klab test suite: install what is missing, then `make check`
# (sanitizer build, unit tests, black-box tests against a real klabd, QEMU
# rigs with real kernels), ending with "N passed, N failed, N skipped".
set -e
cd "$(dirname "$0")"
scripts/install-deps.sh
exec make -j2 check
