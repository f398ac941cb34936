// SPDX-License-Identifier: GPL-2.0
/*
 * Reads of another task's user memory, for unwinds of a task that is not
 * running (SFU_IOC_UNWIND_TASK on a blocked or stopped thread).  The one
 * way the module reads an mm other than current's: access_process_vm(),
 * exported, which walks the task's page tables under its mmap lock and
 * faults pages in as the task would.  No FOLL_FORCE: a page the task
 * cannot read (PROT_NONE, a guard page) fails the read, as it would in
 * the task.
 */
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/sched.h>

#include "sframe_unwind/lib.h"

/**
 * sfu_remote_read() - copy from another task's user memory
 * @task: the task, which the caller holds a reference to
 * @addr: user address in @task's mm
 * @dst: kernel destination
 * @len: bytes
 *
 * Context: process context, may sleep; not under RCU or a spinlock.
 * Return: 0, or -EFAULT if any byte could not be read (or @task has no mm).
 */
int sfu_remote_read(struct task_struct *task, unsigned long addr, void *dst, size_t len)
{
	if (len > INT_MAX || access_process_vm(task, addr, dst, len, 0) != (int)len)
		return -EFAULT;
	return 0;
}
