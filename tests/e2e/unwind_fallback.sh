#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Programs without .sframe.  Built with frame pointers (the -O0 fixtures
# with .sframe removed, and chain.c at -O2 -fno-omit-frame-pointer), the
# frame-pointer fallback must give exactly the recorded return addresses,
# at leaf's first instruction too.  Built without (the -O2 fixtures with
# .sframe removed, chain.c at -O2 -fomit-frame-pointer), the walk must end
# by itself with nothing but true return addresses.
. ./unwind-lib

case $arch in
x86_64) o0=chain-O0; o2=chain-O2 ;;
*) o0=chain-O0-static; o2=chain-O2-static ;;
esac
run chain --expect fp --at body "$e2e/chain-fp"
run chain --expect fp --at entry "$e2e/chain-fp"
run chain --expect stop --at body "$e2e/chain-nofp"
for tag in $tags; do
	if bin=$(fixture $tag $o0.nosframe); then
		run chain --expect fp --at body "$bin"
		run chain --expect fp --at entry "$bin"
	else
		fail=1
	fi
	if bin=$(fixture $tag $o2.nosframe); then
		run chain --expect stop --at body "$bin"
	else
		fail=1
	fi
done
exit $fail
