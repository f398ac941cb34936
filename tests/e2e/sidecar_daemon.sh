#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The sidecar daemon (tools/sframe-unwindd, Documentation/sidecars.rst):
# with sidecar_dir an empty directory, stock `perf record -g` of programs
# whose time goes to code without .sframe, counting from one second after
# each program's first sample (tests/e2e/perf-complete --from 1), with
# kernel.perf_event_max_stack at 512 (deep Python stacks: perf's limit,
# not the module's max_depth, bounds perf's callchains, and numpy's third
# run must have chains longer than perf's default 127 frames, none of them
# cut):
#
#   cc1plus     g++ -O2 compiling a C++ file: Debian's cc1plus and its
#               libraries
#   openssl     openssl speed sha256: libcrypto
#   numpy       linear algebra in python3 (when python3-numpy is installed)
#   outside     a program outside every system directory, without .sframe
#               (libc-heavy-lld, in the build tree) and libc
#   mountns     libc-heavy run from another mount namespace (unshare -m)
#               with a copy of libc of a build-id of its own, under a
#               private tmpfs that no other namespace sees
#
# three times: without the daemon (the baseline), with the daemon started
# on the empty directory (its first run: the daemon converts the files as
# they are mapped, while the program runs), and again (the sidecars are
# there).  Each program's third run must reach 99 % (but for what
# sframe-gen cannot convert: below), its baseline must be 20 points below,
# and every figure is printed.  The daemon's counters, its log and the
# module's queue (debugfs sidecar_queue) are shown.
#
# Then the hostile part: a daemon converting any user's files, at most 40
# sidecars, files up to 1 MiB; a user maps 10,000 distinct executable
# files, each of a build-id of its own.  The module's queue never holds
# more than 64 requests nor more than 16 of that user; every mapping is
# counted as queued, duplicate or dropped; the daemon writes at most 40
# sidecars and counts the rest as refused; a 2 MiB file is refused; the
# daemon's memory stays small; that user cannot attach or rescan, and a
# second daemon cannot attach.  And with a daemon of root's files only
# (its default), a user maps 10,000 files that all carry the build-id of
# a file of root's: the module refuses them before they are queued, and
# root's file, mapped next, is converted all the same (nothing is "seen"
# by build-id).  x86_64 only
# (programs of the host's root).
secs=4
arch=$(uname -m)
if [ "$arch" != x86_64 ]; then
	echo "x86_64 only: it runs Debian's programs of the host's root: skip"
	exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
wl=$SFU_TOP/build/e2e/$arch/workloads
flood=$SFU_TOP/build/e2e/$arch/sidecar-flood
daemon=$SFU_TOP/tools/sframe-unwindd
param=/sys/module/sframe_unwind/parameters/sidecar_dir
dbg=/sys/kernel/debug/sframe_unwind
libc=$(ldd "$wl/libc-heavy" | awk '/libc\.so/ { print $3 }')

# --in-ns NAME SALT: run inside `unshare -m`: libc-heavy with its own copy of
# libc under a private tmpfs; prints what measure prints.
if [ "${1:-}" = --in-ns ]; then
	ns=$(mktemp -d /tmp/sfu-ns.XXXXXX)
	mount -t tmpfs -o mode=755 sfu-ns "$ns" || exit 1
	"$flood" copy "$libc" "$ns/libc.so.6" "$3" || exit 1
	perf record -q -g -e cpu-clock:u -c 500000 -o "/tmp/$2.data" -- \
		env LD_LIBRARY_PATH="$ns" "$wl/libc-heavy" $secs > "/tmp/$2.out" 2>&1 ||
		{ echo "perf record of $2 failed" >&2; cat "/tmp/$2.out" >&2; }
	set -- $("$here/perf-complete" --from 1 "/tmp/$2.data" libc-heavy 2> "/tmp/$2.objects")
	awk -v s="${1:-0}" -v c="${2:-0}" 'BEGIN { printf "%d %d %.1f", s, c, s ? 100 * c / s : 0 }'
	umount "$ns"
	rmdir "$ns"
	exit 0
fi

cd /tmp || exit 1
. "$here/perf-lib"
perf_unthrottle || exit 1
fail=0
bad() { echo "FAILED: $*"; fail=1; }
stat() { awk -v k="$1" '$1 == k { print $2 }' $dbg/stats; }
dstat() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
work=$(mktemp -d /tmp/sfu-daemon.XXXXXX)
sc=$work/sidecars
mkdir -m 755 "$sc"
chmod 755 "$work"
pid=

