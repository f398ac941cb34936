#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The char device's explicit registration, as examples/jit_register.c
# uses it: register, unregister, unregister again (ENOENT), and a corrupted
# section refused with SFRAME_E_BAD_MAGIC.
set -eu
case $SFU_ARCH in arm64) fx=aarch64 ;; *) fx=x86_64 ;; esac
"$SFU_TOP/build/e2e/$fx/jit_register"
