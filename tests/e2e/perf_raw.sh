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
# Prints one "workload" line of figures per run.
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
	# A guest on a loaded host takes fewer cpu-clock samples of the same
	# work (its timer fires late): once, twice the work.
	if [ "${score% *}" -lt 60 ]; then
		echo "workload $1 $2: ${score% *} samples in leaf, sampled again with twice the work"
		if ! score=$("$raw" "$bin" $((iters * 2))); then
			echo "FAILED: $raw $bin $((iters * 2))"
			fail=1
			return
		fi
	fi
	echo "workload $1 $2: ${score#* } of ${score% *} samples in leaf complete"
	perf_chain_judge "$1" "$2" "$score" || fail=1
}

for tag in $tags; do
	check "$tag" sframe
done
# With the parameter off perf's stock walk runs.  On arm64 6.12 and 7.2
# that walk calls arch_stack_walk_user(), which the ftrace_userstack
# redirection (on by default) takes for ftrace: it must leave perf's calls
# to the stock walk (its "stock" counter counts them) so that perf's
# callchains stay the kernel's own, as the figures below check.
fu=/sys/module/sframe_unwind/parameters/ftrace_userstack
fu_dbg=/sys/kernel/debug/sframe_unwind/ftrace_userstack
fu_stock() { awk '$1 == "stock" { print $2 }' $fu_dbg; }
fu_before=$(fu_stock)
perf_callchain_set 0 N || exit 1
for tag in $tags; do
	check "$tag" param-off
done
perf_callchain_set 1 Y || fail=1
if [ "$arch" = aarch64 ] && [ "$(cat $fu)" = Y ]; then
	echo "workload ftrace_userstack stock: +$(($(fu_stock) - fu_before)) with perf_callchain off"
	[ "$(fu_stock)" -gt "$fu_before" ] ||
		{ echo "FAILED: perf's calls did not reach ftrace_userstack's handler"; fail=1; }
fi
exit $fail
