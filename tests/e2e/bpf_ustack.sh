#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# BPF's user stacks: bpf_get_stackid() and bpf_get_stack() with
# BPF_F_USER_STACK take the user part of a stack from get_perf_callchain()
# -> perf_callchain_user(), which the module redirects to its SFrame
# unwinder.  Three consumers, each on a program built -O2
# -fomit-frame-pointer with .sframe that prints its frames' return
# addresses:
#
#   profile  bpftrace, profile:hz:HZ, @[ustack(perf)] = count(), on the
#            fixture chain-O2 (main -> f1 ... f8 -> leaf, spinning in leaf)
#   uprobe   bpftrace, a uprobe on the entry of tick(), which tick-chain's
#            leaf calls TICKS times (main -> f1 -> f2 -> f3 -> leaf -> tick)
#   bcc      a BCC program (bpf-stacks.py) on a CPU-clock perf event, both
#            helpers, on syscall-chain (main -> f1 -> f2 -> leaf, in raw
#            system calls: most samples are taken in the kernel, and the
#            user part starts from the registers saved at its entry)
#
# bpftrace's ustack is itself bpf_get_stackid(BPF_F_USER_STACK) into a
# stack map.  ustack(perf) prints the addresses, which are compared exactly
# with what the program printed.  Of the sampled stacks whose first entry
# is in the program's innermost function (leaf, or tick), with the module
# at least 99 % hold exactly the program's return addresses, the innermost
# function's up to f1's into main; with the perf_callchain parameter off,
# and with the module unloaded, fewer than 1 % reach main (hold f1's
# return address into main), the frame-pointer walk getting lost.  At
# least 100 such stacks each time; the uprobe fires exactly TICKS times, all
# at tick's entry.  Also: the callchains counter moves with the module and
# not with the parameter off, and the module unloads while the BCC program
# samples.  Prints one "workload" line of figures per run.
#
# Needs bpftrace and a kernel with bpf(2): Debian's stock kernel
# (scripts/check-dkms --e2e); skips on the project's 6.1 test kernels
# (tinyconfig, no CONFIG_BPF_SYSCALL) and in the arm64 guests on Debian
# 12's user land (no bpftrace); Debian 13's has it.
# The BCC part needs python3-bpfcc and the running kernel's headers: the
# x86_64 guests see the host's, which scripts/install-deps installs for
# Debian's stock kernel; without them it says so and is left out.
. ./perf-lib
arch=$(uname -m)
e2e=$SFU_TOP/build/e2e/$arch
here=$(cd "$(dirname "$0")" && pwd)
param=/sys/module/sframe_unwind/parameters/perf_callchain
dbg=/sys/kernel/debug/sframe_unwind/perf_callchain
ko=$SFU_MODULE_DIR/sframe_unwind.ko
chain=$e2e/fixtures/v3/chain-O2
# arm64: the static fixture (tests/e2e/prepare stages no dynamic one).
[ "$arch" != aarch64 ] || chain=$e2e/fixtures/v3/chain-O2-static
tick=$e2e/tick-chain
syscall=$e2e/syscall-chain
# Sampling frequency; chain-O2's iterations and syscall-chain's seconds:
# about 2 s each under TCG, a few hundred samples at the least.
hz=999
iters=300000000
secs=2
# tick()'s calls, each one uprobe hit.
ticks=2000
fail=0

command -v bpftrace > /dev/null || { echo "no bpftrace in this guest: skip"; exit 77; }
grep -q ' bpf_get_stackid$' /proc/kallsyms ||
	{ echo "the kernel has no bpf(2) (no CONFIG_BPF_SYSCALL): skip"; exit 77; }
for p in "$chain" "$tick" "$syscall"; do
	[ -x "$p" ] || { echo "FAILED: no $p: run tests/e2e/prepare --arch $arch on the host"; exit 1; }
done
perf_unthrottle || exit 1
[ "$(cat $param)" = Y ] || { echo "FAILED: perf_callchain reads '$(cat $param)'"; cat $dbg; exit 1; }
grep -qx "state on" $dbg || { echo "FAILED: debugfs:"; cat $dbg; exit 1; }

tmp=$(mktemp -d)
bcc=
cleanup() {
	[ -z "$bcc" ] || { exec 3>&-; kill $bcc 2> /dev/null; wait $bcc 2> /dev/null; }
	rm -rf "$tmp"
}
trap cleanup EXIT

counter() { awk -v k="$1" '$1 == k { print $2 }' $dbg; }

