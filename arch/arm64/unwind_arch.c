// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 hooks of the generic user unwinder: the frame-record rules and the
 * registers of the topmost frame.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <asm/ptrace.h>

#include "unwind_arch.h"

/*
 * Instructions after which x30 still holds the return address and SP is
 * the caller's: a function's first instructions (before its frame record
 * is stored) and its last ones (after the record is reloaded).
 */
static const u32 sfu_arm64_lr_live[] = {
	0xd503233f,	/* paciasp */
	0xd503237f,	/* pacibsp */
	0xd503241f,	/* bti */
	0xd503245f,	/* bti c */
	0xd503249f,	/* bti j */
	0xd50324df,	/* bti jc */
	0xd50323bf,	/* autiasp */
	0xd50323ff,	/* autibsp */
	0xd65f03c0,	/* ret */
	0xd65f0bff,	/* retaa */
	0xd65f0fff,	/* retab */
};

/* stp x29, x30, [sp, #-N]! : the prologue's first store, any N. */
#define SFU_ARM64_STP_FP_LR_PRE_MASK	0xffc07fffU
#define SFU_ARM64_STP_FP_LR_PRE		0xa9807bfdU
/* mov x29, sp : the frame record is at SP, x29 still the caller's */
#define SFU_ARM64_MOV_FP_SP		0x910003fdU

enum sfu_arm64_frame_state {
	SFU_ARM64_FRAME_BODY,		/* x29 points at this function's frame record */
	SFU_ARM64_FRAME_LR_LIVE,	/* RA in x30, SP and x29 the caller's */
	SFU_ARM64_FRAME_RECORD_AT_SP,	/* record stored at SP, x29 not yet set */
};

/*
 * Where the topmost frame is in its prologue or epilogue, from the
 * instruction it is about to execute.  A failed read means "body".
 */
static enum sfu_arm64_frame_state sfu_arm64_topmost_state(const struct sfu_unwind_state *st)
{
	unsigned int i;
	__le32 raw;
	u32 insn;

	if (sfu_unwind_read(st, st->ip, &raw, sizeof(raw)))
		return SFU_ARM64_FRAME_BODY;
	insn = le32_to_cpu(raw);
	for (i = 0; i < ARRAY_SIZE(sfu_arm64_lr_live); i++) {
		if (insn == sfu_arm64_lr_live[i])
			return SFU_ARM64_FRAME_LR_LIVE;
	}
	if ((insn & SFU_ARM64_STP_FP_LR_PRE_MASK) == SFU_ARM64_STP_FP_LR_PRE)
		return SFU_ARM64_FRAME_LR_LIVE;
	if (insn == SFU_ARM64_MOV_FP_SP)
		return SFU_ARM64_FRAME_RECORD_AT_SP;
	return SFU_ARM64_FRAME_BODY;
}

/**
 * sfu_arch_fp_rules() - rules of a frame that has no SFrame row
 * @st: the frame
 * @r: filled with the frame-record chain's rules
 *
 * x29 points at the frame record {caller's x29, return address}.  The
 * record sits anywhere in the frame (GCC puts it at the bottom), so
 * x29 + 16 is only a lower bound of the caller's SP: the rules say so
 * (SFU_RULES_CFA_BOUND), and the caller's frame must then be found from
 * its x29 as well.  The topmost frame may be before its record is stored
 * or after it is reloaded (return address in x30), or between the store
 * and "mov x29, sp".
 */
void sfu_arch_fp_rules(const struct sfu_unwind_state *st, struct sfu_frame_rules *r)
{
	enum sfu_arm64_frame_state state = SFU_ARM64_FRAME_BODY;

	memset(r, 0, sizeof(*r));
	if (st->topmost)
		state = sfu_arm64_topmost_state(st);

	switch (state) {
	case SFU_ARM64_FRAME_LR_LIVE:
		r->cfa.base = SFU_BASE_SP;
		r->fp.kind = SFU_RULE_RETAIN;
		sfu_arch_ra_in_register(&r->ra);
		return;
	case SFU_ARM64_FRAME_RECORD_AT_SP:
		r->cfa.base = SFU_BASE_SP;
		break;
	case SFU_ARM64_FRAME_BODY:
		r->cfa.base = SFU_BASE_FP;
		break;
	}
	r->cfa.offset = 16;
	r->ra.kind = SFU_RULE_CFA_DEREF;
	r->ra.offset = -8;
	r->fp.kind = SFU_RULE_CFA_DEREF;
	r->fp.offset = -16;
	r->flags = SFU_RULES_CFA_BOUND;
}

/**
 * sfu_arch_reg_value() - a register of the topmost frame
 * @regs: the task's user registers
 * @regnum: DWARF register number
 * @val: the register's value
 *
 * Return: true, or false for a register that is not x0-x30 or SP.
 */
bool sfu_arch_reg_value(struct pt_regs *regs, unsigned int regnum, unsigned long *val)
{
	if (regnum < SFU_ARM64_DWARF_SP)
		*val = regs->regs[regnum];
	else if (regnum == SFU_ARM64_DWARF_SP)
		*val = user_stack_pointer(regs);
	else
		return false;
	return true;
}
