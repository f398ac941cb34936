/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deferred user-space unwinding.
 *
 * A requester (a perf event, a tracer, a sampler) asks from any context,
 * NMI included, for the user callchain of the current task.  The unwind
 * itself runs once per kernel entry, in task_work just before the task
 * returns to user space, where the SFrame data and the stack may be faulted
 * in; its result is handed to every requester that asked in that entry,
 * together with a cookie naming the entry.  A
 * requester that records the cookie when it asks (say, in a perf sample
 * taken in NMI context) can later match the callchain delivered with the
 * same cookie.
 *
 * Modelled on upstream's unwind_deferred_*() (v6.17), which is neither in
 * the kernels this module supports nor exported to modules.  See
 * Documentation/deferred.rst.
 */
#ifndef _SFRAME_UNWIND_DEFERRED_H
#define _SFRAME_UNWIND_DEFERRED_H

#include <linux/types.h>

struct pt_regs;

/**
 * struct sfu_unwind_stacktrace - a user callchain
 * @nr: number of entries
 * @stop_reason: enum sfu_end of the walk that produced it
 * @entries: @nr user addresses, innermost first: the interrupted or calling
 *	instruction, then return addresses
 */
struct sfu_unwind_stacktrace {
	unsigned int nr;
	int stop_reason;
	unsigned long *entries;
};

struct sfu_unwind_work;

/**
 * typedef sfu_unwind_callback_t - delivery of a deferred unwind
 * @work: the requester
 * @trace: the callchain (valid only during the call)
 * @cookie: the kernel entry it belongs to, as returned by the request
 *
 * Called in task context of the unwound task, before it returns to user
 * space; may sleep.
 */
typedef void (*sfu_unwind_callback_t)(struct sfu_unwind_work *work,
				      struct sfu_unwind_stacktrace *trace, u64 cookie);

/**
 * struct sfu_unwind_work - a requester of deferred unwinds
 * @func: its callback
 * @bit: its slot among the requesters (set by sfu_unwind_deferred_init(),
 *	-1 when not registered)
 *
 * Embed it in the requester's own structure and find that with
 * container_of() in @func.
 */
struct sfu_unwind_work {
	sfu_unwind_callback_t func;
	int bit;
};

/* Most requesters registered at the same time. */
#define SFU_UNWIND_MAX_REQUESTERS	32

int sfu_unwind_deferred_init(struct sfu_unwind_work *work, sfu_unwind_callback_t func);
int sfu_unwind_deferred_request(struct sfu_unwind_work *work, u64 *cookie);
int sfu_unwind_deferred_request_regs(struct sfu_unwind_work *work, struct pt_regs *regs,
				     u64 *cookie);
void sfu_unwind_deferred_cancel(struct sfu_unwind_work *work);

int sfu_unwind_deferred_cached(struct pt_regs *regs, const struct sfu_unwind_stacktrace **trace,
			       u64 *cookie);
int sfu_unwind_deferred_fault_in(void);

int sfu_deferred_init(void);
void sfu_deferred_stop(void);
void sfu_deferred_exit(void);

#endif /* _SFRAME_UNWIND_DEFERRED_H */
