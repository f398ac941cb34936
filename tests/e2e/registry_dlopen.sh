#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dlopen() registers a library before it returns, dlclose() removes it,
# and 1,000 dlopen/dlclose cycles (250 on arm64) leave the registry as it
# was.
# The fixture libraries of the guest's architecture, and libnosep.so
# (tests/e2e/progs), whose executable first segment the loader maps over
# the library's whole extent before it maps the data over the end (as it
# does every arm64 library): the section covers the segment's pages only,
# and stays when the rest of that mapping is replaced.
set -eu
fx=$(uname -m)
regtest=$SFU_TOP/build/e2e/$fx/regtest
for tag in v1 v2 v2pcrel v3; do
	$regtest dlopen "$SFU_TOP/tests/fixtures/$fx/$tag/libshared-O2.so"
done
$regtest dlopen "$SFU_TOP/build/e2e/$fx/libnosep.so"
# arm64 under TCG: a cycle takes about a quarter of a second.
cycles=1000
[ "$fx" = x86_64 ] || cycles=250
$regtest dlcycle $cycles "$SFU_TOP/tests/fixtures/$fx/v3/libshared-O2.so"
