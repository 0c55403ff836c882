#!/bin/sh
# SPDX-License-Identifier: MIT
# rooms: hold the tree's folders ("rooms") to their order (issue 30).
# Each room may include headers of the rooms below it and its own, never
# of a room above: a room is read, tested and changed without the ones
# that use it, and no include circle crosses two rooms (a circle needs an
# arrow that points up).
#
#   scripts/rooms.sh
#
# Prints each upward include as
#   FILE:LINE: UPWARD: ROOM includes ROOM2/HEADER (ROOM2 is above ROOM)
# and exits 1 when there is any, else 0.
#
# The order, bottom first (docs/ARCHITECTURE.md draws it):
#   0 lib        strings, JSON, HTTP client, processes, statistics' helpers
#   1 db         the sqlite schema and its rows
#   1 workloads  the benchmarks and the suites they run
#   2 judge      the verdict: statistics, decisions, bisection's choice
#   3 agent      the rig side: klab-agent
#   3 cli        the klab command (speaks to klabd over HTTP only)
#   4 klabd      what every controller room shares: outcomes, events, the
#                database pool, the daemon's state
#   5 web        pages, text reports, CSV, SVG (formatters; a page
#                answers an outcome's status, web_status)
#   5 lab        rigs, the catalog, the builder
#   6 flow       submissions, comparisons, bisections, tracks, alerts
#   7 http       the server, routes, auth, handlers
#   8 main       klabd/klabd.c and klabd/token.c: the daemon's main,
#                which starts every room
# bench/, fuzz/ and tests/ are outside the house: they may include any room.

cd "$(dirname "$0")/.." || exit 2

git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^\(bench\|fuzz\|tests\)/' |
while read -r f; do
	grep -n '^#include "[a-z_0-9]*/[a-z_0-9]*\.h"' "$f" |
		sed "s|^|$f:|"
done | awk -F: '
function rank(room) {
	if (room == "lib") return 0
	if (room == "db" || room == "workloads") return 1
	if (room == "judge") return 2
	if (room == "agent" || room == "cli") return 3
	if (room == "klabd") return 4
	if (room == "web" || room == "lab") return 5
	if (room == "flow") return 6
	if (room == "http") return 7
	return -1
}
{
	file = $1; line = $2; inc = $3
	sub(/^#include "/, "", inc); sub(/".*/, "", inc)
	from = file; sub(/\/.*/, "", from)
	to = inc; sub(/\/.*/, "", to)
	if (file == "klabd/klabd.c" || file == "klabd/token.c")
		next
	if (rank(from) < 0 || rank(to) < 0) {
		printf "%s:%s: UNKNOWNROOM: %s or %s has no place in the order\n",
			file, line, from, to
		bad = 1
		next
	}
	if (from != to && rank(to) >= rank(from)) {
		printf "%s:%s: UPWARD: %s includes %s (%s is not below %s)\n",
			file, line, from, inc, to, from
		bad = 1
	}
}
END { exit bad }'
