// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the kernel copies of sections (registry/copy.c) and
 * the per-CPU row cache (registry/rules_cache.c): lookups never read user memory
 * once a section has a copy, every mapping of one file shares one copy,
 * the copy goes with the last section using it, a section beyond
 * max_kernel_bytes reads user memory and finds the same rows, a row
 * remembered for one copy is never given for another, and a copy's charge
 * moves to a user still holding it when the user it is charged to lets go.
 *
 * ELF files are built in shmem from real fixtures: one page of ELF header
 * and program headers, then the fixture's address range (its .sframe bytes
 * at their link-time place) as one PT_LOAD, mapped executable; the
 * registry reads and validates them from the file as it would a library.
 */
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "sframe_unwind/compat/fs.h"
#include "sframe_unwind/compat/kunit.h"
#include "sframe_unwind/registry.h"
#include "registry/internal.h"
#include "registry/sframe_rules.h"
#include "sframe/sframe.h"
#include "registry/stats.h"
#include "tests/gen/sframe_fixtures.h"
#include "tests/sframe_long.h"
#include "fixture_rows.h"
#include "user_mem.h"

#define BUDGET_PARAM "/sys/module/sframe_unwind/parameters/max_kernel_bytes"
#define RETAINED_PARAM "/sys/module/sframe_unwind/parameters/max_kernel_bytes_retained"

/* The smallest native fixture: the ELF cases write and map it whole. */
static const struct sframe_fixture *small_native(struct kunit *test)
{
	const struct sframe_fixture *fx, *best = NULL;
	u64 span, best_span = U64_MAX;

	for (fx = sframe_fixtures; fx < sframe_fixtures + sframe_num_fixtures; fx++) {
		if (!sfu_kunit_fixture_native(fx))
			continue;
		span = max_t(u64, fx->ranges[fx->num_ranges - 1].hi, fx->vaddr + fx->size) -
		       min_t(u64, fx->ranges[0].lo, fx->vaddr);
		if (span < best_span) {
			best = fx;
			best_span = span;
		}
	}
	if (!best)
		KUNIT_FAIL(test, "no native fixture");
	return best;
}

/* Link-time span of @fx's text and section, in whole pages. */
static void span(const struct sframe_fixture *fx, u64 *lo, u64 *hi)
{
	*lo = min_t(u64, fx->ranges[0].lo, fx->vaddr) & PAGE_MASK;
	*hi = PAGE_ALIGN(max_t(u64, fx->ranges[fx->num_ranges - 1].hi, fx->vaddr + fx->size));
}

/*
 * Every PC of @fx's expectations, looked up at @bias through the
 * registry's lookup; mismatches counted, the first one reported.
 */
static unsigned long check_rows(struct kunit *test, const struct sframe_fixture *fx,
				long bias, bool nofault)
{
	return sfu_kunit_check_registry(test, fx, nofault ? "copy, no-fault" : "copy",
					bias, nofault, 0, U64_MAX, true);
}

/* The first PC of @fx that has a row. */
static bool first_good_pc(const struct sframe_fixture *fx, u64 *pc)
{
	u32 i;

	for (i = 0; i < fx->num_ranges; i++) {
		if (!fx->ranges[i].err) {
			*pc = fx->ranges[i].lo;
			return true;
		}
	}
	return false;
}

/**
 * struct counters - what the cases compare before and after
 * @mem: sfu_registry_memory()
 * @lookup_user: lookups that read user memory
 * @made: kernel copies made
 * @shared: sections that took an existing copy
 * @over_budget: sections left without a copy by the budget
 * @hits: row cache hits
 * @misses: row cache misses
 * @unindexed: lookups refused for want of an FRE index
 * @retained: copies retained when their last section let go
 * @reused: retained copies a new section took
 * @dropped: retained copies let go
 */
struct counters {
	struct sfu_registry_memory mem;
	u64 lookup_user, made, shared, over_budget, hits, misses, unindexed;
	u64 retained, reused, dropped;
};

static void counters_get(struct counters *c)
{
	/* Sections freed before now must have given back their copies. */
	rcu_barrier();
	sfu_registry_memory(&c->mem);
	c->lookup_user = sfu_stat_read(SFU_STAT_LOOKUP_USER);
	c->made = sfu_stat_read(SFU_STAT_KERNEL_COPIES_MADE);
	c->shared = sfu_stat_read(SFU_STAT_KERNEL_COPIES_SHARED);
	c->over_budget = sfu_stat_read(SFU_STAT_KERNEL_COPY_OVER_BUDGET);
	c->hits = sfu_stat_read(SFU_STAT_ROW_CACHE_HITS);
	c->misses = sfu_stat_read(SFU_STAT_ROW_CACHE_MISSES);
	c->unindexed = sfu_stat_read(SFU_STAT_LOOKUP_UNINDEXED);
	c->retained = sfu_stat_read(SFU_STAT_KERNEL_COPIES_RETAINED);
	c->reused = sfu_stat_read(SFU_STAT_KERNEL_COPIES_RETAINED_REUSED);
	c->dropped = sfu_stat_read(SFU_STAT_KERNEL_COPIES_RETAINED_DROPPED);
}

/*
 * Adopt the test mm, and drop what earlier cases left there: sections of
 * text they unmapped stay stale until a re-check (no task_work runs in a
 * kthread), holding their copies.
 */
static bool begin(struct kunit *test, struct sfu_user_ctx *ctx)
{
	if (!sfu_user_begin(test, ctx))
		return false;
	sfu_kunit_registry_sync(current->tgid);
	return true;
}

