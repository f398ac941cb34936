// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the registry's file path: a real shared library (the V3
 * fixture of this architecture, kunit/elf_blobs.S) is written to a file,
 * mapped segment by segment the way a dynamic loader maps it, and found
 * by sfu_scan() through the file's program headers — the path a forked
 * child takes to rebuild its parent's registry from its own VMAs, and
 * module load takes for processes already running — and sections whose
 * text is mapped before their data wait, at most SFU_MAX_PENDING.
 *
 * The cases run in kthreads, which the mmap hooks ignore (a kthread never
 * returns to user space to run the deferred work), so each registry change
 * seen here is the doing of the sync that stands for that work
 * (sfu_kunit_registry_sync(): sfu_recheck(), then sfu_scan()).
 */
#include <kunit/test.h>
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <asm/elf.h>

#include "sframe_unwind/registry.h"
#include "registry/internal.h"
#include "registry/stats.h"
#include "sframe/sframe.h"
#include "tests/gen/sframe_fixtures.h"
#include "elf_blobs.h"
#include "fixture_rows.h"
#include "user_mem.h"

#define SCAN_FILE "/tmp/sfu-kunit-libshared.so"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

static const struct {
	const char *fixture;
	const u8 *start;
	const u8 *end;
} blobs[] = {
	{ "x86_64/v3/libshared-O2.so", sfu_kunit_elf_x86_64, sfu_kunit_elf_x86_64_end },
	{ "aarch64/v3/libshared-O2.so", sfu_kunit_elf_aarch64, sfu_kunit_elf_aarch64_end },
};

/* The library of this kernel's architecture, and its expected rows. */
static const u8 *elf;
static size_t elf_size;
static const struct sframe_fixture *elf_fx;

static const struct elf64_hdr *ehdr(void)
{
	return (const struct elf64_hdr *)elf;
}

static const struct elf64_phdr *phdr(int i)
{
	return (const struct elf64_phdr *)(elf + ehdr()->e_phoff) + i;
}

/**
 * struct loaded - the library as mapped in the test mm
 * @base: load bias (the library's link-time addresses start at 0)
 * @span: bytes reserved from @base
 * @text: user address of the executable segment
 * @text_len: its mapped length
 */
struct loaded {
	unsigned long base;
	unsigned long span;
	unsigned long text;
	unsigned long text_len;
};

/* Map the file like ld.so: reserve the span, then each PT_LOAD over it. */
static bool load(struct sfu_user_ctx *ctx, struct file *file, struct loaded *ld)
{
	unsigned long hi = 0;
	int i;

	for (i = 0; i < ehdr()->e_phnum; i++)
		if (phdr(i)->p_type == PT_LOAD)
			hi = max_t(unsigned long, hi, phdr(i)->p_vaddr + phdr(i)->p_memsz);
	ld->span = PAGE_ALIGN(hi);
	ld->base = vm_mmap(NULL, 0, ld->span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(ld->base)) {
		KUNIT_FAIL(ctx->test, "cannot reserve %lu bytes: %ld", ld->span, (long)ld->base);
		return false;
	}
	ctx->maps[ctx->nmaps].uaddr = ld->base;
	ctx->maps[ctx->nmaps++].len = ld->span;

	for (i = 0; i < ehdr()->e_phnum; i++) {
		const struct elf64_phdr *p = phdr(i);
		unsigned long prot = 0, start, len, addr;

		if (p->p_type != PT_LOAD || !p->p_filesz)
			continue;
		prot |= (p->p_flags & PF_R) ? PROT_READ : 0;
		prot |= (p->p_flags & PF_W) ? PROT_WRITE : 0;
		prot |= (p->p_flags & PF_X) ? PROT_EXEC : 0;
		start = ld->base + (p->p_vaddr & PAGE_MASK);
		len = PAGE_ALIGN(p->p_filesz + (p->p_vaddr & ~PAGE_MASK));
		addr = vm_mmap(file, start, len, prot, MAP_PRIVATE | MAP_FIXED,
			       p->p_offset & PAGE_MASK);
		if (addr != start) {
			KUNIT_FAIL(ctx->test, "cannot map segment %d: %ld", i, (long)addr);
			return false;
		}
		if (p->p_flags & PF_X) {
			ld->text = start;
			ld->text_len = len;
		}
	}
	if (!ld->text)
		KUNIT_FAIL(ctx->test, "the library has no executable segment");
	return ld->text;
}

