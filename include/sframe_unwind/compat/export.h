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
 * into the namespace the kernel keeps for tests.  Nothing is exported
 * without a namespace.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define SFU_NS				"SFRAME_UNWIND"
#define SFU_KUNIT_NS			"EXPORTED_FOR_KUNIT_TESTING"
#else
#define SFU_NS				SFRAME_UNWIND
#define SFU_KUNIT_NS			EXPORTED_FOR_KUNIT_TESTING
#endif

/*
 * EXPORT_SYMBOL_IF_KUNIT() exports only in the test build (make
 * SFU_TEST=1, which defines SFU_TEST_BUILD), not whenever the kernel has
 * CONFIG_KUNIT as the kernel's own definition does: distribution kernels
 * have it, and the module they load exports nothing for tests.  The
 * kernel's <kunit/visibility.h> (6.2+) is taken first, so that its
 * definition is the one replaced whichever header comes first.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#include <kunit/visibility.h>
#endif
#undef EXPORT_SYMBOL_IF_KUNIT
#ifdef SFU_TEST_BUILD
#define EXPORT_SYMBOL_IF_KUNIT(sym)	EXPORT_SYMBOL_NS(sym, SFU_KUNIT_NS)
#else
#define EXPORT_SYMBOL_IF_KUNIT(sym)
#endif

#endif /* _SFU_COMPAT_EXPORT_H */
