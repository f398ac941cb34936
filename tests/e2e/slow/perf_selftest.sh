#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf's own test suite (perf test, from the perf the guest runs) with the
# module loaded, then unloaded: no test that is Ok without the module may
# be anything but Ok with it.  The module redirects perf_callchain_user(),
# which every PERF_SAMPLE_CALLCHAIN sample goes through; the tests below
# record, parse and check samples, callchains included, through the
# stock kernel interfaces.
#
# Each top-level test runs as its own "perf test N" (forking, perf's
# default: a test that crashes takes only itself down) under timeout(1),
# because perf 6.1 has no per-test time limit: a test still running after
# PERF_SELFTEST_TIMEOUT seconds (default 300) counts as "Timeout", not Ok.
# Results are read per test and subtest ("N" or "N.M", name, Ok, FAILED!
# or Skip).  A test Ok without the module and not Ok with it is run again
# with the module (reloaded at the end), once: the test fails if it is
# still not Ok, and says so as flaky if it is.
#
# By default a subset runs (the names in $subset below): the tests that
# record or parse samples, callchains, mmap and comm tracking, and a few
# cheap others.  PERF_SELFTEST=all (or the argument "all") runs the whole
# suite; under TCG that takes far longer than the e2e budget (see
# Documentation/consumers.rst for the figures):
#
#   scripts/vm-run --version debian -- env PERF_SELFTEST=all \
#       sh -c 'cd tests/e2e && sh ./slow/perf_selftest.sh'
#
# Passes with at least $min_ok tests Ok in each run (the subset on Debian's
# stock kernel: 18), skips without perf (the arm64 guest) and
# when the kernel gives too few Ok tests without the module to compare
# (the project's tinyconfig test kernels).  Prints a "workload" line of
# counts per run and one naming the tests that differ.
. ./perf-lib
ko=$SFU_MODULE_DIR/sframe_unwind.ko
limit=${PERF_SELFTEST_TIMEOUT:-300}
mode=${PERF_SELFTEST:-${1:-subset}}

# Test names, exactly as "perf test list" prints them (numbers differ
# between perf versions and architectures).  Left out, as measured: "Setup
# struct perf_event_attr" and "perf pipe recording and injection test",
# 9 s each natively and most of the subset's time under TCG (they
# run perf many times over; neither looks at samples' contents).
subset='Detect openat syscall event
Detect openat syscall event on all cpus
mmap interface tests
Simple expression parser
PERF_RECORD_* events & perf_sample fields
Roundtrip evsel->name
Parse sched tracepoints fields
syscalls:sys_enter_openat event fields
Number of exit events of a simple workload
Software clock events period values
Object code reading
Sample parsing
Use a dummy software event to keep tracking
Parse with no sample_id_all bit set
Lookup mmap thread
Track with sched_switch
Synthesize thread map
Event times
Read backward ring buffer
Sigtrap
Test dwarf unwind
x86 Sample parsing
Check Arm64 callgraphs are complete in fp mode
probe libc'"'"'s inet_pton & backtrace it with ping'

command -v perf > /dev/null || { echo "no perf in this guest: skip"; exit 77; }
command -v timeout > /dev/null || { echo "no timeout(1) in this guest: skip"; exit 77; }
[ -f "$ko" ] || { echo "FAILED: no $ko"; exit 1; }
grep -q '^sframe_unwind ' /proc/modules || { echo "FAILED: the module is not loaded"; exit 1; }
perf_unthrottle || exit 1

tmp=$(mktemp -d)
trap 'cd /; rm -rf "$tmp"' EXIT
# perf 6.1 looks for its shell tests in ./tests/shell when ./tests exists:
# run it where there is none.
cd "$tmp" || exit 1

# The tests to run: "NUMBER NAME" lines, top-level tests only.
perf test list 2>&1 | sed -n 's/^ *\([0-9][0-9]*\): \(.*\)$/\1 \2/p' > list
[ -s list ] || { echo "FAILED: perf test list printed no test"; exit 1; }
case $mode in
all)
	cp list run
	min_ok=40 ;;
subset)
	echo "$subset" > names
	awk 'NR == FNR { want[$0] = 1; next }
	     { n = $1; sub("^[0-9]+ ", ""); if ($0 in want) print n " " $0 }' names list > run
	min_ok=12 ;;
*)
	echo "FAILED: PERF_SELFTEST '$mode': subset or all"
	exit 1 ;;
esac

