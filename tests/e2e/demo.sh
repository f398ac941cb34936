#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make demo's guest part (scripts/guest/demo-run), as the demo runs it but
# with fewer iterations, on the demo's own program (scripts/demo
# --prog-only, staged by tests/e2e/prepare), and its output checked: it
# exits 0; both perf report callchains are printed side by side, the
# frame-pointer one (module unloaded) stopping short of main and the
# SFrame one (module loaded) going leaf, f8 .. f1, main; the "without"
# share of complete samples below 1 % and the "with" share at least 99 %,
# of at least 60 samples each; the deferred part prints a symbolized event
# and a folded stack main;f1;..;f8;leaf.  The python3 part (2 s of Python
# per side): sframe-gen installed sidecars and none failed; of at least
# 200 samples each, at least 99 % complete with sidecars and without them
# at least 20 points fewer (as perf_sidecars.sh); side by side, a broken
# callchain that stops short of the C library's start of main and a
# complete one in python3.11 that reaches it.  x86_64 only: make demo's
# program and sidecars are made for the host.
prog=$SFU_TOP/build/demo/chain
fail=0

[ "$(uname -m)" = x86_64 ] || { echo "the demo runs on x86_64: skip"; exit 77; }
command -v perf > /dev/null || { echo "no perf in this guest: skip"; exit 77; }
[ -x "$prog" ] || { echo "FAILED: no $prog (tests/e2e/prepare runs scripts/demo --prog-only)"; exit 1; }
[ -x "$SFU_TOP/tools/sframe-gen" ] ||
	{ echo "FAILED: no tools/sframe-gen (tests/e2e/prepare builds it)"; exit 1; }
out=$(mktemp)
if ! "$SFU_TOP/scripts/guest/demo-run" "$prog" 15000000 2 > "$out" 2>&1; then
	echo "FAILED: demo-run exited non-zero:"
	cat "$out"
	exit 1
fi

