/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the module's compat/export.h, for the decoder built as a
 * tool: its exports mean nothing outside the kernel.
 */
#ifndef _SFU_COMPAT_EXPORT_H
#define _SFU_COMPAT_EXPORT_H

#define EXPORT_SYMBOL_IF_KUNIT(sym)

#endif /* _SFU_COMPAT_EXPORT_H */
