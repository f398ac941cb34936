/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of unwind/ share: the counters (stats.h), and what
 * deferred unwinding's KUnit suite sees beyond the public
 * sframe_unwind/deferred.h.
 */
#ifndef _SFU_UNWIND_INTERNAL_H
#define _SFU_UNWIND_INTERNAL_H

#include <linux/percpu.h>
#include <linux/types.h>

#include "sframe_unwind/unwind.h"
#include "sframe_unwind/deferred.h"
#include "stats.h"
#include "unwind_state.h"

struct callback_head;
struct task_struct;

/**
 * enum sfu_deferred_stat - what became of deferred requests
 * @SFU_DF_REQUESTS: calls of the request functions with a registered requester
 * @SFU_DF_QUEUED: requests that started an entry's unwind
 * @SFU_DF_JOINED: requests of another requester for an entry already requested
 * @SFU_DF_ALREADY: requests of a requester already served or queued for the entry
 * @SFU_DF_DELIVERED: callbacks made
 * @SFU_DF_UNWINDS: callchains walked
 * @SFU_DF_CACHE_HITS: deliveries from the cache, without a walk
 * @SFU_DF_REJECTED_NOT_USER: requests refused: kernel thread, I/O worker, no mm
 * @SFU_DF_REJECTED_EXITING: requests refused: the task is exiting
 * @SFU_DF_REJECTED_NO_SLOT: requests refused: every slot the task may use is taken
 * @SFU_DF_REJECTED_BUSY: requests refused: NMI interrupted a change of the task's slot
 * @SFU_DF_DROPPED_EXIT: callbacks not made: the task exited first
 * @SFU_DF_DROPPED_EXEC: callbacks not made: the task exec'd first
 * @SFU_DF_DROPPED_LOST: callbacks not made: the unwind could not be queued from NMI
 * @SFU_DF_DROPPED_CANCEL: callbacks not made: the requester was cancelled
 * @SFU_DF_DROPPED_NOMEM: callbacks not made: no memory for the callchain
 * @SFU_DF_NR: the number of counters
 *
 * Every request is counted once in @SFU_DF_REQUESTS and ends in exactly one
 * of: a rejection (@SFU_DF_REJECTED_*), @SFU_DF_ALREADY (its requester is
 * already served for this kernel entry), or, for one that set its
 * requester's bit (@SFU_DF_QUEUED + @SFU_DF_JOINED), @SFU_DF_DELIVERED or
 * a drop (@SFU_DF_DROPPED_*) once the task ran its unwind.  The names and
 * meanings are in unwind/deferred.c and Documentation/deferred.rst.
 */
enum sfu_deferred_stat {
	SFU_DF_REQUESTS,
	SFU_DF_QUEUED,
	SFU_DF_JOINED,
	SFU_DF_ALREADY,
	SFU_DF_DELIVERED,
	SFU_DF_UNWINDS,
	SFU_DF_CACHE_HITS,
	SFU_DF_REJECTED_NOT_USER,
	SFU_DF_REJECTED_EXITING,
	SFU_DF_REJECTED_NO_SLOT,
	SFU_DF_REJECTED_BUSY,
	SFU_DF_DROPPED_EXIT,
	SFU_DF_DROPPED_EXEC,
	SFU_DF_DROPPED_LOST,
	SFU_DF_DROPPED_CANCEL,
	SFU_DF_DROPPED_NOMEM,
	SFU_DF_NR
};

u64 sfu_deferred_stat(enum sfu_deferred_stat s);

DECLARE_PER_CPU(u64 [SFU_DF_NR], sfu_df_stats);

/* Count @n events @s on this CPU: any context, NMI included. */
static inline void sfu_df_count(enum sfu_deferred_stat s, unsigned long n)
{
	this_cpu_add(sfu_df_stats[s], n);
}

/*
 * The files of the unwinder, each calling only those below it: walk.c
 * (the loop and the interfaces) -> step.c (one frame to its caller) ->
 * signal.c, go.c, ra_check.c (frames of other kinds, the fallback's
 * checks) -> regs.c (a frame's registers), read.c (user memory).
 */

/*
 * What one step works in.  Kept by the unwind rather than by each step:
 * the kernel may zero every local of a function on entry
 * (CONFIG_INIT_STACK_ALL_ZERO), which costs more than the step's own work
 * for a structure of this size.
 */
struct sfu_unwind_scratch {
	struct sfu_frame_rules rules;
};

/* step.c, for walk.c */
unsigned long sfu_unwind_next(struct sfu_unwind_state *st, struct sfu_unwind_scratch *scratch);

/* End the walk for @reason (enum sfu_end). */
static inline void sfu_unwind_stop(struct sfu_unwind_state *st, int reason)
{
	st->done = true;
	st->stop = reason;
}

/* signal.c: the step through a signal frame, an injected call */
int sfu_signal_step(struct sfu_unwind_state *st);
void sfu_injected_lr(struct sfu_unwind_state *st, unsigned long cfa);

/* go.c: the step out of Go's systemstack() */
int sfu_go_systemstack_step(struct sfu_unwind_state *st, unsigned long *ra,
			    unsigned long *cfa, unsigned long *fp);

/* regs.c: a frame's registers but IP, SP and FP */
int sfu_reg_value(const struct sfu_unwind_state *st, u16 regnum, unsigned long *val);
bool sfu_reg_known(const struct sfu_unwind_state *st, u16 regnum);
void sfu_tracked_load(struct sfu_unwind_state *st);

/* read.c: words of the task's size (sfu_unwind_read(): unwind.h) */
int sfu_unwind_read_words(const struct sfu_unwind_state *st, unsigned long addr,
			  unsigned long *words, unsigned int n);
int sfu_unwind_read_word(const struct sfu_unwind_state *st, unsigned long addr,
			 unsigned long *word);

/* unwind_stats.c: a walk's counts (the counters the files above count in: stats.h) */
void sfu_unwind_account(const struct sfu_unwind_state *st, const unsigned long *by_method,
			int *stop_reason);

/* deferred_stats.c */
void sfu_df_stats_init(void);
void sfu_df_stats_exit(void);

/* deferred.c */
unsigned int sfu_df_slots_used(void);

#ifdef SFU_TEST_BUILD
/**
 * struct sfu_deferred_kunit - the KUnit suite's stand-in for task_work
 * @task: the (kernel) thread whose requests are served as a user task's
 * @queue: called instead of task_work_add() for @task's unwind; the suite
 *	runs the work later with sfu_deferred_kunit_run()
 *
 * A KUnit case runs in a kernel thread, which never returns to user space
 * and so never runs task_work.  Everything else (slots, entries, cookies,
 * the cache, delivery, cancellation) is the real code.
 */
struct sfu_deferred_kunit {
	struct task_struct *task;
	void (*queue)(struct sfu_deferred_kunit *k, struct callback_head *work);
};

void sfu_deferred_kunit_attach(struct sfu_deferred_kunit *k);
void sfu_deferred_kunit_detach(void);
void sfu_deferred_kunit_run(struct callback_head *work);
void sfu_deferred_kunit_forget(void);
#endif /* SFU_TEST_BUILD */

#endif /* _SFU_UNWIND_INTERNAL_H */
