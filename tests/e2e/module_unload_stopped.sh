#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Unload is bounded, whatever unprivileged users leave behind: a stopped
# child of uid 65534 holds an SFU_IOC_UNWIND_TASK request (a task_work
# that runs module code) and keeps it queued, stopped, while rmmod runs.
# rmmod must finish within 20 s (it cancels the request), and the module
# must load again; vm-run's kernel-log check catches any warning, leak or
# use after free.
set -eu
. ./unwind-lib
ko=$SFU_MODULE_DIR/sframe_unwind.ko
d=/sys/kernel/debug/sframe_unwind
release=/tmp/unload-stopped.release
out=/tmp/unload-stopped.out
rm -f $release
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

"$check" hold $release > $out 2>&1 &
holder=$!
i=0
until grep -q '^held ' $out; do
	i=$((i + 1))
	if [ $i -gt 300 ] || ! kill -0 $holder 2>/dev/null; then
		cat $out
		echo "module_unload_stopped: no request held"
		exit 1
	fi
	sleep 0.1
done
[ "$(awk '$1 == "remote_pending" { print $2 }' $d/device_stats)" -ge 1 ] ||
	{ echo "module_unload_stopped: the request is not pending"; fail=1; }

t0=$(ms)
rmmod sframe_unwind || { echo "module_unload_stopped: rmmod failed"; fail=1; }
t=$(( $(ms) - t0 ))
echo "rmmod took $t ms with a stopped task holding a request"
[ $t -lt 20000 ] || { echo "module_unload_stopped: rmmod took $t ms"; fail=1; }
dmesg | grep -q 'cancelled [0-9]* pending task_work' ||
	{ echo "module_unload_stopped: the request was not cancelled"; fail=1; }

# The child is let go (and killed) with the module gone: nothing of it runs.
touch $release
wait $holder || { echo "module_unload_stopped: the holder failed"; fail=1; }
insmod "$ko" || { echo "module_unload_stopped: insmod failed"; exit 1; }
exit $fail
