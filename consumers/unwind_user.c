// SPDX-License-Identifier: GPL-2.0
/*
 * Upstream's deferred user stacks from SFrame.
 *
 * Kernels with upstream's deferred unwinding (kernel/unwind/, compat/ftrace.h)
 * take the user stack that perf's deferred callchains (perf record
 * --call-graph fp,defer, PERF_RECORD_CALLCHAIN_DEFERRED) and any other
 * user of unwind_deferred_request() get from unwind_user(), a
 * frame-pointer walk called once per kernel entry from
 * unwind_user_faultable(), in task context before the return to user
 * space.  While the module is loaded and the unwind_user parameter is on,
 * an ftrace_ops with IPMODIFY on unwind_user() sends each call to
 * sfu_uu_unwind_user(), which has the same signature and fills the trace
 * with what the SFrame unwinder finds.  It walks in no-fault mode, so
 * that it never sleeps in module text (unload waits for it with RCU
 * Tasks: redirect.c); where a page of a section or of the stack is not
 * resident the unwinder continues from frame pointers (or stops), and the
 * task walks its stack with faults allowed right after, so that the next
 * entries find the pages present.  Contexts the stock walk treats
 * specially (compat tasks, a vCPU thread in its guest run) are never
 * redirected: the same architecture hook as perf's decides (perf_arch.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>

#include "sframe_unwind/compat/ftrace.h"
#include "sframe_unwind/consumers_arch.h"
#include "sframe_unwind/unwind.h"
#include "redirect.h"

/* Per CPU: redirect.h. */
static DEFINE_PER_CPU(u64 [SFU_RD_NR], sfu_uu_stats);

static const char *const sfu_uu_stat_names[] = {
	SFU_UNWIND_USER_COUNTERS(SFU_COUNTER_NAME)
};

#if SFU_HAVE_UNWIND_USER_REDIRECT

struct sfu_uu_fill {
	struct unwind_stacktrace *trace;
	unsigned int max;
};

static bool sfu_uu_store(void *cookie, unsigned long ip)
{
	struct sfu_uu_fill *fill = cookie;

	fill->trace->entries[fill->trace->nr++] = ip;
	return fill->trace->nr < fill->max;
}

/*
 * The replacement of unwind_user(): same signature, same contract
 * (trace->entries gets the IP of the task's user registers, then each
 * caller's return address, innermost first, at most @max_entries of them;
 * trace->nr says how many).  Reached only through the ftrace handler
 * below, for a user task whose registers the architecture lets the
 * SFrame unwinder walk.
 */
static int sfu_uu_unwind_user(struct unwind_stacktrace *trace, unsigned int max_entries)
{
	struct sfu_uu_fill fill = { .trace = trace, .max = max_entries };
	unsigned long sframe_faults;
	int nr, stop;

	trace->nr = 0;
	if (!max_entries)
		return -EINVAL;
	sframe_faults = sfu_unwind_sframe_faults();
	nr = sfu_unwind_user_walk(task_pt_regs(current), sfu_uu_store, &fill,
				  SFU_UNWIND_NOFAULT, &stop);
	sfu_redirect_walked(&sfu_unwind_user_redirect, nr, stop, sframe_faults);
	return 0;
}

/*
 * ftrace handler on unwind_user(trace, max_entries): send the call to
 * sfu_uu_unwind_user() by rewriting the instruction pointer the
 * trampoline returns to (compat/ftrace.h); the trampoline then "returns" into it
 * with the original arguments and return address.  A kernel thread, a
 * task not entered from user mode and a context the architecture leaves
 * to the stock walk run the stock function.
 */
static void notrace sfu_uu_handler(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct pt_regs *regs;
	unsigned long arg;

	if (!sfu_ftrace_arg(fregs, 0, &arg) || (current->flags & PF_KTHREAD))
		return;
	regs = task_pt_regs(current);
	if (!user_mode(regs) || !sfu_perf_arch_native(regs)) {
		this_cpu_inc(sfu_uu_stats[SFU_RD_STOCK]);
		return;
	}
	sfu_ftrace_redirect(fregs, (unsigned long)sfu_uu_unwind_user);
}

#endif /* SFU_HAVE_UNWIND_USER_REDIRECT */

struct sfu_redirect sfu_unwind_user_redirect = {
	SFU_REDIRECT_INIT(sfu_unwind_user_redirect),
	.counters = SFU_COUNTERS_INIT("unwind_user", sfu_uu_stat_names, sfu_uu_stats, NULL),
	.target = SFU_UNWIND_USER_TARGET,
	.what = "upstream's deferred user stacks from SFrame",
	.off_param = "disabled by the unwind_user parameter",
	.untraceable = SFU_UNWIND_USER_TARGET " cannot be traced",
#if SFU_HAVE_UNWIND_USER_REDIRECT
	SFU_REDIRECT_OPS(sfu_uu_handler),
#else
	.lacks = "the kernel lacks " SFU_UNWIND_USER_LACKS,
#endif
};
module_param_cb(unwind_user, &sfu_redirect_param_ops, &sfu_unwind_user_redirect, 0644);
MODULE_PARM_DESC(unwind_user,
		 "upstream's unwind_user() stacks (perf's deferred callchains) come from SFrame (default Y; reads N when unavailable)");
