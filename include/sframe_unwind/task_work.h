/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counted task_work.  A callback that runs after the module is gone jumps
 * into freed memory.  Every task_work the module queues goes through
 * sfu_task_work_add(), and every callback calls sfu_task_work_done() as
 * its very last action; module exit lets pending callbacks run for a
 * moment, then cancels the rest (sfu_task_work_drain()): a cancelled
 * callback runs in the unloading task, sfu_task_work_cancelled() true, and
 * must only let go of its work.
 */
#ifndef _SFRAME_UNWIND_TASK_WORK_H
#define _SFRAME_UNWIND_TASK_WORK_H

#include <linux/task_work.h>

int sfu_task_work_add(struct task_struct *task, struct callback_head *work,
		      task_work_func_t func, enum task_work_notify_mode mode);
void sfu_task_work_done(void);
void sfu_task_work_drain(void);
bool sfu_task_work_cancelled(void);
long sfu_task_work_pending(void);

#endif /* _SFRAME_UNWIND_TASK_WORK_H */
