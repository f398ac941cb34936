/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the kernel's <linux/types.h>, so that the decoder
 * builds unchanged outside the kernel.  The UAPI header of the same name
 * comes first (glibc headers include it too), then the kernel-only names.
 */
#ifndef _SFRAME_TOOLS_LINUX_TYPES_H
#define _SFRAME_TOOLS_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/* The kernel's own choices (int-ll64), so that %lld matches s64. */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;

#endif /* _SFRAME_TOOLS_LINUX_TYPES_H */
