#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The module's unwind against libgcc's, at signals, in real programs:
# libsfu-diff.so (tests/e2e/sfu-diff.c), preloaded, takes glibc's
# backtrace() and SFU_IOC_UNWIND_SELF at each SIGPROF and compares them
# frame by frame from the interrupted PC.  Programs: GCC's cc1plus (g++ -c
# of a C++ file), sqlite3, perl, python3, a threaded program
# (workloads/threads-heavy) and two built with frame pointers
# (workloads/libc-heavy-fp, cxx-heavy-fp), first without sidecars
# (cc1plus, perl, the -fp programs and the libraries have no .sframe: the
# frame-pointer fallback walks code built with and without frame
# pointers), then with the sidecars tools/sframe-gen makes
# of every program, its libraries and the vDSO.  Every run must take at
# least 100 samples, and none may be contradicted (a frame both walks have
# that differs: the module invented a caller); with sidecars at least 99 %
# must be identical all the way.  Prints a line per program and run:
# samples, identical, module shorter, module longer, contradicted, not
# aligned on the PC, and the stop reasons of the shorter samples ("workload"
# lines, which scripts/guest/e2e-run shows below a pass).
#
# Beside them, perf's own frame-pointer walk of the same instant
# (sfu-diff.c), judged against libgcc on the frames a complete chain has:
# how often it is complete and right, how often it skips a frame, and how
# often it was right where the module's walk was not.  The module's
# complete and right chains must be at least as many as perf's; the
# samples where perf's walk was right and the module's was not are
# printed (none in any workload, since main()'s record into
# __libc_start_call_main() is kept: sfu_fp_record_live(); one sample of
# each -fp program before).  (The -fp
# programs' "complete" chains of perf record -g, perf_fp_programs.sh, are
# mostly perf's walk skipping the frame of a libc function it cannot see:
# here libgcc tells them apart.)  x86_64 only (the arm64 guest has no
# dynamic programs).
arch=$(uname -m)
if [ "$arch" != x86_64 ]; then
	echo "x86_64 only: it preloads a library into the host's programs: skip"
	exit 77
fi
e2e=$SFU_TOP/build/e2e/$arch
lib=$e2e/libsfu-diff.so
wl=$e2e/workloads
gen=$SFU_TOP/tools/sframe-gen
param=/sys/module/sframe_unwind/parameters
out=/tmp/sfu-diff.out
log=/tmp/sfu-diff.log
min_samples=100
fail=0
for f in "$lib" "$wl/threads-heavy" "$wl/libc-heavy-fp" "$wl/cxx-heavy-fp" "$gen"; do
	[ -x "$f" ] || { echo "no $f: run tests/e2e/prepare on the host first"; exit 1; }
done
cc1plus=$(g++ -print-prog-name=cc1plus)
progs="cc1plus sqlite3 perl python3 threads-heavy libc-heavy-fp cxx-heavy-fp"
sc=$(mktemp -d /tmp/sfu-diff-sidecars.XXXXXX)
chmod 755 "$sc"
cd /tmp || exit 1
depth=$(cat $param/max_depth)
echo 512 > $param/max_depth
# Contradicted samples in full: both chains and the stack's words.
export SFU_DIFF_US=3000 SFU_DIFF_MAX=1000 SFU_DIFF_VERBOSE=1

# workload NAME: run it with the library preloaded
workload() {
	case $1 in
	cc1plus)
		# The driver and the assembler load the library too, and do nothing.
		SFU_DIFF_PROG=cc1plus LD_PRELOAD=$lib SFU_DIFF_OUT=$out \
			g++ -O2 -c "$SFU_TOP/tests/e2e/workloads/cxx-heavy.cc" -o /tmp/sfu-diff.o ;;
	sqlite3)
		LD_PRELOAD=$lib SFU_DIFF_OUT=$out sqlite3 :memory: \
			"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 200000)
			 SELECT count(*), sum(length(printf('%x', x*7))) FROM
			 (SELECT x FROM c ORDER BY printf('%08x', (x*2654435761) % 4294967296));" ;;
	perl)
		LD_PRELOAD=$lib SFU_DIFF_OUT=$out perl -e 'my %h;
			for my $i (1..60000) { $h{$i} = sprintf("%x", $i * 7) }
			my @k = sort { $h{$a} cmp $h{$b} } keys %h; print scalar(@k), "\n"' ;;
	python3)
		LD_PRELOAD=$lib SFU_DIFF_OUT=$out /usr/bin/python3 \
			"$SFU_TOP/tests/e2e/workloads/cpu-bound.py" 2 ;;
	threads-heavy)
		LD_PRELOAD=$lib SFU_DIFF_OUT=$out "$wl/threads-heavy" 2 ;;
	*-fp)
		LD_PRELOAD=$lib SFU_DIFF_OUT=$out "$wl/$1" 4 ;;
	esac
}

