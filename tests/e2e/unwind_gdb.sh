#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stopped processes unwound by SFU_IOC_UNWIND_TASK (tools/sframe-stack -n)
# give gdb's backtrace of the same stopped thread, frame for frame: the
# same return addresses from the blocking call in libc to _start.
# Debian's sqlite3, perl and python3 (no .sframe) each block in read() on
# a FIFO, with sidecars made by tools/sframe-gen for them and their
# libraries; each is unwound SIGSTOPped, then again while gdb holds it
# (gdb's "shell" runs sframe-stack with the process stopped under gdb),
# and both unwinds are compared with gdb's backtrace of that moment.
# Before remote unwinds neither could be unwound (ETIMEDOUT).  x86_64
# only: the guest runs the host's gdb and programs.
. ./unwind-lib

if [ "$arch" != x86_64 ]; then
	echo "x86_64 only: gdb and the programs run from the host's root: skip"
	exit 77
fi
for p in gdb sqlite3 perl python3; do
	command -v $p > /dev/null || { echo "no $p (scripts/install-deps): skip"; exit 77; }
done
stack=$SFU_TOP/tools/sframe-stack
gen=$SFU_TOP/tools/sframe-gen
param=/sys/module/sframe_unwind/parameters/sidecar_dir
old_dir=$(cat $param)
sc=$(mktemp -d /tmp/sfu-gdb.XXXXXX)
chmod 755 "$sc"
bad() { echo "FAILED: $*"; fail=1; }

sqlite=$(command -v sqlite3)
perl=$(command -v perl)
python=$(readlink -f /usr/bin/python3)
for p in "$sqlite" "$perl" "$python"; do
	ldd "$p" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'
	readlink -f "$p"
done | sort -u > "$sc.files"
# shellcheck disable=SC2046
"$gen" --install --cache "$sc" $(cat "$sc.files") > /dev/null || bad "sframe-gen --install"
echo "$sc" > $param

# The return addresses gdb sees in the stopped thread PID, one a line; with
# CMD, what gdb's shell runs first, while it holds the thread.  gdb
# unwinds from .eh_frame, as the sidecars were made: separate debug info
# (libc's, where the host has it) is not read, which takes minutes under
# TCG, and gdb's virtual frames, the inlined calls and tail calls it
# reconstructs from debug info, which have no frame of their own on the
# stack, are left out.
gdb_py='f = gdb.newest_frame()
while f is not None:
    if f.type() not in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME):
        print("frame %x" % f.pc())
    f = f.older()'
gdb_pcs() { # pid [cmd]
	gdb -q -batch -nx -iex 'set debuginfod enabled off' \
		-iex 'set debug-file-directory /nonexistent' \
		-ex 'set backtrace past-main on' -ex 'set backtrace past-entry on' \
		${2:+-ex "shell $2"} -ex "python exec('''$gdb_py''')" -p "$1" 2> /dev/null |
		sed -n 's/^frame \([0-9a-f]*\)$/\1/p'
}
# sframe-stack's addresses of the thread PID, one a line, and its stop line
sfs_pcs() { # file
	sed -n 's/^#[0-9]* *0x0*\([0-9a-f]*\).*/\1/p' "$1"
}

compare() { # what pid ours gdb
	n=$(wc -l < "$4")
	if [ "$n" -lt 3 ]; then
		bad "$1: gdb saw $n frames"
	elif ! grep -q '^stop: outermost' "$3.out"; then
		bad "$1: sframe-stack: $(grep '^stop:' "$3.out" || head -n 1 "$3.out")"
		sed 's/^/    /' "$3.out"
	elif ! cmp -s "$3" "$4"; then
		bad "$1: sframe-stack and gdb differ (left: module, right: gdb)"
		paste "$3" "$4" | sed 's/^/    /'
	else
		echo "ok $1: $n frames, as gdb's"
	fi
}

fifo=$sc/fifo
mkfifo "$fifo"
for prog in sqlite perl python; do
	case $prog in
	sqlite) "$sqlite" < "$fifo" > /dev/null & ;;
	perl) "$perl" -e 'sub a { b() } sub b { sysread(STDIN, my $x, 1) } a()' < "$fifo" & ;;
	python) "$python" -c 'import sys; sys.stdin.buffer.raw.read(1)' < "$fifo" & ;;
	esac
	pid=$!
	exec 3> "$fifo"
	i=0
	until [ "$(awk '{ print $3 }' /proc/$pid/stat 2> /dev/null)" = S ] &&
	      grep -q 'sys_read\|pipe_read\|wait' /proc/$pid/wchan 2> /dev/null ||
	      [ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done

	# SIGSTOPped: the module's unwind; then, gdb holding the same stopped
	# thread, the module's again from gdb's shell, and gdb's backtrace.
	kill -STOP $pid
	"$stack" -n $pid $pid > "$sc/$prog.stop.out" 2>&1 || bad "$prog: sframe-stack exited $?"
	sfs_pcs "$sc/$prog.stop.out" > "$sc/$prog.stop"
	gdb_pcs $pid "$stack -n $pid $pid > $sc/$prog.held.out 2>&1" > "$sc/$prog.gdb"
	sfs_pcs "$sc/$prog.held.out" > "$sc/$prog.held"
	compare "$prog SIGSTOPped" $pid "$sc/$prog.stop" "$sc/$prog.gdb"
	compare "$prog held by gdb" $pid "$sc/$prog.held" "$sc/$prog.gdb"
	kill -CONT $pid

	exec 3>&-
	kill $pid 2> /dev/null
	wait $pid 2> /dev/null
done
echo "$old_dir" > $param
rm -rf "$sc" "$sc.files"
exit $fail
