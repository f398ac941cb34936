// SPDX-License-Identifier: GPL-2.0
/*
 * The unwinder's walk (see unwind.h): one loop and the interfaces built
 * on it.
 *
 * One state, one loop: start from the task's registers, then step from
 * each frame to its caller (step.c) and hand the frame to the caller of
 * the walk, until a step ends the walk, the caller declines or the depth
 * limit is reached.  The array interfaces, the callback one and the
 * unwind of another task all run that loop, sfu_walk().
 *
 * With SFU_UNWIND_NOFAULT every read of user memory (section, stack and
 * instruction bytes) is a no-fault read, and the walk takes no lock and
 * never sleeps: it may run in IRQ or NMI context.
 */
#include <linux/export.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>

#include "sframe_unwind/registry.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/arch.h"
#include "sframe_unwind/unwind.h"
#include "sframe_unwind/compat/export.h"
#include "internal.h"
#include "ra_check.h"

static unsigned int sfu_max_depth = SFU_UNWIND_DEFAULT_DEPTH;

static int sfu_max_depth_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, SFU_UNWIND_MAX_DEPTH);
}

static const struct kernel_param_ops sfu_max_depth_ops = {
	.set = sfu_max_depth_set,
	.get = param_get_uint,
};
module_param_cb(max_depth, &sfu_max_depth_ops, &sfu_max_depth, 0644);
MODULE_PARM_DESC(max_depth,
		 "Most frames an ioctl or deferred unwind returns (1-4096, default 127)");

/**
 * sfu_unwind_depth_limit() - the max_depth module parameter
 *
 * Return: the most frames an unwind into an array stores (the module's
 * ioctls and deferred walks; sfu_unwind_user_walk() has its caller's).
 */
unsigned int sfu_unwind_depth_limit(void)
{
	return READ_ONCE(sfu_max_depth);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_unwind_depth_limit);

/* @task: NULL for current, whose mm is @mm. */
static void sfu_unwind_start(struct sfu_unwind_state *st, struct task_struct *task,
			     struct mm_struct *mm, struct pt_regs *regs, unsigned int flags,
			     struct sfu_lookup *rows)
{
	int reason;

	memset(st, 0, sizeof(*st));
	st->flags = flags;
	st->rows = rows;
	st->mm = mm;
	st->task = task;
	if (task)
		sfu_lookup_begin_remote(rows, task, mm);
	else
		sfu_lookup_begin(rows, mm);
	st->regs = regs;
	st->topmost = true;
	st->sp_exact = true;
	st->method = SFU_METHOD_REGS;
	st->scan_left = SFU_FP_SCAN_BUDGET;
	st->switches_left = SFU_STACK_SWITCHES;
	if (!regs || !mm) {
		sfu_unwind_stop(st, SFU_END_NOT_USER);
		return;
	}
	reason = sfu_arch_start(st, regs);
	if (reason) {
		sfu_unwind_stop(st, reason);
		return;
	}
	sfu_tracked_load(st);
}

/*
 * The one walk loop: from @regs of @task (NULL: current) in @mm, each
 * frame, innermost first and with the CFA its step found, to @fn, until
 * the walk stops, @fn declines or @limit frames were handed ("depth",
 * unless that frame's step ended the walk anyway).  A fallback frame that
 * leads nowhere is not handed (sfu_fp_unconfirmed()).  Returns the count.
 */
static unsigned int sfu_walk(struct task_struct *task, struct mm_struct *mm,
			     struct pt_regs *regs, unsigned int flags, unsigned int limit,
			     sfu_walk_fn fn, void *arg, int *stop_reason)
{
	unsigned long by_method[SFU_METHOD_NR] = {};
	struct sfu_unwind_state st;
	struct sfu_lookup rows;
	unsigned int nr;

	sfu_unwind_start(&st, task, mm, regs, flags, &rows);
	nr = sfu_unwind_frames(&st, limit, fn, arg, by_method);
	sfu_lookup_end(&rows);
	sfu_unwind_account(&st, by_method, stop_reason);
	return nr;
}

