/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic user-space stack unwinder.
 *
 * Walks the user stack of the current task one frame at a time.  For each
 * frame it asks the registry for the SFrame row that covers the frame's
 * PC; the architecture turns the row into generic rules (struct
 * sfu_frame_rules), and one common step computes the CFA, the caller's
 * return address and frame pointer from them.  Code without SFrame falls
 * back to the frame-pointer chain when the caller allows it.  Every step
 * is checked (the CFA moves up the stack, stays aligned and in user space,
 * the return address is a user address, the depth is bounded), and any
 * failed check ends the walk with its own enum sfu_stop_reason: the walk
 * never guesses and never loops.
 *
 * Architecture facts (registers, word size, where the frame-pointer chain
 * keeps the return address, pointer authentication) come from
 * arch/<arch>/unwind_arch.h; this header and core/unwind.c name no
 * architecture.
 */
#ifndef _SFRAME_UNWIND_UNWIND_H
#define _SFRAME_UNWIND_UNWIND_H

#include <linux/types.h>
#include "uapi/sframe_unwind.h"

struct pt_regs;
struct sfu_row_cache;

/**
 * enum sfu_stop_reason - why an unwind ended
 * @SFU_STOP_NONE: not stopped (internal; never returned)
 * @SFU_STOP_OUTERMOST: an SFrame row marks the outermost frame (return
 *	address undefined): the stack ends here, a normal end
 * @SFU_STOP_FP_END: the frame-pointer chain ends with a zero frame pointer,
 *	the ABI's marker of the outermost frame: a normal end
 * @SFU_STOP_DEPTH: the frame limit was reached (the caller's @max or the
 *	max_depth module parameter) and the stack goes on
 * @SFU_STOP_BAD_CFA: the computed CFA is below the stack pointer (or equal
 *	to it where the architecture does not allow that), misaligned, or
 *	outside user space
 * @SFU_STOP_CFA_NOT_INCREASING: the CFA did not move up the stack from the
 *	previous frame's: a cycle or corrupt data
 * @SFU_STOP_BAD_RA: the return address is zero or not a user address
 * @SFU_STOP_FAULT: stack memory could not be read (in no-fault mode this
 *	includes pages that are not present)
 * @SFU_STOP_NO_INFO: no usable SFrame row for the PC (no section, no
 *	function, bad or unreadable section data) and the frame-pointer
 *	fallback is not allowed
 * @SFU_STOP_COMPAT: a compat (32-bit) task, which has no SFrame unwinding,
 *	and the frame-pointer walk it would need is not allowed or not
 *	supported on this architecture
 * @SFU_STOP_BAD_RULE: the row needs a register only the topmost frame has
 *	(including an AArch64 return address still in the link register)
 *	in a deeper frame, or a register the architecture cannot supply
 * @SFU_STOP_SIGNAL: a signal frame (V3 SFrame signal FDE); unwinding
 *	through signal frames is not supported
 * @SFU_STOP_NOT_USER: there is no user context to unwind (kernel thread,
 *	no mm, registers not from user mode)
 * @SFU_STOP_NR: number of reasons (not a reason)
 *
 * Values are part of the user ABI (struct sfu_unwind.stop_reason).
 */
enum sfu_stop_reason {
	SFU_STOP_NONE,
	SFU_STOP_OUTERMOST,
	SFU_STOP_FP_END,
	SFU_STOP_DEPTH,
	SFU_STOP_BAD_CFA,
	SFU_STOP_CFA_NOT_INCREASING,
	SFU_STOP_BAD_RA,
	SFU_STOP_FAULT,
	SFU_STOP_NO_INFO,
	SFU_STOP_COMPAT,
	SFU_STOP_BAD_RULE,
	SFU_STOP_SIGNAL,
	SFU_STOP_NOT_USER,
	SFU_STOP_NR,
};

/* Where a rule's base value comes from. */
enum sfu_base {
	SFU_BASE_SP,		/* the frame's stack pointer */
	SFU_BASE_FP,		/* the frame's frame pointer */
	SFU_BASE_REG,		/* another register (DWARF number): topmost frame only */
};

