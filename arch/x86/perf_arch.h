/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 facts for native perf callchains (consumers/perf_callchain.c).
 */
#ifndef _SFU_ARCH_X86_PERF_ARCH_H
#define _SFU_ARCH_X86_PERF_ARCH_H

#include <asm/perf_event.h>
#include <asm/ptrace.h>

/**
 * sfu_perf_arch_native() - may the SFrame unwinder replace perf's user walk?
 * @regs: the user registers perf_callchain_user() was called with
 *
 * The stock walk (arch/x86/events/core.c) treats VM86 and 32-bit stacks
 * specially (segment bases, 4-byte frames); those stay with it.
 *
 * Return: true for a 64-bit user context.
 */
static inline bool sfu_perf_arch_native(struct pt_regs *regs)
{
	return user_mode(regs) && user_64bit_mode(regs) &&
	       !(regs->flags & (X86_VM_MASK | PERF_EFLAGS_VM));
}

#endif /* _SFU_ARCH_X86_PERF_ARCH_H */
