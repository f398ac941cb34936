/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the consumers' files share: the ioctls of /dev/sframe_unwind that
 * are not registration (ioctl.c), for the device (chardev.c).
 */
#ifndef _SFU_CONSUMERS_INTERNAL_H
#define _SFU_CONSUMERS_INTERNAL_H

#include <linux/compiler_types.h>

long sfu_unwind_ioctl(unsigned int cmd, void __user *arg);
void sfu_unwind_ioctl_init(void);
void sfu_unwind_ioctl_exit(void);
int sfu_unwind_remote_pending(void);

#endif /* _SFU_CONSUMERS_INTERNAL_H */
