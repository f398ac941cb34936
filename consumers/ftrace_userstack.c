// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace's user stacks from SFrame.
 *
 * With the userstacktrace trace option (tracefs options/userstacktrace,
 * trace-cmd record -O userstacktrace) ftrace stores the user stack after
 * each event it records, from stack_trace_save_user(): the architecture's
 * arch_stack_walk_user(), a frame-pointer walk, hands each return address
 * to a stack_trace_consume_fn until that says it has no more room.  While
 * the module is loaded and the ftrace_userstack parameter is on, an
 * ftrace_ops with IPMODIFY on that function (and SAVE_REGS where the
 * kernel redirects through pt_regs: compat/ftrace.h) sends each call to
 * sfu_ftrace_walk_user(), which has the same signature and hands the
 * consumer the frames the SFrame unwinder finds, in no-fault mode: trace
 * events fire in any context.  Where a page of a section or of the stack
 * is not resident the unwinder continues from frame pointers (or stops),
 * and the task is asked to walk its stack with faults allowed before it
 * returns to user space, so that the next events find the pages present.
 * Contexts the stock walk treats specially (compat tasks, VM86) are never
 * redirected: the same architecture hook as perf's decides (perf_arch.h).
 * Nor are the calls of perf's own walk, where the architecture's perf
 * walks through the same function (arm64: perf_arch.h): perf's parameter
 * decides perf's callchains.
 *
 * The function, the kernels that have it and the configurations that
 * allow the redirection are in redirect.h; switching it is redirect.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include "sframe_unwind/compat/ftrace.h"
#include "sframe_unwind/deferred.h"
#include "sframe_unwind/consumers_arch.h"
#include "sframe_unwind/unwind.h"
#include "redirect.h"

/* Per CPU: redirect.h. */
static DEFINE_PER_CPU(u64 [SFU_RD_NR], sfu_ftrace_stats);

static const char *const sfu_ftrace_stat_names[] = {
	SFU_FTRACE_USERSTACK_COUNTERS(SFU_COUNTER_NAME)
};

#if SFU_HAVE_FTRACE_USERSTACK_REDIRECT

/*
 * The replacement of arch_stack_walk_user(): same signature, same
 * contract (@consume_entry gets the IP of @regs, then each caller's
 * return address, innermost first, and the walk ends after a call that
 * returns false).  Reached only through the ftrace handler below, for
 * user contexts the architecture lets the SFrame unwinder walk.
 */
static void sfu_ftrace_walk_user(stack_trace_consume_fn consume_entry, void *cookie,
				 const struct pt_regs *regs)
{
	unsigned long sframe_faults;
	int nr, stop;

	sframe_faults = sfu_unwind_sframe_faults();
	/* The unwinder only reads the registers. */
	nr = sfu_unwind_user_walk((struct pt_regs *)regs, consume_entry, cookie,
				  SFU_UNWIND_NOFAULT, &stop);
	sfu_redirect_walked(&sfu_ftrace_userstack_redirect, nr, stop, sframe_faults);
}

#ifdef SFU_PERF_ARCH_USER_WALK_CALLER
/*
 * perf's own walk calls arch_stack_walk_user() on this architecture
 * (perf_arch.h), from one call site in SFU_PERF_ARCH_USER_WALK_CALLER;
 * ftrace's calls come from stack_trace_save_user().  A call site is known
 * by its return address, the handler's parent_ip, and named once through
 * kallsyms (core kernel text: lock-free, any context); the two sites seen
 * are remembered.  Racing writers store the same answers.
 */
static unsigned long sfu_ftrace_perf_site;
static unsigned long sfu_ftrace_other_site;

static noinline bool notrace sfu_ftrace_name_site(unsigned long parent_ip)
{
	static const char perf[] = SFU_PERF_ARCH_USER_WALK_CALLER;
	char name[KSYM_SYMBOL_LEN];
	size_t len = sizeof(perf) - 1;

	sprint_symbol_no_offset(name, parent_ip);
	/* A compiler-made copy of the function is "<name>.<suffix>". */
	if (!strncmp(name, perf, len) && (name[len] == '\0' || name[len] == '.')) {
		WRITE_ONCE(sfu_ftrace_perf_site, parent_ip);
		return true;
	}
	WRITE_ONCE(sfu_ftrace_other_site, parent_ip);
	return false;
}

/* Is this call of arch_stack_walk_user() perf's?  Its return address. */
static __always_inline bool sfu_ftrace_from_perf(unsigned long parent_ip)
{
	if (parent_ip == READ_ONCE(sfu_ftrace_perf_site))
		return true;
	if (parent_ip == READ_ONCE(sfu_ftrace_other_site))
		return false;
	return sfu_ftrace_name_site(parent_ip);
}
#else
/* perf does not walk through arch_stack_walk_user() here. */
static __always_inline bool sfu_ftrace_from_perf(unsigned long parent_ip)
{
	return false;
}
#endif

/*
 * ftrace handler on arch_stack_walk_user(consume_entry, cookie, regs):
 * send the call to sfu_ftrace_walk_user() by rewriting the instruction
 * pointer the trampoline returns to (compat/ftrace.h: the saved pt_regs or the
 * ftrace_regs, as the kernel offers); the trampoline then "returns" into
 * it with the original arguments and return address.  A context it does
 * not handle, and a call of perf's own walk (which perf's parameter
 * decides), run the stock function.
 */
static void notrace sfu_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct pt_regs *user_regs;
	unsigned long arg;

	if (!sfu_ftrace_arg(fregs, 2, &arg))
		return;
	user_regs = (struct pt_regs *)arg;
	if (!user_regs || !sfu_perf_arch_native(user_regs) || sfu_ftrace_from_perf(parent_ip)) {
		this_cpu_inc(sfu_ftrace_stats[SFU_RD_STOCK]);
		return;
	}
	sfu_ftrace_redirect(fregs, (unsigned long)sfu_ftrace_walk_user);
}

#endif /* SFU_HAVE_FTRACE_USERSTACK_REDIRECT */

struct sfu_redirect sfu_ftrace_userstack_redirect = {
	SFU_REDIRECT_INIT(sfu_ftrace_userstack_redirect),
	.counters = SFU_COUNTERS_INIT("ftrace_userstack", sfu_ftrace_stat_names, sfu_ftrace_stats,
				      NULL),
	.target = SFU_FTRACE_USERSTACK_TARGET,
	.what = "ftrace user stacks from SFrame",
	.off_param = "disabled by the ftrace_userstack parameter",
	.untraceable = SFU_FTRACE_USERSTACK_TARGET " cannot be traced",
#if SFU_HAVE_FTRACE_USERSTACK_REDIRECT
	SFU_REDIRECT_OPS(sfu_ftrace_handler),
#else
	.lacks = "the kernel lacks " SFU_FTRACE_USERSTACK_LACKS,
#endif
};
module_param_cb(ftrace_userstack, &sfu_redirect_param_ops, &sfu_ftrace_userstack_redirect, 0644);
MODULE_PARM_DESC(ftrace_userstack,
		 "ftrace's userstacktrace stacks come from SFrame (default Y; reads N when unavailable)");
