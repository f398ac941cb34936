/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between the generic unwinder (unwind/) and an architecture
 * (arch/<arch>/unwind_arch.h, arch/<arch>/unwind_arch.c), written once.
 *
 * The architecture's header defines the facts below and the hooks that
 * must be inline; it may leave out those that have a default here, and
 * marks a hook it defines with a macro of the hook's name.  Its .c file
 * defines the out-of-line hooks declared at the end of this file.  The
 * hooks read and set the unwind state (unwind/unwind_state.h), so only
 * unwind/ and arch/ include this header.
 *
 * Facts (macros, required):
 *   SFU_ARCH_TOPMOST_CFA_MAY_BE_SP  the topmost frame's CFA may equal SP
 *                                   (a return address still in a register)
 *   SFU_ARCH_COMPAT_FP              compat tasks are unwound by their
 *                                   frame-pointer chain
 *   SFU_ARCH_FP_RECORD_ABOVE_LOCALS a frame record lies above the locals
 *                                   of its frame (which the frame-pointer
 *                                   checks then scan), not below them
 *   SFU_ARCH_DWARF_IP, _SP, _FP     DWARF numbers of the registers a signal
 *                                   step reads from the saved context
 *
 * Inline hooks (required):
 *   sfu_arch_start()                the topmost frame from pt_regs
 *   sfu_arch_pte_user_exec(), sfu_arch_pmd_user_exec()
 *                                   a page table entry maps user code
 *
 * Inline hooks with a default:
 *   sfu_arch_ra_in_register()       an RA the row leaves in a register:
 *                                   by default unusable (no link register)
 *   sfu_arch_return_address()       a recovered RA as the CPU uses it: by
 *                                   default unchanged (no signatures)
 *   SFU_ARCH_NR_TRACKED, sfu_arch_tracked_slot(),
 *   sfu_arch_tracked_regnum()       callee-saved registers followed below
 *                                   the topmost frame: by default none
 *   SFU_ARCH_INJECTED_LR, _LR_REG   where a frame entered by an injected
 *                                   call finds the link register (_REG, a
 *                                   tracked register) of the frame it
 *                                   interrupted, from its CFA: by default
 *                                   nowhere (no link register)
 *   sfu_arch_go_g(), SFU_ARCH_GO_RA_TO_CFA
 *                                   the register Go's ABI keeps its g in,
 *                                   and the bytes from systemstack()'s
 *                                   return address to its CFA (unwind/go.c):
 *                                   by default no g (0)
 */
#ifndef _SFU_ARCH_CONTRACT_H
#define _SFU_ARCH_CONTRACT_H

#include "sframe_unwind/unwind.h"
#include "unwind_state.h"
#include "unwind_arch.h"

#if !defined(SFU_ARCH_TOPMOST_CFA_MAY_BE_SP) || !defined(SFU_ARCH_COMPAT_FP) || \
	!defined(SFU_ARCH_FP_RECORD_ABOVE_LOCALS) || \
	!defined(SFU_ARCH_DWARF_IP) || !defined(SFU_ARCH_DWARF_SP) || !defined(SFU_ARCH_DWARF_FP)
#error "the architecture's unwind_arch.h lacks a fact of sframe_unwind/arch.h"
#endif

#ifndef sfu_arch_ra_in_register
/* No link register: a call pushes the RA, a row that keeps it elsewhere is corrupt. */
static inline bool sfu_arch_ra_in_register(struct sfu_reg_rule *ra)
{
	return false;
}
#endif

#ifndef sfu_arch_return_address
/* Return addresses carry no signature. */
static inline unsigned long sfu_arch_return_address(unsigned long ra)
{
	return ra;
}
#endif

#ifndef SFU_ARCH_NR_TRACKED
#define SFU_ARCH_NR_TRACKED		0

static inline int sfu_arch_tracked_slot(unsigned int regnum)
{
	return -1;
}

static inline unsigned int sfu_arch_tracked_regnum(int slot)
{
	return 0;
}
#endif

#ifndef sfu_arch_go_g
#define SFU_ARCH_GO_RA_TO_CFA		0
/* No Go ABI: no g register. */
static inline unsigned long sfu_arch_go_g(const struct pt_regs *regs)
{
	return 0;
}
#endif

/* Out of line, in arch/<arch>/unwind_arch.c (kernel-doc there). */
void sfu_arch_fp_rules(const struct sfu_unwind_state *st, struct sfu_frame_rules *r);
bool sfu_arch_reg_value(struct pt_regs *regs, unsigned int regnum, unsigned long *val);
bool sfu_arch_signal_frame(const struct sfu_unwind_state *st, unsigned long *sigctx);
bool sfu_arch_sigreturn_at(const struct sfu_unwind_state *st);
int sfu_arch_sigctx_reg(const struct sfu_unwind_state *st, unsigned int regnum,
			unsigned long *val);
int sfu_arch_call_before(const struct sfu_unwind_state *st, unsigned long ra,
			 unsigned long callee_ip, bool direct, unsigned long *callee);
bool sfu_arch_callee_holds(const struct sfu_unwind_state *st, unsigned long fn,
			   unsigned long ip);
bool sfu_arch_fn_sets_fp(const struct sfu_unwind_state *st, unsigned long start,
			 unsigned long ip);
bool sfu_arch_fp_record_live(const struct sfu_unwind_state *st, unsigned long start,
			     unsigned long ip);

#endif /* _SFU_ARCH_CONTRACT_H */
