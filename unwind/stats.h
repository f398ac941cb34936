/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counters of unwind/, per CPU so that counting costs nothing in NMI
 * context: the user unwinder's, shown in <debugfs>/sframe_unwind/unwind_stats
 * (unwind_stats.c), and deferred unwinding's, in deferred_stats
 * (deferred_stats.c).
 */
#ifndef _SFU_UNWIND_STATS_H
#define _SFU_UNWIND_STATS_H

#include <linux/build_bug.h>
#include <linux/percpu.h>
#include <linux/types.h>

#include "sframe_unwind/counters.h"
#include "sframe_unwind/unwind.h"

/*
 * The user unwinder's counters, in the order unwind_stats prints them:
 * X(constant, name, what it counts), the text Documentation/reference.rst
 * gives each (sframe_unwind/counters.h).  The frames_* counters follow
 * enum sfu_method from SFU_METHOD_REGS, the stop_* ones enum sfu_end from
 * SFU_END_OUTERMOST, each named after its sfu_end_name() (KUnit checks
 * it): SFU_UW_FRAMES() and SFU_UW_STOP() below.
 */
#define SFU_UNWIND_COUNTERS(X)								\
	X(SFU_UW_UNWINDS, "unwinds",							\
	  "unwinds (``sfu_unwind_user_regs()`` calls with valid arguments)")		\
	X(SFU_UW_FRAMES_REGS, "frames_regs",						\
	  "frames found from the task's registers (the topmost of each unwind)")	\
	X(SFU_UW_FRAMES_SFRAME, "frames_sframe", "frames found from an SFrame row")	\
	X(SFU_UW_FRAMES_FP, "frames_fp", "frames found by the frame-pointer chain")	\
	X(SFU_UW_FRAMES_SIGNAL, "frames_signal",					\
	  "frames a signal interrupted, found from the registers the kernel saved in "	\
	  "the signal frame")								\
	X(SFU_UW_STOP_OUTERMOST, "stop_outermost",					\
	  "unwinds ended by an SFrame row marking the outermost frame")			\
	X(SFU_UW_STOP_FP_END, "stop_fp_end", "unwinds ended by a zero frame pointer")	\
	X(SFU_UW_STOP_DEPTH, "stop_depth",						\
	  "unwinds cut by their ``max`` or ``max_depth``")				\
	X(SFU_UW_STOP_BAD_CFA, "stop_bad_cfa",						\
	  "unwinds ended by a CFA below SP, misaligned or not in user space")		\
	X(SFU_UW_STOP_CFA_NOT_INCREASING, "stop_cfa_not_increasing",			\
	  "unwinds ended by a CFA not above the previous one")				\
	X(SFU_UW_STOP_BAD_RA, "stop_bad_ra",						\
	  "unwinds ended by a zero or non-user return address")				\
	X(SFU_UW_STOP_FAULT, "stop_fault", "unwinds ended by unreadable stack memory")	\
	X(SFU_UW_STOP_NO_INFO, "stop_no_info",						\
	  "unwinds ended for want of an SFrame row, frame pointers not allowed")	\
	X(SFU_UW_STOP_COMPAT, "stop_compat",						\
	  "unwinds of compat tasks that could not be done")				\
	X(SFU_UW_STOP_BAD_RULE, "stop_bad_rule",					\
	  "unwinds ended by a rule the frame cannot use (a register below the "		\
	  "topmost frame, or one ``pt_regs`` does not hold)")				\
	X(SFU_UW_STOP_SIGNAL, "stop_signal",						\
	  "unwinds ended at a signal frame whose saved registers cannot be used "	\
	  "(compat task)")								\
	X(SFU_UW_STOP_NOT_USER, "stop_not_user",					\
	  "unwinds with no user context (kernel thread, no mm, kernel registers)")	\
	X(SFU_UW_STOP_RA_NOT_TEXT, "stop_ra_not_text",					\
	  "unwinds ended by a return address of the frame-pointer fallback outside "	\
	  "executable user text")							\
	X(SFU_UW_STOP_RA_NOT_CALL, "stop_ra_not_call",					\
	  "unwinds ended by a return address of the frame-pointer fallback that no "	\
	  "call instruction ends at")							\
	X(SFU_UW_STOP_RA_UNCHECKED, "stop_ra_unchecked",				\
	  "unwinds ended by a return address of the frame-pointer fallback that "	\
	  "could not be checked (no-fault, page not present)")				\
	X(SFU_UW_STOP_FP_SKIPS, "stop_fp_skips",					\
	  "unwinds ended by a frame-pointer record above a return address of the "	\
	  "frame itself (the record would skip frames)")				\
	X(SFU_UW_STOP_RA_OTHER_CALLEE, "stop_ra_other_callee",				\
	  "unwinds ended by a return address of the frame-pointer fallback after a "	\
	  "direct call that goes elsewhere than the frame left")			\
	X(SFU_UW_STOP_FP_UNCONFIRMED, "stop_fp_unconfirmed",				\
	  "unwinds that dropped their last frame, found by the frame-pointer "		\
	  "fallback, because the step out of it failed")				\
	X(SFU_UW_SFRAME_FAULTS, "sframe_faults",					\
	  "SFrame lookups that met a section page it could not read")			\
	X(SFU_UW_SFRAME_ERRORS, "sframe_errors",					\
	  "SFrame lookups that met bad section data")					\
	X(SFU_UW_FP_JIT_FRAMES, "fp_jit_frames",					\
	  "frames the frame-pointer fallback left from JIT code (executable "		\
	  "anonymous memory), whose records it takes as perf's own walk does")		\
	X(SFU_UW_FP_NOCFI_FRAMES, "fp_nocfi_frames",					\
	  "the same for code of a file with unwind information that its CFI leaves "	\
	  "out (V8's builtins in node's text, a Go program without its sidecar, Go's "	\
	  "stack-switching functions)")							\
	X(SFU_UW_FP_SKIPPED_FRAMES, "fp_skipped_frames",				\
	  "frames a frame-pointer record skipped that the fallback found below it, "	\
	  "by their return addresses")							\
	X(SFU_UW_FP_TAIL_CALLS, "fp_tail_calls",					\
	  "frame-pointer records taken as a tail call's: their call cannot have led "	\
	  "to the frame left, and no return address lies below them")			\
	X(SFU_UW_GO_STACK_SWITCHES, "go_stack_switches",				\
	  "steps out of Go's ``systemstack()`` back to the goroutine's stack, at its "	\
	  "saved SP")