stop_daemon() {
	[ -n "$pid" ] || return 0
	kill -TERM "$pid"
	wait "$pid" || bad "the daemon exited with status $?"
	pid=
}
# Python's stacks can be deeper than the 127 frames perf keeps by default:
# perf's limit at 512 for the test, as before after it.
max_stack=/proc/sys/kernel/perf_event_max_stack
old_max_stack=$(cat $max_stack)
cleanup() {
	stop_daemon
	echo /var/lib/sframe-unwind > $param
	echo "$old_max_stack" > $max_stack
	rm -rf "$work"
}
trap cleanup EXIT
echo 512 > $max_stack || bad "cannot raise perf_event_max_stack to 512"
ustat() { awk -v k="$1" '$1 == k { print $2 }' $dbg/unwind_stats; }

# daemon_idle STATS HANDED: wait until the module's queue is empty and the
# daemon has dealt with every request handed to it since the module's
# sidecar_req_handed was HANDED, then for its rescan
daemon_idle() {
	i=0
	while [ $i -lt 1200 ]; do
		[ "$(awk '$1 == "queued" { print $2 }' $dbg/sidecar_queue)" = 0 ] &&
			[ "$(dstat received "$1")" = "$(($(stat sidecar_req_handed) - $2))" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	sleep 1
}

# start_daemon LOG STATS OPTIONS...: start it, wait for its first rescan
start_daemon() {
	log=$1 stats=$2
	shift 2
	"$daemon" --stats "$stats" "$@" 2> "$log" &
	pid=$!
	i=0
	while ! grep -q "^rescans [1-9]" "$stats" 2> /dev/null; do
		i=$((i + 1))
		[ $i -le 300 ] && kill -0 "$pid" 2> /dev/null ||
			{ bad "the daemon did not start"; cat "$log"; exit 1; }
		sleep 0.1
	done
}

cat > "$work/heavy.cc" <<'EOF'
#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

template <int N> struct fib { static constexpr long v = fib<N - 1>::v + fib<N - 2>::v; };
template <> struct fib<1> { static constexpr long v = 1; };
template <> struct fib<0> { static constexpr long v = 0; };

template <typename K, typename V> std::string dump(const std::map<K, V> &m)
{
	std::ostringstream o;
	for (const auto &[k, v] : m)
		o << k << '=' << v << ';';
	return o.str();
}

int main(int argc, char **argv)
{
	std::map<std::string, long> m;
	std::unordered_map<long, std::vector<std::string>> u;
	std::set<std::pair<int, std::string>> s;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		m[a.substr(1)] = a.size();
		u[i].push_back(a);
		s.insert({i, a});
	}
	std::vector<std::function<long(long)>> fs = {[](long x) { return x + fib<40>::v; },
						     [](long x) { return x * 2; }};
	long t = 0;
	for (auto &f : fs)
		t += f(argc);
	std::cout << dump(m) << t << s.size() << u.size() << '\n';
	return 0;
}
EOF
numpy_prog='import numpy as np, time
a = np.random.default_rng(1).random((200, 200))
end = time.time() + float(__import__("sys").argv[1])
while time.time() < end:
    np.linalg.inv(a @ a.T + np.eye(200))'

progs="cc1plus openssl outside mountns"
if /usr/bin/python3 -c "import numpy" 2> /dev/null; then
	progs="$progs numpy"
else
	echo "workload numpy: python3-numpy is not installed: not covered"
fi
# measure NAME RUN: perf record -g of workload NAME; prints "SAMPLES COMPLETE PCT"
# of its samples from one second after its first one
measure() {
	d=/tmp/$1-$2
	case $1 in
	mountns)
		unshare -m sh "$here/sidecar_daemon.sh" --in-ns "$1-$2" "$((salt + 0))"
		return
		;;
	cc1plus) set -- g++ -O2 -c "$work/heavy.cc" -o "$work/heavy.o" ;;
	openssl) set -- openssl speed -seconds $secs -bytes 16384 sha256 ;;
	numpy) set -- /usr/bin/python3 -c "$numpy_prog" $secs ;;
	outside) set -- "$wl/libc-heavy-lld" $secs ;;
	esac
	perf record -q -g -e cpu-clock:u -c 500000 -o "$d.data" -- "$@" > "$d.out" 2>&1 ||
		{ echo "perf record of $*  failed" >&2; cat "$d.out" >&2; }
	set -- $("$here/perf-complete" --example broken "$d.broken" --from 1 "$d.data" \
		"$(comm "${d##*/}")" 2> "$d.objects")
	awk -v s="${1:-0}" -v c="${2:-0}" 'BEGIN { printf "%d %d %.1f", s, c, s ? 100 * c / s : 0 }'
}
# comm NAME-RUN: the command name of workload NAME's samples
comm() {
	case ${1%-*} in
	cc1plus) echo cc1plus ;;
	openssl) echo openssl ;;
	numpy) echo python3 ;;
	outside) echo libc-heavy-lld ;;
	esac
}

