#!/bin/sh
# SPDX-License-Identifier: MIT
# Stand-in for the kernel's merge_config.sh -m: each option of the fragments
# replaces the same option in the base config; nothing is re-resolved.
[ "$1" = -m ] && shift
base=$1; shift
for frag; do
	awk 'FNR == NR {
		if (match($0, /CONFIG_[A-Za-z0-9_]+/)) o[substr($0, RSTART, RLENGTH)] = 1
		next
	}
	{ if (match($0, /CONFIG_[A-Za-z0-9_]+/) && (substr($0, RSTART, RLENGTH) in o)) next }
	{ print }' "$frag" "$base" >"$base.new" && cat "$frag" >>"$base.new" &&
		mv "$base.new" "$base" || exit 1
done
