#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A forged file cannot give another file its rows (Documentation/
# sidecars.rst, "Bound to the file's content").  The genuine file is the
# fixture chain-O2.nosframe (no .sframe: its rows come from its sidecar);
# the forged one a copy with its build-id and every CFA offset of 16 in its
# .eh_frame made 24 (what anyone can write), presented by a uid-0 process
# of another mount namespace from a private tmpfs (what a rootful
# container's root can do).  The sidecar daemon runs on an empty directory
# and converts what is mapped.  In both orders (forged first, genuine
# first) the genuine program's perf callchains (the kernel's
# PERF_SAMPLE_CALLCHAIN, tests/e2e/perf-callchain-check) are exactly the
# return addresses it records, its walks exact at every check of
# sfu-stack-check, both sidecars are kept (the first under the build-id's
# name, the other under its digest), and sidecar_refused_content counts
# the sidecar of the other file refused.  On a tree without the binding,
# the forged-first order gives the genuine program the forged rows.
# x86_64 only: it runs the host's sframe-unwindd.
. ./unwind-lib
. ./perf-lib
if [ "$arch" != x86_64 ]; then
	echo "x86_64 only: it runs the host's sframe-unwindd: skip"
	exit 77
fi
perf_unthrottle || exit 1
param=/sys/module/sframe_unwind/parameters/sidecar_dir
dbg=/sys/kernel/debug/sframe_unwind
daemon=$SFU_TOP/tools/sframe-unwindd
raw=$e2e/perf-callchain-check
stat() { awk -v k="$1" '$1 == k { print $2 }' $dbg/stats; }
bad() { echo "FAILED: $*"; fail=1; }

prog=$(fixture v3 chain-O2.nosframe) || exit 1
work=$(mktemp -d /tmp/sfu-forged.XXXXXX)
chmod 755 "$work"
pid=
# stop_daemon: TERM, then KILL after 10 s; never a wait without an end
stop_daemon() {
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2> /dev/null
	i=0
	while kill -0 "$pid" 2> /dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -KILL "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	pid=
}
cleanup() {
	stop_daemon
	echo /var/lib/sframe-unwind > $param
	rm -rf "$work"
}
trap cleanup EXIT

# The forged copy: every DW_CFA_def_cfa_offset 16 of .eh_frame made 24.
cp "$prog" "$work/genuine"
python3 - "$prog" "$work/forged" << 'PY' || exit 1
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
shoff, = struct.unpack_from('<Q', d, 40)
shnum, strndx = struct.unpack_from('<HH', d, 60)
sh = lambda i: struct.unpack_from('<IIQQQQ', d, shoff + 64 * i)
stroff = sh(strndx)[4]
for i in range(shnum):
    name, _, _, _, off, size = sh(i)
    if d[stroff + name:d.index(b'\0', stroff + name)] == b'.eh_frame':
        sec = bytes(d[off:off + size])
        n = sec.count(b'\x0e\x10')
        d[off:off + size] = sec.replace(b'\x0e\x10', b'\x0e\x18')
        print('forged: %d CFA offsets changed' % n)
open(sys.argv[2], 'wb').write(d)
PY
chmod 755 "$work/forged"
bid=$(readelf -n "$prog" | awk '/Build ID/ { print $3 }')
[ "$(readelf -n "$work/forged" | awk '/Build ID/ { print $3 }')" = "$bid" ] ||
	{ echo "FAILED: the forged copy has another build-id"; exit 1; }
gdig=$("$SFU_TOP/tools/sframe-gen" --digest "$prog" | awk 'NR == 1 { print $2 }')
fdig=$("$SFU_TOP/tools/sframe-gen" --digest "$work/forged" | awk 'NR == 1 { print $2 }')
[ "$gdig" != "$fdig" ] || { echo "FAILED: the forged copy has the genuine CFI digest"; exit 1; }

# present: the forged file, mapped by root in a mount namespace of its own
present() {
	unshare -m sh -c "mount -t tmpfs -o mode=755 sfu-forged '$work/mnt' &&
		cp '$work/forged' '$work/mnt/chain-O2.nosframe' &&
		'$work/mnt/chain-O2.nosframe' 1 > /dev/null"
}
# wait_for NAME: until the daemon wrote sidecar NAME (of the build-id's
# directory); the daemon paces its work, and a loaded guest is slow
wait_for() {
	i=0
	until [ -f "$sc/$(echo "$bid" | cut -c1-2)/$1" ]; do
		i=$((i + 1))
		[ $i -le 1200 ] || { bad "no sidecar $1 after 120 s"; tail -n 20 "$work/daemon.log"; return 1; }
		sleep 0.1
	done
	sleep 0.5
}
# exact: the genuine program's walks and perf callchains are exact
exact() {
	run chain --at body "$prog"
	run chain --at body --nofault "$prog"
	score=$("$raw" "$prog" 15000000) || { bad "$raw $prog"; return; }
	echo "workload $1: perf callchains of $prog: ${score#* } of ${score% *} in leaf exact"
	[ "${score% *}" -ge 20 ] && [ "${score#* }" = "${score% *}" ] ||
		bad "$1: perf callchains not all exact: $score"
}
plain=$(echo "$bid" | cut -c3-).sframe
mkdir -m 755 "$work/mnt"
for order in forged-first genuine-first; do
	sc=$work/sc-$order
	mkdir -m 755 "$sc"
	echo "$sc" > $param
	rm -f "$work/daemon.stats"
	"$daemon" --dir "$sc" --stats "$work/daemon.stats" 2> "$work/daemon.log" &
	pid=$!
	i=0
	until grep -q "^rescans [1-9]" "$work/daemon.stats" 2> /dev/null; do
		i=$((i + 1))
		[ $i -le 600 ] || { bad "the daemon did not start"; cat "$work/daemon.log"; exit 1; }
		sleep 0.1
	done
	r0=$(stat sidecar_refused_content)
	if [ $order = forged-first ]; then
		present
		if wait_for "$plain"; then
			"$prog" 1 > /dev/null
			wait_for "$(echo "$bid" | cut -c3-).$(echo "$gdig" | cut -c1-32).sframe" &&
				echo "$sc" > $param && exact "$order"
		fi
	else
		"$prog" 1 > /dev/null
		if wait_for "$plain"; then
			exact "$order, before"
			present
			wait_for "$(echo "$bid" | cut -c3-).$(echo "$fdig" | cut -c1-32).sframe" &&
				echo "$sc" > $param && exact "$order, after"
		fi
	fi
	r1=$(stat sidecar_refused_content)
	echo "    $order: sidecar_refused_content +$((r1 - r0)); sidecars: $(ls "$sc/$(echo "$bid" | cut -c1-2)" | tr '\n' ' ')"
	[ "$r1" -gt "$r0" ] || bad "$order: sidecar_refused_content did not go up"
	stop_daemon
	grep -E "chain-O2" "$work/daemon.log" | sed 's/^/    daemon: /'
done
exit $fail
