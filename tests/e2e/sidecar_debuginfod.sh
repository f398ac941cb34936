#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Sidecars from a fleet's debuginfod (Documentation/sidecars.rst, "From a
# fleet's debuginfod"), in the guest: Debian's own debuginfod serves the
# sidecars tests/e2e/publish-sidecars made on the host (never made in the
# guest) of what g++'s cc1plus and python3 with numpy map; it and the
# sidecar daemon run in a network namespace of their own whose only
# interface is lo (debuginfod 0.188 has no option for its address: there
# 127.0.0.1 is all it can bind), or, on a kernel without network
# namespaces, in the guest if only lo has an address.  sidecar_dir is an
# empty directory.
#
#   served   stock perf record -g of cc1plus compiling C++ and of numpy's
#            linear algebra, twice, the first with the sidecar directory
#            empty but for what the daemon fetched for the processes running
#            when it started, with sidecar_wait_ms 2000 (a mapping whose
#            sidecar the daemon is asked for waits for it): each run's share
#            of complete samples from one second after its first
#            (tests/e2e/perf-complete --from 1) printed, each at least
#            99 %, and how many mappings waited, and how many waits ran
#            out (sidecar_wait_timeouts: a file converted here may take
#            longer) printed; no file of the published set converted by
#            the daemon: each of those it was asked for came from
#            debuginfod (its log; the vDSO, which has no file, is
#            converted at start); how many were asked for ahead of their
#            mapping (prefetched, in the daemon's stats) printed.  Without the wait, under TCG, the first run's figure
#            moves from run to run (cc1plus 96.2 to 99.6 %, numpy 88 to
#            99.5 %): a file's samples have no rows until its request is
#            served, a fetch, the daemon's digest and a rescan, 0.2 to
#            0.5 s there, and python3 runs each numpy module's code as
#            soon as it has mapped it
#   forged   a server whose sidecar of libz's build-id was made from a copy
#            with another .eh_frame: python3 importing zlib maps libz, the
#            daemon refuses what is served and converts libz itself
#   down     that server stopped: the next file asked for (a program of the
#            build tree) is converted after at most the timeout, 5 s, and 1 s
#            more asking (the daemon's log says how long)
#
# x86_64 only: it runs the host's programs and the host published for them.
arch=$(uname -m)
if [ "$arch" != x86_64 ]; then
	echo "x86_64 only: it runs the host's programs: skip"
	exit 77
fi
for t in debuginfod unshare ip curl; do
	command -v $t > /dev/null || { echo "FAILED: no $t (scripts/install-deps)"; exit 1; }
done
here=$(cd "$(dirname "$0")" && pwd)
pub=$SFU_TOP/build/e2e/$arch/debuginfod
[ -s "$pub/genuine.list" ] && [ -s "$pub/forged.id" ] ||
	{ echo "FAILED: nothing published in $pub (scripts/run-e2e runs tests/e2e/publish-sidecars)"; exit 1; }
wl=$SFU_TOP/build/e2e/$arch/workloads
daemon=$SFU_TOP/tools/sframe-unwindd
param=/sys/module/sframe_unwind/parameters/sidecar_dir
wait_ms=/sys/module/sframe_unwind/parameters/sidecar_wait_ms
secs=4

