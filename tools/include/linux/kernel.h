/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for what the decoder uses of <linux/kernel.h>. */
#ifndef _SFRAME_TOOLS_LINUX_KERNEL_H
#define _SFRAME_TOOLS_LINUX_KERNEL_H

#include <stdio.h>
#include <linux/types.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define min(a, b) ({				\
	typeof(a) __min_a = (a);		\
	typeof(b) __min_b = (b);		\
	__min_a < __min_b ? __min_a : __min_b;	\
})

#define min_t(type, a, b) ({			\
	type __min_a = (a);			\
	type __min_b = (b);			\
	__min_a < __min_b ? __min_a : __min_b;	\
})

/* One access the compiler neither tears nor repeats, as the kernel's. */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#endif /* _SFRAME_TOOLS_LINUX_KERNEL_H */
