/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces shared by the files of the sframe_unwind module.
 */
#ifndef _SFRAME_UNWIND_H
#define _SFRAME_UNWIND_H

#include <linux/types.h>

#define SFU_VERSION "0.1.0"

struct dentry;

struct dentry *sfu_debugfs_dir(void);

#endif /* _SFRAME_UNWIND_H */
