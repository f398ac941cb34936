// SPDX-License-Identifier: GPL-2.0
/*
 * User memory for KUnit cases (see user_mem.h).  Failures here are KUnit
 * expectation failures, never aborts, because they happen while the case
 * kthread has the suite's mm installed.
 */
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "user_mem.h"

static struct mm_struct *sfu_kunit_mm;

/**
 * sfu_kunit_mm_get() - remember the loading task's mm for a suite
 *
 * Context: a suite's .suite_init, in the insmod task.
 * Return: 0, or -EINVAL if the current task has no mm.
 */
int sfu_kunit_mm_get(void)
{
	sfu_kunit_mm = get_task_mm(current);
	return sfu_kunit_mm ? 0 : -EINVAL;
}

/**
 * sfu_kunit_mm_put() - drop the mm taken by sfu_kunit_mm_get()
 *
 * Context: a suite's .suite_exit.
 */
void sfu_kunit_mm_put(void)
{
	if (sfu_kunit_mm)
		mmput(sfu_kunit_mm);
	sfu_kunit_mm = NULL;
}

/**
 * sfu_user_begin() - adopt the suite's mm for user-memory work
 * @test: the case
 * @ctx: the case's user memory, initialised here
 *
 * Return: true if the case now runs with the mm; false (and the case has
 * failed) otherwise, in which case sfu_user_end() must not be called.
 */
bool sfu_user_begin(struct kunit *test, struct sfu_user_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->test = test;
	if (!sfu_kunit_mm || current->mm) {
		KUNIT_FAIL(test, "no mm to adopt (suite_init missing?) or one already in use");
		return false;
	}
	kthread_use_mm(sfu_kunit_mm);
	return true;
}

/**
 * sfu_user_end() - unmap the case's mappings and give the mm back
 * @ctx: from sfu_user_begin()
 */
void sfu_user_end(struct sfu_user_ctx *ctx)
{
	while (ctx->nmaps > 0) {
		ctx->nmaps--;
		vm_munmap(ctx->maps[ctx->nmaps].uaddr, ctx->maps[ctx->nmaps].len);
	}
	kthread_unuse_mm(sfu_kunit_mm);
}

/**
 * sfu_user_map() - map zeroed, readable and writable user memory
 * @ctx: the case's user memory
 * @len: bytes, rounded up to pages
 *
 * The pages are not populated: the first access to each faults it in.
 *
 * Return: the user address, or 0 (and the case has failed).
 */
unsigned long sfu_user_map(struct sfu_user_ctx *ctx, size_t len)
{
	return sfu_user_map_prot(ctx, len, PROT_READ | PROT_WRITE);
}

/**
 * sfu_user_map_prot() - map zeroed anonymous user memory with @prot
 * @ctx: the case's user memory
 * @len: bytes, rounded up to pages
 * @prot: PROT_* bits (PROT_EXEC for memory that stands for code)
 *
 * Return: the user address, or 0 (and the case has failed).
 */
unsigned long sfu_user_map_prot(struct sfu_user_ctx *ctx, size_t len, unsigned long prot)
{
	unsigned long uaddr;

	if (ctx->nmaps == SFU_USER_MAX_MAPS) {
		KUNIT_FAIL(ctx->test, "more than %d user mappings", SFU_USER_MAX_MAPS);
		return 0;
	}
	len = PAGE_ALIGN(len);
	uaddr = vm_mmap(NULL, 0, len, prot, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(uaddr)) {
		KUNIT_FAIL(ctx->test, "vm_mmap(%zu) failed: %ld", len, (long)uaddr);
		return 0;
	}
	ctx->maps[ctx->nmaps].uaddr = uaddr;
	ctx->maps[ctx->nmaps].len = len;
	ctx->nmaps++;
	return uaddr;
}

/**
 * sfu_user_unmap() - unmap pages before the case ends
 * @ctx: the case's user memory
 * @uaddr: page-aligned start
 * @len: bytes, rounded up to pages
 *
 * Used to make pages disappear under a reader.  The rest of the mapping is
 * still unmapped by sfu_user_end(); unmapping a hole again is harmless.
 *
 * Return: true on success; false (and the case has failed) otherwise.
 */
bool sfu_user_unmap(struct sfu_user_ctx *ctx, unsigned long uaddr, size_t len)
{
	int err = vm_munmap(uaddr, PAGE_ALIGN(len));

	KUNIT_EXPECT_EQ(ctx->test, err, 0);
	return !err;
}

/**
 * sfu_user_place() - copy bytes to the very end of a fresh mapping
 * @ctx: the case's user memory
 * @src: kernel source
 * @len: bytes
 *
 * The data ends exactly at a page boundary with an unmapped page after it,
 * so a read past its end faults instead of finding something else.
 *
 * Return: the user address of the first byte, or 0 (and the case has failed).
 */
unsigned long sfu_user_place(struct sfu_user_ctx *ctx, const void *src, size_t len)
{
	size_t mlen = PAGE_ALIGN(len) + PAGE_SIZE;
	unsigned long base = sfu_user_map(ctx, mlen);
	unsigned long guard = base + mlen - PAGE_SIZE;
	unsigned long uaddr = guard - len;

	if (!base || !sfu_user_unmap(ctx, guard, PAGE_SIZE))
		return 0;
	if (copy_to_user((void __user *)uaddr, src, len)) {
		KUNIT_FAIL(ctx->test, "copy_to_user of %zu bytes failed", len);
		return 0;
	}
	return uaddr;
}

/**
 * sfu_kunit_elf_header() - the ELF header of a native shared object
 * @eh: the header, zeroed, with @phnum program headers right after it
 * @phnum: how many
 *
 * What the suites' ELF files in shmem start with (the registry's copies,
 * the functions' starts): ELF64, little-endian, ET_DYN of this machine.
 */
void sfu_kunit_elf_header(struct elf64_hdr *eh, unsigned int phnum)
{
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = ELF_ARCH;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(struct elf64_phdr);
	eh->e_phnum = phnum;
}
