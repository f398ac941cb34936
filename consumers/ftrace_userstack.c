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
 * kernel redirects through pt_regs: compat.h) sends each call to
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
 * allow the redirection are in compat.h.  Everything about the
 * redirection is serialised by sfu_ftrace_lock; the walk reads none of
 * that state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include "sframe_unwind/compat.h"
#include "sframe_unwind/deferred.h"
#include "perf_arch.h"
#include "sframe_unwind/consumers.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/unwind.h"

/*
 * Per CPU, so that counting costs nothing in whatever context the event
 * fires; this_cpu_inc() and this_cpu_add() are safe against the
 * interrupts that nest here.
 */
struct sfu_ftrace_stats {
	u64 walks;		/* user stacks walked from SFrame */
	u64 frames;		/* entries handed to ftrace */
	u64 stock;		/* calls left to the stock walk */
	u64 truncated;		/* ended by ftrace's room or max_depth */
	u64 sframe_faults;	/* a section page was not resident */
	u64 stack_faults;	/* the stack itself was not readable */
	u64 fault_in;		/* faultable walks requested for those */
};

static DEFINE_PER_CPU(struct sfu_ftrace_stats, sfu_ftrace_stats);

static DEFINE_MUTEX(sfu_ftrace_lock);
/* The parameter as last written: the redirection should be on. */
static bool sfu_ftrace_wanted = true;
/* Between module init and exit: the parameter takes effect at once. */
static bool sfu_ftrace_ready;
/* The redirection is registered. */
static bool sfu_ftrace_active;
/* Why it is off, and the error that said so. */
static const char *sfu_ftrace_why = "module not initialised";
static int sfu_ftrace_err;

#if SFU_HAVE_FTRACE_USERSTACK_REDIRECT

static bool sfu_ftrace_filtered;

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
	bool fault = false;
	int nr, stop;

	sframe_faults = sfu_unwind_sframe_faults();
	/* The unwinder only reads the registers. */
	nr = sfu_unwind_user_walk((struct pt_regs *)regs, consume_entry, cookie,
				  SFU_UNWIND_NOFAULT, &stop);

	this_cpu_inc(sfu_ftrace_stats.walks);
	this_cpu_add(sfu_ftrace_stats.frames, max(nr, 0));
	if (stop == SFU_STOP_DEPTH)
		this_cpu_inc(sfu_ftrace_stats.truncated);
	if (stop == SFU_STOP_FAULT) {
		this_cpu_inc(sfu_ftrace_stats.stack_faults);
		fault = true;
	}
	if (sfu_unwind_sframe_faults() != sframe_faults) {
		this_cpu_inc(sfu_ftrace_stats.sframe_faults);
		fault = true;
	}
	/* Have the pages faulted in before the task runs on. */
	if (fault && !sfu_unwind_deferred_fault_in())
		this_cpu_inc(sfu_ftrace_stats.fault_in);
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
 * pointer the trampoline returns to (compat.h: the saved pt_regs or the
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
		this_cpu_inc(sfu_ftrace_stats.stock);
		return;
	}
	sfu_ftrace_redirect(fregs, (unsigned long)sfu_ftrace_walk_user);
}

static struct ftrace_ops sfu_ftrace_ops = {
	.func = sfu_ftrace_handler,
	.flags = SFU_FTRACE_REDIRECT_FLAGS | FTRACE_OPS_FL_RECURSION,
};

static int sfu_ftrace_off(const char *why, int err)
{
	sfu_ftrace_why = why;
	sfu_ftrace_err = err;
	return err;
}

/* Register the redirection.  Caller holds sfu_ftrace_lock. */
static int sfu_ftrace_start(void)
{
	static const char target[] = SFU_FTRACE_USERSTACK_TARGET;
	int err;

	if (sfu_ftrace_active)
		return 0;
	/*
	 * Never register without the filter in place: an ops with an empty
	 * filter would trace, and redirect, every function of the kernel.
	 */
	if (!sfu_ftrace_filtered) {
		err = ftrace_set_filter(&sfu_ftrace_ops, (unsigned char *)target,
					strlen(target), 1);
		if (err)
			return sfu_ftrace_off(SFU_FTRACE_USERSTACK_TARGET " cannot be traced", err);
		sfu_ftrace_filtered = true;
	}
	err = register_ftrace_function(&sfu_ftrace_ops);
	if (err)
		return sfu_ftrace_off("register_ftrace_function() refused the redirection", err);
	sfu_ftrace_active = true;
	sfu_ftrace_off(NULL, 0);
	return 0;
}

/* Unregister the redirection.  Caller holds sfu_ftrace_lock. */
static void sfu_ftrace_stop(const char *why)
{
	int err;

	sfu_ftrace_off(why, 0);
	if (!sfu_ftrace_active)
		return;
	err = unregister_ftrace_function(&sfu_ftrace_ops);
	if (WARN_ON_ONCE(err))
		return;
	sfu_ftrace_active = false;
	/*
	 * No CPU may still be in the handler or the replacement when the
	 * module text goes away.  unregister_ftrace_function() waits for
	 * every caller of the handler of an ops in module data, but the
	 * replacement runs after the trampoline returned.  ftrace calls
	 * stack_trace_save_user() with preemption disabled
	 * (ftrace_trace_userstack()), which RCU watches: synchronize_rcu()
	 * waits for every walk the handler redirected.  Any other caller of
	 * the function that can be preempted is waited for by
	 * synchronize_rcu_tasks(), which needs each task to pass a voluntary
	 * context switch; the replacement never sleeps.
	 */
	synchronize_rcu();
	synchronize_rcu_tasks();
}

