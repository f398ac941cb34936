#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A rescan never waits on a file or an address space a user controls.  A
# FUSE file system (tests/e2e/progs/fuse-stall.c, a raw /dev/fuse server)
# holds one file whose reads it takes and never answers.  Two processes
# map it executable, and the registry's scan of that mapping, in each
# process's own context, waits there for good (uninterruptibly: the
# server took the request).  The second also pins its mmap_lock behind
# the file: a thread of it faults the page in through /proc/self/mem,
# holding the lock, and another waits to take it for writing.  Then, from
# other processes, a write of sidecar_dir and the sidecar daemon's
# SFU_IOC_SIDECAR_RESCAN must each return within 60 s (a scan of every
# process takes 10 to 20 s under TCG; one stuck never returns), and a program
# started before, without .sframe, must get the sidecar written meanwhile
# for it (its sections list it) within 60 s of the write: a scan of
# another process reads none of its FUSE files (scan_skipped_fuse) and
# takes no mmap_lock it cannot have at once (scan_skipped_busy), and each
# of those goes up at each rescan.  The pinning process, busy, is asked to
# scan itself before it returns to user space (scan_self_queued goes up at
# the write), once until it has (at the daemon's rescan it is skipped
# again but not asked again: scan_self_queued goes up less than
# scan_skipped_busy, which counts it).  Before that, the write waited on the
# FUSE file, or on the pinned lock, in uninterruptible sleep until the
# connection was aborted.  At the end the connection is aborted
# (/sys/fs/fuse/connections/N/abort), which ends every read, and every
# process is killed, so that the module unloads.  x86_64 only, as
# registry_sidecar.sh (the dynamic chain-O2 fixture and its sidecar); run
# on Debian's kernel (e2e-debian), whose fuse module it loads.
. ./unwind-lib

if [ "$arch" != x86_64 ]; then
	echo "x86_64 only: the dynamic chain-O2 fixture and its sidecar: skip"
	exit 77
fi
# Debian's kernels have FUSE as a module, in their package's tree (where
# the guest sees it); the test kernels have no FUSE.
[ -c /dev/fuse ] || [ -z "${SFU_STOCK_MODULES:-}" ] ||
	modprobe -d "$SFU_STOCK_MODULES" fuse 2> /dev/null
if [ ! -c /dev/fuse ]; then
	echo "no /dev/fuse (CONFIG_FUSE_FS): skip"
	exit 77
