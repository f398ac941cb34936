#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Unload is bounded, whatever unprivileged users leave behind, and never
# calls a kernel function found by name.  A stopped child of uid 65534 is
# unwound where it stopped (nothing queued); then, with the module made to
# queue (remote_queue_always, as for a running target), it holds an
# SFU_IOC_UNWIND_TASK request (a task_work that runs module code) and
# keeps it queued, stopped.  rmmod must fail at once (the request holds a
# module reference: in use, within 20 s under TCG) without cancelling: a
# kprobe on the kernel's task_work_cancel_match() must never fire with
# delete_module() or the module's code on its stack, where unload used to
# call it through a pointer found by name (an indirect call that IBT
# forbids).  Once the child is let go (killed: its task_work runs
# at exit), rmmod succeeds within 20 s and the module loads again;
# vm-run's kernel-log check catches any warning, leak or use after free.
# The test build's alone: the product has no remote_queue_always, and
# nothing else makes a stopped thread hold a request (skipped there).
# e2e-build: test
set -eu
. ./unwind-lib
if [ ! -e /sys/kernel/debug/sframe_unwind/remote_queue_always ]; then
	echo "no remote_queue_always: the test build's (make SFU_TEST=1), not the product's"
	exit 77
fi
ko=$SFU_MODULE_DIR/sframe_unwind.ko
d=/sys/kernel/debug/sframe_unwind
release=/tmp/unload-stopped.release
out=/tmp/unload-stopped.out
tr=/sys/kernel/tracing
[ -d $tr/events ] || tr=/sys/kernel/debug/tracing
rm -f $release $release.queue
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
wait_line() { # prefix
	i=0
	until grep -q "^$1 " $out; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 $holder 2>/dev/null; then
			cat $out
			echo "module_unload_stopped: no '$1' line"
			exit 1
		fi
		sleep 0.1
	done
}

# A kprobe on the function unload used to call: it must never fire.
probe=
# The kernel calls it too (on 7.2 at every task exit, for upstream's
# deferred unwinding): each hit's stack says whether unload made it.
if [ -w $tr/kprobe_events ] && echo 'p:sfu_cancel task_work_cancel_match' >> $tr/kprobe_events; then
	probe=$tr/events/kprobes/sfu_cancel
	echo > $tr/trace
	echo stacktrace > $probe/trigger
	echo 1 > $probe/enable
else
	echo "no kprobe events: task_work_cancel_match() is not watched"
fi
# hits: "ALL FROM_UNLOAD": the calls, and those with delete_module() or the
# module's code on their stack
hits() {
	awk '/ sfu_cancel: / { n++; if (mod) u++; mod = 0; next }
	     /=> / && /delete_module|free_module|\[sframe_unwind\]/ { mod = 1 }
	     END { if (mod) u++; print n + 0, u + 0 }' $tr/trace
}

"$check" hold $release > $out 2>&1 &
holder=$!
wait_line unwound
echo "a stopped child unwound where it stopped"
[ "$(awk '$1 == "remote_pending" { print $2 }' $d/device_stats)" = 0 ] ||
	{ echo "module_unload_stopped: a request is queued on the stopped child"; fail=1; }
echo 1 > $d/remote_queue_always
touch $release.queue
wait_line held
echo 0 > $d/remote_queue_always
[ "$(awk '$1 == "remote_pending" { print $2 }' $d/device_stats)" -ge 1 ] ||
	{ echo "module_unload_stopped: the request is not pending"; cat $out; fail=1; }

t0=$(ms)
if rmmod sframe_unwind 2> /tmp/unload-stopped.err; then
	echo "module_unload_stopped: rmmod succeeded with a request queued"
	fail=1
else
	echo "rmmod refused: $(cat /tmp/unload-stopped.err)"
fi
t=$(( $(ms) - t0 ))
echo "rmmod took $t ms with a stopped task holding a request"
[ $t -lt 20000 ] || { echo "module_unload_stopped: rmmod took $t ms"; fail=1; }
! dmesg | grep -q 'cancelled [0-9]* pending task_work' ||
	{ echo "module_unload_stopped: unload cancelled task_work"; fail=1; }

# The child is let go (killed): its request ends at its exit, and with it
# the module reference.
touch $release
wait $holder || { echo "module_unload_stopped: the holder failed"; fail=1; }
rm -f $release $release.queue
t0=$(ms)
while [ -e /sys/module/sframe_unwind ] && [ $(( $(ms) - t0 )) -lt 20000 ]; do
	rmmod sframe_unwind 2> /dev/null || sleep 0.2
done
t=$(( $(ms) - t0 ))
if [ -e /sys/module/sframe_unwind ]; then
	echo "module_unload_stopped: rmmod still refused $t ms after the child died"
	fail=1
else
	echo "rmmod took $t ms after the child died"
fi
if [ -n "$probe" ]; then
	echo 0 > $probe/enable
	set -- $(hits)
	echo '!stacktrace' > $probe/trigger
	echo '-:sfu_cancel' >> $tr/kprobe_events
	echo "task_work_cancel_match() called $1 times, $2 from unload"
	[ "$2" = 0 ] || { echo "module_unload_stopped: unload called task_work_cancel_match()"; fail=1; }
fi
[ -e /sys/module/sframe_unwind ] || insmod "$ko" ||
	{ echo "module_unload_stopped: insmod failed"; exit 1; }
exit $fail
