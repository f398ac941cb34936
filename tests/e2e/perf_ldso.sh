#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stock `perf record -g` of many short runs of a dynamically linked
# program (tests/e2e/workloads/vdso-loop), with sidecars for it, its
# libraries, the dynamic loader and the vDSO: the samples whose innermost
# frame is in ld.so, split by what ld.so was doing.
#
#   startup  a chain through dl_main or _dl_start (relocation, symbol
#            lookup before main): complete when it reaches _dl_start_user
#   lazy     a chain through _dl_runtime_resolve_* (lazy binding of a PLT
#            call): its CFA is rbx + 32 after an `and $-64, %rsp`, which
#            the walk computes where the rows of the frames above say where
#            they saved rbx (sframe-gen's SFRAME_F_SFU_SAVED_REGS); counted,
#            not checked (tests/e2e/perf_lazy_binding.sh checks them)
#   other    the rest (complete when they reach main)
#
# Every startup chain must be complete.  x86_64 only.
runs=${SFU_LDSO_RUNS:-15}
arch=$(uname -m)
if [ "$arch" != x86_64 ]; then
	echo "x86_64 only: it reads x86_64 ld.so's lazy-binding trampolines: skip"
	exit 77
fi
prog=$SFU_TOP/build/e2e/$arch/workloads/vdso-loop
gen=$SFU_TOP/tools/sframe-gen
param=/sys/module/sframe_unwind/parameters/sidecar_dir
sc=$(mktemp -d /tmp/sfu-sidecars.XXXXXX)
chmod 755 "$sc"
cd /tmp || exit 1
. "$SFU_TOP/tests/e2e/perf-lib"
perf_unthrottle || exit 1
perf_callchain_set 1 Y || exit 1
fail=0

libs=$(ldd "$prog" | awk '/=>/ { print $3 } /ld-linux/ { print $1 }' | sort -u)
# shellcheck disable=SC2086
"$gen" --install --cache "$sc" "$prog" $libs > /dev/null || fail=1
"$gen" --install --cache "$sc" --vdso > /dev/null || fail=1
echo "$sc" > $param

i=0
: > /tmp/ldso.script
while [ $i -lt "$runs" ]; do
	perf record -q -g -e cpu-clock:u -c 500000 -o /tmp/ldso.data -- "$prog" 0.05 \
		> /tmp/ldso.out 2>&1 || { echo "perf record failed" >&2; cat /tmp/ldso.out >&2; fail=1; }
	perf script -i /tmp/ldso.data --comm vdso-loop -F ip,sym,symoff,dso \
		>> /tmp/ldso.script 2> /dev/null
	echo >> /tmp/ldso.script
	i=$((i + 1))
done

# "STARTUP STARTUP_COMPLETE LAZY LAZY_COMPLETE OTHER OTHER_COMPLETE"; the
# first broken startup chain on stderr
# shellcheck disable=SC2046
set -- $(awk 'BEGIN { RS = ""; FS = "\n" }
	{
		if ($1 !~ /ld-linux/)
			next
		cls = "other"
		ok = 0
		for (i = 1; i <= NF; i++) {
			split($i, f, " ")
			s = f[2]
			sub(/\+0x[0-9a-f]+$/, "", s)
			if (s ~ /^_dl_runtime_resolve/)
				cls = "lazy"
			else if (cls == "other" && (s == "dl_main" || s == "_dl_start"))
				cls = "startup"
			if (s ~ /^(main|_dl_start_user|__libc_start_call_main)$/)
				ok = 1
		}
		n[cls]++
		c[cls] += ok
		if (cls == "startup" && !ok && !shown++)
			print "broken startup chain:\n" $0 > "/dev/stderr"
	}
	END { printf "%d %d %d %d %d %d\n", n["startup"], c["startup"], n["lazy"], c["lazy"],
		n["other"], c["other"] }' /tmp/ldso.script)
echo "workload ld.so samples in $runs runs: startup $1 (complete $2), lazy binding $3 (complete $4)," \
	"other $5 (complete $6)"
[ "${1:-0}" -gt 0 ] || { echo "FAILED: no startup samples in ld.so"; fail=1; }
[ "${1:-0}" = "${2:-1}" ] || { echo "FAILED: $(($1 - $2)) of $1 startup chains incomplete"; fail=1; }
grep -E "^stop_" /sys/kernel/debug/sframe_unwind/unwind_stats | sed 's/^/    /'
echo /var/lib/sframe-unwind > $param
rm -rf "$sc" /tmp/ldso.data /tmp/ldso.out /tmp/ldso.script
exit $fail
