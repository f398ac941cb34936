// SPDX-License-Identifier: GPL-2.0
/*
 * Counted task_work (see task_work.h): every queued callback holds a
 * reference to the module, taken before it is queued and dropped as the
 * last thing it does.  While any is queued, delete_module() finds the
 * module in use and fails at once (EWOULDBLOCK; rmmod: "in use"): unload
 * is never held up, and never has to take work off another task's list.
 * A task that keeps a callback queued (stopped by a signal or by its
 * tracer, or asleep in a long system call) keeps the module loaded until
 * it runs or exits; any user can do that to its own processes, as it can
 * keep a file of the module's device open.
 *
 * What the module no longer does: cancel queued work at unload with the
 * kernel's task_work_cancel_match(), which is not exported.  Found by name
 * and called through a pointer, it is an indirect call to a function that
 * vmlinux only ever calls directly: built with CONFIG_X86_KERNEL_IBT,
 * objtool seals such a function's ENDBR, and a CPU that enforces IBT
 * raises a control-protection fault on the call.  The rule, for every
 * address this module finds by name (Documentation/security.rst): never
 * call it.
 *
 * The reference is dropped inside the callback, which still has a few
 * instructions of module text to run afterwards; module exit therefore
 * waits for an RCU-tasks grace period, which ends only when every task
 * has passed through a voluntary context switch or user space.  The count
 * of callbacks queued is kept for debugfs and for a failed module init,
 * which the kernel frees without looking at the reference count: init's
 * error path waits for the count to reach zero.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/wait.h>

#include "sframe_unwind/task_work.h"

static atomic_long_t sfu_task_work_count = ATOMIC_LONG_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(sfu_task_work_wq);

/**
 * sfu_task_work_add() - queue a counted task_work
 * @task: the task to run @func in
 * @work: the callback head (owned by the caller until @func runs)
 * @func: the callback; it must call sfu_task_work_done() last
 * @mode: as for task_work_add(); TWA_RESUME, or TWA_NONE
 *
 * Takes a reference to the module for the callback: try_module_get() is
 * an atomic increment that takes no lock, safe wherever task_work_add()
 * itself is.
 *
 * Context: any; TWA_RESUME is not NMI-safe on 6.1 (use irq_work).
 * Return: 0; -ESRCH if @task is exiting, or if the module is being
 * unloaded (nothing was queued either way).
 */
int sfu_task_work_add(struct task_struct *task, struct callback_head *work,
		      task_work_func_t func, enum task_work_notify_mode mode)
{
	int err;

	if (!try_module_get(THIS_MODULE))
		return -ESRCH;
	init_task_work(work, func);
	atomic_long_inc(&sfu_task_work_count);
	err = task_work_add(task, work, mode);
	if (err)
		sfu_task_work_done();
	return err;
}

/**
 * sfu_task_work_done() - a counted task_work has finished
 *
 * Called by every callback queued with sfu_task_work_add() as its last
 * action (and by sfu_task_work_add() when it could not queue): drops the
 * callback's count and module reference.
 */
void sfu_task_work_done(void)
{
	if (atomic_long_dec_and_test(&sfu_task_work_count))
		wake_up_all(&sfu_task_work_wq);
	module_put(THIS_MODULE);
}

/**
 * sfu_task_work_pending() - counted task_works not yet finished
 *
 * Return: the count (for debugfs statistics and tests).
 */
long sfu_task_work_pending(void)
{
	return atomic_long_read(&sfu_task_work_count);
}

/**
 * sfu_task_work_drain() - no counted task_work pending
 *
 * At module exit there is none: the module's reference count was zero
 * when unload began, and each queued callback holds a reference until it
 * has dropped its count.  What is left are callbacks past
 * sfu_task_work_done(), whose last instructions the RCU-tasks grace
 * period waits for.  After a failed module init it waits for every
 * queued callback to run, saying so every 10 s: the kernel frees the
 * module when init fails, whatever its reference count.
 *
 * Context: module exit or init's error path, after every source of new
 * work is gone.
 */
void sfu_task_work_drain(void)
{
	unsigned int waited = 0;

	while (!wait_event_timeout(sfu_task_work_wq, !atomic_long_read(&sfu_task_work_count),
				   HZ)) {
		if (!(++waited % 10))
			pr_warn("waiting for %ld pending task_work callbacks\n",
				atomic_long_read(&sfu_task_work_count));
	}
	synchronize_rcu_tasks();
}
