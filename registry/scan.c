// SPDX-License-Identifier: GPL-2.0
/*
 * The scan of an mm's executable mappings: each file mapping not
 * registered yet has its ELF program headers read and its section (or its
 * sidecar) validated once per file, outside the mmap_lock, and is offered
 * to the registry (section.c), which inserts it or keeps it waiting for
 * its data.
 *
 * A scan runs in the mm's own process (the task_work of its mappings,
 * hooks.c), or in another's: module load, a write of sidecar_dir, the
 * daemon's rescan (sfu_scan_running_processes()).  The first may wait for
 * what its process holds up; the second must not: it takes no mmap_lock
 * it cannot have at once (scan_skipped_busy), and reads no FUSE file,
 * whose server may never answer (scan_skipped_fuse).  A process whose
 * mmap_lock was busy is asked to scan itself, in a task_work before it
 * next returns to user space, where waiting for its own lock is its own
 * affair (scan_self_queued; once per mm until it runs): a process busy
 * mapping, as an interpreter importing its modules or a compiler growing
 * its heap is, gets the sidecar written for it then, not at the next
 * rescan.  A FUSE mapping left is read when its process maps it, or by a
 * later rescan.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "sframe_unwind/registry.h"
#include "internal.h"
#include "sframe_unwind/lib.h"
#include "stats.h"
#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/task_work.h"

/*
 * A prepared section for the ELF file mapped at [@vm_start, @vm_end), or
 * NULL; *@asked set if the daemon was asked for its sidecar.
 */
