/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 facts for native perf callchains (consumers/perf_callchain.c).
 */
#ifndef _SFU_ARCH_ARM64_PERF_ARCH_H
#define _SFU_ARCH_ARM64_PERF_ARCH_H

#include <asm/ptrace.h>

/**
 * sfu_perf_arch_native() - may the SFrame unwinder replace perf's user walk?
 * @regs: the user registers perf_callchain_user() was called with
 *
 * AArch32 (compat) stacks stay with the stock walk
 * (arch/arm64/kernel/perf_callchain.c), which knows their frame layout.
 *
 * Return: true for an AArch64 user context.
 */
static inline bool sfu_perf_arch_native(struct pt_regs *regs)
{
	return user_mode(regs) && !compat_user_mode(regs);
}

#endif /* _SFU_ARCH_ARM64_PERF_ARCH_H */
