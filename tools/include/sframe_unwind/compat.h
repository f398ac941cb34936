/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the module's compat.h, for the decoder built as a
 * tool: its exports mean nothing outside the kernel.
 */
#ifndef _SFRAME_UNWIND_COMPAT_H
#define _SFRAME_UNWIND_COMPAT_H

#define EXPORT_SYMBOL_IF_KUNIT(sym)

#endif /* _SFRAME_UNWIND_COMPAT_H */
