#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The module's walk of a Go program's stopped thread against an unwinder
# written elsewhere: the Go runtime's own traceback of the same moment.
# go-unwind-diff --kernel (tests/sframe-gen/go/go-unwind-diff.c) starts
# Debian's stripped fzf (fzf --filter over generated paths, as perf_go.sh
# drives it) under ptrace with GOTRACEBACK=system, sends SIGQUIT to one
# of its threads after a random while and, at that thread's
# signal-delivery-stop, has the module unwind it (SFU_IOC_UNWIND_TASK);
# then the runtime's handler prints its traceback ("fp= sp= pc=" for every
# frame), which is compared frame by frame: return PC, SP and CFA.  A
# thread on its system stack inside systemstack() is printed as g0's
# frames, then the goroutine's: the runtime's profiler goes on from one
# to the other, and so does the module (unwind/go.c); the two are joined.
# fzf's sidecar is installed as perf_go.sh installs it (go-lib: the
# sidecar daemon on x86_64, the prepared one on arm64).
#
# Fails on any contradicted frame (a frame both walks have, differing),
# fewer than $min_compared samples compared, or fewer than 95 % of the
# runtime's frames exact.  Frames of ours beyond the runtime's traceback
# (it stops at mcall and morestack, which the module may step out of) are
# extra; those that the traceback of another goroutine the runtime printed
# confirms or contradicts are counted and shown, not held against the
# module: that goroutine was printed a while after the walk.
#
# Then the broken baseline: a sidecar whose rows of two functions, one
# that the samples of fzf's reading go through, (*Reader).feed, and one
# that those of its matching go through, (*Pattern).matchChunk, have the
# CFA 8 bytes off (sframe-gen --inject-fault, made on the host for arm64
# by tests/e2e/prepare, which reads the names below); the differential
# must find contradicted frames there, in one of at most five batches.
# Prints the summary lines ("workload").
arch=$(uname -m)
case $arch in x86_64|aarch64) ;; *) echo "x86_64 or arm64 only: skip"; exit 77 ;; esac
e2e=$SFU_TOP/build/e2e/$arch
gud=$e2e/go-unwind-diff
fault='github.com/junegunn/fzf/src.(*Reader).feed,github.com/junegunn/fzf/src.(*Pattern).matchChunk'
faulty="(*Reader).feed's and (*Pattern).matchChunk's CFA"
# Samples, and when each is taken (ms after the start: fzf takes about
# 0.4 s under ptrace to install its signal handlers on x86_64 under TCG,
# 1 to 2 s on arm64, and the runtime prints nothing before), and the
# lines fzf reads: enough that it still runs then on arm64, where Debian
# 13's fzf got through 50,000 before most samples (what it prints goes to
# /dev/null: go-unwind-diff).
runs=150
fault_runs=30
delay=400-1200
lines=200000
if [ "$arch" = aarch64 ]; then
	runs=60
	fault_runs=20
	delay=1500-4000
	lines=200000
fi
min_compared=$((runs / 2))
fzf=$(command -v fzf || true)
[ -n "$fzf" ] || { echo "FAILED: no fzf (scripts/install-deps installs it)"; exit 1; }
fzf=$(readlink -f "$fzf")
[ -x "$gud" ] || { echo "FAILED: no $gud: run-e2e builds tests/e2e/progs"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
. "$here/perf-lib"
. "$here/go-lib"
param=/sys/module/sframe_unwind/parameters/sidecar_dir
stats=/sys/kernel/debug/sframe_unwind/unwind_stats
fail=0
bad() { echo "FAILED: $*"; fail=1; }
work=$(mktemp -d /tmp/sfu-godiff.XXXXXX)
chmod 755 "$work"
sc=$work/sidecars
mkdir -m 755 "$sc"
cleanup() {
	go_daemon_stop
	echo /var/lib/sframe-unwind > $param
	rm -rf "$work"
}
trap cleanup EXIT
cd /tmp || exit 1
awk -v n=$lines 'BEGIN { for (i = 0; i < n; i++)
	printf "/usr/lib/pkg%d/src/module%d/internal/file_%d_%x.go\n", i % 97, i % 1013, i, i * 2654435761 }' \
	> "$work/paths"
echo "fzf is $fzf ($("$fzf" --version 2>&1 | head -n 1))"
# Run from a copy on the tmpfs: from the 9p root, paging fzf in took most
# of a sample's time under TCG.  Its sidecar is its build-id's all the same.
cp "$fzf" "$work/fzf" || exit 1
fzf=$work/fzf

