// SPDX-License-Identifier: GPL-2.0
/*
 * Whole reads of a file.  kernel_read() may return fewer bytes than asked
 * without being at the end of the file: 9p returns at most its msize a
 * call, and NFS, FUSE and CIFS may also stop short.  The registry reads
 * ELF headers, .sframe sections and sidecars, which are useless in part:
 * it reads them through sfu_kernel_read_all(), which asks again for the
 * rest until it has all, meets the end of the file or an error, or the
 * reader is killed.
 */
#include <linux/fs.h>
#include <linux/sched/signal.h>
#include <uapi/linux/magic.h>

#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/lib.h"

/*
 * kernel_read() calls a read may take: each returns at least one byte,
 * and 9p's smallest msize is 4096, so a section of the decoder's largest
 * size takes far fewer; a file that trickles out more slowly is refused.
 */
#define SFU_READ_CALLS_MAX	4096

/**
 * sfu_kernel_read_all() - read @len bytes of @file at @pos, all of them
 * @file: the file, opened for reading
 * @buf: kernel destination
 * @len: bytes wanted
 * @pos: file offset; advanced by what was read
 * @calls: if not NULL, set to the kernel_read() calls made
 *
 * Context: process context, may sleep; killable between reads.
 * Return: 0 when all @len bytes were read; -EIO at the end of the file,
 * -EINTR when a fatal signal is pending, -E2BIG after
 * SFU_READ_CALLS_MAX calls, or kernel_read()'s own error.
 */
int sfu_kernel_read_all(struct file *file, void *buf, size_t len, loff_t *pos,
			unsigned int *calls)
{
	unsigned int n = 0;
	size_t done = 0;
	ssize_t got;
	int err = 0;

	while (done < len) {
		if (n == SFU_READ_CALLS_MAX) {
			err = -E2BIG;
			break;
		}
		if (n && fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		got = kernel_read(file, buf + done, len - done, pos);
		n++;
		if (got < 0) {
			err = got;
			break;
		}
		if (!got) {
			err = -EIO;
			break;
		}
		done += got;
	}
	if (calls)
		*calls = n;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_kernel_read_all);

/**
 * sfu_file_may_stall() - may a read of @file wait as long as a user wants?
 * @file: the file
 *
 * A FUSE file's reads are answered by its server, a process: once it has
 * taken a read it may never answer, and the reader then waits for good,
 * fatal signals included (request_wait_answer()).  An overlayfs file is
 * mapped as the file of its layer (ovl_mmap()), so a FUSE layer is seen
 * in a mapping's file too.  Network file systems are not counted: their
 * servers are the administrator's, and their waits are killable.
 *
 * Return: true for a file on FUSE.
 */
bool sfu_file_may_stall(struct file *file)
{
	return file_inode(file)->i_sb->s_magic == FUSE_SUPER_MAGIC;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_file_may_stall);
