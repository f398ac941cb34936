// SPDX-License-Identifier: GPL-2.0
/*
 * ELF side of the registry: where a mapped file's PT_GNU_SFRAME lies, and
 * whether its section is valid.
 *
 * Both are read from the file through the kernel's file API, never from the
 * process's memory.  What a file's program headers say and whether its
 * section is valid are worked out once per file (device, inode, generation,
 * change time, size) and kept in a small LRU cache, files without
 * PT_GNU_SFRAME included: a library mapped by many processes is read once.
 * The bytes read for validation become the file's kernel copy (copy.c),
 * shared by every section of the file while one uses it.
 */
#include <linux/elf.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include "uapi/sframe_sidecar.h"
#include "uapi/sframe_unwind.h"
#include "internal.h"
#include "stats.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#define SFU_MAX_PHDRS		256
#define SFU_FCACHE_MAX		1024
#define SFU_MAX_LOADS		8
#define SFU_MAX_NOTE_BYTES	4096

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
 * @sidecar: the section is the file's sidecar's (sidecar.c)
 * @go: the Go toolchain built the file (its "Go" build-id note)
 * @fp_only: a Go program's section of no functions (sfu_copy_fp_only(sfu_native_sframe_abi()))
 * @build_id_len: bytes of @build_id (0: the file has none)
 * @build_id: the file's GNU build-id, which names its sidecar
 * @bind: the content its sidecar is bound to (sfu_sidecar_open())
 * @copy: the section's kernel copy while a section uses it, else NULL
 *        (a slot of registry_copy.c: read it with sfu_copy_get_slot())
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
		bool exec;
	} loads[SFU_MAX_LOADS];
	struct sfu_sframe_section sec;
	struct sfu_sframe_copy *copy;
	bool sidecar;
	bool go;
	bool fp_only;
	u8 build_id_len;
	u8 build_id[SFU_SIDECAR_BUILD_ID_MAX];
	struct sfu_sidecar_bind bind;
};

static DEFINE_HASHTABLE(sfu_fcache, 8);
static LIST_HEAD(sfu_fcache_lru);
static DEFINE_SPINLOCK(sfu_fcache_lock);
static unsigned int sfu_fcache_count;

static u32 sfu_fcache_hash(const struct sfu_file_id *id)
{
	return hash_long(id->ino ^ ((unsigned long)id->dev << 20), 32);
}

/* The entry of @id; under sfu_fcache_lock. */
static struct sfu_file_info *sfu_fcache_find_locked(const struct sfu_file_id *id)
{
	struct sfu_file_info *e;

	hash_for_each_possible(sfu_fcache, e, node, sfu_fcache_hash(id))
		if (sfu_file_id_equal(&e->id, id))
			return e;
	return NULL;
}

/* The cached entry of @id into @out, and a reference to its copy in @copy. */
static bool sfu_fcache_lookup(const struct sfu_file_id *id, struct sfu_file_info *out,
			      struct sfu_sframe_copy **copy)
{
	struct sfu_file_info *e;

	*copy = NULL;
	spin_lock(&sfu_fcache_lock);
	e = sfu_fcache_find_locked(id);
	if (e) {
		list_move(&e->lru, &sfu_fcache_lru);
		*out = *e;
		out->copy = NULL;
		*copy = sfu_copy_get_slot(&e->copy);
	}
	spin_unlock(&sfu_fcache_lock);
	return e;
}

/* Forget the LRU entry; under sfu_fcache_lock.  Return: it, to be freed. */
static struct sfu_file_info *sfu_fcache_evict_locked(void)
{
	struct sfu_file_info *old;

	old = list_last_entry(&sfu_fcache_lru, struct sfu_file_info, lru);
	hash_del(&old->node);
	list_del(&old->lru);
	sfu_copy_clear_slot(&old->copy);
	sfu_fcache_count--;
	return old;
}

/*
 * Cache @info, with @copy (a reference the caller passes on to its caller)
 * kept for later users.  A task that read the same file meanwhile cached
 * it first: its entry stays, and its copy is shared.  Return: the copy to
 * use, with one reference.
 */
static struct sfu_sframe_copy *sfu_fcache_insert(const struct sfu_file_info *info,
						 struct sfu_sframe_copy *copy)
{
	struct sfu_file_info *e, *old = NULL, *other;

