/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernel versions this module builds on
 * (6.1 LTS onwards) lives in this header.  Logic files include it and call
 * the wrappers; they never test LINUX_VERSION_CODE themselves.
 */
#ifndef _SFRAME_UNWIND_COMPAT_H
#define _SFRAME_UNWIND_COMPAT_H

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/hardirq.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/mm_types.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/shmem_fs.h>
#include <linux/uaccess.h>
#include <linux/version.h>

/* An inode's change time: a field until 6.6, an accessor since. */
static inline struct timespec64 sfu_inode_ctime(const struct inode *inode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	return inode_get_ctime(inode);
#else
	return inode->i_ctime;
#endif
}

/*
 * arm64: strip the pointer-authentication code from a user return address.
 * In 6.1 ptrauth_strip_insn_pac() of <asm/pointer_auth.h> serves user and
 * kernel pointers; later kernels (6.12 has it) split it, the user variant
 * being ptrauth_strip_user_insn_pac(), a macro of <asm/compiler.h>, which
 * every file includes first (through <linux/compiler_types.h>): its
 * presence is the test.  Expanded only by arm64 code.
 */
#ifdef ptrauth_strip_user_insn_pac
#define sfu_ptrauth_strip_user(ptr)	ptrauth_strip_user_insn_pac(ptr)
#else
#define sfu_ptrauth_strip_user(ptr)	ptrauth_strip_insn_pac(ptr)
#endif

/*
 * Native perf callchains and ftrace's user stacks redirect a traced kernel
 * function (perf_callchain_user(), arch_stack_walk_user()) to a
 * replacement of the same signature: an ftrace_ops with IPMODIFY filtered
 * to that function, whose handler reads an argument and rewrites the
 * instruction pointer the ftrace trampoline returns to.  The kernel offers
 * that in one of two ways, and SFU_FTRACE_REDIRECT says which:
 *
 * SFU_FTRACE_WITH_REGS, CONFIG_DYNAMIC_FTRACE_WITH_REGS (x86_64 on every
 * version, arm64 up to 6.1): the ops also asks for SAVE_REGS, the handler
 * gets a full pt_regs from ftrace_get_regs(), reads the argument with
 * regs_get_kernel_argument() and sets the PC with instruction_pointer_set().
 * Where both ways exist (x86_64 6.12, 7.2) this one is used.
 *
 * SFU_FTRACE_WITH_ARGS, CONFIG_DYNAMIC_FTRACE_WITH_ARGS alone (arm64 since
 * 6.2: 6.12 and 7.2 here): there is no pt_regs; struct ftrace_regs holds
 * the argument registers and the PC the trampoline returns to, read and
 * written with ftrace_regs_get_argument() and
 * ftrace_regs_set_instruction_pointer() (the same names and semantics on
 * 6.12 and 7.2; arm64's ftrace_caller restores x0-x8, x29 and x30 from
 * ftrace_regs and returns to its PC, "ret x9").  The ops must not ask for
 * SAVE_REGS, which __register_ftrace_function() refuses (EINVAL) without
 * DYNAMIC_FTRACE_WITH_REGS: IPMODIFY alone is what livepatch registers on
 * such kernels (kernel/livepatch/patch.c, HAVE_DYNAMIC_FTRACE_WITH_ARGS).
 * Without either, the module builds both features out and reports them
 * off; SFU_FTRACE_REDIRECT_FLAGS are the ops flags of the redirection.
 */
#define SFU_FTRACE_NONE			0
#define SFU_FTRACE_WITH_REGS		1
#define SFU_FTRACE_WITH_ARGS		2
#if defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#define SFU_FTRACE_REDIRECT		SFU_FTRACE_WITH_REGS
#define SFU_FTRACE_REDIRECT_FLAGS	(FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY)
#elif defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
#define SFU_FTRACE_REDIRECT		SFU_FTRACE_WITH_ARGS
#define SFU_FTRACE_REDIRECT_FLAGS	FTRACE_OPS_FL_IPMODIFY
#else
#define SFU_FTRACE_REDIRECT		SFU_FTRACE_NONE
#endif

