/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernel versions this module builds on
 * (6.1 LTS onwards) lives in this header.  Logic files include it and call
 * the wrappers; they never test LINUX_VERSION_CODE themselves.
 */
#ifndef _SFRAME_UNWIND_COMPAT_H
#define _SFRAME_UNWIND_COMPAT_H

#include <linux/version.h>

#endif /* _SFRAME_UNWIND_COMPAT_H */
