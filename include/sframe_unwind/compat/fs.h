/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files: an inode's change time, shmem files, /proc/PID/mem.
 * Kernel-version differences of one kernel API (the rest: the other
 * headers of include/sframe_unwind/compat/).  Code calls the wrappers and
 * never tests LINUX_VERSION_CODE itself.
 */
#ifndef _SFU_COMPAT_FS_H
#define _SFU_COMPAT_FS_H

#include <linux/fs.h>
#include <linux/shmem_fs.h>
#include <linux/version.h>

/* An inode's change time: a field until 6.6, an accessor since. */
static inline struct timespec64 sfu_inode_ctime(const struct inode *inode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	return inode_get_ctime(inode);
#else
	return inode->i_ctime;
#endif
}

/**
 * sfu_proc_mem_file_mm() - the address space a /proc/PID/mem file is for
 * @file: a file whose operations are those of /proc/PID/mem
 *
 * fs/proc/base.c keeps it in @file->private_data: the mm that
 * mm_access(PTRACE_MODE_ATTACH_FSCREDS) allowed when the file was opened,
 * mmgrab()bed by proc_mem_open() for the file's life -- on 6.1 NULL when
 * the task had no mm; later kernels (7.0 has it) refuse that open.  The
 * pointer is only compared with a task's mm, never dereferenced: were a
 * later kernel to keep something else there, the comparison would fail
 * and remote unwinds be refused, never allowed.
 *
 * Return: the mm, or NULL.
 */
static inline struct mm_struct *sfu_proc_mem_file_mm(struct file *file)
{
	return file->private_data;
}

/**
 * sfu_shmem_file_setup() - an unlinked shmem file
 * @name: its name
 * @size: its size
 * @flags: VM_* flags (VM_NORESERVE)
 *
 * Later kernels (7.2 has it, 6.12 not) pass the flags as a vma_flags_t
 * bitmap, converted by legacy_to_vma_flags(); EMPTY_VMA_FLAGS, a macro
 * that came with the type, is the test.
 *
 * Return: the file, or an ERR_PTR().
 */
static inline struct file *sfu_shmem_file_setup(const char *name, loff_t size,
						unsigned long flags)
{
#ifdef EMPTY_VMA_FLAGS
	return shmem_file_setup(name, size, legacy_to_vma_flags(flags));
#else
	return shmem_file_setup(name, size, flags);
#endif
}

#endif /* _SFU_COMPAT_FS_H */
