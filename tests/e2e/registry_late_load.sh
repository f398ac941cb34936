#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A process started before the module was loaded has its sections
# registered by the module's load (the registry of running processes).
set -eu
case $SFU_ARCH in arm64) fx=aarch64 ;; *) fx=x86_64 ;; esac
regtest=$SFU_TOP/build/e2e/$fx/regtest
go=/tmp/registry_late_load.go

rm -f $go
rmmod sframe_unwind
$regtest waitfile $go regtest &
pid=$!
sleep 1
insmod "$SFU_MODULE_DIR/sframe_unwind.ko"
touch $go
wait $pid
