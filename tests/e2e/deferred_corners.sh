#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Deferred unwinding at the edges of a task's life, driven by the
# sys_enter trigger (which requests at the entry of a chosen system call
# of a chosen process), each checked in <debugfs>/sframe_unwind/deferred_stats:
#
#   exit    a request made at exit_group() is dropped as dropped_exit
#   exec    a request made at execve() is dropped as dropped_exec
#   fork    a request made at clone() is delivered once, to the parent
#   signal  a request pending while a signal handler is set up is delivered
#   idle    1,100 threads of one process each make a request at getppid()
#           and then sleep: each is delivered, none refused for want of a
#           slot, and the idle threads hold no slot (slots_used)
#   unload  rmmod fails at once while a task that sleeps in nanosleep still
#           has a request pending (its task_work holds a module reference:
#           lib/task_work.c), and succeeds once the task has run it (at
#           its exit, killed); then the module loads again
#
# and at the end every request is accounted for: requests = rejected_* +
# already + delivered + dropped_*.
set -u
d=/sys/kernel/debug/sframe_unwind
fail=0
case $(uname -m) in
x86_64) nr_exit_group=231 nr_execve=59 nr_clone=56 nr_openat=257 ;;
aarch64) nr_exit_group=94 nr_execve=221 nr_clone=220 nr_openat=56 ;;
*) echo "unknown architecture"; exit 77 ;;
esac

