// SPDX-License-Identifier: GPL-2.0
/*
 * ELF side of the registry: where a mapped file's PT_GNU_SFRAME lies, and
 * whether its section is valid.
 *
 * Both are read from the file through the kernel's file API, never from the
 * process's memory: a process cannot make the module parse its own idea of
 * a shared library.  A section is validated once per file — keyed by
 * device, inode, generation, change time and size — and the outcome kept in
 * a small LRU cache, so a library mapped by many processes is read once.
 */
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "registry_internal.h"
#include "stats.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#define SFU_MAX_PHDRS		256
#define SFU_VCACHE_MAX		1024

/**
 * sfu_native_sframe_abi() - the SFrame ABI of this kernel's native tasks
 *
 * Return: SFRAME_ABI_* for 64-bit little-endian tasks of ELF_ARCH, or 0
 * when this architecture has no SFrame ABI.
 */
int sfu_native_sframe_abi(void)
{
	switch (ELF_ARCH) {
	case EM_X86_64:
		return SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	case EM_AARCH64:
		return IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ? SFRAME_ABI_AARCH64_ENDIAN_BIG :
							   SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
	}
	return 0;
}

/**
 * sfu_file_id_get() - identify the file behind a mapping
 * @file: the file
 * @id: filled in
 */
void sfu_file_id_get(struct file *file, struct sfu_file_id *id)
{
	struct inode *inode = file_inode(file);

	memset(id, 0, sizeof(*id));
	id->dev = inode->i_sb->s_dev;
	id->ino = inode->i_ino;
	id->generation = inode->i_generation;
	id->ctime = sfu_inode_ctime(inode);
	id->size = i_size_read(inode);
}

/**
 * sfu_file_id_equal() - do two identities name the same file contents
 * @a: one identity
 * @b: the other
 *
 * Return: true if they are equal.
 */
bool sfu_file_id_equal(const struct sfu_file_id *a, const struct sfu_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->generation == b->generation &&
	       timespec64_equal(&a->ctime, &b->ctime) && a->size == b->size;
}

/**
 * sfu_elf_find_sframe() - find PT_GNU_SFRAME of the ELF file behind a text mapping
 * @file: the mapped file
 * @vm_start: where the mapping starts
 * @file_off: the file offset mapped at @vm_start
 * @out: filled in on success, with the load bias of this mapping
 *
 * Context: task context (reads the file).
 * Return: 0; -ENOENT for a file that is not a native ELF file or has no
 * PT_GNU_SFRAME; -EIO if the headers cannot be read; -ENOEXEC if no
 * PT_LOAD maps @file_off.
 */
int sfu_elf_find_sframe(struct file *file, unsigned long vm_start, unsigned long file_off,
			struct sfu_elf_sframe *out)
{
	const struct elf64_phdr *sframe = NULL, *load = NULL;
	struct elf64_phdr *phdrs;
	struct elf64_hdr eh;
	loff_t pos = 0;
	size_t len;
	int i, err;

	if (kernel_read(file, &eh, sizeof(eh), &pos) != sizeof(eh)) {
		sfu_stat_inc(SFU_STAT_elf_unreadable);
		return -EIO;
	}
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != ELF_ARCH ||
	    eh.e_phentsize != sizeof(*phdrs) || !eh.e_phnum || eh.e_phnum > SFU_MAX_PHDRS ||
	    !sfu_native_sframe_abi())
		return -ENOENT;

	len = eh.e_phnum * sizeof(*phdrs);
	phdrs = kmalloc(len, GFP_KERNEL);
	if (!phdrs)
		return -ENOMEM;
	pos = eh.e_phoff;
	if (kernel_read(file, phdrs, len, &pos) != len) {
		sfu_stat_inc(SFU_STAT_elf_unreadable);
		err = -EIO;
		goto out;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		const struct elf64_phdr *ph = &phdrs[i];

		if (ph->p_type == PT_GNU_SFRAME && !sframe)
			sframe = ph;
		/* The loadable segment this mapping's first page belongs to. */
		if (ph->p_type == PT_LOAD && !load && ph->p_filesz &&
		    (ph->p_offset & PAGE_MASK) <= file_off &&
		    file_off - ph->p_offset < ph->p_filesz)
			load = ph;
	}
	err = -ENOENT;
	if (!sframe) {
		sfu_stat_inc(SFU_STAT_elf_no_sframe);
		goto out;
	}
	err = -ENOEXEC;
	if (!load || !sframe->p_filesz)
		goto out;
	out->abi = sfu_native_sframe_abi();
	out->sframe_vaddr = sframe->p_vaddr;
	out->sframe_offset = sframe->p_offset;
	out->sframe_size = sframe->p_filesz;
	/* Link-time address of file_off in this segment, and where it is now. */
	out->bias = vm_start - (load->p_vaddr - load->p_offset + file_off);
	err = 0;
out:
	kfree(phdrs);
	return err;
}

