#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/sframe-stack on a running process whose two threads block at known
# stacks (tests/e2e/stack-target: main -> outer -> middle -> inner ->
# pause(); worker -> worker_inner -> nanosleep()), with sidecars for libc
# made by tools/sframe-gen: each thread's frames, symbolized, name those
# functions in that order from the C library's blocking call up, and end
# at the thread's outermost frame (stop reason "outermost").  Without the
# sidecars the walk cannot leave libc.  A thread named on the command line
# is unwound alone; a process the caller may not read is refused.  x86_64
# only: the guest runs the host's libdw and sframe-gen.
. ./unwind-lib

if [ "$arch" != x86_64 ]; then
	echo "x86_64 only: sframe-stack and sframe-gen run from the host's root: skip"
	exit 77
fi
stack=$SFU_TOP/tools/sframe-stack
gen=$SFU_TOP/tools/sframe-gen
param=/sys/module/sframe_unwind/parameters/sidecar_dir
sc=$(mktemp -d /tmp/sfu-stack.XXXXXX)
chmod 755 "$sc"
bad() { echo "FAILED: $*"; fail=1; }

# names FILE: the symbol of each frame line, one per line
names() {
	sed -n 's/^#[0-9]* *0x[0-9a-f]* \([^+ ]*\)+0x.*/\1/p; s/^#[0-9]* *0x[0-9a-f]*\( - .*\)\{0,1\}$/?/p' "$1"
}
# in_order FILE NAME...: the frames of FILE name each NAME, one after the
# other, with nothing between them
in_order() {
	f=$1
	shift
	{ printf ' '; names "$f" | tr '\n' ' '; } | grep -q " $* "
}

start_target() {
	"$e2e/stack-target" > /tmp/stack-target.out &
	tpid=$!
	for _ in $(seq 100); do
		grep -q ready /tmp/stack-target.out && break
		sleep 0.1
	done
}

libc=$(ldd "$e2e/stack-target" | awk '/libc.so/ { print $3 }')
"$gen" --install --cache "$sc" "$libc" "$(readlink -f "$e2e/stack-target")" > /dev/null ||
	bad "sframe-gen --install of libc"

# Without sidecars: libc has no .sframe, and the walk stops in it.
echo "" > $param
start_target
"$stack" "$tpid" > /tmp/stack.none 2>&1
sed 's/^/    without sidecars: /' /tmp/stack.none
if in_order /tmp/stack.none inner middle outer main; then
	bad "without sidecars the walk reached main through libc"
fi
kill "$tpid"
wait "$tpid" 2> /dev/null

echo "$sc" > $param
start_target
"$stack" "$tpid" > /tmp/stack.all 2>&1 || bad "sframe-stack $tpid exited $?"
sed 's/^/    /' /tmp/stack.all
main_tid=$(awk '{ print $3 }' /tmp/stack-target.out)
# Each thread's block: from its "TID" line to its "stop:" line.
awk -v m="$main_tid" '/^TID / { f = ($2 == m ":") ? "/tmp/stack.main" : "/tmp/stack.worker" }
	f { print > f }' /tmp/stack.all
in_order /tmp/stack.main inner middle outer main __libc_start_call_main ||
	bad "main thread: not inner, middle, outer, main, __libc_start_call_main"
grep -q '^stop: outermost' /tmp/stack.main || bad "main thread: $(grep ^stop: /tmp/stack.main)"
in_order /tmp/stack.worker worker_inner worker start_thread ||
	bad "worker thread: not worker_inner, worker, start_thread"
grep -q '^stop: outermost' /tmp/stack.worker || bad "worker: $(grep ^stop: /tmp/stack.worker)"
# The innermost frame of each is in libc, where the thread blocks.
sed -n 2p /tmp/stack.main | grep -q 'libc.so' || bad "main thread's frame #0 is not in libc"

# One thread, named.
"$stack" "$tpid" "$main_tid" > /tmp/stack.one 2>&1 || bad "sframe-stack $tpid $main_tid"
[ "$(grep -c '^TID ' /tmp/stack.one)" = 1 ] || bad "sframe-stack $tpid $main_tid: not one thread"
in_order /tmp/stack.one inner middle outer main || bad "named thread: not inner ... main"

# Another user may not read the process's memory: refused, exit 2.
if command -v setpriv > /dev/null; then
	setpriv --reuid 65534 --regid 65534 --clear-groups "$stack" "$tpid" > /tmp/stack.other 2>&1
	rc=$?
	[ $rc = 2 ] && grep -q 'Permission denied' /tmp/stack.other ||
		bad "another user: exit $rc, $(head -n 1 /tmp/stack.other)"
fi
kill "$tpid"
wait "$tpid" 2> /dev/null
echo /var/lib/sframe-unwind > $param
rm -rf "$sc"
[ $fail = 0 ] && echo "ok sframe-stack: both threads from the blocking call to the outermost frame"
exit $fail