echo "$sc" > $param
# 1. The baseline: no daemon, no sidecar.
salt=1
for p in $progs; do
	eval "base_$p=\"$(measure $p base)\""
done

# 2. The daemon, on the empty directory: its first run, then again.
before_handed=$(stat sidecar_req_handed)
start_daemon "$work/daemon.log" "$work/daemon.stats" --dir "$sc"
grep -q "^daemon 1" $dbg/sidecar_queue || bad "sidecar_queue does not show the daemon"
# perf's own libraries: the tool, not a workload, converted first.
perf record -q -o /dev/null -- true > /dev/null 2>&1
daemon_idle "$work/daemon.stats" "$before_handed"
salt=2
for p in $progs; do
	eval "first_$p=\"$(measure $p first)\""
done
grep -q " sfu-ns " /proc/self/mountinfo && bad "the mount namespace's tmpfs is visible outside it"
# What the daemon has not done yet is done before the third runs.
daemon_idle "$work/daemon.stats" "$before_handed"
for p in $progs; do
	depth0=$(ustat stop_depth)
	eval "again_$p=\"$(measure $p again)\""
	eval "depth_$p=$(($(ustat stop_depth) - depth0))"
done

# numpy's run is mostly python3's imports, whose stacks nest deeper than
# 127 frames: while the module kept at most 127 user frames per perf
# callchain whatever perf's limit (and perf script showed no more), 98.2
# to 99.3 %, held to 97 %; since, 99.9 %, the rest in the C runtime's
# _init and _fini, which have no CFI.
# (openssl, whose SHA-256 code keeps its CFA in a DWARF expression with an
# addend, measured 5-18 % before sframe-gen wrote the project's CFA
# addend; 99.8-100 % since.)
for p in $progs; do
	eval "b=\$base_$p f=\$first_$p a=\$again_$p"
	echo "workload $p samples/complete from 1 s: without the daemon ${b% *} ${b##* } %;" \
		"daemon's first run ${f% *} ${f##* } %; again ${a% *} ${a##* } %"
	# Where the incomplete samples of the third run were, and the chain
	# most of them have: what the last points are made of.
	# (e2e-run keeps the lines that begin with "workload").
	awk -v p="$p" '$3 == "samples," && $2 > $4 {
		printf "workload %s incomplete in %s: %d of %d\n", p, $1, $2 - $4, $2 }' \
		"/tmp/$p-again.objects" 2> /dev/null | sort -t: -k2 -rn | head -n 6
	[ ! -s "/tmp/$p-again.broken" ] ||
		echo "workload $p commonest broken chain: $(head -n 16 "/tmp/$p-again.broken" |
			paste -sd'|' | sed 's/|/ <- /g')"
	awk -v a="${a##* }" -v b="99" 'BEGIN { exit !(a >= b) }' || {
		bad "$p with the daemon's sidecars ${a##* } % < 99 %; innermost objects, and the broken chain most samples have:"
		sed 's/^/    /' "/tmp/$p-again.objects" "/tmp/$p-again.broken" 2> /dev/null
	}
	awk -v a="${a##* }" -v b="${b##* }" 'BEGIN { exit !(b <= a - 20) }' ||
		bad "$p without the daemon ${b##* } %, not 20 points below ${a##* } %"
	eval "d=\$depth_$p"
	[ "$d" = 0 ] || bad "$p: $d unwinds cut at a depth limit (stop_depth) under perf's 512"
done
# numpy's imports nest deeper than perf's default 127 frames: its chains
# are as long as they are, not cut at 127 (the module's max_depth).
if [ -n "${again_numpy:-}" ]; then
	longest=$(perf script -i /tmp/numpy-again.data --comm python3 --max-stack 4096 -F ip 2> /dev/null |
		awk 'NF { n++; next } { if (n > m) m = n; n = 0 } END { if (n > m) m = n; print m + 0 }')
	echo "workload numpy longest chain: $longest frames"
	[ "$longest" -gt 127 ] || bad "numpy's longest chain has $longest frames, none beyond 127"
