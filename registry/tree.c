// SPDX-License-Identifier: GPL-2.0
/*
 * A registry's trees of sections: insertion after the checks against the
 * VMAs, within the limits; removal, which frees a section after a grace
 * period; the sections whose text is mapped but whose data is not yet,
 * waiting for it.  The scan that finds sections is scan.c's; what VMA
 * changes do to those in the trees is recheck.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "internal.h"
#include "stats.h"
#include "sframe_unwind/compat/export.h"

static unsigned int sfu_max_sections_per_mm = 1024;
module_param_named(max_sections_per_mm, sfu_max_sections_per_mm, uint, 0644);
MODULE_PARM_DESC(max_sections_per_mm, "Sections one process may have registered (default 1024)");

static unsigned int sfu_max_sections = 65536;
module_param_named(max_sections, sfu_max_sections, uint, 0644);
MODULE_PARM_DESC(max_sections, "Sections registered in all processes together (default 65536)");

static atomic_t sfu_nr_sections = ATOMIC_INIT(0);

/**
 * sfu_sections_total() - sections registered in all mms
 *
 * Return: the count max_sections limits.
 */
unsigned int sfu_sections_total(void)
{
	return atomic_read(&sfu_nr_sections);
}

/* Every section freed this way was inserted, and charged to its user then. */
static void sfu_section_free_rcu(struct rcu_head *rcu)
{
	struct sfu_section *s = container_of(rcu, struct sfu_section, rcu);

	sfu_user_uncharge_section(s->user);
	sfu_section_discard(s);
}

/**
 * sfu_section_free() - free a section after a grace period
 * @s: inserted (sfu_section_insert()), now off the trees; lookups may
 *     still hold it
 */
void sfu_section_free(struct sfu_section *s)
{
	atomic_dec(&sfu_nr_sections);
	call_rcu(&s->rcu, sfu_section_free_rcu);
}

#ifdef SFU_TEST_BUILD
/*
 * KUnit: a store of the registry's trees by one task fails with -ENOMEM,
 * as a store that needs a maple node under memory pressure does.
 */
static struct task_struct *sfu_store_fail_task;
static unsigned int sfu_store_fail_nth;
static void (*sfu_store_fail_fn)(void *arg);
static void *sfu_store_fail_arg;

/**
 * sfu_kunit_fail_store() - make a tree store of the current task fail
 * @nth: which of its next stores fails (1: the next one); 0 disarms
 * @fn: if not NULL, called as that store fails, the earlier ones done
 * @arg: for @fn
 *
 * Context: the task whose store is to fail; a test hook, never used
 * outside KUnit.
 */
void sfu_kunit_fail_store(unsigned int nth, void (*fn)(void *arg), void *arg)
{
	WRITE_ONCE(sfu_store_fail_task, NULL);
	sfu_store_fail_nth = nth;
	sfu_store_fail_fn = fn;
	sfu_store_fail_arg = arg;
	if (nth)
		WRITE_ONCE(sfu_store_fail_task, current);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_kunit_fail_store);

/* Does KUnit make this store fail? */
static bool sfu_store_fails(void)
{
	if (likely(READ_ONCE(sfu_store_fail_task) != current) || --sfu_store_fail_nth)
		return false;
	WRITE_ONCE(sfu_store_fail_task, NULL);
	if (sfu_store_fail_fn)
		sfu_store_fail_fn(sfu_store_fail_arg);
	return true;
}
#else
static inline bool sfu_store_fails(void)
{
	return false;
}
#endif

/* Every change of a registry's trees goes through here, its lock held. */
static int sfu_tree_store(struct maple_tree *mt, unsigned long first, unsigned long last,
			  void *entry, gfp_t gfp)
{
	if (sfu_store_fails())
		return -ENOMEM;
	return mtree_store_range(mt, first, last, entry, gfp);
}

/*
 * Empty [@first, @last] of @mt, whatever memory is short of.  A section
 * must be out of every tree before its grace period starts, and a store
 * in an RCU-mode maple tree may need a new node even to remove: retried
 * until it is done (nodes are small; GFP_KERNEL reclaims for them).
 */
static void sfu_tree_clear(struct maple_tree *mt, unsigned long first, unsigned long last)
{
	while (sfu_tree_store(mt, first, last, NULL, GFP_KERNEL)) {
		sfu_stat_inc(SFU_STAT_TREE_STORE_RETRIED);
		memalloc_retry_wait(GFP_KERNEL);
	}
}

/* @s is off @smm's trees: count it out and free it after a grace period. */
static void sfu_section_gone(struct sfu_mm *smm, struct sfu_section *s)
{
	sfu_section_step(smm, s, SFU_EV_REMOVE);
	atomic_dec(&smm->nr_sections);
	if (sfu_section_anon_text(s))
		atomic_dec(&smm->nr_anon_text);
	sfu_stat_inc(SFU_STAT_REMOVED);
	sfu_section_free(s);
}

/**
 * sfu_section_remove_locked() - take @s off @smm's trees and free it
 * @smm: the registry, its lock held (sfu_mm_write_begin())
 * @s: a section in its trees
 *
 * Lookups may still hold @s: it is freed after a grace period.
 */