/* Write @val to the max_kernel_bytes parameter, as an administrator would. */
static int set_param(const char *path, unsigned long val)
{
	char buf[24];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int len;

	f = filp_open(path, O_WRONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	len = snprintf(buf, sizeof(buf), "%lu", val);
	n = kernel_write(f, buf, len, &pos);
	filp_close(f, NULL);
	return n == len ? 0 : -EIO;
}

/* Read the parameter at @path into *@val. */
static int get_param(const char *path, unsigned long *val)
{
	char buf[24] = {};
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	return n > 0 ? kstrtoul(strim(buf), 10, val) : -EIO;
}

static int set_budget(unsigned long val)
{
	return set_param(BUDGET_PARAM, val);
}

/* max_kernel_bytes_retained as drop_retained() found it. */
static unsigned long retained_before;

/*
 * Let go of every retained copy (none is retained until restore_retained()),
 * so that what a budget case sees held is what sections hold.
 */
static int drop_retained(void)
{
	return get_param(RETAINED_PARAM, &retained_before) ?: set_param(RETAINED_PARAM, 0);
}

/* max_kernel_bytes_retained back to what drop_retained() found. */
static int restore_retained(void)
{
	return set_param(RETAINED_PARAM, retained_before);
}

/**
 * struct elf_file - a fixture as an ELF file in shmem
 * @file: the file
 * @lo: link-time address of the PT_LOAD (file offset PAGE_SIZE)
 * @len: bytes of the PT_LOAD
 */
struct elf_file {
	struct file *file;
	u64 lo;
	size_t len;
};

static int elf_file_make(struct kunit *test, const struct sframe_fixture *fx,
			 struct elf_file *ef)
{
	struct {
		struct elf64_hdr eh;
		struct elf64_phdr ph[2];
	} *hdr;
	u64 hi;
	loff_t pos = 0;
	u8 *img;
	int err = 0;

	span(fx, &ef->lo, &hi);
	ef->len = hi - ef->lo;
	img = vzalloc(PAGE_SIZE + ef->len);
	if (!img)
		return -ENOMEM;
	hdr = (void *)img;
	sfu_kunit_elf_header(&hdr->eh, ARRAY_SIZE(hdr->ph));
	hdr->ph[0].p_type = PT_LOAD;
	hdr->ph[0].p_flags = PF_R | PF_X;
	hdr->ph[0].p_offset = PAGE_SIZE;
	hdr->ph[0].p_vaddr = ef->lo;
	hdr->ph[0].p_filesz = ef->len;
	hdr->ph[0].p_memsz = ef->len;
	hdr->ph[0].p_align = PAGE_SIZE;
	hdr->ph[1].p_type = 0x6474e554;	/* PT_GNU_SFRAME */
	hdr->ph[1].p_flags = PF_R;
	hdr->ph[1].p_offset = PAGE_SIZE + fx->vaddr - ef->lo;
	hdr->ph[1].p_vaddr = fx->vaddr;
	hdr->ph[1].p_filesz = fx->size;
	hdr->ph[1].p_memsz = fx->size;
	hdr->ph[1].p_align = 8;
	memcpy(img + PAGE_SIZE + fx->vaddr - ef->lo, fx->data, fx->size);

	ef->file = sfu_shmem_file_setup("sfu-kunit-elf", PAGE_SIZE + ef->len, VM_NORESERVE);
	if (IS_ERR(ef->file)) {
		err = PTR_ERR(ef->file);
		ef->file = NULL;
	} else if (kernel_write(ef->file, img, PAGE_SIZE + ef->len, &pos) != PAGE_SIZE + ef->len) {
		err = -EIO;
	}
	vfree(img);
	if (err)
		KUNIT_FAIL(test, "cannot make the ELF file: %d", err);
	return err;
}

static void elf_file_put(struct elf_file *ef)
{
	if (ef->file)
		fput(ef->file);
}

/* Map @ef executable, as a loader would; its bias in *@bias.  0 on failure. */
static unsigned long elf_map(struct kunit *test, const struct elf_file *ef, long *bias)
{
	unsigned long addr = vm_mmap(ef->file, 0, ef->len, PROT_READ | PROT_EXEC, MAP_PRIVATE,
				     PAGE_SIZE);

	if (IS_ERR_VALUE(addr)) {
		KUNIT_FAIL(test, "mapping the ELF file failed: %ld", (long)addr);
		return 0;
	}
	*bias = addr - ef->lo;
	return addr;
}

/* Unmap, and let the registry see it as the task_work would on return to user space. */
static void elf_unmap(const struct elf_file *ef, unsigned long addr)
{
	vm_munmap(addr, ef->len);
	sfu_kunit_registry_sync(current->tgid);
}

static void elf_file_mapped_twice_shares_one_kernel_copy(struct kunit *test)
{
	const struct sframe_fixture *fx = small_native(test);
	unsigned long a = 0, b = 0, bad_a = 1, bad_b = 1;
	struct counters c0, c1, c2, c3;
	struct sfu_user_ctx ctx;
	struct elf_file ef = {};
	long bias_a = 0, bias_b = 0;

	if (!fx || elf_file_make(test, fx, &ef) || !begin(test, &ctx)) {
		elf_file_put(&ef);
		return;
	}
	counters_get(&c0);
	a = elf_map(test, &ef, &bias_a);
	b = elf_map(test, &ef, &bias_b);
	if (a && b) {
		sfu_kunit_registry_sync(current->tgid);
		counters_get(&c1);
		bad_a = check_rows(test, fx, bias_a, false);
		bad_b = check_rows(test, fx, bias_b, true);
		elf_unmap(&ef, a);
		counters_get(&c2);
		elf_unmap(&ef, b);
		counters_get(&c3);
	}
	sfu_user_end(&ctx);
	elf_file_put(&ef);
	if (!a || !b)
		return;

	/* Two sections, one copy of the section's bytes, read once. */
	KUNIT_EXPECT_EQ(test, c1.mem.sections - c0.mem.sections, 2U);
	KUNIT_EXPECT_EQ(test, c1.mem.kernel_copies - c0.mem.kernel_copies, 1U);
	KUNIT_EXPECT_EQ(test, c1.mem.kernel_copy_bytes - c0.mem.kernel_copy_bytes,
			(unsigned long)fx->size);
	KUNIT_EXPECT_EQ(test, c1.made - c0.made, 1ULL);
	KUNIT_EXPECT_EQ(test, c1.shared - c0.shared, 1ULL);
	/* Both give the fixture's rows without reading user memory. */
	KUNIT_EXPECT_EQ(test, bad_a, 0UL);
	KUNIT_EXPECT_EQ(test, bad_b, 0UL);
	KUNIT_EXPECT_EQ(test, c2.lookup_user - c1.lookup_user, 0ULL);
	/*
	 * The copy stays while one section uses it; after the last, it is
	 * retained for the file's next mapping, held by no section.
	 */
	KUNIT_EXPECT_EQ(test, c2.mem.sections - c0.mem.sections, 1U);
	KUNIT_EXPECT_EQ(test, c2.mem.kernel_copies - c0.mem.kernel_copies, 1U);
	KUNIT_EXPECT_EQ(test, c2.mem.retained_copies, c0.mem.retained_copies);
	KUNIT_EXPECT_EQ(test, c3.mem.sections, c0.mem.sections);
	KUNIT_EXPECT_EQ(test, c3.mem.kernel_copies - c0.mem.kernel_copies, 1U);
	KUNIT_EXPECT_EQ(test, c3.mem.retained_copies - c0.mem.retained_copies, 1U);
	KUNIT_EXPECT_EQ(test, c3.mem.retained_bytes - c0.mem.retained_bytes,
			(unsigned long)fx->size);
	KUNIT_EXPECT_EQ(test, c3.retained - c2.retained, 1ULL);
}

/*
 * A file mapped again after its last section went: its copy was retained,
 * and the new section takes it (no read, no validation); with nothing
 * retained (max_kernel_bytes_retained 0) the file's bytes are read again.
 */
static void elf_file_mapped_again_takes_its_retained_copy(struct kunit *test)
{
	const struct sframe_fixture *fx = small_native(test);
	unsigned long a = 0, bad = 1, bad_new = 1;
	struct counters c0, c1, c2, c3, c4;
	int drop_err = -1, restore_err;
	struct sfu_user_ctx ctx;
	struct elf_file ef = {};
	long bias = 0;

	if (!fx || elf_file_make(test, fx, &ef) || !begin(test, &ctx)) {
		elf_file_put(&ef);
		return;
	}
	a = elf_map(test, &ef, &bias);
	if (a) {
		sfu_kunit_registry_sync(current->tgid);
		elf_unmap(&ef, a);
		counters_get(&c0);
		a = elf_map(test, &ef, &bias);
	}
	if (a) {
		sfu_kunit_registry_sync(current->tgid);
		counters_get(&c1);
		bad = check_rows(test, fx, bias, true);
		drop_err = drop_retained();
		elf_unmap(&ef, a);
		counters_get(&c2);
		a = elf_map(test, &ef, &bias);
	}
	if (a) {
		sfu_kunit_registry_sync(current->tgid);
		counters_get(&c3);
		bad_new = check_rows(test, fx, bias, true);
		elf_unmap(&ef, a);
		counters_get(&c4);
	}
	restore_err = restore_retained();
	sfu_user_end(&ctx);
	elf_file_put(&ef);
	KUNIT_EXPECT_EQ(test, restore_err, 0);
	if (!a)
		return;

	/* Retained when the first mapping went, taken as it was. */
	KUNIT_EXPECT_EQ(test, c1.made - c0.made, 0ULL);
	KUNIT_EXPECT_EQ(test, c1.reused - c0.reused, 1ULL);
	KUNIT_EXPECT_EQ(test, c1.mem.kernel_copies, c0.mem.kernel_copies);
	KUNIT_EXPECT_EQ(test, c0.mem.retained_copies - c1.mem.retained_copies, 1U);
	KUNIT_EXPECT_EQ(test, bad, 0UL);
	/* None retained: the last section's copy goes, the next is read anew. */
	KUNIT_EXPECT_EQ(test, drop_err, 0);
	KUNIT_EXPECT_EQ(test, c2.mem.retained_copies, 0U);
	KUNIT_EXPECT_EQ(test, c2.retained, c1.retained);
	KUNIT_EXPECT_EQ(test, c3.made - c2.made, 1ULL);
	KUNIT_EXPECT_EQ(test, c3.reused, c2.reused);
	KUNIT_EXPECT_EQ(test, bad_new, 0UL);
	KUNIT_EXPECT_EQ(test, c4.lookup_user - c3.lookup_user, 0ULL);
	KUNIT_EXPECT_EQ(test, c4.mem.kernel_copies, c2.mem.kernel_copies);
}

/* Map @fx's text and section (read-write, to overwrite it later) in one mapping. */
static unsigned long lay_out(struct sfu_user_ctx *ctx, const struct sframe_fixture *fx,
			     long *bias)
{
	u64 lo, hi;
	unsigned long base;

	span(fx, &lo, &hi);
	base = sfu_user_map_prot(ctx, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC);
	if (!base)
		return 0;
	*bias = base - lo;
	if (copy_to_user((void __user *)(fx->vaddr + *bias), fx->data, fx->size)) {
		KUNIT_FAIL(ctx->test, "cannot copy the section to user memory");
		return 0;
	}
	return base;
}

static int add(const struct sframe_fixture *fx, long bias, int *serr)
{
	return sfu_registry_add(current->mm, fx->vaddr + bias, fx->size, fx->ranges[0].lo + bias,
				fx->ranges[fx->num_ranges - 1].hi + bias, serr);
}

/*
 * Wipe the user copy of @fx's section and unmap the pages that hold only
 * section bytes: the text stays mapped.
 */
static bool wipe_user_section(struct sfu_user_ctx *ctx, const struct sframe_fixture *fx,
			      long bias)
{
	u64 data = fx->vaddr + bias, end = data + fx->size;
	u64 text_lo = fx->ranges[0].lo + bias, text_hi = fx->ranges[fx->num_ranges - 1].hi + bias;
	u64 from = PAGE_ALIGN(data), to = end & PAGE_MASK;

	if (clear_user((void __user *)data, fx->size))
		return false;
	/* Whole pages of section bytes outside the text range. */
	if (from < text_hi && to > text_lo)
		return true;
	return from >= to || sfu_user_unmap(ctx, from, to - from);
}

static void explicit_section_is_looked_up_in_its_kernel_copy(struct kunit *test)
{
	const struct sframe_fixture *fx = test->param_value;
	unsigned long bad = 1, bad_nofault = 1;
	struct counters c0, c1, c2, c3;
	int err = -1, serr = -1;
	struct sfu_user_ctx ctx;
	bool wiped = false;
	long bias = 0;

	if (!begin(test, &ctx))
		return;
	counters_get(&c0);
	if (lay_out(&ctx, fx, &bias)) {
		err = add(fx, bias, &serr);
		counters_get(&c1);
		wiped = wipe_user_section(&ctx, fx, bias);
		bad = check_rows(test, fx, bias, false);
		bad_nofault = check_rows(test, fx, bias, true);
		counters_get(&c2);
		sfu_registry_remove(current->mm, fx->ranges[0].lo + bias);
		counters_get(&c3);
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, serr, 0);
	KUNIT_EXPECT_TRUE(test, wiped);
	KUNIT_EXPECT_EQ(test, c1.mem.kernel_copies - c0.mem.kernel_copies, 1U);
	KUNIT_EXPECT_EQ(test, c1.mem.kernel_copy_bytes - c0.mem.kernel_copy_bytes,
			(unsigned long)fx->size);
	/* The rows of the bytes registered, whatever happened to the user copy. */
	KUNIT_EXPECT_EQ(test, bad, 0UL);
	KUNIT_EXPECT_EQ(test, bad_nofault, 0UL);
	KUNIT_EXPECT_EQ(test, c2.lookup_user - c1.lookup_user, 0ULL);
	/* Unregistering frees the copy. */
	KUNIT_EXPECT_EQ(test, c3.mem.kernel_copies, c0.mem.kernel_copies);
	KUNIT_EXPECT_EQ(test, c3.mem.kernel_copy_bytes, c0.mem.kernel_copy_bytes);
}

static void section_beyond_the_budget_reads_user_memory_with_the_same_rows(struct kunit *test)
{
	const struct sframe_fixture *fx = small_native(test);
	unsigned long a = 0, bad_explicit = 1, bad_elf = 1;
	int err = -1, serr = -1, budget_err, restore_err;
	struct counters c0, c1, c2, c3;
	struct sfu_user_ctx ctx;
	struct elf_file ef = {};
	long bias = 0, elf_bias = 0;

	if (!fx || elf_file_make(test, fx, &ef))
		goto out;
	budget_err = drop_retained();
	counters_get(&c0);
	if (!budget_err)
		budget_err = set_budget(c0.mem.kernel_copy_bytes);
	KUNIT_EXPECT_EQ(test, budget_err, 0);
	if (budget_err || !begin(test, &ctx))
		goto restore;
	if (lay_out(&ctx, fx, &bias)) {
		err = add(fx, bias, &serr);
		a = elf_map(test, &ef, &elf_bias);
		if (a)
			sfu_kunit_registry_sync(current->tgid);
		counters_get(&c1);
		bad_explicit = check_rows(test, fx, bias, false);
		if (a)
			bad_elf = check_rows(test, fx, elf_bias, false);
		counters_get(&c2);
		if (a)
			elf_unmap(&ef, a);
		sfu_registry_remove(current->mm, fx->ranges[0].lo + bias);
		counters_get(&c3);
	}
	sfu_user_end(&ctx);
restore:
	restore_err = set_budget(c0.mem.max_kernel_bytes) ?: restore_retained();
	KUNIT_EXPECT_EQ(test, restore_err, 0);
out:
	elf_file_put(&ef);
	if (!a)
		return;

	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, serr, 0);
	/* Both registered without a copy, each counted once. */
	KUNIT_EXPECT_EQ(test, c1.mem.sections - c0.mem.sections, 2U);
	KUNIT_EXPECT_EQ(test, c1.mem.kernel_copies, c0.mem.kernel_copies);
	KUNIT_EXPECT_EQ(test, c1.mem.kernel_copy_bytes, c0.mem.kernel_copy_bytes);
	KUNIT_EXPECT_EQ(test, c1.over_budget - c0.over_budget, 2ULL);
	/* The same rows, read from user memory, never through the row cache. */
	KUNIT_EXPECT_EQ(test, bad_explicit, 0UL);
	KUNIT_EXPECT_EQ(test, bad_elf, 0UL);
	KUNIT_EXPECT_GT(test, c2.lookup_user - c1.lookup_user, 0ULL);
	KUNIT_EXPECT_EQ(test, c2.hits + c2.misses, c1.hits + c1.misses);
	KUNIT_EXPECT_EQ(test, c3.mem.sections, c0.mem.sections);
}

