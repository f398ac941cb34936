/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deferred unwinding's table of per-task slots, shared by deferred.c (the
 * entries, requests and delivery) and deferred_slots.c (finding, claiming
 * and giving back a task's slot).
 */
#ifndef _SFU_UNWIND_DEFERRED_SLOTS_H
#define _SFU_UNWIND_DEFERRED_SLOTS_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/hardirq.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "sframe_unwind/deferred.h"
#include "sframe_unwind/unwind.h"

#define SFU_DF_SLOTS_ORDER	10
#define SFU_DF_SLOTS		BIT(SFU_DF_SLOTS_ORDER)
/* Slots a task's hash may land in: the bound of every lookup. */
#define SFU_DF_PROBES		16

/*
 * sfu_deferred_task.state: the requester bits of this entry, then the
 * entry's phase.  An entry lasts while QUEUED or RUNNING is set; CACHED
 * (the trace is the entry's) only ever goes with RUNNING.
 */
#define SFU_DF_ST_BITS	GENMASK(SFU_UNWIND_MAX_REQUESTERS - 1, 0)
#define SFU_DF_ST_QUEUED	BIT(SFU_UNWIND_MAX_REQUESTERS)		/* unwind work queued */
#define SFU_DF_ST_RUNNING	BIT(SFU_UNWIND_MAX_REQUESTERS + 1)	/* unwind work running */
#define SFU_DF_ST_CACHED	BIT(SFU_UNWIND_MAX_REQUESTERS + 2)	/* trace is this entry's */
#define SFU_DF_ST_BUSY	(SFU_DF_ST_QUEUED | SFU_DF_ST_RUNNING)

/**
 * struct sfu_deferred_task - deferred-unwind state of one task
 * @task: the task; NULL when the slot is free
 * @state: SFU_DF_* and requester bits of the current entry
 * @lock: held while a context changes @state and what goes with it
 * @claimed: requester bits the unwind work has taken for delivery
 * @cookie: the current entry's cookie
 * @exec_id: the task's self_exec_id when the entry's first request came
 * @work: the task_work that unwinds and delivers
 * @trace: the entry's callchain (valid while SFU_DF_ST_CACHED)
 * @capacity: entries @frames and @trace.entries have room for
 * @frames: the walk's frames; the buffer stays with the slot, for its
 *	next owner, until module exit
 */
struct sfu_deferred_task {
	struct task_struct *task;
	atomic_long_t state;
	raw_spinlock_t lock;
	unsigned long claimed;
	u64 cookie;
	u64 exec_id;
	struct callback_head work;
	struct sfu_unwind_stacktrace trace;
	unsigned int capacity;
	struct sfu_uframe *frames;
};

/* The table: SFU_DF_SLOTS slots, from sfu_df_slots_init() to sfu_df_slots_exit(). */
extern struct sfu_deferred_task *sfu_df_slots;

/*
 * Task and IRQ contexts take the lock with interrupts off (another CPU may
 * hold it briefly: cancel, module exit); NMI context only tries, as the
 * context it interrupted may hold it: the request is then refused as busy.
 */
static inline bool sfu_df_lock(struct sfu_deferred_task *t, unsigned long *flags)
{
	if (in_nmi()) {
		if (!raw_spin_trylock(&t->lock))
			return false;
	} else {
		raw_spin_lock_irqsave(&t->lock, *flags);
	}
	/* For sparse: the caller holds the lock until sfu_df_unlock(). */
	__release(&t->lock);
	return true;
}

static inline void sfu_df_unlock(struct sfu_deferred_task *t, unsigned long flags)
{
	__acquire(&t->lock);
	if (in_nmi())
		raw_spin_unlock(&t->lock);
	else
		raw_spin_unlock_irqrestore(&t->lock, flags);
}

struct sfu_deferred_task *sfu_df_find(struct task_struct *task);
struct sfu_deferred_task *sfu_df_get(struct task_struct *task);
void sfu_df_release(struct sfu_deferred_task *t);
void sfu_df_put(struct sfu_deferred_task *t);
int sfu_df_slots_init(void);
void sfu_df_slots_exit(void);

#endif /* _SFU_UNWIND_DEFERRED_SLOTS_H */
