#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stock `perf record -g` on the arm64 guest's own /usr/bin/python3 (Debian
# 13's python3.13 on --version debian13, whose code signs its return
# addresses; Debian 12's python3.11 elsewhere) running a CPU-bound script
# (workloads/cpu-bound.py), first without sidecars, then with the
# sidecars tests/e2e/prepare --userland made on the host of python3, the
# libraries it links and ld.so (the guest has no sframe-gen): the share of
# ALL samples with a user frame whose callchain goes through the return
# into __libc_start_call_main (tests/e2e/perf-complete --through; perf
# names that static function from libc6-dbg's symbols), or, taken before
# main, to ld.so's entry.  With sidecars at least 99 %, and while python3
# runs the module must list its sections and libc's as sidecars.  Without
# sidecars the share is printed, not judged: Debian's arm64 python3 makes
# a frame record in most of its functions (python3.13: 5,622 `mov x29,
# sp`), and the frame-pointer walk gets most of its chains, though not the
# caller of a leaf that makes none.  Counting starts at the first sample,
# ld.so's and the interpreter's start-up included.  arm64 only (x86_64:
# perf_sidecars.sh runs sframe-gen in the guest).
#
# Debian's arm64 perf script spends about 0.4 s of TCG time a sample (its
# DWARF unwind for the leaf's caller), so the period is long: a few hundred
# samples a run.
secs=3
period=4000000
if [ "$(uname -m)" != aarch64 ]; then
	echo "arm64 only (x86_64: perf_sidecars.sh): skip"
	exit 77
fi
e2e=$SFU_TOP/build/e2e/aarch64
param=/sys/module/sframe_unwind/parameters/sidecar_dir
here=$(cd "$(dirname "$0")" && pwd)
. "$here/perf-lib"
fail=0
py=$(readlink -f /usr/bin/python3)
echo "python3 is $py ($($py --version 2>&1)); $(ldd --version | head -n 1)"
[ -d "$e2e/python-sidecars" ] ||
	{ echo "FAILED: no $e2e/python-sidecars: run tests/e2e/prepare --arch arm64 --userland DIR"; exit 1; }
perf_unthrottle || exit 1
sc=$(mktemp -d /tmp/sfu-sidecars.XXXXXX) || exit 1
finish() {
	echo /var/lib/sframe-unwind > $param
	rm -rf "$sc"
	exit $fail
}
cp -R "$e2e/python-sidecars/." "$sc/" && chown -R 0:0 "$sc" && chmod -R u=rwX,go=rX "$sc" ||
	{ echo "FAILED: copying the sidecars to $sc"; fail=1; finish; }
cd /tmp || exit 1

# measure NAME: "SAMPLES COMPLETE PERCENT" of one perf record run
measure() {
	perf record -q -g -e cpu-clock:u -c $period -o "/tmp/$1.data" -- \
		/usr/bin/python3 "$SFU_TOP/tests/e2e/workloads/cpu-bound.py" $secs \
		> "/tmp/$1.out" 2>&1 || { echo "perf record ($1) failed" >&2; cat "/tmp/$1.out" >&2; }
	# shellcheck disable=SC2046
	set -- $("$here/perf-complete" --example broken "/tmp/$1.broken" \
		--through __libc_start_call_main "/tmp/$1.data" 2> "/tmp/$1.objects")
	awk -v s="${1:-0}" -v c="${2:-0}" 'BEGIN { printf "%d %d %.1f", s, c, s ? 100 * c / s : 0 }'
}

echo "" > $param
before=$(measure without)
echo "$sc" > $param
after=$(measure with)
b=${before##* }
a=${after##* }
echo "workload python3 without sidecars: ${before% *} samples/complete $b %; with: ${after% *} $a %"
# The sidecars in use: python3's and libc's sections, while it runs.
/usr/bin/python3 "$SFU_TOP/tests/e2e/workloads/cpu-bound.py" 30 > /dev/null &
pid=$!
mm=$(perf_wait_sections $pid ' libc\.so\.6 sidecar$' 300)
kill $pid 2> /dev/null
wait $pid
echo "$mm" | sed 's/^/    /'
for f in "${py##*/}" 'libc\.so\.6'; do
	echo "$mm" | grep -q " $f sidecar\$" || { echo "FAILED: no $f sidecar section"; fail=1; }
done
if [ "${after%% *}" -lt 100 ]; then
	echo "FAILED: only ${after%% *} samples with sidecars"
	fail=1
fi
awk -v a="$a" 'BEGIN { exit !(a >= 99) }' || {
	echo "FAILED: python3 with sidecars $a % < 99 %; the innermost frames' objects, and the broken chain most samples have:"
	sed 's/^/    /' /tmp/with.objects /tmp/with.broken
	fail=1
}
grep -E "^sidecar_(used|refused)" /sys/kernel/debug/sframe_unwind/stats | sed 's/^/    /'
finish
