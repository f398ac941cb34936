/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's BLAKE2s library (lib/crypto, always built: the random
 * number generator uses it) under one name: its context is struct
 * blake2s_state up to 6.18 and struct blake2s_ctx since 6.19, with the
 * same blake2s_init(), blake2s_update() and blake2s_final().
 */
#ifndef _SFU_COMPAT_BLAKE2S_H
#define _SFU_COMPAT_BLAKE2S_H

#include <linux/version.h>
#include <crypto/blake2s.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 19, 0)
#define sfu_blake2s_ctx	blake2s_ctx
#else
#define sfu_blake2s_ctx	blake2s_state
#endif

#endif /* _SFU_COMPAT_BLAKE2S_H */
