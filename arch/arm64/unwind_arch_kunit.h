/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 signal frame layout for the unwinder's KUnit suite: where the
 * registers the kernel saved lie, from the SP of the signal trampoline's
 * frame (the address of the rt_sigframe: a siginfo, then the ucontext).
 */
#ifndef _SFU_ARCH_ARM64_UNWIND_ARCH_KUNIT_H
#define _SFU_ARCH_ARM64_UNWIND_ARCH_KUNIT_H

#include <linux/signal.h>
#include <linux/stddef.h>
#include <asm/sigcontext.h>
#include <asm/ucontext.h>

#define UW_SIG_OFF(field)	(sizeof(struct siginfo) + \
				 offsetof(struct ucontext, uc_mcontext.field))
#define UW_SIG_IP		UW_SIG_OFF(pc)
#define UW_SIG_SP		UW_SIG_OFF(sp)
#define UW_SIG_FP		UW_SIG_OFF(regs[29])
#define UW_SIG_LR		UW_SIG_OFF(regs[30])

#endif /* _SFU_ARCH_ARM64_UNWIND_ARCH_KUNIT_H */
