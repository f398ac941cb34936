/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the kernel's BLAKE2s library (tools/blake2s.c),
 * with its names, for lib/elf_digest.c.
 */
#ifndef _SFU_COMPAT_BLAKE2S_H
#define _SFU_COMPAT_BLAKE2S_H

#include <stddef.h>
#include <string.h>
#include <linux/types.h>

#define BLAKE2S_BLOCK_SIZE	64

struct sfu_blake2s_ctx {
	u32 h[8];
	u32 t[2];
	u32 f[2];
	u8 buf[BLAKE2S_BLOCK_SIZE];
	unsigned int buflen;
	unsigned int outlen;
};

void blake2s_init(struct sfu_blake2s_ctx *b, size_t outlen);
void blake2s_update(struct sfu_blake2s_ctx *b, const u8 *in, size_t inlen);
void blake2s_final(struct sfu_blake2s_ctx *b, u8 *out);

static inline void memzero_explicit(void *p, size_t n)
{
	memset(p, 0, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

#endif /* _SFU_COMPAT_BLAKE2S_H */