/* sfu_walk()'s consumer for the array API. */
struct sfu_walk_array {
	struct sfu_uframe *frames;
	unsigned int nr;
};

static bool sfu_walk_store(void *arg, const struct sfu_uframe *frame)
{
	struct sfu_walk_array *a = arg;

	a->frames[a->nr++] = *frame;
	return true;
}

/* sfu_walk()'s consumer for sfu_unwind_user_walk(): the IPs only. */
struct sfu_walk_consumer {
	sfu_unwind_consume_fn consume;
	void *cookie;
};

static bool sfu_walk_consume(void *arg, const struct sfu_uframe *frame)
{
	struct sfu_walk_consumer *c = arg;

	return c->consume(c->cookie, frame->ip);
}

/**
 * sfu_unwind_user_regs() - unwind the current task's user stack from @regs
 * @regs: user registers of the topmost frame (normally task_pt_regs())
 * @frames: where to store the frames, innermost first
 * @max: capacity of @frames; the walk stores at most this many frames,
 *       and at most the max_depth module parameter
 * @flags: SFU_UNWIND_NOFAULT, SFU_UNWIND_NO_SFRAME, SFU_UNWIND_NO_FP
 * @stop_reason: if not NULL, set to the enum sfu_end that ended the
 *               walk (SFU_END_DEPTH when the limit cut it short)
 *
 * Stack memory is that of current->mm: the caller may pass registers
 * other than the task's own (the KUnit suite builds them), but the stack
 * they describe must be in the current mm.
 *
 * Context: with SFU_UNWIND_NOFAULT any context, NMI included (no-fault
 * reads, no locks but RCU); otherwise task context that may fault pages in.
 * Wherever the caller cannot fault (interrupt context, interrupts or
 * preemption disabled, pagefault_disable(), an RCU read-side section:
 * sfu_caller_may_fault()) the unwind is no-fault whatever @flags say.
 * Return: the number of frames stored (0 when there is no user context),
 * or -EINVAL for @max 0, a NULL @frames or unknown @flags.
 */
int sfu_unwind_user_regs(struct pt_regs *regs, struct sfu_uframe *frames, unsigned int max,
			 unsigned int flags, int *stop_reason)
{
	struct sfu_walk_array a = { .frames = frames };

	if (!frames || !max || (flags & ~SFU_UNWIND_ALL_FLAGS))
		return -EINVAL;
	/* A caller that cannot fault gets no-fault reads whatever it asked. */
	if (!sfu_caller_may_fault())
		flags |= SFU_UNWIND_NOFAULT;
	return sfu_walk(NULL, current->mm, regs, flags, min(max, sfu_unwind_depth_limit()),
			sfu_walk_store, &a, stop_reason);
}
EXPORT_SYMBOL_NS_GPL(sfu_unwind_user_regs, SFU_NS);

/**
 * sfu_unwind_task_regs() - unwind another task's user stack from @regs
 * @task: the task, which must not run during the walk (blocked, stopped,
 *	or preempted); the caller holds a reference to it
 * @mm: @task's mm, whose users the caller holds (mmget())
 * @regs: @task's user registers (task_pt_regs(@task))
 * @frames: where to store the frames, innermost first
 * @max: capacity of @frames (also bounded by the max_depth parameter)
 * @flags: SFU_UNWIND_NO_SFRAME, SFU_UNWIND_NO_FP (SFU_UNWIND_NOFAULT is
 *	refused: every read may sleep)
 * @stop_reason: if not NULL, set to the enum sfu_end
 *
 * Every read of @task's memory (stack, code, sections without a kernel
 * copy) goes through access_process_vm() without FOLL_FORCE; lookups use
 * @mm's registry.  Nothing of @task changes.  If @task ran meanwhile the
 * frames describe no single moment: the caller checks that it did not
 * (its context-switch counts) and discards them if it did.
 *
 * Context: process context that may sleep, never on the current task.
 * Return: the number of frames stored, or -EINVAL for @max 0, a NULL
 * @frames, unknown flags or a caller that cannot sleep.
 */
