// SPDX-License-Identifier: GPL-2.0
/*
 * The per-mm SFrame registry: which .sframe section describes which user
 * text, for every mm that has one.
 *
 * Readers (the unwinder, from any context including NMI) find an mm's
 * registry in an RCU hash keyed by the mm, then the section covering a PC
 * in a maple tree in RCU mode, and copy the section's parsed header before
 * leaving the read-side section: nothing a reader holds can be freed under
 * it, and no reader takes a lock.
 *
 * Writers run only in task context (task_work before a return to user
 * space, the char device, module load), hold the mm's mmap_lock for reading
 * while they check a section against the VMAs and insert it, and serialise
 * on the registry's mutex.  Hooks that cannot sleep (VMA removal and
 * protection changes, under the mmap write lock) only set a section's
 * STALE bit; lookups skip stale sections until a task_work has re-checked
 * them against the VMAs, so no lookup ever uses a section whose text is no
 * longer mapped from the same file.  Insertion and re-checks hold the
 * mmap_lock for reading, which excludes the VMA changes that mark
 * sections stale: a change either happens before the check (and is seen by
 * it) or after the insertion (and marks the section).
 *
 * A registry dies with its mm, in the exit_mmap tracepoint; it is freed
 * after an RCU grace period from a workqueue.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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

#include "registry.h"
#include "registry_internal.h"
#include "row_cache.h"
#include "sframe_unwind.h"
#include "stats.h"

static unsigned int sfu_max_sections_per_mm = 1024;
module_param_named(max_sections_per_mm, sfu_max_sections_per_mm, uint, 0644);
MODULE_PARM_DESC(max_sections_per_mm, "Sections one process may have registered (default 1024)");

static unsigned int sfu_max_sections = 65536;
module_param_named(max_sections, sfu_max_sections, uint, 0644);
MODULE_PARM_DESC(max_sections, "Sections registered in all processes together (default 65536)");

unsigned int sfu_max_section_bytes = 64 << 20;
module_param_named(max_section_bytes, sfu_max_section_bytes, uint, 0644);
MODULE_PARM_DESC(max_section_bytes, "Largest .sframe section accepted, in bytes (default 64 MiB)");

static DEFINE_HASHTABLE(sfu_mms, 8);
static DEFINE_SPINLOCK(sfu_mms_lock);
static atomic_t sfu_nr_sections = ATOMIC_INIT(0);
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

	smm = kzalloc(sizeof(*smm), GFP_KERNEL);
	if (!smm)
		return NULL;
	smm->mm = mm;
	mt_init_flags(&smm->text, MT_FLAGS_USE_RCU);
	mt_init_flags(&smm->data, MT_FLAGS_USE_RCU);
	mutex_init(&smm->lock);
	INIT_LIST_HEAD(&smm->pending);
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
	sfu_stat_inc(SFU_STAT_mm_created);
	return smm;
}

/* A section no lookup has seen: never inserted, or off the trees a grace period ago. */
static void sfu_section_discard(struct sfu_section *s)
{
	sfu_copy_put(s->copy);
	kfree(s);
}

static void sfu_section_free_rcu(struct rcu_head *rcu)
{
	sfu_section_discard(container_of(rcu, struct sfu_section, rcu));
}

static void sfu_section_free(struct sfu_section *s)
{
	atomic_dec(&sfu_nr_sections);
	call_rcu(&s->rcu, sfu_section_free_rcu);
}

