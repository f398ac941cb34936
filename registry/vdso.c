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
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
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
 * struct sfu_vdso_image - a vDSO image read, with the pages it was read from
 * @ref: the cache's reference and each reader's
 * @pages: its pages, one reference held on each
 * @n: how many
 * @len: bytes of the mapping (@n pages may be fewer: SFU_VDSO_HEAD_PAGES)
 * @buf: the first @n pages' bytes
 * @err: what sfu_vdso_parse() made of them: 0, or -ENOENT
 * @id: its build-id, if @err is 0
 * @base: the link-time address of its first byte, if @err is 0
 */
struct sfu_vdso_image {
	refcount_t ref;
	struct page *pages[SFU_VDSO_HEAD_PAGES];
	unsigned long n;
	size_t len;
	u8 *buf;
	int err;
	struct sfu_elf_sframe id;
	u64 base;
};

/*
 * The last image read.  Every native process maps the same pages of the
 * kernel's image, which never change (a page copied on write gives the
 * VMA an anon_vma, and such a vDSO is not read at all): an exec or a
 * fork that finds the same pages mapped, the same length, reuses what
 * was read and parsed from them.  The references on the pages keep them
 * from being freed and reused for other bytes while they are remembered.
 */
static struct sfu_vdso_image *sfu_vdso_last;
static DEFINE_SPINLOCK(sfu_vdso_lock);

static void sfu_vdso_image_put(struct sfu_vdso_image *img)
{
	if (!img || !refcount_dec_and_test(&img->ref))
		return;
	release_pages(img->pages, img->n);
	kfree(img->buf);
	kfree(img);
}

/* A new image of the @n pages @pages (their references become its own), or NULL. */
static struct sfu_vdso_image *sfu_vdso_image_new(struct page **pages, unsigned long n,
						 size_t len)
{
	struct sfu_vdso_image *img = kzalloc(sizeof(*img), GFP_KERNEL);
	unsigned long i;

	if (img)
		img->buf = kmalloc_array(n, PAGE_SIZE, GFP_KERNEL);
	if (!img || !img->buf) {
		kfree(img);
		return NULL;
	}
	refcount_set(&img->ref, 1);
	for (i = 0; i < n; i++) {
		img->pages[i] = pages[i];
		memcpy_from_page(img->buf + i * PAGE_SIZE, pages[i], 0, PAGE_SIZE);
	}
	img->n = n;
	img->len = len;
	img->err = sfu_vdso_parse(img->buf, n * PAGE_SIZE, &img->id, &img->base);
	return img;
}

/*
 * The image of the vDSO at [@start, @end) of @mm (its first
 * SFU_VDSO_HEAD_PAGES pages at most), with a reference, or NULL.
 */
static struct sfu_vdso_image *sfu_vdso_image(struct mm_struct *mm, unsigned long start,
					     unsigned long end, bool trylock)
{
	struct page *pages[SFU_VDSO_HEAD_PAGES];
	unsigned long n = min_t(unsigned long, (end - start) >> PAGE_SHIFT, SFU_VDSO_HEAD_PAGES);
	struct sfu_vdso_image *img, *old;
	long got;

	if (!trylock)
		mmap_read_lock(mm);
	else if (!mmap_read_trylock(mm))
		return NULL;
	if (!sfu_vdso_vma(mm, start, end)) {
		mmap_read_unlock(mm);
		return NULL;
	}
	got = sfu_pin_user_pages_read(mm, start, n, pages);
	mmap_read_unlock(mm);
	if (got <= 0)
		return NULL;
	spin_lock(&sfu_vdso_lock);
	img = sfu_vdso_last;
	if (img && img->n == got && img->len == end - start &&
	    !memcmp(img->pages, pages, got * sizeof(*pages)))
		refcount_inc(&img->ref);
	else
		img = NULL;
	spin_unlock(&sfu_vdso_lock);
	if (img) {
		release_pages(pages, got);
		sfu_stat_inc(SFU_STAT_VDSO_REUSED);
		return img;
	}
	img = sfu_vdso_image_new(pages, got, end - start);
	if (!img) {
		release_pages(pages, got);
		return NULL;
	}
	refcount_inc(&img->ref);
	spin_lock(&sfu_vdso_lock);
	old = sfu_vdso_last;
	sfu_vdso_last = img;
	spin_unlock(&sfu_vdso_lock);
	sfu_vdso_image_put(old);
	return img;
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
	struct sfu_vdso_image *img;
	struct sfu_sframe_copy *c;
	u64 base;

	img = sfu_vdso_image(mm, start, end, trylock);
	if (!img)
		return NULL;
	if (img->err) {
		sfu_vdso_image_put(img);
		return NULL;
	}
	/* Its sidecar is bound to the whole image, which must have been read. */
	w.image = img->buf;
	w.image_len = img->n * PAGE_SIZE == img->len ? img->len : 0;
	c = sfu_sidecar_copy(img->id.build_id, img->id.build_id_len, NULL, &w);
	base = img->base;
	sfu_vdso_image_put(img);
	if (!c)
		return NULL;
	/* The image's first byte is at @start; the sidecar's rows are at link time. */
	*bias = start - base;
	sfu_stat_inc(SFU_STAT_SIDECAR_VDSO);
	return c;
}

/**
 * sfu_vdso_exit() - forget the vDSO image last read
 *
 * Context: module exit, after the last scan.
 */
void sfu_vdso_exit(void)
{
	sfu_vdso_image_put(sfu_vdso_last);
	sfu_vdso_last = NULL;
}
