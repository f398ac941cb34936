#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The unwind ioctls themselves: SFU_IOC_UNWIND_SELF; SFU_IOC_UNWIND_TASK on
# missing threads, kernel threads, our own thread, another user's process
# (EPERM), a stopped target (ETIMEDOUT), an interrupted waiter (EINTR), a
# target killed or exec'ing with a request queued (ESRCH); afterwards no
# request may be left queued.  Then who may unwind whom (perm): with Yama's
# ptrace_scope at 1 where the kernel has Yama, an unprivileged process of
# the same user that is not an ancestor of the target gets EPERM (no fd,
# an fd of another procfs file or of its own mm; it cannot open the
# target's /proc/PID/mem); an unprivileged parent unwinds its child with
# the child's /proc/PID/mem fd and gets EPERM without it; an fd opened
# before the target exec'd a setuid-root program allows nothing after.
# Then what callers can leave queued on a stopped target (flood): four
# requests per target thread and four per calling process, EBUSY past
# them, a request asked for again waited on where it was left; an
# unprivileged user's 1,000 requests, in a 50 MB memory cgroup where the
# kernel has the controller.
#
# The queued path (edges' stopped target made to queue, flood) needs the
# test build's debugfs remote_queue_always: nothing else makes a stopped
# target hold a request.  With the product (scripts/run-e2e --product, or
# DKMS's module), edges and flood leave it out.
# e2e-build: test
. ./unwind-lib

run self
run edges "$e2e/chain-fp"
run perm "$e2e/chain-fp"
run flood "$e2e/chain-fp"
exit $fail
