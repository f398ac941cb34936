/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: the decoder's exports mean nothing outside the kernel. */
#ifndef _TOOLS_LINUX_EXPORT_H
#define _TOOLS_LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)

#endif /* _TOOLS_LINUX_EXPORT_H */