int sfu_unwind_task_regs(struct task_struct *task, struct mm_struct *mm, struct pt_regs *regs,
			 struct sfu_uframe *frames, unsigned int max, unsigned int flags,
			 int *stop_reason)
{
	struct sfu_walk_array a = { .frames = frames };

	if (!frames || !max || (flags & ~(SFU_UNWIND_NO_SFRAME | SFU_UNWIND_NO_FP)) ||
	    !task || task == current || !sfu_caller_may_fault())
		return -EINVAL;
	might_sleep();
	return sfu_walk(task, mm, regs, flags, min(max, sfu_unwind_depth_limit()),
			sfu_walk_store, &a, stop_reason);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_unwind_task_regs);

/**
 * sfu_unwind_user_walk() - unwind from @regs, handing each frame to @consume
 * @regs: user registers of the topmost frame (normally task_pt_regs())
 * @consume: called with @cookie and each frame's IP, innermost first; the
 *	walk ends after a call that returns false
 * @cookie: @consume's first argument
 * @flags: SFU_UNWIND_NOFAULT, SFU_UNWIND_NO_SFRAME, SFU_UNWIND_NO_FP
 * @stop_reason: if not NULL, set to the enum sfu_end that ended the
 *	walk (SFU_END_DEPTH when @consume ended it before the stack did,
 *	or SFU_UNWIND_MAX_DEPTH frames did)
 *
 * The walk of sfu_unwind_user_regs() for a caller that takes the frames
 * one by one, as the kernel's arch_stack_walk_user() hands them to a
 * stack_trace_consume_fn: the walk goes no further than the frame
 * @consume declines.  @consume runs between the steps of the walk, in a
 * section that holds the RCU read lock: it must not sleep.  The caller's
 * limit bounds the walk, as it bounds the kernel's walk this replaces
 * (perf's max_stack, an ftrace stack's size), not max_depth: at most
 * SFU_UNWIND_MAX_DEPTH frames.
 *
 * Context: as sfu_unwind_user_regs().
 * Return: the number of frames handed to @consume, or -EINVAL for a NULL
 * @consume or unknown @flags.
 */
int sfu_unwind_user_walk(struct pt_regs *regs, sfu_unwind_consume_fn consume, void *cookie,
			 unsigned int flags, int *stop_reason)
{
	struct sfu_walk_consumer c = { .consume = consume, .cookie = cookie };

	if (!consume || (flags & ~SFU_UNWIND_ALL_FLAGS))
		return -EINVAL;
	/* A caller that cannot fault gets no-fault reads whatever it asked. */
	if (!sfu_caller_may_fault())
		flags |= SFU_UNWIND_NOFAULT;
	return sfu_walk(NULL, current->mm, regs, flags, SFU_UNWIND_MAX_DEPTH,
			sfu_walk_consume, &c, stop_reason);
}
EXPORT_SYMBOL_NS_GPL(sfu_unwind_user_walk, SFU_NS);

/**
 * sfu_unwind_user() - unwind the current task's user stack
 * @frames: where to store the frames, innermost first
 * @max: capacity of @frames (also bounded by the max_depth parameter)
 * @flags: SFU_UNWIND_NOFAULT, SFU_UNWIND_NO_SFRAME, SFU_UNWIND_NO_FP
 * @stop_reason: if not NULL, set to the enum sfu_end
 *
 * Starts from the user registers saved at the task's entry into the
 * kernel (task_pt_regs()): in a system call or task_work, where the task
 * called or was interrupted; in IRQ or NMI context, the interrupted user
 * frame only if the CPU was in user mode at the time, else the registers
 * of the task's last entry from user space.
 *
 * Context: see sfu_unwind_user_regs().
 * Return: frames stored (0 for kernel threads), or -EINVAL.
 */
int sfu_unwind_user(struct sfu_uframe *frames, unsigned int max, unsigned int flags,
		    int *stop_reason)
{
	struct pt_regs *regs = NULL;

	if (!(current->flags & PF_KTHREAD))
		regs = task_pt_regs(current);
	return sfu_unwind_user_regs(regs, frames, max, flags, stop_reason);
}
EXPORT_SYMBOL_NS_GPL(sfu_unwind_user, SFU_NS);
