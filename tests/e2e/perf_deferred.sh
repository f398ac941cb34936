#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf's deferred user callchains (perf record --call-graph fp,defer,
# Linux 6.19 and later) of the fixture program chain (-O2
# -fomit-frame-pointer, V3) while it spins in leaf.  perf takes them from
# upstream's deferred unwinding (kernel/unwind/), whose unwind_user()
# the module redirects (parameter unwind_user): with the module at least
# 99 % of the samples in leaf carry exactly the return addresses the
# program records, leaf's into f8 up to f1's into main, once perf script
# has stitched each sample to its PERF_RECORD_CALLCHAIN_DEFERRED; with the
# parameter off, and with the module unloaded, fewer than 1 % do (the
# frame-pointer walk skips frames).  perf's non-deferred walk is switched
# off meanwhile (perf_callchain=0), so only the deferred path can make a
# callchain complete.  Also: the parameter reads back, debugfs says why it
# is off, the counters move, and the module unloads while perf samples.
# Runs where the kernel has upstream's deferred unwinding (x86_64, the
# newest test kernel) with the perf scripts/run-e2e builds from that
# kernel's tools/perf (build/e2e/<arch>/perf-defer); skips elsewhere.
. ./perf-lib
arch=$(uname -m)
e2e=$SFU_TOP/build/e2e/$arch
param=/sys/module/sframe_unwind/parameters/unwind_user
dbg=/sys/kernel/debug/sframe_unwind/unwind_user
ko=$SFU_MODULE_DIR/sframe_unwind.ko
bin=$e2e/fixtures/v3/chain-O2
fail=0

if [ "$(cat $param)" != Y ]; then
	if grep -q "the kernel lacks" $dbg; then
		echo "$(head -n 1 $dbg): skip"
		exit 77
	fi
	echo "FAILED: unwind_user reads '$(cat $param)'"
	cat $dbg
	exit 1
fi
grep -qx "state on" $dbg || { echo "FAILED: debugfs:"; cat $dbg; exit 1; }
PERF=$e2e/perf-defer
if [ ! -x "$PERF" ]; then
	echo "FAILED: no perf with deferred callchains at $PERF (scripts/run-e2e --version newest builds it)"
	exit 1
fi
[ -f "$bin" ] || { echo "FAILED: fixture v3/chain-O2 was not staged by tests/e2e/prepare"; exit 1; }
perf_unthrottle || exit 1
perf_callchain_set 0 N || exit 1

# As perf_native.sh: a hundred samples in leaf or more under TCG.
iters=30000000
tmp=$(mktemp -d)

# check MODE [LABEL]: one perf record --call-graph fp,defer of chain-O2;
# MODE sframe wants at least 99 % complete, any other fewer than 1 %
check() {
	local data=$tmp/$1.data score deferred

	if ! perf_chain_record "$data" "$bin" $iters --call-graph fp,defer -e cpu-clock:u \
		-c 500000; then
		echo "FAILED: perf record ($1):"
		cat "$data.err"
		fail=1
		return
	fi
	score=$(perf_chain_score "$data")
	# A guest on a loaded host takes fewer cpu-clock samples of the same
	# work (its timer fires late): once, twice the work.
	if [ "${score% *}" -lt 60 ]; then
		echo "workload ${2:-$1}: ${score% *} samples in leaf, recorded again with twice the work"
		if ! perf_chain_record "$data" "$bin" $((iters * 2)) --call-graph fp,defer \
			-e cpu-clock:u -c 500000; then
			echo "FAILED: perf record ($1):"
			cat "$data.err"
			fail=1
			return
		fi
		score=$(perf_chain_score "$data")
	fi
	# The deferred callchains perf script stitched to the samples.
	deferred=$($PERF report -D -i "$data" 2> /dev/null | grep -c 'PERF_RECORD_CALLCHAIN_DEFERRED' ||
		true)
	echo "workload ${2:-$1}: $deferred PERF_RECORD_CALLCHAIN_DEFERRED records, samples in leaf" \
		"and complete: $score"
	if [ "$deferred" -lt 20 ]; then
		echo "FAILED: $1: only $deferred deferred callchains"
		fail=1
	fi
	perf_chain_judge "v3${2:+ $2}" "$1" "$score" || fail=1
}

counter() { awk -v k="$1" '$1 == k { print $2 }' $dbg; }

before=$(counter walks)
check sframe
[ "$(counter walks)" -gt "$before" ] || { echo "FAILED: walks counter did not move"; fail=1; }

echo 0 > $param
[ "$(cat $param)" = N ] || { echo "FAILED: unwind_user reads '$(cat $param)' after 0"; fail=1; }
grep -qx "state off: disabled by the unwind_user parameter" $dbg ||
	{ echo "FAILED: debugfs after 0:"; cat $dbg; fail=1; }
before=$(counter walks)
check param-off
[ "$(counter walks)" = "$before" ] || { echo "FAILED: walks moved while off"; fail=1; }
echo 1 > $param
[ "$(cat $param)" = Y ] || { echo "FAILED: unwind_user reads '$(cat $param)' after 1"; fail=1; }

# Unload while perf samples through the redirection (the exit path waits
# for every task to leave the replacement), then record without the module.
$PERF record -q --call-graph fp,defer -e cpu-clock:u -c 500000 -o "$tmp/unload.data" -- \
	"$bin" 0 > /dev/null 2>&1 &
rec=$!
before=$(counter walks)
i=0
while [ "$(counter walks)" -le $((before + 20)) ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ $i -lt 600 ] || { echo "FAILED: no walks while perf samples"; fail=1; }
"$SFU_TOP/tests/e2e/rmmod-retry" || { echo "FAILED: rmmod while perf samples"; kill $rec; exit 1; }
sleep 1
# chain with 0 iterations spins until killed; perf record then ends too.
kill $(pgrep -P $rec) 2> /dev/null || kill $rec
wait $rec 2> /dev/null
check unloaded
insmod "$ko" || { echo "FAILED: insmod"; exit 1; }
grep -qx "state on" $dbg || { echo "FAILED: debugfs after reload:"; cat $dbg; fail=1; }
perf_callchain_set 0 N || fail=1
check sframe reloaded
perf_callchain_set 1 Y || fail=1

rm -rf "$tmp"
exit $fail