# --netns PORT SERVED SC LOG STATS PIDS: inside `unshare -n`: lo up,
# debuginfod on PORT serving SERVED until it has indexed it, then the
# daemon on SC asking it; their pids into PIDS.
if [ "${1:-}" = --netns ]; then
	port=$2 served=$3 sc=$4 log=$5 stats=$6 pids=$7
	ip link set lo up || exit 1
	debuginfod -F -t 0 -g 0 -p "$port" -d "$sc.db" "$served" > "$log.server" 2>&1 &
	echo "$!" > "$pids"
	# Until every published file is classed as debuginfo.
	n=$(ls "$served" | wc -l)
	i=0
	until [ "$(curl -s "http://127.0.0.1:$port/metrics" |
		awk 'index($0, "found_debuginfo_total{source=\"files\"} ") == 1 { v = $2 }
		     END { print v + 0 }')" -ge "$n" ]; do
		i=$((i + 1))
		[ $i -le 1200 ] || { echo "debuginfod did not index $served" >> "$log"; exit 1; }
		sleep 0.1
	done
	DEBUGINFOD_URLS=http://127.0.0.1:$port "$daemon" --dir "$sc" --stats "$stats" \
		2> "$log" &
	echo "$!" >> "$pids"
	wait
	exit 0
fi

# A kernel without network namespaces (the 6.1 test kernels): the guest
# itself, if only lo has an address.
netns="unshare -n"
if ! unshare -n true 2> /dev/null; then
	others=$(ip -o addr show | awk '$2 != "lo" { print $2 }' | sort -u)
	[ -z "$others" ] ||
		{ echo "FAILED: no network namespaces, and addresses besides lo's: $others"; exit 1; }
	netns=
fi

cd /tmp || exit 1
. "$here/perf-lib"
perf_unthrottle || exit 1
fail=0
bad() { echo "FAILED: $*"; fail=1; }
dstat() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
work=$(mktemp -d /tmp/sfu-debuginfod.XXXXXX)
chmod 755 "$work"
nspid=
stop() {
	[ -n "$nspid" ] || return 0
	kill $(cat "$work/pids" 2> /dev/null) 2> /dev/null
	wait "$nspid" 2> /dev/null
	nspid=
}
# Python's and cc1plus's stacks can be deeper than the 127 frames perf
# keeps by default: perf's limit at 512 for the test (sidecar_daemon.sh).
max_stack=/proc/sys/kernel/perf_event_max_stack
old_max_stack=$(cat $max_stack)
cleanup() {
	stop
	echo 0 > $wait_ms
	echo /var/lib/sframe-unwind > $param
	echo "$old_max_stack" > $max_stack
	rm -rf "$work"
}
trap cleanup EXIT
echo 512 > $max_stack || bad "cannot raise perf_event_max_stack to 512"

# start NAME PORT SERVED: a server and a daemon on the empty directory NAME
start() {
	sc=$work/$1
	mkdir -m 755 "$sc"
	echo "$sc" > $param
	$netns sh "$here/sidecar_debuginfod.sh" --netns "$2" "$3" "$sc" "$work/$1.log" \
		"$work/$1.stats" "$work/pids" &
	nspid=$!
	i=0
	until grep -q "^rescans [1-9]" "$work/$1.stats" 2> /dev/null; do
		i=$((i + 1))
		[ $i -le 1200 ] && kill -0 "$nspid" 2> /dev/null ||
			{ bad "$1: the daemon did not start"; cat "$work/$1.log"*; return 1; }
		sleep 0.1
	done
}
# wait_id ID LOG: until the daemon logged build-id ID's outcome, 60 s at most
wait_id() {
	i=0
	until grep -q "$1 .*: \(from debuginfod\|converted\|a sidecar exists\)" "$2"; do
		i=$((i + 1))
		[ $i -le 600 ] || return 1
		sleep 0.1
	done
}

cat > "$work/heavy.cc" << 'EOF'
#include <map>
#include <sstream>
#include <string>
#include <vector>

template <int N> struct fib { static constexpr long v = fib<N - 1>::v + fib<N - 2>::v; };
template <> struct fib<1> { static constexpr long v = 1; };
template <> struct fib<0> { static constexpr long v = 0; };

int main(int argc, char **argv)
{
	std::map<std::string, std::vector<long>> m;
	std::ostringstream o;
	for (int i = 0; i < argc; i++)
		m[argv[i]].push_back(fib<40>::v + i);
	for (const auto &[k, v] : m)
		o << k << v.size();
	return o.str().size() > 1;
}
EOF
numpy_prog='import numpy as np, time
a = np.random.default_rng(1).random((200, 200))
end = time.time() + float(__import__("sys").argv[1])
while time.time() < end:
    np.linalg.inv(a @ a.T + np.eye(200))'

# 1. served: the genuine sidecars, the first run's mappings waiting for theirs.
mstat() { awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' /sys/kernel/debug/sframe_unwind/stats; }
w0=$(mstat sidecar_waits) t0=$(mstat sidecar_wait_timeouts)
echo 2000 > $wait_ms || bad "cannot set sidecar_wait_ms"
start served 8002 "$pub/genuine" || exit 1
# measure NAME RUN: one perf record -g of NAME; "SAMPLES COMPLETE" from 1 s
measure() {
	case $1 in
	cc1plus) set -- "$1" "$2" cc1plus g++ -O2 -c "$work/heavy.cc" -o "$work/heavy.o" ;;
	numpy) set -- "$1" "$2" python3 /usr/bin/python3 -c "$numpy_prog" $secs ;;
	esac
	d=$work/$1-$2 comm=$3
	shift 3
	perf record -q -g -e cpu-clock:u -c 500000 -o "$d.data" -- "$@" > "$d.out" 2>&1 ||
		{ echo "perf record of $*" failed >&2; cat "$d.out" >&2; }
	"$here/perf-complete" --example broken "$d.broken" --from 1 "$d.data" "$comm" \
		2> "$d.objects"
}
for p in cc1plus numpy; do
	for run in first again; do
		set -- $(measure $p $run)
		echo "workload $p from a fleet's debuginfod, $run run: $1 samples from 1 s," \
			"$2 complete ($(awk -v s="${1:-0}" -v c="${2:-0}" \
			'BEGIN { printf "%.1f", s ? 100 * c / s : 0 }') %)"
		# The first run waited for its sidecars; the second had them.
		[ "${1:-0}" -ge 100 ] && [ $((${2:-0} * 100)) -ge $((${1:-0} * 99)) ] || {
			bad "$p $run: ${2:-0} of ${1:-0} samples complete, under 99 %"
			sed 's/^/    /' "$work/$p-$run.objects" "$work/$p-$run.broken"
		}
	done
