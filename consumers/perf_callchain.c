// SPDX-License-Identifier: GPL-2.0
/*
 * Native perf callchains from SFrame.
 *
 * perf takes the user part of every callchain (perf record -g, the
 * callchains of bpf_get_stack(), ...) from the architecture's
 * perf_callchain_user(), a frame-pointer walk.  While the module is loaded
 * and the perf_callchain parameter is on, an ftrace_ops with IPMODIFY on
 * that function (and SAVE_REGS where the kernel redirects through pt_regs:
 * compat.h) sends each call to sfu_perf_callchain_user(),
 * which has the same signature and stores what the SFrame unwinder finds,
 * in no-fault mode: perf calls it in NMI and IRQ context.  Where a page of
 * a section or of the stack is not resident the unwinder continues from
 * frame pointers (or stops), and the task is asked to walk its stack with
 * faults allowed before it returns to user space (deferred unwinding), so
 * that the next samples find the pages present; a sample taken while that
 * walk's result is being delivered uses it.  Contexts the stock walk
 * treats specially (compat tasks, VM86, a vCPU thread in its guest run)
 * are never redirected: the architecture decides (perf_arch.h), and the
 * stock function runs for them unchanged.
 *
 * Everything about the redirection is serialised by sfu_perf_lock; the
 * NMI path reads none of that state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/ftrace.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "sframe_unwind/compat.h"
#include "sframe_unwind/deferred.h"
#include "perf_arch.h"
#include "sframe_unwind/consumers.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/unwind.h"

/*
 * User frames one callchain can hold: perf's default limit
 * (kernel.perf_event_max_stack); a deeper stack is cut here.
 */
#define SFU_PERF_MAX_FRAMES	PERF_MAX_STACK_DEPTH
/* Task, softirq, hardirq, NMI: see interrupt_context_level(). */
#define SFU_PERF_LEVELS		4

/*
 * The frames of one unwind, per CPU and context level.  perf itself holds
 * a callchain recursion slot per CPU and level around perf_callchain_user()
 * (get_callchain_entry()) and keeps the caller on its CPU: no two
 * unwinds ever share one of these buffers.
 */
struct sfu_perf_frames {
	struct sfu_frame level[SFU_PERF_LEVELS][SFU_PERF_MAX_FRAMES];
};

/*
 * Per CPU, so that counting costs nothing in NMI context; this_cpu_inc()
 * and this_cpu_add() are safe against the interrupts that nest here.
 */
struct sfu_perf_stats {
	u64 callchains;		/* user callchains made from SFrame */
	u64 frames;		/* entries they stored */
	u64 stock;		/* calls left to the stock walk */
	u64 truncated;		/* cut by perf's limit or ours */
	u64 sframe_faults;	/* a section page was not resident */
	u64 stack_faults;	/* the stack itself was not readable */
	u64 fault_in;		/* faultable walks requested for those */
	u64 cached;		/* the entry's deferred callchain reused */
};

static DEFINE_PER_CPU(struct sfu_perf_stats, sfu_perf_stats);
static struct sfu_perf_frames __percpu *sfu_perf_frames;

static DEFINE_MUTEX(sfu_perf_lock);
/* The parameter as last written: the redirection should be on. */
static bool sfu_perf_wanted = true;
/* Between module init and exit: the parameter takes effect at once. */
static bool sfu_perf_ready;
/* The redirection is registered. */
static bool sfu_perf_active;
/* Why it is off, and the error that said so. */
static const char *sfu_perf_why = "module not initialised";
static int sfu_perf_err;

#if SFU_HAVE_PERF_REDIRECT

static bool sfu_perf_filtered;

/*
 * The replacement of perf_callchain_user(): same signature, same contract
 * (store the user frames with perf_callchain_store(), at most up to
 * entry->max_stack).  Reached only through the ftrace handler below, for
 * user contexts the architecture lets the SFrame unwinder walk.
 */
static void sfu_perf_callchain_user(struct perf_callchain_entry_ctx *entry,
				    struct pt_regs *regs)
{
	const struct sfu_unwind_stacktrace *trace;
	struct sfu_frame *frames;
	unsigned long sframe_faults;
	unsigned int room, i;
	bool fault = false;
	u64 cookie;
	int nr, stop;

	if (entry->contexts_maxed || entry->nr >= entry->max_stack)
		return;
	room = min_t(unsigned int, entry->max_stack - entry->nr, SFU_PERF_MAX_FRAMES);

	/* The task is walking its stack, faulting, in this kernel entry. */
	if (!sfu_unwind_deferred_cached(regs, &trace, &cookie)) {
		nr = min(trace->nr, room);
		for (i = 0; i < nr; i++)
			perf_callchain_store(entry, trace->entries[i]);
		this_cpu_inc(sfu_perf_stats.cached);
		this_cpu_add(sfu_perf_stats.frames, nr);
		if (trace->nr > room)
			this_cpu_inc(sfu_perf_stats.truncated);
		return;
	}

