// SPDX-License-Identifier: GPL-2.0
/*
 * Files, below everything the registry knows of them: which file a mapping
 * comes from (its identity, without a reference), reading a file whole,
 * and a section read from a file and validated there, into its kernel
 * copy (copy.c) when the budget allows one.
 */
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/moduleparam.h>
#include <linux/vmalloc.h>

#include "sframe_unwind/compat/fs.h"
#include "sframe_unwind/lib.h"
#include "internal.h"
#include "stats.h"

unsigned int sfu_max_section_bytes = 64 << 20;
module_param_named(max_section_bytes, sfu_max_section_bytes, uint, 0644);
MODULE_PARM_DESC(max_section_bytes, "Largest .sframe section accepted, in bytes (default 64 MiB)");

/**
 * sfu_native_sframe_abi() - the SFrame ABI of this kernel's native tasks
 *
 * Return: SFRAME_ABI_* for the 64-bit tasks of ELF_ARCH, or 0 when this
 * architecture has no SFrame ABI.
 */
int sfu_native_sframe_abi(void)
{
	return sfu_sframe_abi_of_elf(ELF_ARCH, IS_ENABLED(CONFIG_CPU_BIG_ENDIAN));
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
 * sfu_read_whole() - read @len bytes of @file at *@pos, all of them
 * @file: the file
 * @buf: where to
 * @len: bytes
 * @pos: where from; moved past what was read
 *
 * sfu_kernel_read_all(): a network or 9p file may answer in parts; a read
 * that needed more than one call is counted (reads_resumed).
 *
 * Context: task context.
 * Return: true if all were read.
 */
bool sfu_read_whole(struct file *file, void *buf, size_t len, loff_t *pos)
{
	unsigned int calls;
	int err;

	err = sfu_kernel_read_all(file, buf, len, pos, &calls);
	if (calls > 1)
		sfu_stat_inc(SFU_STAT_READS_RESUMED);
	return !err;
}

/**
 * sfu_read_section() - read a section from a file and validate it
 * @file: the file
 * @off: where the section starts in it
 * @size: its bytes, at most what @buf holds
 * @vaddr: the address its function starts are computed for
 * @buf: where to read it, and where @sec reads it
 * @sec: the parsed header
 * @per_function: validate the FDEs now and each function's FREs on first
 *                use (sfu_sframe_section_validate_fdes()): for a section
 *                only ever read from its kernel copy, a sidecar's, which
 *                sfu_copy_index() then completes; else all of it now
 *
 * Context: task context.
 * Return: 0 or the decoder's -SFRAME_E_xxx, or -SFRAME_E_FAULT when the
 * file could not be read.
 */
int sfu_read_section(struct file *file, u64 off, u64 size, u64 vaddr, u8 *buf,
		     struct sfu_sframe_section *sec, bool per_function)
{
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_BUFFER, .buf = buf };
	loff_t pos = off;
	int err;

	if (!sfu_read_whole(file, buf, size, &pos)) {
		sfu_stat_inc(SFU_STAT_ELF_UNREADABLE);
		return -SFRAME_E_FAULT;
	}
	r.size = size;
	err = sfu_sframe_section_init(sec, &r, vaddr, sfu_native_sframe_abi());
	if (!err)
		err = per_function ? sfu_sframe_section_validate_fdes(sec) :
		      sfu_sframe_section_validate(sec);
	sfu_stat_inc(SFU_STAT_VALIDATIONS);
	return err;
}

/**
 * sfu_copy_read() - a validated kernel copy of the SFrame section in a file
 * @file: the file (a sidecar: validated per function, sfu_read_section())
 * @off: where the section starts in it
 * @size: its bytes
 * @vaddr: the address its function starts are computed for
 * @err: set to why there is no copy: -EFBIG (beyond max_section_bytes),
 *       -ENOSPC (max_kernel_bytes reached, or no memory), -EIO, -ENOEXEC
 *       (the decoder refused the section)
 *
 * Context: task context (reads the file).
 * Return: the copy with one reference, or NULL.
 */
struct sfu_sframe_copy *sfu_copy_read(struct file *file, u64 off, u64 size, u64 vaddr, int *err)
{
	struct sfu_sframe_copy *c;
	int e;

	if (size > sfu_max_section_bytes) {
		sfu_stat_inc(SFU_STAT_REFUSED_TOO_BIG);
		*err = -EFBIG;
		return NULL;
	}
	c = sfu_copy_alloc(size);
	if (!c) {
		*err = -ENOSPC;
		return NULL;
	}
	e = sfu_read_section(file, off, size, vaddr, c->data, &c->sec, true);
	if (e == -SFRAME_E_FAULT) {
		*err = -EIO;
		goto fail;
	}
	if (e) {
		sfu_stat_inc(SFU_STAT_REFUSED_INVALID);
		*err = -ENOEXEC;
		goto fail;
	}
	if (sfu_copy_index(c)) {
		*err = -ENOSPC;
		goto fail;
	}
	sfu_stat_inc(SFU_STAT_KERNEL_COPIES_MADE);
	*err = 0;
	return c;
fail:
	sfu_copy_put(c);
	return NULL;
}
