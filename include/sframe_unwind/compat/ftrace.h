/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace: how a traced kernel function is redirected.
 * Code calls these wrappers and never tests LINUX_VERSION_CODE itself;
 * the other kernel APIs have their own headers here.
 */
#ifndef _SFU_COMPAT_FTRACE_H
#define _SFU_COMPAT_FTRACE_H

#include <linux/ftrace.h>
#include <linux/ptrace.h>

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
/*
 * The flags of an ops whose handler only reads the arguments with
 * sfu_ftrace_arg() (the registry's hooks): the redirection's, less
 * IPMODIFY.
 */
#define SFU_FTRACE_ARGS_FLAGS	(SFU_FTRACE_REDIRECT_FLAGS & ~FTRACE_OPS_FL_IPMODIFY)

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

#endif /* _SFU_COMPAT_FTRACE_H */
