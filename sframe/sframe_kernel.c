// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel side of the SFrame decoder: the two user-memory reader backends.
 * sframe.c itself is shared with the userspace tools and knows nothing of
 * uaccess.
 *
 * Both backends go through the uaccess API, whose access_ok() check keeps
 * a hostile section address from ever reading kernel memory; a failed read
 * is an error code, never an oops.
 */
#include <linux/export.h>
#include <linux/uaccess.h>

#include "sframe_unwind/compat.h"

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
