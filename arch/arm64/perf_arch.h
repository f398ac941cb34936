/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 facts for native perf callchains (consumers/perf_callchain.c):
 * the hooks of sframe_unwind/consumers_arch.h.
 */
#ifndef _SFU_ARCH_ARM64_PERF_ARCH_H
#define _SFU_ARCH_ARM64_PERF_ARCH_H

#include <linux/sched.h>
#include <asm/ptrace.h>

/*
 * A vCPU is loaded on this CPU: what makes arm64's perf_guest_state()
 * (KVM's kvm_guest_state(): kvm_arch_pmi_in_guest() is "a running vCPU"
 * with GUEST_PERF_EVENTS) report a guest sample.  KVM is built in on
 * arm64 and exports kvm_get_running_vcpu().
 */
#if IS_ENABLED(CONFIG_KVM) && IS_ENABLED(CONFIG_GUEST_PERF_EVENTS)
#include <linux/kvm_host.h>
#define sfu_perf_arch_in_guest()	(!!kvm_get_running_vcpu())
#else
#define sfu_perf_arch_in_guest()	false
#endif

/**
 * sfu_perf_arch_guest_sample() - is a sample taken now a KVM guest's?
 *
 * A vCPU loaded on this CPU, or a thread with PF_VCPU (see below): what
 * the stock walks leave alone, so do all of the module's consumers.
 *
 * Context: any, NMI included.
 * Return: true while a vCPU runs.
 */
static inline bool sfu_perf_arch_guest_sample(void)
{
	return (current->flags & PF_VCPU) || sfu_perf_arch_in_guest();
}

#define sfu_perf_arch_guest_sample sfu_perf_arch_guest_sample

/**
 * sfu_perf_arch_native() - may the SFrame unwinder replace perf's user walk?
 * @regs: the user registers perf_callchain_user() was called with
 *
 * AArch32 (compat) stacks stay with the stock walk
 * (arch/arm64/kernel/perf_callchain.c), which knows their frame layout.
 * So do samples taken while a KVM vCPU runs, for which the stock walk
 * records no user stack (perf_guest_state(), whose static call is not
 * exported, asks KVM whether a vCPU is loaded on this CPU, and so does
 * this hook), and those of a thread with PF_VCPU, which is in a guest run
 * whatever the configuration.
 *
 * Context: any, NMI included.
 * Return: true for an AArch64 user context outside a vCPU's run.
 */
static inline bool sfu_perf_arch_native(struct pt_regs *regs)
{
	if (sfu_perf_arch_guest_sample())
		return false;
	return user_mode(regs) && !compat_user_mode(regs);
}

#define sfu_perf_arch_native sfu_perf_arch_native

/*
 * The function of the kernel whose calls of arch_stack_walk_user() are
 * perf's: arm64's perf_callchain_user() walks the user stack with it on
 * the kernels whose ftrace user stacks can be redirected (6.12 and 7.2;
 * 6.1 has its own walk there, and no USER_STACKTRACE_SUPPORT).  Those
 * calls belong to perf's callchains, which the perf_callchain parameter
 * alone decides: the redirection of ftrace's user stacks
 * (consumers/ftrace_userstack.c) leaves the calls made from this function
 * to the stock walk.  x86_64's perf walks the user stack itself, and
 * defines no such name.
 */
#define SFU_PERF_ARCH_USER_WALK_CALLER	"perf_callchain_user"

#endif /* _SFU_ARCH_ARM64_PERF_ARCH_H */
