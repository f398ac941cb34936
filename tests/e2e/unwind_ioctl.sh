#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The unwind ioctls themselves: SFU_IOC_UNWIND_SELF; SFU_IOC_UNWIND_TASK on
# missing threads, kernel threads, our own thread, another user's process
# (EPERM), a stopped target (ETIMEDOUT), an interrupted waiter (EINTR), a
# target killed or exec'ing with a request queued (ESRCH); afterwards no
# request may be left queued.
. ./unwind-lib

run self
run edges "$e2e/chain-fp"
exit $fail