# field LINE NAME: the value of NAME=... in LINE
field() {
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# measure NAME WHEN: one run, checked
measure() {
	rm -f $out
	workload "$1" > $log 2>&1 || { echo "FAILED: $1 exited with $?"; sed 's/^/    /' $log; fail=1; }
	line=$(grep '^sfu-diff prog' $out 2>/dev/null | head -n 1)
	if [ -z "$line" ]; then
		echo "FAILED: $1 $2 sidecars: no report"; sed 's/^/    /' $log; fail=1
		return
	fi
	s=$(field "$line" samples)
	i=$(field "$line" identical)
	c=$(field "$line" contradicted)
	echo "workload differential $1 $2 sidecars: samples $s identical $i shorter $(field "$line" shorter)" \
		"longer $(field "$line" longer) contradicted $c unaligned $(field "$line" unaligned)" \
		"errors $(field "$line" errors) stops $(field "$line" stops);" \
		"complete and right: module $(field "$line" complete), perf's walk $(field "$line" perf_right)" \
		"(it skips a frame in $(field "$line" perf_skips)); module behind perf's walk" \
		"$(field "$line" behind) stops $(field "$line" behind_stops)"
	if [ "$s" -lt $min_samples ]; then
		echo "FAILED: $1 $2 sidecars: $s samples, fewer than $min_samples"; fail=1
	fi
	if [ "$c" -ne 0 ]; then
		echo "FAILED: $1 $2 sidecars: $c samples with a frame libgcc contradicts"
		grep -E '^sfu-diff   contradicted|^sfu-diff     ' $out | sed 's/^/    /'
		fail=1
	fi
	if [ "$(field "$line" complete)" -lt "$(field "$line" perf_right)" ]; then
		echo "FAILED: $1 $2 sidecars: complete and right in $(field "$line" complete) samples," \
			"perf's own walk in $(field "$line" perf_right)"
		fail=1
	fi
	if [ "$(field "$line" behind)" -ne 0 ]; then
		echo "    behind perf's own walk in $(field "$line" behind) samples:"
		grep -A20 "^sfu-diff   behind" $out | grep -v "word sp+0x[1-9a-f][0-9a-f]" |
			head -n 60 | sed 's/^/    /'
	fi
	if [ "$2" = with ] && [ $((i * 100)) -lt $((s * 99)) ]; then
		echo "FAILED: $1 with sidecars: $i of $s identical, under 99 %"; fail=1
	fi
}

before=$(grep -E '^stop_(ra_|fp_skips|fp_unconfirmed)' /sys/kernel/debug/sframe_unwind/unwind_stats | tr '\n' ' ')
echo "" > $param/sidecar_dir
for p in $progs; do
	measure "$p" without
done
echo "workload unwind_stats before: $before"
echo "workload unwind_stats after:  $(grep -E '^stop_(ra_|fp_skips|fp_unconfirmed)' /sys/kernel/debug/sframe_unwind/unwind_stats |
	tr '\n' ' ')"

bins="$cc1plus $(command -v sqlite3) $(command -v perl) $(readlink -f /usr/bin/python3) $wl/threads-heavy
	$wl/libc-heavy-fp $wl/cxx-heavy-fp"
# shellcheck disable=SC2086
libs=$(for b in $bins; do ldd "$b" 2> /dev/null; done |
	awk '/=>/ { print $3 } /ld-linux/ { print $1 }' | sort -u)
# shellcheck disable=SC2086
"$gen" --install --cache "$sc" $bins $libs > $log 2>&1 || { cat $log; fail=1; }
"$gen" --install --cache "$sc" --vdso > $log 2>&1 || { cat $log; fail=1; }
echo "$sc" > $param/sidecar_dir
for p in $progs; do
	measure "$p" with
done

echo /var/lib/sframe-unwind > $param/sidecar_dir
echo "$depth" > $param/max_depth
rm -rf "$sc"
exit $fail
