#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's native perf callchains (tests/e2e/perf-workload-check, no
# perf tool) of static programs whose own code has .sframe (-Wa,--gsframe)
# and whose C library, Debian's static glibc, has only .eh_frame: the
# module takes the rows the program's own section lacks from its sidecar
# (its section is listed "+sidecar"), and the vDSO's, which the signal
# return goes through on arm64, from the vDSO's sidecar.  For each static
# workload of tests/e2e/workloads the share of all samples with a user
# frame whose callchain is complete (reaches main): first with sidecar_dir
# empty, then with the sidecars tests/e2e/prepare made on the host (the
# guest has no sframe-gen) copied to a root-owned directory; and with the
# kernel's own walk (perf_callchain off).  With sidecars every workload
# must reach 99 %, with the kernel's walk be at least 20 points below, and
# those whose time goes to libc also without sidecars, so that the test
# can fail; the programs' sections must be
# "+sidecar", and the vDSO registered if prepare could make its sidecar
# (it says why not otherwise: the arm64 vDSO of 6.1 carries no CFI).  A
# failure shows where the incomplete samples were and some of their
# chains.  arm64 only: the static workloads are built there.
if [ "$(uname -m)" != aarch64 ]; then
	echo "the static workloads are built for arm64 only"
	exit 77
fi
. ./unwind-lib
. ./perf-lib
secs=2
param=/sys/module/sframe_unwind/parameters/sidecar_dir
dbg=/sys/kernel/debug/sframe_unwind
raw=$e2e/perf-workload-check
progs="libc-heavy cxx-heavy signal-hot"
# The workloads whose time goes to libc; signal-hot's goes to its own
# handler and returns through the vDSO's trampoline.
libc_bound="libc-heavy cxx-heavy"
for f in "$raw" "$e2e/sidecars" $(for p in $progs; do echo "$e2e/workloads/$p"; done); do
	[ -e "$f" ] || { echo "FAILED: no $f: run tests/e2e/prepare --arch arm64 on the host"; exit 1; }
done
perf_unthrottle || exit 1
# What prepare made for the vDSO: its path, or "none: why".
vdso_from=$(cat "$e2e/sidecars.vdso" 2> /dev/null || echo "none: not staged")
has_vdso=1
wait_for='\[vdso\]'
case $vdso_from in none*) has_vdso=0; wait_for='+sidecar$' ;; esac

sc=$(mktemp -d /tmp/sfu-sidecars.XXXXXX) || exit 1
finish() {
	echo /var/lib/sframe-unwind > $param
	rm -rf "$sc"
	exit $fail
}
cp -R "$e2e/sidecars/." "$sc/" && chown -R 0:0 "$sc" && chmod -R u=rwX,go=rX "$sc" || {
	echo "FAILED: copying the sidecars to $sc"
	fail=1
	finish
}
if [ -z "$(find "$sc" -name '*.sframe' | head -n 1)" ]; then
	echo "FAILED: no sidecars in $e2e/sidecars"
	fail=1
	finish
fi

# counter NAME: one of the module's stats
counter() {
	awk -v n="$1" '$1 == n { print $2; found = 1 } END { if (!found) print 0 }' $dbg/stats
}

# measure NAME: "SAMPLES COMPLETE PERCENT" of one run into $res; the
# checker's breakdown by innermost symbol in /tmp/NAME.err
measure() {
	if ! "$raw" -d 3 "$e2e/workloads/$1" $secs > "/tmp/$1.out" 2> "/tmp/$1.err"; then
		echo "FAILED: $raw $e2e/workloads/$1 $secs"
		sed 's/^/    /' "/tmp/$1.err"
		fail=1
	fi
	res=$(awk '{ printf "%d %d %.1f", $1, $2, $1 ? 100 * $2 / $1 : 0 }
		END { if (!NR) printf "0 0 0.0" }' "/tmp/$1.out")
	if [ "${res%% *}" -lt 100 ]; then
		echo "FAILED: $1: only ${res%% *} samples"
		fail=1
	fi
}

# The kernel's own walk (frame pointers, which the programs omit).
perf_callchain_set 0 N || { fail=1; finish; }
for p in $progs; do
	measure $p
	eval "stock_$(echo $p | tr - _)=\"$res\""
done
perf_callchain_set 1 Y || { fail=1; finish; }

echo "" > $param
for p in $progs; do
	measure $p
	eval "before_$(echo $p | tr - _)=\"$res\""
done

echo "$sc" > $param
extra0=$(counter sidecar_extra)
vdso0=$(counter sidecar_vdso)
for p in $progs; do
	v=$(echo $p | tr - _)
	eval "before=\$before_$v stock=\$stock_$v"
	measure $p
	after=$res
	b=${before##* }
	a=${after##* }
	f=${stock##* }
	echo "workload $p stock walk: ${stock% *} samples/complete $f %; without sidecars: ${before% *} $b %; with: ${after% *} $a %"
	if ! awk -v a="$a" 'BEGIN { exit !(a >= 99) }'; then
		echo "FAILED: $p with sidecars $a % < 99 %"
		sed 's/^/    /' "/tmp/$p.err"
		fail=1
	fi
	awk -v a="$a" -v b="$f" 'BEGIN { exit !(b <= a - 20) }' ||
		{ echo "FAILED: $p with the stock walk $f %, not 20 points below $a %"; fail=1; }
	# Where the time goes to libc, its sidecar is what completes the chains.
	case " $libc_bound " in *" $p "*)
		awk -v a="$a" -v b="$b" 'BEGIN { exit !(b <= a - 20) }' ||
			{ echo "FAILED: $p without sidecars $b %, not 20 points below $a %"; fail=1; }
	esac
done
extra=$(($(counter sidecar_extra) - extra0))
vdso=$(($(counter sidecar_vdso) - vdso0))
echo "sidecar_extra +$extra, sidecar_vdso +$vdso; the vDSO's sidecar: $vdso_from"
n=$(echo $progs | wc -w)
[ "$extra" -ge "$n" ] || { echo "FAILED: sidecar_extra +$extra for $n programs"; fail=1; }
if [ "$has_vdso" = 1 ] && [ "$vdso" -lt "$n" ]; then
	echo "FAILED: sidecar_vdso +$vdso for $n programs"
	fail=1
fi

# While one runs: its own section with the sidecar's rows, and the vDSO's.
# It runs until the sections are seen or 60 s are over.
"$e2e/workloads/libc-heavy" 60 > /dev/null &
pid=$!
mm=$(perf_wait_sections $pid "$wait_for" 600)
kill $pid 2> /dev/null
wait $pid
echo "$mm" | sed 's/^/    /'
echo "$mm" | grep -Eq ' libc-heavy (kernel|user)\+sidecar$' ||
	{ echo "FAILED: libc-heavy's section is not listed +sidecar"; fail=1; }
if [ "$has_vdso" = 1 ] && ! echo "$mm" | grep -q ' \[vdso\] sidecar$'; then
	echo "FAILED: no [vdso] section"
	fail=1
fi
grep -E "^sidecar_" $dbg/stats | sed 's/^/    /'
finish