# score OUT STACKS: "TOTAL INNER REACH EXACT" of the stacks in STACKS, one
# "COUNT IP..." line each (hex, innermost first), against the frames the
# program printed to OUT ("frame <n> <name> entry=.. cfa=.. ret=..",
# innermost first): TOTAL samples; INNER of them whose first entry is in
# the innermost function (from its entry up to the next function the
# program names); REACH of those holding f1's return address into main
# after the first entry; EXACT of those whose entries after the first are
# the program's return addresses, in order, all of them.
score() {
	awk -v out="$1" '
		function hex(s,    i, v) {
			s = tolower(s)
			sub("^0x", "", s)
			v = 0
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		BEGIN {
			while ((getline line < out) > 0) {
				if (split(line, f, " ") < 6 || f[1] != "frame")
					continue
				entry[f[2]] = hex(substr(f[4], 7))
				ret[f[2]] = hex(substr(f[6], 5))
				n = f[2] + 1
			}
			lo = entry[0]
			hi = -1
			for (k = 1; k < n; k++)
				if (entry[k] > lo && (hi < 0 || entry[k] < hi))
					hi = entry[k]
		}
		{
			total += $1
			if (n < 2 || NF < 2)
				next
			ip = hex($2)
			if (ip < lo || (hi >= 0 && ip >= hi))
				next
			inner += $1
			for (i = 3; i <= NF; i++)
				if (hex($i) == ret[n - 2]) {
					reach += $1
					break
				}
			ok = NF >= n + 1
			for (k = 1; ok && k < n; k++)
				if (hex($(k + 2)) != ret[k - 1])
					ok = 0
			if (ok)
				exact += $1
		}
		END { printf "%d %d %d %d\n", total, inner, reach, exact }' "$2"
}

# judge LABEL WANT OUT STACKS [TICKS]: WANT is "most" (at least 99 % of
# the stacks in the innermost function exact) or "few" (fewer than 1 %
# reach main); with TICKS, every one of exactly TICKS stacks must be in the
# innermost function.
judge() {
	local label=$1 want=$2 out=$3 total inner reach exact
	set -- $(score "$out" "$4") "$5"
	total=$1 inner=$2 reach=$3 exact=$4
	echo "workload $label: $reach of $inner stacks in the innermost function reach main," \
		"$exact exact ($total sampled)"
	if ! grep -q '^frame 1 ' "$out"; then
		echo "FAILED: $label: the program printed no frames:"
		cat "$out"
		fail=1
	elif [ -n "$5" ] && { [ "$total" != "$5" ] || [ "$inner" != "$5" ]; }; then
		echo "FAILED: $label: $total stacks, $inner at tick's entry, for $5 calls"
		fail=1
	elif [ "$inner" -lt 100 ]; then
		echo "FAILED: $label: only $inner stacks in the innermost function"
		fail=1
	elif [ "$want" = most ] && [ $((exact * 100)) -lt $((inner * 99)) ]; then
		echo "FAILED: $label: fewer than 99 % exact"
		fail=1
	elif [ "$want" = few ] && [ $((reach * 100)) -ge "$inner" ]; then
		echo "FAILED: $label: 1 % or more reach main"
		fail=1
	fi
}

# bpftrace_run NAME SCRIPT PROG [ARGS...]: bpftrace -c runs PROG (cpid)
# under SCRIPT, whose one map is keyed by ustack(perf); the program's
# output to $tmp/NAME.out, the stacks, one "COUNT IP..." line each, to
# $tmp/NAME.stacks.
bpftrace_run() {
	local name=$1 script=$2
	shift 2
	if ! bpftrace -o "$tmp/$name.bt" -c "$*" -e "$script" \
		> "$tmp/$name.out" 2> "$tmp/$name.err" 3>&- 4<&-; then
		echo "FAILED: bpftrace ($name):"
		cat "$tmp/$name.err"
		fail=1
		return 1
	fi
	awk '/^@\[/ { s = ""; key = 1; next }
	     key && /^\]: / { print $2 s; key = 0; next }
	     key { s = s " " $1 }' "$tmp/$name.bt" > "$tmp/$name.stacks"
}

# profile LABEL WANT, uprobe LABEL WANT: the two bpftrace runs
profile() {
	bpftrace_run "$1-profile" "profile:hz:$hz /pid == cpid/ { @[ustack(perf)] = count(); }" \
		"$chain" $iters &&
		judge "bpftrace-profile $1" "$2" "$tmp/$1-profile.out" "$tmp/$1-profile.stacks"
}
uprobe() {
	bpftrace_run "$1-uprobe" "uprobe:$tick:tick /pid == cpid/ { @[ustack(perf)] = count(); }" \
		"$tick" $ticks &&
		judge "bpftrace-uprobe $1" "$2" "$tmp/$1-uprobe.out" "$tmp/$1-uprobe.stacks" $ticks
}

