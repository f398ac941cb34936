#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dlopen() registers a library before it returns, dlclose() removes it,
# and 1,000 dlopen/dlclose cycles leave the registry as it was.
# x86_64 only: the arm64 guest has no dynamic loader.
set -eu
[ "$SFU_ARCH" = x86_64 ] || { echo "no dynamic loader in the $SFU_ARCH guest"; exit 77; }
regtest=$SFU_TOP/build/e2e/x86_64/regtest
for tag in v1 v2 v2pcrel v3; do
	$regtest dlopen "$SFU_TOP/tests/fixtures/x86_64/$tag/libshared-O2.so"
done
$regtest dlcycle 1000 "$SFU_TOP/tests/fixtures/x86_64/v3/libshared-O2.so"