# The side-by-side block: left column 60 characters, two spaces, right.
left=$(awk '/^=== perf record -g/ { on = 1; next } /^module unloaded: [0-9]/ { on = 0 }
	    on { print substr($0, 1, 60) }' "$out")
right=$(awk '/^=== perf record -g/ { on = 1; next } /^module unloaded: [0-9]/ { on = 0 }
	     on { print substr($0, 63) }' "$out")
echo "$left" | grep -q "module unloaded: frame pointers" ||
	{ echo "FAILED: no frame-pointer callchain title"; fail=1; }
echo "$right" | grep -q "module loaded: SFrame" ||
	{ echo "FAILED: no SFrame callchain title"; fail=1; }
echo "$left" | grep -qw leaf || { echo "FAILED: the frame-pointer callchain is not printed"; fail=1; }
echo "$left" | grep -qw main && { echo "FAILED: the frame-pointer callchain reaches main"; fail=1; }
# The SFrame column lists leaf, f8 .. f1, main in this order.
got=$(echo "$right" | grep -oE '\b(leaf|f[1-8]|main)\b' | tr '\n' ' ')
[ "$got" = "leaf f8 f7 f6 f5 f4 f3 f2 f1 main " ] ||
	{ echo "FAILED: SFrame callchain column reads '$got'"; fail=1; }

# "module unloaded: X of N samples in leaf have the complete chain ..."
share() { # LABEL MIN-PERCENT|- MAX-PERCENT|-
	# shellcheck disable=SC2046
	set -- "$1" "$2" "$3" $(sed -n "s/^$1: *\([0-9]*\) of \([0-9]*\) samples in leaf.*/\1 \2/p" "$out")
	if [ $# -ne 5 ]; then
		echo "FAILED: no '$1' score line"
		fail=1
	elif [ "$5" -lt 60 ]; then
		echo "FAILED: $1: only $5 samples in leaf"
		fail=1
	elif [ "$2" != - ] && [ $(($4 * 100)) -lt $(($5 * $2)) ]; then
		echo "FAILED: $1: $4 of $5 complete, below $2 %"
		fail=1
	elif [ "$3" != - ] && [ $(($4 * 100)) -ge $(($5 * $3)) ]; then
		echo "FAILED: $1: $4 of $5 complete, not below $3 %"
		fail=1
	else
		echo "ok $1: $4 of $5 samples in leaf complete"
	fi
}
share "module unloaded" - 1
share "module loaded" 99 -

# Deferred unwinding: one symbolized event and the folded stacks.
awk '/^one event, symbolized/ { on = 1; next } /^all events, folded/ { on = 0 } on' "$out" |
	grep -q main || { echo "FAILED: the symbolized event does not reach main"; fail=1; }
awk '/^all events, folded/ { on = 1; next } /^=== / { on = 0 } on' "$out" |
	grep -q 'main;f1;f2;f3;f4;f5;f6;f7;f8;leaf' ||
	{ echo "FAILED: no folded stack main;f1;..;f8;leaf"; fail=1; }

# Debian's python3 without and with sidecars.
py=$(awk '/^=== Debian.s \/usr\/bin\/python3/ { on = 1; next } on' "$out")
echo "$py" | grep -qE '^sframe-gen: installed [1-9][0-9]* sidecars .*; 0 failed$' ||
	{ echo "FAILED: sframe-gen did not install the python3 sidecars"; fail=1; }
# "without sidecars: C of S samples have a complete callchain (P %)"
pyshare() { # LABEL: "COMPLETE SAMPLES"
	echo "$py" | sed -n "s/^$1: *\([0-9]*\) of \([0-9]*\) samples have a complete callchain.*/\1 \2/p"
}
# shellcheck disable=SC2046
set -- $(pyshare "without sidecars") $(pyshare "with sidecars")
if [ $# -ne 4 ]; then
	echo "FAILED: no python3 share lines"
	fail=1
elif [ "$2" -lt 200 ] || [ "$4" -lt 200 ]; then
	echo "FAILED: python3: only $2 and $4 samples"
	fail=1
elif [ $(($3 * 100)) -lt $(($4 * 99)) ]; then
	echo "FAILED: python3 with sidecars: $3 of $4 complete, below 99 %"
	fail=1
elif [ $(($1 * 100 * $4)) -gt $((($3 * 100 - $4 * 20) * $2)) ]; then
	echo "FAILED: python3 without sidecars: $1 of $2 complete, not 20 points below $3 of $4"
	fail=1
else
	echo "ok python3: without sidecars $1 of $2 complete, with sidecars $3 of $4"
fi
# The two example callchains, side by side after the share lines.
pyleft=$(echo "$py" | awk '/^without sidecars: a broken/ { on = 1 } on { print substr($0, 1, 60) }')
pyright=$(echo "$py" | awk '/^without sidecars: a broken/ { on = 1 } on { print substr($0, 63) }')
start='(__libc_start_call_main|__libc_start_main|main|_start) '
echo "$pyright" | grep -q "^with sidecars: a complete callchain" ||
	{ echo "FAILED: no complete python3 callchain title"; fail=1; }
echo "$pyleft" | grep -q '(python3\.[0-9]*)' ||
	{ echo "FAILED: the broken python3 callchain shows no python3 frame"; fail=1; }
echo "$pyleft" | grep -qE "^$start" &&
	{ echo "FAILED: the broken python3 callchain reaches the start of main"; fail=1; }
echo "$pyright" | grep -q '(python3\.[0-9]*)' ||
	{ echo "FAILED: the complete python3 callchain shows no python3 frame"; fail=1; }
echo "$pyright" | grep -qE "^$start" ||
	{ echo "FAILED: the complete python3 callchain does not reach the start of main"; fail=1; }

[ $fail = 0 ] || { echo "demo-run printed:"; cat "$out"; }
rm -f "$out"
exit $fail
