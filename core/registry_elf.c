// SPDX-License-Identifier: GPL-2.0
/*
 * ELF side of the registry: where a mapped file's PT_GNU_SFRAME lies, and
 * whether its section is valid.
 *
 * Both are read from the file through the kernel's file API, never from the
 * process's memory: a process cannot make the module parse its own idea of
 * a shared library.  What a file's program headers say and whether its
 * section is valid are worked out once per file — keyed by device, inode,
 * generation, change time and size — and kept in a small LRU cache, files
 * without PT_GNU_SFRAME included: a library mapped by many processes, or
 * libc mapped by every process, is read once, and mapping it again costs no
 * file I/O.
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
#define SFU_FCACHE_MAX		1024
#define SFU_MAX_LOADS		8

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
 * struct sfu_file_info - what one file's ELF headers and section say
 * @node: link in the hash, keyed by device and inode
 * @lru: link in the LRU list, most recently used first
 * @id: the file
 * @status: 0, -ENOENT (not a native ELF file, or no PT_GNU_SFRAME),
 *          -EIO (unreadable), -EFBIG (section too large), -ENOEXEC (the
 *          decoder refused the section)
 * @sframe_vaddr: p_vaddr of PT_GNU_SFRAME
 * @sframe_offset: its p_offset
 * @sframe_size: its p_filesz
 * @nloads: entries in @loads
 * @loads: the file-backed PT_LOAD segments (p_vaddr, p_offset, p_filesz)
 * @sec: the parsed header when @status is 0 (vaddr: the link-time address)
 */
struct sfu_file_info {
	struct hlist_node node;
	struct list_head lru;
	struct sfu_file_id id;
	int status;
	u64 sframe_vaddr;
	u64 sframe_offset;
	u64 sframe_size;
	unsigned int nloads;
	struct {
		u64 vaddr;
		u64 offset;
		u64 filesz;
	} loads[SFU_MAX_LOADS];
	struct sframe_section sec;
};

static DEFINE_HASHTABLE(sfu_fcache, 8);
static LIST_HEAD(sfu_fcache_lru);
static DEFINE_SPINLOCK(sfu_fcache_lock);
static unsigned int sfu_fcache_count;

static u32 sfu_fcache_hash(const struct sfu_file_id *id)
{
	return hash_long(id->ino ^ ((unsigned long)id->dev << 20), 32);
}

static bool sfu_fcache_lookup(const struct sfu_file_id *id, struct sfu_file_info *out)
{
	struct sfu_file_info *e;
	bool found = false;

	spin_lock(&sfu_fcache_lock);
	hash_for_each_possible(sfu_fcache, e, node, sfu_fcache_hash(id)) {
		if (sfu_file_id_equal(&e->id, id)) {
			list_move(&e->lru, &sfu_fcache_lru);
			*out = *e;
			found = true;
			break;
		}
	}
	spin_unlock(&sfu_fcache_lock);
	return found;
}

static void sfu_fcache_insert(const struct sfu_file_info *info)
{
	struct sfu_file_info *e, *old = NULL;

	e = kmemdup(info, sizeof(*info), GFP_KERNEL);
	if (!e)
		return;
	spin_lock(&sfu_fcache_lock);
	hash_add(sfu_fcache, &e->node, sfu_fcache_hash(&e->id));
	list_add(&e->lru, &sfu_fcache_lru);
	if (++sfu_fcache_count > SFU_FCACHE_MAX) {
		old = list_last_entry(&sfu_fcache_lru, struct sfu_file_info, lru);
		hash_del(&old->node);
		list_del(&old->lru);
		sfu_fcache_count--;
	}
	spin_unlock(&sfu_fcache_lock);
	kfree(old);
}

/* Read the program headers of @file into @info (status and segments). */
static void sfu_read_phdrs(struct file *file, struct sfu_file_info *info)
{
	struct elf64_phdr *phdrs;
	struct elf64_hdr eh;
	loff_t pos = 0;
	size_t len;
	int i;

	info->status = -EIO;
	if (kernel_read(file, &eh, sizeof(eh), &pos) != sizeof(eh)) {
		sfu_stat_inc(SFU_STAT_elf_unreadable);
		return;
	}
	info->status = -ENOENT;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != ELF_ARCH ||
	    eh.e_phentsize != sizeof(*phdrs) || !eh.e_phnum || eh.e_phnum > SFU_MAX_PHDRS ||
	    !sfu_native_sframe_abi())
		return;

	len = eh.e_phnum * sizeof(*phdrs);
	phdrs = kmalloc(len, GFP_KERNEL);
	if (!phdrs) {
		info->status = -ENOMEM;
		return;
	}
	pos = eh.e_phoff;
	if (kernel_read(file, phdrs, len, &pos) != len) {
		sfu_stat_inc(SFU_STAT_elf_unreadable);
		info->status = -EIO;
		goto out;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		const struct elf64_phdr *ph = &phdrs[i];

		if (ph->p_type == PT_GNU_SFRAME && ph->p_filesz && info->status) {
			info->status = 0;
			info->sframe_vaddr = ph->p_vaddr;
			info->sframe_offset = ph->p_offset;
			info->sframe_size = ph->p_filesz;
		}
		if (ph->p_type == PT_LOAD && ph->p_filesz && info->nloads < SFU_MAX_LOADS) {
			info->loads[info->nloads].vaddr = ph->p_vaddr;
			info->loads[info->nloads].offset = ph->p_offset;
			info->loads[info->nloads].filesz = ph->p_filesz;
			info->nloads++;
		}
	}
	if (info->status)
		sfu_stat_inc(SFU_STAT_elf_no_sframe);
