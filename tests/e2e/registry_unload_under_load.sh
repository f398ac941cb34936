#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The module unloads and loads again, three times, while processes keep
# mapping and unmapping a library with .sframe and forking children that
# exit; each load finds the busy processes' sections, and after the load
# stops the registry holds nothing of theirs.  vm-run fails the run on any
# warning, lockdep or KASAN report, and (debug kernel) on a kmemleak report
# after the final unload.
set -eu
case $SFU_ARCH in arm64) fx=aarch64 ;; *) fx=x86_64 ;; esac
regtest=$SFU_TOP/build/e2e/$fx/regtest
lib=$SFU_TOP/tests/fixtures/$fx/v3/libshared-O2.so
ko=$SFU_MODULE_DIR/sframe_unwind.ko

$regtest churn 12 "$lib" > /tmp/churn1 &
a=$!
$regtest churn 12 "$lib" > /tmp/churn2 &
b=$!
for i in 1 2 3; do
	sleep 2
	"$SFU_TOP/tests/e2e/rmmod-retry" || { echo "rmmod $i failed under load"; exit 1; }
	sleep 1
	insmod "$ko" || { echo "insmod $i failed under load"; exit 1; }
done
wait $a
wait $b
cat /tmp/churn1 /tmp/churn2
left=$(awk -v a=$a -v b=$b '$1 == "mm" && ($2 == a || $2 == b) { n += $4 } END { print n + 0 }' \
	/sys/kernel/debug/sframe_unwind/sections)
[ "$left" = 0 ] || { echo "$left sections left of the exited processes"; exit 1; }
