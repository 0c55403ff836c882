# SPDX-License-Identifier: MIT
# rig-lib.sh: shared pieces of the t3NNN rig tests, sourced by them.
#
# Fetches Debian kernels through kernels/debian-kernels.sh into the kernel
# cache, builds rig images with kernels/mkinitramfs.sh, boots QEMU rigs with
# kernels/qemu-rig.sh and waits (bounded) for the guest to power off.  A
# test's scratch directory and every QEMU or server it started are removed
# on exit (kept with KLAB_KEEP=1).  Skips (exit 77) only when qemu-system-x86_64 is missing.

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
KERNELS=$TOP/kernels
: "${KLAB_PLAIN_BIN:=$TOP/build/bin}"
RIG_TIMEOUT=${RIG_TIMEOUT:-100}
PIDS=""
WORK=""

fail() {
	echo "FAIL: $*"
	exit 1
}

rig_cleanup() {
	for p in $PIDS; do
		kill "$p" 2>/dev/null
	done
	[ -z "$WORK" ] || [ -n "${KLAB_KEEP:-}" ] || rm -rf "$WORK"
	[ -z "${KLAB_KEEP:-}" ] || echo "kept '$WORK'"
}

# rig_setup NAME: skip without QEMU, make the scratch directory $WORK.
rig_setup() {
	if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
		echo "skip: qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
		exit 77
	fi
	WORK=$(mktemp -d "/tmp/klab-$1.XXXXXX")
	trap rig_cleanup EXIT
	trap 'exit 1' INT TERM
}

# record_get FILE KEY: one value of a catalog record.
record_get() {
	sed -n "s/^$2=//p" "$1"
}

# fetch_kernel LINE FILE: fetch the newest kernel of LINE (6.1, 6.12) and
# save its catalog record in FILE.
fetch_kernel() {
	pkg=$("$KERNELS/debian-kernels.sh" newest "$1") || fail "no $1 kernel in the archive"
	"$KERNELS/debian-kernels.sh" fetch "$pkg" >"$2" || fail "cannot fetch '$pkg'"
	[ -f "$(record_get "$2" vmlinuz)" ] || fail "record of '$pkg' names no vmlinuz"
	echo "kernel $1: $(record_get "$2" ident) ($(record_get "$2" version))"
}

# klab_programs: what of klab's own the rig image carries (as far as built).
klab_programs() {
	for p in klab-agent tiotest rio iops klab-run; do
		[ -x "$KLAB_PLAIN_BIN/$p" ] && echo "$KLAB_PLAIN_BIN/$p"
	done
	[ -d "$TOP/workloads/suites" ] && echo "$TOP/workloads/suites"
}

# rig_image RECORD: the cached base + modules image for that kernel.
rig_image() {
	"$KERNELS/mkinitramfs.sh" rig "$(record_get "$1" root)" \
		"$(record_get "$1" version)" $(klab_programs) ||
		fail "cannot build the rig image for '$(record_get "$1" version)'"
}

# pack_dir DIR OUT: DIR as one more cpio part.
pack_dir() {
	"$KERNELS/mkinitramfs.sh" pack "$1" "$2" >/dev/null || fail "cannot pack '$1'"
}

# boot_rig CONSOLE QEMU-RIG-OPTIONS...: boot a rig, wait until the guest
# powers off (QEMU exits) or RIG_TIMEOUT seconds pass; fail on a timeout.
boot_rig() {
	con=$1
	shift
	start=$(date +%s)
	out=$("$KERNELS/qemu-rig.sh" start --console "$con" --no-reboot "$@") ||
		fail "cannot start the rig"
	pid=$(printf '%s\n' "$out" | sed -n 's/^pid=//p')
	PIDS="$PIDS $pid"
	while kill -0 "$pid" 2>/dev/null; do
		# BOOT_RIG_HOOK: a function called with QEMU's pid while it runs
		[ -z "${BOOT_RIG_HOOK:-}" ] || "$BOOT_RIG_HOOK" "$pid"
		if [ $(($(date +%s) - start)) -ge "$RIG_TIMEOUT" ]; then
			kill "$pid"
			echo "--- console (last 40 lines)"
			tail -n 40 "$con"
			fail "rig did not power off within $RIG_TIMEOUT s"
		fi
		sleep 0.5
	done
	secs=$(($(date +%s) - start))
	if ! grep -q 'reboot: Power down' "$con"; then
		echo "--- console (last 60 lines)"
		tail -n 60 "$con"
		echo "--- qemu output"
		cat "$(printf '%s\n' "$out" | sed -n 's/^dir=//p')/qemu.out"
		fail "rig stopped after $secs s without powering off"
	fi
	echo "rig powered off after $secs s"
}

# expect CONSOLE PATTERN WHAT: the console log (less the serial line's
# carriage returns) matches PATTERN (grep -E).
expect() {
	if ! tr -d '\r' <"$1" | grep -Eq "$2"; then
		echo "--- console (last 40 lines)"
		tail -n 40 "$1"
		fail "$3: no line matching '$2' on the console"
	fi
	echo "ok: $3"
}
