#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# An exec'd program is registered before main() runs, and a forked child
# has the same sections as its parent.
set -eu
case $SFU_ARCH in arm64) fx=aarch64 ;; *) fx=x86_64 ;; esac
regtest=$SFU_TOP/build/e2e/$fx/regtest

$regtest self regtest
$regtest fork regtest
