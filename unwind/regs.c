// SPDX-License-Identifier: GPL-2.0
/*
 * The registers of a frame other than its IP, SP and FP, which rules may
 * be based on: all of them in a frame whose registers are all known (the
 * task's registers, or those a signal frame saved in user memory), and
 * below it the callee-saved registers the architecture tracks
 * (sfu_arch_tracked_slot()), as far as the frames above listed their
 * saves.  The step (step.c) reads them; a signal step (signal.c) loads
 * them again for the frame the signal interrupted.
 */
#include <linux/bits.h>
#include <linux/build_bug.h>

#include "sframe_unwind/arch.h"
#include "sframe_unwind/unwind.h"
#include "internal.h"

/**
 * sfu_reg_value() - the value of a register of the current frame
 * @st: the unwind
 * @regnum: the register's DWARF number
 * @val: its value
 *
 * From the task's registers, or those a signal frame saved in user
 * memory; below them, a tracked callee-saved register whose save the
 * frames above listed.
 *
 * Return: 0, SFU_END_BAD_RULE when the frame does not know the register,
 * or the stop reason of a failed read of the saved registers.
 */
int sfu_reg_value(const struct sfu_unwind_state *st, u16 regnum, unsigned long *val)
{
	int slot;

	if (!st->topmost) {
		slot = sfu_arch_tracked_slot(regnum);
		if (slot < 0 || !(st->tracked_known & BIT(slot)))
			return SFU_END_BAD_RULE;
		*val = st->tracked[slot];
		return 0;
	}
	if (st->sigctx)
		return sfu_arch_sigctx_reg(st, regnum, val);
	return sfu_arch_reg_value(st->regs, regnum, val) ? 0 : SFU_END_BAD_RULE;
}

/**
 * sfu_reg_known() - whether the current frame knows a register
 * @st: the unwind
 * @regnum: the register's DWARF number
 *
 * Return: true for every register of a frame whose registers are all
 * known (the topmost, or one a signal interrupted), and below it for a
 * tracked register whose value is known.
 */
bool sfu_reg_known(const struct sfu_unwind_state *st, u16 regnum)
{
	int slot;

	if (st->topmost)
		return true;
	slot = sfu_arch_tracked_slot(regnum);
	return slot >= 0 && (st->tracked_known & BIT(slot));
}

/**
 * sfu_tracked_load() - take the tracked registers of a fully known frame
 * @st: the unwind, at a frame whose registers are all known (the topmost,
 *	or one a signal interrupted: signal.c)
 *
 * Their values then serve the rules of the frames below it; none in
 * compat tasks.
 */
void sfu_tracked_load(struct sfu_unwind_state *st)
{
	unsigned long val;
	int slot;

	BUILD_BUG_ON(SFU_ARCH_NR_TRACKED > SFU_MAX_SAVED_RULES);
	st->tracked_known = 0;
	if (st->compat)
		return;
	for (slot = 0; slot < SFU_ARCH_NR_TRACKED; slot++) {
		if (sfu_reg_value(st, sfu_arch_tracked_regnum(slot), &val))
			continue;
		st->tracked[slot] = val;
		st->tracked_known |= BIT(slot);
	}
}
