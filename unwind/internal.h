/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of unwind/ share: the counters (stats.h), and what
 * deferred unwinding's KUnit suite sees beyond the public
 * sframe_unwind/deferred.h.
 */
#ifndef _SFU_UNWIND_INTERNAL_H
#define _SFU_UNWIND_INTERNAL_H

#include <linux/preempt.h>
#include <linux/types.h>
#include <linux/uaccess.h>

#include "sframe_unwind/unwind.h"
#include "sframe_unwind/deferred.h"
#include "stats.h"
#include "unwind_state.h"

struct callback_head;
struct task_struct;

/*
 * The files of the unwinder, each calling only those below it: walk.c
 * (the interfaces) -> step.c (the loop, one frame to its caller) ->
 * signal.c, go.c, ra_check.c (frames of other kinds, the fallback's
 * checks) -> regs.c (a frame's registers), read.c (user memory).
 */

/* What the walk hands each frame to; false ends the walk. */
typedef bool (*sfu_walk_fn)(void *arg, const struct sfu_uframe *frame);

/* step.c, for walk.c */
unsigned int sfu_unwind_frames(struct sfu_unwind_state *st, unsigned int limit,
			       sfu_walk_fn fn, void *arg, unsigned long *by_method);

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
int sfu_unwind_read_words_slow(const struct sfu_unwind_state *st, unsigned long addr,
			       unsigned long *words, unsigned int n);

/*
 * @n native words at @addr without faulting: one access check, then one
 * __get_user() each, instead of a copy routine sized for any length.  Not
 * in NMI context, where copy_from_user_nofault() also checks that the CPU
 * is not between two mms (nmi_uaccess_okay(), which modules cannot call).
 * Return: true if every word was read.
 */
static __always_inline bool sfu_get_user_words(unsigned long addr, unsigned long *words,
					       unsigned int n)
{
	const unsigned long __user *p = (const unsigned long __user *)addr;
	bool ok = false;
	unsigned int i;

	if (in_nmi())
		return false;
	pagefault_disable();
	if (user_access_begin(p, n * sizeof(*p))) {
		for (i = 0; i < n; i++)
			unsafe_get_user(words[i], &p[i], fault);
		ok = true;
fault:
		user_access_end();
	}
	pagefault_enable();
	return ok;
}

/*
 * Read @n (1 or 2) consecutive words of the task's size at @addr into
 * @words, zero-extended for a compat task, as @st's flags allow.  The
 * current task's native words are read here, without faulting, on every
 * step: inline, as the step's own code; the rest through
 * sfu_unwind_read_words_slow().  Return: 0, or SFU_END_FAULT.
 */
static __always_inline int sfu_unwind_read_words(const struct sfu_unwind_state *st,
						 unsigned long addr, unsigned long *words,
						 unsigned int n)
{
	if (st->ws == sizeof(unsigned long) && !st->task && sfu_get_user_words(addr, words, n))
		return 0;
	return sfu_unwind_read_words_slow(st, addr, words, n);
}

/* One word of the task's size (sfu_unwind_read_words()). */
static __always_inline int sfu_unwind_read_word(const struct sfu_unwind_state *st,
						unsigned long addr, unsigned long *word)
{
	return sfu_unwind_read_words(st, addr, word, 1);
}

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
