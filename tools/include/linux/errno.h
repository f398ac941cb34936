/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's <linux/errno.h>: the UAPI codes. */
#ifndef _SFRAME_TOOLS_LINUX_ERRNO_H
#define _SFRAME_TOOLS_LINUX_ERRNO_H

#include_next <linux/errno.h>

#endif /* _SFRAME_TOOLS_LINUX_ERRNO_H */