#if SFU_FTRACE_REDIRECT != SFU_FTRACE_NONE
/**
 * sfu_ftrace_arg() - an argument of the traced function, in its handler
 * @fregs: the registers the ftrace handler was given
 * @n: the argument's position, 0 for the first
 * @arg: where to store its value
 *
 * Context: an ftrace_ops handler with SFU_FTRACE_REDIRECT_FLAGS.
 * Return: false when @fregs holds no registers (SFU_FTRACE_WITH_REGS and
 * ftrace saved no pt_regs: the handler must leave the call alone).
 */
static inline bool sfu_ftrace_arg(struct ftrace_regs *fregs, unsigned int n,
				  unsigned long *arg)
{
#if SFU_FTRACE_REDIRECT == SFU_FTRACE_WITH_REGS
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (!regs)
		return false;
	*arg = regs_get_kernel_argument(regs, n);
#else
	*arg = ftrace_regs_get_argument(fregs, n);
#endif
	return true;
}

/**
 * sfu_ftrace_redirect() - continue the traced call in another function
 * @fregs: the registers the ftrace handler was given
 * @func: the function of the same signature that the call continues in
 *
 * The trampoline returns to @func instead of the traced function's body,
 * with the call's arguments and return address.
 *
 * Context: an ftrace_ops handler with SFU_FTRACE_REDIRECT_FLAGS, after
 * sfu_ftrace_arg() returned true for @fregs.
 */
static inline void sfu_ftrace_redirect(struct ftrace_regs *fregs, unsigned long func)
{
#if SFU_FTRACE_REDIRECT == SFU_FTRACE_WITH_REGS
	instruction_pointer_set(ftrace_get_regs(fregs), func);
#else
	ftrace_regs_set_instruction_pointer(fregs, func);
#endif
}
#else
#define SFU_FTRACE_LACKS	"both DYNAMIC_FTRACE_WITH_REGS and DYNAMIC_FTRACE_WITH_ARGS"
#endif

/*
 * Native perf callchains redirect perf_callchain_user(): they need a way
 * to redirect (above) and perf.  SFU_PERF_REDIRECT_LACKS names what the
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
 * stacktrace.c).  The redirection of it needs a way to redirect (above)
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
 * redirection needs a way to redirect (above) and the code.
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

/**
 * sfu_caller_may_fault() - may the current context fault user pages in?
 *
 * What the kernel's own page-fault handler and might_fault() look at:
 * no page fault may be handled in any interrupt context (hard, soft, NMI:
 * in_interrupt() also sees PREEMPT_RT's per-task softirq count), with
 * interrupts off, with preemption disabled (a non-zero preempt_count(),
 * what in_atomic() tests: a tracepoint probe, a spinlock, rcu_read_lock()
 * without PREEMPT_RCU), inside
 * pagefault_disable(), or inside a preemptible RCU read-side critical
 * section.  A kernel without CONFIG_PREEMPT_COUNT does not count
 * preempt_disable() in preempt_count(): nothing can tell then, for this
 * module as for the kernel's own might_sleep(); every kernel this module
 * is tested on has the count (Debian's kernels through PREEMPT_DYNAMIC,
 * the test kernels through DEBUG_ATOMIC_SLEEP).  The same on 6.1 and later.
 *
 * Context: any, NMI included.
 * Return: false when the caller must not fault.
 */
static inline bool sfu_caller_may_fault(void)
{
	return !in_interrupt() && !preempt_count() && !irqs_disabled() && !pagefault_disabled() &&
	       !rcu_preempt_depth();
}

/**
 * sfu_proc_mem_file_mm() - the address space a /proc/PID/mem file is for
 * @file: a file whose operations are those of /proc/PID/mem
 *
 * fs/proc/base.c keeps it in @file->private_data: the mm that
 * mm_access(PTRACE_MODE_ATTACH_FSCREDS) allowed when the file was opened,
 * mmgrab()bed by proc_mem_open() for the file's life -- on 6.1 NULL when
 * the task had no mm; later kernels (7.0 has it) refuse that open.  The
 * pointer is only compared with a task's mm, never dereferenced: were a
 * later kernel to keep something else there, the comparison would fail
 * and remote unwinds be refused, never allowed.
 *
 * Return: the mm, or NULL.
 */
