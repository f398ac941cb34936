// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace tools only read sections from buffers: the user-memory
 * readers that the kernel module provides fail here.  The FRE index lives
 * in malloc() memory.
 */
#include <stdlib.h>
#include <linux/types.h>

#include "sframe/sframe_reader.h"
#include "tools/sframe_user.h"

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

/**
 * sfu_sframe_remote_read() - userspace stub, always fails
 * @remote: unused
 * @uaddr: unused
 * @dst: unused
 * @len: unused
 *
 * Return: -SFRAME_E_FAULT.
 */
int sfu_sframe_remote_read(const void *remote, unsigned long uaddr, void *dst, size_t len)
{
	(void)remote;
	(void)uaddr;
	(void)dst;
	(void)len;
	return -SFRAME_E_FAULT;
}

/**
 * sfu_sframe_fre_index_alloc() - build the FRE index of a section in malloc() memory
 * @sec: initialized (and preferably validated) section; gets its index
 *
 * Lookups in a function of more than SFRAME_FRE_INDEX_STRIDE FREs need it.
 * A section without such a function gets none and needs none.  Free it
 * with sfu_sframe_fre_index_free().
 *
 * Return: 0, -SFRAME_E_TOO_BIG without memory for it, or the decoder's
 * -SFRAME_E_xxx from walking the FREs (@sec is then left without one).
 */
int sfu_sframe_fre_index_alloc(struct sfu_sframe_section *sec)
{
	size_t bytes;
	void *mem;
	int err;

	err = sfu_sframe_fre_index_size(sec, &bytes);
	if (err || !bytes)
		return err;
	mem = malloc(bytes);
	if (!mem)
		return -SFRAME_E_TOO_BIG;
	err = sfu_sframe_fre_index_build(sec, mem, bytes, NULL);
	if (err)
		free(mem);
	return err;
}

/**
 * sfu_sframe_fre_index_free() - free what sfu_sframe_fre_index_alloc() built
 * @sec: the section; left without an index
 */
void sfu_sframe_fre_index_free(struct sfu_sframe_section *sec)
{
	free((void *)sec->fre_index);
	sec->fre_index = NULL;
}