static struct sfu_section *sfu_prepare_elf(struct file *file, unsigned long vm_start,
					   unsigned long vm_end, unsigned long pgoff,
					   const struct cred *cred, bool *asked)
{
	struct sfu_sidecar_for w = { .file = file };
	struct sfu_elf_sframe elf;
	struct sfu_section *s;
	int err;

	s = sfu_section_new(vm_start, vm_end, file_dentry(file)->d_name.name);
	if (!s)
		return NULL;
	sfu_file_id_get(file, &s->file);
	err = sfu_file_sframe(file, &s->file, vm_start, pgoff << PAGE_SHIFT, &elf, &s->sec,
			      &s->copy);
	/* Neither .sframe nor a sidecar: the daemon, if one runs, may make it. */
	*asked = elf.want_sidecar;
	if (elf.want_sidecar)
		sfu_sidecar_request(file, elf.build_id, elf.build_id_len, cred, elf.why);
	if (err) {
		kfree(s);
		return NULL;
	}
	s->bias = elf.bias;
	/* Only the executable segment's pages: the rest is remapped soon. */
	if (elf.text_end > vm_start)
		s->text_end = min_t(unsigned long, vm_end, elf.text_end);
	s->text_delta = vm_start - (pgoff << PAGE_SHIFT);
	if (elf.sidecar) {
		/* Its rows are in the kernel copy only: no data in the mm to follow. */
		s->kind = SFU_KIND_SIDECAR;
		s->sec = s->copy->sec;
		return s;
	}
	/* Rows for what the file's own section lacks, if root made a sidecar for that. */
	s->extra = sfu_sidecar_copy(elf.build_id, elf.build_id_len, &s->file, &w);
	if (s->extra)
		sfu_stat_inc(SFU_STAT_SIDECAR_EXTRA);
	s->data_start = elf.sframe_vaddr + elf.bias;
	s->data_end = s->data_start + elf.sframe_size;
	s->data_delta = s->data_start - elf.sframe_offset;

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

/* A prepared section for the vDSO mapped at [@start, @end), or NULL. */
static struct sfu_section *sfu_prepare_vdso(struct mm_struct *mm, unsigned long start,
					    unsigned long end, bool foreign)
{
	struct sfu_section *s = sfu_section_new(start, end, "[vdso]");

	if (!s)
		return NULL;
	s->copy = sfu_vdso_copy(mm, start, end, &s->bias, foreign);
	if (!s->copy) {
		kfree(s);
		return NULL;
	}
	s->kind = SFU_KIND_VDSO;
	s->sec = s->copy->sec;
	return s;
}

#define SFU_SCAN_BATCH 16

/*
 * Take @mm's mmap_lock for reading: wait for it in the mm's own process;
 * in another's, only if it is free now (scan_skipped_busy otherwise).
 */
static bool sfu_scan_lock(struct mm_struct *mm, bool foreign)
{
	if (!foreign) {
		mmap_read_lock(mm);
		return true;
	}
	if (mmap_read_trylock(mm))
		return true;
	sfu_stat_inc(SFU_STAT_SCAN_SKIPPED_BUSY);
	return false;
}

/* An executable mapping sfu_scan() found, to prepare outside the mmap_lock. */
struct sfu_scan_item {
	struct file *file;
	unsigned long start, end, pgoff;
	bool vdso;
};

/*
 * Up to SFU_SCAN_BATCH executable mappings of @mm from *@addr to @end not
 * registered or waiting yet, with a reference on each file; *@addr moves
 * past them (to @end when the range is done).  mmap_lock held.
 */
static int sfu_scan_collect(struct mm_struct *mm, struct sfu_mm *smm, unsigned long *addr,
			    unsigned long end, struct sfu_scan_item *batch, bool foreign)
{
	VMA_ITERATOR(vmi, mm, *addr);
	struct vm_area_struct *vma;
	int n = 0;

	for_each_vma_range(vmi, vma, end) {
		*addr = vma->vm_end;
		if (!(vma->vm_flags & VM_EXEC))
			continue;
		batch[n].vdso = !vma->vm_file && sfu_vma_is_vdso(vma);
		if (!vma->vm_file && !batch[n].vdso)
			continue;
		if (foreign && vma->vm_file && sfu_file_may_stall(vma->vm_file)) {
			sfu_stat_inc(SFU_STAT_SCAN_SKIPPED_FUSE);
			continue;
		}
		/*
		 * Registered already, unless the section there is stale or of
		 * another mapping: then the mapping is new (MAP_FIXED over it
		 * in the same call, whose re-check may run after this scan),
		 * and its section replaces that one.
		 */
		if (smm && (sfu_section_live_for(smm, vma) ||
			    sfu_pending_at(smm, vma->vm_start)))
			continue;
		batch[n].file = vma->vm_file ? get_file(vma->vm_file) : NULL;
		batch[n].start = vma->vm_start;
		batch[n].end = vma->vm_end;
		batch[n].pgoff = vma->vm_pgoff;
		if (++n == SFU_SCAN_BATCH)
			return n;
	}
	*addr = end;
	return n;
}

/*
 * sfu_scan(), in @mm's own process or (@foreign) in another's (above).
 * Return: true if it left mappings because @mm's mmap_lock was busy.
 */
static bool sfu_scan_mm(struct mm_struct *mm, unsigned long start, unsigned long end, pid_t tgid,
			const struct cred *cred, bool foreign)
{
	struct sfu_scan_item batch[SFU_SCAN_BATCH];
	struct sfu_mm *smm = NULL;
	unsigned long addr = start, until = 0;
	bool busy = false, asked;
	int n, i;

	while (addr < end) {
		if (!sfu_scan_lock(mm, foreign))
			return true;
		smm = smm ?: sfu_mm_lookup(mm);
		n = sfu_scan_collect(mm, smm, &addr, end, batch, foreign);
		mmap_read_unlock(mm);

		for (i = 0; i < n; i++) {
			struct sfu_section *s;

			if (batch[i].vdso) {
				s = sfu_prepare_vdso(mm, batch[i].start, batch[i].end, foreign);
			} else {
				asked = false;
				s = sfu_prepare_elf(batch[i].file, batch[i].start, batch[i].end,
						    batch[i].pgoff, cred, &asked);
				/*
				 * In its own process, a mapping whose sidecar the
				 * daemon was asked for may wait for it, all of the
				 * scan's waits within sidecar_wait_ms: the rescan
				 * after it registers it here.
				 */
				if (asked && !foreign && !until)
					until = sfu_sidecar_wait_until();
				if (asked && !foreign && until)
					sfu_sidecar_wait(batch[i].file, until);
				fput(batch[i].file);
			}
			if (!s)
				continue;
			smm = smm ?: sfu_mm_get_or_create(mm, tgid);
			if (sfu_section_set_user(s, sfu_user_get(cred)) || !smm) {
				sfu_section_discard(s);
				continue;
			}
			if (!sfu_scan_lock(mm, foreign)) {
				sfu_section_discard(s);
				busy = true;
				continue;
			}
			sfu_section_offer(smm, s);
			mmap_read_unlock(mm);
		}
	}

	smm = sfu_mm_lookup(mm);
	if (smm && sfu_mm_pending_in(smm, start, end)) {
		if (!sfu_scan_lock(mm, foreign))
			return true;
		sfu_retry_pending(smm, start, end);
		mmap_read_unlock(mm);
	}
	return busy;
}

/**
 * sfu_scan() - register the ELF sections of @mm's executable mappings
 * @mm: current's mm
 * @start: start of the range to look at
 * @end: end of the range
 * @tgid: the process @mm belongs to
 * @cred: its credentials, which say whom its sections are charged to
 *        (sfu_user_account())
 *
 * Looks at every executable file mapping in [@start, @end) that is not
 * registered yet, reads its ELF program headers from the file, validates
 * its PT_GNU_SFRAME section (or its sidecar) once per file, and registers
 * it — now if the section's bytes are mapped, else when they are; and the
 * vDSO, when its sidecar is installed.  Pending sections of the mm are
 * retried as well.  Waits for the mmap_lock and for the files' reads as
 * long as they take: in the mm's own process, that is its own affair.
 *
 * Context: task context, mmap_lock not held.
 */
void sfu_scan(struct mm_struct *mm, unsigned long start, unsigned long end, pid_t tgid,
	      const struct cred *cred)
{
	sfu_scan_mm(mm, start, end, tgid, cred, false);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_scan);

/* The scan sfu_scan_self() queues, in the process itself. */
static void sfu_scan_self_fn(struct callback_head *cb)
{
	/* The task may be past exit_mm() when the work runs (exit_task_work()). */
	struct mm_struct *mm = current->flags & PF_EXITING ? NULL : current->mm;
	struct sfu_mm *smm = mm ? sfu_mm_lookup(mm) : NULL;

	if (smm)
		atomic_set(&smm->self_scan, 0);
	if (mm)
		sfu_scan(mm, 0, TASK_SIZE, current->tgid, current_cred());
	kfree(cb);
	sfu_task_work_done();
}

/*
 * @p's mm, of process @tgid, was busy for a scan from another process:
 * have @p scan it itself before it returns to user space; once per mm
 * until that scan runs.
 */
static void sfu_scan_self(struct task_struct *p, struct mm_struct *mm, pid_t tgid)
{
	struct sfu_mm *smm = sfu_mm_get_or_create(mm, tgid);
	struct callback_head *cb;

	if (!smm || atomic_xchg(&smm->self_scan, 1))
		return;
	cb = kmalloc(sizeof(*cb), GFP_KERNEL_ACCOUNT);
	if (cb && !sfu_task_work_add(p, cb, sfu_scan_self_fn, TWA_RESUME)) {
		sfu_stat_inc(SFU_STAT_SCAN_SELF_QUEUED);
		return;
	}
	kfree(cb);
	atomic_set(&smm->self_scan, 0);
}

static int sfu_cmp_ptr(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/**
 * sfu_scan_running_processes() - build the registries of processes already running
 *
 * Scans every process but the caller's as a scan from outside (above):
 * without waiting for its mmap_lock, and without reading its FUSE files.
 *
 * Context: module init, after sfu_hooks_init(): mappings made while this
 * runs are seen by the hooks, those made before by the scan.
 */
void sfu_scan_running_processes(void)
{
	struct {
		struct mm_struct *mm;
		struct task_struct *task;
		pid_t tgid;
		const struct cred *cred;
	} *procs;
	struct task_struct *p;
	int n = 0, cap = 64, i;

	rcu_read_lock();
	for_each_process(p)
		cap++;
	rcu_read_unlock();
	procs = kvmalloc_array(cap, sizeof(*procs), GFP_KERNEL);
	if (!procs)
		return;

	rcu_read_lock();
	for_each_process(p) {
		if (n == cap)
			break;
		if (p->flags & PF_KTHREAD)
			continue;
		procs[n].mm = get_task_mm(p);
		if (!procs[n].mm)
			continue;
		procs[n].task = get_task_struct(p);
		procs[n].tgid = task_tgid_nr(p);
		/* Its sections are charged by these (sfu_user_account()). */
		procs[n].cred = get_cred(__task_cred(p));
		n++;
	}
	rcu_read_unlock();

	/* Processes sharing an mm (CLONE_VM) are scanned once. */
	sort(procs, n, sizeof(*procs), sfu_cmp_ptr, NULL);
	for (i = 0; i < n; i++) {
		bool foreign = procs[i].mm != current->mm;

		if ((!i || procs[i].mm != procs[i - 1].mm) &&
		    sfu_scan_mm(procs[i].mm, 0, TASK_SIZE, procs[i].tgid, procs[i].cred, foreign) &&
		    foreign)
			sfu_scan_self(procs[i].task, procs[i].mm, procs[i].tgid);
		put_task_struct(procs[i].task);
		put_cred(procs[i].cred);
		mmput(procs[i].mm);
	}
	kvfree(procs);
}
