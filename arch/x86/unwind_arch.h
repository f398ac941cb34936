/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 facts for the generic user unwinder (the contract: include/sframe_unwind/arch.h).
 *
 * The return address is always on the stack, at CFA - 8 (SFrame's fixed
 * RA offset): there is no link register.  The frame-pointer chain is
 * "push %rbp; mov %rsp,%rbp", so CFA = RBP + 16, the caller's RBP at
 * CFA - 16.  Compat (32-bit) tasks have no SFrame; their frame-pointer
 * chain is the same with 4-byte words.
 */
#ifndef _SFU_ARCH_X86_UNWIND_ARCH_H
#define _SFU_ARCH_X86_UNWIND_ARCH_H

#include <linux/pgtable.h>
#include <asm/ptrace.h>

#include "sframe_unwind/unwind.h"
#include "unwind_state.h"

/* A frame's CFA is at least one word (the return address) above its SP. */
#define SFU_ARCH_TOPMOST_CFA_MAY_BE_SP	false
/* Compat tasks can be unwound by their frame-pointer chain. */
#define SFU_ARCH_COMPAT_FP		true
/* "push %rbp; mov %rsp,%rbp": the frame record lies above the frame's locals. */
#define SFU_ARCH_FP_RECORD_ABOVE_LOCALS	true

/* DWARF register numbers (x86-64 psABI). */
#define SFU_X86_DWARF_RBX	3
#define SFU_X86_DWARF_RBP	6
#define SFU_X86_DWARF_RSP	7
#define SFU_X86_DWARF_RIP	16

/**
 * sfu_arch_start() - the topmost frame from the task's registers
 * @st: state to fill (ip, sp, fp, ws, compat)
 * @regs: user registers of the current task
 *
 * Return: 0, or SFU_END_NOT_USER if @regs are not from user mode.
 */
static inline int sfu_arch_start(struct sfu_unwind_state *st, struct pt_regs *regs)
{
	if (!user_mode(regs))
		return SFU_END_NOT_USER;
	st->compat = !user_64bit_mode(regs);
	st->ws = st->compat ? sizeof(u32) : sizeof(u64);
	st->ip = regs->ip;
	st->sp = regs->sp;
	st->fp = regs->bp;
	if (st->compat) {
		st->ip = (u32)st->ip;
		st->sp = (u32)st->sp;
		st->fp = (u32)st->fp;
	}
	return 0;
}

/* Go's systemstack(): its return address to its CFA (the slot a call pushed). */
#define SFU_ARCH_GO_RA_TO_CFA		8

#define sfu_arch_go_g sfu_arch_go_g
/**
 * sfu_arch_go_g() - the register Go code keeps its g in
 * @regs: user registers of the task
 *
 * Go's R14 (ABIInternal, Go 1.17 and later).  Any value where the task runs other code:
 * unwind/go.c proves what it reads from it.
 *
 * Return: the register's value.
 */
static inline unsigned long sfu_arch_go_g(const struct pt_regs *regs)
{
	return regs->r14;
}

/* Present, user-accessible and not no-execute: code the task may run. */
#define SFU_X86_USER_TEXT_MASK	(_PAGE_PRESENT | _PAGE_USER | _PAGE_NX)
#define SFU_X86_USER_TEXT	(_PAGE_PRESENT | _PAGE_USER)

/**
 * sfu_arch_pte_user_exec() - does a present PTE map executable user code
 * @pte: the entry
 *
 * Return: true if user mode may execute from the page.
 */
static inline bool sfu_arch_pte_user_exec(pte_t pte)
{
	return (pte_flags(pte) & SFU_X86_USER_TEXT_MASK) == SFU_X86_USER_TEXT;
}

/**
 * sfu_arch_pmd_user_exec() - does a PMD leaf (huge page) map executable user code
 * @pmd: the entry
 *
 * Return: true if user mode may execute from the page.
 */
static inline bool sfu_arch_pmd_user_exec(pmd_t pmd)
{
	return (pmd_flags(pmd) & SFU_X86_USER_TEXT_MASK) == SFU_X86_USER_TEXT;
}

/*
 * Callee-saved registers the unwinder follows below the topmost frame, as
 * rules that list saved registers (SFU_RULES_SAVED_REGS) recover them:
 * rbx, the one but rbp that code uses as a CFA base across a call (ld.so's
 * _dl_runtime_resolve_*: CFA = rbx + 24 while it calls _dl_fixup).
 */
#define SFU_ARCH_NR_TRACKED		1

/**
 * sfu_arch_tracked_slot() - the unwinder's slot of a tracked register
 * @regnum: DWARF register number
 *
 * Return: 0 to SFU_ARCH_NR_TRACKED - 1, or -1 if it is not tracked.
 */
static inline int sfu_arch_tracked_slot(unsigned int regnum)
{
	return regnum == SFU_X86_DWARF_RBX ? 0 : -1;
}

/**
 * sfu_arch_tracked_regnum() - the register of a tracked slot
 * @slot: 0 to SFU_ARCH_NR_TRACKED - 1
 *
 * Return: its DWARF register number.
 */
static inline unsigned int sfu_arch_tracked_regnum(int slot)
{
	return SFU_X86_DWARF_RBX;
}

/* The registers a signal step reads from the saved context. */
#define SFU_ARCH_DWARF_IP		SFU_X86_DWARF_RIP
#define SFU_ARCH_DWARF_SP		SFU_X86_DWARF_RSP
#define SFU_ARCH_DWARF_FP		SFU_X86_DWARF_RBP

#endif /* _SFU_ARCH_X86_UNWIND_ARCH_H */
