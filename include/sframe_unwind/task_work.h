/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counted task_work.  A callback that runs after the module is gone jumps
 * into freed memory.  Every task_work the module queues goes through
 * sfu_task_work_add(), which takes a module reference for it, and every
 * callback calls sfu_task_work_done() as its very last action, which
 * drops it: while any is queued the module cannot be unloaded (rmmod
 * fails at once: in use), and sfu_task_work_drain() at exit only waits
 * for the last instructions of callbacks that have just finished.
 */
#ifndef _SFRAME_UNWIND_TASK_WORK_H
#define _SFRAME_UNWIND_TASK_WORK_H

#include <linux/task_work.h>

int sfu_task_work_add(struct task_struct *task, struct callback_head *work,
		      task_work_func_t func, enum task_work_notify_mode mode);
void sfu_task_work_done(void);
void sfu_task_work_drain(void);
long sfu_task_work_pending(void);

#endif /* _SFRAME_UNWIND_TASK_WORK_H */