fi
converted=$(dstat converted "$work/daemon.stats")
received=$(dstat received "$work/daemon.stats")
echo "workload daemon: received $received converted $converted" \
	"rescans $(dstat rescans "$work/daemon.stats") bytes $(dstat bytes "$work/daemon.stats")" \
	"(kernel: queued $(stat sidecar_req_queued) duplicate $(stat sidecar_req_duplicate)" \
	"dropped $(stat sidecar_req_dropped_full)/$(stat sidecar_req_dropped_user)" \
	"rescans $(stat sidecar_rescans))"
[ "${converted:-0}" -gt 0 ] || bad "the daemon converted nothing"
[ "$received" = "$(($(stat sidecar_req_handed) - before_handed))" ] ||
	bad "the daemon received $received requests, the module handed $(($(stat sidecar_req_handed) - before_handed))"
for f in cc1plus libcrypto.so libc.so.6; do
	grep -q " $f.*converted" "$work/daemon.log" || bad "the daemon's log shows no conversion of $f"
done
grep -q " libc.so.6 (uid 0): converted" "$work/daemon.log" || bad "no conversion logged for libc"
# The namespace's copy was converted from the file only that namespace sees.
id=$("$flood" copy "$libc" "$work/libc-copy" 2 && readelf -n "$work/libc-copy" |
	awk '/Build ID/ { print $3 }')
[ -f "$sc/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).sframe" ] ||
	bad "no sidecar for the mount namespace's copy of libc ($id)"
echo "daemon log (first lines):"
head -n 12 "$work/daemon.log" | sed 's/^/    /'
stop_daemon
grep -q "totals: received" "$work/daemon.log" || bad "no totals in the daemon's log at exit"
# Every sidecar is one it wrote (the commands above had theirs made too).
converted=$(dstat converted "$work/daemon.stats")
[ "$(find "$sc" -name '*.sframe' | wc -l)" = "$converted" ] ||
	bad "$(find "$sc" -name '*.sframe' | wc -l) sidecars in the directory, $converted converted"
grep -q "^daemon 0" $dbg/sidecar_queue || bad "sidecar_queue still shows a daemon"

# 3. Hostile: a user maps 10,000 distinct executable files.
sc2=$work/hostile
mkdir -m 755 "$sc2"
echo "$sc2" > $param
start_daemon "$work/hostile.log" "$work/hostile.stats" --dir "$sc2" --any-owner \
	--max-size 1M --max-sidecars 40 --rate 600 --burst 20
"$daemon" --dir "$sc2" 2> "$work/second.log" && bad "a second daemon ran"
grep -q "attach: Device or resource busy" "$work/second.log" ||
	bad "a second daemon was not refused with EBUSY: $(cat "$work/second.log")"
for c in 0xb505 0xb507; do
	setpriv --reuid=12345 --regid=12345 --clear-groups /usr/bin/python3 -c "
import fcntl, os, sys
fd = os.open('/dev/sframe_unwind', os.O_RDWR)
try:
    fcntl.ioctl(fd, $c)
except PermissionError:
    sys.exit(0)
sys.exit(1)" || bad "user 12345's ioctl $c was not refused with EPERM"
done
# A file beyond --max-size.
"$flood" copy "$flood" "$work/big" 99 && truncate -s 2M "$work/big" && "$flood" map "$work/big"
fdir=$work/flood
mkdir -m 700 "$fdir"
chown 12345:12345 "$fdir"
for k in queued duplicate dropped_full dropped_user; do
	eval "k0_$k=$(stat sidecar_req_$k)"
done
setpriv --reuid=12345 --regid=12345 --clear-groups "$flood" flood "$flood" "$fdir" 10000 \
	> "$work/flood.out" 2>&1 &
fpid=$!
maxq=0 maxu=0
while kill -0 $fpid 2> /dev/null; do
	q=$(awk '$1 == "queued" { print $2 }' $dbg/sidecar_queue)
	u=$(grep -c " uid 12345 " $dbg/sidecar_queue)
	[ "$q" -gt $maxq ] && maxq=$q
	[ "$u" -gt $maxu ] && maxu=$u
	sleep 0.2
