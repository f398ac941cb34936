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
 *
 * A task stopped by a signal or by its tracer (any user can stop its own
 * processes, and ptrace stops a task at syscall exit before it reaches
 * its task_work) runs nothing until it is let go: waiting for it would
 * let any user hold module unload forever.  After a short grace, unload
 * takes what is left off the tasks' lists with the kernel's
 * task_work_cancel_match() and runs each callback itself, in the
 * unloading task, where sfu_task_work_cancelled() tells the callback to
 * let go of its work as it would in a task that exits.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "sframe_unwind/task_work.h"

/* How long unload lets queued task_work run before it cancels the rest. */
#define SFU_TASK_WORK_GRACE	(HZ / 10)

static atomic_long_t sfu_task_work_count = ATOMIC_LONG_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(sfu_task_work_wq);
/* The unloading task while it runs cancelled callbacks. */
static struct task_struct *sfu_task_work_canceller;

typedef struct callback_head *(*sfu_cancel_match_fn)(struct task_struct *task,
						      bool (*match)(struct callback_head *,
								    void *),
						      void *data);

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
 * sfu_task_work_cancelled() - is this callback being cancelled at unload?
 *
 * Return: true when a counted callback runs in the unloading task, not in
 * the task it was queued for: it must drop its work (as when that task
 * exits) and touch neither current nor its mm.
 */
bool sfu_task_work_cancelled(void)
{
	return READ_ONCE(sfu_task_work_canceller) == current;
}

/*
 * The kernel's task_work_cancel_match(), which is not exported: found by
 * name through a kprobe that is never armed.  The probe's address may lie
 * past the function's first instruction (an x86 ENDBR): its symbol's
 * offset says where the function starts.
 */
static sfu_cancel_match_fn sfu_find_cancel_match(void)
{
	static const char name[] = "task_work_cancel_match";
	struct kprobe kp = { .symbol_name = name, .flags = KPROBE_FLAG_DISABLED };
	char sym[KSYM_SYMBOL_LEN];
	unsigned long addr, off;

	if (register_kprobe(&kp))
		return NULL;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	sprint_symbol(sym, addr);
	if (strncmp(sym, name, sizeof(name) - 1) || sym[sizeof(name) - 1] != '+' ||
	    sscanf(sym + sizeof(name), "%lx/", &off) != 1 || off > addr)
		return NULL;
	return (sfu_cancel_match_fn)(addr - off);
}

/* A callback of this module, queued by sfu_task_work_add(). */
static bool sfu_task_work_ours(struct callback_head *cb, void *data)
{
	return within_module((unsigned long)cb->func, THIS_MODULE);
}

/*
 * Take every callback of this module off every task's list and run it
 * here, cancelled.  A task running its list meanwhile keeps what it took
 * (task_work_cancel_match() and task_work_run() agree on that); new
 * threads start with an empty list.
 */
static unsigned int sfu_task_work_cancel_all(sfu_cancel_match_fn cancel)
{
	struct callback_head *list = NULL, *cb;
	struct task_struct *g, *t;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		while ((cb = cancel(t, sfu_task_work_ours, NULL))) {
			cb->next = list;
			list = cb;
		}
	}
	rcu_read_unlock();

	WRITE_ONCE(sfu_task_work_canceller, current);
	while (list) {
		cb = list;
		list = cb->next;
		cb->func(cb);
		n++;
	}
	WRITE_ONCE(sfu_task_work_canceller, NULL);
	return n;
}

/**
 * sfu_task_work_drain() - no counted task_work pending, in bounded time
 *
 * Waits up to 100 ms (less if the unloading task gets a signal) for queued
 * callbacks to run in their tasks, then cancels those still queued: on
 * tasks stopped by a signal or a tracer, or in a long system call.  What
 * is left after that are callbacks running right now, which finish.
 * Only if the kernel's task_work_cancel_match() cannot be found does
 * unload wait as long as it takes, saying so every 10 s.
 *
 * Context: module exit, after every source of new work is gone.
 */
void sfu_task_work_drain(void)
{
	sfu_cancel_match_fn cancel = NULL;
	unsigned int waited = 0, n;

	if (wait_event_interruptible_timeout(sfu_task_work_wq,
					     !atomic_long_read(&sfu_task_work_count),
					     SFU_TASK_WORK_GRACE) > 0)
		goto out;
	cancel = sfu_find_cancel_match();
	if (!cancel)
		pr_warn("cannot cancel task_work: unload waits until it has run\n");
	while (atomic_long_read(&sfu_task_work_count)) {
		if (cancel) {
			n = sfu_task_work_cancel_all(cancel);
			if (n)
				pr_info("unload cancelled %u pending task_work callbacks\n", n);
		}
		if (wait_event_timeout(sfu_task_work_wq, !atomic_long_read(&sfu_task_work_count),
				       HZ))
			break;
		if (!(++waited % 10))
			pr_warn("unload waits for %ld pending task_work callbacks\n",
				atomic_long_read(&sfu_task_work_count));
	}
out:
	synchronize_rcu_tasks();
}