fi
fs=$e2e/fuse-stall
param=/sys/module/sframe_unwind/parameters/sidecar_dir
dbg=/sys/kernel/debug/sframe_unwind
ctl=/sys/fs/fuse/connections
stat() { awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' $dbg/stats; }
bad() { echo "FAILED: $*"; fail=1; }
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# listed PID REGEX: a section line of PID in the sections file matches REGEX
listed() {
	re=$2 awk -v p="$1" '$1 == "mm" { on = $2 == p } on && $0 ~ ENVIRON["re"] { f = 1 }
		END { exit !f }' $dbg/sections
}
# until_ok SECONDS CMD...: CMD succeeds within SECONDS polls of 0.1 s each
# (longer under TCG, where each poll itself takes time)
until_ok() {
	n=$(($1 * 10))
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.1
	done
}
# task PID: its state and where it sleeps
task() {
	echo "state $(awk '{ print $3 }' "/proc/$1/stat" 2> /dev/null)" \
		"in $(cat "/proc/$1/wchan" 2> /dev/null)"
}

prog=$(fixture v3 chain-O2.nosframe) || exit 1
orig=$(fixture v3 chain-O2) || exit 1
work=$(mktemp -d /tmp/rescan-stuck.XXXXXX)
chmod 755 "$work"
sc=$work/sidecars
mnt=$work/mnt
mkdir -m 755 "$sc"
mkdir "$mnt"
spin= server= mapper= pinner= conn= ctl_mounted=
server2= mapper2= conn2= unwindd= genuine=

cleanup() {
	# Every read the server took ends (ECONNABORTED): the stuck scans finish.
	[ -z "$conn" ] || echo 1 > "$ctl/$conn/abort"
	[ -z "$conn2" ] || echo 1 > "$ctl/$conn2/abort"
	for p in $mapper $pinner $server $spin $unwindd $mapper2 $server2 $genuine; do
		kill -KILL "$p" 2> /dev/null
		wait "$p" 2> /dev/null
	done
	umount "$mnt" 2> /dev/null || umount -l "$mnt"
	[ -z "$server2" ] || umount "$work/mnt2" 2> /dev/null || umount -l "$work/mnt2"
	[ -z "$ctl_mounted" ] || umount "$ctl"
	echo /var/lib/sframe-unwind > $param
	rm -rf "$work"
}
trap cleanup EXIT

echo "$sc" > $param
"$prog" 0 > /dev/null &
spin=$!

"$fs" serve "$mnt" > "$work/serve.out" 2>&1 &
server=$!
until_ok 20 grep -q '^mounted' "$work/serve.out" ||
	{ bad "the FUSE server did not mount: $(cat "$work/serve.out")"; exit 1; }
if ! mountpoint -q $ctl; then
	mount -t fusectl fusectl $ctl || { bad "cannot mount fusectl"; exit 1; }
	ctl_mounted=1
fi
dev=$(mountpoint -d "$mnt")
conn=$(( (${dev%%:*} << 20) | ${dev##*:} ))
[ -e "$ctl/$conn/abort" ] || { bad "no $ctl/$conn/abort"; conn=; exit 1; }

# The mapping's own scan, in the mapping process, takes the file's first
# read and waits for its answer: mmap() never returns to user space.
"$fs" map "$mnt/lib.so" > "$work/map.out" 2>&1 &
mapper=$!
until_ok 20 grep -q "^read $mapper\$" "$work/serve.out" ||
	bad "the mapping process's scan did not read the FUSE file"
! grep -q mapped "$work/map.out" || bad "mmap() of the FUSE file returned: nothing waits on it"
echo "workload stuck: the mapping process $(task $mapper)"
"$fs" pin "$mnt/lib.so" > "$work/pin.out" 2>&1 &
pinner=$!
until_ok 30 grep -q '^pinned' "$work/pin.out" || bad "the pinning process did not pin: $(cat "$work/pin.out")"
for t in /proc/$pinner/task/*; do
	echo "workload pinned: thread ${t##*/} $(task $pinner/task/${t##*/})"
done

# A sidecar for the running program, then a rescan from elsewhere.
python3 "$SFU_TOP/tests/e2e/make-sidecar" --for "$prog" "$orig" "$sc" > /dev/null || exit 1
listed $spin ' chain-O2\.nosframe sidecar$' && bad "the program has its sidecar before the rescan"
f0=$(stat scan_skipped_fuse)
b0=$(stat scan_skipped_busy)
q0=$(stat scan_self_queued)
t0=$(ms)
(w0=$(ms) && echo "$sc" > $param && echo $(($(ms) - w0)) > "$work/write.ms") &
writer=$!
if until_ok 60 test -s "$work/write.ms"; then
	echo "workload rescan: a write of sidecar_dir returned in $(cat "$work/write.ms") ms," \
		"scan_skipped_fuse +$(($(stat scan_skipped_fuse) - f0))," \
		"scan_skipped_busy +$(($(stat scan_skipped_busy) - b0))," \
		"scan_self_queued +$(($(stat scan_self_queued) - q0))"
	wait $writer
else
	bad "a write of sidecar_dir did not return in 60 s: the writer is $(task $writer)"
	kill -KILL $writer
	sleep 1
	echo "killed, the writer is $(task $writer)"
	echo 1 > "$ctl/$conn/abort"
	wait $writer
	echo "the write returned once the FUSE connection was aborted"
	exit 1
fi
if until_ok 60 listed $spin ' chain-O2\.nosframe sidecar$'; then
	echo "workload rescan: the running program got its sidecar in $(($(ms) - t0)) ms"
else
	bad "the running program did not get its sidecar within 60 s of the rescan"
fi
run chain --at body "$prog"

[ "$(stat scan_skipped_fuse)" -gt "$f0" ] || bad "scan_skipped_fuse did not go up at the write"
[ "$(stat scan_skipped_busy)" -gt "$b0" ] || bad "scan_skipped_busy did not go up at the write"
[ "$(stat scan_self_queued)" -gt "$q0" ] || bad "scan_self_queued did not go up at the write"

# The daemon's rescan: it returns too, and leaves the same again.
f0=$(stat scan_skipped_fuse)
b0=$(stat scan_skipped_busy)
q0=$(stat scan_self_queued)
python3 - > "$work/ioctl.out" 2>&1 << 'PY' &
import fcntl, os, time
fd = os.open('/dev/sframe_unwind', os.O_RDWR)
fcntl.ioctl(fd, 0xb505, 0)     # SFU_IOC_SIDECAR_ATTACH
t = time.monotonic()
fcntl.ioctl(fd, 0xb507)        # SFU_IOC_SIDECAR_RESCAN
print('rescanned %d' % ((time.monotonic() - t) * 1000), flush=True)
PY
daemon=$!
# python3 itself takes seconds to start under TCG: the ioctl is timed inside.
if until_ok 120 grep -q '^rescanned' "$work/ioctl.out"; then
	ioctl_ms=$(awk '$1 == "rescanned" { print $2 }' "$work/ioctl.out")
	echo "workload rescan: SFU_IOC_SIDECAR_RESCAN returned in $ioctl_ms ms"
	[ "$ioctl_ms" -lt 60000 ] || bad "SFU_IOC_SIDECAR_RESCAN took $ioctl_ms ms"
	wait $daemon || bad "the daemon's rescan failed: $(cat "$work/ioctl.out")"
else
	bad "SFU_IOC_SIDECAR_RESCAN did not return: $(task $daemon); $(cat "$work/ioctl.out")"
	echo 1 > "$ctl/$conn/abort"
	wait $daemon
	exit 1
fi
[ "$(stat scan_skipped_fuse)" -gt "$f0" ] || bad "scan_skipped_fuse did not go up at the rescan"
[ "$(stat scan_skipped_busy)" -gt "$b0" ] || bad "scan_skipped_busy did not go up at the rescan"
# The pinning process is skipped again, and not asked again.
busy=$(($(stat scan_skipped_busy) - b0)) self=$(($(stat scan_self_queued) - q0))
echo "workload rescan: at the daemon's rescan scan_skipped_busy +$busy, scan_self_queued +$self"
[ "$self" -lt "$busy" ] || bad "the pinning process was asked again to scan itself ($self of $busy)"
grep -q "^read $mapper\$" "$work/serve.out" && [ -d "/proc/$mapper" ] ||
	bad "the mapping process is no longer waiting on the FUSE file"

# Aborted, the connection ends the stuck read; the process gets back to
# user space with its scans done.
echo 1 > "$ctl/$conn/abort"
until_ok 20 grep -q mapped "$work/map.out" ||
	bad "the mapping process did not return from mmap() once the connection was aborted: $(task $mapper)"

# The daemon is never handed a file on FUSE.
conn_of() { dev=$(mountpoint -d "$1") && echo $(( (${dev%%:*} << 20) | ${dev##*:} )); }
sc2=$work/sidecars2
mkdir -m 755 "$sc2" "$work/mnt2"
echo "$sc2" > $param
"$fs" serve "$work/mnt2" "$prog" > "$work/serve2.out" 2>&1 &
server2=$!
until_ok 20 grep -q '^mounted' "$work/serve2.out" ||
	{ bad "the second FUSE server did not mount: $(cat "$work/serve2.out")"; exit 1; }
conn2=$(conn_of "$work/mnt2")
kill -KILL $spin
wait $spin 2> /dev/null
spin=
# Files above 1 MiB refused at once: what the guest runs is converted fast.
"$SFU_TOP/tools/sframe-unwindd" --dir "$sc2" --no-debuginfod --max-size 1M \
	--stats "$work/d.stats" 2> "$work/d.log" &
unwindd=$!
until_ok 30 grep -q "^rescans [1-9]" "$work/d.stats" ||
	{ bad "the daemon did not start: $(cat "$work/d.log")"; exit 1; }
r0=$(stat sidecar_req_refused_fuse)
"$fs" map "$work/mnt2/lib.so" > "$work/map2.out" 2>&1 &
mapper2=$!
until_ok 30 grep -q mapped "$work/map2.out" ||
	bad "the mapping of the answered FUSE file did not return: $(task $mapper2)"
# The same program under a build-id of its own: no sidecar of it yet.
"$e2e/sidecar-flood" copy "$prog" "$work/genuine" 0x5e2e && chmod 755 "$work/genuine" ||
	{ bad "cannot copy the program"; exit 1; }
"$work/genuine" 0 > /dev/null &
genuine=$!
if until_ok 180 grep -q " genuine (uid 0): converted" "$work/d.log"; then
	echo "workload daemon: the genuine file converted; FUSE files refused by the module" \
		"$(($(stat sidecar_req_refused_fuse) - r0)), reads the daemon was kept" \
		"waiting on $(grep -c "^read $unwindd\$" "$work/serve2.out")"
else
	bad "the genuine file was not converted within 180 s: the daemon is $(task $unwindd);" \
		"reads of the FUSE file it was kept waiting on: $(grep -c "^read $unwindd\$" "$work/serve2.out")"
	cat "$work/d.log"
fi
[ "$(stat sidecar_req_refused_fuse)" -gt "$r0" ] ||
	bad "sidecar_req_refused_fuse did not go up for the mapped FUSE file"
exit $fail