done
wait $fpid || bad "the flood failed: $(cat "$work/flood.out")"
grep -q "mapped 10000" "$work/flood.out" || bad "the flood did not map 10000 files"
sleep 3
sum=0
for k in queued duplicate dropped_full dropped_user; do
	eval "d_$k=\$(($(stat sidecar_req_$k) - k0_$k))"
	eval "sum=\$((sum + d_$k))"
done
hwm=$(awk '/^VmHWM/ { print $2 }' /proc/$pid/status)
stop_daemon
h=$work/hostile.stats
echo "workload hostile: 10000 files mapped; module: queued $d_queued duplicate $d_duplicate" \
	"dropped full $d_dropped_full, per-user $d_dropped_user; queue at most $maxq, $maxu of the user's;" \
	"daemon: received $(dstat received $h) converted $(dstat converted $h)" \
	"refused quota $(dstat refused_quota $h) size $(dstat refused_size $h) nothing $(dstat nothing $h)" \
	"rate waits $(dstat rate_waits $h); peak RSS $hwm kB;" \
	"log lines $(wc -l < "$work/hostile.log"), $(dstat log_suppressed $h) left out;" \
	"$(find "$sc2" -name '*.sframe' | wc -l) sidecars written"
[ "$sum" -ge 10000 ] || bad "only $sum of the 10000 mappings counted by the module"
[ $((d_dropped_full + d_dropped_user)) -gt 0 ] || bad "the module dropped nothing of the flood"
[ "$maxq" -le 64 ] || bad "the queue held $maxq requests (cap 64)"
[ "$maxu" -le 16 ] || bad "the queue held $maxu of one user's requests (cap 16)"
[ "$(dstat converted $h)" -le 40 ] || bad "the daemon converted $(dstat converted $h) files (--max-sidecars 40)"
[ "$(find "$sc2" -name '*.sframe' | wc -l)" -le 40 ] || bad "more than 40 sidecars written"
[ "$(dstat refused_quota $h)" -gt 0 ] || bad "no refusal for --max-sidecars counted"
[ "$(dstat refused_size $h)" -ge 1 ] || bad "the 2 MiB file was not refused (--max-size 1M)"
[ "$hwm" -le 65536 ] || bad "the daemon's peak RSS $hwm kB"
find "$sc2" "$sc" ! -user root | grep -q . && bad "a file in the sidecar directories not root's"

# 4. The daemon's own policy (no --any-owner): the module refuses the
# user's files before they take any place, even 10,000 that all carry
# the build-id of a file of root's, and root's file mapped right after
# the flood gets its sidecar.
sc3=$work/rootonly
mkdir -m 755 "$sc3"
echo "$sc3" > $param
start_daemon "$work/root.log" "$work/root.stats" --dir "$sc3"
fdir3=$work/flood3
mkdir -m 700 "$fdir3"
chown 12345:12345 "$fdir3"
r0=$(stat sidecar_req_refused_owner) h0=$(stat sidecar_req_handed)
setpriv --reuid=12345 --regid=12345 --clear-groups "$flood" flood "$flood" "$fdir3" 10000 4242 \
	> "$work/flood3.out" 2>&1 || bad "the second flood failed: $(cat "$work/flood3.out")"
grep -q "mapped 10000" "$work/flood3.out" || bad "the second flood did not map 10000 files"
d_refused=$(($(stat sidecar_req_refused_owner) - r0))
"$flood" copy "$flood" "$work/roots" 4242 && chmod 755 "$work/roots" && "$flood" map "$work/roots" ||
	bad "cannot map a file of root's"
daemon_idle "$work/root.stats" "$h0"
stop_daemon
echo "workload root-only: a user's 10000 files of root's file's build-id: refused by the" \
	"module $d_refused, handed to the daemon and refused there" \
	"$(dstat refused_owner "$work/root.stats"); then root's file, and what the rescan" \
	"found mapped: daemon received $(dstat received "$work/root.stats")" \
	"converted $(dstat converted "$work/root.stats")"
[ "$d_refused" -ge 10000 ] || bad "the module refused $d_refused of the user's 10000 files"
[ "$(dstat refused_owner "$work/root.stats")" = 0 ] ||
	bad "the daemon was handed $(dstat refused_owner "$work/root.stats") files not root's"
grep -q " roots (uid 0): converted" "$work/root.log" ||
	bad "root's file mapped after the flood was not converted: $(cat "$work/root.log")"
exit $fail
