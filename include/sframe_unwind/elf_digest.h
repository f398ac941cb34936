/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The content digest that binds a sidecar to the file it describes
 * (lib/elf_digest.c; the kinds and their definition are the format's:
 * include/uapi/sframe_sidecar.h).  Built into the module and into the
 * tools that write sidecars, from the same source.
 */
#ifndef _SFRAME_UNWIND_ELF_DIGEST_H
#define _SFRAME_UNWIND_ELF_DIGEST_H

#include <linux/types.h>

/* Bytes of scratch a digest reads the file through. */
#define SFU_DIGEST_CHUNK	65536

/**
 * struct sfu_digest_src - the file a digest is taken of
 * @read: read exactly @len bytes at @off into @buf: 0, or a negative errno
 * @ctx: for @read
 * @size: the file's bytes
 * @buf: SFU_DIGEST_CHUNK bytes of scratch
 */
struct sfu_digest_src {
	int (*read)(void *ctx, u64 off, void *buf, size_t len);
	void *ctx;
	u64 size;
	u8 *buf;
};

int sfu_elf_digest(const struct sfu_digest_src *src, u32 kind, u8 *out);

#endif /* _SFRAME_UNWIND_ELF_DIGEST_H */
