#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's native perf callchains (PERF_SAMPLE_CALLCHAIN of a cpu-clock
# event from perf_event_open(), read by perf-callchain-check, no perf tool)
# of the fixture program chain-O2 of every toolchain tag while it spins in
# leaf: with the module, at least 99 % of the samples in leaf carry exactly
# the return addresses the program records up to main; with the
# perf_callchain parameter off, fewer than 1 %.  Runs on both arches: on
# arm64 it is the test of the redirection (the guest has no perf tool).
. ./unwind-lib
. ./perf-lib
perf_unthrottle || exit 1
param=/sys/module/sframe_unwind/parameters/perf_callchain
raw=$e2e/perf-callchain-check
iters=15000000
case $arch in
x86_64) prog=chain-O2 ;;
*) prog=chain-O2-static; iters=12000000 ;;
esac

[ "$(cat $param)" = Y ] || {
	echo "FAILED: perf_callchain reads '$(cat $param)':"
	cat /sys/kernel/debug/sframe_unwind/perf_callchain
	exit 1
}

# check TAG MODE
check() {
	local bin score

	bin=$(fixture "$1" $prog) || { fail=1; return; }
	if ! score=$("$raw" "$bin" $iters); then
		echo "FAILED: $raw $bin $iters"
		fail=1
		return
	fi
	perf_chain_judge "$1" "$2" "$score" || fail=1
}

for tag in $tags; do
	check "$tag" sframe
done
perf_callchain_set 0 N || exit 1
for tag in $tags; do
	check "$tag" param-off
done
perf_callchain_set 1 Y || fail=1
exit $fail
