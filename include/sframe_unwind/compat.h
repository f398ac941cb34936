/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernel versions this module builds on
 * (6.1 LTS onwards) lives in this header.  Logic files include it and call
 * the wrappers; they never test LINUX_VERSION_CODE themselves.
 */
#ifndef _SFRAME_UNWIND_COMPAT_H
#define _SFRAME_UNWIND_COMPAT_H

#include <linux/fs.h>
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
 * Native perf callchains redirect perf_callchain_user() through an
 * ftrace_ops that saves and rewrites the registers (SAVE_REGS | IPMODIFY):
 * that needs DYNAMIC_FTRACE_WITH_REGS, which x86_64 has on every version
 * and arm64 only up to 6.1 (6.2 moved arm64 to DYNAMIC_FTRACE_WITH_ARGS).
 * Without it the module builds the feature out and reports it off.
 */
#if defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS) && defined(CONFIG_PERF_EVENTS)
#define SFU_HAVE_PERF_REDIRECT	1
#else
#define SFU_HAVE_PERF_REDIRECT	0
#endif

#endif /* _SFRAME_UNWIND_COMPAT_H */