static int lookup(void *bias, u64 pc, struct sfu_frame_rules *rules)
{
	return sfu_kunit_lookup(pc + *(unsigned long *)bias, false, rules, NULL);
}

/*
 * The library opened and the test mm borrowed (sfu_user_begin()): the
 * file, or NULL (test failed, nothing held).  The case ends with
 * sfu_user_end() and fput().
 */
static struct file *begin_with_library(struct kunit *test, struct sfu_user_ctx *ctx)
{
	struct file *file = filp_open(SCAN_FILE, O_RDONLY, 0);

	if (IS_ERR(file)) {
		KUNIT_FAIL(test, "cannot open %s: %ld", SCAN_FILE, PTR_ERR(file));
		return NULL;
	}
	if (!sfu_user_begin(test, ctx)) {
		fput(file);
		return NULL;
	}
	return file;
}

/* Sections in the current mm's registry now, without a sync. */
static int registered_now(void)
{
	struct sfu_mm *smm = sfu_mm_lookup(current->mm);

	return smm ? atomic_read(&smm->nr_sections) : 0;
}

/*
 * A mapped library is found through its file, its rows are objdump's at
 * every PC, a second sync changes nothing, and unmapping its text removes
 * it at once, in munmap's hook (its rows are in a kernel copy): no re-check
 * is needed, and the next sync finds nothing to drop.
 */
static void sync_registers_a_loaded_library_once_and_drops_it_after_munmap(struct kunit *test)
{
	int base = -1, before = -1, first = -1, second = -1, after_unmap = -1, gone = 0;
	int unmapped = -1;
	u64 at_once = 0;
	unsigned long bad = 1, pcs = 0;
	bool before_in = true, gone_in = true;
	struct sfu_frame_rules rules;
	struct sfu_user_ctx ctx;
	struct loaded ld = {};
	struct file *file;
	u64 pc0 = elf_fx->ranges[0].lo;

	file = begin_with_library(test, &ctx);
	if (!file)
		return;
	/* Whatever the borrowed mm has of its own is the baseline. */
	base = sfu_kunit_registry_sync(0);
	if (load(&ctx, file, &ld)) {
		before = sfu_kunit_lookup(ld.base + pc0, true, &rules, &before_in);
		first = sfu_kunit_registry_sync(0);
		bad = sfu_kunit_check_rules(test, elf_fx, "synced", lookup, &ld.base, 0, U64_MAX,
					    true, &pcs);
		second = sfu_kunit_registry_sync(0);
		at_once = sfu_stat_read(SFU_STAT_REMOVED_AT_ONCE);
		vm_munmap(ld.text, ld.text_len);
		at_once = sfu_stat_read(SFU_STAT_REMOVED_AT_ONCE) - at_once;
		unmapped = registered_now();
		gone = sfu_kunit_lookup(ld.base + pc0, true, &rules, &gone_in);
		after_unmap = sfu_kunit_registry_sync(0);
	}
	sfu_user_end(&ctx);
	fput(file);

	KUNIT_EXPECT_GE(test, base, 0);
	/* No section before the sync, none after munmap. */
	KUNIT_EXPECT_EQ(test, before, -ENOENT);
	KUNIT_EXPECT_FALSE(test, before_in);
	KUNIT_EXPECT_EQ(test, first, base + 1);
	KUNIT_EXPECT_EQ(test, bad, 0UL);
	KUNIT_EXPECT_GT(test, pcs, 0UL);
	KUNIT_EXPECT_EQ(test, second, base + 1);
	KUNIT_EXPECT_EQ(test, at_once, 1ULL);
	KUNIT_EXPECT_EQ(test, unmapped, base);
	KUNIT_EXPECT_EQ(test, gone, -ENOENT);
	KUNIT_EXPECT_FALSE(test, gone_in);
	KUNIT_EXPECT_EQ(test, after_unmap, base);
}

