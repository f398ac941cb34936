#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The fixture program uselib (every toolchain tag): a callback spinning
# under shared_apply() of libshared.so (x86_64: a shared library reached
# through the PLT; arm64: linked statically) must unwind through the
# library back into main; stopped on shared_apply's PLT stub (x86_64), the
# stub's PC-mask rows must lead back into main.
. ./unwind-lib

case $arch in
x86_64) prog=uselib-O2 ;;
*) prog=uselib-O2-static ;;
esac
for tag in $tags; do
	bin=$(fixture $tag $prog) || { fail=1; continue; }
	main_ret=$(sed -n 's/^main_ret //p' "$bin.expect")
	plt=$(sed -n 's/^plt //p' "$bin.expect")
	export LD_LIBRARY_PATH=$e2e/fixtures/$tag
	run uselib --main-ret "$main_ret" --at body "$bin"
	run uselib --main-ret "$main_ret" --at body --nofault "$bin"
	[ -z "$plt" ] || run uselib --main-ret "$main_ret" --plt "$plt" --at plt "$bin"
done
exit $fail