# suite TAG [NUMBERS...]: runs the tests (all of run's by default), each
# as "perf test N" under timeout; writes TAG.res, "KEY RESULT" lines (KEY
# the number and name with blanks as "_", RESULT Ok, FAILED, Skip or
# Timeout), TAG.log (perf's output) and TAG.time (seconds per test).
suite() {
	local tag=$1 n t0 t1 st
	shift
	[ $# -gt 0 ] || set -- $(cut -d' ' -f1 run)
	: > "$tag.log"
	: > "$tag.time"
	: > "$tag.res"
	for n in "$@"; do
		t0=$(date +%s)
		timeout -k 10 "$limit" perf test "$n" > out 2>&1 < /dev/null
		st=$?
		t1=$(date +%s)
		cat out >> "$tag.log"
		echo "$n $((t1 - t0))" >> "$tag.time"
		echo "$tag: perf test $n, $((t1 - t0)) s: $(grep ': [A-Z][a-zA-Z!]*' out | sed 's/  */ /g' | tr '\n' ';')"
		sed -n 's/^ *\([0-9][0-9.]*\): \(.*[^ ]\) *: \([A-Za-z]*\).*$/\1 \2 \3/p' out |
			awk '{ r = $NF; $NF = ""; sub(" $", ""); gsub(" ", "_"); print $0, r }' >> "$tag.res"
		if [ $st = 124 ] || [ $st = 137 ]; then
			grep -q "^$n " run && echo "$n $(sed -n "s/^$n //p" run | tr ' ' _) Timeout" >> "$tag.res"
		elif ! grep -q "^$n[_.]" "$tag.res"; then
			echo "$n $(sed -n "s/^$n //p" run | tr ' ' _) NoResult" >> "$tag.res"
		fi
	done
	sort -o "$tag.res" "$tag.res"
	sort -o "$tag.time" "$tag.time"
}

# count TAG RESULT
count() { awk -v r="$2" '$2 == r' "$1.res" | wc -l; }
summary() {
	echo "workload perf test $mode, $1: $(wc -l < "$1.res") results: $(count "$1" Ok) Ok," \
		"$(count "$1" FAILED) FAILED, $(count "$1" Skip) Skip, $(count "$1" Timeout) Timeout," \
		"$(count "$1" NoResult) without result; $(awk '{ s += $2 } END { print s }' "$1.time") s"
	echo "workload perf test $mode, $1, not Ok: $(awk '$2 != "Ok" && $2 != "Skip" { printf "%s %s; ", $1, $2 }' "$1.res")"
}

fail=0
suite module
summary module
rmmod sframe_unwind || { echo "FAILED: rmmod"; exit 1; }
suite unloaded
summary unloaded
insmod "$ko" || { echo "FAILED: insmod"; exit 1; }
perf_unthrottle || fail=1

# Ok without the module, not Ok with it: run those again with the module.
awk 'NR == FNR { if ($2 == "Ok") ok[$1] = 1; next }
     ($1 in ok) && $2 != "Ok" { print $1 }' unloaded.res module.res > differ
awk 'NR == FNR { if ($2 == "Ok") ok[$1] = 1; next }
     ($1 in ok) && $2 != "Ok" { print $1 }' module.res unloaded.res > better
if [ -s differ ]; then
	suite again $(sed 's/[._].*//' differ | sort -un)
	summary again
fi
while read -r key; do
	again=$(awk -v k="$key" '$1 == k { print $2 }' again.res)
	with=$(awk -v k="$key" '$1 == k { print $2 }' module.res)
	if [ "$again" = Ok ]; then
		echo "workload flaky: $key $with with the module, Ok without it, Ok again with it"
	else
		echo "FAILED: $key: Ok without the module, $with with it, ${again:-no result} again"
		n=${key%%[._]*}
		timeout -k 10 "$limit" perf test -v "$n" 2>&1 < /dev/null | tail -n 40
		fail=1
	fi
done < differ
echo "workload differ (Ok only without the module): $(tr '\n' ' ' < differ)"
echo "workload differ (Ok only with the module): $(tr '\n' ' ' < better)"

# Every result, both ways, and the time each test took.
join -a 1 -a 2 -e - -o 0,1.2,2.2 module.res unloaded.res 2> /dev/null |
	sed 's/^/result /'
join module.time unloaded.time 2> /dev/null | sed 's/^/seconds (module, unloaded) /'

# Not trivial: enough tests Ok without the module to compare with, and
# with it (fewer with it than without means tests in "differ" above).
ok=$(count unloaded Ok)
if [ "$ok" -lt $min_ok ] && [ $fail = 0 ]; then
	echo "only $ok perf tests Ok without the module (want $min_ok to compare): skip"
	exit 77
fi
for tag in module unloaded; do
	[ "$(count $tag Ok)" -ge $min_ok ] ||
		{ echo "FAILED: only $(count $tag Ok) perf tests Ok, $tag (want $min_ok)"; fail=1; }
done
exit $fail
