// SPDX-License-Identifier: GPL-2.0
/*
 * How the unwinder reads user memory: the current task's without faulting
 * or faultable, as the unwind's flags allow, or another task's through
 * access_process_vm(); and the words of the task's size that every step
 * reads, with a fast path for the common case.  The lowest file of
 * unwind/: it calls nothing of the unwinder.
 */
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "sframe_unwind/registry.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/unwind.h"
#include "internal.h"

/**
 * sfu_unwind_read() - read user memory the way this unwind may
 * @st: the unwind (its SFU_UNWIND_NOFAULT flag and its task decide)
 * @addr: user address in the unwind's mm
 * @dst: kernel destination
 * @len: bytes
 *
 * A faultable unwind tries a no-fault read first: it gives the same bytes
 * when the pages are present, the common case, and skips what a read that
 * may sleep costs (might_fault() and its debugging checks).  Before a read
 * that may sleep it leaves the RCU read-side section of its lookups.  An
 * unwind of another task reads its memory with access_process_vm() only.
 *
 * Return: 0, or -EFAULT.
 */
int sfu_unwind_read(const struct sfu_unwind_state *st, unsigned long addr, void *dst,
		    size_t len)
{
	if (unlikely(st->task)) {
		if (st->rows)
			sfu_lookup_end(st->rows);
		return sfu_remote_read(st->task, addr, dst, len);
	}
	if (!copy_from_user_nofault(dst, (const void __user *)addr, len))
		return 0;
	if (st->flags & SFU_UNWIND_NOFAULT)
		return -EFAULT;
	if (st->rows)
		sfu_lookup_end(st->rows);
	if (copy_from_user(dst, (const void __user *)addr, len))
		return -EFAULT;
	return 0;
}

/**
 * sfu_unwind_read_words_slow() - words of the task's size, through sfu_unwind_read()
 * @st: the unwind
 * @addr: user address
 * @words: the words read, zero-extended for a compat task
 * @n: 1 or 2
 *
 * The unwinder's word reads where its inline one (sfu_unwind_read_words(),
 * internal.h) cannot serve: compat words, NMI context, a page not
 * present, another task's memory.  Out of line, so that the common case
 * does not zero these buffers on its stack.
 *
 * Return: 0, or SFU_END_FAULT.
 */
noinline int sfu_unwind_read_words_slow(const struct sfu_unwind_state *st, unsigned long addr,
					unsigned long *words, unsigned int n)
{
	u32 w32[2];
	u64 w64[2];
	unsigned int i;

	if (st->ws == sizeof(u32)) {
		if (sfu_unwind_read(st, addr, w32, n * sizeof(u32)))
			return SFU_END_FAULT;
		for (i = 0; i < n; i++)
			words[i] = w32[i];
		return 0;
	}
	if (sfu_unwind_read(st, addr, w64, n * sizeof(u64)))
		return SFU_END_FAULT;
	for (i = 0; i < n; i++)
		words[i] = w64[i];
	return 0;
}

