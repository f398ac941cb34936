#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The fixture program chain (main -> f1..f8 -> leaf, -O2
# -fomit-frame-pointer, every toolchain tag) unwound while it spins in
# leaf and while it stands on leaf's first instruction: the module must
# return exactly the return addresses and CFAs the program records, from
# leaf up to main, all found from SFrame, faultable and no-fault alike.
# arm64 also runs the pointer-authentication build: unsigned addresses.
. ./unwind-lib

case $arch in
x86_64) progs="chain-O2 chain-O2-static" ;;
*) progs="chain-O2-static chain-O2-pac-static" ;;
esac
for tag in $tags; do
	for p in $progs; do
		bin=$(fixture $tag $p) || { fail=1; continue; }
		run chain --at body "$bin"
		run chain --at body --nofault "$bin"
		run chain --at entry "$bin"
	done
done
exit $fail