static inline struct mm_struct *sfu_proc_mem_file_mm(struct file *file)
{
	return file->private_data;
}

/**
 * sfu_hrtimer_setup() - initialise an hrtimer and set its callback
 * @timer: the timer
 * @fn: its callback
 * @clock: the clock it runs on
 * @mode: its mode
 *
 * hrtimer_setup() arrived in 6.13 and replaced hrtimer_init() followed by
 * an assignment of the callback, which later kernels no longer have.
 */
static inline void sfu_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/**
 * sfu_shmem_file_setup() - an unlinked shmem file
 * @name: its name
 * @size: its size
 * @flags: VM_* flags (VM_NORESERVE)
 *
 * Later kernels (7.2 has it, 6.12 not) pass the flags as a vma_flags_t
 * bitmap, converted by legacy_to_vma_flags(); EMPTY_VMA_FLAGS, a macro
 * that came with the type, is the test.
 *
 * Return: the file, or an ERR_PTR().
 */
static inline struct file *sfu_shmem_file_setup(const char *name, loff_t size,
						unsigned long flags)
{
#ifdef EMPTY_VMA_FLAGS
	return shmem_file_setup(name, size, legacy_to_vma_flags(flags));
#else
	return shmem_file_setup(name, size, flags);
#endif
}

/*
 * Symbol namespaces: an identifier until 6.12, a string literal since 6.13.
 * What other modules may call is EXPORT_SYMBOL_NS_GPL(sym, SFU_NS);
 * everything else the KUnit module needs is EXPORT_SYMBOL_IF_KUNIT(),
 * exported only when KUnit is configured, into the namespace the kernel
 * keeps for tests.  Nothing is exported without a namespace.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define SFU_NS				"SFRAME_UNWIND"
#define SFU_KUNIT_NS			"EXPORTED_FOR_KUNIT_TESTING"
#else
#define SFU_NS				SFRAME_UNWIND
#define SFU_KUNIT_NS			EXPORTED_FOR_KUNIT_TESTING
#endif

/* <kunit/visibility.h> came in 6.2; before, the same definitions here. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#include <kunit/visibility.h>
#elif IS_ENABLED(CONFIG_KUNIT)
#define EXPORT_SYMBOL_IF_KUNIT(sym)	EXPORT_SYMBOL_NS(sym, EXPORTED_FOR_KUNIT_TESTING)
#else
#define EXPORT_SYMBOL_IF_KUNIT(sym)
#endif

#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/test.h>

/*
 * SFU_KUNIT_PARAM_GEN(name, fn) defines @name, a KUnit parameter generator
 * of the running kernel's type, returning fn(prev, desc).  Since 6.18
 * generators get the test as their first argument; KUNIT_CASE_PARAM_WITH_INIT
 * came with that change, and its presence is the test.
 */
#ifdef KUNIT_CASE_PARAM_WITH_INIT
#define SFU_KUNIT_PARAM_GEN(name, fn)						\
static const void *name(struct kunit *test, const void *prev, char *desc)	\
{										\
	return fn(prev, desc);							\
}
#else
#define SFU_KUNIT_PARAM_GEN(name, fn)						\
static const void *name(const void *prev, char *desc)				\
{										\
	return fn(prev, desc);							\
}
#endif
#endif /* CONFIG_KUNIT */

/*
 * Pin @n pages of @mm from @start for reading, the mmap_lock held:
 * get_user_pages_remote() lost its vmas argument in 6.5.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define sfu_pin_user_pages_read(mm, start, n, pages)				\
	get_user_pages_remote(mm, start, n, 0, pages, NULL)
#else
#define sfu_pin_user_pages_read(mm, start, n, pages)				\
	get_user_pages_remote(mm, start, n, 0, pages, NULL, NULL)
#endif

#endif /* _SFRAME_UNWIND_COMPAT_H */
