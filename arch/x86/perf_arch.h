/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 facts for native perf callchains (consumers/perf_callchain.c):
 * the hooks of sframe_unwind/consumers_arch.h.
 */
#ifndef _SFU_ARCH_X86_PERF_ARCH_H
#define _SFU_ARCH_X86_PERF_ARCH_H

#include <linux/sched.h>
#include <asm/perf_event.h>
#include <asm/ptrace.h>

/**
 * sfu_perf_arch_guest_sample() - is a sample taken now a KVM guest's?
 *
 * While a vCPU thread runs its guest it has PF_VCPU (see below): what the
 * stock walks leave alone, so do all of the module's consumers.
 *
 * Context: any, NMI included.
 * Return: true inside a vCPU's guest run.
 */
static inline bool sfu_perf_arch_guest_sample(void)
{
	return current->flags & PF_VCPU;
}

#define sfu_perf_arch_guest_sample sfu_perf_arch_guest_sample

/**
 * sfu_perf_arch_native() - may the SFrame unwinder replace perf's user walk?
 * @regs: the user registers perf_callchain_user() was called with
 *
 * The stock walk (arch/x86/events/core.c) treats VM86 and 32-bit stacks
 * specially (segment bases, 4-byte frames); those stay with it.  So do
 * samples taken while a KVM vCPU runs: the stock walk records no user
 * stack when perf_guest_state() says the sample is the guest's, and that
 * static call is not exported.  KVM only says so (handling_intr_from_guest,
 * set around the interrupts and NMIs that made the vCPU exit) inside
 * guest_timing_enter_irqoff() .. guest_timing_exit_irqoff(), where the
 * vCPU thread has PF_VCPU set: with PF_VCPU the stock function runs and
 * decides itself, exactly as without the module.
 *
 * Context: any, NMI included.
 * Return: true for a 64-bit user context outside a vCPU's guest run.
 */
static inline bool sfu_perf_arch_native(struct pt_regs *regs)
{
	if (sfu_perf_arch_guest_sample())
		return false;
	return user_mode(regs) && user_64bit_mode(regs) &&
	       !(regs->flags & (X86_VM_MASK | PERF_EFLAGS_VM));
}

#define sfu_perf_arch_native sfu_perf_arch_native

#endif /* _SFU_ARCH_X86_PERF_ARCH_H */
