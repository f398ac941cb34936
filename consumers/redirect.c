// SPDX-License-Identifier: GPL-2.0
/*
 * Switching a redirection of a stock user stack walk on and off
 * (redirect.h): the ftrace_ops filtered to the one function, its
 * registration, the wait at removal, the parameter and the debugfs file.
 * The handler, the replacement and their counters are the consumer's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "sframe_unwind/compat/ftrace.h"
#include "sframe_unwind/consumers.h"
#include "sframe_unwind/counters.h"
#include "sframe_unwind/deferred.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/unwind.h"
#include "redirect.h"

/**
 * sfu_redirect_off() - record why a redirection is off
 * @r: the redirection
 * @why: the reason, a string that outlives the module's use of it
 * @err: the error that said so, or 0
 *
 * Return: @err.
 */
int sfu_redirect_off(struct sfu_redirect *r, const char *why, int err)
{
	r->why = why;
	r->err = err;
	return err;
}

#if SFU_FTRACE_REDIRECT != SFU_FTRACE_NONE

/* Register the redirection.  Caller holds r->lock. */
static int sfu_redirect_start(struct sfu_redirect *r)
{
	int err;

	if (r->active)
		return 0;
	if (r->lacks || !r->ops.func)
		return sfu_redirect_off(r, r->lacks, -EOPNOTSUPP);
	/*
	 * Never register without the filter in place: an ops with an empty
	 * filter would trace, and redirect, every function of the kernel.
	 */
	if (!r->filtered) {
		err = ftrace_set_filter(&r->ops, (unsigned char *)r->target, strlen(r->target), 1);
		if (err)
			return sfu_redirect_off(r, r->untraceable, err);
		r->filtered = true;
	}
	err = register_ftrace_function(&r->ops);
	if (err)
		return sfu_redirect_off(r, "register_ftrace_function() refused the redirection",
					err);
	WRITE_ONCE(r->active, true);
	sfu_redirect_off(r, NULL, 0);
	return 0;
}

/* Unregister the redirection.  Caller holds r->lock. */
static void sfu_redirect_stop(struct sfu_redirect *r, const char *why)
{
	int err;

	sfu_redirect_off(r, why, 0);
	if (!r->active)
		return;
	err = unregister_ftrace_function(&r->ops);
	if (WARN_ON_ONCE(err))
		return;
	WRITE_ONCE(r->active, false);
	/*
	 * No CPU may still be in the handler or the replacement when the
	 * module text goes away.  For an ops in module data (DYNAMIC)
	 * unregister_ftrace_function() waits for every caller of the
	 * handler, but the replacement runs after the trampoline returned,
	 * beyond what that promise covers.  A caller with preemption or
	 * interrupts disabled, in NMI or inside rcu_read_lock() is watched
	 * by RCU: synchronize_rcu() waits for it.  A caller that can be
	 * preempted (a sleepable BPF program, task_work) is waited for by
	 * synchronize_rcu_tasks(), which needs each task to pass a voluntary
	 * context switch: no replacement ever sleeps (each walks in no-fault
	 * mode).
	 */
	synchronize_rcu();
	synchronize_rcu_tasks();
}

static void sfu_redirect_release(struct sfu_redirect *r)
{
	if (r->filtered)
		ftrace_free_filter(&r->ops);
	r->filtered = false;
}

#else /* SFU_FTRACE_REDIRECT == SFU_FTRACE_NONE */

static int sfu_redirect_start(struct sfu_redirect *r)
{
	return sfu_redirect_off(r, r->lacks, -EOPNOTSUPP);
}

static void sfu_redirect_stop(struct sfu_redirect *r, const char *why)
{
	if (!r->active)
		r->why = why;
}

static void sfu_redirect_release(struct sfu_redirect *r)
{
}

#endif /* SFU_FTRACE_REDIRECT */

static int sfu_redirect_param_set(const char *val, const struct kernel_param *kp)
{
	struct sfu_redirect *r = kp->arg;
	bool on;
	int err;

	err = kstrtobool(val, &on);
	if (err)
		return err;
	mutex_lock(&r->lock);
	r->wanted = on;
	if (r->ready) {
		if (on)
			err = sfu_redirect_start(r);
		else
			sfu_redirect_stop(r, r->off_param);
	}
	mutex_unlock(&r->lock);
	return err;
}

/* Reads say whether the redirection is in place, not what was asked. */
static int sfu_redirect_param_get(char *buffer, const struct kernel_param *kp)
{
	struct sfu_redirect *r = kp->arg;

	return sysfs_emit(buffer, "%c\n", READ_ONCE(r->active) ? 'Y' : 'N');
}

