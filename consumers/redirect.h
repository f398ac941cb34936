/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the redirections of stock user stack walks share (redirect.c):
 * perf's callchains (perf_callchain.c), ftrace's user stacks
 * (ftrace_userstack.c) and upstream's unwind_user (unwind_user.c).  Each
 * is an ftrace_ops with IPMODIFY filtered to one kernel function, whose
 * handler makes the call continue in the module's replacement; a module
 * parameter switches it (reads say whether it is in place), and a debugfs
 * file of the same name says its state and its counters.  A consumer
 * defines its handler, its replacement, its counters and its struct
 * sfu_redirect (declared below); redirect.c does the rest.
 */
#ifndef _SFU_CONSUMERS_REDIRECT_H
#define _SFU_CONSUMERS_REDIRECT_H

#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "sframe_unwind/compat/ftrace.h"
#include "sframe_unwind/counters.h"

/*
 * Native perf callchains redirect perf_callchain_user(): they need a way
 * to redirect (compat/ftrace.h) and perf.  SFU_PERF_REDIRECT_LACKS names what the
 * kernel lacks when it cannot have them.
 */
#if SFU_FTRACE_REDIRECT != SFU_FTRACE_NONE && defined(CONFIG_PERF_EVENTS)
#define SFU_HAVE_PERF_REDIRECT	1
#else
#define SFU_HAVE_PERF_REDIRECT	0
#if SFU_FTRACE_REDIRECT == SFU_FTRACE_NONE
#define SFU_PERF_REDIRECT_LACKS	SFU_FTRACE_LACKS
#else
#define SFU_PERF_REDIRECT_LACKS	"PERF_EVENTS"
#endif
#endif

/*
 * ftrace's userstacktrace option takes the user stack from
 * stack_trace_save_user(), which on CONFIG_ARCH_STACKWALK kernels (x86_64,
 * arm64) hands task_pt_regs(current) to the architecture's walk,
 *
 *   void arch_stack_walk_user(stack_trace_consume_fn consume_entry,
 *                             void *cookie, const struct pt_regs *regs);
 *
 * the same function, signature and contract on 6.1, 6.12 and 7.2, and
 * traceable on each (neither notrace nor in a file built without the
 * ftrace flags: arch/x86/kernel/stacktrace.c, arch/arm64/kernel/
 * stacktrace.c).  The redirection of it needs a way to redirect (compat/ftrace.h)
 * and the walk itself, USER_STACKTRACE_SUPPORT: x86_64 always, arm64 not
 * on 6.1, where ftrace records no user stacks at all, but on 6.12 and 7.2
 * (SFU_FTRACE_WITH_ARGS there).  SFU_FTRACE_USERSTACK_LACKS names what the
 * kernel lacks when it cannot have it.
 */
#if SFU_FTRACE_REDIRECT != SFU_FTRACE_NONE && defined(CONFIG_ARCH_STACKWALK) && \
	defined(CONFIG_USER_STACKTRACE_SUPPORT)
#define SFU_HAVE_FTRACE_USERSTACK_REDIRECT	1
#else
#define SFU_HAVE_FTRACE_USERSTACK_REDIRECT	0
#if SFU_FTRACE_REDIRECT == SFU_FTRACE_NONE
#define SFU_FTRACE_USERSTACK_LACKS		SFU_FTRACE_LACKS
#elif !defined(CONFIG_USER_STACKTRACE_SUPPORT)
#define SFU_FTRACE_USERSTACK_LACKS		"USER_STACKTRACE_SUPPORT"
#else
#define SFU_FTRACE_USERSTACK_LACKS		"ARCH_STACKWALK"
#endif
#endif
#define SFU_FTRACE_USERSTACK_TARGET		"arch_stack_walk_user"

/*
 * Upstream's deferred user unwinding (CONFIG_UNWIND_USER, 6.17 and later;
 * x86_64 only in 7.2, the one architecture with HAVE_UNWIND_USER_FP),
 * which perf's deferred callchains use from 6.19 on (perf record
 * --call-graph fp,defer), takes each user stack from
 *
 *   int unwind_user(struct unwind_stacktrace *trace, unsigned int max_entries);
 *
 * of kernel/unwind/user.c: a frame-pointer walk of task_pt_regs(current)
 * into trace->entries, called only by unwind_user_faultable(), in task
 * context, once per kernel entry.  It is global and traceable.  Its
 * redirection needs a way to redirect (compat/ftrace.h) and the code.
 * SFU_UNWIND_USER_LACKS names what the kernel lacks when it cannot have it.
 */
#if SFU_FTRACE_REDIRECT != SFU_FTRACE_NONE && defined(CONFIG_UNWIND_USER)
#include <linux/unwind_user_types.h>
#define SFU_HAVE_UNWIND_USER_REDIRECT		1
#else
#define SFU_HAVE_UNWIND_USER_REDIRECT		0
#if SFU_FTRACE_REDIRECT == SFU_FTRACE_NONE
#define SFU_UNWIND_USER_LACKS			SFU_FTRACE_LACKS
#else
#define SFU_UNWIND_USER_LACKS			"UNWIND_USER (upstream's deferred unwinding)"
#endif
#endif
#define SFU_UNWIND_USER_TARGET			"unwind_user"

