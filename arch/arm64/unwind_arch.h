/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 facts for the generic user unwinder (the contract: include/sframe_unwind/arch.h).
 *
 * A call leaves the return address in the link register x30; a function
 * that calls others saves x29 and x30 as a frame record {x29, x30} on its
 * stack, so deeper frames find the return address at CFA - 8 and the
 * caller's x29 at CFA - 16 (the SFrame row says where).  The topmost frame
 * may still have its return address in x30, with SP unchanged: its CFA may
 * equal SP.  Return addresses may carry a pointer-authentication code
 * (-mbranch-protection=pac-ret), which is stripped from every recovered
 * return address.  Compat (AArch32) tasks are not unwound.
 */
#ifndef _SFU_ARCH_ARM64_UNWIND_ARCH_H
#define _SFU_ARCH_ARM64_UNWIND_ARCH_H

#include <linux/pgtable.h>
#include <asm/pointer_auth.h>
#include <asm/ptrace.h>

#include "sframe_unwind/compat/ptrauth.h"
#include "sframe_unwind/unwind.h"
#include "unwind_state.h"

/* At a function's entry the return address is in x30 and the CFA is SP. */
#define SFU_ARCH_TOPMOST_CFA_MAY_BE_SP	true
/* AArch32 frame-pointer conventions differ by compiler and mode: none. */
#define SFU_ARCH_COMPAT_FP		false
/* AAPCS64 frames keep the record {x29, x30} below the locals, at SP. */
#define SFU_ARCH_FP_RECORD_ABOVE_LOCALS	false

/* DWARF register numbers (AAPCS64). */
#define SFU_ARM64_DWARF_FP	29
#define SFU_ARM64_DWARF_LR	30
#define SFU_ARM64_DWARF_SP	31

/**
 * sfu_arch_start() - the topmost frame from the task's registers
 * @st: state to fill (ip, sp, fp, ws, compat)
 * @regs: user registers of the current task
 *
 * Return: 0, or SFU_END_NOT_USER if @regs are not from user mode.
 */
static inline int sfu_arch_start(struct sfu_unwind_state *st, struct pt_regs *regs)
{
	if (!user_mode(regs) && !compat_user_mode(regs))
		return SFU_END_NOT_USER;
	st->compat = compat_user_mode(regs);
	st->ws = st->compat ? sizeof(u32) : sizeof(u64);
	st->ip = instruction_pointer(regs);
	st->sp = user_stack_pointer(regs);
	st->fp = regs->regs[SFU_ARM64_DWARF_FP];
	return 0;
}

/* Go's systemstack(): its return address to its CFA (0(RSP) of systemstack()'s 16-byte frame). */
#define SFU_ARCH_GO_RA_TO_CFA		16

#define sfu_arch_go_g sfu_arch_go_g
/**
 * sfu_arch_go_g() - the register Go code keeps its g in
 * @regs: user registers of the task
 *
 * Go's X28.  Any value where the task runs other code:
 * unwind/go.c proves what it reads from it.
 *
 * Return: the register's value.
 */
static inline unsigned long sfu_arch_go_g(const struct pt_regs *regs)
{
	return regs->regs[28];
}

#define sfu_arch_ra_in_register sfu_arch_ra_in_register
/**
 * sfu_arch_ra_in_register() - the rule for "RA not saved by this row"
 * @ra: the return-address rule, SFU_RULE_RETAIN on entry
 *
 * The return address is then still in the link register: a register rule,
 * which only the topmost frame can use.
 *
 * Return: true (@ra now reads x30).
 */
static inline bool sfu_arch_ra_in_register(struct sfu_reg_rule *ra)
{
	ra->kind = SFU_RULE_REG;
	ra->base = SFU_BASE_REG;
	ra->regnum = SFU_ARM64_DWARF_LR;
	ra->offset = 0;
	return true;
}

#define sfu_arch_return_address sfu_arch_return_address
/**
 * sfu_arch_return_address() - a return address as the CPU will use it
 * @ra: value recovered from the stack or x30
 *
 * Strips the pointer-authentication code whether or not the SFrame row
 * says the address is signed: a stripped unsigned address is unchanged.
 *
 * Return: @ra without its PAC bits.
 */
static inline unsigned long sfu_arch_return_address(unsigned long ra)
{
	return sfu_ptrauth_strip_user(ra);
}

/**
 * sfu_arch_pte_user_exec() - does a present PTE map executable user code
 * @pte: the entry
 *
 * Return: true if it is valid (not PROT_NONE) and not user-execute-never.
 */
static inline bool sfu_arch_pte_user_exec(pte_t pte)
{
	return pte_valid(pte) && pte_user_exec(pte);
}

/**
 * sfu_arch_pmd_user_exec() - does a PMD block (huge page) map executable user code
 * @pmd: the entry
 *
 * Return: as sfu_arch_pte_user_exec() for the block's attributes.
 */
static inline bool sfu_arch_pmd_user_exec(pmd_t pmd)
{
	return sfu_arch_pte_user_exec(pmd_pte(pmd));
}

/*
 * The register followed below the topmost frame: x30, the link register,
 * which no rule lists as saved (the decoder refuses sections that would
 * list saved registers for AArch64: AArch64 code bases its CFA on SP or
 * x29), so that below the topmost frame, or one a signal interrupted, it
 * is known only in the frame an injected call interrupted
 * (SFU_ARCH_INJECTED_LR).  A leaf, whose return address is still in x30,
 * needs it there.
 */
#define SFU_ARCH_NR_TRACKED		1

/**
 * sfu_arch_tracked_slot() - the unwinder's slot of a tracked register
 * @regnum: DWARF register number
 *
 * Return: 0 for x30, else -1.
 */
static inline int sfu_arch_tracked_slot(unsigned int regnum)
{
	return regnum == SFU_ARM64_DWARF_LR ? 0 : -1;
}

/**
 * sfu_arch_tracked_regnum() - the register of a tracked slot
 * @slot: 0
 *
 * Return: x30's DWARF number.
 */
static inline unsigned int sfu_arch_tracked_regnum(int slot)
{
	return SFU_ARM64_DWARF_LR;
}

/*
 * The handler that fakes an injected call (Go's sigctxt.pushCall and
 * preparePanic) stores the interrupted frame's x30 16 bytes below that
 * frame's SP, then sets x30 to the interrupted PC: the word at CFA - 16 of
 * the frame it enters, whose CFA its rows put at the interrupted SP.
 */
#define SFU_ARCH_INJECTED_LR		(-16)
#define SFU_ARCH_INJECTED_LR_REG	SFU_ARM64_DWARF_LR

/* The registers a signal step reads from the saved context (PC: ours, 32). */
#define SFU_ARCH_DWARF_IP		32
#define SFU_ARCH_DWARF_SP		SFU_ARM64_DWARF_SP
#define SFU_ARCH_DWARF_FP		SFU_ARM64_DWARF_FP

#endif /* _SFU_ARCH_ARM64_UNWIND_ARCH_H */
