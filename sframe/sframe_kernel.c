// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel side of the SFrame decoder: the user-memory reader backends.
 * sframe.c itself is shared with the userspace tools and knows nothing of
 * uaccess.
 *
 * The current mm's go through the uaccess API, whose access_ok() check
 * keeps a hostile section address from ever reading kernel memory; another
 * task's through sfu_remote_read(), which reads only pages its mm maps for
 * user access.  A failed read is an error code, never an oops.
 */
#include <linux/export.h>
#include <linux/uaccess.h>

#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/lib.h"

#include "sframe.h"

/**
 * sfu_sframe_user_read() - copy from user memory, faulting pages in as needed
 * @uaddr: user address in the current mm
 * @dst: kernel destination
 * @len: bytes to copy
 *
 * Context: task context with an mm (may sleep).
 * Return: 0, or -SFRAME_E_FAULT if any byte could not be read.
 */
int sfu_sframe_user_read(unsigned long uaddr, void *dst, size_t len)
{
	might_fault();
	if (copy_from_user(dst, (const void __user *)uaddr, len))
		return -SFRAME_E_FAULT;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_user_read);

/**
 * sfu_sframe_user_read_nofault() - copy from user memory without faulting
 * @uaddr: user address in the current mm
 * @dst: kernel destination
 * @len: bytes to copy
 *
 * A page that is not present fails the read instead of being faulted in.
 *
 * Context: any, including NMI and with locks held.
 * Return: 0, or -SFRAME_E_FAULT if any byte could not be read.
 */
int sfu_sframe_user_read_nofault(unsigned long uaddr, void *dst, size_t len)
{
	if (copy_from_user_nofault(dst, (const void __user *)uaddr, len))
		return -SFRAME_E_FAULT;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_user_read_nofault);

/**
 * sfu_sframe_remote_read() - copy from another task's user memory
 * @remote: the task (struct task_struct), whose mm the caller keeps alive
 * @uaddr: user address in its mm
 * @dst: kernel destination
 * @len: bytes to copy
 *
 * Reads through sfu_remote_read(): only what the task itself could read,
 * faulting pages in as the task would.
 *
 * Context: process context (takes the mm's mmap lock, may sleep).
 * Return: 0, or -SFRAME_E_FAULT if any byte could not be read.
 */
int sfu_sframe_remote_read(const void *remote, unsigned long uaddr, void *dst, size_t len)
{
	struct task_struct *task = (struct task_struct *)remote;

	return sfu_remote_read(task, uaddr, dst, len) ? -SFRAME_E_FAULT : 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_remote_read);
