/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's <linux/string.h>. */
#ifndef _SFRAME_TOOLS_LINUX_STRING_H
#define _SFRAME_TOOLS_LINUX_STRING_H

#include <string.h>

#endif /* _SFRAME_TOOLS_LINUX_STRING_H */
