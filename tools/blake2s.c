// SPDX-License-Identifier: GPL-2.0
/*
 * BLAKE2s (RFC 7693), unkeyed, for the tools: the hash the module takes
 * from the kernel's library (lib/crypto/blake2s.c) to bind sidecars to
 * their files (lib/elf_digest.c).  tests/sidecars/run checks it against
 * Python's hashlib.
 */
#include <stdint.h>
#include <string.h>

#include "sframe_unwind/compat/blake2s.h"

static const u32 blake2s_iv[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static const u8 blake2s_sigma[10][16] = {
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
	{ 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4 },
	{ 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8 },
	{ 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13 },
	{ 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9 },
	{ 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11 },
	{ 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10 },
	{ 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5 },
	{ 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0 },
};

static u32 ror32(u32 w, unsigned int s)
{
	return (w >> s) | (w << (32 - s));
}

static u32 le32(const u8 *p)
{
	return p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

/* The mixing function G of RFC 7693 on words @a, @b, @c, @d of @v. */
static void blake2s_g(u32 *v, int a, int b, int c, int d, u32 x, u32 y)
{
	v[a] += v[b] + x;
	v[d] = ror32(v[d] ^ v[a], 16);
	v[c] += v[d];
	v[b] = ror32(v[b] ^ v[c], 12);
	v[a] += v[b] + y;
	v[d] = ror32(v[d] ^ v[a], 8);
	v[c] += v[d];
	v[b] = ror32(v[b] ^ v[c], 7);
}

static void blake2s_compress(struct sfu_blake2s_ctx *b, const u8 *block, u32 inc)
{
	u32 m[16], v[16];
	int i, r;

	b->t[0] += inc;
	b->t[1] += b->t[0] < inc;
	for (i = 0; i < 16; i++)
		m[i] = le32(block + 4 * i);
	memcpy(v, b->h, sizeof(b->h));
	memcpy(v + 8, blake2s_iv, sizeof(blake2s_iv));
	v[12] ^= b->t[0];
	v[13] ^= b->t[1];
	v[14] ^= b->f[0];
	v[15] ^= b->f[1];
	for (r = 0; r < 10; r++) {
		const u8 *s = blake2s_sigma[r];

		blake2s_g(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
		blake2s_g(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
		blake2s_g(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
		blake2s_g(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
		blake2s_g(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
		blake2s_g(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
		blake2s_g(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
		blake2s_g(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
	}
	for (i = 0; i < 8; i++)
		b->h[i] ^= v[i] ^ v[i + 8];
}

/**
 * blake2s_init() - start an unkeyed BLAKE2s hash
 * @b: the context
 * @outlen: digest bytes (1 to 32)
 */
void blake2s_init(struct sfu_blake2s_ctx *b, size_t outlen)
{
	memset(b, 0, sizeof(*b));
	memcpy(b->h, blake2s_iv, sizeof(b->h));
	b->h[0] ^= 0x01010000 | (u32)outlen;
	b->outlen = outlen;
}

/**
 * blake2s_update() - hash more bytes
 * @b: the context
 * @in: the bytes
 * @inlen: their count
 */
void blake2s_update(struct sfu_blake2s_ctx *b, const u8 *in, size_t inlen)
{
	while (inlen) {
		size_t n;

		/* The last block is compressed by blake2s_final(), flagged. */
		if (b->buflen == BLAKE2S_BLOCK_SIZE) {
			blake2s_compress(b, b->buf, BLAKE2S_BLOCK_SIZE);
			b->buflen = 0;
		}
		n = BLAKE2S_BLOCK_SIZE - b->buflen;
		if (n > inlen)
			n = inlen;
		memcpy(b->buf + b->buflen, in, n);
		b->buflen += n;
		in += n;
		inlen -= n;
	}
}

/**
 * blake2s_final() - the digest
 * @b: the context, wiped
 * @out: outlen bytes of blake2s_init()
 */
void blake2s_final(struct sfu_blake2s_ctx *b, u8 *out)
{
	unsigned int i;

	b->f[0] = 0xffffffff;
	memset(b->buf + b->buflen, 0, BLAKE2S_BLOCK_SIZE - b->buflen);
	blake2s_compress(b, b->buf, b->buflen);
	for (i = 0; i < b->outlen; i++)
		out[i] = b->h[i / 4] >> (8 * (i % 4));
	memzero_explicit(b, sizeof(*b));
}
