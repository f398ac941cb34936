#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Frame-pointer C and C++ programs without .sframe and without sidecars:
# how often stock `perf record -g` completes their callchains with the
# module, against without it.  workloads/libc-heavy-fp and cxx-heavy-fp
# (-fno-omit-frame-pointer, no .sframe) spend their time in libc and
# libstdc++, which have neither frame pointers nor .sframe, and no sidecar
# is read (sidecar_dir empty): every frame the module gives comes from its
# frame-pointer fallback.  Each program is recorded with the module
# unloaded (perf's own frame-pointer walk), then loaded; the share of ALL
# samples with a user frame whose chain is complete (tests/e2e/perf-complete)
# is printed side by side, with the objects of the innermost frames, the
# module's stop reasons and the chain most broken samples have.
#
# perf's share is not a share of true chains: its walk reads the record
# of the program's function that called into libc or libstdc++, which
# keep no frame pointers, and so skips that function's frame, and still
# ends at main.  Judged frame by frame against libgcc's unwinder at the
# same instant (unwind_differential.sh, which walks as perf does beside
# the module), perf's walk skips a frame in most of the -fp programs'
# samples without sidecars (libc-heavy-fp: 856 of 988, right in 7;
# cxx-heavy-fp: 422 of 989, right in 385), where the module's walk is
# complete and right in 835 and 752, and in every sample where perf's
# walk is (that test fails if the module is right in fewer than perf's
# walk, and prints any sample perf's walk has right and the module not).
# Here the test holds
# the ratio of the module's share to perf's that the module has reached,
# so that a change that loses frames fails: at least 0.9 for
# libc-heavy-fp (0.99 with the functions' starts from .eh_frame_hdr and
# glibc's entry stubs; 0.03 where its table was present without the stubs;
# 0.96 to 1.09 over eight runs before, 0.01 before the frames a record
# skips were found) and 0.85 for cxx-heavy-fp (0.97; 0.76 to 0.81
# before a return address at SP into the record's function was taken and
# stale ones it cannot hold passed over; 0.18 before that).
# What is missing: qsort()'s comparison function, called through a
# pointer from msort_with_tmp(), whose frames lead back to the program
# through qsort()'s tail call of qsort_r(); in cxx-heavy-fp, the frames
# that stop with fp_skips and ra_other_callee (about 4 % of the samples:
# the remaining gap) have not been sorted out since.  perf's walk skips a
# caller there,
# or takes a record the module cannot prove
# (tests/e2e/unwind_differential.sh holds both programs to 0
# contradicted frames).
# Both programs touch every object's .eh_frame_hdr first
# (workloads/touch-eh-frame-hdr.h), so that the functions' starts are
# read in every run, not only when the page cache and fault-around happen
# to have mapped the tables.
# x86_64 only: the guest runs the host's libc and libstdc++.
secs=3
period=500000
progs="libc-heavy-fp cxx-heavy-fp"
# the ratio each must reach
min_libc_heavy_fp=0.9
min_cxx_heavy_fp=0.85
if [ "$(uname -m)" != x86_64 ]; then
	echo "x86_64 only: the programs run on the host's libraries: skip"
	exit 77
fi
dir=$SFU_TOP/build/e2e/x86_64/workloads
for p in $progs; do
	[ -x "$dir/$p" ] || { echo "FAILED: no $dir/$p: run tests/e2e/prepare first"; exit 1; }
done
param=/sys/module/sframe_unwind/parameters/sidecar_dir
here=$(cd "$(dirname "$0")" && pwd)
. "$here/perf-lib"
fail=0
perf_unthrottle || exit 1
cd /tmp || exit 1

# record NAME RUN: perf record -g of workload NAME into /tmp/fp-NAME-RUN.data;
# prints "SAMPLES COMPLETE PERCENT"; with the module, why its walks ended
# goes to /tmp/fp-NAME-RUN.data.stops
record() {
	d=/tmp/fp-$1-$2.data
	[ "$2" = perf ] || perf_stops_mark "$d.stops0"
	perf record -q -g -e cpu-clock:u -c $period -o "$d" -- "$dir/$1" $secs > "$d.log" 2>&1 ||
		{ echo "perf record of $1 ($2) failed" >&2; cat "$d.log" >&2; }
	[ "$2" = perf ] || perf_stops_since "$d.stops0" > "$d.stops"
	perf_complete_share "$d" "$(printf %.15s "$1")"
}

perf_module_unload || exit 1
for p in $progs; do
	eval "perf_$(echo $p | tr - _)=\"$(record $p perf)\""
done
perf_module_load || exit 1
echo "" > $param
for p in $progs; do
	eval "module_$(echo $p | tr - _)=\"$(record $p module)\""
done
echo /var/lib/sframe-unwind > $param

for p in $progs; do
	v=$(echo $p | tr - _)
	eval "set -- \$perf_$v \$module_$v"
	echo "workload $p: perf's own walk $3 % of $1 samples complete, module $6 % of $4;" \
		"the module's walks ended:$(cat "/tmp/fp-$p-module.data.stops")"
	for r in perf module; do
		echo "    $r:"
		sed 's/^/      /' "/tmp/fp-$p-$r.data.objects"
	done
	if [ "$1" -lt 100 ] || [ "$4" -lt 100 ]; then
		echo "FAILED: $p: $1 and $4 samples, want 100 or more each"
		fail=1
	fi
	echo "    the chain most broken samples have with the module:"
	sed 's/^/      /' "/tmp/fp-$p-module.data.broken"
	eval "min=\$min_$v"
	awk -v m="$6" -v p="$3" -v min="$min" 'BEGIN { exit !(p > 0 && m / p >= min) }' || {
		echo "FAILED: $p: the module completes $6 % of the samples, perf's own walk $3 %:" \
			"a ratio under $min"
		fail=1
	}
done
rm -f /tmp/fp-*.data /tmp/fp-*.data.*
exit $fail
