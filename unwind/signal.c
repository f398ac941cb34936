// SPDX-License-Identifier: GPL-2.0
/*
 * The unwinder's step through a signal frame: from the registers the
 * kernel saved on the user stack to the frame the signal interrupted; and
 * what a call a signal handler faked left of the frame it interrupted.
 */
#include <linux/sched.h>

#include "sframe_unwind/arch.h"
#include "sframe_unwind/unwind.h"
#include "internal.h"

/**
 * sfu_signal_step() - step through a signal frame
 * @st: the unwind, at the signal trampoline (__restore_rt, the vDSO's
 *	sigreturn), at whose SP the kernel saved the registers of the code
 *	the signal interrupted
 *
 * That code is the next frame, with all its registers known as the
 * topmost frame's are: its PC is exact (not a return address), and rules
 * may use any register.  The signal may have run on another stack
 * (sigaltstack): the CFA order starts again.  Kept out of the walk's
 * inlined step (it is rare).
 *
 * Return: 0, or a stop reason with @st unchanged.
 */
int sfu_signal_step(struct sfu_unwind_state *st)
{
	unsigned long ctx, ip, sp, fp;
	int reason;

	if (st->compat || !st->sp_exact || !sfu_arch_signal_frame(st, &ctx))
		return SFU_END_SIGNAL;
	st->sigctx = ctx;
	st->topmost = true;
	reason = sfu_arch_sigctx_reg(st, SFU_ARCH_DWARF_IP, &ip);
	if (!reason)
		reason = sfu_arch_sigctx_reg(st, SFU_ARCH_DWARF_SP, &sp);
	if (!reason)
		reason = sfu_arch_sigctx_reg(st, SFU_ARCH_DWARF_FP, &fp);
	if (!reason && (!ip || ip >= TASK_SIZE))
		reason = SFU_END_BAD_RA;
	if (!reason && (!sp || sp >= TASK_SIZE || (sp & (st->ws - 1))))
		reason = SFU_END_BAD_CFA;
	if (reason) {
		st->sigctx = 0;
		st->topmost = false;
		return reason;
	}
	st->ip = ip;
	st->sp = sp;
	st->fp = fp;
	st->prev_cfa = 0;
	st->sp_exact = true;
	sfu_tracked_load(st);
	return 0;
}

/**
 * sfu_injected_lr() - the link register of the frame an injected call interrupted
 * @st: the unwind, just stepped out of a frame entered by an injected call
 *	(SFU_RULES_INJECTED) to the frame it interrupted
 * @cfa: the CFA of the frame left, the interrupted frame's SP
 *
 * A signal handler that fakes a call (Go's asyncPreempt) stores, on an
 * architecture with a link register, the interrupted frame's link register
 * where SFU_ARCH_INJECTED_LR says before it sets it to the interrupted PC:
 * that value is known in the interrupted frame, a tracked register (a
 * leaf's return address is still in it).  Elsewhere nothing changes.
 */
void sfu_injected_lr(struct sfu_unwind_state *st, unsigned long cfa)
{
#ifdef SFU_ARCH_INJECTED_LR
	int slot = sfu_arch_tracked_slot(SFU_ARCH_INJECTED_LR_REG);
	unsigned long lr;

	if (slot < 0 || st->compat ||
	    sfu_unwind_read(st, cfa + SFU_ARCH_INJECTED_LR, &lr, sizeof(lr)))
		return;
	st->tracked[slot] = lr;
	st->tracked_known |= BIT(slot);
#endif
}
