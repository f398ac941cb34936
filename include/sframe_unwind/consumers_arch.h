/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between the consumers (consumers/) and an architecture
 * (arch/<arch>/perf_arch.h), written once, as sframe_unwind/arch.h is the
 * unwinder's.  The architecture's header defines the hooks below, inline,
 * and marks each with a macro of its name; consumers include this header,
 * never the architecture's.
 *
 * Inline hooks (required):
 *   sfu_perf_arch_guest_sample()    a sample taken now is a KVM guest's
 *                                   (a vCPU thread inside its guest run),
 *                                   which every consumer leaves to the
 *                                   stock walks; any context, NMI included
 *   sfu_perf_arch_native(regs)      the unwinder may replace perf's own
 *                                   user walk for @regs: a native user
 *                                   context of the kind the module unwinds
 *                                   (64-bit, not a guest's sample); the
 *                                   rest stays with the stock walk
 *
 * Facts (macros, optional):
 *   SFU_PERF_ARCH_USER_WALK_CALLER  the kernel function whose calls of
 *                                   arch_stack_walk_user() are perf's
 *                                   (arm64's perf_callchain_user()), which
 *                                   the ftrace redirection leaves to the
 *                                   stock walk; undefined where perf walks
 *                                   the user stack itself (x86_64)
 */
#ifndef _SFU_CONSUMERS_ARCH_H
#define _SFU_CONSUMERS_ARCH_H

#include "perf_arch.h"

#if !defined(sfu_perf_arch_guest_sample) || !defined(sfu_perf_arch_native)
#error "the architecture's perf_arch.h lacks a hook of sframe_unwind/consumers_arch.h"
#endif

#endif /* _SFU_CONSUMERS_ARCH_H */
