// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred unwinding's table of per-task slots (deferred.c says what a
 * slot holds and why it is a table).  A task's hash names SFU_DF_PROBES
 * candidate slots; its slot is the first of them that names it.
 */
#include <linux/hash.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "sframe_unwind/compat/export.h"
#include "deferred_slots.h"
#include "internal.h"

struct sfu_deferred_task *sfu_df_slots;

static struct sfu_deferred_task *sfu_df_slot(unsigned int hash, unsigned int i)
{
	return &sfu_df_slots[(hash + i) & (SFU_DF_SLOTS - 1)];
}

/**
 * sfu_df_find() - the task's slot
 * @task: the task
 *
 * Context: any, NMI included; lock-free.
 * Return: the first slot in probe order that names @task, or NULL.
 */
struct sfu_deferred_task *sfu_df_find(struct task_struct *task)
{
	unsigned int hash = hash_ptr(task, SFU_DF_SLOTS_ORDER), i;

	for (i = 0; i < SFU_DF_PROBES; i++) {
		struct sfu_deferred_task *t = sfu_df_slot(hash, i);

		if (READ_ONCE(t->task) == task)
			return t;
	}
	return NULL;
}

/**
 * sfu_df_get() - find or claim the task's slot
 * @task: the task
 *
 * A context of the same task that interrupted this one may have claimed
 * an earlier free slot meanwhile: the first in probe order wins, a later
 * one claimed here is given back.  Freed slots are reset before their key
 * is cleared, so a claimed slot is always clean.
 *
 * Context: any, NMI included; lock-free.
 * Return: the task's slot, or NULL if all its candidate slots are taken.
 */
struct sfu_deferred_task *sfu_df_get(struct task_struct *task)
{
	unsigned int hash = hash_ptr(task, SFU_DF_SLOTS_ORDER), i;
	struct sfu_deferred_task *t, *mine = NULL;

	t = sfu_df_find(task);
	if (t)
		return t;
	for (i = 0; i < SFU_DF_PROBES && !mine; i++) {
		t = sfu_df_slot(hash, i);
		if (!READ_ONCE(t->task) && !cmpxchg(&t->task, NULL, task))
			mine = t;
	}
	t = sfu_df_find(task);
	if (mine && t != mine)
		smp_store_release(&mine->task, NULL);	/* still clean: nothing written */
	return t;
}

/**
 * sfu_df_release() - give a slot back, its buffer kept
 * @t: the slot
 *
 * Context: the owner's task context.
 */
void sfu_df_release(struct sfu_deferred_task *t)
{
	t->trace.nr = 0;
	t->claimed = 0;
	t->cookie = 0;
	atomic_long_set(&t->state, 0);
	/* The reset before the key: a new owner finds a clean slot. */
	smp_store_release(&t->task, NULL);
}

/**
 * sfu_df_put() - give the slot back unless an entry is open
 * @t: the slot
 *
 * A task holds a slot only while an entry is open: idle tasks hold none.
 *
 * Context: the owner's task_work, which no request of the same task can
 * be half-way through (it would be an interrupt of this work).
 */
void sfu_df_put(struct sfu_deferred_task *t)
{
	unsigned long flags;

	sfu_df_lock(t, &flags);
	if (!(atomic_long_read(&t->state) & SFU_DF_ST_BUSY))
		sfu_df_release(t);
	sfu_df_unlock(t, flags);
}

/**
 * sfu_df_slots_used() - slots that belong to a task now
 *
 * Return: their number, for debugfs and the KUnit suite.
 */
unsigned int sfu_df_slots_used(void)
{
	unsigned int i, used = 0;

	for (i = 0; i < SFU_DF_SLOTS; i++)
		used += !!READ_ONCE(sfu_df_slots[i].task);
	return used;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_df_slots_used);

/**
 * sfu_df_slots_init() - allocate the table, every slot free
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int sfu_df_slots_init(void)
{
	unsigned int i;

	sfu_df_slots = vzalloc(array_size(SFU_DF_SLOTS, sizeof(*sfu_df_slots)));
	if (!sfu_df_slots)
		return -ENOMEM;
	for (i = 0; i < SFU_DF_SLOTS; i++)
		raw_spin_lock_init(&sfu_df_slots[i].lock);
	return 0;
}

/**
 * sfu_df_slots_exit() - free the table and the slots' buffers
 *
 * Context: module init's error path or module exit, when no task can use
 * a slot any more.
 */
void sfu_df_slots_exit(void)
{
	unsigned int i;

	for (i = 0; i < SFU_DF_SLOTS; i++)
		kfree(sfu_df_slots[i].frames);
	vfree(sfu_df_slots);
}