enum sfu_unwind_counter {
	SFU_UNWIND_COUNTERS(SFU_COUNTER_ID)
	SFU_UW_NR
};

/* The counters of the frames found by @method and of the walks ended by @end. */
#define SFU_UW_FRAMES(method)	(SFU_UW_FRAMES_REGS + (method) - SFU_METHOD_REGS)
#define SFU_UW_STOP(end)	(SFU_UW_STOP_OUTERMOST + (end) - SFU_END_OUTERMOST)
static_assert(SFU_UW_FRAMES(SFU_METHOD_NR) == SFU_UW_FRAMES_SIGNAL + 1);
static_assert(SFU_UW_STOP(SFU_END_NR) == SFU_UW_STOP_FP_UNCONFIRMED + 1);

DECLARE_PER_CPU(u64 [SFU_UW_NR], sfu_unwind_stats);
extern const struct sfu_counters sfu_unwind_counters;

/* Count @n events @c of the unwinder on this CPU: any context, NMI included. */
static inline void sfu_unwind_count(enum sfu_unwind_counter c, u64 n)
{
	this_cpu_add(sfu_unwind_stats[c], n);
}

/*
 * What became of deferred requests, in the order deferred_stats prints
 * the counters: X(constant, name, what it counts), the text
 * Documentation/reference.rst gives each.
 *
 * Every request is counted once in SFU_DF_REQUESTS and ends in exactly
 * one of: a rejection (SFU_DF_REJECTED_*), SFU_DF_ALREADY (its requester
 * is already served for this kernel entry), or, for one that set its
 * requester's bit (SFU_DF_QUEUED + SFU_DF_JOINED), SFU_DF_DELIVERED or a
 * drop (SFU_DF_DROPPED_*) once the task ran its unwind.
 */
#define SFU_DEFERRED_COUNTERS(X)							\
	X(SFU_DF_REQUESTS, "requests", "requests with a registered requester")		\
	X(SFU_DF_QUEUED, "queued", "requests that started a kernel entry's unwind")	\
	X(SFU_DF_JOINED, "joined",							\
	  "requests that added their requester to an entry already requested (or "	\
	  "walked)")									\
	X(SFU_DF_ALREADY, "already",							\
	  "requests of a requester already queued or served in this entry")		\
	X(SFU_DF_DELIVERED, "delivered", "callbacks made")				\
	X(SFU_DF_UNWINDS, "unwinds", "callchains walked")				\
	X(SFU_DF_CACHE_HITS, "cache_hits",						\
	  "deliveries of an entry's walk to requests made while it was being "		\
	  "delivered (by a callback or an interrupt), without a second walk")		\
	X(SFU_DF_REJECTED_NOT_USER, "rejected_not_user",				\
	  "requests refused: kernel thread, I/O worker, no mm (``EINVAL``)")		\
	X(SFU_DF_REJECTED_EXITING, "rejected_exiting",					\
	  "requests refused: the task is exiting (``ESRCH``)")				\
	X(SFU_DF_REJECTED_NO_SLOT, "rejected_no_slot",					\
	  "requests refused: the task's 16 candidate slots are taken (``ENOSPC``)")	\
	X(SFU_DF_REJECTED_BUSY, "rejected_busy",					\
	  "requests refused in NMI: the task's slot was being changed or the CPU's "	\
	  "NMI hand-off holds another task's work (``EBUSY``)")				\
	X(SFU_DF_DROPPED_EXIT, "dropped_exit",						\
	  "callbacks not made: the task exited first")					\
	X(SFU_DF_DROPPED_EXEC, "dropped_exec",						\
	  "callbacks not made: the task exec'd first")					\
	X(SFU_DF_DROPPED_LOST, "dropped_lost",						\
	  "callbacks not made: the NMI hand-off ran in another task (architectures "	\
	  "without a self-IPI)")							\
	X(SFU_DF_DROPPED_CANCEL, "dropped_cancel",					\
	  "callbacks not made: the requester was cancelled")				\
	X(SFU_DF_DROPPED_NOMEM, "dropped_nomem",					\
	  "callbacks not made: no memory for the callchain buffer")

enum sfu_deferred_stat {
	SFU_DEFERRED_COUNTERS(SFU_COUNTER_ID)
	SFU_DF_NR
};

DECLARE_PER_CPU(u64 [SFU_DF_NR], sfu_df_stats);

/* Count @n events @s on this CPU: any context, NMI included. */
static inline void sfu_df_count(enum sfu_deferred_stat s, unsigned long n)
{
	this_cpu_add(sfu_df_stats[s], n);
}

u64 sfu_deferred_stat(enum sfu_deferred_stat s);

#endif /* _SFU_UNWIND_STATS_H */
