// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 side of the unwinder's KUnit suite (see kunit/unwind_kunit.h).
 */
#include <linux/bits.h>
#include <linux/string.h>
#include <asm/ptrace.h>

#include "kunit/unwind_kunit.h"
#include "sframe_unwind/arch.h"

const struct uw_arch_facts uw_arch = {
	.id = UW_ARCH_ARM64,
	.fixed_ra = 0,
	.fp_cfa_exact = false,
	.compat_fp_walk = false,
	.dwarf_sp = SFU_ARM64_DWARF_SP,
	.dwarf_fp = SFU_ARM64_DWARF_FP,
	.dwarf_scratch = 9,	/* x9 */
	.dwarf_bad = 32,	/* not a general register */
	.call = { 0x00, 0x00, 0x3f, 0xd6 },	/* blr x0: goes anywhere */
	.call_len = 4,
	/* stp x29, x30, [sp, #-16]!; mov x29, sp */
	.fp_setup = { 0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0x91 },
	.fp_setup_len = 8,
};

/**
 * uw_arch_set_regs() - fill pt_regs as the entry code would for @r
 * @regs: zeroed registers
 * @r: the values
 */
void uw_arch_set_regs(struct pt_regs *regs, const struct uw_user_regs *r)
{
	regs->pc = r->ip;
	regs->sp = r->sp;
	regs->regs[29] = r->fp;
	regs->regs[30] = r->lr;
	regs->regs[9] = r->scratch;
	regs->regs[28] = r->go_g;
	if (r->kernel)
		regs->pstate = PSR_MODE_EL1h;
	else if (r->compat)
		regs->pstate = PSR_MODE32_BIT | PSR_AA32_MODE_USR;
	else
		regs->pstate = PSR_MODE_EL0t;
}

/**
 * uw_arch_sign_ra() - sign a return address with pointer authentication
 * @ra: the (user) address
 * @real: set to true when the CPU signed it
 *
 * Uses PACIA1716 (a hint: a no-op without pointer authentication or with
 * the key disabled); where it does nothing, sets two bits of the PAC field
 * instead, which a user PAC strip must clear all the same.
 *
 * Return: the signed address.
 */
unsigned long uw_arch_sign_ra(unsigned long ra, bool *real)
{
	register unsigned long x17 asm("x17") = ra;
	register unsigned long x16 asm("x16") = 0x5fu;

	asm volatile("hint #8" : "+r" (x17) : "r" (x16));	/* pacia1716 */
	*real = x17 != ra;
	if (!*real)
		x17 = ra | BIT_ULL(54) | BIT_ULL(53);
	return x17;
}

/**
 * uw_arch_return_address() - a return address as the unwinder takes it
 * @ra: recovered from a frame, signed or not
 *
 * Return: sfu_arch_return_address() of @ra (its PAC stripped).
 */
unsigned long uw_arch_return_address(unsigned long ra)
{
	return sfu_arch_return_address(ra);
}
