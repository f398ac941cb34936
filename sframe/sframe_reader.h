/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the decoder gets section bytes from: a buffer it may read directly,
 * or user memory that may fault or change under it.  Every byte of a section
 * goes through sfu_sframe_read() or sfu_sframe_read_ptr(), which bounds-check
 * against the section size before touching memory.
 */
#ifndef _SFRAME_READER_H
#define _SFRAME_READER_H

#include <linux/types.h>
#include <linux/string.h>

#include "uapi/sframe_errors.h"

/* The kernel's, or glibc's in the userspace build; a plain hint elsewhere. */
#ifndef __always_inline
#define __always_inline inline
#endif

enum sfu_sframe_reader_kind {
	SFRAME_READER_BUFFER,		/* @buf, readable without faulting */
	SFRAME_READER_USER,		/* @uaddr in the current mm, may sleep */
	SFRAME_READER_USER_NOFAULT,	/* @uaddr, gives up on a missing page */
	SFRAME_READER_REMOTE,		/* @uaddr in @remote's mm, may sleep */
};

/**
 * struct sfu_sframe_reader - the bytes of one SFrame section
 * @kind: how to read them
 * @buf: start of the section (SFRAME_READER_BUFFER)
 * @uaddr: user address of the section (the user kinds)
 * @size: bytes readable from the start; may exceed the section proper
 *        (a PT_GNU_SFRAME segment can be padded)
 * @remote: the task whose memory SFRAME_READER_REMOTE reads (opaque here)
 */
struct sfu_sframe_reader {
	enum sfu_sframe_reader_kind kind;
	const u8 *buf;
	unsigned long uaddr;
	u64 size;
	const void *remote;
};

/**
 * sfu_sframe_user_read() - copy from user memory, may fault pages in
 * @uaddr: user address
 * @dst: kernel destination
 * @len: bytes
 *
 * Provided by the kernel side of the module (a stub in the userspace tools).
 *
 * Return: 0, or -SFRAME_E_FAULT if any byte could not be read.
 */
int sfu_sframe_user_read(unsigned long uaddr, void *dst, size_t len);

/**
 * sfu_sframe_user_read_nofault() - copy from user memory without faulting
 * @uaddr: user address
 * @dst: kernel destination
 * @len: bytes
 *
 * Usable where sleeping is not allowed; a page that is not present fails.
 *
 * Return: 0, or -SFRAME_E_FAULT if any byte could not be read.
 */
int sfu_sframe_user_read_nofault(unsigned long uaddr, void *dst, size_t len);

/**
 * sfu_sframe_remote_read() - copy from another task's user memory
 * @remote: the task (a struct task_struct in the kernel)
 * @uaddr: user address in its mm
 * @dst: kernel destination
 * @len: bytes
 *
 * Provided by the kernel side of the module (a stub in the userspace tools).
 *
 * Return: 0, or -SFRAME_E_FAULT if any byte could not be read.
 */
int sfu_sframe_remote_read(const void *remote, unsigned long uaddr, void *dst, size_t len);

/**
 * sfu_sframe_read() - copy @len bytes at section offset @off
 * @r: the section
 * @off: offset from the start of the section
 * @dst: destination
 * @len: bytes to copy
 *
 * Return: 0, -SFRAME_E_TRUNCATED if [@off, @off + @len) is not inside the
 * section, -SFRAME_E_FAULT if the memory could not be read.
 */
static inline int sfu_sframe_read(const struct sfu_sframe_reader *r, u64 off, void *dst, size_t len)
{
	/* Written so that no sum can wrap: off + len <= size. */
	if (off > r->size || len > r->size - off)
		return -SFRAME_E_TRUNCATED;

	switch (r->kind) {
	case SFRAME_READER_BUFFER:
		memcpy(dst, r->buf + off, len);
		return 0;
	case SFRAME_READER_USER:
		return sfu_sframe_user_read(r->uaddr + off, dst, len);
	case SFRAME_READER_USER_NOFAULT:
		return sfu_sframe_user_read_nofault(r->uaddr + off, dst, len);
	case SFRAME_READER_REMOTE:
		return sfu_sframe_remote_read(r->remote, r->uaddr + off, dst, len);
	}
	return -SFRAME_E_FAULT;
}

/**
 * sfu_sframe_read_ptr() - @len bytes at section offset @off, read at most once
 * @r: the section
 * @off: offset from the start of the section
 * @len: bytes wanted
 * @tmp: at least @len bytes, for the user kinds
 * @p: set to the bytes on success: inside @r->buf for SFRAME_READER_BUFFER
 *     (no copy), @tmp for the user kinds (one copy of all @len bytes)
 *
 * For reading several fields, or a run of FREs, with one bounds check and
 * at most one uaccess.  The caller reads each byte it needs from *@p once:
 * a buffer is not copied, so nothing protects a value read twice.
 *
 * Return: 0, -SFRAME_E_TRUNCATED if [@off, @off + @len) is not inside the
 * section, -SFRAME_E_FAULT if the memory could not be read.
 */
static __always_inline int sfu_sframe_read_ptr(const struct sfu_sframe_reader *r, u64 off,
					       size_t len, void *tmp, const u8 **p)
{
	if (off > r->size || len > r->size - off)
		return -SFRAME_E_TRUNCATED;

	if (r->kind == SFRAME_READER_BUFFER) {
		*p = r->buf + off;
		return 0;
	}
	*p = tmp;
	if (r->kind == SFRAME_READER_USER)
		return sfu_sframe_user_read(r->uaddr + off, tmp, len);
	if (r->kind == SFRAME_READER_USER_NOFAULT)
		return sfu_sframe_user_read_nofault(r->uaddr + off, tmp, len);
	if (r->kind == SFRAME_READER_REMOTE)
		return sfu_sframe_remote_read(r->remote, r->uaddr + off, tmp, len);
	return -SFRAME_E_FAULT;
}

#endif /* _SFRAME_READER_H */