static void row_cache_remembers_a_row_and_never_gives_it_for_another_copy(struct kunit *test)
{
	const struct sframe_fixture *fx = small_native(test);
	struct sfu_frame_rules first, second, third;
	int err1 = -1, err2 = -1, err3 = -1, reg1 = -1, reg2 = -1, serr;
	struct counters c0, c1, c2;
	struct sfu_user_ctx ctx;
	unsigned long bad = 1;
	long bias = 0;
	u64 pc = 0;

	if (!fx || !first_good_pc(fx, &pc) || !begin(test, &ctx))
		return;
	if (lay_out(&ctx, fx, &bias)) {
		reg1 = add(fx, bias, &serr);
		counters_get(&c0);
		err1 = sfu_kunit_lookup(pc + bias, true, &first, NULL);
		err2 = sfu_kunit_lookup(pc + bias, true, &second, NULL);
		counters_get(&c1);
		sfu_registry_remove(current->mm, fx->ranges[0].lo + bias);
		/*
		 * The same bytes registered again at the same place: a new copy
		 * with a new id, whose lookup must not be answered by the entry
		 * remembered for the old one.
		 */
		reg2 = add(fx, bias, &serr);
		err3 = sfu_kunit_lookup(pc + bias, true, &third, NULL);
		counters_get(&c2);
		bad = check_rows(test, fx, bias, true);
		sfu_registry_remove(current->mm, fx->ranges[0].lo + bias);
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, reg1, 0);
	KUNIT_EXPECT_EQ(test, reg2, 0);
	KUNIT_EXPECT_EQ(test, err1, 0);
	KUNIT_EXPECT_EQ(test, err2, 0);
	KUNIT_EXPECT_EQ(test, err3, 0);
	/* First lookup decoded and remembered, second remembered. */
	KUNIT_EXPECT_EQ(test, c1.misses - c0.misses, 1ULL);
	KUNIT_EXPECT_EQ(test, c1.hits - c0.hits, 1ULL);
	KUNIT_EXPECT_EQ(test, memcmp(&first, &second, sizeof(first)), 0);
	/* A new copy: decoded again, same row. */
	KUNIT_EXPECT_EQ(test, c2.misses - c1.misses, 1ULL);
	KUNIT_EXPECT_EQ(test, c2.hits - c1.hits, 0ULL);
	KUNIT_EXPECT_EQ(test, memcmp(&first, &third, sizeof(first)), 0);
	KUNIT_EXPECT_EQ(test, bad, 0UL);
}