static void sfu_ftrace_release(void)
{
	if (sfu_ftrace_filtered)
		ftrace_free_filter(&sfu_ftrace_ops);
	sfu_ftrace_filtered = false;
}

#else /* !SFU_HAVE_FTRACE_USERSTACK_REDIRECT */

static int sfu_ftrace_start(void)
{
	sfu_ftrace_why = "the kernel lacks " SFU_FTRACE_USERSTACK_LACKS;
	sfu_ftrace_err = -EOPNOTSUPP;
	return -EOPNOTSUPP;
}

static void sfu_ftrace_stop(const char *why)
{
	if (!sfu_ftrace_active)
		sfu_ftrace_why = why;
}

static void sfu_ftrace_release(void)
{
}

#endif /* SFU_HAVE_FTRACE_USERSTACK_REDIRECT */

static int sfu_ftrace_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err;

	err = kstrtobool(val, &on);
	if (err)
		return err;
	mutex_lock(&sfu_ftrace_lock);
	sfu_ftrace_wanted = on;
	if (sfu_ftrace_ready) {
		if (on)
			err = sfu_ftrace_start();
		else
			sfu_ftrace_stop("disabled by the ftrace_userstack parameter");
	}
	mutex_unlock(&sfu_ftrace_lock);
	return err;
}

/* Reads say whether the redirection is in place, not what was asked. */
static int sfu_ftrace_param_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%c\n", READ_ONCE(sfu_ftrace_active) ? 'Y' : 'N');
}

static const struct kernel_param_ops sfu_ftrace_param_ops = {
	.set = sfu_ftrace_param_set,
	.get = sfu_ftrace_param_get,
};
module_param_cb(ftrace_userstack, &sfu_ftrace_param_ops, NULL, 0644);
MODULE_PARM_DESC(ftrace_userstack,
		 "ftrace's userstacktrace stacks come from SFrame (default Y; reads N when unavailable)");

static int sfu_ftrace_show(struct seq_file *m, void *v)
{
	struct sfu_ftrace_stats sum;

	sfu_percpu_sum_struct(sfu_ftrace_stats, &sum);
	mutex_lock(&sfu_ftrace_lock);
	if (sfu_ftrace_active)
		seq_puts(m, "state on\n");
	else if (sfu_ftrace_err)
		seq_printf(m, "state off: %s (error %d)\n", sfu_ftrace_why, sfu_ftrace_err);
	else
		seq_printf(m, "state off: %s\n", sfu_ftrace_why);
	mutex_unlock(&sfu_ftrace_lock);
	seq_printf(m, "walks %llu\n", sum.walks);
	seq_printf(m, "frames %llu\n", sum.frames);
	seq_printf(m, "stock %llu\n", sum.stock);
	seq_printf(m, "truncated %llu\n", sum.truncated);
	seq_printf(m, "sframe_faults %llu\n", sum.sframe_faults);
	seq_printf(m, "stack_faults %llu\n", sum.stack_faults);
	seq_printf(m, "fault_in %llu\n", sum.fault_in);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_ftrace);

/**
 * sfu_ftrace_userstack_init() - redirect ftrace's user stacks, if wanted
 *
 * Applies the ftrace_userstack parameter.  A kernel that cannot do the
 * redirection (see SFU_HAVE_FTRACE_USERSTACK_REDIRECT in compat.h, the
 * function not traceable, another IPMODIFY user of it such as a live
 * patch) leaves the feature off: the module loads anyway, says why once
 * in the kernel log and in <debugfs>/sframe_unwind/ftrace_userstack.
 *
 * Context: module init, after the unwinder and the debugfs root.
 */
void sfu_ftrace_userstack_init(void)
{
	int err = 0;

	sfu_debugfs_file("ftrace_userstack", 0444, NULL, &sfu_ftrace_fops);
	mutex_lock(&sfu_ftrace_lock);
	sfu_ftrace_ready = true;
	if (sfu_ftrace_wanted)
		err = sfu_ftrace_start();
	else
		sfu_ftrace_stop("disabled by the ftrace_userstack parameter");
	if (err)
		pr_info("ftrace user stacks from SFrame off: %s (error %d)\n", sfu_ftrace_why,
			err);
	mutex_unlock(&sfu_ftrace_lock);
}

/**
 * sfu_ftrace_userstack_exit() - give ftrace its own user stack walk back
 *
 * Returns once no CPU can be in the redirection's code any more.
 *
 * Context: module exit, before the unwinder and the registry go.
 */
void sfu_ftrace_userstack_exit(void)
{
	mutex_lock(&sfu_ftrace_lock);
	sfu_ftrace_ready = false;
	sfu_ftrace_stop("module unloading");
	sfu_ftrace_release();
	mutex_unlock(&sfu_ftrace_lock);
	sfu_debugfs_remove("ftrace_userstack");
}
