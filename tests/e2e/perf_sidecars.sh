#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stock `perf record -g` on whole programs whose time goes to code that
# ships without .sframe (tests/e2e/workloads: libc, libstdc++, the vDSO, a
# signal handler, an lld-linked program, a static program whose own
# .sframe covers only its own code; and Debian's own python3), first
# without sidecars, then with sidecars that tools/sframe-gen makes from
# their .eh_frame into a temporary directory: the share of all samples
# with a user frame whose callchain is complete (tests/e2e/perf-complete).
# With sidecars (the vDSO's included) every workload must reach 99 %;
# without them each must be at least 20 points below, so that the test
# can fail, but signal-hot, whose time goes to its own code: it must be
# that far above the kernel's own walk.  x86_64 only.
#
# Every sample counts, those of each program's first instants too: a
# sample taken while ld.so binds a symbol lazily is under
# _dl_runtime_resolve_*, whose CFA is on rbx, which the walk recovers from
# where the frames above it saved rbx (sframe-gen's x86_64 sidecars say
# where, Documentation/sframe-gen.rst).
secs=2
arch=$(uname -m)
if [ "$arch" != x86_64 ]; then
	echo "x86_64 only: it runs sframe-gen in the guest (arm64: perf_static_sidecars.sh): skip"
	exit 77
fi
dir=$SFU_TOP/build/e2e/$arch/workloads
gen=$SFU_TOP/tools/sframe-gen
param=/sys/module/sframe_unwind/parameters/sidecar_dir
sc=$(mktemp -d /tmp/sfu-sidecars.XXXXXX)
chmod 755 "$sc"
cd /tmp || exit 1
. "$SFU_TOP/tests/e2e/perf-lib"
perf_unthrottle || exit 1
fail=0

progs="libc-heavy cxx-heavy vdso-loop signal-hot libc-heavy-lld libc-heavy-static python3"
path() { [ "$1" = python3 ] && echo /usr/bin/python3 || echo "$dir/$1"; }
args() { [ "$1" = python3 ] && echo "$SFU_TOP/tests/e2e/workloads/cpu-bound.py $secs" || echo $secs; }
# User-mode samples, but for vdso-loop: where the kernel's clocksource has
# no vDSO mode (hpet, acpi_pm: Debian's kernel under TCG), clock_gettime()
# is a system call from the vDSO and its time goes to the kernel, whose
# samples' user callchains start at that system call, in the vDSO.
event() { [ "$1" = vdso-loop ] && echo cpu-clock || echo cpu-clock:u; }

# percent NAME: the share of complete callchains of one perf record run
percent() {
	bin=$(path "$1")
	# shellcheck disable=SC2046
	perf record -q -g -e "$(event "$1")" -c 500000 -o "/tmp/$1.data" -- "$bin" $(args "$1") \
		> "/tmp/$1.out" 2>&1 || { echo "perf record of $1 failed" >&2; cat "/tmp/$1.out" >&2; }
	perf_complete_share "/tmp/$1.data" "$(printf %.15s "$1")"
}

# signal-hot's time goes to its own handler, and the unwinder knows
# glibc's signal trampoline by its code: sidecars add little there, so its
# baseline is the kernel's own walk (frame pointers, which it omits).
own_bound="signal-hot"
perf_callchain_set 0 N || exit 1
for p in $own_bound; do
	eval "stock_$(echo $p | tr - _)=\"$(percent $p)\""
done
perf_callchain_set 1 Y || exit 1

echo "" > $param
for p in $progs; do
	eval "before_$(echo $p | tr - _)=\"$(percent $p)\""
done

# shellcheck disable=SC2046
perf_sidecars_of "$sc" $(for p in $progs; do readlink -f "$(path $p)"; done) || fail=1
"$gen" --install --cache "$sc" --vdso || fail=1
echo "$sc" > $param

for p in $progs; do
	v=$(echo $p | tr - _)
	eval "before=\$before_$v"
	after=$(percent $p)
	b=${before##* }
	a=${after##* }
	echo "workload $p without sidecars: ${before% *} samples/complete $b %; with: ${after% *} $a %"
	awk -v a="$a" 'BEGIN { exit !(a >= 99) }' || {
		echo "FAILED: $p with sidecars $a % < 99 %; the innermost frames' objects, and the broken chain most samples have:"
		sed 's/^/    /' "/tmp/$p.data.objects" "/tmp/$p.data.broken"
		fail=1
	}
	case " $own_bound " in
	*" $p "*)
		eval "stock=\$stock_$v"
		f=${stock##* }
		echo "workload $p with the kernel's own walk: ${stock% *} samples/complete $f %"
		awk -v a="$a" -v b="$f" 'BEGIN { exit !(b <= a - 20) }' ||
			{ echo "FAILED: $p with the kernel's walk $f %, not 20 points below $a %"; fail=1; }
		;;
	*)
		awk -v a="$a" -v b="$b" 'BEGIN { exit !(b <= a - 20) }' ||
			{ echo "FAILED: $p without sidecars $b %, not 20 points below $a %"; fail=1; }
		;;
	esac
done
grep -E "^sidecar_(used|refused)" /sys/kernel/debug/sframe_unwind/stats | sed 's/^/    /'
echo /var/lib/sframe-unwind > $param
rm -rf "$sc"
exit $fail
