#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stock `perf record -g` on node running a JavaScript loop
# (workloads/jit-loop.js: V8 compiles it into anonymous memory, and its
# JIT code keeps frame records), three ways: perf's own frame-pointer walk
# (the module's perf_callchain off), the module's callchains with sidecars
# of node and its libraries (made here by tools/sframe-gen), and the same
# with --perf-basic-prof (V8 names its JIT code in /tmp/perf-PID.map).
# Counted over ALL samples with a user frame: the share whose callchain
# reaches main or the thread's outermost frame (tests/e2e/perf-complete),
# and the samples whose innermost frame is JIT code.  With the module, at
# least 99 % complete and never below perf's own walk (0.5 points of
# sampling noise allowed); the walk must have left JIT frames through their
# records (fp_jit_frames of unwind_stats).  Then grep -P (PCRE2's JIT,
# whose code keeps no frame at all), perf's walk and the module's side by
# side: measured, and held to perf's (0.5 points), not to 99 %: a sample
# in PCRE2's JIT code has neither a frame record nor unwind data to leave
# it by (Documentation/unwinder.rst).  x86_64 only: the guest runs the
# host's node and sframe-gen.
secs=3
period=6000000
if [ "$(uname -m)" != x86_64 ]; then
	echo "x86_64 only: the guest runs the host's node and sframe-gen: skip"
	exit 77
fi
node=$(command -v node || command -v nodejs || true)
if [ -z "$node" ]; then
	echo "FAILED: no node (scripts/install-deps installs nodejs)"
	exit 1
fi
node=$(readlink -f "$node")
param=/sys/module/sframe_unwind/parameters/sidecar_dir
here=$(cd "$(dirname "$0")" && pwd)
. "$here/perf-lib"
fail=0
echo "node is $node ($("$node" --version))"
perf_unthrottle || exit 1
sc=$(mktemp -d /tmp/sfu-jit.XXXXXX) || exit 1
chmod 755 "$sc"
finish() {
	echo /var/lib/sframe-unwind > $param
	perf_callchain_set 1 Y > /dev/null
	rm -rf "$sc" /tmp/perf-*.map
	exit $fail
}
grep=$(command -v grep)
perf_sidecars_of "$sc" "$node" "$grep" ||
	{ echo "FAILED: sframe-gen --install of node, grep and their libraries"; fail=1; finish; }
echo "$sc" > $param
cd /tmp || exit 1
jit() { awk -v s="$1" '$1 == s { print $2 }' /sys/kernel/debug/sframe_unwind/unwind_stats; }

# measure NAME [node options]: "SAMPLES COMPLETE PERCENT JITLEAF JITLEAFCOMPLETE"
measure() {
	name=$1
	shift
	perf record -q -g -e cpu-clock:u -c $period -o "/tmp/$name.data" -- \
		"$node" "$@" "$SFU_TOP/tests/e2e/workloads/jit-loop.js" $secs \
		> "/tmp/$name.out" 2>&1 || { echo "perf record ($name) failed" >&2; cat "/tmp/$name.out" >&2; }
	# shellcheck disable=SC2046
	set -- $(perf_complete_share "/tmp/$name.data")
	# JIT leaves: innermost frame in no file ([unknown]) or in V8's map.
	awk -v s="$1" -v c="$2" -v p="$3" '
		$1 ~ /^(\[unknown\]|perf-[0-9]+\.map|\[anon)/ { js += $2; jc += $4 }
		END { printf "%d %d %s %d %d", s, c, p, js, jc }' "/tmp/$name.data.objects"
}

perf_callchain_set 0 N || finish
measure perf > /tmp/perf.result
perf_callchain_set 1 Y || finish
j0=$(jit fp_jit_frames)
measure module > /tmp/module.result
j1=$(jit fp_jit_frames)
measure map --perf-basic-prof > /tmp/map.result
label() {
	case $1 in
	perf) echo "perf's own walk" ;;
	module) echo "module" ;;
	map) echo "module, --perf-basic-prof" ;;
	esac
}
for n in perf module map; do
	set -- $(cat /tmp/$n.result)
	echo "workload node $(label $n): $1 samples, $2 complete ($3 %); JIT leaves $4, $5 complete"
	sed 's/^/    /' "/tmp/$n.data.objects"