# The BCC program, compiled and attached once, serves every run: its
# standard input and output are fifos on fds 3 and 4.  bcc_launch starts
# it (its compilation takes minutes in a TCG guest: the bpftrace runs go
# on meanwhile), bcc_ready waits for it.
bcc_launch() {
	local why=
	if ! /usr/bin/python3 -c 'import bcc' 2> /dev/null; then
		why="no python3-bpfcc"
	elif [ ! -d "/lib/modules/$(uname -r)/build" ]; then
		why="no headers for $(uname -r)"
	fi
	if [ -n "$why" ]; then
		echo "workload bcc: not run: $why"
		return
	fi
	mkfifo "$tmp/bcc.in" "$tmp/bcc.out"
	# Debian's own python3 (python3-bpfcc is for it), whatever PATH says.
	/usr/bin/python3 "$here/bpf-stacks.py" $hz < "$tmp/bcc.in" > "$tmp/bcc.out" 2> "$tmp/bcc.err" &
	bcc=$!
	exec 3> "$tmp/bcc.in" 4< "$tmp/bcc.out"
}
bcc_ready() {
	local line
	[ -n "$bcc" ] || return 0
	read -r line <&4 && [ "$line" = ready ] && return 0
	echo "FAILED: the BCC program did not start:"
	cat "$tmp/bcc.err"
	fail=1
	exec 3>&- 4<&-
	wait $bcc
	bcc=
}

# bcc_send NAME PROG [ARGS...]: start a run; bcc_wait NAME: its stacks,
# "COUNT IP..." lines, to $tmp/NAME-stackid.stacks (bpf_get_stackid) and
# $tmp/NAME-stack.stacks (bpf_get_stack); the program's output to
# $tmp/NAME.out
bcc_send() {
	local name=$1
	shift
	# In a subshell: a BCC program that died makes this fail, not the test.
	(echo "$tmp/$name.out $*" >&3) 2> /dev/null
}
bcc_wait() {
	local line
	: > "$tmp/$1.bcc"
	while read -r line <&4; do
		case $line in
		end*) break ;;
		esac
		echo "$line" >> "$tmp/$1.bcc"
	done
	if [ "$line" != "end 0" ]; then
		echo "FAILED: the BCC program ($1) ended with '$line':"
		cat "$tmp/bcc.err"
		fail=1
		return 1
	fi
	sed -n 's/^stackid //p' "$tmp/$1.bcc" > "$tmp/$1-stackid.stacks"
	sed -n 's/^stack //p' "$tmp/$1.bcc" > "$tmp/$1-stack.stacks"
}

# bcc_check LABEL WANT: one run of syscall-chain
bcc_check() {
	local errors
	[ -n "$bcc" ] || return 0
	bcc_send "$1-bcc" "$syscall" 0 $secs
	bcc_wait "$1-bcc" || return
	judge "bcc-stackid $1" "$2" "$tmp/$1-bcc.out" "$tmp/$1-bcc-stackid.stacks"
	judge "bcc-get_stack $1" "$2" "$tmp/$1-bcc.out" "$tmp/$1-bcc-stack.stacks"
	errors=$(awk '/-error / { printf " %s: %d x errno %d", $1, $2, $3 }' "$tmp/$1-bcc.bcc")
	echo "workload bcc $1: stack map $(sed -n 's/^stackid-map //p' "$tmp/$1-bcc.bcc") stacks" \
		"after the run${errors:+, helper errors:$errors}"
}

bcc_launch
before=$(counter callchains)
profile module most
uprobe module most
bcc_ready
bcc_check module most
[ "$(counter callchains)" -gt "$before" ] || { echo "FAILED: callchains counter did not move"; fail=1; }

perf_callchain_set 0 N || fail=1
grep -qx "state off: disabled by the perf_callchain parameter" $dbg ||
	{ echo "FAILED: debugfs after 0:"; cat $dbg; fail=1; }
before=$(counter callchains)
profile param-off few
uprobe param-off few
bcc_check param-off few
[ "$(counter callchains)" = "$before" ] || { echo "FAILED: callchains moved while off"; fail=1; }
perf_callchain_set 1 Y || fail=1

# Unload while the BCC program samples syscall-chain through the
# redirection (the exit path waits for every CPU to leave the
# replacement); that run's stacks are not judged.
if [ -n "$bcc" ]; then
	before=$(counter callchains)
	bcc_send unload "$syscall" 0 $((secs * 2))
	i=0
	while [ "$(counter callchains)" -le $((before + 20)) ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ $i -lt 600 ] || { echo "FAILED: no callchains while the BCC program samples"; fail=1; }
	"$SFU_TOP/tests/e2e/rmmod-retry" || { echo "FAILED: rmmod while the BCC program samples"; exit 1; }
	bcc_wait unload
else
	"$SFU_TOP/tests/e2e/rmmod-retry" || { echo "FAILED: rmmod"; exit 1; }
fi
profile unloaded few
uprobe unloaded few
bcc_check unloaded few

insmod "$ko" || { echo "FAILED: insmod"; exit 1; }
grep -qx "state on" $dbg || { echo "FAILED: debugfs after reload:"; cat $dbg; fail=1; }
profile reloaded most
bcc_check reloaded most

exit $fail
