/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 signal frame layout for the unwinder's KUnit suite: where the
 * registers the kernel saved lie, from the SP of the signal trampoline's
 * frame (the handler's return popped the rt_sigframe's pretcode).
 */
#ifndef _SFU_ARCH_X86_UNWIND_ARCH_KUNIT_H
#define _SFU_ARCH_X86_UNWIND_ARCH_KUNIT_H

#include <linux/signal.h>
#include <linux/stddef.h>
#include <asm/sigframe.h>

#define UW_SIG_OFF(field)	(offsetof(struct rt_sigframe, uc.uc_mcontext.field) - \
				 sizeof(((struct rt_sigframe *)0)->pretcode))
#define UW_SIG_IP		UW_SIG_OFF(ip)
#define UW_SIG_SP		UW_SIG_OFF(sp)
#define UW_SIG_FP		UW_SIG_OFF(bp)
#define UW_SIG_LR		UW_SIG_OFF(r14)	/* unused on x86_64 */

#endif /* _SFU_ARCH_X86_UNWIND_ARCH_KUNIT_H */