done
set -- $(cat /tmp/perf.result)
pp=$3
for n in module map; do
	set -- $(cat /tmp/$n.result)
	[ "$1" -ge 100 ] || { echo "FAILED: $(label $n): only $1 samples"; fail=1; }
	awk -v m="$3" -v p="$pp" 'BEGIN { exit !(m >= 99 && m >= p - 0.5) }' || {
		echo "FAILED: $(label $n) $3 % complete: want >= 99 % and >= perf's own walk" \
			"($pp %); the chain most broken samples have:"
		sed 's/^/    /' "/tmp/$n.data.broken"
		fail=1
	}
done
set -- $(cat /tmp/module.result)
[ "$4" -gt 0 ] || { echo "FAILED: no sample with its innermost frame in JIT code"; fail=1; }

# grep -P over generated lines (grep, libpcre2 and libc with sidecars):
# PCRE2 compiles the pattern into anonymous memory and calls it from
# pcre2_jit_match().
awk 'BEGIN { for (i = 0; i < 400000; i++) printf "line %d key%07d value %x end\n", i, i * 7919 % 1000003, i }' \
	> /tmp/pcre.in
pcre() {
	name=$1
	# grep's status is 1 where no line matches: only a perf failure counts.
	perf record -q -g -e cpu-clock:u -c $period -o "/tmp/$name.data" -- \
		grep -cP '(\w+\s)+key\d*(1|3|5)7\d+\s+\w+(?=\s+end)' /tmp/pcre.in \
		> "/tmp/$name.out" 2>&1
	[ -s "/tmp/$name.data" ] ||
		{ echo "perf record ($name) failed" >&2; cat "/tmp/$name.out" >&2; }
	# shellcheck disable=SC2046
	set -- $("$here/perf-complete" "/tmp/$name.data" 2> "/tmp/$name.objects")
	# PCRE2's JIT maps its code from a memfd where it cannot have
	# writable and executable anonymous memory: those count as JIT too.
	awk -v s="${1:-0}" -v c="${2:-0}" '
		$1 ~ /^(\[unknown\]|\[anon|\/memfd:|\/\/anon)/ || / \(deleted\) / {
			js += $(NF - 3); jc += $(NF - 1) }
		END { printf "%d %d %.1f %d %d", s, c, s ? 100 * c / s : 0, js, jc }' "/tmp/$name.objects"
}
perf_callchain_set 0 N || finish
pcre pcre-perf > /tmp/pcre-perf.result
perf_callchain_set 1 Y || finish
pcre pcre-module > /tmp/pcre-module.result
for n in perf module; do
	set -- $(cat /tmp/pcre-$n.result)
	echo "workload grep -P $(label $n): $1 samples, $2 complete ($3 %); JIT leaves $4, $5 complete"
	awk '{ print $(NF - 3), $0 }' "/tmp/pcre-$n.objects" | sort -nr | head -n 3 |
		awk -v l="workload grep -P $(label $n): leaves in" '{ $1 = l; print }'
	sed 's/^/    /' "/tmp/pcre-$n.objects"
done
set -- $(cat /tmp/pcre-perf.result)
pp=$3
set -- $(cat /tmp/pcre-module.result)
awk -v m="$3" -v p="$pp" 'BEGIN { exit !(m >= p - 0.5) }' ||
	{ echo "FAILED: grep -P with the module $3 % complete, below perf's own walk ($pp %)"; fail=1; }
rm -f /tmp/pcre.in
[ "$j1" -gt "$j0" ] || { echo "FAILED: fp_jit_frames did not go up ($j0)"; fail=1; }
echo "    fp_jit_frames: $((j1 - j0)) in the module's run"
finish