	frames = this_cpu_ptr(sfu_perf_frames)->level[interrupt_context_level()];
	sframe_faults = sfu_unwind_sframe_faults();
	nr = sfu_unwind_user_regs(regs, frames, room, SFU_UNWIND_NOFAULT, &stop);
	for (i = 0; i < nr; i++)
		perf_callchain_store(entry, frames[i].ip);

	this_cpu_inc(sfu_perf_stats.callchains);
	this_cpu_add(sfu_perf_stats.frames, max(nr, 0));
	if (stop == SFU_STOP_DEPTH)
		this_cpu_inc(sfu_perf_stats.truncated);
	if (stop == SFU_STOP_FAULT) {
		this_cpu_inc(sfu_perf_stats.stack_faults);
		fault = true;
	}
	if (sfu_unwind_sframe_faults() != sframe_faults) {
		this_cpu_inc(sfu_perf_stats.sframe_faults);
		fault = true;
	}
	/* Have the pages faulted in before the task runs on. */
	if (fault && !sfu_unwind_deferred_fault_in())
		this_cpu_inc(sfu_perf_stats.fault_in);
}

/*
 * ftrace handler on perf_callchain_user(entry, regs): send the call to
 * sfu_perf_callchain_user() by rewriting the instruction pointer the
 * trampoline returns to (compat.h: the saved pt_regs or the ftrace_regs,
 * as the kernel offers); the trampoline then "returns" into it with the
 * original arguments and return address.  A context it does not handle
 * runs the stock function.
 */
static void notrace sfu_perf_ftrace_handler(unsigned long ip, unsigned long parent_ip,
					    struct ftrace_ops *op,
					    struct ftrace_regs *fregs)
{
	struct pt_regs *user_regs;
	unsigned long arg;

	if (!sfu_ftrace_arg(fregs, 1, &arg))
		return;
	user_regs = (struct pt_regs *)arg;
	if (!user_regs || !sfu_perf_arch_native(user_regs)) {
		this_cpu_inc(sfu_perf_stats.stock);
		return;
	}
	sfu_ftrace_redirect(fregs, (unsigned long)sfu_perf_callchain_user);
}

static struct ftrace_ops sfu_perf_ops = {
	.func = sfu_perf_ftrace_handler,
	.flags = SFU_FTRACE_REDIRECT_FLAGS | FTRACE_OPS_FL_RECURSION,
};

static int sfu_perf_off(const char *why, int err)
{
	sfu_perf_why = why;
	sfu_perf_err = err;
	return err;
}

/* Register the redirection.  Caller holds sfu_perf_lock. */
static int sfu_perf_start(void)
{
	static const char target[] = "perf_callchain_user";
	int err;

	if (sfu_perf_active)
		return 0;
	if (!sfu_perf_frames) {
		sfu_perf_frames = alloc_percpu(struct sfu_perf_frames);
		if (!sfu_perf_frames)
			return sfu_perf_off("no memory for the frame buffers", -ENOMEM);
	}
	/*
	 * Never register without the filter in place: an ops with an empty
	 * filter would trace, and redirect, every function of the kernel.
	 */
	if (!sfu_perf_filtered) {
		err = ftrace_set_filter(&sfu_perf_ops, (unsigned char *)target,
					strlen(target), 1);
		if (err)
			return sfu_perf_off("perf_callchain_user cannot be traced", err);
		sfu_perf_filtered = true;
	}
	err = register_ftrace_function(&sfu_perf_ops);
	if (err)
		return sfu_perf_off("register_ftrace_function() refused the redirection", err);
	sfu_perf_active = true;
	sfu_perf_off(NULL, 0);
	return 0;
}

/* Unregister the redirection.  Caller holds sfu_perf_lock. */
static void sfu_perf_stop(const char *why)
{
	int err;

	sfu_perf_off(why, 0);
	if (!sfu_perf_active)
		return;
	err = unregister_ftrace_function(&sfu_perf_ops);
	if (WARN_ON_ONCE(err))
		return;
	sfu_perf_active = false;
	/*
	 * No CPU may still be in the handler or the replacement when the
	 * module text goes away.  For an ops in module data (DYNAMIC)
	 * unregister_ftrace_function() waits for every caller of the
	 * handler, but the replacement runs after the trampoline returned,
	 * beyond what that promise covers.  perf calls perf_callchain_user()
	 * with preemption or interrupts disabled (NMI, IRQ, or under
	 * perf_swevent/tracepoint protection) or inside rcu_read_lock()
	 * (BPF), and RCU watches in all of these, NMI included (nmi_enter()
	 * makes it): synchronize_rcu() waits for every one of them that the
	 * handler may have redirected.  A caller that can be preempted
	 * without RCU protection (a sleepable BPF program's bpf_get_stack())
	 * is waited for by synchronize_rcu_tasks(), which needs each task to
	 * pass a voluntary context switch; the replacement never sleeps.
	 */
	synchronize_rcu();
	synchronize_rcu_tasks();
}