static void sfu_mm_free_work(struct work_struct *work)
{
	struct sfu_mm *smm = container_of(to_rcu_work(work), struct sfu_mm, free_work);
	struct sfu_section *s, *next;
	unsigned long idx = 0;

	mt_for_each(&smm->text, s, idx, ULONG_MAX) {
		sfu_stat_inc(SFU_STAT_freed_with_mm);
		sfu_section_free(s);
	}
	list_for_each_entry_safe(s, next, &smm->pending, pending)
		sfu_section_discard(s);
	mtree_destroy(&smm->text);
	mtree_destroy(&smm->data);
	kfree(smm);
	sfu_stat_inc(SFU_STAT_mm_destroyed);
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

/* Remove @s from both trees; the caller holds smm->lock. */
static void sfu_section_remove_locked(struct sfu_mm *smm, struct sfu_section *s)
{
	if (mtree_load(&smm->text, s->text_start) == s)
		mtree_store_range(&smm->text, s->text_start, s->text_end - 1, NULL, GFP_KERNEL);
	if (mtree_load(&smm->data, s->data_start) == s)
		mtree_store_range(&smm->data, s->data_start, s->data_end - 1, NULL, GFP_KERNEL);
	atomic_dec(&smm->nr_sections);
	sfu_stat_inc(SFU_STAT_removed);
	sfu_section_free(s);
}

/* Remove every section whose text or data overlaps @s's; smm->lock held. */
static void sfu_remove_overlapping_locked(struct sfu_mm *smm, const struct sfu_section *s)
{
	struct sfu_section *old;
	unsigned long idx;

	idx = s->text_start;
	while ((old = mt_find(&smm->text, &idx, s->text_end - 1)))
		sfu_section_remove_locked(smm, old);
	idx = s->data_start;
	while ((old = mt_find(&smm->data, &idx, s->data_end - 1)))
		sfu_section_remove_locked(smm, old);
}

/*
 * Is [@start, @end) mapped without a hole by VMAs that all have
 * @vm_flags and, when @id is given, map that file at the given delta?
 */
static bool sfu_range_mapped(struct mm_struct *mm, unsigned long start, unsigned long end,
			     unsigned long vm_flags, const struct sfu_file_id *id, long delta)
{
	struct sfu_file_id vid;
	unsigned long addr = start;

	mmap_assert_locked(mm);
	while (addr < end) {
		struct vm_area_struct *vma = find_vma(mm, addr);

		if (!vma || vma->vm_start > addr || (vma->vm_flags & vm_flags) != vm_flags)
			return false;
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

static bool sfu_section_text_mapped(struct mm_struct *mm, const struct sfu_section *s)
{
	bool elf = !test_bit(SFU_SECTION_EXPLICIT, &s->flags);

	return sfu_range_mapped(mm, s->text_start, s->text_end, VM_EXEC,
				elf ? &s->file : NULL, s->text_delta);
}

static bool sfu_section_data_mapped(struct mm_struct *mm, const struct sfu_section *s)
{
	bool elf = !test_bit(SFU_SECTION_EXPLICIT, &s->flags);

	return sfu_range_mapped(mm, s->data_start, s->data_end, VM_READ,
				elf ? &s->file : NULL, s->data_delta);
}

/*
 * Insert @s (fully prepared) into @smm: the caller holds the mmap_lock for
 * reading and has checked that text and data are mapped.  Takes ownership
 * of @s.  Return: 0 or -ENOSPC (limits) or -ENOMEM.
 */
static int sfu_section_insert(struct sfu_mm *smm, struct sfu_section *s)
{
	int err;

	mmap_assert_locked(smm->mm);
	sfu_mm_write_begin(smm);
	sfu_remove_overlapping_locked(smm, s);
	if (atomic_read(&smm->nr_sections) >= sfu_max_sections_per_mm ||
	    atomic_inc_return(&sfu_nr_sections) > sfu_max_sections) {
		if (atomic_read(&smm->nr_sections) < sfu_max_sections_per_mm)
			atomic_dec(&sfu_nr_sections);
		sfu_mm_write_end(smm);
		sfu_stat_inc(SFU_STAT_refused_limit);
		sfu_section_discard(s);
		return -ENOSPC;
	}
	err = mtree_store_range(&smm->text, s->text_start, s->text_end - 1, s, GFP_KERNEL);
	if (!err) {
		err = mtree_store_range(&smm->data, s->data_start, s->data_end - 1, s, GFP_KERNEL);
		if (err)
			mtree_store_range(&smm->text, s->text_start, s->text_end - 1, NULL,
					  GFP_KERNEL);
	}
	if (err) {
		sfu_mm_write_end(smm);
		atomic_dec(&sfu_nr_sections);
		sfu_section_discard(s);
		return err;
	}
	atomic_inc(&smm->nr_sections);
	sfu_mm_write_end(smm);
	sfu_stat_inc(test_bit(SFU_SECTION_EXPLICIT, &s->flags) ?
		     SFU_STAT_registered_explicit : SFU_STAT_registered_elf);
	return 0;
}

/*
 * Insert @s if its text and data are mapped now, keep it pending if only
 * its text is (the loader maps .sframe's segment after the text), drop it
 * otherwise.  Takes ownership of @s; the caller holds the mmap_lock.
 */
static void sfu_section_offer(struct sfu_mm *smm, struct sfu_section *s)
{
	if (!sfu_section_text_mapped(smm->mm, s)) {
		sfu_stat_inc(SFU_STAT_refused_not_mapped);
		sfu_section_discard(s);
		return;
	}
	if (sfu_section_data_mapped(smm->mm, s)) {
		sfu_section_insert(smm, s);
		return;
	}
	sfu_mm_write_begin(smm);
	list_add_tail(&s->pending, &smm->pending);
	atomic_inc(&smm->nr_pending);
	sfu_mm_write_end(smm);
}

/* Give every pending section of @smm another chance; mmap_lock held. */
static void sfu_retry_pending(struct sfu_mm *smm)
{
	struct sfu_section *s, *next;
	LIST_HEAD(retry);

	if (!atomic_read(&smm->nr_pending))
		return;
	sfu_mm_write_begin(smm);
	list_splice_init(&smm->pending, &retry);
	atomic_set(&smm->nr_pending, 0);
	sfu_mm_write_end(smm);
	list_for_each_entry_safe(s, next, &retry, pending) {
		list_del(&s->pending);
		sfu_section_offer(smm, s);
	}
}

/**
 * sfu_mark_stale() - a VMA change may have touched registered sections
 * @mm: the mm whose VMAs change
 * @start: start of the changed range
 * @end: end of the changed range
 * @text: the change matters for text (removal, or execute permission lost)
 * @data: the change matters for section data (removal, or read permission lost)
 *
 * A section already stale has its re-check queued: only sections marked
 * now ask for one, so unmapping a library's text and then its data costs
 * one re-check, not two.
 *
 * Context: any; called under the mmap write lock with preemption disabled.
 * Return: true if a section was newly marked and a re-check is needed.
 */
bool sfu_mark_stale(struct mm_struct *mm, unsigned long start, unsigned long end,
		    bool text, bool data)
{
	struct sfu_section *s;
	struct sfu_mm *smm;
	bool marked = false;
	unsigned long idx;

	if (start >= end)
		return false;
	rcu_read_lock();
	smm = sfu_mm_find(mm);
	if (smm && text) {
		idx = start;
		mt_for_each(&smm->text, s, idx, end - 1)
			marked |= !test_and_set_bit(SFU_SECTION_STALE, &s->flags);
	}
	if (smm && data) {
		idx = start;
		mt_for_each(&smm->data, s, idx, end - 1) {
			/* Lookups do not read the data of a section with a kernel copy. */
			if (s->copy)
				continue;
			marked |= !test_and_set_bit(SFU_SECTION_STALE, &s->flags);
		}
	}
	rcu_read_unlock();
	if (marked)
		sfu_stat_inc(SFU_STAT_vma_events);
	return marked;
}

/**
 * sfu_recheck() - check @mm's stale sections against its VMAs
 * @mm: the current task's mm
 *
 * A stale section whose text and data are still mapped from the same file
 * at the same place becomes usable again; any other is removed.  The data
 * of a section with a kernel copy no longer matters.
 *
 * Context: task context, mmap_lock not held.
 */
void sfu_recheck(struct mm_struct *mm)
{
	struct sfu_section *s;
	struct sfu_mm *smm;
	unsigned long idx = 0;

	smm = sfu_mm_lookup(mm);
	if (!smm)
		return;
	mmap_read_lock(mm);
	sfu_mm_write_begin(smm);
	mt_for_each(&smm->text, s, idx, ULONG_MAX) {
		if (!test_bit(SFU_SECTION_STALE, &s->flags))
			continue;
		sfu_stat_inc(SFU_STAT_rechecked);
		if (sfu_section_text_mapped(mm, s) &&
		    (s->copy || sfu_section_data_mapped(mm, s)))
			clear_bit(SFU_SECTION_STALE, &s->flags);
		else
			sfu_section_remove_locked(smm, s);
	}
	sfu_mm_write_end(smm);
	sfu_retry_pending(smm);
	mmap_read_unlock(mm);
}

/* A prepared section for the ELF file mapped at [@vm_start, @vm_end), or NULL. */
static struct sfu_section *sfu_prepare_elf(struct file *file, unsigned long vm_start,
					   unsigned long vm_end, unsigned long pgoff)
{
	struct sfu_elf_sframe elf;
	struct sfu_section *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	INIT_LIST_HEAD(&s->pending);
	sfu_file_id_get(file, &s->file);
	if (sfu_file_sframe(file, &s->file, vm_start, pgoff << PAGE_SHIFT, &elf, &s->sec,
			    &s->copy)) {
		kfree(s);
		return NULL;
	}
	s->bias = elf.bias;
	s->text_start = vm_start;
	s->text_end = vm_end;
	s->text_delta = vm_start - (pgoff << PAGE_SHIFT);
	s->data_start = elf.sframe_vaddr + elf.bias;
	s->data_end = s->data_start + elf.sframe_size;
	s->data_delta = s->data_start - elf.sframe_offset;
	strscpy(s->name, file_dentry(file)->d_name.name, sizeof(s->name));

	if (s->data_end <= s->data_start || s->data_end > TASK_SIZE) {
		sfu_section_discard(s);
		return NULL;
	}
	/* Validated from the file; without a kernel copy, looked up in this process's memory. */
	s->sec.vaddr = s->data_start;
	s->sec.reader.kind = SFRAME_READER_USER;
	s->sec.reader.buf = NULL;
	s->sec.reader.uaddr = s->data_start;
	s->sec.reader.size = elf.sframe_size;
	return s;
}

#define SFU_SCAN_BATCH 16

/**
 * sfu_scan() - register the ELF sections of @mm's executable mappings
 * @mm: the mm; current's, or one the caller holds with mmget()
 * @start: start of the range to look at
 * @end: end of the range
 * @tgid: the process @mm belongs to
 *
 * Looks at every executable file mapping in [@start, @end) that is not
 * registered yet, reads its ELF program headers from the file, validates
 * its PT_GNU_SFRAME section once per file, and registers it — now if the
 * section's bytes are mapped, else when they are.  Pending sections of the
 * mm are retried as well.
 *
 * Context: task context, mmap_lock not held.
 */
void sfu_scan(struct mm_struct *mm, unsigned long start, unsigned long end, pid_t tgid)
{
	struct {
		struct file *file;
		unsigned long start, end, pgoff;
	} batch[SFU_SCAN_BATCH];
	struct sfu_mm *smm = NULL;
	unsigned long addr = start;
	int n, i;

	while (addr < end) {
		VMA_ITERATOR(vmi, mm, addr);
		struct vm_area_struct *vma;

		n = 0;
		mmap_read_lock(mm);
		smm = smm ?: sfu_mm_find(mm);
		for_each_vma_range(vmi, vma, end) {
			addr = vma->vm_end;
			if (!vma->vm_file || !(vma->vm_flags & VM_EXEC))
				continue;
			if (smm && mtree_load(&smm->text, vma->vm_start))
				continue;
			batch[n].file = get_file(vma->vm_file);
			batch[n].start = vma->vm_start;
			batch[n].end = vma->vm_end;
			batch[n].pgoff = vma->vm_pgoff;
			if (++n == SFU_SCAN_BATCH)
				break;
		}
		if (n < SFU_SCAN_BATCH)
			addr = end;
		mmap_read_unlock(mm);

		for (i = 0; i < n; i++) {
			struct sfu_section *s;

			s = sfu_prepare_elf(batch[i].file, batch[i].start, batch[i].end,
					    batch[i].pgoff);
			fput(batch[i].file);
			if (!s)
				continue;
			smm = smm ?: sfu_mm_get_or_create(mm, tgid);
			if (!smm) {
				sfu_section_discard(s);
				continue;
			}
			mmap_read_lock(mm);
			sfu_section_offer(smm, s);
			mmap_read_unlock(mm);
		}
	}

	smm = sfu_mm_lookup(mm);
	if (smm && atomic_read(&smm->nr_pending)) {
		mmap_read_lock(mm);
		sfu_retry_pending(smm);
		mmap_read_unlock(mm);
	}
}

/**
 * sfu_registry_sync() - bring the registry of @mm in line with its mappings
 * @mm: the mm; current's, or one the caller holds with mmget()
 * @tgid: the process @mm belongs to (shown in debugfs)
 *
 * Drops sections whose text or data mapping went away or changed, then
 * registers every executable ELF mapping not registered yet.  This is what
 * a forked child runs before it returns to user space, and what module
 * load runs for processes already alive.
 *
 * Context: task context, mmap_lock not held.
 * Return: the number of sections @mm has registered afterwards.
 */
int sfu_registry_sync(struct mm_struct *mm, pid_t tgid)
{
	struct sfu_mm *smm;

	sfu_recheck(mm);
	sfu_scan(mm, 0, TASK_SIZE, tgid);
	smm = sfu_mm_lookup(mm);
	return smm ? atomic_read(&smm->nr_sections) : 0;
}
EXPORT_SYMBOL_GPL(sfu_registry_sync);

/*
 * The usable section of @smm covering @pc, or NULL (counted); under RCU.
 */
static struct sfu_section *sfu_section_find(struct sfu_mm *smm, unsigned long pc)
{
	struct sfu_section *s;

	/* See sfu_mm_write_begin(): never spin on a writer this CPU interrupted. */
	if (smm && !in_task() && atomic_read(&smm->writing)) {
		sfu_stat_inc(SFU_STAT_lookup_busy);
		return NULL;
	}
	s = smm ? mtree_load(&smm->text, pc) : NULL;

	if (!s) {
		sfu_stat_inc(SFU_STAT_lookup_no_section);
		return NULL;
	}
	if (test_bit(SFU_SECTION_STALE, &s->flags)) {
		sfu_stat_inc(SFU_STAT_lookup_stale);
		return NULL;
	}
	return s;
}

static __always_inline int sfu_lookup_result(int err)
{
	if (err == -SFRAME_E_FAULT)
		sfu_stat_inc(SFU_STAT_lookup_fault);
	else if (err && err != -SFRAME_E_NO_FDE && err != -SFRAME_E_NO_FRE)
		sfu_stat_inc(SFU_STAT_lookup_error);
	return err;
}

/*
 * The row for @pc from @s's kernel copy, in place, or remembered from an
 * earlier lookup on this CPU: under RCU, which keeps the copy alive.  The
 * copy's addresses are moved by the section's bias.
 */
static __always_inline int sfu_copy_find_row(const struct sfu_section *s, unsigned long pc,
					     struct sframe_row *row,
					     struct sfu_lookup_counts *counts)
{
	const struct sfu_sframe_copy *c = s->copy;
	u64 cpc = pc - s->bias;
	enum sfu_rowc_result res;
	int err;

	res = sfu_rowc_lookup(c->id, cpc, row);
	if (res == SFU_ROWC_HIT) {
		counts->rowc_hits++;
	} else {
		if (res == SFU_ROWC_MISS)
			counts->rowc_misses++;
		err = sframe_find_row(&c->sec, cpc, row);
		if (err)
			return err;
		sfu_rowc_store(c->id, cpc, row);
	}
	row->start += s->bias;
	row->end += s->bias;
	row->func_start += s->bias;
	return 0;
}

/* Add what a series of lookups counted to the stats counters. */
static void sfu_lookup_counts_flush(struct sfu_lookup_counts *counts)
{
	if (counts->lookups)
		sfu_stat_add(SFU_STAT_lookups, counts->lookups);
	if (counts->rowc_hits)
		sfu_stat_add(SFU_STAT_row_cache_hits, counts->rowc_hits);
	if (counts->rowc_misses)
		sfu_stat_add(SFU_STAT_row_cache_misses, counts->rowc_misses);
	memset(counts, 0, sizeof(*counts));
}

/* The row for @pc from user memory, through a copy of @s's header. */
static int sfu_user_find_row(const struct sframe_section *hdr, unsigned long pc, bool nofault,
			     struct sframe_row *row)
{
	struct sframe_section sec = *hdr;

	sfu_stat_inc(SFU_STAT_lookup_user);
	sec.reader.kind = nofault ? SFRAME_READER_USER_NOFAULT : SFRAME_READER_USER;
	return sframe_find_row(&sec, pc, row);
}

/**
 * sfu_find_row() - the SFrame row for a user PC
 * @mm: the current task's mm (a section without a kernel copy is read from
 *      current's memory)
 * @pc: the user address
 * @nofault: read user memory with copy_from_user_nofault(): for NMI, IRQ
 *           and atomic context
 * @row: filled in on success
 *
 * A section with a kernel copy is looked up in it under RCU, reading no
 * user memory; one without (max_kernel_bytes reached) is read from @mm.
 *
 * Context: any, with @nofault; task context otherwise.
 * Return: 0; -SFRAME_E_NO_FDE when no registered section covers @pc (or the
 * one that does awaits a re-check); otherwise the decoder's code, e.g.
 * -SFRAME_E_FAULT when section memory could not be read.
 */
int sfu_find_row(struct mm_struct *mm, unsigned long pc, bool nofault, struct sframe_row *row)
{
	struct sframe_section sec;
	struct sfu_section *s;
	int err;

	sfu_stat_inc(SFU_STAT_lookups);
	rcu_read_lock();
	s = sfu_section_find(sfu_mm_find(mm), pc);
	if (s && s->copy) {
		struct sfu_lookup_counts counts = {};

		err = sfu_copy_find_row(s, pc, row, &counts);
		rcu_read_unlock();
		sfu_lookup_counts_flush(&counts);
		return sfu_lookup_result(err);
	}
	if (s)
		sec = s->sec;
	rcu_read_unlock();
	if (!s)
		return -SFRAME_E_NO_FDE;
	return sfu_lookup_result(sfu_user_find_row(&sec, pc, nofault, row));
}
EXPORT_SYMBOL_GPL(sfu_find_row);

/**
 * sfu_row_cache_init() - start a series of lookups in @mm
 * @c: the cache, owned by the caller (on its stack)
 * @mm: the current task's mm, which the caller keeps in use throughout
 */
void sfu_row_cache_init(struct sfu_row_cache *c, struct mm_struct *mm)
{
	c->mm = mm;
	c->smm = NULL;
	c->section = NULL;
	c->rcu = false;
	memset(&c->counts, 0, sizeof(c->counts));
}
EXPORT_SYMBOL_GPL(sfu_row_cache_init);

/**
 * sfu_row_cache_release() - leave the RCU read-side section of a cache
 * @c: the cache
 *
 * To be called before anything that may sleep, and when the series of
 * lookups ends: what the lookups counted since the last release is then
 * added to the stats counters.  The next sfu_find_row_cached() enters the
 * read-side section again.
 */
void sfu_row_cache_release(struct sfu_row_cache *c)
{
	sfu_lookup_counts_flush(&c->counts);
	if (!c->rcu)
		return;
	c->section = NULL;
	c->rcu = false;
	/* For sparse: the read-side section was the cache's, not this function's. */
	__acquire(RCU);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(sfu_row_cache_release);

/*
 * sfu_find_row_cached() of a section without a kernel copy: a no-fault read
 * of user memory first, then, if that faulted and faults are allowed, a
 * read that may fault outside RCU.  Kept out of line: its copy of the
 * header would be zeroed on every lookup's stack otherwise.
 */
static noinline int sfu_find_row_cached_user(struct sfu_row_cache *c,
					     const struct sfu_section *s, unsigned long pc,
					     bool nofault, struct sframe_row *row)
{
	struct sframe_section sec;
	int err;

	err = sfu_user_find_row(&s->sec, pc, true, row);
	if (err != -SFRAME_E_FAULT || nofault)
		return sfu_lookup_result(err);
	/* Fault the section's pages in, outside RCU. */
	sec = s->sec;
	sfu_row_cache_release(c);
	return sfu_lookup_result(sfu_user_find_row(&sec, pc, false, row));
}

/**
 * sfu_find_row_cached() - sfu_find_row() for a series of lookups, such as one unwind
 * @c: from sfu_row_cache_init()
 * @pc: the user address
 * @nofault: no lookup may fault, sleep or leave the RCU read-side section
 * @row: filled in on success
 *
 * Stays in an RCU read-side section between calls, until
 * sfu_row_cache_release(): the registry and the section the last lookup
 * found are kept, and a PC in the same section (the next frame in the same
 * library) skips the hash and the tree.  A faultable lookup that must fault
 * (a section without a kernel copy whose pages are not present) releases
 * the cache first.
 *
 * Context: any, with @nofault; task context otherwise.  Between calls the
 * caller must not sleep without releasing the cache.
 * Return: as sfu_find_row().
 */
int sfu_find_row_cached(struct sfu_row_cache *c, unsigned long pc, bool nofault,
			struct sframe_row *row)
{
	const struct sfu_section *s = c->section;

	c->counts.lookups++;
	if (!c->rcu) {
		rcu_read_lock();
		/* For sparse: the cache holds the read-side section, not this function. */
		__release(RCU);
		c->rcu = true;
		s = NULL;
	}
	/* A section found by this cache stays valid while it holds RCU. */
	if (!s || pc < s->text_start || pc >= s->text_end ||
	    test_bit(SFU_SECTION_STALE, &s->flags)) {
		/* The registry lives as long as the mm, which the caller keeps. */
		if (!c->smm)
			c->smm = sfu_mm_find(c->mm);
		s = sfu_section_find(c->smm, pc);
		c->section = s;
		if (!s)
			return -SFRAME_E_NO_FDE;
	}
	if (s->copy)
		return sfu_lookup_result(sfu_copy_find_row(s, pc, row, &c->counts));
	return sfu_find_row_cached_user(c, s, pc, nofault, row);
}
EXPORT_SYMBOL_GPL(sfu_find_row_cached);

/**
 * sfu_registry_add() - register a section that has no ELF file behind it
 * @mm: the current task's mm
 * @sframe_addr: user address of the .sframe bytes
 * @sframe_size: their size
 * @text_start: first byte of the code they describe
 * @text_end: first byte after it
 * @sframe_err: set to the decoder's code when validation refuses the section
 *
 * The bytes are copied from user memory once and validated in the copy,
 * which lookups then use: what user space does to its own bytes afterwards
 * changes nothing.  Beyond max_kernel_bytes the copy is dropped after
 * validation and lookups read user memory.  Both ranges must be mapped in
 * @mm, the text executable and the data readable; a section already
 * covering part of either range is replaced.
 *
 * Context: task context, mmap_lock not held.
 * Return: 0, -EINVAL (bad ranges), -EFAULT (not mapped or unreadable),
 * -EFBIG (larger than max_section_bytes), -ENOEXEC (refused by validation;
 * see @sframe_err), -ENOSPC (limits), -ENOMEM.
 */
int sfu_registry_add(struct mm_struct *mm, unsigned long sframe_addr, unsigned long sframe_size,
		     unsigned long text_start, unsigned long text_end, int *sframe_err)
{
	struct sframe_reader r = { .kind = SFRAME_READER_BUFFER };
	struct sfu_sframe_copy *copy;
	struct sframe_section check;
	struct sfu_section *s;
	struct sfu_mm *smm;
	u8 *buf;
	int err;

	*sframe_err = 0;
	if (!sframe_size || sframe_addr + sframe_size < sframe_addr ||
	    sframe_addr + sframe_size > TASK_SIZE || text_start >= text_end ||
	    text_end > TASK_SIZE)
		return -EINVAL;
	if (sframe_size > sfu_max_section_bytes) {
		sfu_stat_inc(SFU_STAT_refused_too_big);
		return -EFBIG;
	}

	/* Validate the very bytes lookups will use, if the budget allows a copy. */
	copy = sfu_copy_alloc(sframe_size);
	buf = copy ? copy->data : kvmalloc(sframe_size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = 0;
	if (copy_from_user(buf, (const void __user *)sframe_addr, sframe_size)) {
		err = -EFAULT;
		goto free;
	}
	r.buf = buf;
	r.size = sframe_size;
	err = sframe_section_init(&check, &r, sframe_addr, sfu_native_sframe_abi());
	if (!err)
		err = sframe_section_validate(&check);
	if (err) {
		*sframe_err = -err;
		sfu_stat_inc(SFU_STAT_refused_invalid);
		err = -ENOEXEC;
		goto free;
	}

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		err = -ENOMEM;
		goto free;
	}
	INIT_LIST_HEAD(&s->pending);
	__set_bit(SFU_SECTION_EXPLICIT, &s->flags);
	s->text_start = text_start;
	s->text_end = text_end;
	s->data_start = sframe_addr;
	s->data_end = sframe_addr + sframe_size;
	strscpy(s->name, "[explicit]", sizeof(s->name));
	if (copy) {
		copy->sec = check;
		s->copy = copy;
		sfu_stat_inc(SFU_STAT_kernel_copies_made);
	} else {
		kvfree(buf);
	}
	s->sec = check;
	s->sec.reader.kind = SFRAME_READER_USER;
	s->sec.reader.buf = NULL;
	s->sec.reader.uaddr = sframe_addr;

	smm = sfu_mm_get_or_create(mm, current->tgid);
	if (!smm) {
		sfu_section_discard(s);
		return -ENOMEM;
	}
	mmap_read_lock(mm);
	if (!sfu_section_text_mapped(mm, s) || !sfu_section_data_mapped(mm, s)) {
		mmap_read_unlock(mm);
		sfu_section_discard(s);
		return -EFAULT;
	}
	err = sfu_section_insert(smm, s);
	mmap_read_unlock(mm);
	return err;

free:
	if (copy)
		sfu_copy_put(copy);
	else
		kvfree(buf);
	return err;
}
EXPORT_SYMBOL_GPL(sfu_registry_add);

/**
 * sfu_registry_remove() - unregister the section whose text starts at @text_start
 * @mm: the current task's mm
 * @text_start: text_start the section was registered with
 *
 * Only sections registered with sfu_registry_add() can be removed this
 * way; those of ELF mappings follow the mappings.
 *
 * Context: task context.
 * Return: 0, or -ENOENT if no such explicit section is registered.
 */
int sfu_registry_remove(struct mm_struct *mm, unsigned long text_start)
{
	struct sfu_section *s;
	struct sfu_mm *smm;
	int err = -ENOENT;

	smm = sfu_mm_lookup(mm);
	if (!smm)
		return -ENOENT;
	sfu_mm_write_begin(smm);
	s = mtree_load(&smm->text, text_start);
	if (s && s->text_start == text_start && test_bit(SFU_SECTION_EXPLICIT, &s->flags)) {
		sfu_section_remove_locked(smm, s);
		err = 0;
	}
	sfu_mm_write_end(smm);
	return err;
}
EXPORT_SYMBOL_GPL(sfu_registry_remove);

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
			seq_printf(m, "  %lx-%lx sframe %lx+%lx v%u fdes %u %s %s %s\n",
				   s->text_start, s->text_end, s->data_start,
				   s->data_end - s->data_start, s->sec.version, s->sec.num_fdes,
				   test_bit(SFU_SECTION_STALE, &s->flags) ? "stale" : "ok",
				   s->name, s->copy ? "kernel" : "user");
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_sections);

/**
 * sfu_registry_memory() - what the registry holds now
 * @mem: filled in
 */
void sfu_registry_memory(struct sfu_registry_memory *mem)
{
	sfu_copy_usage(&mem->kernel_copies, &mem->kernel_copy_bytes);
	mem->max_kernel_bytes = sfu_copy_budget();
	mem->sections = atomic_read(&sfu_nr_sections);
}
EXPORT_SYMBOL_GPL(sfu_registry_memory);

static int sfu_memory_show(struct seq_file *m, void *v)
{
	struct sfu_registry_memory mem;
	struct sfu_mm *smm;
	int bkt, registries = 0;

	rcu_read_lock();
	hash_for_each_rcu(sfu_mms, bkt, smm, hnode)
		registries++;
	rcu_read_unlock();
	sfu_registry_memory(&mem);
	seq_printf(m, "sections %u\n", mem.sections);
	seq_printf(m, "registries %d\n", registries);
	seq_printf(m, "kernel_copies %u\n", mem.kernel_copies);
	seq_printf(m, "kernel_copy_bytes %lu\n", mem.kernel_copy_bytes);
	seq_printf(m, "max_kernel_bytes %lu\n", mem.max_kernel_bytes);
	seq_printf(m, "row_cache_bytes %zu\n", sfu_rowc_bytes());
	seq_printf(m, "section_bytes %zu\n", sizeof(struct sfu_section));
	seq_printf(m, "registry_bytes %zu\n", sizeof(struct sfu_mm));
	seq_printf(m, "maple_node_bytes %zu\n", sizeof(struct maple_node));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_memory);

/**
 * sfu_registry_init() - set up the registry and start following mappings
 *
 * Installs the hooks first, then builds the registries of the processes
 * already running, so that no mapping made meanwhile is missed.
 *
 * Return: 0 or -errno.
 */
int sfu_registry_init(void)
{
	int err;

	err = sfu_rowc_init();
	if (err)
		return err;
	sfu_wq = alloc_workqueue("sframe_unwind", WQ_UNBOUND, 0);
	if (!sfu_wq) {
		sfu_rowc_exit();
		return -ENOMEM;
	}
	debugfs_create_file("sections", 0444, sfu_debugfs_dir(), NULL, &sfu_sections_fops);
	debugfs_create_file("memory", 0444, sfu_debugfs_dir(), NULL, &sfu_memory_fops);
	err = sfu_hooks_init();
	if (err) {
		destroy_workqueue(sfu_wq);
		sfu_rowc_exit();
		return err;
	}
	sfu_scan_running_processes();
	return 0;
}

/**
 * sfu_registry_stop() - stop following mappings
 *
 * Context: module exit; no hook runs after this returns, but task_work they
 * queued may still be pending (sfu_task_work_drain()).
 */
void sfu_registry_stop(void)
{
	sfu_hooks_exit();
}

/**
 * sfu_registry_exit() - free every registry
 *
 * Context: module exit, after sfu_hooks_exit() and after every task_work
 * that could touch a registry has run.
 */
void sfu_registry_exit(void)
{
	struct sfu_registry_memory mem;
	struct hlist_node *tmp;
	struct sfu_mm *smm;
	int bkt;

	hash_for_each_safe(sfu_mms, bkt, tmp, smm, hnode)
		sfu_mm_unhash_and_free(smm);
	rcu_barrier();
	destroy_workqueue(sfu_wq);
	sfu_fcache_exit();
	/* The sections' RCU callbacks, which free the copies, must be done. */
	rcu_barrier();
	WARN_ON(atomic_read(&sfu_nr_sections));
	sfu_registry_memory(&mem);
	WARN_ON(mem.kernel_copies || mem.kernel_copy_bytes);
	sfu_rowc_exit();
}
