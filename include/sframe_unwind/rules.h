/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Format-neutral unwind rules: how to find a frame's caller.
 *
 * The registry answers a lookup with these, whatever format the rows came
 * from (SFrame sections, sidecars generated from .eh_frame); the unwinder
 * applies them and names no format.  The frame-pointer rules of the arch
 * hooks are of the same kind.
 */
#ifndef _SFRAME_UNWIND_RULES_H
#define _SFRAME_UNWIND_RULES_H

#include <linux/types.h>

/* Where a rule's base value comes from. */
enum sfu_base {
	SFU_BASE_SP,		/* the frame's stack pointer */
	SFU_BASE_FP,		/* the frame's frame pointer */
	SFU_BASE_REG,		/* another register (DWARF number): topmost frame, or tracked */
};

/**
 * struct sfu_cfa_rule - CFA = base + offset, or *(base + offset) + addend
 * @base: enum sfu_base
 * @deref: read a word at base + offset
 * @regnum: DWARF register number for SFU_BASE_REG
 * @addend: added to the word read (@deref only), else 0
 * @offset: signed offset
 */
struct sfu_cfa_rule {
	u8 base;
	bool deref;
	u16 regnum;
	s32 addend;
	long offset;
};

/* How to recover the caller's return address or frame pointer. */
enum sfu_rule_kind {
	SFU_RULE_RETAIN,	/* unchanged: still in its register */
	SFU_RULE_CFA_DEREF,	/* *(CFA + offset) */
	SFU_RULE_REG,		/* base + offset */
	SFU_RULE_REG_DEREF,	/* *(base + offset) */
	SFU_RULE_UNDEFINED,	/* not recoverable */
};

/**
 * struct sfu_reg_rule - how to recover RA or FP
 * @kind: enum sfu_rule_kind
 * @base: enum sfu_base, for the _REG kinds
 * @regnum: DWARF register number for SFU_BASE_REG
 * @offset: signed offset
 */
struct sfu_reg_rule {
	u8 kind;
	u8 base;
	u16 regnum;
	long offset;
};

/* How a frame saved a tracked callee-saved register. */
enum sfu_saved_kind {
	SFU_SAVED_NONE,		/* an unused entry */
	SFU_SAVED_CFA_DEREF,	/* the caller's value is at *(CFA + offset) */
	SFU_SAVED_LOST,		/* saved where the rules cannot say: unknown */
};

/**
 * struct sfu_saved_rule - where a frame saved a tracked register
 * @kind: enum sfu_saved_kind
 * @regnum: its DWARF register number
 * @offset: from the CFA, for SFU_SAVED_CFA_DEREF (a slot further than
 *          32 KiB from the CFA is SFU_SAVED_LOST: the rules stay 7 words)
 */
struct sfu_saved_rule {
	u8 kind;
	u8 regnum;
	s16 offset;
};

/* Most saved-register rules one frame has: one per tracked register of any arch. */
#define SFU_MAX_SAVED_RULES	1

/* sfu_frame_rules.flags */
#define SFU_RULES_OUTERMOST	0x1	/* no caller: the stack ends here */
#define SFU_RULES_SIGNAL	0x2	/* a signal frame */
#define SFU_RULES_CFA_BOUND	0x4	/* CFA is only a lower bound of the caller's SP */
#define SFU_RULES_RA_SIGNED	0x8	/* RA carries a pointer signature (AArch64 PAC) */
#define SFU_RULES_KEY_B		0x10	/* ... made with key B, else key A */
/*
 * @saved lists every tracked register this frame saved; those it does not
 * list keep their value in the caller.  Without the flag every tracked
 * register is unknown in the caller.
 */
#define SFU_RULES_SAVED_REGS	0x20
/*
 * The frame was entered by an injected call (a signal handler pushed the
 * interrupted PC as a return address: Go's asyncPreempt, sigpanic): the
 * caller resumes exactly at the return address, whose row is the one of
 * that PC, not of the instruction before it.
 */
#define SFU_RULES_INJECTED	0x40

/**
 * struct sfu_frame_rules - how to find a frame's caller
 * @cfa: the frame's canonical frame address (the caller's SP at the call)
 * @ra: the return address into the caller
 * @fp: the caller's frame pointer
 * @flags: SFU_RULES_*
 * @saved: where this frame saved tracked callee-saved registers
 *         (SFU_RULES_SAVED_REGS only; unused entries SFU_SAVED_NONE)
 *
 * Register-based rules (SFU_BASE_REG, SFU_RULE_RETAIN of the return
 * address) are legal in the topmost frame, whose registers are known, and
 * in a deeper one only on a register the unwinder tracks (the arch's
 * callee-saved registers that @saved of the frames above recovered).
 */
struct sfu_frame_rules {
	struct sfu_cfa_rule cfa;
	struct sfu_reg_rule ra;
	struct sfu_reg_rule fp;
	unsigned int flags;
	struct sfu_saved_rule saved[SFU_MAX_SAVED_RULES];
};

#endif /* _SFRAME_UNWIND_RULES_H */