static void sfu_perf_release(void)
{
	if (sfu_perf_filtered)
		ftrace_free_filter(&sfu_perf_ops);
	sfu_perf_filtered = false;
}

#else /* !SFU_HAVE_PERF_REDIRECT */

static int sfu_perf_start(void)
{
	return sfu_perf_off("the kernel lacks " SFU_PERF_REDIRECT_LACKS, -EOPNOTSUPP);
}

static void sfu_perf_stop(const char *why)
{
	if (!sfu_perf_active)
		sfu_perf_why = why;
}

static void sfu_perf_release(void)
{
}

#endif /* SFU_HAVE_PERF_REDIRECT */

static int sfu_perf_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err;

	err = kstrtobool(val, &on);
	if (err)
		return err;
	mutex_lock(&sfu_perf_lock);
	sfu_perf_wanted = on;
	if (sfu_perf_ready) {
		if (on)
			err = sfu_perf_start();
		else
			sfu_perf_stop("disabled by the perf_callchain parameter");
	}
	mutex_unlock(&sfu_perf_lock);
	return err;
}

/* Reads say whether the redirection is in place, not what was asked. */
static int sfu_perf_param_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%c\n", READ_ONCE(sfu_perf_active) ? 'Y' : 'N');
}

static const struct kernel_param_ops sfu_perf_param_ops = {
	.set = sfu_perf_param_set,
	.get = sfu_perf_param_get,
};
module_param_cb(perf_callchain, &sfu_perf_param_ops, NULL, 0644);
MODULE_PARM_DESC(perf_callchain,
		 "perf's user callchains come from SFrame (default Y; reads N when unavailable)");

static int sfu_perf_show(struct seq_file *m, void *v)
{
	struct sfu_perf_stats sum;

	sfu_percpu_sum_struct(sfu_perf_stats, &sum);
	mutex_lock(&sfu_perf_lock);
	if (sfu_perf_active)
		seq_puts(m, "state on\n");
	else if (sfu_perf_err)
		seq_printf(m, "state off: %s (error %d)\n", sfu_perf_why, sfu_perf_err);
	else
		seq_printf(m, "state off: %s\n", sfu_perf_why);
	mutex_unlock(&sfu_perf_lock);
	seq_printf(m, "callchains %llu\n", sum.callchains);
	seq_printf(m, "frames %llu\n", sum.frames);
	seq_printf(m, "stock %llu\n", sum.stock);
	seq_printf(m, "truncated %llu\n", sum.truncated);
	seq_printf(m, "sframe_faults %llu\n", sum.sframe_faults);
	seq_printf(m, "stack_faults %llu\n", sum.stack_faults);
	seq_printf(m, "fault_in %llu\n", sum.fault_in);
	seq_printf(m, "cached %llu\n", sum.cached);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_perf);

/**
 * sfu_perf_callchain_init() - redirect perf's user callchains, if wanted
 *
 * Applies the perf_callchain parameter.  A kernel that cannot do the
 * redirection (neither DYNAMIC_FTRACE_WITH_REGS nor _WITH_ARGS: compat.h;
 * perf_callchain_user() not traceable; another IPMODIFY user of it such
 * as a live patch) leaves the feature off: the module loads anyway, says
 * why once in the kernel log and in <debugfs>/sframe_unwind/perf_callchain.
 *
 * Context: module init, after the unwinder and the debugfs root.
 */
void sfu_perf_callchain_init(void)
{
	int err = 0;

	sfu_debugfs_file("perf_callchain", 0444, NULL, &sfu_perf_fops);
	mutex_lock(&sfu_perf_lock);
	sfu_perf_ready = true;
	if (sfu_perf_wanted)
		err = sfu_perf_start();
	else
		sfu_perf_stop("disabled by the perf_callchain parameter");
	if (err)
		pr_info("native perf callchains off: %s (error %d)\n", sfu_perf_why, err);
	mutex_unlock(&sfu_perf_lock);
}

/**
 * sfu_perf_callchain_exit() - give perf its own user callchains back
 *
 * Returns once no CPU can be in the redirection's code any more.
 *
 * Context: module exit, first of all (the replacement uses the unwinder
 * and the registry).
 */
void sfu_perf_callchain_exit(void)
{
	mutex_lock(&sfu_perf_lock);
	sfu_perf_ready = false;
	sfu_perf_stop("module unloading");
	sfu_perf_release();
	mutex_unlock(&sfu_perf_lock);
	sfu_debugfs_remove("perf_callchain");
	free_percpu(sfu_perf_frames);
	sfu_perf_frames = NULL;
}