out:
	kfree(phdrs);
}

/* Validate @info's section, read from @file; sets status and header. */
static void sfu_validate(struct file *file, struct sfu_file_info *info)
{
	struct sframe_reader r = { .kind = SFRAME_READER_BUFFER };
	loff_t pos = info->sframe_offset;
	int err;
	void *buf;

	if (info->sframe_size > sfu_max_section_bytes) {
		sfu_stat_inc(SFU_STAT_refused_too_big);
		info->status = -EFBIG;
		return;
	}
	buf = kvmalloc(info->sframe_size, GFP_KERNEL);
	if (!buf) {
		info->status = -ENOMEM;
		return;
	}
	if (kernel_read(file, buf, info->sframe_size, &pos) != info->sframe_size) {
		sfu_stat_inc(SFU_STAT_elf_unreadable);
		info->status = -EIO;
		goto out;
	}
	r.buf = buf;
	r.size = info->sframe_size;
	err = sframe_section_init(&info->sec, &r, info->sframe_vaddr, sfu_native_sframe_abi());
	if (!err)
		err = sframe_section_validate(&info->sec);
	info->sec.reader.buf = NULL;
	sfu_stat_inc(SFU_STAT_validations);
	if (err) {
		sfu_stat_inc(SFU_STAT_refused_invalid);
		info->status = -ENOEXEC;
	}
out:
	kvfree(buf);
}

/**
 * sfu_file_sframe() - the validated section of the ELF file behind a text mapping
 * @file: the mapped file
 * @id: its identity (sfu_file_id_get())
 * @vm_start: where the mapping starts
 * @file_off: the file offset mapped at @vm_start
 * @out: on success, where the section lies and this mapping's load bias
 * @sec: on success, the parsed header; its vaddr is the link-time address
 *       and its reader points nowhere: the caller rebases both
 *
 * Reads and validates the file the first time it is seen; afterwards the
 * answer, negative or not, comes from the cache.
 *
 * Context: task context (may read the file).
 * Return: 0; -ENOENT for a file that is not a native ELF file or has no
 * PT_GNU_SFRAME, or when no PT_LOAD maps @file_off; -EIO if the file
 * cannot be read; -EFBIG beyond max_section_bytes; -ENOEXEC if the
 * decoder refuses the section; -ENOMEM.
 */
int sfu_file_sframe(struct file *file, const struct sfu_file_id *id, unsigned long vm_start,
		    unsigned long file_off, struct sfu_elf_sframe *out,
		    struct sframe_section *sec)
{
	struct sfu_file_info *info;
	unsigned int i;
	int err;

	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	if (sfu_fcache_lookup(id, info)) {
		sfu_stat_inc(SFU_STAT_file_cache_hits);
	} else {
		info->id = *id;
		sfu_read_phdrs(file, info);
		if (!info->status)
			sfu_validate(file, info);
		if (info->status != -ENOMEM)
			sfu_fcache_insert(info);
	}

	err = info->status;
	if (err)
		goto out;
	/* The loadable segment this mapping's first page belongs to. */
	err = -ENOENT;
	for (i = 0; i < info->nloads; i++) {
		if ((info->loads[i].offset & PAGE_MASK) <= file_off &&
		    file_off - info->loads[i].offset < info->loads[i].filesz) {
			out->abi = sfu_native_sframe_abi();
			out->sframe_vaddr = info->sframe_vaddr;
			out->sframe_offset = info->sframe_offset;
			out->sframe_size = info->sframe_size;
			/* Link-time address of file_off in that segment vs. now. */
			out->bias = vm_start - (info->loads[i].vaddr - info->loads[i].offset +
						file_off);
			*sec = info->sec;
			err = 0;
			break;
		}
	}
out:
	kfree(info);
	return err;
}

/**
 * sfu_fcache_exit() - free the per-file cache
 */
void sfu_fcache_exit(void)
{
	struct sfu_file_info *e, *next;

	spin_lock(&sfu_fcache_lock);
	list_for_each_entry_safe(e, next, &sfu_fcache_lru, lru) {
		hash_del(&e->node);
		list_del(&e->lru);
		kfree(e);
	}
	sfu_fcache_count = 0;
	spin_unlock(&sfu_fcache_lock);
}
