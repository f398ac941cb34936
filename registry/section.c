// SPDX-License-Identifier: GPL-2.0
/*
 * Sections and their lifetime: insertion into an mm's trees after the
 * checks against its VMAs, removal, what VMA changes do to them (through
 * state.c's table) and the re-check that decides on a stale one.  The
 * scan that finds them is scan.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "sframe_unwind/registry.h"
#include "internal.h"
#include "rules_cache.h"
#include "sframe_unwind/lib.h"
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

/**
 * sfu_section_discard() - free a section no lookup has seen
 * @s: never inserted (its charge in the trees undone, if it got one), or
 *     off the trees a grace period ago
 */
void sfu_section_discard(struct sfu_section *s)
{
	if (s->user) {
		sfu_copy_unhold(s->copy, s->user);
		sfu_copy_unhold(s->extra, s->user);
	}
	sfu_copy_put(s->copy);
	sfu_copy_put(s->extra);
	sfu_user_put(s->user);
	kfree(s);
}

/**
 * sfu_section_new() - a new section, in no tree, with no user or rows yet
 * @text_start: start of its text
 * @text_end: end of its text
 * @name: the name debugfs shows for it
 *
 * Return: the section, or NULL without memory; kfree() frees it while it
 * holds nothing else, sfu_section_discard() once it does.
 */
struct sfu_section *sfu_section_new(unsigned long text_start, unsigned long text_end,
				    const char *name)
{
	struct sfu_section *s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);

	if (!s)
		return NULL;
	INIT_LIST_HEAD(&s->pending);
	s->text_start = text_start;
	s->text_end = text_end;
	strscpy(s->name, name, sizeof(s->name));
	return s;
}

/**
 * sfu_section_set_user() - charge @s and its kernel copies to a user
 * @s: a prepared section, not inserted, without a user yet
 * @u: a reference to the user, which passes to @s (NULL: no memory)
 *
 * Return: 0, or -ENOMEM (the caller discards @s).
 */
