/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit.
 * Code calls these wrappers and never tests LINUX_VERSION_CODE itself;
 * the other kernel APIs have their own headers here.
 */
#ifndef _SFU_COMPAT_KUNIT_H
#define _SFU_COMPAT_KUNIT_H

#include <kunit/test.h>
#include <linux/mm_types.h>

/* The KUnit suites', built only in the test build (Kbuild: SFU_TEST=1). */
#ifndef SFU_TEST_BUILD
#error "compat/kunit.h is for the KUnit suites of the test build (make SFU_TEST=1)"
#endif

/*
 * The flags of shmem_file_setup(), none: a vma_flags_t since 7.0, which
 * came with EMPTY_VMA_FLAGS; an unsigned long before.
 */
#ifdef EMPTY_VMA_FLAGS
#define SFU_SHMEM_NO_FLAGS	EMPTY_VMA_FLAGS
#else
#define SFU_SHMEM_NO_FLAGS	0
#endif

/*
 * SFU_KUNIT_PARAM_GEN(name, fn) defines @name, a KUnit parameter generator
 * of the running kernel's type, returning fn(prev, desc).  Since 6.18
 * generators get the test as their first argument; KUNIT_CASE_PARAM_WITH_INIT
 * came with that change, and its presence is the test.
 */
#ifdef KUNIT_CASE_PARAM_WITH_INIT
#define SFU_KUNIT_PARAM_GEN(name, fn)						\
static const void *name(struct kunit *test, const void *prev, char *desc)	\
{										\
	return fn(prev, desc);							\
}
#else
#define SFU_KUNIT_PARAM_GEN(name, fn)						\
static const void *name(const void *prev, char *desc)				\
{										\
	return fn(prev, desc);							\
}
#endif

#endif /* _SFU_COMPAT_KUNIT_H */
