/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exports: symbol namespaces and EXPORT_SYMBOL_IF_KUNIT().
 * Code calls these wrappers and never tests LINUX_VERSION_CODE itself;
 * the other kernel APIs have their own headers here.
 */
#ifndef _SFU_COMPAT_EXPORT_H
#define _SFU_COMPAT_EXPORT_H

#include <linux/export.h>
#include <linux/version.h>

/*
 * Symbol namespaces: an identifier until 6.12, a string literal since 6.13.
 * What other modules may call is EXPORT_SYMBOL_NS_GPL(sym, SFU_NS);
 * everything else the KUnit module needs is EXPORT_SYMBOL_IF_KUNIT(),
 * exported only when KUnit is configured, into the namespace the kernel
 * keeps for tests.  Nothing is exported without a namespace.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define SFU_NS				"SFRAME_UNWIND"
#define SFU_KUNIT_NS			"EXPORTED_FOR_KUNIT_TESTING"
#else
#define SFU_NS				SFRAME_UNWIND
#define SFU_KUNIT_NS			EXPORTED_FOR_KUNIT_TESTING
#endif

/* <kunit/visibility.h> came in 6.2; before, the same definitions here. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#include <kunit/visibility.h>
#elif IS_ENABLED(CONFIG_KUNIT)
#define EXPORT_SYMBOL_IF_KUNIT(sym)	EXPORT_SYMBOL_NS(sym, EXPORTED_FOR_KUNIT_TESTING)
#else
#define EXPORT_SYMBOL_IF_KUNIT(sym)
#endif

#endif /* _SFU_COMPAT_EXPORT_H */
