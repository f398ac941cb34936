#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A library mapped the way the dynamic loader maps it is registered, for
# sections of every toolchain (V1, V2, V2 + PCREL, V3); MAP_FIXED over its
# text removes it; 1,000 map/unmap cycles leave the registry as it was;
# afterwards the module's counters show no section left behind.
set -eu
case $SFU_ARCH in arm64) fx=aarch64 ;; *) fx=x86_64 ;; esac
regtest=$SFU_TOP/build/e2e/$fx/regtest
lib=$SFU_TOP/tests/fixtures/$fx

for tag in v1 v2 v2pcrel v3; do
	$regtest mapelf "$lib/$tag/libshared-O2.so" || { echo "mapelf failed for $tag"; exit 1; }
done
$regtest cycle 1000 "$lib/v3/libshared-O2.so"
