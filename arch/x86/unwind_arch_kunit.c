// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 side of the unwinder's KUnit suite (see kunit/unwind_kunit.h).
 */
#include <linux/bits.h>
#include <linux/string.h>
#include <asm/ptrace.h>
#include <asm/segment.h>

#include "kunit/unwind_kunit.h"
#include "sframe_unwind/arch.h"

const struct uw_arch_facts uw_arch = {
	.id = UW_ARCH_X86_64,
	.fixed_ra = -8,
	.fp_cfa_exact = true,
	.compat_fp_walk = true,
	.dwarf_sp = SFU_X86_DWARF_RSP,
	.dwarf_fp = SFU_X86_DWARF_RBP,
	.dwarf_scratch = 10,	/* r10 */
	.dwarf_bad = 17,	/* xmm0 */
	.call = { 0xff, 0xd0 },		/* call *%rax: goes anywhere */
	.call_len = 2,
	.dwarf_tracked = SFU_X86_DWARF_RBX,
	.fp_setup = { 0x55, 0x48, 0x89, 0xe5 },	/* push %rbp; mov %rsp,%rbp */
	.fp_setup_len = 4,
};

/**
 * uw_arch_set_regs() - fill pt_regs as the entry code would for @r
 * @regs: zeroed registers
 * @r: the values
 */
void uw_arch_set_regs(struct pt_regs *regs, const struct uw_user_regs *r)
{
	regs->ip = r->ip;
	regs->sp = r->sp;
	regs->bp = r->fp;
	regs->r10 = r->scratch;
	regs->r14 = r->go_g;
	regs->bx = r->tracked;
	if (r->kernel) {
		regs->cs = __KERNEL_CS;
		regs->ss = __KERNEL_DS;
	} else {
		regs->cs = r->compat ? __USER32_CS : __USER_CS;
		regs->ss = __USER_DS;
	}
}

/**
 * uw_arch_sign_ra() - a return address as pointer authentication would sign it
 * @ra: the address
 * @real: set to false: x86_64 has no pointer authentication
 *
 * Return: @ra with bits set where arm64 puts a PAC, which x86_64 must
 * refuse as a non-user address.
 */
unsigned long uw_arch_sign_ra(unsigned long ra, bool *real)
{
	*real = false;
	return ra | BIT_ULL(54) | BIT_ULL(53);
}

/**
 * uw_arch_return_address() - a return address as the unwinder takes it
 * @ra: recovered from a frame, signed or not
 *
 * Return: sfu_arch_return_address() of @ra (@ra itself).
 */
unsigned long uw_arch_return_address(unsigned long ra)
{
	return sfu_arch_return_address(ra);
}
