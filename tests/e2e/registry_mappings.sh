#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The registry follows mappings through ftrace (debugfs hooks).  A library
# mapped the way the dynamic loader maps it is registered, for
# sections of every toolchain (V1, V2, V2 + PCREL, V3); MAP_FIXED over its
# text removes it; a copy of it (another file) mapped over it segment by
# segment, its text replacing the library's executable text in one mmap(),
# is registered in its place; mprotect taking PROT_EXEC from its text keeps
# it, unused, until the text is executable again; 1,000 map/unmap cycles
# leave the registry as it was;
# afterwards the module's counters show no section left behind.
set -eu
case $SFU_ARCH in arm64) fx=aarch64 ;; *) fx=x86_64 ;; esac
# Every kernel of the matrix can hook the three functions through ftrace:
# no breakpoint exception on every mmap (debugfs hooks).
hooks=/sys/kernel/debug/sframe_unwind/hooks
for f in perf_event_mmap vm_area_free change_protection; do
	grep -qx "$f ftrace" $hooks || { echo "$f is not hooked through ftrace:"; cat $hooks; exit 1; }
done
regtest=$SFU_TOP/build/e2e/$fx/regtest
lib=$SFU_TOP/tests/fixtures/$fx

for tag in v1 v2 v2pcrel v3; do
	$regtest mapelf "$lib/$tag/libshared-O2.so" || { echo "mapelf failed for $tag"; exit 1; }
done
cp "$lib/v3/libshared-O2.so" /tmp/libshared-copy.so
$regtest remap "$lib/v3/libshared-O2.so" /tmp/libshared-copy.so ||
	{ echo "a copy mapped over the library is not registered in its place"; exit 1; }
rm -f /tmp/libshared-copy.so
$regtest mprotect "$lib/v3/libshared-O2.so" || { echo "mprotect -x/+x failed"; exit 1; }
$regtest cycle 1000 "$lib/v3/libshared-O2.so"

# A file read before and found without a section queues no scan when it
# is mapped again: 20 more map/unmap cycles of a library without .sframe
# (the first mapping of it read it) count 20 more mappings known without,
# and no more scans (the few of each run are regtest's own start-up: its
# executable, ld.so, data a section of them waits for).
stats=/sys/kernel/debug/sframe_unwind/stats
stat() { awk -v k="$1" '$1 == k { print $2 }' $stats; }
nosf=$SFU_TOP/build/e2e/$fx/libnosf.so
counts() {
	e0=$(stat mmap_events) k0=$(stat mmap_known_without)
	$regtest bench "$1" "$nosf" map > /dev/null
	echo $(($(stat mmap_events) - e0)) $(($(stat mmap_known_without) - k0))
}
set -- $(counts 10) $(counts 30)
if [ "$3" -gt $(($1 + 2)) ] || [ "$1" -gt $(($3 + 2)) ] || [ $(($4 - $2)) -lt 20 ]; then
	echo "a library known without .sframe, mapped 10 and 30 times: $1 and $3 scans queued, $2 and $4 mappings known without"
	exit 1
fi
echo "library without .sframe mapped 10 and 30 times: $1 and $3 scans, $2 and $4 known without"
