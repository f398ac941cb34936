// SPDX-License-Identifier: GPL-2.0
/*
 * One section: making it, the user it is charged to and the kernel copies
 * it holds for that user, freeing it; and whether its text and its data
 * are still mapped as when it was found.  What happens to it in an mm's
 * trees is tree.c's and recheck.c's, through state.c's table.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/slab.h>

#include "internal.h"

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

/**
 * sfu_section_text_state() - where @s's text is now
 * @mm: the mm, its mmap_lock held
 * @s: the section
 *
 * Is @s's text mapped as when it was found (SFU_SECTION_TEXT_MAPPED), or
 * still mapped from its file at its place though not executable (mprotect
 * took PROT_EXEC away: SFU_SECTION_TEXT_KEPT), or neither?  Never kept:
 * an explicit section or the vDSO, whose memory is anyone's once it is
 * not their code.  One walk of the VMAs for a file's text.
 *
 * Return: where it is.
 */
enum sfu_section_text sfu_section_text_state(struct mm_struct *mm, const struct sfu_section *s)
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
