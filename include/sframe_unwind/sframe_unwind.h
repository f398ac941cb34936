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

int sfu_chardev_init(void);
void sfu_chardev_exit(void);
long sfu_chardev_ioctl_more(unsigned int cmd, void __user *arg);

#endif /* _SFRAME_UNWIND_H */