	e = kmemdup(info, sizeof(*info), GFP_KERNEL);
	if (!e)
		return copy;
	e->copy = NULL;
	spin_lock(&sfu_fcache_lock);
	other = sfu_fcache_find_locked(&e->id);
	if (other) {
		old = e;
		e = other;
	} else {
		hash_add(sfu_fcache, &e->node, sfu_fcache_hash(&e->id));
		list_add(&e->lru, &sfu_fcache_lru);
		if (++sfu_fcache_count > SFU_FCACHE_MAX)
			old = sfu_fcache_evict_locked();
	}
	if (copy)
		copy = sfu_copy_set_slot(&e->copy, copy);
	spin_unlock(&sfu_fcache_lock);
	kfree(old);
	return copy;
}

/*
 * Keep @copy in the cache entry of @id for later users, unless another
 * task put a copy there meanwhile.  Return: the copy to use (one reference).
 */
static struct sfu_sframe_copy *sfu_fcache_attach(const struct sfu_file_id *id,
						 struct sfu_sframe_copy *copy)
{
	struct sfu_file_info *e;

	spin_lock(&sfu_fcache_lock);
	e = sfu_fcache_find_locked(id);
	if (e)
		copy = sfu_copy_set_slot(&e->copy, copy);
	spin_unlock(&sfu_fcache_lock);
	return copy;
}

/*
 * The GNU build-id in the PT_NOTE segment at @off, @len bytes of @file,
 * into @info, and whether the Go toolchain built the file; nothing when
 * the segment holds neither.
 */
