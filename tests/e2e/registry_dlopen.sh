#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dlopen() registers a library before it returns, dlclose() removes it,
# and 1,000 dlopen/dlclose cycles leave the registry as it was.
# The fixture libraries of the guest's architecture.
set -eu
fx=$(uname -m)
regtest=$SFU_TOP/build/e2e/$fx/regtest
for tag in v1 v2 v2pcrel v3; do
	$regtest dlopen "$SFU_TOP/tests/fixtures/$fx/$tag/libshared-O2.so"
done
$regtest dlcycle 1000 "$SFU_TOP/tests/fixtures/$fx/v3/libshared-O2.so"
