#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stock `perf record -g` of Debian's python3 importing numpy, a start-up
# that binds hundreds of symbols lazily, with sidecars for every object it
# maps and the vDSO: made by tools/sframe-gen without, then with, where
# x86_64 frames save rbx (SFRAME_F_SFU_SAVED_REGS).  Of the samples whose
# chain passes ld.so's lazy-binding trampoline (_dl_runtime_resolve_*,
# CFA = rbx + 32), how many are complete (reach the caller of main, or
# ld.so's _dl_start_user): with, at least 95 % must be; without, only
# those taken in the trampoline itself can be (its rbx is the sampled
# registers'), at least 50 points fewer.  The completeness of every sample
# is printed too.  x86_64 only; slow under emulation (about 30 minutes for
# 4 runs at -c 250000 on TCG, SFU_LAZY_RUNS runs at -c SFU_LAZY_PERIOD).
runs=${SFU_LAZY_RUNS:-3}
period=${SFU_LAZY_PERIOD:-1000000}
arch=$(uname -m)
if [ "$arch" != x86_64 ]; then
	echo "x86_64 only: it reads x86_64 ld.so's lazy-binding trampolines: skip"
	exit 77
fi
py=/usr/bin/python3
gen=$SFU_TOP/tools/sframe-gen
param=/sys/module/sframe_unwind/parameters/sidecar_dir
cd /tmp || exit 1
if ! $py -c 'import numpy' 2> /dev/null; then
	echo "no numpy for $py (python3-numpy): skip"
	exit 77
fi
. "$SFU_TOP/tests/e2e/perf-lib"
perf_unthrottle || exit 1
perf_callchain_set 1 Y || exit 1
fail=0

# Every file python3 maps once numpy is imported.
objs=$($py -c 'import numpy
for l in sorted({l.split()[-1] for l in open("/proc/self/maps")}):
    if l.startswith("/"):
        print(l)')

# measure NAME [SFRAME-GEN-ARGS...]: "LAZY LAZY_COMPLETE ALL ALL_COMPLETE"
measure() {
	name=$1
	shift
	sc=$(mktemp -d /tmp/sfu-sidecars.XXXXXX)
	chmod 755 "$sc"
	# shellcheck disable=SC2086
	"$gen" --install --cache "$sc" "$@" "$(readlink -f $py)" $objs > /dev/null 2>&1 ||
		echo "FAILED: sframe-gen $* over python3's objects" >&2
	"$gen" --install --cache "$sc" "$@" --vdso > /dev/null || echo "FAILED: vDSO sidecar" >&2
	echo "$sc" > $param
	: > "/tmp/lazy-$name.counts"
	rm -f "/tmp/lazy-$name.broken"
	i=0
	# One run at a time through awk: the scripts of deep Python stacks are
	# hundreds of MB, more than the guest's /tmp holds.
	while [ $i -lt "$runs" ]; do
		perf record -q -g -e cpu-clock:u -c "$period" -o /tmp/lazy.data -- $py -c 'import numpy' \
			> /tmp/lazy.out 2>&1 || { echo "perf record failed" >&2; cat /tmp/lazy.out >&2; }
		perf script -i /tmp/lazy.data --comm python3 -F ip,sym,symoff,dso 2> /dev/null |
			awk -v broken="/tmp/lazy-$name.broken" 'BEGIN { RS = ""; FS = "\n" }
			{
				lazy = ok = 0
				for (i = 1; i <= NF; i++) {
					split($i, f, " ")
					s = f[2]
					sub(/\+0x[0-9a-f]+$/, "", s)
					if (s ~ /^_dl_runtime_resolve/)
						lazy = 1
					if (s ~ /^(main|__libc_start_call_main|_dl_start_user)$/)
						ok = 1
				}
				n++
				c += ok
				nl += lazy
				cl += lazy && ok
				if (lazy && !ok && !shown++ && (getline x < broken) <= 0)
					print $0 > broken
			}
			END { printf "%d %d %d %d\n", nl, cl, n, c }' >> "/tmp/lazy-$name.counts"
		i=$((i + 1))
	done
	echo /var/lib/sframe-unwind > $param
	rm -rf "$sc" /tmp/lazy.data /tmp/lazy.out
	awk '{ for (i = 1; i <= 4; i++) t[i] += $i } END { print t[1] + 0, t[2] + 0, t[3] + 0, t[4] + 0 }' \
		"/tmp/lazy-$name.counts"
}

pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }'; }

# shellcheck disable=SC2046
set -- $(measure before --no-saved-regs)
b_lazy=${1:-0} b_lazy_ok=${2:-0} b_all=${3:-0} b_ok=${4:-0}
# shellcheck disable=SC2046
set -- $(measure after)
a_lazy=${1:-0} a_lazy_ok=${2:-0} a_all=${3:-0} a_ok=${4:-0}
echo "workload import-numpy without rbx saves: under _dl_runtime_resolve $b_lazy samples," \
	"complete $b_lazy_ok ($(pct "$b_lazy_ok" "$b_lazy") %); all $b_all, complete $b_ok" \
	"($(pct "$b_ok" "$b_all") %)"
echo "workload import-numpy with rbx saves: under _dl_runtime_resolve $a_lazy samples," \
	"complete $a_lazy_ok ($(pct "$a_lazy_ok" "$a_lazy") %); all $a_all, complete $a_ok" \
	"($(pct "$a_ok" "$a_all") %)"
if [ "$b_lazy" -eq 0 ] || [ "$a_lazy" -eq 0 ]; then
	echo "FAILED: no samples under _dl_runtime_resolve"
	fail=1
fi
awk -v a="$a_lazy_ok" -v b="$a_lazy" -v c="$b_lazy_ok" -v d="$b_lazy" \
	'BEGIN { exit !(b && d && 100 * c / d <= 100 * a / b - 50) }' || {
	echo "FAILED: without rbx saves $b_lazy_ok of $b_lazy chains through the trampoline" \
		"complete, not 50 points fewer than with them"
	fail=1
}
awk -v a="$a_lazy_ok" -v b="$a_lazy" 'BEGIN { exit !(b && a >= 0.95 * b) }' || {
	echo "FAILED: with rbx saves only $a_lazy_ok of $a_lazy chains through the trampoline" \
		"complete; the first broken one:"
	sed 's/^/    /' /tmp/lazy-after.broken
	fail=1
}
rm -f /tmp/lazy-before.counts /tmp/lazy-after.counts /tmp/lazy-before.broken \
	/tmp/lazy-after.broken
exit $fail