static void sfu_read_notes(struct file *file, u64 off, u64 len, struct sfu_file_info *info)
{
	loff_t pos = off;
	u8 *buf;

	len = min_t(u64, len, SFU_MAX_NOTE_BYTES);
	buf = kmalloc(len, GFP_KERNEL);
	if (!buf)
		return;
	if (sfu_read_whole(file, buf, len, &pos)) {
		if (!info->build_id_len)
			sfu_parse_build_id(buf, len, info->build_id, &info->build_id_len);
		info->go = info->go || sfu_parse_go_note(buf, len);
	}
	kfree(buf);
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
	if (!sfu_read_whole(file, &eh, sizeof(eh), &pos)) {
		sfu_stat_inc(SFU_STAT_ELF_UNREADABLE);
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
	if (!sfu_read_whole(file, phdrs, len, &pos)) {
		sfu_stat_inc(SFU_STAT_ELF_UNREADABLE);
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
		if (ph->p_type == PT_NOTE && ph->p_filesz && (!info->build_id_len || !info->go))
			sfu_read_notes(file, ph->p_offset, ph->p_filesz, info);
		if (ph->p_type == PT_LOAD && ph->p_filesz && info->nloads < SFU_MAX_LOADS) {
			info->loads[info->nloads].vaddr = ph->p_vaddr;
			info->loads[info->nloads].offset = ph->p_offset;
			info->loads[info->nloads].filesz = ph->p_filesz;
			info->loads[info->nloads].exec = ph->p_flags & PF_X;
			info->nloads++;
		}
	}
	if (info->status)
		sfu_stat_inc(SFU_STAT_ELF_NO_SFRAME);
out:
	kfree(phdrs);
}

/*
 * Validate @info's section, read from @file; sets status and header.
 * Return: the kernel copy of a valid section (one reference), or NULL:
 * invalid, unreadable, or no copy (max_kernel_bytes reached, no memory).
 */
static struct sfu_sframe_copy *sfu_validate(struct file *file, struct sfu_file_info *info)
{
	struct sfu_sframe_copy *copy;
	bool keep = false;
	u8 *buf;
	int err;

	if (info->sframe_size > sfu_max_section_bytes) {
		sfu_stat_inc(SFU_STAT_REFUSED_TOO_BIG);
		info->status = -EFBIG;
		return NULL;
	}
	/* What validation reads becomes the copy, if the budget allows one. */
	copy = sfu_copy_alloc(info->sframe_size);
	buf = copy ? copy->data : kvmalloc(info->sframe_size, GFP_KERNEL_ACCOUNT);
	if (!buf) {
		info->status = -ENOMEM;
		return NULL;
	}
	err = sfu_read_section(file, info->sframe_offset, info->sframe_size, info->sframe_vaddr,
			       buf, &info->sec, info->sidecar);
	if (err == -SFRAME_E_FAULT) {
		info->status = -EIO;
	} else if (err) {
		sfu_stat_inc(SFU_STAT_REFUSED_INVALID);
		info->status = -ENOEXEC;
	} else if (copy) {
		/* The cached header gets no index: only the copy has one. */
		copy->sec = info->sec;
		keep = !sfu_copy_index(copy);
		if (keep)
			sfu_stat_inc(SFU_STAT_KERNEL_COPIES_MADE);
	}
	info->sec.reader.buf = NULL;
	if (keep)
		return copy;
	if (copy)
		sfu_copy_put(copy);
	else
		kvfree(buf);
	return NULL;
}

/*
 * A new kernel copy of the section of a file validated before, whose
 * previous copy went with its last user (or was never made): NULL if the
 * budget does not allow one or the file reads differently now, and the
 * section is then read from user memory.
 */
static struct sfu_sframe_copy *sfu_reload(struct file *file, const struct sfu_file_info *info)
{
	struct sfu_sframe_copy *copy;
	struct file *sc = NULL;
	u64 off, size, vaddr;
	int err;

	if (info->fp_only) {
		copy = sfu_copy_fp_only(sfu_native_sframe_abi());
		return copy ? sfu_fcache_attach(&info->id, copy) : NULL;
	}
	copy = sfu_copy_alloc(info->sframe_size);
	if (!copy)
		return NULL;
	if (info->sidecar) {
		struct sfu_sidecar_bind bind = info->bind;

		/* The same sidecar, or none: it may have been replaced since. */
		sc = sfu_sidecar_open(info->build_id, info->build_id_len, NULL, &bind, &off, &size,
				      &vaddr);
		if (!IS_ERR(sc) && (off != info->sframe_offset || size != info->sframe_size ||
				    vaddr != info->sframe_vaddr)) {
			fput(sc);
			sc = ERR_PTR(-ENOENT);
		}
		if (IS_ERR(sc)) {
			sfu_copy_put(copy);
			return NULL;
		}
	}
	err = sfu_read_section(sc ?: file, info->sframe_offset, info->sframe_size,
			       info->sframe_vaddr, copy->data, &copy->sec, info->sidecar);
	if (sc)
		fput(sc);
	if (err || sfu_copy_index(copy)) {
		sfu_copy_put(copy);
		return NULL;
	}
	sfu_stat_inc(SFU_STAT_KERNEL_COPIES_MADE);
	return sfu_fcache_attach(&info->id, copy);
}

/*
 * The PT_LOAD of @info that a mapping starting at file offset @file_off
 * (page aligned) maps: one whose pages hold @file_off, the executable one
 * where two share that page.  Returns its index, or -1.
 */
static int sfu_load_of(const struct sfu_file_info *info, unsigned long file_off)
{
	int i, found = -1;

	for (i = 0; i < info->nloads; i++) {
		if ((info->loads[i].offset & PAGE_MASK) > file_off ||
		    file_off >= info->loads[i].offset + info->loads[i].filesz)
			continue;
		if (info->loads[i].exec)
			return i;
		if (found < 0)
			found = i;
	}
	return found;
}

/*
 * @info, first seen, has neither PT_GNU_SFRAME nor a sidecar (one of its
 * build-id was refused if @refused): its sidecar is to be asked for.
 */
static void sfu_file_want_sidecar(const struct sfu_file_info *info, bool refused,
				  struct sfu_elf_sframe *out)
{
	out->want_sidecar = true;
	out->why = refused ? SFU_SIDECAR_WHY_CONTENT : SFU_SIDECAR_WHY_MISSING;
	out->build_id_len = info->build_id_len;
	memcpy(out->build_id, info->build_id, info->build_id_len);
}

/*
 * A file not in the cache: read it, or its sidecar, validate the section
 * and remember the answer; in @out, whether its sidecar is to be asked
 * for.  Return: the kernel copy made, or NULL, with @info's status set.
 */
static struct sfu_sframe_copy *sfu_file_first_seen(struct file *file, const struct sfu_file_id *id,
						   struct sfu_file_info *info,
						   struct sfu_elf_sframe *out)
{
	struct sfu_sframe_copy *c = NULL;
	struct file *sc = NULL;
	bool remember = true;

	info->id = *id;
	sfu_read_phdrs(file, info);
	/* No .sframe in the file: its sidecar, if root installed one. */
	if (info->status == -ENOENT && info->build_id_len) {
		struct sfu_sidecar_for w = { .file = file, .go = info->go };

		sc = sfu_sidecar_open(info->build_id, info->build_id_len, &w, &info->bind,
				      &info->sframe_offset, &info->sframe_size,
				      &info->sframe_vaddr);
		if (!IS_ERR(sc)) {
			info->status = 0;
			info->sidecar = true;
		} else {
			/* Not looked at: the next mapping tries again. */
			remember = PTR_ERR(sc) == -ENOENT;
			sc = NULL;
			/* None: the daemon, if one runs, may make it. */
			if (remember)
				sfu_file_want_sidecar(info, w.refused, out);
		}
	}
	if (!info->status) {
		c = sfu_validate(sc ?: file, info);
	} else if (info->status == -ENOENT && remember && info->go) {
		c = sfu_copy_fp_only(sfu_native_sframe_abi());
		if (c) {
			/* Like a sidecar's, its rows are in the kernel copy only. */
			info->status = 0;
			info->fp_only = true;
			info->sidecar = true;
			info->sec = c->sec;
			info->sec.reader.buf = NULL;
			info->sframe_size = SFRAME_HDR_SIZE;
		}
	}
	if (sc) {
		fput(sc);
		if (!info->status)
			sfu_stat_inc(SFU_STAT_SIDECAR_USED);
	}
	if (info->status != -ENOMEM && remember)
		c = sfu_fcache_insert(info, c);
	return c;
}

/* What sfu_file_sframe() answers for a mapping at @vm_start of PT_LOAD @i at @file_off. */
static void sfu_file_out(const struct sfu_file_info *info, int i, unsigned long vm_start,
			 unsigned long file_off, struct sfu_elf_sframe *out)
{
	out->abi = sfu_native_sframe_abi();
	out->sframe_vaddr = info->sframe_vaddr;
	out->sframe_offset = info->sframe_offset;
	out->sframe_size = info->sframe_size;
	out->sidecar = info->sidecar;
	out->build_id_len = info->build_id_len;
	memcpy(out->build_id, info->build_id, info->build_id_len);
	/* Link-time address of file_off in that segment vs. now. */
	out->bias = vm_start - (info->loads[i].vaddr - info->loads[i].offset + file_off);
	/*
	 * Where that segment ends in this mapping.  The dynamic loader maps
	 * a library's whole extent with its first segment's protection, then
	 * maps the others over it: a first segment that is executable (arm64's
	 * 64K-aligned libraries, x86's without -z separate-code) leaves a
	 * mapping that is executable well past its text for a while.
	 */
	out->text_end = info->loads[i].exec ?
		PAGE_ALIGN(info->loads[i].vaddr + info->loads[i].filesz + out->bias) : 0;
}

/*
 * sfu_file_sframe() for a file the cache knows, answered in place under the
 * cache's lock (no copy of the entry): -EAGAIN when the cache does not
 * know the file, or knows it with a section whose copy is gone (it is read
 * again), for the caller's slower path.
 */
static int sfu_fcache_answer(const struct sfu_file_id *id, unsigned long vm_start,
			     unsigned long file_off, struct sfu_elf_sframe *out,
			     struct sfu_sframe_section *sec, struct sfu_sframe_copy **copy)
{
	struct sfu_sframe_copy *c = NULL;
	struct sfu_file_info *e;
	int err, i;

	spin_lock(&sfu_fcache_lock);
	e = sfu_fcache_find_locked(id);
	if (!e) {
		err = -EAGAIN;
		goto out;
	}
	err = e->status;
	if (!err) {
		c = sfu_copy_get_slot(&e->copy);
		if (!c) {
			err = -EAGAIN;
			goto out;
		}
		i = sfu_load_of(e, file_off);
		if (i < 0) {
			err = -ENOENT;
		} else {
			sfu_file_out(e, i, vm_start, file_off, out);
			*sec = e->sec;
			*copy = c;
			c = NULL;
		}
	}
	list_move(&e->lru, &sfu_fcache_lru);
	sfu_stat_inc(SFU_STAT_FILE_CACHE_HITS);
out:
	spin_unlock(&sfu_fcache_lock);
	sfu_copy_put(c);
	return err;
}

/**
 * sfu_file_sframe() - the validated section of the ELF file behind a text mapping
 * @file: the mapped file
 * @id: its identity (sfu_file_id_get())
 * @vm_start: where the mapping starts
 * @file_off: the file offset mapped at @vm_start
 * @out: on success, where the section lies and this mapping's load bias;
 *       whatever the answer, whether the sidecar daemon is to be asked for
 *       the file's sidecar (first seen without one), which the caller does
 * @sec: on success, the parsed header; its vaddr is the link-time address
 *       and its reader points nowhere: the caller rebases both
 * @copy: on success, the section's kernel copy with a reference for the
 *        caller, or NULL when it has none (max_kernel_bytes reached): the
 *        section is then read from user memory
 *
 * Reads and validates the file the first time it is seen; afterwards the
 * answer, negative or not, comes from the cache, and the copy is shared.
 *
 * Context: task context (may read the file).
 * A file without PT_GNU_SFRAME gets the section of its sidecar, if there
 * is one (sidecar.c): validated the same way, and always as a kernel copy.
 *
 * Return: 0; -ENOENT for a file that is not a native ELF file or has
 * neither PT_GNU_SFRAME nor a sidecar, or when no PT_LOAD maps @file_off;
 * -EIO if the file cannot be read; -EFBIG beyond max_section_bytes;
 * -ENOEXEC if the decoder refuses the section; -ENOSPC for a sidecar when
 * max_kernel_bytes allows no copy; -ENOMEM.
 */
int sfu_file_sframe(struct file *file, const struct sfu_file_id *id, unsigned long vm_start,
		    unsigned long file_off, struct sfu_elf_sframe *out,
		    struct sfu_sframe_section *sec, struct sfu_sframe_copy **copy)
{
	struct sfu_sframe_copy *c = NULL;
	struct sfu_file_info *info;
	int err, i;

	out->want_sidecar = false;
	err = sfu_fcache_answer(id, vm_start, file_off, out, sec, copy);
	if (err != -EAGAIN)
		return err;
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	if (sfu_fcache_lookup(id, info, &c)) {
		sfu_stat_inc(SFU_STAT_FILE_CACHE_HITS);
		if (!info->status && !c)
			c = sfu_reload(file, info);
	} else {
		c = sfu_file_first_seen(file, id, info, out);
	}

	err = info->status;
	if (err)
		goto out;
	/* A sidecar's rows are nowhere in the process: only a kernel copy will do. */
	if (info->sidecar && !c) {
		err = -ENOSPC;
		goto out;
	}
	/*
	 * The loadable segment this mapping's first page belongs to.  Linkers
	 * such as lld and mold do not page-align segments in the file: the
	 * page at @file_off may hold the end of one segment and the start of
	 * the next, executable one, whose addresses this mapping has.
	 */
	i = sfu_load_of(info, file_off);
	if (i < 0) {
		err = -ENOENT;
		goto out;
	}
	sfu_file_out(info, i, vm_start, file_off, out);
	*sec = info->sec;
	*copy = c;
	c = NULL;
out:
	sfu_copy_put(c);
	kfree(info);
	return err;
}

/**
 * sfu_file_known_without() - is @file known to give no section
 * @file: the file of an executable mapping
 *
 * The cache remembers, until sfu_fcache_forget_missing() or eviction,
 * what a file read before gives: a file found without PT_GNU_SFRAME and
 * without a sidecar, or with a section that failed validation, gives none
 * to any mapping of it, and its sidecar was asked for when it was first
 * seen.  A hit counts as a use (it keeps the entry in the cache).
 *
 * Context: any but NMI and interrupts (takes a spinlock); does not sleep.
 * Return: true if a mapping of @file would register nothing.
 */
bool sfu_file_known_without(struct file *file)
{
	struct sfu_file_info *e;
	struct sfu_file_id id;
	bool without = false;

	sfu_file_id_get(file, &id);
	spin_lock(&sfu_fcache_lock);
	e = sfu_fcache_find_locked(&id);
	if (e && e->status) {
		list_move(&e->lru, &sfu_fcache_lru);
		without = true;
	}
	spin_unlock(&sfu_fcache_lock);
	return without;
}

/**
 * sfu_fcache_forget() - empty the per-file cache
 *
 * Files are read again when next mapped; kernel copies in use stay with
 * their sections, but are no longer shared with new mappings.
 */
void sfu_fcache_forget(void)
{
	struct sfu_file_info *e, *next;

	spin_lock(&sfu_fcache_lock);
	list_for_each_entry_safe(e, next, &sfu_fcache_lru, lru) {
		hash_del(&e->node);
		list_del(&e->lru);
		sfu_copy_clear_slot(&e->copy);
		kfree(e);
	}
	sfu_fcache_count = 0;
	spin_unlock(&sfu_fcache_lock);
}

/**
 * sfu_fcache_forget_missing() - forget the files found without a sidecar
 *
 * ELF files with a build-id but neither PT_GNU_SFRAME nor a sidecar (Go
 * programs with a section of no functions among them) are looked at
 * again when next mapped (or scanned); the rest stays known.
 */
void sfu_fcache_forget_missing(void)
{
	struct sfu_file_info *e, *next;
	LIST_HEAD(gone);

	spin_lock(&sfu_fcache_lock);
	list_for_each_entry_safe(e, next, &sfu_fcache_lru, lru) {
		if ((e->status != -ENOENT && !e->fp_only) || !e->build_id_len)
			continue;
		hash_del(&e->node);
		list_move(&e->lru, &gone);
		sfu_copy_clear_slot(&e->copy);
		sfu_fcache_count--;
	}
	spin_unlock(&sfu_fcache_lock);
	list_for_each_entry_safe(e, next, &gone, lru)
		kfree(e);
}
