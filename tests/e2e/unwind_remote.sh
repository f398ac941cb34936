#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# SFU_IOC_UNWIND_TASK must not perturb the thread it unwinds
# (tests/e2e/progs/remote-check.c, Documentation/uapi.rst):
#
#   epoll    a child blocked in epoll_pwait() with a 60 s timeout,
#            unwound 1,000 times: every unwind gives the child's own
#            return addresses, from SFrame, and the wait returns only for
#            the event sent after the last unwind (no EINTR, no early
#            wake-up)
#   stopped  the same child stopped by SIGSTOP, unwound 200 times (the
#            stop itself ends its wait, with EINTR, as the kernel does)
#   traced   the same child stopped by its tracer, unwound 200 times
#   spin     a child spinning in user space, which serves the requests
#            itself, unwound 50 times
#
# Before remote unwinds the requests were task_work queued with
# TWA_SIGNAL: epoll_pwait() returned EINTR at the first unwind, and a
# stopped child never served its request (ETIMEDOUT after 5 s).
. ./unwind-lib

rc_bin=$SFU_TOP/build/e2e/$(uname -m)/remote-check
[ -x "$rc_bin" ] || { echo "no $rc_bin: run-e2e builds tests/e2e/progs"; exit 1; }
for c in "epoll 1000" "stopped 200" "traced 200" "spin 50"; do
	# shellcheck disable=SC2086
	if out=$("$rc_bin" $c 2>&1); then
		echo "ok $c: $out"
	else
		echo "FAILED: remote-check $c"
		echo "$out" | sed 's/^/    /'
		fail=1
	fi
done
[ "$(awk '$1 == "remote_pending" { print $2 }' /sys/kernel/debug/sframe_unwind/device_stats)" = 0 ] ||
	{ echo "FAILED: requests left queued"; fail=1; }
exit $fail
