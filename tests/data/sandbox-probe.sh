# SPDX-License-Identifier: MIT
# The build sandbox probe (issue 8, finding 1): what a hostile patch's
# Makefile rule tries.  t4005 (fake tree) and t4103 (a real 6.1 kernel)
# fill in the @NAMES@, add this file to the tree with a patch that runs it
# from the bzImage recipe, and read the "probe: WHAT: OUTCOME" lines in the
# build log.  Every attempt must fail but the write into its own tree (the
# control).  It never fails itself: the build must succeed.
p() { printf 'probe: %s: %s\n' "$1" "$2"; }
try_read() {
	if cat "$2" >/dev/null 2>&1; then p "$1" READ; else p "$1" denied; fi
}
try_write() {
	if (echo probe >>"$2") 2>/dev/null; then p "$1" WRITTEN; else p "$1" denied; fi
}
p id "$(id 2>&1)"
p uid "$(id -u)"
try_read shadow /etc/shadow
try_read db "@DB@"
try_read tokens "@TOKENS@"
try_read config "@CONFIG@"
p passwd-lines "$(wc -l </etc/passwd)"
try_write host-tmp "@HOSTTMP@"
try_write test-dir "@TESTDIR@/probe-written"
try_write base-tree "@BASE@/Makefile"
try_write base-new "@BASE@/probe-new"
try_write other-build "@OTHERBUILD@/bzImage"
try_write cache-dir "@CACHE@/probe-new"
try_write pristine-link "@LINKED@"
if chmod u+w "@LINKED@" 2>/dev/null; then p pristine-chmod CHANGED; else p pristine-chmod denied; fi
try_write sandbox-root "/probe-new"
try_write usr "/usr/probe-new"
try_write own-tree "probe-own-file"
if (exec 3<>/dev/tcp/127.0.0.1/@PORT@) 2>/dev/null; then
	p tcp CONNECTED
else
	p tcp refused
fi
if command -v curl >/dev/null; then
	if curl -s -m 5 -o /dev/null "http://127.0.0.1:@PORT@/api/health" 2>/dev/null; then
		p curl CONNECTED
	else
		p curl refused
	fi
fi
s=$(ls -l /proc/self/fd/ 2>/dev/null | grep -c 'socket:')
p sockets "$s"
p capeff "$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)"
p done yes
true