void sfu_section_remove_locked(struct sfu_mm *smm, struct sfu_section *s)
{
	if (mtree_load(&smm->text, s->text_start) == s)
		sfu_tree_clear(&smm->text, s->text_start, s->text_end - 1);
	if (sfu_section_data_tracked(s) && mtree_load(&smm->data, s->data_start) == s)
		sfu_tree_clear(&smm->data, s->data_start, s->data_end - 1);
	sfu_section_gone(smm, s);
}

/**
 * sfu_section_remove_now() - remove @s at once, if that needs no sleep
 * @smm: the registry, its lock held
 * @s: a section of its text tree, to be removed
 *
 * Only a section without data in the mm (a kernel copy, a sidecar), and
 * only if the store finds a tree node at hand; counted (removed_at_once).
 *
 * Context: any, not sleeping.
 * Return: true if @s was removed, false if it stays for a re-check.
 */
bool sfu_section_remove_now(struct sfu_mm *smm, struct sfu_section *s)
{
	if (sfu_section_data_tracked(s) ||
	    sfu_tree_store(&smm->text, s->text_start, s->text_end - 1, NULL, GFP_NOWAIT))
		return false;
	sfu_stat_inc(SFU_STAT_REMOVED_AT_ONCE);
	sfu_section_gone(smm, s);
	return true;
}

/* Remove every section whose text or data overlaps @s's; smm->lock held. */
static void sfu_remove_overlapping_locked(struct sfu_mm *smm, const struct sfu_section *s)
{
	struct sfu_section *old;
	unsigned long idx;

	idx = s->text_start;
	while ((old = mt_find(&smm->text, &idx, s->text_end - 1)))
		sfu_section_remove_locked(smm, old);
	if (!sfu_section_has_data(s))
		return;
	idx = s->data_start;
	while ((old = mt_find(&smm->data, &idx, s->data_end - 1)))
		sfu_section_remove_locked(smm, old);
}

/**
 * sfu_section_insert() - publish a section in its registry
 * @smm: the registry
 * @s: fully prepared, its @user set; the caller holds the mmap_lock for
 *     reading and has checked that text and data are mapped.  Ownership
 *     passes to the call.
 *
 * Return: 0 or -ENOSPC (limits) or -ENOMEM.
 */
int sfu_section_insert(struct sfu_mm *smm, struct sfu_section *s)
{
	unsigned int per_mm;
	int err;

	mmap_assert_locked(smm->mm);
	sfu_mm_write_begin(smm);
	sfu_remove_overlapping_locked(smm, s);
	/* Charged to its user until it is freed (sfu_section_free()). */
	if (!sfu_user_charge_section(s->user)) {
		sfu_mm_write_end(smm);
		sfu_stat_inc(SFU_STAT_REFUSED_USER_LIMIT);
		sfu_section_discard(s);
		return -ENOSPC;
	}
	/* One read of the parameter: root may change it meanwhile. */
	per_mm = READ_ONCE(sfu_max_sections_per_mm);
	if (atomic_read(&smm->nr_sections) >= per_mm ||
	    atomic_inc_return(&sfu_nr_sections) > READ_ONCE(sfu_max_sections)) {
		if (atomic_read(&smm->nr_sections) < per_mm)
			atomic_dec(&sfu_nr_sections);
		sfu_mm_write_end(smm);
		sfu_stat_inc(SFU_STAT_REFUSED_LIMIT);
		sfu_user_uncharge_section(s->user);
		sfu_section_discard(s);
		return -ENOSPC;
	}
	/* A failed store changes nothing; a done one publishes @s, usable. */
	sfu_section_step(smm, s, SFU_EV_FOUND);
	err = sfu_tree_store(&smm->text, s->text_start, s->text_end - 1, s, GFP_KERNEL_ACCOUNT);
	if (err) {
		sfu_mm_write_end(smm);
		atomic_dec(&sfu_nr_sections);
		sfu_user_uncharge_section(s->user);
		sfu_section_discard(s);
		return err;
	}
	if (sfu_section_data_tracked(s)) {
		err = sfu_tree_store(&smm->data, s->data_start, s->data_end - 1, s,
				     GFP_KERNEL_ACCOUNT);
		if (err) {
			sfu_tree_clear(&smm->text, s->text_start, s->text_end - 1);
			sfu_section_step(smm, s, SFU_EV_REMOVE);
			sfu_mm_write_end(smm);
			/* Lookups may have found it in the text tree meanwhile. */
			sfu_section_free(s);
			return err;
		}
	}
	atomic_inc(&smm->nr_sections);
	if (sfu_section_anon_text(s))
		atomic_inc(&smm->nr_anon_text);
	sfu_mm_write_end(smm);
	sfu_stat_inc(s->kind == SFU_KIND_EXPLICIT ?
		     SFU_STAT_REGISTERED_EXPLICIT : SFU_STAT_REGISTERED_ELF);
	return 0;
}

