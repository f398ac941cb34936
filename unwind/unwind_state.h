/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of one unwind, and what reads it: private to the unwinder
 * (unwind/) and the architecture's hooks (arch/<arch>/), which set and
 * read it.  The Kbuild gives this folder to arch/ for this header alone;
 * the consumers see the frames and stop reasons of sframe_unwind/unwind.h
 * and never the state (tests/check-layers holds every other folder to it).
 */
#ifndef _SFU_UNWIND_STATE_H
#define _SFU_UNWIND_STATE_H

#include <linux/types.h>

#include "sframe_unwind/rules.h"
#include "sframe_unwind/unwind.h"

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
 * @ip_exact: @ip is where the frame resumes, not a return address after a
 *	call: the frame below was entered by an injected call
 *	(SFU_RULES_INJECTED), so @ip is looked up as it is, as the topmost
 *	frame's
 * @compat: a compat task: no SFrame
 * @done: the walk has ended; @stop says why
 * @uncovered: the last lookup's PC is in a section's text that no
 *	function of it covers (sfu_lookup_uncovered()): code its file's CFI
 *	leaves out, whose frame records the fallback takes
 * @stop: enum sfu_end
 * @method: enum sfu_method that found @ip
 * @tracked_known: bit n: @tracked[n] holds the frame's value of the arch's
 *	n-th tracked callee-saved register (sfu_arch_tracked_slot())
 * @tracked: those values, for rules based on them below the topmost frame
 * @scan_left: stack words the frame-pointer checks may still read
 *	(sfu_fp_ra_check())
 * @switching: this step leaves code its file's CFI leaves out by its
 *	frame record, which may lead to another stack (Go's systemstack())
 * @switches_left: such steps to another stack the walk may still take
 * @found_below: this frame was found below the frame record that skipped
 *	it (sfu_fp_ra_check()), which the step out of it meets again
 * @fp_from_exact: this frame was found by the frame record the frame left
 *	pointed at, whose registers were exact, not below the record: if
 *	the step out of it fails, sfu_fp_unconfirmed() asks whether the
 *	frame left had set that record up (sfu_fp_record_live())
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
	bool ip_exact;
	bool compat;
	bool done;
	bool uncovered;
	u8 stop;
	u8 method;
	u8 tracked_known;
	struct sfu_lookup *rows;
	struct mm_struct *mm;
	struct task_struct *task;
	unsigned long tracked[SFU_MAX_SAVED_RULES];
	unsigned int scan_left;
	bool switching;
	u8 switches_left;
	bool found_below;
	bool fp_from_exact;
};

/* Stack words the frame-pointer checks of one unwind read at most. */
#define SFU_FP_SCAN_BUDGET	4096
/* Frame records of one unwind that may lead to another stack. */
#define SFU_STACK_SWITCHES	4

int sfu_unwind_read(const struct sfu_unwind_state *st, unsigned long addr, void *dst,
		    size_t len);
bool sfu_fn_start(const struct sfu_unwind_state *st, unsigned long ip, unsigned long *start);
bool sfu_fn_holds(const struct sfu_unwind_state *st, unsigned long fn, unsigned long ip,
		  unsigned long span);

#endif /* _SFU_UNWIND_STATE_H */