/* The ops of a redirection's parameter: module_param_cb(..., &r, 0644). */
const struct kernel_param_ops sfu_redirect_param_ops = {
	.set = sfu_redirect_param_set,
	.get = sfu_redirect_param_get,
};

/*
 * A redirection's debugfs file: "state on", or "state off: <why>[ (error
 * <err>)]", then its counters, summed over the CPUs.
 */
static int sfu_redirect_show(struct seq_file *m, void *v)
{
	struct sfu_redirect *r = m->private;

	mutex_lock(&r->lock);
	if (r->active)
		seq_puts(m, "state on\n");
	else if (r->err)
		seq_printf(m, "state off: %s (error %d)\n", r->why, r->err);
	else
		seq_printf(m, "state off: %s\n", r->why);
	mutex_unlock(&r->lock);
	sfu_counters_show(m, &r->counters);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_redirect);

/**
 * sfu_redirect_walked() - count a no-fault walk, and fault its pages in
 * @r: the redirection
 * @nr: the frames it found (or a negative error)
 * @stop: why it stopped (SFU_END_*)
 * @sframe_faults: sfu_unwind_sframe_faults() before the walk
 *
 * Where a page of a section or of the stack was not resident, the walk
 * continued from frame pointers (or stopped): the task is asked to walk
 * its stack with faults allowed before it returns to user space, so that
 * later walks find the pages present.
 *
 * Context: the replacement, right after its walk; any context.
 */
void sfu_redirect_walked(struct sfu_redirect *r, int nr, int stop, unsigned long sframe_faults)
{
	const struct sfu_counters *c = &r->counters;
	bool fault = false;

	sfu_counter_inc(c, SFU_RD_WALKS);
	sfu_counter_add(c, SFU_RD_FRAMES, max(nr, 0));
	if (stop == SFU_END_DEPTH)
		sfu_counter_inc(c, SFU_RD_TRUNCATED);
	if (stop == SFU_END_FAULT) {
		sfu_counter_inc(c, SFU_RD_STACK_FAULTS);
		fault = true;
	}
	if (sfu_unwind_sframe_faults() != sframe_faults) {
		sfu_counter_inc(c, SFU_RD_SFRAME_FAULTS);
		fault = true;
	}
	if (fault && !sfu_unwind_deferred_fault_in())
		sfu_counter_inc(c, SFU_RD_FAULT_IN);
}

/*
 * Put a redirection in place, if wanted, after adding its debugfs file.
 * A kernel that cannot have it (@r->lacks, the function not traceable,
 * another IPMODIFY user of it such as a live patch) leaves it off: the
 * module loads anyway and says why once in the kernel log and in the
 * debugfs file.
 */
static void sfu_redirect_init_one(struct sfu_redirect *r)
{
	int err = 0;

	sfu_debugfs_file(r->counters.file, 0444, r, &sfu_redirect_fops);
	mutex_lock(&r->lock);
	r->ready = true;
	if (r->wanted)
		err = sfu_redirect_start(r);
	else
		sfu_redirect_stop(r, r->off_param);
	if (err)
		pr_info("%s off: %s (error %d)\n", r->what, r->why, err);
	mutex_unlock(&r->lock);
}

/*
 * Give the stock function back, then remove the debugfs file.  Returns
 * once no CPU can be in the handler or the replacement any more.
 */
static void sfu_redirect_exit_one(struct sfu_redirect *r)
{
	mutex_lock(&r->lock);
	r->ready = false;
	sfu_redirect_stop(r, "module unloading");
	sfu_redirect_release(r);
	mutex_unlock(&r->lock);
	sfu_debugfs_remove(r->counters.file);
}

/* In the order they are put in place; they are taken out in reverse. */
static struct sfu_redirect *const sfu_redirects[] = {
	&sfu_perf_redirect,
	&sfu_ftrace_userstack_redirect,
	&sfu_unwind_user_redirect,
};

/**
 * sfu_redirect_init() - redirect the stock user stack walks, where wanted
 *
 * Applies each redirection's parameter: perf's callchains, ftrace's user
 * stacks and upstream's unwind_user(), in that order, each with its
 * debugfs file.  One the kernel cannot have stays off, and says why.
 *
 * Context: module init, after the unwinder and the debugfs root.
 */
void sfu_redirect_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sfu_redirects); i++)
		sfu_redirect_init_one(sfu_redirects[i]);
}

/**
 * sfu_redirect_exit() - give the stock user stack walks back
 *
 * In the reverse order of sfu_redirect_init(); returns once no CPU can be
 * in a handler or a replacement any more.
 *
 * Context: module exit, first of all (the replacements use the unwinder
 * and the registry).
 */
void sfu_redirect_exit(void)
{
	unsigned int i = ARRAY_SIZE(sfu_redirects);

	while (i--)
		sfu_redirect_exit_one(sfu_redirects[i]);
}
