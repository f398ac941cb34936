// SPDX-License-Identifier: GPL-2.0
/*
 * Explicit registration: sections of code without a file (JITs), named by
 * their user address through the char device.
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

/*
 * Copy the @size bytes at user address @addr into @buf and validate them
 * as a section there, into @check.  Return: 0, -EFAULT, or -ENOEXEC with
 * *@sframe_err set to the decoder's code.
 */
static int sfu_explicit_check(u8 *buf, unsigned long addr, unsigned long size,
			      struct sfu_sframe_section *check, int *sframe_err)
{
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_BUFFER, .buf = buf, .size = size };
	int err;

	if (copy_from_user(buf, (const void __user *)addr, size))
		return -EFAULT;
	err = sfu_sframe_section_init(check, &r, addr, sfu_native_sframe_abi());
	if (!err)
		err = sfu_sframe_section_validate(check);
	if (err) {
		*sframe_err = -err;
		sfu_stat_inc(SFU_STAT_REFUSED_INVALID);
		return -ENOEXEC;
	}
	return 0;
}

/*
 * A new explicit section for the ranges, @check's rows read from user
 * memory until the caller gives it a copy.  Return: it, or NULL.
 */
static struct sfu_section *sfu_explicit_section(unsigned long sframe_addr,
						unsigned long sframe_size,
						unsigned long text_start, unsigned long text_end,
						const struct sfu_sframe_section *check)
{
	struct sfu_section *s = sfu_section_new(text_start, text_end, "[explicit]");

	if (!s)
		return NULL;
	s->kind = SFU_KIND_EXPLICIT;
	s->data_start = sframe_addr;
	s->data_end = sframe_addr + sframe_size;
	s->sec = *check;
	s->sec.reader.kind = SFRAME_READER_USER;
	s->sec.reader.buf = NULL;
	s->sec.reader.uaddr = sframe_addr;
	return s;
}

/*
 * Charge @s to the current user and insert it into @mm's registry if both
 * of its ranges are mapped; @s is discarded on failure.
 */
static int sfu_explicit_insert(struct mm_struct *mm, struct sfu_section *s)
{
	struct sfu_mm *smm = sfu_mm_get_or_create(mm, current->tgid);
	int err;

	if (sfu_section_set_user(s, sfu_user_get_current()) || !smm) {
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
}

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
 * changes nothing.  Beyond max_kernel_bytes (the copy and its FRE index,
 * sfu_copy_index()) there is no copy and lookups read user memory, where
 * those in functions of more than SFRAME_FRE_INDEX_STRIDE rows are
 * refused.  Both ranges must be mapped in
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
	struct sfu_sframe_copy *copy;
	struct sfu_sframe_section check;
	struct sfu_section *s;
	u8 *buf;
	int err;

	*sframe_err = 0;
	if (!sframe_size || sframe_addr + sframe_size < sframe_addr ||
	    sframe_addr + sframe_size > TASK_SIZE || text_start >= text_end ||
	    text_end > TASK_SIZE)
		return -EINVAL;
	if (sframe_size > sfu_max_section_bytes) {
		sfu_stat_inc(SFU_STAT_REFUSED_TOO_BIG);
		return -EFBIG;
	}

	/* Validate the very bytes lookups will use, if the budget allows a copy. */
	copy = sfu_copy_alloc(sframe_size);
	buf = copy ? copy->data : kvmalloc(sframe_size, GFP_KERNEL_ACCOUNT);
	if (!buf)
		return -ENOMEM;
	err = sfu_explicit_check(buf, sframe_addr, sframe_size, &check, sframe_err);
	if (err)
		goto free;
	/* A copy is kept with its FRE index or not at all: then user memory is read. */
	if (copy) {
		copy->sec = check;
		if (sfu_copy_index(copy)) {
			sfu_copy_put(copy);	/* @buf with it */
			copy = NULL;
			buf = NULL;
		}
	}

	s = sfu_explicit_section(sframe_addr, sframe_size, text_start, text_end, &check);
	if (!s) {
		err = -ENOMEM;
		goto free;
	}
	if (copy) {
		s->copy = copy;
		sfu_stat_inc(SFU_STAT_KERNEL_COPIES_MADE);
	} else {
		kvfree(buf);
	}
	return sfu_explicit_insert(mm, s);

free:
	if (copy)
		sfu_copy_put(copy);
	else
		kvfree(buf);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_registry_add);

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
	if (s && s->text_start == text_start && s->kind == SFU_KIND_EXPLICIT) {
		sfu_section_remove_locked(smm, s);
		err = 0;
	}
	sfu_mm_write_end(smm);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_registry_remove);
