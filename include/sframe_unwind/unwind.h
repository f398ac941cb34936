/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic user-space stack unwinder.
 *
 * Walks the user stack of the current task one frame at a time (or, from
 * process context, that of another task that is not running:
 * sfu_unwind_task_regs()).  For each frame it asks the registry for the
 * rules that cover the frame's PC (struct sfu_frame_rules, format-neutral:
 * the unwinder never sees an SFrame row), and one common step computes the
 * CFA, the caller's return address and frame pointer from them.  Code the registry has no rules for
 * falls back to the frame-pointer chain when the caller allows it.  Every step
 * is checked (the CFA moves up the stack, stays aligned and in user space,
 * the return address is a user address, the depth is bounded), and any
 * failed check ends the walk with its own enum sfu_end: the walk
 * never guesses and never loops.
 *
 * Architecture facts (registers, word size, where the frame-pointer chain
 * keeps the return address, pointer authentication) come from
 * arch/<arch>/unwind_arch.h; this header and the files of unwind/ name
 * no architecture.  The state of an unwind (struct sfu_unwind_state,
 * unwind/unwind_state.h) is unwind/'s and the architecture's alone: the
 * consumers see the frames and the stop reasons.
 *
 * unwind/ is the layer above the registry: it calls the registry and lib/,
 * and the arch hooks; the consumers call it.
 */
#ifndef _SFRAME_UNWIND_UNWIND_H
#define _SFRAME_UNWIND_UNWIND_H

#include <linux/stddef.h>
#include <linux/types.h>
#include "uapi/sframe_unwind.h"
#include "sframe_unwind/rules.h"

/**
 * enum sfu_method - how the unwinder found a frame
 * @SFU_METHOD_NONE: no frame (the one before the topmost)
 * @SFU_METHOD_REGS: the topmost frame, from the task's registers
 * @SFU_METHOD_SFRAME: from the rules the registry has for the PC
 * @SFU_METHOD_FP: by following the frame-pointer chain
 * @SFU_METHOD_SIGNAL: the code a signal interrupted, from the registers the
 *	kernel saved in the signal frame below it
 * @SFU_METHOD_NR: number of values (not a method)
 *
 * Kernel-internal: user space sees enum sfu_frame_method, whose values
 * these keep (the static_asserts at the end of this header).
 */
enum sfu_method {
	SFU_METHOD_NONE,
	SFU_METHOD_REGS,
	SFU_METHOD_SFRAME,
	SFU_METHOD_FP,
	SFU_METHOD_SIGNAL,
	SFU_METHOD_NR,
};

/**
 * struct sfu_uframe - one frame of an unwound user stack
 * @ip: the frame's instruction pointer (a return address but for frame 0)
 * @cfa: its canonical frame address, 0 when not known
 * @method: enum sfu_method that found @ip
 * @zero: 0
 *
 * Kernel-internal: the ioctls hand user space struct sfu_frame.  Laid out
 * as that is on 64-bit kernels, with @zero where it has its reserved
 * word, so that a deep stack goes out in one copy (the static_asserts at
 * the end of this header).
 */
struct sfu_uframe {
	unsigned long ip;
	unsigned long cfa;
	u32 method;
	u32 zero;
};

/**
 * enum sfu_end - why an unwind ended
 * @SFU_END_NONE: not ended: the step succeeded (never the reason of a walk)
 * @SFU_END_OUTERMOST: the rules mark the outermost frame (return address
 *	undefined): the stack ends here, a normal end
 * @SFU_END_FP_END: the frame-pointer chain ends with a zero frame pointer,
 *	the ABI's marker of the outermost frame: a normal end
 * @SFU_END_DEPTH: the frame limit was reached (the caller's or the
 *	max_depth module parameter) and the stack goes on
 * @SFU_END_BAD_CFA: the computed CFA is below the stack pointer (or equal
 *	to it where the architecture does not allow that), misaligned, or
 *	outside user space
 * @SFU_END_CFA_NOT_INCREASING: the CFA did not move up the stack from the
 *	previous frame's: a cycle or corrupt data
 * @SFU_END_BAD_RA: the return address is zero or not a user address
 * @SFU_END_FAULT: stack memory could not be read (in no-fault mode this
 *	includes pages that are not present)
 * @SFU_END_NO_INFO: no usable rules for the PC (no section, no function,
 *	bad or unreadable section data) and the frame-pointer fallback is
 *	not allowed; inside the walk also "this method has nothing for the
 *	frame, try the next"
 * @SFU_END_COMPAT: a compat (32-bit) task, which has no SFrame unwinding,
 *	and the frame-pointer walk it would need is not allowed or not
 *	supported on this architecture
 * @SFU_END_BAD_RULE: the rules need a register only the topmost frame has
 *	(including an AArch64 return address still in the link register)
 *	in a deeper frame, or a register the architecture cannot supply
 * @SFU_END_SIGNAL: a signal frame (V3 SFrame signal FDE) whose saved
 *	registers cannot be used: a compat task, or an architecture without
 *	the hook
 * @SFU_END_NOT_USER: there is no user context to unwind (kernel thread,
 *	no mm, registers not from user mode)
 * @SFU_END_RA_NOT_TEXT: a return address found without rules (the
 *	frame-pointer fallback) is not in executable user memory: the
 *	page-table entry of its call instruction's last byte is not
 *	user-executable, or nothing is mapped there
 * @SFU_END_RA_NOT_CALL: such a return address is in executable memory,
 *	but no call instruction ends there
 * @SFU_END_RA_UNCHECKED: such a return address could not be checked: its
 *	page is not present (no-fault unwinds) or its instruction bytes could
 *	not be read
 * @SFU_END_FP_SKIPS: the frame-pointer fallback found a frame record
 *	above a word of the frame that is itself a return address (in text,
 *	after a call): the frame pointer is not the frame's, and its record
 *	would skip frames
 * @SFU_END_RA_OTHER_CALLEE: the direct call before such a return address
 *	goes to code that cannot have led to the frame it would return from
 *	(a stale return address in a frame without frame pointers)
 * @SFU_END_FP_UNCONFIRMED: a frame the frame-pointer fallback found was
 *	dropped, because the step out of it failed: a caller is reported
 *	only where the walk can go on from it (or the stack ends there), so
 *	that a stale frame record does not become a frame
 * @SFU_END_NR: number of reasons (not a reason)
 *
 * Kernel-internal, so that a new reason is no ABI change: user space sees
 * enum sfu_stop_reason, which sfu_end_uapi() gives for each of these.
 */
