/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pinning user pages.
 * Code calls these wrappers and never tests LINUX_VERSION_CODE itself;
 * the other kernel APIs have their own headers here.
 */
#ifndef _SFU_COMPAT_GUP_H
#define _SFU_COMPAT_GUP_H

#include <linux/mm.h>
#include <linux/version.h>

/*
 * Pin @n pages of @mm from @start for reading, the mmap_lock held:
 * get_user_pages_remote() lost its vmas argument in 6.5.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define sfu_pin_user_pages_read(mm, start, n, pages)				\
	get_user_pages_remote(mm, start, n, 0, pages, NULL)
#else
#define sfu_pin_user_pages_read(mm, start, n, pages)				\
	get_user_pages_remote(mm, start, n, 0, pages, NULL, NULL)
#endif

#endif /* _SFU_COMPAT_GUP_H */
