// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace tools only read sections from buffers: the two user-memory
 * readers that the kernel module provides fail here.
 */
#include <linux/types.h>

#include "sframe/sframe_reader.h"

/**
 * sfu_sframe_user_read() - userspace stub, always fails
 * @uaddr: unused
 * @dst: unused
 * @len: unused
 *
 * Return: -SFRAME_E_FAULT.
 */
int sfu_sframe_user_read(unsigned long uaddr, void *dst, size_t len)
{
	(void)uaddr;
	(void)dst;
	(void)len;
	return -SFRAME_E_FAULT;
}

/**
 * sfu_sframe_user_read_nofault() - userspace stub, always fails
 * @uaddr: unused
 * @dst: unused
 * @len: unused
 *
 * Return: -SFRAME_E_FAULT.
 */
int sfu_sframe_user_read_nofault(unsigned long uaddr, void *dst, size_t len)
{
	(void)uaddr;
	(void)dst;
	(void)len;
	return -SFRAME_E_FAULT;
}
