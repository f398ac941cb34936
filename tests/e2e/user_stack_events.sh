#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sframe_unwind:user_stack, end to end: the sampler on the fixture chain
# programs of every toolchain tag (spinning in leaf, -O2
# -fomit-frame-pointer), and the sys_enter trigger on syscall-chain (raw
# getppid calls from its leaf).  Every event of each program must hold
# exactly its own return addresses, leaf to main, with a distinct non-zero
# cookie.  x86_64 records the events with perf record and reads them with
# perf script (one session for all programs: perf starts slowly under
# TCG); arm64 reads them from tracefs.
#
# On x86_64, scripts/sframe-perf then turns the perf.data into symbolized
# callchains and folded stacks: for the v3 dynamic chain program, every
# event's stack must read ...;main;f1;...;f8;leaf, and the counts add up.
. ./unwind-lib

cmp=$SFU_TOP/tests/e2e/user-stack-compare
tracing=/sys/kernel/tracing
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case $arch in
x86_64) progs="chain-O2 chain-O2-static" ;;
*) progs="chain-O2-static chain-O2-pac-static" ;;
esac

# One line per run: its name, then the command, which prints what the
# program's events must hold.
n=0
add() { # NAME CMD...
	n=$((n + 1))
	echo "$1" > "$tmp/name.$n"
	shift
	echo "$* > $tmp/expect.$n 2> $tmp/err.$n; echo \$? > $tmp/rc.$n" >> "$tmp/run.sh"
}
for tag in $tags; do
	for p in $progs; do
		bin=$(fixture $tag $p) || { fail=1; continue; }
		add "sampler $tag/$p" "$check" sample --freq 199 --events 5 "$bin"
	done
done
add "trigger sys_enter syscall-chain" "$check" trigger --events 5 "$e2e/syscall-chain"

if [ "$arch" = x86_64 ]; then
	if ! perf record -q -e sframe_unwind:user_stack -a -o "$tmp/perf.data" -- \
		sh "$tmp/run.sh" > "$tmp/perf.out" 2>&1 ||
	   ! perf script -i "$tmp/perf.data" > "$tmp/events" 2>> "$tmp/perf.out"; then
		echo "FAILED: perf record/script"
		cat "$tmp/perf.out"
		exit 1
	fi
else
	ev=$tracing/events/sframe_unwind/user_stack/enable
	{ echo > $tracing/trace && echo 1 > $ev; } ||
		{ echo "FAILED: enabling sframe_unwind:user_stack in tracefs"; exit 1; }
	sh "$tmp/run.sh"
	echo 0 > $ev || { echo "FAILED: disabling sframe_unwind:user_stack"; exit 1; }
	cat $tracing/trace > "$tmp/events"
fi

i=1
while [ $i -le $n ]; do
	name=$(cat "$tmp/name.$i")
	if [ "$(cat "$tmp/rc.$i")" = 0 ] && out=$("$cmp" "$tmp/expect.$i" 5 "$tmp/events"); then
		echo "ok $name: $out"
	else
		echo "FAILED: $name"
		cat "$tmp/err.$i" "$tmp/expect.$i"
		echo "$out"
		fail=1
	fi
	i=$((i + 1))
done

# sframe-perf, on the events of one program.
[ "$arch" = x86_64 ] || exit $fail
i=1
while [ $i -le $n ] && [ "$(cat "$tmp/name.$i")" != "sampler v3/chain-O2" ]; do
	i=$((i + 1))
done
pid=$(awk '$1 == "pid" { print $2 }' "$tmp/expect.$i" 2>/dev/null)
sfp=$SFU_TOP/scripts/sframe-perf
chain=";main;f1;f2;f3;f4;f5;f6;f7;f8;leaf"
events=$(grep -c "user_stack: pid=$pid " "$tmp/events")
if [ -n "$pid" ] && folded=$("$sfp" -i "$tmp/perf.data" --folded --pid "$pid") &&
   symbolized=$("$sfp" -i "$tmp/perf.data" --pid "$pid") &&
   echo "$folded" | awk -v want="$chain" -v events="$events" '
	{ total += $NF; if (substr($1, length($1) - length(want) + 1) != want) bad++ }
	END { exit !(events >= 5 && total == events && !bad) }' &&
   [ "$(echo "$symbolized" | grep -c "leaf+0x")" = "$events" ] &&
   [ "$(echo "$symbolized" | grep -c " main+0x.*(chain-O2)")" = "$events" ]; then
	echo "ok sframe-perf: $events stacks of pid $pid: $(echo "$folded" | head -n 1)"
else
	echo "FAILED: sframe-perf on pid $pid ($events events)"
	echo "$folded"
	echo "$symbolized" | head -n 15
	fail=1
fi
exit $fail
