// SPDX-License-Identifier: GPL-2.0
/*
 * Counted task_work (see task_work.h): the count goes up before a work is
 * queued and down as the last thing its callback does, so when it reaches
 * zero no callback can still be about to run module code.
 *
 * The final decrement happens inside the callback, which still has a few
 * instructions of module text to run afterwards; module exit therefore also
 * waits for an RCU-tasks grace period, which ends only when every task
 * has passed through a voluntary context switch or user space.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
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
 * @mode: as for task_work_add()
 *
 * Context: any; TWA_SIGNAL/TWA_RESUME are not NMI-safe on 6.1 (use irq_work).
 * Return: 0, or -ESRCH if @task is exiting (nothing was queued).
 */
int sfu_task_work_add(struct task_struct *task, struct callback_head *work,
		      task_work_func_t func, enum task_work_notify_mode mode)
{
	int err;

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
 * action, and by code that decides not to queue after all.
 */
void sfu_task_work_done(void)
{
	if (atomic_long_dec_and_test(&sfu_task_work_count))
		wake_up_all(&sfu_task_work_wq);
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
 * sfu_task_work_drain() - wait until no counted task_work is pending
 *
 * Context: module exit, after every source of new work is gone.  A task
 * that never returns to user space holds this up: say so every 10 s.
 */
void sfu_task_work_drain(void)
{
	while (!wait_event_timeout(sfu_task_work_wq,
				   !atomic_long_read(&sfu_task_work_count), 10 * HZ))
		pr_warn("unload waits for %ld pending task_work callbacks\n",
			atomic_long_read(&sfu_task_work_count));
	synchronize_rcu_tasks();
}