# field NAME FILE: the value after NAME in FILE's summary line
field() {
	awk -v k="$1" '/^go-unwind-diff: samples [0-9]/ {
		for (i = 2; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' "$2"
}

# differential NAME RUNS SEED: go-unwind-diff --kernel into $work/NAME.out;
# the module's Go stack switches during it into $work/NAME.switches
differential() {
	local s0
	s0=$(awk '$1 == "go_stack_switches" { print $2 }' $stats)
	"$gud" --kernel -v --runs "$2" --seed "$3" --delay "$delay" --stdin "$work/paths" -- \
		"$fzf" --filter pkgmodinfile > "$work/$1.out" 2>&1
	awk -v s0="$s0" '$1 == "go_stack_switches" { print $2 - s0 }' $stats > "$work/$1.switches"
	grep -q '^go-unwind-diff: samples [0-9]' "$work/$1.out" ||
		{ bad "go-unwind-diff failed:"; tail -n 20 "$work/$1.out" | sed 's/^/    /'; exit 1; }
}

# summary NAME LABEL: the "workload" lines of a run
summary() {
	echo "workload fzf $2: $(grep '^go-unwind-diff: samples [0-9]' "$work/$1.out" |
		cut -d' ' -f2-); the module's go_stack_switches $(cat "$work/$1.switches")"
	echo "workload fzf $2: the module's walks ended: $(grep '^go-unwind-diff: stops' \
		"$work/$1.out" | cut -d' ' -f3-)"
	awk -v l="workload fzf $2: " '/^go-unwind-diff: (contradicted samples|samples with extra)/ {
		sub(/^go-unwind-diff: /, ""); print l $0 }' "$work/$1.out"
	# Frames of ours beyond the runtime's traceback that another
	# goroutine's contradicts (printed from where it was saved, a while
	# after our walk, so not held against the module): the first few.
	grep '^run [0-9]*: extra frame' "$work/$1.out" | head -n 3 |
		awk -v l="workload fzf $2: " '{ print l $0 }'
}

echo "$sc" > $param
go_sidecar "$sc" "$fzf" "$work" > "$work/sidecar.log" ||
	{ bad "no sidecar of $fzf:"; sed 's/^/    /' "$work/sidecar.log"; exit 1; }
differential sidecar "$runs" 1
summary sidecar "with its sidecar"
compared=$(field compared "$work/sidecar.out")
contradicted=$(field contradicted "$work/sidecar.out")
share=$(grep '^go-unwind-diff: samples [0-9]' "$work/sidecar.out" | sed 's/.*exact-share \([0-9.]*\)%.*/\1/')
if [ "$contradicted" != 0 ]; then
	bad "$contradicted frames contradicted; the samples:"
	awk '/^run [0-9]+: frame / { bad[$2] = 1 } { line[NR] = $0; run[NR] = $2 }
		END { for (i = 1; i <= NR; i++) if (run[i] in bad) print "    " line[i] }' \
		"$work/sidecar.out" | head -n 200
fi
[ "${compared:-0}" -ge $min_compared ] || {
	bad "only ${compared:-0} samples compared, want >= $min_compared; the first unaligned:"
	awk '/^run [0-9]+: pc .*: none of our/ { if (++n <= 3) bad[$2] = 1 }
		{ line[NR] = $0; run[NR] = $2 }
		END { for (i = 1; i <= NR; i++) if (run[i] in bad) print "    " line[i] }' \
		"$work/sidecar.out" | head -n 120
}
awk -v s="${share:-0}" 'BEGIN { exit !(s >= 95) }' || {
	bad "exact share $share %, want >= 95 %; the samples with missing frames:"
	awk '/^run [0-9]+: pc .* missing [1-9]/ { bad[$2] = 1 } { line[NR] = $0; run[NR] = $2 }
		END { for (i = 1; i <= NR; i++) if (run[i] in bad) print "    " line[i] }' \
		"$work/sidecar.out" | head -n 200
}

# The broken baseline: the same with the CFA of the functions $fault names
# moved by 8 bytes.
go_daemon_stop
mkdir -m 755 "$work/fault"
if [ "$arch" = aarch64 ]; then
	go_sidecar_copy "$e2e/go-sidecars-fault" "$work/fault" > "$work/fault.log"
else
	"$SFU_TOP/tools/sframe-gen" --install --inject-fault "$fault" --cache "$work/fault" \
		"$fzf" > "$work/fault.log" 2>&1
fi || { bad "no sidecar with $faulty moved:"; sed 's/^/    /' "$work/fault.log"; exit 1; }
echo "$work/fault" > $param
# Which functions a batch's samples go through depends on when each is
# taken: on arm64, where fzf reads its input in a shorter share of the
# run, a batch of 20 had (*Reader).feed in 2 samples of 13 in one run and
# in none in another, and under a loaded host five batches of 20 had it
# in none (hence matchChunk too).  Up to five batches, each with a seed
# of its own, until one finds a moved CFA.
batch=1
while :; do
	differential fault "$fault_runs" $((batch + 1))
	[ "$(field contradicted "$work/fault.out")" -gt 0 ] 2> /dev/null || [ $batch -ge 5 ] && break
	echo "workload fzf with $faulty moved: batch $batch found no contradicted frame" \
		"($(field compared "$work/fault.out") samples compared): another batch"
	batch=$((batch + 1))
done
summary fault "with $faulty moved (must be found)"
[ "$(field contradicted "$work/fault.out")" -gt 0 ] 2> /dev/null ||
	bad "with $faulty moved by 8 bytes no frame was contradicted"
exit $fail
