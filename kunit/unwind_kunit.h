/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the unwinder's KUnit suite (kunit/unwind_kunit.c) needs to know
 * about the architecture it runs on: the SFrame ABI, how to build user
 * registers, and a few ABI facts.  Each arch/<arch>/unwind_arch_kunit.c
 * provides it.
 */
#ifndef _SFU_KUNIT_UNWIND_KUNIT_H
#define _SFU_KUNIT_UNWIND_KUNIT_H

#include <linux/types.h>

struct pt_regs;

#define UW_ARCH_X86_64	0x1
#define UW_ARCH_ARM64	0x2

/**
 * struct uw_arch_facts - the architecture the suite runs on
 * @id: UW_ARCH_*
 * @fixed_ra: the header's cfa_fixed_ra_offset (-8 on x86_64, else 0)
 * @fp_cfa_exact: a frame-pointer step knows the caller's SP exactly
 *                (x86_64), rather than a lower bound (arm64)
 * @compat_fp_walk: compat tasks are unwound through their frame pointers
 * @dwarf_sp: DWARF number of the stack pointer
 * @dwarf_fp: DWARF number of the frame pointer
 * @dwarf_scratch: DWARF number of a general register uw_arch_set_regs() sets
 * @dwarf_bad: a DWARF number the unwinder cannot read from pt_regs
 * @call: a call instruction, which the frame-pointer fallback's return
 *        addresses must follow
 * @call_len: its length in bytes
 * @dwarf_tracked: DWARF number of the callee-saved register the unwinder
 *                 tracks below the topmost frame (x86_64 rbx); 0: none
 * @fp_setup: a function's start that sets up its frame record (x86_64
 *            push %rbp; mov %rsp,%rbp, arm64 stp x29, x30, [sp, #-16]!;
 *            mov x29, sp)
 * @fp_setup_len: its length in bytes
 */
struct uw_arch_facts {
	unsigned int id;
	s8 fixed_ra;
	bool fp_cfa_exact;
	bool compat_fp_walk;
	u16 dwarf_sp;
	u16 dwarf_fp;
	u16 dwarf_scratch;
	u16 dwarf_bad;
	u8 call[8];
	u8 call_len;
	u16 dwarf_tracked;
	u8 fp_setup[8];
	u8 fp_setup_len;
};

/**
 * struct uw_user_regs - the registers a case starts from
 * @ip: instruction pointer
 * @sp: stack pointer
 * @fp: frame pointer
 * @lr: link register (arm64 x30; ignored on x86_64)
 * @scratch: the register numbered uw_arch_facts.dwarf_scratch
 * @tracked: the register numbered uw_arch_facts.dwarf_tracked, if any
 * @go_g: Go's g register (x86_64 r14, arm64 x28)
 * @compat: a compat (32-bit) task
 * @kernel: registers of kernel mode rather than user mode
 */
struct uw_user_regs {
	unsigned long ip;
	unsigned long sp;
	unsigned long fp;
	unsigned long lr;
	unsigned long scratch;
	unsigned long tracked;
	unsigned long go_g;
	bool compat;
	bool kernel;
};

extern const struct uw_arch_facts uw_arch;

void uw_arch_set_regs(struct pt_regs *regs, const struct uw_user_regs *r);
unsigned long uw_arch_sign_ra(unsigned long ra, bool *real);
unsigned long uw_arch_return_address(unsigned long ra);

#endif /* _SFU_KUNIT_UNWIND_KUNIT_H */