/* The span of the pending sections' data; the registry's lock held. */
static void sfu_pending_span(struct sfu_mm *smm)
{
	unsigned long lo = ULONG_MAX, hi = 0;
	struct sfu_section *s;

	list_for_each_entry(s, &smm->pending, pending) {
		lo = min(lo, s->data_start);
		hi = max(hi, s->data_end);
	}
	WRITE_ONCE(smm->pending_lo, lo);
	WRITE_ONCE(smm->pending_hi, hi);
}

/**
 * sfu_pending_at() - does a section for the text at @start wait for its data
 * @smm: the registry
 * @start: start of an executable mapping
 *
 * Context: task context (takes the registry's lock).
 * Return: true if a pending section has its text at @start.
 */
bool sfu_pending_at(struct sfu_mm *smm, unsigned long start)
{
	struct sfu_section *s;
	bool found = false;

	if (!atomic_read(&smm->nr_pending))
		return false;
	mutex_lock(&smm->lock);
	list_for_each_entry(s, &smm->pending, pending) {
		if (s->text_start == start) {
			found = true;
			break;
		}
	}
	mutex_unlock(&smm->lock);
	return found;
}

/**
 * sfu_section_offer() - insert a prepared section, or keep it waiting
 * @smm: the registry
 * @s: a prepared section with its user; ownership passes to the call
 *
 * Inserts @s if its text and data are mapped now, keeps it pending if only
 * its text is (the loader maps .sframe's segment after the text), drops it
 * otherwise.  At most SFU_MAX_PENDING sections of an mm wait: when that
 * many do, every one is retried (which drops those whose text went), and
 * @s is refused if as many still wait.
 *
 * Context: task context, the mmap_lock held.
 */
void sfu_section_offer(struct sfu_mm *smm, struct sfu_section *s)
{
	if (!sfu_section_text_mapped(smm->mm, s)) {
		sfu_stat_inc(SFU_STAT_REFUSED_NOT_MAPPED);
		sfu_section_discard(s);
		return;
	}
	if (sfu_section_data_mapped(smm->mm, s)) {
		sfu_section_insert(smm, s);
		return;
	}
	if (atomic_read(&smm->nr_pending) >= SFU_MAX_PENDING)
		sfu_retry_pending(smm, 0, ULONG_MAX);
	sfu_mm_write_begin(smm);
	if (atomic_read(&smm->nr_pending) >= SFU_MAX_PENDING) {
		sfu_mm_write_end(smm);
		sfu_stat_inc(SFU_STAT_REFUSED_PENDING_LIMIT);
		sfu_section_discard(s);
		return;
	}
	sfu_section_step(smm, s, SFU_EV_WAIT);
	list_add_tail(&s->pending, &smm->pending);
	atomic_inc(&smm->nr_pending);
	WRITE_ONCE(smm->pending_lo, min(READ_ONCE(smm->pending_lo), s->data_start));
	WRITE_ONCE(smm->pending_hi, max(READ_ONCE(smm->pending_hi), s->data_end));
	sfu_mm_write_end(smm);
}

/**
 * sfu_retry_pending() - offer again the sections waiting for data in a range
 * @smm: the registry
 * @start: start of the range
 * @end: its end
 *
 * The pending sections whose data overlaps [@start, @end) get another
 * chance: a mapping there may have brought it.
 *
 * Context: task context, the mmap_lock held.
 */
void sfu_retry_pending(struct sfu_mm *smm, unsigned long start, unsigned long end)
{
	struct sfu_section *s, *next;
	LIST_HEAD(retry);

	if (!sfu_mm_pending_in(smm, start, end))
		return;
	sfu_mm_write_begin(smm);
	list_for_each_entry_safe(s, next, &smm->pending, pending) {
		if (s->data_start < end && s->data_end > start) {
			sfu_section_step(smm, s, SFU_EV_RETRY);
			list_move_tail(&s->pending, &retry);
			atomic_dec(&smm->nr_pending);
		}
	}
	sfu_pending_span(smm);
	sfu_mm_write_end(smm);
	list_for_each_entry_safe(s, next, &retry, pending) {
		list_del(&s->pending);
		sfu_section_offer(smm, s);
	}
}

/**
 * sfu_section_live_for() - does a usable section describe this mapping
 * @smm: the registry; the caller holds the RCU read lock or the mmap_lock
 * @vma: an executable mapping
 *
 * A section whose text starts where @vma does, not stale, and for a file
 * mapping one of that file at that offset.  Not just any section there:
 * kernels since 6.12 call perf_event_mmap() for a mapping made MAP_FIXED
 * over another before vm_area_free() of the one it replaces, whose
 * section still looks usable then.
 *
 * Return: true if such a section is registered.
 */
bool sfu_section_live_for(struct sfu_mm *smm, struct vm_area_struct *vma)
{
	struct sfu_section *s = mtree_load(&smm->text, vma->vm_start);
	struct sfu_file_id id;

	if (!s || !sfu_section_usable(s))
		return false;
	if (!vma->vm_file)
		return true;
	if (sfu_section_anon_text(s) ||
	    s->text_delta != vma->vm_start - (vma->vm_pgoff << PAGE_SHIFT))
		return false;
	sfu_file_id_get(vma->vm_file, &id);
	return sfu_file_id_equal(&id, &s->file);
}
