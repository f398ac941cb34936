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
 * failed check ends the walk with its own enum sfu_stop_reason: the walk
 * never guesses and never loops.
 *
 * Architecture facts (registers, word size, where the frame-pointer chain
 * keeps the return address, pointer authentication) come from
 * arch/<arch>/unwind_arch.h; this header and unwind/unwind.c name no
 * architecture.
 *
 * unwind/ is the layer above the registry: it calls the registry and lib/,
 * and the arch hooks; the consumers call it.
 */
#ifndef _SFRAME_UNWIND_UNWIND_H
#define _SFRAME_UNWIND_UNWIND_H

#include <linux/types.h>
#include "uapi/sframe_unwind.h"
#include "sframe_unwind/rules.h"

struct mm_struct;
struct pt_regs;
struct sfu_lookup;
struct task_struct;

/**
 * struct sfu_unwind_state - the frame being unwound
 * @ip: its instruction pointer (a return address but for the topmost frame)
 * @sp: its stack pointer
 * @fp: its frame pointer
 * @prev_cfa: CFA of the frame below it (0 for the topmost frame)
 * @regs: the task's registers, for rules of the topmost frame
 * @ws: word size of the task: 8, or 4 for compat tasks
 * @flags: SFU_UNWIND_* of this unwind
 * @topmost: this is a frame whose registers are all known: the one the
 *	task's registers describe, or one a signal interrupted (@sigctx)
 * @sigctx: user address of the registers the kernel saved for the frame a
 *	signal interrupted (0: the registers are @regs)
 * @sp_exact: @sp is the frame's stack pointer, not only a lower bound
 * @compat: a compat task: no SFrame
 * @done: the walk has ended; @stop says why
 * @stop: enum sfu_stop_reason
 * @method: enum sfu_frame_method that found @ip
 * @tracked_known: bit n: @tracked[n] holds the frame's value of the arch's
 *	n-th tracked callee-saved register (sfu_arch_tracked_slot())
 * @tracked: those values, for rules based on them below the topmost frame
 * @scan_left: stack words the frame-pointer checks may still read
 *	(sfu_fp_ra_check())
 * @rows: the lookups of this unwind (sfu_lookup_rules()), which hold
 *        the RCU read lock between frames: released before any read that
 *        may sleep
 * @mm: the address space of the stack: current's, or @task's
 * @task: the task unwound from another one (sfu_unwind_task_regs()), whose
 *        memory is read with access_process_vm(); NULL for current
 */
struct sfu_unwind_state {
	unsigned long ip;
	unsigned long sp;
	unsigned long fp;
	unsigned long prev_cfa;
	struct pt_regs *regs;
	unsigned int ws;
	unsigned int flags;
	unsigned long sigctx;
	bool topmost;
	bool sp_exact;
	bool compat;
	bool done;
	u8 stop;
	u8 method;
	u8 tracked_known;
	struct sfu_lookup *rows;
	struct mm_struct *mm;
	struct task_struct *task;
	unsigned long tracked[SFU_MAX_SAVED_RULES];
	unsigned int scan_left;
};

/* Stack words the frame-pointer checks of one unwind read at most. */
#define SFU_FP_SCAN_BUDGET	4096

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

int sfu_unwind_user(struct sfu_frame *frames, unsigned int max, unsigned int flags,
		    int *stop_reason);
int sfu_unwind_user_regs(struct pt_regs *regs, struct sfu_frame *frames,
			 unsigned int max, unsigned int flags, int *stop_reason);
int sfu_unwind_task_regs(struct task_struct *task, struct mm_struct *mm, struct pt_regs *regs,
			 struct sfu_frame *frames, unsigned int max, unsigned int flags,
			 int *stop_reason);
int sfu_unwind_user_walk(struct pt_regs *regs, sfu_unwind_consume_fn consume, void *cookie,
			 unsigned int flags, int *stop_reason);
unsigned int sfu_unwind_depth_limit(void);
int sfu_unwind_read(const struct sfu_unwind_state *st, unsigned long addr, void *dst,
		    size_t len);
const char *sfu_stop_reason_name(int reason);
unsigned long sfu_unwind_sframe_faults(void);

int sfu_unwind_init(void);
void sfu_unwind_exit(void);

#endif /* _SFRAME_UNWIND_UNWIND_H */
