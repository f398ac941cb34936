/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User memory for KUnit cases on every supported kernel: 6.1 has no
 * kunit_vm_mmap(), and cases run in kthreads without an mm.  A suite takes
 * the loading task's mm in its .suite_init (which runs in insmod's
 * context); a case brackets its user-memory work with sfu_user_begin() and
 * sfu_user_end(), which adopt that mm and unmap everything mapped in
 * between.
 *
 * Between begin and end a case must not use KUNIT_ASSERT_*: an aborted case
 * kthread exits with the borrowed mm still installed, and exit_mm() would
 * drop a reference it never took.  Record results, end, then assert.
 */
#ifndef _SFU_KUNIT_USER_MEM_H
#define _SFU_KUNIT_USER_MEM_H

#include <kunit/test.h>
#include <linux/elf.h>

#define SFU_USER_MAX_MAPS 8

/**
 * struct sfu_user_ctx - one case's user memory
 * @test: the case
 * @nmaps: mappings made so far
 * @maps: their addresses and lengths, unmapped by sfu_user_end()
 */
struct sfu_user_ctx {
	struct kunit *test;
	int nmaps;
	struct {
		unsigned long uaddr;
		size_t len;
	} maps[SFU_USER_MAX_MAPS];
};

int sfu_kunit_mm_get(void);
void sfu_kunit_mm_put(void);
bool sfu_user_begin(struct kunit *test, struct sfu_user_ctx *ctx);
void sfu_user_end(struct sfu_user_ctx *ctx);
unsigned long sfu_user_map(struct sfu_user_ctx *ctx, size_t len);
unsigned long sfu_user_map_prot(struct sfu_user_ctx *ctx, size_t len, unsigned long prot);
bool sfu_user_unmap(struct sfu_user_ctx *ctx, unsigned long uaddr, size_t len);
unsigned long sfu_user_place(struct sfu_user_ctx *ctx, const void *src, size_t len);
void sfu_kunit_elf_header(struct elf64_hdr *eh, unsigned int phnum);

#endif /* _SFU_KUNIT_USER_MEM_H */
