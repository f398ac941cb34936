// SPDX-License-Identifier: GPL-2.0
/*
 * The registry's mm table: one struct sfu_mm per mm that has sections, in
 * an RCU hash keyed by the mm, freed after a grace period when the mm
 * dies.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "internal.h"
#include "sframe_unwind/lib.h"
#include "stats.h"
#include "sframe_unwind/compat/export.h"

static DEFINE_HASHTABLE(sfu_mms, 8);
static DEFINE_SPINLOCK(sfu_mms_lock);
static struct workqueue_struct *sfu_wq;

/**
 * sfu_mm_find() - the registry of @mm, if it has one
 * @mm: the mm
 *
 * Context: under rcu_read_lock() (or with the registry otherwise pinned).
 * Return: the registry or NULL.
 */
struct sfu_mm *sfu_mm_find(struct mm_struct *mm)
{
	struct sfu_mm *smm;

	hash_for_each_possible_rcu(sfu_mms, smm, hnode, hash_ptr(mm, 32))
		if (smm->mm == mm)
			return smm;
	return NULL;
}

/**
 * sfu_mm_lookup() - the registry of @mm, for a caller that keeps it alive
 * @mm: an mm whose users the caller holds (current's, or mmget()), or one
 *      in its exit_mmap
 *
 * A registry is only destroyed in its mm's exit_mmap, so it stays valid
 * after the RCU read-side section while the caller keeps @mm in use.
 *
 * Return: the registry or NULL.
 */
struct sfu_mm *sfu_mm_lookup(struct mm_struct *mm)
{
	struct sfu_mm *smm;

	rcu_read_lock();
	smm = sfu_mm_find(mm);
	rcu_read_unlock();
	return smm;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_mm_lookup);

/**
 * sfu_mm_get_or_create() - the registry of @mm, created if needed
 * @mm: an mm the caller holds a user reference to (current's, or mmget())
 * @tgid: the process it belongs to, for debugfs
 *
 * The registry stays valid while the caller keeps @mm's users above zero:
 * it is only destroyed in @mm's exit_mmap.
 *
 * Context: task context.
 * Return: the registry, or NULL without memory.
 */
struct sfu_mm *sfu_mm_get_or_create(struct mm_struct *mm, pid_t tgid)
{
	struct sfu_mm *smm, *other;

	smm = sfu_mm_lookup(mm);
	if (smm)
		return smm;

	smm = kzalloc(sizeof(*smm), GFP_KERNEL_ACCOUNT);
	if (!smm)
		return NULL;
	smm->mm = mm;
	mt_init_flags(&smm->text, MT_FLAGS_USE_RCU);
	mt_init_flags(&smm->data, MT_FLAGS_USE_RCU);
	mutex_init(&smm->lock);
	INIT_LIST_HEAD(&smm->pending);
	smm->pending_lo = ULONG_MAX;
	smm->tgid = tgid;

	spin_lock(&sfu_mms_lock);
	other = sfu_mm_find(mm);
	if (!other)
		hash_add_rcu(sfu_mms, &smm->hnode, hash_ptr(mm, 32));
	spin_unlock(&sfu_mms_lock);
	if (other) {
		kfree(smm);
		return other;
	}
	sfu_stat_inc(SFU_STAT_MM_CREATED);
	return smm;
}

static void sfu_mm_free_work(struct work_struct *work)
{
	struct sfu_mm *smm = container_of(to_rcu_work(work), struct sfu_mm, free_work);
	struct sfu_section *s, *next;
	unsigned long idx = 0;

	mt_for_each(&smm->text, s, idx, ULONG_MAX) {
		sfu_section_step(smm, s, SFU_EV_MM_GONE);
		sfu_stat_inc(SFU_STAT_FREED_WITH_MM);
		sfu_section_free(s);
	}
	list_for_each_entry_safe(s, next, &smm->pending, pending) {
		sfu_section_step(smm, s, SFU_EV_MM_GONE);
		sfu_section_discard(s);
	}
	mtree_destroy(&smm->text);
	mtree_destroy(&smm->data);
	kfree(smm);
	sfu_stat_inc(SFU_STAT_MM_DESTROYED);
}

static void sfu_mm_unhash_and_free(struct sfu_mm *smm)
{
	spin_lock(&sfu_mms_lock);
	hash_del_rcu(&smm->hnode);
	spin_unlock(&sfu_mms_lock);
	INIT_RCU_WORK(&smm->free_work, sfu_mm_free_work);
	queue_rcu_work(sfu_wq, &smm->free_work);
}

/**
 * sfu_mm_destroy() - drop @mm's registry; @mm is being torn down
 * @mm: the mm, in its exit_mmap
 *
 * Context: any (the exit_mmap tracepoint runs with preemption disabled).
 */
void sfu_mm_destroy(struct mm_struct *mm)
{
	struct sfu_mm *smm;

	smm = sfu_mm_lookup(mm);
	if (smm)
		sfu_mm_unhash_and_free(smm);
}

/* <debugfs>/sframe_unwind/sections: every registry and its sections. */
static int sfu_sections_show(struct seq_file *m, void *v)
{
	struct sfu_section *s;
	struct sfu_mm *smm;
	unsigned long idx;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(sfu_mms, bkt, smm, hnode) {
		seq_printf(m, "mm %d sections %d pending %d\n", smm->tgid,
			   atomic_read(&smm->nr_sections), atomic_read(&smm->nr_pending));
		idx = 0;
		mt_for_each(&smm->text, s, idx, ULONG_MAX)
			seq_printf(m, "  %lx-%lx sframe %lx+%lx v%u fdes %u %s %s %s%s\n",
				   s->text_start, s->text_end, s->data_start,
				   s->data_end - s->data_start, s->sec.version, s->sec.num_fdes,
				   sfu_section_usable(s) ? "ok" :
				   READ_ONCE(s->state) == SFU_SECTION_KEPT ? "kept" : "stale",
				   s->name, !sfu_section_has_data(s) ? "sidecar" :
				   s->copy ? "kernel" : "user", s->extra ? "+sidecar" : "");
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_sections);

/**
 * sfu_mm_count() - registries in the table
 *
 * Return: how many mms have a registry.
 */
unsigned int sfu_mm_count(void)
{
	unsigned int n = 0;
	struct sfu_mm *smm;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(sfu_mms, bkt, smm, hnode)
		n++;
	rcu_read_unlock();
	return n;
}

/**
 * sfu_mm_table_init() - the workqueue registries are freed from, and the
 * table's debugfs file
 *
 * Return: 0 or -ENOMEM.
 */
int sfu_mm_table_init(void)
{
	sfu_wq = alloc_workqueue("sframe_unwind", WQ_UNBOUND, 0);
	if (!sfu_wq)
		return -ENOMEM;
	sfu_debugfs_file("sections", 0400, NULL, &sfu_sections_fops);
	return 0;
}

/**
 * sfu_mm_table_exit() - free every registry and wait until they are freed
 *
 * Context: module exit, after the hooks are gone and every task_work that
 * could touch a registry has run.
 */
void sfu_mm_table_exit(void)
{
	struct hlist_node *tmp;
	struct sfu_mm *smm;
	int bkt;

	hash_for_each_safe(sfu_mms, bkt, tmp, smm, hnode)
		sfu_mm_unhash_and_free(smm);
	rcu_barrier();
	destroy_workqueue(sfu_wq);
}