/*
 * The rules the registry must give at link-time @pc of @fx, as the decoder
 * reads them over the fixture's bytes and the registry converts them; the
 * registry's error where it has none.  Outside the text registered (the
 * fixture's ranges) no section covers @pc.
 */
static int fixture_rules_at(const struct sframe_fixture *fx, u64 pc,
			    struct sfu_frame_rules *rules)
{
	struct sfu_sframe_reader r = {
		.kind = SFRAME_READER_BUFFER, .buf = fx->data, .size = fx->size,
	};
	struct sfu_sframe_section sec;
	struct sfu_sframe_row row;
	int err;

	if (pc < fx->ranges[0].lo || pc >= fx->ranges[fx->num_ranges - 1].hi)
		return -ENOENT;
	err = sfu_sframe_section_init(&sec, &r, fx->vaddr, fx->abi);
	if (!err)
		err = sfu_sframe_find_row(&sec, pc, &row);
	if (!err)
		sfu_sframe_rules(&row, rules);
	return sfu_kunit_lookup_err(err);
}

static void cached_lookups_of_one_series_give_the_rules_of_single_lookups(struct kunit *test)
{
	const struct sframe_fixture *fx = small_native(test);
	struct sfu_frame_rules want, got, decoded;
	unsigned long bad = 0, n = 0;
	struct sfu_user_ctx ctx;
	struct sfu_lookup rc;
	int reg = -1, serr, e0, e1, e2;
	long bias = 0;
	u32 i;
	u64 pc;

	if (!fx || !begin(test, &ctx))
		return;
	if (lay_out(&ctx, fx, &bias)) {
		reg = add(fx, bias, &serr);
		sfu_lookup_begin(&rc, current->mm);
		/* Up and down the text, in and out of the section, as frames go. */
		for (i = 0; i < fx->num_ranges; i++) {
			const struct sframe_fixture_range *r = &fx->ranges[i];
			u64 probes[] = { r->lo, r->hi - 1, r->lo - 1, r->hi + 0x100000 };
			unsigned int k;

			for (k = 0; k < ARRAY_SIZE(probes); k++) {
				pc = probes[k] + bias;
				/* The decoder's row, as the registry converts it ... */
				e0 = fixture_rules_at(fx, probes[k], &decoded);
				/* ... single lookups, and lookups of one series. */
				e1 = sfu_kunit_lookup(pc, true, &want, NULL);
				e2 = sfu_lookup_rules(&rc, pc, true, &got);
				n++;
				if (e1 != e2 || e0 != e1 ||
				    (!e1 && (memcmp(&want, &got, sizeof(want)) ||
					     memcmp(&want, &decoded, sizeof(want)))))
					bad++;
			}
			/* What the unwinder does before a read that may sleep. */
			if (i % 4 == 3)
				sfu_lookup_end(&rc);
		}
		sfu_lookup_end(&rc);
		sfu_registry_remove(current->mm, fx->ranges[0].lo + bias);
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, reg, 0);
	KUNIT_EXPECT_GT(test, n, 0UL);
	KUNIT_EXPECT_EQ(test, bad, 0UL);
}

