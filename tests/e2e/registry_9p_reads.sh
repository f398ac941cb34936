#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Files read over 9p, whose reads answer at most msize (262144 bytes here)
# a call: stack-target-big's own .sframe (about 470 KB; the program runs
# from the tree, on 9p) and the sidecar of stack-target-big.nosframe (the
# same program without its .sframe: a sidecar of about 400 KB), with
# libc's, in a sidecar directory on the run share (9p, no cache), give
# tools/sframe-stack the same frames, from the blocking call in libc to
# each thread's outermost frame, as the same files copied to tmpfs.  The
# sidecar's read, cut short, is finished by reading on (the reads_resumed
# counter goes up, where this kernel's 9p cuts a read short at all: 6.1's
# does, 6.8's and later, on netfs, do not; elf_unreadable does not).  The own section's read has
# not been seen cut short: the resumed read its run counted was libc's
# sidecar's, over msize until sframe-gen wrote identical blocks once, and
# its run is held to the frames alone.  Before the registry read on, such
# a sidecar was refused over 9p and the walk stopped at the program's
# first frame.  x86_64 only: the guest runs the host's
# sframe-gen and sframe-stack.
. ./unwind-lib

if [ "$arch" != x86_64 ]; then
	echo "x86_64 only: sframe-stack and sframe-gen run from the host's root: skip"
	exit 77
fi
stack=$SFU_TOP/tools/sframe-stack
gen=$SFU_TOP/tools/sframe-gen
param=/sys/module/sframe_unwind/parameters/sidecar_dir
dbg=/sys/kernel/debug/sframe_unwind
msize=262144
prog=$e2e/stack-target-big
bad() { echo "FAILED: $*"; fail=1; }
stat() { awk -v k="$1" '$1 == k { print $2 }' $dbg/stats; }
# names FILE: the symbol of each frame line, then the stop lines
names() {
	sed -n 's/^#[0-9]* *0x[0-9a-f]* \([^+ ]*\)+0x.*/\1/p; s/^#[0-9]* *0x[0-9a-f]*\( - .*\)\{0,1\}$/?/p
		s/^\(stop: [a-z_]*\).*/\1/p' "$1"
}

for p in "$prog" "$prog.nosframe"; do
	[ -x "$p" ] || { echo "FAILED: no $p (tests/e2e/prepare)"; exit 1; }
done
mount | grep -q ' /run/sfu type 9p ' || { echo "FAILED: /run/sfu is not a 9p mount"; exit 1; }
libc=$(ldd "$prog" | awk '/libc.so/ { print $3 }')

# The sidecar directory on 9p, and a copy of it and of the programs on tmpfs.
nine=/run/sfu/sidecars-9p
tmp=$(mktemp -d /tmp/sfu-9p.XXXXXX)
rm -rf $nine
mkdir -p $nine "$tmp/sc"
chmod 755 "$tmp" "$tmp/sc"
# The program's own sidecar too (its complement: _start): the one of the
# copy without .sframe, of the same build-id, is bound to the copy's bytes.
"$gen" --install --cache $nine "$libc" "$prog.nosframe" "$prog" > /dev/null ||
	bad "sframe-gen --install of libc, $prog.nosframe and $prog"
cp -a $nine/. "$tmp/sc/"
cp "$prog" "$prog.nosframe" "$tmp/"

# The files must be larger than the msize, or this shows nothing.
big=$(find $nine -name '*.sframe' -size +${msize}c -exec wc -c {} + | awk '{ print $1; exit }')
[ -n "$big" ] || bad "no sidecar larger than $msize bytes: $(find $nine -name '*.sframe' -exec wc -c {} +)"
own=$(readelf -lW "$prog" | awk '$1 == "GNU_SFRAME" { print $5 }')
[ $((own)) -gt $msize ] || bad "stack-target-big's .sframe is $((own)) bytes, not over $msize"

# Whether this kernel's 9p answers the registry's kernel_read() of more
# than msize with less: 6.1's does (one call to the server; a read(2)
# into user memory is not cut, so that cannot tell); since 6.8, 9p reads
# through netfs, which asks the server as often as it takes, and there is
# no short read for the registry to finish (6.12: reads_resumed stays 0).
cut=$(uname -r | awk -F. '{ print ($1 < 6 || ($1 == 6 && $2 < 8)) ? 1 : 0 }')
echo "workload 9p: kernel $(uname -r): the registry's reads over msize" \
	"$([ "$cut" = 1 ] && echo "are cut short" || echo "are not cut short (netfs)")"

# run_target DIR PROG OUT: sframe-stack on PROG's threads, sidecars from DIR
run_target() {
	echo "$1" > $param
	"$2" > /tmp/9p-target.out &
	tpid=$!
	for _ in $(seq 100); do
		grep -q ready /tmp/9p-target.out && break
		sleep 0.1
	done
	"$stack" "$tpid" > "$3" 2>&1 || bad "sframe-stack $tpid ($2, sidecars in $1) exited $?"
	kill "$tpid"
	wait "$tpid" 2> /dev/null
	names "$3" > "$3.names"
}

for p in stack-target-big stack-target-big.nosframe; do
	unread=$(stat elf_unreadable)
	resumed=$(stat reads_resumed)
	run_target $nine "$e2e/$p" /tmp/9p.$p
	sed "s/^/    9p $p: /" /tmp/9p.$p
	[ "$p" = stack-target-big ] || [ $cut = 0 ] || [ "$(stat reads_resumed)" -gt "$resumed" ] ||
		bad "$p over 9p: reads_resumed stayed at $resumed"
	[ "$(stat elf_unreadable)" = "$unread" ] ||
		bad "$p over 9p: elf_unreadable went from $unread to $(stat elf_unreadable)"
	{ printf ' '; tr '\n' ' ' < /tmp/9p.$p.names; } |
		grep -q ' inner middle outer main __libc_start_call_main ' ||
		bad "$p over 9p: the main thread is not inner, middle, outer, main, __libc_start_call_main"
	[ "$(grep -c '^stop: outermost' /tmp/9p.$p.names)" = 2 ] ||
		bad "$p over 9p: not both threads to their outermost frame"

	run_target "$tmp/sc" "$tmp/$p" /tmp/tmpfs.$p
	if ! cmp -s /tmp/9p.$p.names /tmp/tmpfs.$p.names; then
		bad "$p: 9p and tmpfs give different frames"
		diff /tmp/9p.$p.names /tmp/tmpfs.$p.names
	fi
done

echo /var/lib/sframe-unwind > $param
rm -rf $nine "$tmp" /tmp/9p-target.out
[ $fail = 0 ] &&
	echo "ok 9p: a $((own))-byte .sframe and a $big-byte sidecar give the frames tmpfs gives"
exit $fail
