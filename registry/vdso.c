// SPDX-License-Identifier: GPL-2.0
/*
 * The vDSO: code the kernel maps into every process, without a file
 * behind it and without .sframe of its own.  Its rows come from the
 * sidecar of its build-id (tools/sframe-gen --install --vdso), as those of
 * a file without .sframe do.
 *
 * The mapping is found by its name, "[vdso]", which the kernel's special
 * mapping gives it; its ELF header, program headers and build-id note are
 * read from its own pages, pinned while the mmap_lock is held, and only
 * while no page of it was ever copied on write (no anon_vma): a process
 * may write to its vDSO (mprotect, ptrace), and then its pages are no
 * longer the kernel's.  The build-id only chooses among the sidecars root
 * installed, whose rows are validated as any others.
 */
#include <linux/elf.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "sframe_unwind/compat/gup.h"
#include "internal.h"
#include "stats.h"

/* Bytes of the vDSO image read for its headers and notes. */
#define SFU_VDSO_HEAD_PAGES	8

/**
 * sfu_vma_is_vdso() - is @vma the vDSO's text
 * @vma: a VMA
 *
 * Context: any (called from the mmap hook too); the caller keeps @vma alive.
 * Return: true for an executable special mapping named "[vdso]".
 */
bool sfu_vma_is_vdso(struct vm_area_struct *vma)
{
	const char *name;

	if (vma->vm_file || !(vma->vm_flags & VM_EXEC) || !vma->vm_ops || !vma->vm_ops->name)
		return false;
	name = vma->vm_ops->name(vma);
	return name && !strcmp(name, "[vdso]");
}

/* The vDSO at @start, as the kernel mapped it; mmap_lock held. */
static struct vm_area_struct *sfu_vdso_vma(struct mm_struct *mm, unsigned long start,
					   unsigned long end)
{
	struct vm_area_struct *vma = vma_lookup(mm, start);

	if (!vma || vma->vm_start != start || vma->vm_end != end || !sfu_vma_is_vdso(vma) ||
	    vma->anon_vma)
		return NULL;
	return vma;
}

/**
 * sfu_vdso_mapped() - is [@start, @end) still the kernel's vDSO
 * @mm: the mm, its mmap_lock held
 * @start: where a vDSO was found
 * @end: where it ended
 *
 * Return: true if the range is the vDSO mapping, none of whose pages was
 * copied on write.
 */
bool sfu_vdso_mapped(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	mmap_assert_locked(mm);
	return sfu_vdso_vma(mm, start, end);
}

/*
 * The first bytes of the vDSO at [@start, @end) of @mm into @buf (at most
 * SFU_VDSO_HEAD_PAGES pages).  Return: bytes read, or 0.
 */
static size_t sfu_vdso_read_head(struct mm_struct *mm, unsigned long start, unsigned long end,
				 u8 *buf, bool trylock)
{
	struct page *pages[SFU_VDSO_HEAD_PAGES];
	unsigned long n = min_t(unsigned long, (end - start) >> PAGE_SHIFT, SFU_VDSO_HEAD_PAGES);
	long got, i;

	if (!trylock)
		mmap_read_lock(mm);
	else if (!mmap_read_trylock(mm))
		return 0;
	if (!sfu_vdso_vma(mm, start, end)) {
		mmap_read_unlock(mm);
		return 0;
	}
	got = sfu_pin_user_pages_read(mm, start, n, pages);
	mmap_read_unlock(mm);
	if (got <= 0)
		return 0;
	for (i = 0; i < got; i++) {
		memcpy_from_page(buf + i * PAGE_SIZE, pages[i], 0, PAGE_SIZE);
		put_page(pages[i]);
	}
	return got * PAGE_SIZE;
}

/*
 * From the vDSO image's first @len bytes in @buf: its build-id and the
 * link-time address of its first byte (the PT_LOAD holding offset 0).
 * Return: 0, or -ENOENT when the image is not what this kernel's native
 * tasks run or names no build-id.
 */
static int sfu_vdso_parse(const u8 *buf, size_t len, struct sfu_elf_sframe *out, u64 *base)
{
	const struct elf64_hdr *eh = (const void *)buf;
	const struct elf64_phdr *ph;
	bool load = false;
	int i;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != ELF_ARCH ||
	    eh->e_phentsize != sizeof(*ph) || !eh->e_phnum || eh->e_phoff > len ||
	    (len - eh->e_phoff) / sizeof(*ph) < eh->e_phnum)
		return -ENOENT;
	ph = (const void *)(buf + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++, ph++) {
		if (ph->p_type == PT_LOAD && !load && ph->p_offset == 0) {
			*base = ph->p_vaddr;
			load = true;
		}
		if (ph->p_type == PT_NOTE && !out->build_id_len && ph->p_offset < len)
			sfu_parse_build_id(buf + ph->p_offset,
					   min_t(u64, ph->p_filesz, len - ph->p_offset),
					   out->build_id, &out->build_id_len);
	}
	return load && out->build_id_len ? 0 : -ENOENT;
}

/**
 * sfu_vdso_copy() - the rows of the vDSO mapped at [@start, @end)
 * @mm: the mm; current's, or one the caller holds with mmget()
 * @start: where the vDSO starts (its ELF header)
 * @end: where it ends
 * @bias: set to what moves the rows' link-time addresses to @mm's
 * @trylock: give up (NULL) rather than wait for @mm's mmap_lock
 *
 * Context: task context, mmap_lock not held.
 * Return: the kernel copy of the vDSO's sidecar, with a reference, or
 * NULL: no sidecar, a vDSO written to, or no memory.
 */
struct sfu_sframe_copy *sfu_vdso_copy(struct mm_struct *mm, unsigned long start,
				      unsigned long end, long *bias, bool trylock)
{
	struct sfu_sidecar_for w = {};
	struct sfu_elf_sframe id = {};
	struct sfu_sframe_copy *c;
	size_t len;
	u64 base;
	u8 *buf;

	buf = kmalloc(SFU_VDSO_HEAD_PAGES * PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return NULL;
	len = sfu_vdso_read_head(mm, start, end, buf, trylock);
	if (!len || sfu_vdso_parse(buf, len, &id, &base)) {
		kfree(buf);
		return NULL;
	}
	/* Its sidecar is bound to the whole image, which must have been read. */
	w.image = buf;
	w.image_len = len == end - start ? len : 0;
	c = sfu_sidecar_copy(id.build_id, id.build_id_len, NULL, &w);
	kfree(buf);
	if (!c)
		return NULL;
	/* The image's first byte is at @start; the sidecar's rows are at link time. */
	*bias = start - base;
	sfu_stat_inc(SFU_STAT_SIDECAR_VDSO);
	return c;
}