/**
 * struct long_layout - a section with a function of 60000 rows, in user memory
 * @buf: its bytes in a kernel buffer
 * @len: their number
 * @base: the user address they are copied to, the section's address
 * @text_lo: the first PC of the code it describes (16 bytes before the
 *           first function), in user memory too
 * @text_hi: the first PC after that code
 * @vaddr: the model's address of the section (tests/sframe_long.c): a PC
 *         of the model is at @base + pc - @vaddr here
 * @ref: the decoder over @buf, mapped at @base, with its FRE index: the
 *       rows the registry must give
 * @index: memory of that index
 * @index_size: its bytes, what the registry's index of its copy takes too
 */
struct long_layout {
	u8 *buf;
	size_t len;
	unsigned long base;
	u64 text_lo;
	u64 text_hi;
	u64 vaddr;
	struct sfu_sframe_section ref;
	void *index;
	size_t index_size;
};

static void long_layout_free(struct long_layout *l)
{
	kvfree(l->index);
	kvfree(l->buf);
}

/* Build it and copy it to user memory mapped with its text, executable.  Between begin and end. */
static bool long_lay_out(struct sfu_user_ctx *ctx, struct long_layout *l)
{
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_BUFFER };
	u64 vaddr, lo, hi;

	memset(l, 0, sizeof(*l));
	l->len = sframe_long_size(SFRAME_VERSION_3);
	l->buf = kvmalloc(l->len, GFP_KERNEL);
	if (!l->buf || sframe_long_build(l->buf, l->len, SFRAME_VERSION_3, &vaddr) != l->len)
		return false;
	l->vaddr = vaddr;
	/* Built for AMD64; the same rows read as AArch64's (RA at CFA + word 1, or in LR). */
	if (!IS_ENABLED(CONFIG_X86_64)) {
		l->buf[SFRAME_HDR_ABI_ARCH] = SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
		l->buf[SFRAME_HDR_CFA_FIXED_RA] = SFRAME_CFA_FIXED_OFFSET_NONE;
	}
	/* The model's addresses, moved so that the section sits at base. */
	sframe_long_text(&lo, &hi);
	l->base = sfu_user_map_prot(ctx, PAGE_ALIGN(hi - vaddr),
				    PROT_READ | PROT_WRITE | PROT_EXEC);
	if (!l->base || copy_to_user((void __user *)l->base, l->buf, l->len))
		return false;
	l->text_lo = l->base + lo - vaddr;
	l->text_hi = l->base + hi - vaddr;
	r.buf = l->buf;
	r.size = l->len;
	if (sfu_sframe_section_init(&l->ref, &r, l->base, 0) ||
	    sfu_sframe_fre_index_size(&l->ref, &l->index_size))
		return false;
	l->index = kvmalloc(l->index_size, GFP_KERNEL);
	return l->index && !sfu_sframe_fre_index_build(&l->ref, l->index, l->index_size, NULL);
}

