#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the importer fuzz target with clang's libFuzzer and run it for
# SECONDS (default 60) on a corpus seeded from tests/data.  Not part of
# `make check`.  Usage: fuzz/run.sh [SECONDS] [extra libFuzzer flags]
# Findings (crash-*, leak-*, timeout-*) land in build/fuzz/.
set -e
cd "$(dirname "$0")/.."
secs=${1:-60}
[ $# -gt 0 ] && shift
CLANG=${CLANG:-clang}
command -v "$CLANG" >/dev/null || { echo "fuzz: no $CLANG" >&2; exit 77; }
out=build/fuzz
mkdir -p "$out/corpus"
"$CLANG" -std=c11 -D_GNU_SOURCE -g -O1 -I. \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-o "$out/fuzz_import" fuzz/fuzz_import.c lib/results.c \
	lib/import.c lib/import_*.c lib/strbuf.c -ljansson -lm
# seeds: every sample once per format selector (first byte)
for f in tests/data/import-*; do
	for sel in 0 1 2 3 4 5 128 131 132; do
		s=$(printf '%03o' "$sel")
		{ printf "\\$s"; cat "$f"; } > "$out/corpus/$(basename "$f").$sel"
	done
done
cd "$out"
exec ./fuzz_import -max_total_time="$secs" -max_len=65536 -timeout=10 \
	-rss_limit_mb=2048 "$@" corpus
