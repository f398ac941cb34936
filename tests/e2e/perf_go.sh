#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stock `perf record -g` on Debian's Go programs, stripped as shipped:
# fzf --filter over 200,000 paths (its matching runs in goroutines on
# every CPU).  Its sidecar comes only from the sidecar daemon
# (tools/sframe-unwindd, on an empty directory), which makes it from the
# program's .gopclntab (sframe-gen: Go's own table of SP deltas).
# Measured three ways over ALL samples with a user frame: perf's own
# frame-pointer walk (the module's perf_callchain off), the module's
# callchains before the daemon ran (no sidecar: Go keeps frame
# pointers, and the fallback must take them), and with the daemon's
# sidecar.  A chain is complete when it reaches the outermost frame of a
# goroutine (runtime.goexit), of a system stack (runtime.mstart,
# runtime.rt0_go) or of a signal handler (runtime.sigtramp), named from
# the .gopclntab (tests/e2e/perf-complete --go; perf cannot name a
# stripped Go program's functions).  With the sidecar: at least 99 %,
# and never below perf's own walk (0.5 points of sampling noise
# allowed).  x86_64 only: the guest runs the host's fzf and sframe-gen.
secs_lines=200000
period=4000000
if [ "$(uname -m)" != x86_64 ]; then
	echo "x86_64 only: the guest runs the host's fzf and sframe-unwindd: skip"
	exit 77
fi
fzf=$(command -v fzf || true)
if [ -z "$fzf" ]; then
	echo "FAILED: no fzf (scripts/install-deps installs it)"
	exit 1
fi
fzf=$(readlink -f "$fzf")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/perf-lib"
daemon=$SFU_TOP/tools/sframe-unwindd
param=/sys/module/sframe_unwind/parameters/sidecar_dir
fail=0
bad() { echo "FAILED: $*"; fail=1; }
perf_unthrottle || exit 1
work=$(mktemp -d /tmp/sfu-go.XXXXXX)
chmod 755 "$work"
sc=$work/sidecars
mkdir -m 755 "$sc"
pid=
cleanup() {
	if [ -n "$pid" ]; then
		kill -TERM "$pid"
		wait "$pid"
	fi
	echo /var/lib/sframe-unwind > $param
	perf_callchain_set 1 Y > /dev/null
	rm -rf "$work"
}
trap cleanup EXIT
cd /tmp || exit 1
awk -v n=$secs_lines 'BEGIN { for (i = 0; i < n; i++)
	printf "/usr/lib/pkg%d/src/module%d/internal/file_%d_%x.go\n", i % 97, i % 1013, i, i * 2654435761 }' \
	> "$work/paths"
echo "fzf is $fzf ($("$fzf" --version 2>&1 | head -n 1)); $("$SFU_TOP/tools/sframe-gen" --stats "$fzf" | grep pclntab)"

# measure NAME: "SAMPLES COMPLETE PERCENT" of one perf record run
measure() {
	perf record -q -g -e cpu-clock:u -c $period -o "/tmp/go-$1.data" -- \
		"$fzf" --filter "pkgmodinfile" < "$work/paths" > /dev/null 2> "/tmp/go-$1.out" ||
		{ echo "perf record ($1) failed" >&2; cat "/tmp/go-$1.out" >&2; }
	# shellcheck disable=SC2046
	set -- $("$here/perf-complete" --go "$fzf" --example broken "/tmp/go-$1.broken" \
		"/tmp/go-$1.data" 2> "/tmp/go-$1.objects")
	awk -v s="${1:-0}" -v c="${2:-0}" 'BEGIN { printf "%d %d %.1f", s, c, s ? 100 * c / s : 0 }'
}

echo "$sc" > $param
perf_callchain_set 0 N || exit 1
perf=$(measure perf)
perf_callchain_set 1 Y || exit 1
nosc=$(measure nosidecar)

"$daemon" --dir "$sc" --stats "$work/daemon.stats" 2> "$work/daemon.log" &
pid=$!
# Attached once it has rescanned; then it converts fzf when it is mapped.
i=0
until grep -q "^rescans [1-9]" "$work/daemon.stats" 2> /dev/null; do
	i=$((i + 1))
	if [ $i -gt 300 ] || ! kill -0 "$pid" 2> /dev/null; then
		bad "the daemon did not start"
		cat "$work/daemon.log"
		exit 1
	fi
	sleep 0.1
done
bid=$(readelf -n "$fzf" | awk '/Build ID/ { print $3 }')
"$fzf" --filter x < /dev/null > /dev/null 2>&1
i=0
until [ -f "$sc/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).sframe" ]; do
	i=$((i + 1))
	if [ $i -gt 600 ]; then
		bad "the daemon made no sidecar for $fzf in 60 s"
		cat "$work/daemon.log"
		exit 1
	fi
	sleep 0.1
done
sleep 1
with=$(measure sidecar)

for r in "perf's own walk:perf:$perf" "module, no sidecar:nosidecar:$nosc" \
	 "module, daemon's sidecar:sidecar:$with"; do
	label=${r%%:*}
	rest=${r#*:}
	set -- ${rest#*:}
	echo "workload fzf $label: $1 samples, $2 complete ($3 %)"
	sed 's/^/    /' "/tmp/go-${rest%%:*}.objects"
done
set -- $perf
pp=$3
set -- $nosc
np=$3
set -- $with
[ "$1" -ge 100 ] || bad "only $1 samples with the sidecar"
awk -v m="$3" -v p="$pp" 'BEGIN { exit !(m >= 99 && m >= p - 0.5) }' || {
	bad "with the daemon's sidecar $3 % complete: want >= 99 % and >= perf's own walk ($pp %); the chain most broken samples have:"
	sed 's/^/    /' /tmp/go-sidecar.broken
}
awk -v m="$np" -v p="$pp" 'BEGIN { exit !(m >= p - 0.5) }' || {
	bad "without a sidecar $np % complete, below perf's own walk ($pp %); the chain most broken samples have:"
	sed 's/^/    /' /tmp/go-nosidecar.broken
}
grep -E "^(converted|refused|failed)" "$work/daemon.stats" | sed 's/^/    daemon: /'
exit $fail