stat() { awk -v k="$1" '$1 == k { print $2 }' $d/deferred_stats; }
sum() { awk -v p="$1" 'index($1, p) == 1 { s += $2 } END { print s + 0 }' $d/deferred_stats; }
expect() { # what counter before want
	now=$(stat "$2")
	if [ "$((now - $3))" = "$4" ]; then
		echo "ok $1: $2 +$4"
	else
		echo "FAILED: $1: $2 went from $3 to $now, want +$4; the counters and the trigger now:"
		sed 's/^/    /' $d/deferred_stats $d/trigger
		fail=1
	fi
}
hits() { sed -n 's/.*hits=\([0-9]*\).*/\1/p' $d/trigger; }
wait_hit() { # until the trigger counts more than $1 hits
	i=0
	while [ "$(hits)" -le "$1" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
settle() { # until no counted task_work is pending
	i=0
	while [ "$(stat task_work_pending)" != 0 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# exit: the shell arms the trigger on itself, then exits.
before=$(stat dropped_exit)
delivered=$(stat delivered)
sh -c "echo 'sys_enter pid='\$\$' nr=$nr_exit_group' > $d/trigger; exit 0"
echo off > $d/trigger
settle
expect exit dropped_exit "$before" 1
expect exit delivered "$delivered" 0

# exec: the same at execve(); the new program is not the one asked about.
before=$(stat dropped_exec)
delivered=$(stat delivered)
# (By absolute path: a shell's search of PATH makes failing execve calls,
# whose requests are delivered.)
sh -c "echo 'sys_enter pid='\$\$' nr=$nr_execve' > $d/trigger; exec /bin/sh -c :"
echo off > $d/trigger
settle
expect exec dropped_exec "$before" 1
expect exec delivered "$delivered" 0

# fork: one clone() (the child runs true); the parent gets the callback.
delivered=$(stat delivered)
sh -c "echo 'sys_enter pid='\$\$' nr=$nr_clone' > $d/trigger; true & wait"
echo off > $d/trigger
settle
expect fork delivered "$delivered" 1

# signal: blocked opening a FIFO with a request pending, interrupted by
# a signal whose handler the shell installed; the request is delivered.
delivered=$(stat delivered)
rm -f /tmp/deferred-fifo
mkfifo /tmp/deferred-fifo
h=$(hits)
sh -c "trap 'exit 0' USR1; echo 'sys_enter pid='\$\$' nr=$nr_openat' > $d/trigger; read x < /tmp/deferred-fifo" 2>/dev/null &
pid=$!
wait_hit "$h"
sleep 0.5
kill -USR1 $pid
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 $pid 2>/dev/null; then
	echo "FAILED: signal: the shell did not leave open() on SIGUSR1"
	kill -9 $pid
	fail=1
fi
wait $pid
rm -f /tmp/deferred-fifo
echo off > $d/trigger
settle
expect signal delivered "$delivered" 1

# idle: more threads than slots, each served once, then asleep.  A slot
# is the task's only while a request is outstanding.
case $(uname -m) in aarch64) fx=aarch64 ;; *) fx=x86_64 ;; esac
idle_bin=$SFU_TOP/build/e2e/$fx/idle-threads
nthreads=1100
rejected=$(stat rejected_no_slot)
delivered=$(stat delivered)
rm -f /tmp/idle-fifo /tmp/idle-out
mkfifo /tmp/idle-fifo
"$idle_bin" $d/trigger $nthreads < /tmp/idle-fifo > /tmp/idle-out &
pid=$!
exec 3> /tmp/idle-fifo
i=0
while ! grep -q ready /tmp/idle-out && kill -0 $pid 2>/dev/null && [ $i -lt 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
settle
used=$(stat slots_used)
if grep -q "ready $nthreads" /tmp/idle-out; then
	expect idle rejected_no_slot "$rejected" 0
	expect idle delivered "$delivered" $nthreads
	if [ "$used" -le 16 ]; then
		echo "ok idle: $nthreads idle threads, $used slots held"
	else
		echo "FAILED: idle: $nthreads idle threads hold $used slots"
		fail=1
	fi
else
	echo "FAILED: idle: idle-threads did not get ready" \
		"($(stat rejected_no_slot) refused, $used slots held)"
	echo off > $d/trigger
	fail=1
fi
exec 3>&-
wait $pid
rm -f /tmp/idle-fifo /tmp/idle-out

# Accounting, before the unload resets the counters.
settle
requests=$(stat requests)
ended=$(( $(sum rejected_) + $(stat already) + $(stat delivered) + $(sum dropped_) ))
if [ "$requests" = "$ended" ]; then
	echo "ok accounting: $requests requests, all ended"
else
	echo "FAILED: accounting: $requests requests, $ended ended"
	cat $d/deferred_stats
	fail=1
fi

# unload: a process asleep with a request pending (made at every system
# call entry of its own, the last one nanosleep); rmmod must fail at once,
# then succeed once the process has ended and run its request (killed: its
# task_work runs at exit).  The request counts once the process sleeps in
# sleep(1): before, its start-up's system calls each end their requests.
# It sleeps far longer than the test waits for it, so that a slow guest
# cannot see it wake between the check and rmmod.
h=$(hits)
sh -c "echo 'sys_enter pid='\$\$ > $d/trigger; exec sleep 120" &
pid=$!
wait_hit "$h"
i=0
pending=0
while [ $i -lt 100 ]; do
	if [ "$(cat /proc/$pid/comm 2> /dev/null)" = sleep ] &&
	   [ "$(awk '{ print $3 }' /proc/$pid/stat 2> /dev/null)" = S ]; then
		pending=$(stat task_work_pending)
		[ "$pending" -lt 1 ] || break
	fi
	sleep 0.1
	i=$((i + 1))
done
t0=$(date +%s)
if rmmod sframe_unwind 2> /dev/null; then
	echo "FAILED: rmmod succeeded with $pending task_work pending"
	fail=1
elif [ $(( $(date +%s) - t0 )) -gt 20 ]; then
	echo "FAILED: rmmod with a request pending took $(( $(date +%s) - t0 )) s to fail"
	fail=1
else
	echo "ok unload: rmmod with $pending task_work pending refused at once"
fi
kill $pid
wait $pid
if [ -e /sys/module/sframe_unwind ] && ! rmmod sframe_unwind; then
	echo "FAILED: rmmod after the request ran"
	fail=1
fi
[ -e /sys/module/sframe_unwind ] || insmod "$SFU_MODULE_DIR/sframe_unwind.ko" || {
	echo "FAILED: insmod after the unload"
	fail=1
}
[ "$pending" -ge 1 ] || { echo "FAILED: unload: no task_work was pending"; fail=1; }
exit $fail