/**
 * struct sfu_cfa_rule - CFA = base + offset, or *(base + offset)
 * @base: enum sfu_base
 * @deref: read a word at base + offset
 * @regnum: DWARF register number for SFU_BASE_REG
 * @offset: signed offset
 */
struct sfu_cfa_rule {
	u8 base;
	bool deref;
	u16 regnum;
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

/* sfu_frame_rules.flags */
#define SFU_RULES_OUTERMOST	0x1	/* no caller: the stack ends here */
#define SFU_RULES_SIGNAL	0x2	/* a signal frame */
#define SFU_RULES_CFA_BOUND	0x4	/* CFA is only a lower bound of the caller's SP */

/**
 * struct sfu_frame_rules - how to find a frame's caller
 * @cfa: the frame's canonical frame address (the caller's SP at the call)
 * @ra: the return address into the caller
 * @fp: the caller's frame pointer
 * @flags: SFU_RULES_*
 *
 * Register-based rules (SFU_BASE_REG, SFU_RULE_RETAIN of the return
 * address) are legal only in the topmost frame, the only one whose
 * registers are known.
 */
struct sfu_frame_rules {
	struct sfu_cfa_rule cfa;
	struct sfu_reg_rule ra;
	struct sfu_reg_rule fp;
	unsigned int flags;
};

/**
 * struct sfu_unwind_state - the frame being unwound
 * @ip: its instruction pointer (a return address but for the topmost frame)
 * @sp: its stack pointer
 * @fp: its frame pointer
 * @prev_cfa: CFA of the frame below it (0 for the topmost frame)
 * @regs: the task's registers, for rules of the topmost frame
 * @ws: word size of the task: 8, or 4 for compat tasks
 * @flags: SFU_UNWIND_* of this unwind
 * @topmost: this is the frame the registers describe
 * @sp_exact: @sp is the frame's stack pointer, not only a lower bound
 * @compat: a compat task: no SFrame
 * @done: the walk has ended; @stop says why
 * @stop: enum sfu_stop_reason
 * @method: enum sfu_frame_method that found @ip
 * @rows: the lookups of this unwind (sfu_find_row_cached()), which hold
 *        the RCU read lock between frames: released before any read that
 *        may sleep
 */
struct sfu_unwind_state {
	unsigned long ip;
	unsigned long sp;
	unsigned long fp;
	unsigned long prev_cfa;
	struct pt_regs *regs;
	unsigned int ws;
	unsigned int flags;
	bool topmost;
	bool sp_exact;
	bool compat;
	bool done;
	u8 stop;
	u8 method;
	struct sfu_row_cache *rows;
};

/* Depth limit when the max_depth module parameter is not set. */
#define SFU_UNWIND_DEFAULT_DEPTH	127
/* Highest value max_depth accepts. */
#define SFU_UNWIND_MAX_DEPTH		4096

#define SFU_UNWIND_ALL_FLAGS	(SFU_UNWIND_NOFAULT | SFU_UNWIND_NO_SFRAME | SFU_UNWIND_NO_FP)

int sfu_unwind_user(struct sfu_frame *frames, unsigned int max, unsigned int flags,
		    int *stop_reason);
int sfu_unwind_user_regs(struct pt_regs *regs, struct sfu_frame *frames,
			 unsigned int max, unsigned int flags, int *stop_reason);
unsigned int sfu_unwind_depth_limit(void);
int sfu_unwind_read(const struct sfu_unwind_state *st, unsigned long addr, void *dst,
		    size_t len);
const char *sfu_stop_reason_name(int reason);
unsigned long sfu_unwind_sframe_faults(void);

long sfu_unwind_ioctl(unsigned int cmd, void __user *arg);
int sfu_unwind_remote_pending(void);

int sfu_unwind_init(void);
void sfu_unwind_exit(void);

#endif /* _SFRAME_UNWIND_UNWIND_H */