/*
 * Every @step-th PC of @l's code through the registry's lookup: the
 * rules of the reference's row, or the registry's error for the
 * reference's, else counted; *@rows set to the rows found.
 */
static unsigned long long_check_rows(struct kunit *test, const struct long_layout *l, u32 step,
				     unsigned long *rows)
{
	struct sfu_frame_rules got, want;
	struct sfu_sframe_row row;
	unsigned long bad = 0;
	int e_got, e_want;
	u64 pc;

	*rows = 0;
	for (pc = l->text_lo; pc < l->text_hi; pc += step) {
		memset(&got, 0, sizeof(got));
		e_got = sfu_kunit_lookup(pc, true, &got, NULL);
		e_want = sfu_sframe_find_row(&l->ref, pc, &row);
		if (!e_want)
			sfu_sframe_rules(&row, &want);
		*rows += !e_got;
		if (e_got == sfu_kunit_lookup_err(e_want) &&
		    (e_got || !memcmp(&got, &want, sizeof(got))))
			continue;
		if (!bad++)
			KUNIT_FAIL(test, "pc %#llx: got %d, want %d (%s)", pc, e_got,
				   sfu_kunit_lookup_err(e_want), sfu_sframe_strerror(e_want));
	}
	return bad;
}

/*
 * Registered through the device, a function of 60000 rows is looked up in
 * the kernel copy through the copy's FRE index: the index is made with the
 * copy, charged with it against max_kernel_bytes, and freed with it.
 */
static void explicit_long_section_gets_its_fre_index_with_its_copy(struct kunit *test)
{
	unsigned long bad = 1, rows = 0;
	struct counters c0, c1, c2, c3;
	int err = -1, serr = -1;
	struct sfu_user_ctx ctx;
	struct long_layout l;
	bool laid = false;

	if (!begin(test, &ctx))
		return;
	counters_get(&c0);
	laid = long_lay_out(&ctx, &l);
	if (laid) {
		err = sfu_registry_add(current->mm, l.base, l.len, l.text_lo, l.text_hi, &serr);
		counters_get(&c1);
		bad = long_check_rows(test, &l, 3, &rows);
		counters_get(&c2);
		sfu_registry_remove(current->mm, l.text_lo);
		counters_get(&c3);
	}
	sfu_user_end(&ctx);
	long_layout_free(&l);

	KUNIT_ASSERT_TRUE(test, laid);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, serr, 0);
	KUNIT_EXPECT_GT(test, l.index_size, (size_t)0);
	KUNIT_EXPECT_EQ(test, c1.mem.kernel_copies - c0.mem.kernel_copies, 1U);
	KUNIT_EXPECT_EQ(test, c1.mem.kernel_copy_bytes - c0.mem.kernel_copy_bytes,
			(unsigned long)(l.len + l.index_size));
	/* The decoder's rows over the same bytes, from the copy alone. */
	KUNIT_EXPECT_EQ(test, bad, 0UL);
	/* Every third PC: some 40000 of the long function's alone. */
	KUNIT_EXPECT_GT(test, rows, (unsigned long)SFRAME_LONG_ROWS / 2);
	KUNIT_EXPECT_EQ(test, c2.lookup_user - c1.lookup_user, 0ULL);
	/* Unregistering frees both. */
	KUNIT_EXPECT_EQ(test, c3.mem.kernel_copies, c0.mem.kernel_copies);
	KUNIT_EXPECT_EQ(test, c3.mem.kernel_copy_bytes, c0.mem.kernel_copy_bytes);
}

/*
 * A long section whose copy fits max_kernel_bytes but whose FRE index does
 * not is registered without a copy: read from user memory, without an
 * index, its long function is refused (-E2BIG, counted) rather than
 * scanned, and its short functions give their rows.
 */
