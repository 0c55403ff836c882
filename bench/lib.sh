# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# bench/lib.sh: what the benchmark scripts (bench/run.sh, bench/bench_lab.sh)
# share: a token for their klabd and the wait for that klabd to listen.
# Sourced; the script defines die() first.

# bench_token KLABD DB ROLE: a token named "bench" with ROLE in DB, exported
# as KLAB_TOKEN for klab and the HTTP clients.
bench_token() {
	KLAB_TOKEN=$("$1" token add bench --role "$3" --db "$2") ||
		die "cannot make a token"
	export KLAB_TOKEN
}

# bench_klabd_wait PID PORTFILE LOG: wait until klabd (PID) has written its
# port to PORTFILE; die with LOG when it exits or has not after 10 s.
bench_klabd_wait() {
	_n=0
	while [ ! -s "$2" ]; do
		_n=$((_n + 1))
		[ $_n -gt 200 ] && die "klabd did not start: $(cat "$3")"
		kill -0 "$1" 2>/dev/null || die "klabd exited: $(cat "$3")"
		sleep 0.05
	done
}