done
echo "workload debuginfod waits: $(($(mstat sidecar_waits) - w0)) mappings waited for" \
	"their sidecars, $(($(mstat sidecar_wait_timeouts) - t0)) ran out of time"
[ "$(mstat sidecar_waits)" -gt "$w0" ] || bad "no mapping waited for its sidecar"
sleep 1
fetched=$(grep -c ": from debuginfod," "$work/served.log")
local_published=$(awk '{ print $1 }' "$pub/genuine.list" | while read -r id; do
	grep "$id .*: converted" "$work/served.log"; done)
echo "workload debuginfod served: $fetched sidecars from debuginfod" \
	"($(dstat prefetched "$work/served.stats") asked for ahead), $(grep -c ": converted," \
	"$work/served.log") converted here (the vDSO and files outside the published set)"
[ "$fetched" -ge 10 ] || bad "only $fetched sidecars from debuginfod"
[ -z "$local_published" ] || bad "published files converted here: $local_published"
[ "$(dstat debuginfod_refused "$work/served.stats")" = 0 ] || bad "a genuine sidecar refused"
stop
echo 0 > $wait_ms

# 2. forged: libz's sidecar of other content.
zid=$(cat "$pub/forged.id")
start forged 8003 "$pub/forged" || exit 1
/usr/bin/python3 -c 'import zlib, time; zlib.compress(b"x"); time.sleep(1)'
wait_id "$zid" "$work/forged.log" || bad "forged: libz ($zid) never dealt with"
grep -q "$zid .*debuginfod: refused [0-9]* bytes: not a sidecar of this file" "$work/forged.log" ||
	bad "forged: what debuginfod served for libz was not refused"
grep -q "$zid .*: converted" "$work/forged.log" || bad "forged: libz not converted here"
echo "workload debuginfod forged: refused $(dstat debuginfod_refused "$work/forged.stats")," \
	"libz converted here"

# 3. down: the server stopped; the next file is converted within the timeout.
kill "$(head -n 1 "$work/pids")"
sleep 1
lid=$(readelf -n "$wl/libc-heavy-lld" | awk '/Build ID:/ { print $3 }')
"$wl/libc-heavy-lld" 1 > /dev/null
wait_id "$lid" "$work/forged.log" || bad "down: libc-heavy-lld never dealt with"
grep -q "$lid .*: converted" "$work/forged.log" || bad "down: libc-heavy-lld not converted here"
# What asking cost: the daemon says how long it waited for the server.
waited=$(sed -n "s/.*$lid .*debuginfod: .*, after \([0-9.]*\) s$/\1/p" "$work/forged.log")
echo "workload debuginfod down: libc-heavy-lld converted here after ${waited:-?} s asking" \
	"(errors $(dstat debuginfod_errors "$work/forged.stats"))"
awk -v w="${waited:-99}" 'BEGIN { exit !(w <= 6) }' ||
	bad "down: ${waited:-no} s waited for the server, over the timeout (5 s) and 1 s"
stop
if [ $fail != 0 ]; then
	for f in served forged; do
		echo "--- $f daemon log"
		tail -n 30 "$work/$f.log"
	done
fi
exit $fail