static void long_section_without_room_for_its_index_refuses_its_long_function(struct kunit *test)
{
	int err = -1, serr = -1, budget_err = -1, drop_err, restore_err, e_long = -1;
	int e_short = -1, e_short_want = -1;
	struct sfu_frame_rules rules, got = {}, want = {};
	struct sfu_sframe_row row;
	struct counters c0, c1, c2;
	struct sfu_user_ctx ctx;
	struct long_layout l;
	u64 pc_long, pc_short;
	bool laid = false;

	if (!begin(test, &ctx))
		return;
	drop_err = drop_retained();
	counters_get(&c0);
	laid = long_lay_out(&ctx, &l);
	if (laid && !drop_err)
		budget_err = set_budget(c0.mem.kernel_copy_bytes + l.len + l.index_size - 1);
	if (!budget_err) {
		err = sfu_registry_add(current->mm, l.base, l.len, l.text_lo, l.text_hi, &serr);
		counters_get(&c1);
		pc_long = l.base + sframe_long_pc(SFRAME_LONG_FDE, 100) - l.vaddr;
		pc_short = l.base + sframe_long_pc(0, 2) - l.vaddr;
		e_long = sfu_kunit_lookup(pc_long, true, &rules, NULL);
		e_short = sfu_kunit_lookup(pc_short, true, &got, NULL);
		e_short_want = sfu_sframe_find_row(&l.ref, pc_short, &row);
		if (!e_short_want)
			sfu_sframe_rules(&row, &want);
		counters_get(&c2);
		sfu_registry_remove(current->mm, l.text_lo);
	}
	sfu_user_end(&ctx);
	long_layout_free(&l);
	restore_err = set_budget(c0.mem.max_kernel_bytes) ?: restore_retained();

	KUNIT_EXPECT_EQ(test, restore_err, 0);
	KUNIT_ASSERT_EQ(test, drop_err, 0);
	KUNIT_ASSERT_TRUE(test, laid);
	KUNIT_ASSERT_EQ(test, budget_err, 0);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, serr, 0);
	/* The copy was made, then dropped for its index. */
	KUNIT_EXPECT_EQ(test, c1.mem.kernel_copies, c0.mem.kernel_copies);
	KUNIT_EXPECT_EQ(test, c1.mem.kernel_copy_bytes, c0.mem.kernel_copy_bytes);
	KUNIT_EXPECT_EQ(test, c1.over_budget - c0.over_budget, 1ULL);
	/*
	 * No index in user memory: the long function refused (-E2BIG, the
	 * registry's word for the decoder's -SFRAME_E_NO_INDEX), once counted.
	 */
	KUNIT_EXPECT_EQ(test, e_long, -E2BIG);
	KUNIT_EXPECT_EQ(test, c2.unindexed - c1.unindexed, 1ULL);
	KUNIT_EXPECT_GT(test, c2.lookup_user - c1.lookup_user, 0ULL);
	/* A short one is read from user memory as before. */
	KUNIT_EXPECT_EQ(test, e_short, 0);
	KUNIT_EXPECT_EQ(test, e_short_want, 0);
	KUNIT_EXPECT_EQ(test, memcmp(&got, &want, sizeof(got)), 0);
}

SFU_KUNIT_PARAM_GEN(native_params, sfu_kunit_native_fixture_gen)

/* Credentials of @uid of the initial user namespace: whom a copy is charged to. */
static const struct cred *uid_cred(struct kunit *test, uid_t uid)
{
	struct cred *c = prepare_creds();

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->uid = KUIDT_INIT(uid);
	c->euid = c->uid;
	return c;
}

/**
 * struct charge_case - a copy made for user a and shared with b and root
 * @ca: a's credentials
 * @cb: b's
 * @a: a's account
 * @b: b's
 * @root: root's
 * @c: the copy, charged to a
 * @slot: where a file cache would keep it for b
 */
struct charge_case {
	const struct cred *ca, *cb;
	struct sfu_user *a, *b, *root;
	struct sfu_sframe_copy *c, *slot;
};

#define CHARGE_SIZE 4096

static void charge_begin(struct kunit *test, struct charge_case *k)
{
	const struct cred *old;

	k->ca = uid_cred(test, 70001);
	k->cb = uid_cred(test, 70002);
	k->a = sfu_user_get(k->ca);
	k->b = sfu_user_get(k->cb);
	k->root = sfu_user_get(current_cred());
	KUNIT_ASSERT_TRUE(test, k->a && k->b && k->root);
	old = override_creds(k->ca);
	k->c = sfu_copy_alloc(CHARGE_SIZE);
	revert_creds(old);
	KUNIT_ASSERT_NOT_NULL(test, k->c);
	KUNIT_EXPECT_PTR_EQ(test, k->c->user, k->a);
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k->a), (long)CHARGE_SIZE);
	KUNIT_ASSERT_EQ(test, sfu_copy_hold(k->c, k->a), 0);
	/* Shared through the slot, as the file cache shares a file's copy. */
	k->slot = NULL;
	KUNIT_ASSERT_PTR_EQ(test, sfu_copy_set_slot(&k->slot, k->c), k->c);
	KUNIT_ASSERT_PTR_EQ(test, sfu_copy_get_slot(&k->slot), k->c);
	KUNIT_ASSERT_EQ(test, sfu_copy_hold(k->c, k->b), 0);
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k->b), 0L);
}

static void charge_end(struct charge_case *k)
{
	sfu_copy_clear_slot(&k->slot);
	sfu_user_put(k->a);
	sfu_user_put(k->b);
	sfu_user_put(k->root);
	put_cred(k->ca);
	put_cred(k->cb);
}

static void copy_charge_moves_to_a_user_still_holding_it(struct kunit *test)
{
	u64 moved = sfu_stat_read(SFU_STAT_KERNEL_COPY_CHARGE_MOVED);
	struct charge_case k;

	charge_begin(test, &k);
	/* a's section goes: b's still maps the copy, and b pays now. */
	sfu_copy_unhold(k.c, k.a);
	sfu_copy_put(k.c);
	KUNIT_EXPECT_PTR_EQ(test, k.c->user, k.b);
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k.a), 0L);
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k.b), (long)CHARGE_SIZE);
	KUNIT_EXPECT_EQ(test, sfu_stat_read(SFU_STAT_KERNEL_COPY_CHARGE_MOVED), moved + 1);
	/* b's goes too: the copy is freed and nobody is charged. */
	sfu_copy_clear_slot(&k.slot);
	sfu_copy_unhold(k.c, k.b);
	sfu_copy_put(k.c);
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k.b), 0L);
	KUNIT_EXPECT_EQ(test, sfu_stat_read(SFU_STAT_KERNEL_COPY_CHARGE_MOVED), moved + 1);
	charge_end(&k);
}