int sfu_section_set_user(struct sfu_section *s, struct sfu_user *u)
{
	if (!u)
		return -ENOMEM;
	if (sfu_copy_hold(s->copy, u))
		goto fail;
	if (sfu_copy_hold(s->extra, u)) {
		sfu_copy_unhold(s->copy, u);
		goto fail;
	}
	s->user = u;
	return 0;
fail:
	sfu_user_put(u);
	return -ENOMEM;
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

#if IS_ENABLED(CONFIG_KUNIT)
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

/*
 * Is [@start, @end) mapped without a hole by VMAs that all have
 * @vm_flags and, when @id is given, map that file at the given delta?
 * With @exec, also whether they all are executable.
 */
static bool sfu_range_mapped(struct mm_struct *mm, unsigned long start, unsigned long end,
			     unsigned long vm_flags, const struct sfu_file_id *id, long delta,
			     bool *exec)
{
	struct sfu_file_id vid;
	unsigned long addr = start;

	mmap_assert_locked(mm);
	if (exec)
		*exec = true;
	while (addr < end) {
		struct vm_area_struct *vma = find_vma(mm, addr);

		if (!vma || vma->vm_start > addr || (vma->vm_flags & vm_flags) != vm_flags)
			return false;
		if (exec && !(vma->vm_flags & VM_EXEC))
			*exec = false;
		if (id) {
			if (!vma->vm_file)
				return false;
			if ((long)(vma->vm_start - (vma->vm_pgoff << PAGE_SHIFT)) != delta)
				return false;
			sfu_file_id_get(vma->vm_file, &vid);
			if (!sfu_file_id_equal(&vid, id))
				return false;
		}
		addr = vma->vm_end;
	}
	return true;
}

/**
 * sfu_section_text_mapped() - is @s's text mapped as when it was found
 * @mm: the mm, its mmap_lock held
 * @s: the section
 *
 * Return: true if every page of the text is an executable mapping of the
 * section's file (or anonymous memory, for explicit registrations; the
 * kernel's own pages, for the vDSO).
 */
bool sfu_section_text_mapped(struct mm_struct *mm, const struct sfu_section *s)
{
	bool elf = s->kind != SFU_KIND_EXPLICIT;

	if (s->kind == SFU_KIND_VDSO)
		return sfu_vdso_mapped(mm, s->text_start, s->text_end);

	return sfu_range_mapped(mm, s->text_start, s->text_end, VM_EXEC,
				elf ? &s->file : NULL, s->text_delta, NULL);
}

/* Where @s's text is now (sfu_section_text_state()). */
enum sfu_section_text { SFU_SECTION_TEXT_GONE, SFU_SECTION_TEXT_KEPT, SFU_SECTION_TEXT_MAPPED };

/*
 * Is @s's text mapped as when it was found (SFU_SECTION_TEXT_MAPPED), or still
 * mapped from its file at its place though not executable (mprotect took
 * PROT_EXEC away: SFU_SECTION_TEXT_KEPT), or neither?  A kept section stays,
 * stale, for the text to be executable again; not an explicit section or
 * the vDSO, whose memory is anyone's once it is not their code.  One walk
 * of the VMAs for a file's text.  mmap_lock held.
 */
static enum sfu_section_text sfu_section_text_state(struct mm_struct *mm,
						    const struct sfu_section *s)
{
	bool exec;

	if (sfu_section_anon_text(s))
		return sfu_section_text_mapped(mm, s) ? SFU_SECTION_TEXT_MAPPED :
		       SFU_SECTION_TEXT_GONE;
	if (!sfu_range_mapped(mm, s->text_start, s->text_end, 0, &s->file, s->text_delta, &exec))
		return SFU_SECTION_TEXT_GONE;
	return exec ? SFU_SECTION_TEXT_MAPPED : SFU_SECTION_TEXT_KEPT;
}

/**
 * sfu_section_data_mapped() - is @s's section data mapped as when it was found
 * @mm: the mm, its mmap_lock held
 * @s: the section
 *
 * Return: true if the section's bytes are still readable user memory of
 * the same file (or anonymous memory, for explicit registrations).
 */
bool sfu_section_data_mapped(struct mm_struct *mm, const struct sfu_section *s)
{
	bool elf = s->kind != SFU_KIND_EXPLICIT;

	if (!sfu_section_has_data(s))
		return true;
	return sfu_range_mapped(mm, s->data_start, s->data_end, VM_READ,
				elf ? &s->file : NULL, s->data_delta, NULL);
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

/*
 * What a VMA change does to one section of its range (@ev, the plan's):
 * true if a re-check is due.  Any change but execute permission given back
 * counts as a mark (vma_events).  With @now, the section is decided on at
 * once, and only one to be removed asks for a re-check.
 */
static bool sfu_section_touched(struct sfu_mm *smm, struct sfu_section *s,
				enum sfu_section_event ev, bool now, bool *marked)
{
	if (!sfu_section_step(smm, s, ev))
		return false;
	if (ev != SFU_EV_EXEC)
		*marked = true;
	return !now || sfu_section_settle(smm, s);
}

/* The sections of @mt overlapping [@start, @end) through sfu_section_touched(). */
static bool sfu_touch_tree(struct sfu_mm *smm, struct maple_tree *mt, unsigned long start,
			   unsigned long end, enum sfu_section_event ev, bool now, bool *marked)
{
	struct sfu_section *s;
	unsigned long idx = start;
	bool recheck = false;

	mt_for_each(mt, s, idx, end - 1)
		recheck |= sfu_section_touched(smm, s, ev, now, marked);
	return recheck;
}

/*
 * sfu_recheck() of [@start, @last] done at once, in the hook of the VMA
 * change that asked for it, where that needs neither sleep nor memory the
 * allocator must wait for: true if done, false if the re-check is to be
 * queued (the registry's lock taken, a section with data in the mm, a
 * tree node not at hand).  What was done stays done; the queued re-check
 * does the rest.  The registry's writers hold the mmap_lock, for reading
 * at least, and the hook's caller holds it too: the trylock fails only
 * where another task's scan or re-check is running.
 */
static bool sfu_recheck_now(struct sfu_mm *smm, unsigned long start, unsigned long last)
{
	struct sfu_section *s;
	unsigned long idx = start;
	bool done = true;

	if (READ_ONCE(smm->recheck_all) || !sfu_mm_write_trybegin(smm))
		return false;
	mt_for_each(&smm->text, s, idx, last) {
		if (!sfu_section_settle(smm, s))
			continue;
		if (sfu_section_data_tracked(s) ||
		    sfu_tree_store(&smm->text, s->text_start, s->text_end - 1, NULL, GFP_NOWAIT)) {
			done = false;
			continue;
		}
		sfu_stat_inc(SFU_STAT_REMOVED_AT_ONCE);
		sfu_section_gone(smm, s);
	}
	/* Sections with data in the mm wait for the queued re-check. */
	idx = start;
	if (!mtree_empty(&smm->data) && mt_find(&smm->data, &idx, last))
		done = false;
	sfu_mm_write_end(smm);
	return done;
}

/**
 * sfu_vma_changed() - a VMA change may have touched registered sections
 * @mm: the mm whose VMAs change, its mmap_lock held for writing
 * @c: the change
 *
 * Steps the sections whose text or data (not those with a kernel copy,
 * whose data lookups do not read) overlaps the range through what the
 * change means for them (sfu_vma_plan()).  Anonymous memory holds only
 * the text of sections without a file, and nothing is looked at there
 * when @mm has none.
 *
 * Every section whose state this changes asks for a re-check: one already
 * stale has its re-check queued, so unmapping a library's text and then
 * its data costs one re-check, not two.  mprotect() decides on each
 * section at once, and only one to be removed asks.  A change in another
 * task's mm queues nothing: that mm's next re-check looks at every
 * section.  In current's mm the re-check is done here if it can be
 * (sfu_recheck_now()), and queued only if not.
 *
 * Context: any, not sleeping; under @mm's mmap lock (munmap may have
 * downgraded it to a read lock).
 * Return: true if the caller is to queue a re-check of the range.
 */
bool sfu_vma_changed(struct mm_struct *mm, const struct sfu_vma_change *c)
{
	bool marked = false, recheck = false;
	struct sfu_vma_plan p;
	struct sfu_mm *smm;

	/* In exit_mmap the whole registry goes; nothing to re-check. */
	if (!mm || !atomic_read(&mm->mm_users) || c->start >= c->end || !sfu_vma_plan(c, &p))
		return false;
	rcu_read_lock();
	smm = sfu_mm_find(mm);
	if (!smm)
		goto out;
	if ((p.kept_only && !READ_ONCE(smm->had_kept)) ||
	    (!c->file && !atomic_read(&smm->nr_anon_text)))
		p.text = false;
	if (p.text)
		recheck |= sfu_touch_tree(smm, &smm->text, c->start, c->end, p.text_ev, p.now,
					  &marked);
	/*
	 * Only sections without a kernel copy are in the data tree.  Their
	 * data losing read permission marks them even where their text got
	 * execute permission back (execute-only text).
	 */
	if (p.data && !mtree_empty(&smm->data))
		recheck |= sfu_touch_tree(smm, &smm->data, c->start, c->end, p.data_ev, p.now,
					  &marked);
	if (recheck && mm != current->mm) {
		WRITE_ONCE(smm->recheck_all, true);
		recheck = false;
	}
	if (recheck && sfu_recheck_now(smm, c->start, c->end - 1))
		recheck = false;
out:
	rcu_read_unlock();
	if (marked)
		sfu_stat_inc(SFU_STAT_VMA_EVENTS);
	return recheck;
}

/**
 * sfu_section_settle() - decide on a stale section what needs no tree change
 * @smm: its registry, the mm's mmap_lock held
 * @s: a section of @smm
 *
 * A stale section whose text and data are mapped as when it was found is
 * usable again; one whose text is still mapped from its file at its
 * place, though not executable (or whose data went), is kept.  A kept
 * section was decided on, and any change since would have made it stale
 * again (sfu_vma_changed()).
 *
 * Context: any; the mmap_lock held.
 * Return: true if @s is to be removed, which the caller does (or has done).
 */
bool sfu_section_settle(struct sfu_mm *smm, struct sfu_section *s)
{
	struct mm_struct *mm = smm->mm;
	enum sfu_section_text text;

	if (READ_ONCE(s->state) != SFU_SECTION_STALE)
		return false;
	sfu_stat_inc(SFU_STAT_RECHECKED);
	text = sfu_section_text_state(mm, s);
	if (text == SFU_SECTION_TEXT_MAPPED && (s->copy || sfu_section_data_mapped(mm, s)))
		sfu_section_step(smm, s, SFU_EV_CHECK_OK);
	else if (text != SFU_SECTION_TEXT_GONE && !sfu_section_anon_text(s))
		sfu_section_step(smm, s, SFU_EV_CHECK_KEEP);
	else
		return true;
	return false;
}

/* sfu_recheck() over the sections of @mt in [@start, @last]. */
static void sfu_recheck_tree(struct sfu_mm *smm, struct maple_tree *mt, unsigned long start,
			     unsigned long last)
{
	struct sfu_section *s;
	unsigned long idx = start;

	mt_for_each(mt, s, idx, last)
		if (sfu_section_settle(smm, s))
			sfu_section_remove_locked(smm, s);
}

/**
 * sfu_recheck() - check @mm's stale sections in a range against its VMAs
 * @mm: the current task's mm
 * @start: start of the range that changed
 * @last: its last byte (ULONG_MAX and @start 0: every section)
 *
 * A stale section whose text and data are still mapped from the same file
 * at the same place becomes usable again; any other is removed.  The data
 * of a section with a kernel copy no longer matters.  Only the sections
 * whose text or data overlaps the range are looked at: the one whose
 * change marked them stale (sfu_vma_changed()) queued this re-check.  When
 * sections were marked in @mm from another task, which queued nothing,
 * every section is looked at.
 *
 * Context: task context, mmap_lock not held.
 */
void sfu_recheck(struct mm_struct *mm, unsigned long start, unsigned long last)
{
	struct sfu_mm *smm;

	smm = sfu_mm_lookup(mm);
	if (!smm)
		return;
	if (READ_ONCE(smm->recheck_all)) {
		WRITE_ONCE(smm->recheck_all, false);
		start = 0;
		last = ULONG_MAX;
	}
	mmap_read_lock(mm);
	sfu_mm_write_begin(smm);
	sfu_recheck_tree(smm, &smm->text, start, last);
	sfu_recheck_tree(smm, &smm->data, start, last);
	sfu_mm_write_end(smm);
	/* Also drops the pending sections whose text went. */
	sfu_retry_pending(smm, 0, ULONG_MAX);
	mmap_read_unlock(mm);
}