enum sfu_end {
	SFU_END_NONE,
	SFU_END_OUTERMOST,
	SFU_END_FP_END,
	SFU_END_DEPTH,
	SFU_END_BAD_CFA,
	SFU_END_CFA_NOT_INCREASING,
	SFU_END_BAD_RA,
	SFU_END_FAULT,
	SFU_END_NO_INFO,
	SFU_END_COMPAT,
	SFU_END_BAD_RULE,
	SFU_END_SIGNAL,
	SFU_END_NOT_USER,
	SFU_END_RA_NOT_TEXT,
	SFU_END_RA_NOT_CALL,
	SFU_END_RA_UNCHECKED,
	SFU_END_FP_SKIPS,
	SFU_END_RA_OTHER_CALLEE,
	SFU_END_FP_UNCONFIRMED,
	SFU_END_NR,
};

struct mm_struct;
struct pt_regs;
struct task_struct;

/* Depth limit when the max_depth module parameter is not set. */
#define SFU_UNWIND_DEFAULT_DEPTH	127
/* Highest value max_depth accepts. */
#define SFU_UNWIND_MAX_DEPTH		4096

#define SFU_UNWIND_ALL_FLAGS	(SFU_UNWIND_NOFAULT | SFU_UNWIND_NO_SFRAME | SFU_UNWIND_NO_FP)

/*
 * Takes one frame's IP of sfu_unwind_user_walk(); false ends the walk.  The
 * signature of the kernel's stack_trace_consume_fn.
 */
typedef bool (*sfu_unwind_consume_fn)(void *cookie, unsigned long ip);

int sfu_unwind_user(struct sfu_uframe *frames, unsigned int max, unsigned int flags,
		    int *stop_reason);
int sfu_unwind_user_regs(struct pt_regs *regs, struct sfu_uframe *frames,
			 unsigned int max, unsigned int flags, int *stop_reason);
int sfu_unwind_task_regs(struct task_struct *task, struct mm_struct *mm, struct pt_regs *regs,
			 struct sfu_uframe *frames, unsigned int max, unsigned int flags,
			 int *stop_reason);
int sfu_unwind_user_walk(struct pt_regs *regs, sfu_unwind_consume_fn consume, void *cookie,
			 unsigned int flags, int *stop_reason);
unsigned int sfu_unwind_depth_limit(void);
const char *sfu_end_name(int end);
int sfu_end_uapi(int end);

/*
 * struct sfu_uframe is the user ABI's struct sfu_frame as it stands: the
 * same layout on the 64-bit kernels the module builds for, and methods of
 * the ABI's values, so that the ioctls copy the frames out as they are,
 * in one copy.  An internal method the ABI does not have, a renumbering
 * or a field moved fails the build here.
 */
static_assert(sizeof(struct sfu_uframe) == sizeof(struct sfu_frame));
static_assert(offsetof(struct sfu_uframe, ip) == offsetof(struct sfu_frame, ip));
static_assert(offsetof(struct sfu_uframe, cfa) == offsetof(struct sfu_frame, cfa));
static_assert(offsetof(struct sfu_uframe, method) == offsetof(struct sfu_frame, method));
static_assert(offsetof(struct sfu_uframe, zero) == offsetof(struct sfu_frame, reserved));
static_assert(sizeof(unsigned long) == sizeof(__u64));
static_assert(SFU_METHOD_NONE == 0);
static_assert((int)SFU_METHOD_REGS == (int)SFU_FRAME_REGS);
static_assert((int)SFU_METHOD_SFRAME == (int)SFU_FRAME_SFRAME);
static_assert((int)SFU_METHOD_FP == (int)SFU_FRAME_FP);
static_assert((int)SFU_METHOD_SIGNAL == (int)SFU_FRAME_SIGNAL);
static_assert(SFU_METHOD_NR - 1 == SFU_METHOD_SIGNAL);

unsigned long sfu_unwind_sframe_faults(void);

int sfu_unwind_init(void);
void sfu_unwind_exit(void);

#endif /* _SFRAME_UNWIND_UNWIND_H */
