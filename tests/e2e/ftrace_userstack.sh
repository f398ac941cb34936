#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ftrace's own user stacks (the userstacktrace trace option) of
# syscall-chain (-O2 -fomit-frame-pointer, .sframe), whose leaf makes raw
# getppid calls: with the raw_syscalls:sys_enter event filtered to its
# getppid calls, every event is followed by a "<user stack trace>" of the
# stack leaf -> f2 -> f1 -> main.  With the module at least 99 % of those
# stacks hold f1's return address into main; with the ftrace_userstack
# parameter off, and with the module unloaded, fewer than 10 % do (the
# frame-pointer walk gets lost).  The same through trace-cmd record -O
# userstacktrace where trace-cmd is installed.  Also: the parameter reads
# back, debugfs says why it is off, the counters move, and the module
# unloads with the event and the option on.  Prints one "workload" line of
# figures per run.
. ./unwind-lib
tracing=/sys/kernel/tracing
param=/sys/module/sframe_unwind/parameters/ftrace_userstack
dbg=/sys/kernel/debug/sframe_unwind/ftrace_userstack
ko=$SFU_MODULE_DIR/sframe_unwind.ko
prog=$e2e/syscall-chain
ev=$tracing/events/raw_syscalls/sys_enter
# How long each run of the program lasts, in seconds.
secs=2
# trace-cmd streams every event to its file instead of overwriting a ring
# buffer: on an idle host one 2 s run gave 600,000 stacks, whose file and
# report outgrew the guest's tmpfs /tmp (and the next run then recorded
# nothing).  Its per-CPU output is capped (kB), and each run's files are
# deleted once scored.
tcmd_kb=4096

case $arch in
x86_64) nr=110 ;;	# getppid
aarch64) nr=173 ;;
*) echo "unknown architecture $arch: skip"; exit 77 ;;
esac
[ -e $tracing/options/userstacktrace ] ||
	{ echo "no tracefs options/userstacktrace: skip"; exit 77; }
if [ "$(cat $param)" != Y ]; then
	# arm64 6.1 records no user stacks in ftrace; every other kernel
	# checked (x86_64, arm64 6.12 and 7.2) must have the redirection.
	if [ "$arch" != x86_64 ] && grep -q "lacks USER_STACKTRACE_SUPPORT" $dbg; then
		echo "$(head -n 1 $dbg): skip"
		exit 77
	fi
	echo "FAILED: ftrace_userstack reads '$(cat $param)'"
	cat $dbg
	exit 1
fi
grep -qx "state on" $dbg || { echo "FAILED: debugfs:"; cat $dbg; exit 1; }

tmp=$(mktemp -d)
cleanup() {
	echo 0 > $ev/enable
	echo 0 > $ev/filter
	echo 0 > $tracing/options/userstacktrace
	echo > $tracing/trace
	rm -rf "$tmp"
}
trap cleanup EXIT

# start_stopped OUT ARGS...: the program with ARGS, its output to OUT,
# stopped before it runs (pid in $pid).  Kernel text is patched only while
# the program is stopped: enabling sys_enter rewrites the tracepoint in the
# very system call the program makes in a loop, and under QEMU's TCG a vCPU
# that runs through an instruction while another vCPU patches it can stay
# there for good (an RCU stall, the writer spinning in text_poke_bp(); seen
# on Debian's stock kernel, module or not).
start_stopped() {
	local out=$1 i=0
	shift
	sh -c 'kill -STOP $$ && exec "$@"' sh "$prog" "$@" > "$out" &
	pid=$!
	while [ "$(sed 's/.*) \(.\).*/\1/' /proc/$pid/stat 2> /dev/null)" != T ]; do
		[ $i -lt 600 ] || { echo "FAILED: the program did not stop"; exit 1; }
		sleep 0.05
		i=$((i + 1))
	done
}

counter() { awk -v k="$1" '$1 == k { print $2 }' $dbg; }

# main_ret FILE: f1's return address (into main) as the program printed it,
# hex digits only.
main_ret() {
	sed -n 's/^frame [0-9]* f1 .* ret=0x\([0-9a-f]*\)$/\1/p' "$1"
}

# score FILE RET: "STACKS HITS" - the user stacks in FILE, and how many
# hold RET.  A stack is a "<user stack trace>" (tracefs) or "user_stack"
# (trace-cmd report) line and the "=>" lines under it.
score() {
	awk -v want="$2" '
		/<user stack trace>|user_stack:/ { n++; inblk = 1; next }
		inblk && /^[ \t]*=>/ { if (want != "" && index(tolower($0), want)) hit[n] = 1; next }
		{ inblk = 0 }
		END { for (i in hit) h++; printf "%d %d\n", n, h }' "$1"
}

