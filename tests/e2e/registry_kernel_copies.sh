#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Two processes running the same program share one kernel copy of its
# .sframe section, of exactly the section's size.  Unloading the module
# while they hold it frees it (the module's exit warns if a copy or a byte
# is left, which fails the guest run), and loading it again makes one new
# copy for both.  When the last of them exits the copy is retained: the
# program run again takes it without making one, and with
# max_kernel_bytes_retained 0 it goes.
set -eu
case $SFU_ARCH in arm64) fx=aarch64 ;; *) fx=x86_64 ;; esac
regtest=$SFU_TOP/build/e2e/$fx/regtest
ko=$SFU_MODULE_DIR/sframe_unwind.ko
d=/sys/kernel/debug/sframe_unwind
go=/tmp/registry_kernel_copies.go
fail() { echo "registry_kernel_copies: $*"; exit 1; }
mem() { awk -v k="$1" '$1 == k { print $2 }' $d/memory; }
counter() { awk -v k="$1" '$1 == k { print $2 }' $d/stats; }
# kernel copies a section holds
inuse() { echo $(($(mem kernel_copies) - $(mem kernel_copies_retained))); }
retained=/sys/module/sframe_unwind/parameters/max_kernel_bytes_retained
# regtest sections held in kernel copies
held() { grep -c ' regtest kernel$' $d/sections || true; }
# Wait up to 10 s for "$1" to print "$2".
await() {
	i=0
	while [ "$($1)" != "$2" ]; do
		i=$((i + 1))
		[ $i -le 100 ] || fail "$1 is $($1), want $2"
		sleep 0.1
	done
}

rm -f $go
# On any exit the waiting processes end too (they keep the output open).
trap 'touch $go' EXIT
# Nothing retained from earlier tests (regtest's own copy among them):
# what is counted now is what sections hold.  The load below sets the
# parameter back to its default.
echo 0 > $retained
base=$(mem kernel_copies)
base_bytes=$(mem kernel_copy_bytes)
$regtest waitfile $go regtest > /tmp/registry_kernel_copies.a 2>&1 &
a=$!
$regtest waitfile $go regtest > /tmp/registry_kernel_copies.b 2>&1 &
b=$!
await held 2
[ "$(mem kernel_copies)" = $((base + 1)) ] ||
	fail "two processes: $(mem kernel_copies) copies, want $((base + 1))"
size=$(sed -n 's/.* sframe [0-9a-f]*+\([0-9a-f]*\) .* regtest kernel$/\1/p' $d/sections | head -n 1)
[ "$(mem kernel_copy_bytes)" = $((base_bytes + 0x$size)) ] ||
	fail "copy bytes $(mem kernel_copy_bytes), want $base_bytes + 0x$size"

"$SFU_TOP/tests/e2e/rmmod-retry" || fail "rmmod with copies held failed"
insmod "$ko" || fail "insmod failed"
# The load registers the running processes again: one new copy for both.
await held 2
[ "$(inuse)" -ge 1 ] || fail "no copy after the reload"
base=$(($(inuse) - 1))

touch $go
wait $a || fail "first process: $(cat /tmp/registry_kernel_copies.a)"
wait $b || fail "second process: $(cat /tmp/registry_kernel_copies.b)"
await held 0
await inuse $base
[ "$(mem kernel_copies_retained)" -ge 1 ] || fail "no copy retained: $(cat $d/memory)"
made=$(counter kernel_copies_made) reused=$(counter kernel_copies_retained_reused)
# Run again: the retained copy is taken, none is made.
$regtest waitfile $go regtest > /tmp/registry_kernel_copies.a 2>&1 ||
	fail "third process: $(cat /tmp/registry_kernel_copies.a)"
[ "$(counter kernel_copies_retained_reused)" = $((reused + 1)) ] ||
	fail "retained copies taken: $(counter kernel_copies_retained_reused), want $((reused + 1))"
[ "$(counter kernel_copies_made)" = "$made" ] ||
	fail "copies made: $(counter kernel_copies_made), want $made"
limit=$(cat $retained)
echo 0 > $retained
await inuse $base
n_retained() { mem kernel_copies_retained; }
await n_retained 0
echo "$limit" > $retained
rm -f $go