/**
 * struct sfu_vcache_entry - the validation outcome of one file's section
 * @node: link in the hash, keyed by device and inode
 * @lru: link in the LRU list, most recently used first
 * @id: the file
 * @offset: file offset of the section
 * @size: its size
 * @result: 0 or the decoder's negative code
 * @sec: the parsed header when @result is 0 (vaddr: the link-time address)
 */
struct sfu_vcache_entry {
	struct hlist_node node;
	struct list_head lru;
	struct sfu_file_id id;
	u64 offset;
	u64 size;
	int result;
	struct sframe_section sec;
};

static DEFINE_HASHTABLE(sfu_vcache, 8);
static LIST_HEAD(sfu_vcache_lru);
static DEFINE_SPINLOCK(sfu_vcache_lock);
static unsigned int sfu_vcache_count;

static u32 sfu_vcache_hash(const struct sfu_file_id *id)
{
	return hash_long(id->ino ^ ((unsigned long)id->dev << 20), 32);
}

static bool sfu_vcache_lookup(const struct sfu_file_id *id, const struct sfu_elf_sframe *elf,
			      int *result, struct sframe_section *sec)
{
	struct sfu_vcache_entry *e;
	bool found = false;

	spin_lock(&sfu_vcache_lock);
	hash_for_each_possible(sfu_vcache, e, node, sfu_vcache_hash(id)) {
		if (sfu_file_id_equal(&e->id, id) && e->offset == elf->sframe_offset &&
		    e->size == elf->sframe_size) {
			list_move(&e->lru, &sfu_vcache_lru);
			*result = e->result;
			*sec = e->sec;
			found = true;
			break;
		}
	}
	spin_unlock(&sfu_vcache_lock);
	return found;
}

static void sfu_vcache_insert(const struct sfu_file_id *id, const struct sfu_elf_sframe *elf,
			      int result, const struct sframe_section *sec)
{
	struct sfu_vcache_entry *e, *old = NULL;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return;
	e->id = *id;
	e->offset = elf->sframe_offset;
	e->size = elf->sframe_size;
	e->result = result;
	e->sec = *sec;
	e->sec.reader.buf = NULL;

	spin_lock(&sfu_vcache_lock);
	hash_add(sfu_vcache, &e->node, sfu_vcache_hash(id));
	list_add(&e->lru, &sfu_vcache_lru);
	if (++sfu_vcache_count > SFU_VCACHE_MAX) {
		old = list_last_entry(&sfu_vcache_lru, struct sfu_vcache_entry, lru);
		hash_del(&old->node);
		list_del(&old->lru);
		sfu_vcache_count--;
	}
	spin_unlock(&sfu_vcache_lock);
	kfree(old);
}

/**
 * sfu_file_validate() - validate a file's SFrame section, once per file
 * @file: the file
 * @id: its identity (sfu_file_id_get())
 * @elf: where its section lies (sfu_elf_find_sframe())
 * @sec: on success, the parsed header; its vaddr is the link-time address
 *       and its reader points nowhere: the caller rebases both
 *
 * Context: task context (reads the file).
 * Return: 0; -EFBIG beyond max_section_bytes; -EIO if the section cannot be
 * read; -ENOEXEC if the decoder refuses it (the outcome is cached).
 */
int sfu_file_validate(struct file *file, const struct sfu_file_id *id,
		      const struct sfu_elf_sframe *elf, struct sframe_section *sec)
{
	struct sframe_reader r = { .kind = SFRAME_READER_BUFFER };
	loff_t pos = elf->sframe_offset;
	int result;
	void *buf;

	if (sfu_vcache_lookup(id, elf, &result, sec)) {
		sfu_stat_inc(SFU_STAT_validation_cache_hits);
		return result ? -ENOEXEC : 0;
	}
	if (elf->sframe_size > sfu_max_section_bytes) {
		sfu_stat_inc(SFU_STAT_refused_too_big);
		return -EFBIG;
	}
	buf = kvmalloc(elf->sframe_size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (kernel_read(file, buf, elf->sframe_size, &pos) != elf->sframe_size) {
		kvfree(buf);
		sfu_stat_inc(SFU_STAT_elf_unreadable);
		return -EIO;
	}
	r.buf = buf;
	r.size = elf->sframe_size;
	result = sframe_section_init(sec, &r, elf->sframe_vaddr, elf->abi);
	if (!result)
		result = sframe_section_validate(sec);
	kvfree(buf);
	sfu_stat_inc(SFU_STAT_validations);
	if (result)
		sfu_stat_inc(SFU_STAT_refused_invalid);
	sfu_vcache_insert(id, elf, result, sec);
	return result ? -ENOEXEC : 0;
}

/**
 * sfu_vcache_exit() - free the validation cache
 */
void sfu_vcache_exit(void)
{
	struct sfu_vcache_entry *e, *next;

	spin_lock(&sfu_vcache_lock);
	list_for_each_entry_safe(e, next, &sfu_vcache_lru, lru) {
		hash_del(&e->node);
		list_del(&e->lru);
		kfree(e);
	}
	sfu_vcache_count = 0;
	spin_unlock(&sfu_vcache_lock);
}