/*
 * The same file mapped twice (as two processes, or a child next to its
 * parent's copy, would have it) gives two sections, each with its own bias.
 */
static void two_mappings_of_one_library_are_two_sections(struct kunit *test)
{
	unsigned long bad1 = 1, bad2 = 1;
	struct loaded a = {}, b = {};
	struct sfu_user_ctx ctx;
	struct file *file;
	int base = -1, n = -1, left = -1;

	file = begin_with_library(test, &ctx);
	if (!file)
		return;
	/* Whatever the borrowed mm has of its own is the baseline. */
	base = sfu_kunit_registry_sync(0);
	if (load(&ctx, file, &a) && load(&ctx, file, &b)) {
		n = sfu_kunit_registry_sync(0);
		bad1 = sfu_kunit_check_rules(test, elf_fx, "first copy", lookup, &a.base, 0,
					     U64_MAX, true, NULL);
		bad2 = sfu_kunit_check_rules(test, elf_fx, "second copy", lookup, &b.base, 0,
					     U64_MAX, true, NULL);
		sfu_user_unmap(&ctx, a.base, a.span);
		left = sfu_kunit_registry_sync(0);
	}
	sfu_user_end(&ctx);
	fput(file);

	KUNIT_EXPECT_GE(test, base, 0);
	KUNIT_EXPECT_EQ(test, n, base + 2);
	KUNIT_EXPECT_EQ(test, bad1, 0UL);
	KUNIT_EXPECT_EQ(test, bad2, 0UL);
	KUNIT_EXPECT_EQ(test, left, base + 1);
}

/* Map the segment of @p at bias @base; false (test failed) if it cannot be. */
static bool map_segment(struct kunit *test, struct file *file, const struct elf64_phdr *p,
			unsigned long base)
{
	unsigned long start = base + (p->p_vaddr & PAGE_MASK), addr;
	unsigned long len = PAGE_ALIGN(p->p_filesz + (p->p_vaddr & ~PAGE_MASK));
	unsigned long prot = PROT_READ | ((p->p_flags & PF_X) ? PROT_EXEC : 0);

	addr = vm_mmap(file, start, len, prot, MAP_PRIVATE | MAP_FIXED, p->p_offset & PAGE_MASK);
	if (addr != start)
		KUNIT_FAIL(test, "cannot map a segment at %lx: %ld", start, (long)addr);
	return addr == start;
}

/*
 * The text of the library mapped SFU_MAX_PENDING + 1 times without the
 * segment holding .sframe: SFU_MAX_PENDING sections wait for their data,
 * the next is refused; once one copy's data is mapped, that one is
 * registered, and the room it leaves takes a new one.
 */
