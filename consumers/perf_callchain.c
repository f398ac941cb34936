// SPDX-License-Identifier: GPL-2.0
/*
 * Native perf callchains from SFrame.
 *
 * perf takes the user part of every callchain (perf record -g, the
 * callchains of bpf_get_stack(), ...) from the architecture's
 * perf_callchain_user(), a frame-pointer walk.  While the module is loaded
 * and the perf_callchain parameter is on, an ftrace_ops with IPMODIFY on
 * that function (and SAVE_REGS where the kernel redirects through pt_regs:
 * compat/ftrace.h) sends each call to sfu_perf_callchain_user(),
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
 * Switching the redirection is redirect.c's; the NMI path reads none of
 * its state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "sframe_unwind/compat/ftrace.h"
#include "sframe_unwind/deferred.h"
#include "sframe_unwind/consumers_arch.h"
#include "sframe_unwind/unwind.h"
#include "redirect.h"

/* Per CPU: redirect.h.  perf's walks are callchains; it counts the cached ones too. */
static DEFINE_PER_CPU(u64 [SFU_PERF_NR], sfu_perf_stats);

static const char *const sfu_perf_stat_names[] = {
	SFU_PERF_COUNTERS(SFU_COUNTER_NAME)
};

#if SFU_HAVE_PERF_REDIRECT

/*
 * Each frame the walk finds goes straight into perf's entry, until perf's
 * limit (entry->max_stack: kernel.perf_event_max_stack, or the event's
 * sample_max_stack) is reached: perf's limit, not the module's max_depth,
 * is what a perf user sets, as for the stock walk.
 */
static bool sfu_perf_store(void *cookie, unsigned long ip)
{
	struct perf_callchain_entry_ctx *entry = cookie;

	return perf_callchain_store(entry, ip) == 0 && entry->nr < entry->max_stack;
}

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
	unsigned long sframe_faults;
	unsigned int room, i;
	u64 cookie;
	int nr, stop;

	if (entry->contexts_maxed || entry->nr >= entry->max_stack)
		return;
	room = entry->max_stack - entry->nr;

	/* The task is walking its stack, faulting, in this kernel entry. */
	if (!sfu_unwind_deferred_cached(regs, &trace, &cookie)) {
		nr = min(trace->nr, room);
		for (i = 0; i < nr; i++)
			perf_callchain_store(entry, trace->entries[i]);
		this_cpu_inc(sfu_perf_stats[SFU_PERF_CACHED]);
		this_cpu_add(sfu_perf_stats[SFU_RD_FRAMES], nr);
		if (trace->nr > room)
			this_cpu_inc(sfu_perf_stats[SFU_RD_TRUNCATED]);
		return;
	}

	sframe_faults = sfu_unwind_sframe_faults();
	nr = sfu_unwind_user_walk(regs, sfu_perf_store, entry, SFU_UNWIND_NOFAULT, &stop);
	sfu_redirect_walked(&sfu_perf_redirect, nr, stop, sframe_faults);
}

/*
 * ftrace handler on perf_callchain_user(entry, regs): send the call to
 * sfu_perf_callchain_user() by rewriting the instruction pointer the
 * trampoline returns to (compat/ftrace.h: the saved pt_regs or the ftrace_regs,
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
		this_cpu_inc(sfu_perf_stats[SFU_RD_STOCK]);
		return;
	}
	sfu_ftrace_redirect(fregs, (unsigned long)sfu_perf_callchain_user);
}

#endif /* SFU_HAVE_PERF_REDIRECT */

struct sfu_redirect sfu_perf_redirect = {
	SFU_REDIRECT_INIT(sfu_perf_redirect),
	.counters = SFU_COUNTERS_INIT("perf_callchain", sfu_perf_stat_names, sfu_perf_stats, NULL),
	.target = "perf_callchain_user",
	.what = "native perf callchains",
	.off_param = "disabled by the perf_callchain parameter",
	.untraceable = "perf_callchain_user cannot be traced",
#if SFU_HAVE_PERF_REDIRECT
	SFU_REDIRECT_OPS(sfu_perf_ftrace_handler),
#else
	.lacks = "the kernel lacks " SFU_PERF_REDIRECT_LACKS,
#endif
};
module_param_cb(perf_callchain, &sfu_redirect_param_ops, &sfu_perf_redirect, 0644);
MODULE_PARM_DESC(perf_callchain,
		 "perf's user callchains come from SFrame (default Y; reads N when unavailable)");
