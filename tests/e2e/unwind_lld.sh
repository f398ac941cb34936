#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A program linked by lld, whose PT_LOAD segments do not start on a page
# boundary in the file: the executable segment shares its first page with
# the end of the read-only one, so the mapping of the text starts at a file
# offset inside that earlier segment.  The module must take the executable
# segment's addresses (not the first segment holding that page) for the
# load bias, and then unwind chain.c exactly from SFrame.  The same
# program without PT_GNU_SFRAME (chain-lld.nophdr) has no information and
# must stop cleanly: the check tells the two apart.  x86_64 only (the
# arm64 programs are static, linked by ld.bfd).
. ./unwind-lib

if [ "$arch" != x86_64 ]; then
	echo "lld programs are built for x86_64 only: skip"
	exit 77
fi
run chain --at body "$e2e/chain-lld"
run chain --at body --nofault "$e2e/chain-lld"
run chain --at entry "$e2e/chain-lld"
run chain --expect stop --at body "$e2e/chain-lld.nophdr"
exit $fail