static void copy_charge_moves_to_root_first_never_to_a_user_gone(struct kunit *test)
{
	struct charge_case k;
	long root0;

	charge_begin(test, &k);
	root0 = sfu_user_copy_bytes(k.root);
	KUNIT_ASSERT_PTR_EQ(test, sfu_copy_get_slot(&k.slot), k.c);
	KUNIT_ASSERT_EQ(test, sfu_copy_hold(k.c, k.root), 0);
	/* b lets go first: a still pays. */
	sfu_copy_unhold(k.c, k.b);
	sfu_copy_put(k.c);
	KUNIT_EXPECT_PTR_EQ(test, k.c->user, k.a);
	/* Then a: root, held to no per-user limit, takes it; b is gone. */
	sfu_copy_unhold(k.c, k.a);
	sfu_copy_put(k.c);
	KUNIT_EXPECT_PTR_EQ(test, k.c->user, k.root);
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k.a), 0L);
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k.b), 0L);
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k.root) - root0, (long)CHARGE_SIZE);
	sfu_copy_clear_slot(&k.slot);
	sfu_copy_unhold(k.c, k.root);
	sfu_copy_put(k.c);
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k.root), root0);
	charge_end(&k);
}

/*
 * A copy no section holds any more stays in its slot, retained and still
 * charged to the user who let go of it last; another user's section takes
 * it and the charge with it; a new copy that max_kernel_bytes cannot fit
 * is made after letting go of it.
 */
static void retained_copy_takes_its_charge_along_and_gives_way_to_a_budget(struct kunit *test)
{
	u64 retained = sfu_stat_read(SFU_STAT_KERNEL_COPIES_RETAINED);
	u64 reused = sfu_stat_read(SFU_STAT_KERNEL_COPIES_RETAINED_REUSED);
	u64 dropped = sfu_stat_read(SFU_STAT_KERNEL_COPIES_RETAINED_DROPPED);
	struct sfu_sframe_copy *n = NULL;
	struct sfu_registry_memory mem;
	const struct cred *old;
	struct charge_case k;
	int err;

	/* Nothing retained before: only this case's copy can be let go. */
	err = drop_retained() ?: restore_retained();
	KUNIT_ASSERT_EQ(test, err, 0);
	charge_begin(test, &k);
	sfu_copy_unhold(k.c, k.b);
	sfu_copy_put(k.c);
	sfu_copy_unhold(k.c, k.a);
	sfu_copy_put(k.c);
	KUNIT_EXPECT_EQ(test, sfu_stat_read(SFU_STAT_KERNEL_COPIES_RETAINED), retained + 1);
	KUNIT_EXPECT_PTR_EQ(test, k.c->user, k.a);
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k.a), (long)CHARGE_SIZE);
	/* b maps the file again: the copy, and its charge, are b's. */
	KUNIT_ASSERT_PTR_EQ(test, sfu_copy_get_slot(&k.slot), k.c);
	KUNIT_ASSERT_EQ(test, sfu_copy_hold(k.c, k.b), 0);
	KUNIT_EXPECT_EQ(test, sfu_stat_read(SFU_STAT_KERNEL_COPIES_RETAINED_REUSED), reused + 1);
	KUNIT_EXPECT_PTR_EQ(test, k.c->user, k.b);
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k.a), 0L);
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k.b), (long)CHARGE_SIZE);
	sfu_copy_unhold(k.c, k.b);
	sfu_copy_put(k.c);
	KUNIT_EXPECT_EQ(test, sfu_stat_read(SFU_STAT_KERNEL_COPIES_RETAINED), retained + 2);
	/* No room left for a's new copy but what the retained one takes. */
	sfu_registry_memory(&mem);
	KUNIT_EXPECT_EQ(test, mem.retained_copies, 1U);
	err = set_budget(mem.kernel_copy_bytes);
	if (!err) {
		old = override_creds(k.ca);
		n = sfu_copy_alloc(CHARGE_SIZE);
		revert_creds(old);
		err = set_budget(mem.max_kernel_bytes);
	}
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_NOT_NULL(test, n);
	KUNIT_EXPECT_EQ(test, sfu_stat_read(SFU_STAT_KERNEL_COPIES_RETAINED_DROPPED), dropped + 1);
	KUNIT_EXPECT_NULL(test, sfu_copy_get_slot(&k.slot));
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k.b), 0L);
	KUNIT_EXPECT_EQ(test, sfu_user_copy_bytes(k.a), n ? (long)CHARGE_SIZE : 0L);
	sfu_copy_put(n);
	charge_end(&k);
}

static struct kunit_case sfu_registry_copy_cases[] = {
	KUNIT_CASE_PARAM(explicit_section_is_looked_up_in_its_kernel_copy, native_params),
	KUNIT_CASE(elf_file_mapped_twice_shares_one_kernel_copy),
	KUNIT_CASE(elf_file_mapped_again_takes_its_retained_copy),
	KUNIT_CASE(section_beyond_the_budget_reads_user_memory_with_the_same_rows),
	KUNIT_CASE(row_cache_remembers_a_row_and_never_gives_it_for_another_copy),
	KUNIT_CASE(cached_lookups_of_one_series_give_the_rules_of_single_lookups),
	KUNIT_CASE(explicit_long_section_gets_its_fre_index_with_its_copy),
	KUNIT_CASE(long_section_without_room_for_its_index_refuses_its_long_function),
	KUNIT_CASE(copy_charge_moves_to_a_user_still_holding_it),
	KUNIT_CASE(copy_charge_moves_to_root_first_never_to_a_user_gone),
	KUNIT_CASE(retained_copy_takes_its_charge_along_and_gives_way_to_a_budget),
	{}
};

static int sfu_registry_copy_suite_init(struct kunit_suite *suite)
{
	return sfu_kunit_mm_get();
}

static void sfu_registry_copy_suite_exit(struct kunit_suite *suite)
{
	sfu_kunit_mm_put();
}

static struct kunit_suite sfu_registry_copy_suite = {
	.name = "sframe_registry_copy",
	.suite_init = sfu_registry_copy_suite_init,
	.suite_exit = sfu_registry_copy_suite_exit,
	.test_cases = sfu_registry_copy_cases,
};

kunit_test_suites(&sfu_registry_copy_suite);