/*
 * What every redirection counts, per CPU, so that counting costs nothing
 * in whatever context the walk runs (NMI included): first its walks, which
 * each consumer names and describes in its list below, then these.  The
 * lists are X(constant, name, what it counts), the text
 * Documentation/reference.rst gives each (sframe_unwind/counters.h).
 */
#define SFU_REDIRECT_COUNTERS(X)							\
	X(SFU_RD_FRAMES, "frames", "entries stored for the caller")			\
	X(SFU_RD_STOCK, "stock", "calls left to the stock walk")			\
	X(SFU_RD_TRUNCATED, "truncated", "walks ended by the caller's room")		\
	X(SFU_RD_SFRAME_FAULTS, "sframe_faults",					\
	  "walks during which an SFrame lookup on the CPU faulted")			\
	X(SFU_RD_STACK_FAULTS, "stack_faults", "walks stopped by unreadable stack memory") \
	X(SFU_RD_FAULT_IN, "fault_in", "deferred faultable walks requested for those two")

enum sfu_redirect_counter {
	SFU_RD_WALKS,
	SFU_REDIRECT_COUNTERS(SFU_COUNTER_ID)
	SFU_RD_NR
};

/* perf_callchain.c: its walks are callchains; one counter of its own after. */
#define SFU_PERF_COUNTERS(X)								\
	X(SFU_RD_WALKS, "callchains",							\
	  "user callchains walked by the SFrame unwinder (no-fault)")			\
	SFU_REDIRECT_COUNTERS(X)							\
	X(SFU_PERF_CACHED, "cached", "callchains taken from the kernel entry's deferred walk")

enum sfu_perf_counter {
	SFU_PERF_CACHED = SFU_RD_NR,
	SFU_PERF_NR
};

/* ftrace_userstack.c */
#define SFU_FTRACE_USERSTACK_COUNTERS(X)						\
	X(SFU_RD_WALKS, "walks",							\
	  "user stacks walked by the SFrame unwinder (no-fault) for ftrace")		\
	SFU_REDIRECT_COUNTERS(X)

/* unwind_user.c */
#define SFU_UNWIND_USER_COUNTERS(X)							\
	X(SFU_RD_WALKS, "walks",							\
	  "user stacks walked by the SFrame unwinder (no-fault) for upstream's "	\
	  "``unwind_user()``")								\
	SFU_REDIRECT_COUNTERS(X)

/**
 * struct sfu_redirect - one redirection of a stock function
 * @target: the function redirected
 * @what: what it gives, for the kernel log ("native perf callchains")
 * @lacks: what the kernel lacks to have it (compat/ftrace.h), NULL when it can
 * @off_param: why it is off when the parameter says so
 * @untraceable: why it is off when @target cannot be traced
 * @ops: the ftrace_ops, filtered to @target here, on the consumer's
 *	handler (SFU_REDIRECT_OPS()); without one when @lacks is set
 * @counters: its counters (SFU_RD_*, then the consumer's own), which its
 *	handler and replacement count in, and its debugfs file, named as its
 *	module parameter; shown after its state
 * @lock: serialises everything below and the parameter
 * @wanted: the parameter as last written
 * @ready: between sfu_redirect_init() and sfu_redirect_exit()
 * @active: the ops is registered
 * @filtered: the ops' filter holds @target
 * @why: why it is off
 * @err: the error that said so, or 0
 */
struct sfu_redirect {
	const char *target;
	const char *what;
	const char *lacks;
	const char *off_param;
	const char *untraceable;
#if SFU_FTRACE_REDIRECT != SFU_FTRACE_NONE
	struct ftrace_ops ops;
#endif
	struct sfu_counters counters;
	struct mutex lock;	/* the fields below, and the parameter */
	bool wanted;
	bool ready;
	bool active;
	bool filtered;
	const char *why;
	int err;
};

/* The fields every redirection starts with but its own. */
#define SFU_REDIRECT_INIT(_r)							\
	.lock = __MUTEX_INITIALIZER((_r).lock),					\
	.wanted = true, .why = "module not initialised"

/*
 * Where the kernel has the redirection, its ftrace_ops: the consumer's
 * @_handler, which makes the call continue in the replacement.
 */
#define SFU_REDIRECT_OPS(_handler)						\
	.ops = {								\
		.func = (_handler),						\
		.flags = SFU_FTRACE_REDIRECT_FLAGS | FTRACE_OPS_FL_RECURSION,	\
	}

/*
 * The redirections, each defined by its consumer; redirect.c puts them in
 * place in this order and takes them out in reverse.
 */
extern struct sfu_redirect sfu_perf_redirect;			/* perf_callchain.c */
extern struct sfu_redirect sfu_ftrace_userstack_redirect;	/* ftrace_userstack.c */
extern struct sfu_redirect sfu_unwind_user_redirect;		/* unwind_user.c */

extern const struct kernel_param_ops sfu_redirect_param_ops;

int sfu_redirect_off(struct sfu_redirect *r, const char *why, int err);
void sfu_redirect_walked(struct sfu_redirect *r, int nr, int stop, unsigned long sframe_faults);

#endif /* _SFU_CONSUMERS_REDIRECT_H */