static void sections_waiting_for_their_data_are_capped(struct kunit *test)
{
	const int n = SFU_MAX_PENDING + 1;
	const struct elf64_phdr *text = NULL, *data = NULL;
	u64 refused = sfu_stat_read(SFU_STAT_REFUSED_PENDING_LIMIT);
	int base = -1, waiting = -1, one = -1, i;
	unsigned long span = 0, area;
	struct sfu_user_ctx ctx;
	u64 refused_now = 0, refused_after = 0;
	struct file *file;
	u64 sframe = 0;

	for (i = 0; i < ehdr()->e_phnum; i++)
		if (phdr(i)->p_type == PT_GNU_SFRAME)
			sframe = phdr(i)->p_vaddr;
	for (i = 0; i < ehdr()->e_phnum; i++) {
		const struct elf64_phdr *p = phdr(i);

		if (p->p_type != PT_LOAD)
			continue;
		span = max_t(unsigned long, span, PAGE_ALIGN(p->p_vaddr + p->p_memsz));
		if (p->p_flags & PF_X)
			text = p;
		else if (sframe >= p->p_vaddr && sframe < p->p_vaddr + p->p_filesz)
			data = p;
	}
	if (!text || !data)
		kunit_skip(test, "the library's .sframe is in its text segment");

	file = begin_with_library(test, &ctx);
	if (!file)
		return;
	base = sfu_kunit_registry_sync(0);
	area = sfu_user_map_prot(&ctx, span * n, PROT_NONE);
	for (i = 0; area && i < n; i++)
		if (!map_segment(test, file, text, area + i * span))
			break;
	if (area && i == n) {
		waiting = sfu_kunit_registry_sync(0);
		refused_now = sfu_stat_read(SFU_STAT_REFUSED_PENDING_LIMIT) - refused;
		/* Again: the waiting ones are not made twice. */
		KUNIT_EXPECT_EQ(test, sfu_kunit_registry_sync(0), base);
		if (map_segment(test, file, data, area))
			one = sfu_kunit_registry_sync(0);
		refused_after = sfu_stat_read(SFU_STAT_REFUSED_PENDING_LIMIT) - refused;
	}
	sfu_user_end(&ctx);
	fput(file);

	KUNIT_EXPECT_GE(test, base, 0);
	/* None registered: each waits for its data, but the last, refused. */
	KUNIT_EXPECT_EQ(test, waiting, base);
	KUNIT_EXPECT_EQ(test, refused_now, 1ULL);
	KUNIT_EXPECT_EQ(test, one, base + 1);
	/* The second sync refused the last again; the third had room for it. */
	KUNIT_EXPECT_EQ(test, refused_after, 2ULL);
}

static struct kunit_case sfu_registry_scan_cases[] = {
	KUNIT_CASE(sync_registers_a_loaded_library_once_and_drops_it_after_munmap),
	KUNIT_CASE(two_mappings_of_one_library_are_two_sections),
	KUNIT_CASE(sections_waiting_for_their_data_are_capped),
	{}
};

/* Pick this architecture's library and write it where the cases open it. */
static int sfu_registry_scan_suite_init(struct kunit_suite *suite)
{
	struct file *file;
	unsigned int i, j;
	loff_t pos = 0;
	ssize_t n;
	int err;

	for (i = 0; i < ARRAY_SIZE(blobs) && !elf; i++) {
		const struct elf64_hdr *e = (const struct elf64_hdr *)blobs[i].start;

		if (e->e_machine != ELF_ARCH)
			continue;
		for (j = 0; j < sframe_num_fixtures; j++)
			if (!strcmp(sframe_fixtures[j].name, blobs[i].fixture))
				elf_fx = &sframe_fixtures[j];
		elf = blobs[i].start;
		elf_size = blobs[i].end - blobs[i].start;
	}
	if (!elf || !elf_fx)
		return -ENOENT;

	err = sfu_kunit_mm_get();
	if (err)
		return err;
	file = filp_open(SCAN_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (IS_ERR(file)) {
		sfu_kunit_mm_put();
		return PTR_ERR(file);
	}
	n = kernel_write(file, elf, elf_size, &pos);
	filp_close(file, NULL);
	if (n != elf_size) {
		sfu_kunit_mm_put();
		return n < 0 ? n : -EIO;
	}
	return 0;
}

static void sfu_registry_scan_suite_exit(struct kunit_suite *suite)
{
	sfu_kunit_mm_put();
}

static struct kunit_suite sfu_registry_scan_suite = {
	.name = "sframe_registry_scan",
	.suite_init = sfu_registry_scan_suite_init,
	.suite_exit = sfu_registry_scan_suite_exit,
	.test_cases = sfu_registry_scan_cases,
};

kunit_test_suites(&sfu_registry_scan_suite);