# judge LABEL WANT FILE OUT: WANT is "most" (>= 99 %) or "few" (< 10 %)
judge() {
	local ret stacks hits
	ret=$(main_ret "$4")
	set -- "$1" "$2" "$(score "$3" "$ret")" "$4"
	stacks=${3% *}
	hits=${3#* }
	echo "workload $1: $hits of $stacks user stacks reach main"
	if [ -z "$ret" ]; then
		echo "FAILED: $1: the program printed no f1 frame:"
		cat "$4"
		fail=1
	elif [ "$stacks" -lt 20 ]; then
		echo "FAILED: $1: only $stacks user stacks; $(grep -c . "$3") lines," \
			"$(df -k "$tmp" | awk 'NR == 2 { print $4 }') kB free in $tmp"
		head -n 20 "$3"
		[ ! -s "$tmp/$1.err" ] || cat "$tmp/$1.err"
		fail=1
	elif [ "$2" = most ] && [ $((hits * 100)) -lt $((stacks * 99)) ]; then
		echo "FAILED: $1: fewer than 99 % reach main"
		fail=1
	elif [ "$2" = few ] && [ $((hits * 10)) -ge "$stacks" ]; then
		echo "FAILED: $1: 10 % or more reach main"
		fail=1
	fi
}

# tracefs LABEL WANT: the program under sys_enter with userstacktrace
tracefs() {
	local pid
	echo 0 > $ev/enable
	echo 0 > $tracing/options/sym-userobj
	echo 1 > $tracing/options/userstacktrace
	echo > $tracing/trace
	start_stopped "$tmp/$1.out" 0 $secs
	echo "common_pid == $pid && id == $nr" > $ev/filter
	echo 1 > $ev/enable
	kill -CONT $pid
	wait $pid
	echo 0 > $ev/enable
	echo 0 > $tracing/options/userstacktrace
	cat $tracing/trace > "$tmp/$1.trace"
	judge "$1" "$2" "$tmp/$1.trace" "$tmp/$1.out"
}

# tracecmd LABEL WANT: the same through trace-cmd record -O userstacktrace
tracecmd() {
	command -v trace-cmd > /dev/null || return 0
	if ! (cd "$tmp" && trace-cmd record -q -m $tcmd_kb -o "$tmp/$1.dat" \
		-O userstacktrace -e raw_syscalls:sys_enter -f "id == $nr" \
		-F "$prog" 0 $secs) \
		> "$tmp/$1.out" 2> "$tmp/$1.err" ||
	   ! trace-cmd report -i "$tmp/$1.dat" > "$tmp/$1.trace" 2>> "$tmp/$1.err"; then
		echo "FAILED: trace-cmd record/report ($1):"
		cat "$tmp/$1.err"
		fail=1
		rm -f "$tmp/$1.dat" "$tmp/$1.trace"
		return
	fi
	judge "$1" "$2" "$tmp/$1.trace" "$tmp/$1.out"
	rm -f "$tmp/$1.dat" "$tmp/$1.trace"
}

before=$(counter walks)
tracefs tracefs-sframe most
[ "$(counter walks)" -gt "$before" ] || { echo "FAILED: walks counter did not move"; fail=1; }
tracecmd trace-cmd-sframe most

echo 0 > $param
[ "$(cat $param)" = N ] || { echo "FAILED: ftrace_userstack reads '$(cat $param)' after 0"; fail=1; }
grep -qx "state off: disabled by the ftrace_userstack parameter" $dbg ||
	{ echo "FAILED: debugfs after 0:"; cat $dbg; fail=1; }
before=$(counter walks)
tracefs tracefs-param-off few
tracecmd trace-cmd-param-off few
[ "$(counter walks)" = "$before" ] || { echo "FAILED: walks moved while off"; fail=1; }
echo 1 > $param
[ "$(cat $param)" = Y ] || { echo "FAILED: ftrace_userstack reads '$(cat $param)' after 1"; fail=1; }

# Unload with the event on and the option set, after the program made
# walks through the redirection, then trace without the module.  The
# program is stopped across rmmod, for the reason start_stopped() gives
# (here ftrace patches arch_stack_walk_user(): an RCU stall at
# arch_stack_walk_user+0x0, seen without the module too, toggling the
# function tracer on it), so the exit path's wait for CPUs in the
# replacement is not exercised here.
echo 1 > $tracing/options/userstacktrace
start_stopped /dev/null 0 30
echo "common_pid == $pid && id == $nr" > $ev/filter
echo 1 > $ev/enable
before=$(counter walks)
kill -CONT $pid
i=0
while [ "$(counter walks)" -le $((before + 20)) ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ $i -lt 600 ] || { echo "FAILED: no walks while the event records"; fail=1; }
kill -STOP $pid
"$SFU_TOP/tests/e2e/rmmod-retry" || { echo "FAILED: rmmod with the event on"; kill -9 $pid; exit 1; }
kill -9 $pid
wait $pid 2> /dev/null
echo 0 > $ev/enable
tracefs tracefs-unloaded few
tracecmd trace-cmd-unloaded few
insmod "$ko" || { echo "FAILED: insmod"; exit 1; }
grep -qx "state on" $dbg || { echo "FAILED: debugfs after reload:"; cat $dbg; fail=1; }
tracefs tracefs-reloaded most

exit $fail
