// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for where user functions start (unwind/fn_bounds.c): an ELF
 * file in shmem, mapped as a loader maps it, whose .eh_frame_hdr lists the
 * functions of a layout the frame-pointer checks meet in glibc: C
 * functions, and string functions written as short entry stubs that jump
 * forward into one body (memmove's, entered by memcpy's and mempcpy's).
 * Each case asks whether a call to one address can have led to a frame at
 * another, as the checks of a return address found without rows ask it.
 */
#include <kunit/test.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/shmem_fs.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "kunit/unwind_kunit.h"
#include "sframe_unwind/arch.h"
#include "sframe_unwind/compat/fs.h"
#include "sframe_unwind/unwind.h"
#include "unwind/unwind_state.h"
#include "user_mem.h"

/* The file: its ELF header in page 0, text and the table in page 1. */
#define FB_FILE_SIZE	(2 * PAGE_SIZE)
/* Where the table (.eh_frame_hdr) is, from the file's start. */
#define FB_HDR		(PAGE_SIZE + 0xc00)
/* The span a caller gives for a function whose start is not known. */
#define FB_SPAN		SZ_1M

/* Function starts, from the file's start, in the table's order. */
enum {
	FB_A = PAGE_SIZE,		/* a C function, 0x200 bytes */
	FB_S1 = PAGE_SIZE + 0x200,	/* entry stubs into FB_B: 0x10, 0x30, 0x10, 0x30 */
	FB_S2 = PAGE_SIZE + 0x210,
	FB_S3 = PAGE_SIZE + 0x240,
	FB_S4 = PAGE_SIZE + 0x250,
	FB_B = PAGE_SIZE + 0x280,	/* their body, 0x400 bytes */
	FB_C = PAGE_SIZE + 0x680,	/* a C function, 0x100 bytes */
	FB_T0 = PAGE_SIZE + 0x780,	/* ten stubs of 0x10 into FB_E */
	FB_E = PAGE_SIZE + 0x820,	/* their body, 0x100 bytes */
	FB_END = PAGE_SIZE + 0x920,
};

#define FB_T(i)		(FB_T0 + 0x10 * (i))

static const u32 fb_starts[] = {
	FB_A, FB_S1, FB_S2, FB_S3, FB_S4, FB_B, FB_C,
	FB_T(0), FB_T(1), FB_T(2), FB_T(3), FB_T(4), FB_T(5), FB_T(6), FB_T(7), FB_T(8),
	FB_T(9), FB_E,
};

/**
 * struct fb_table - the file's .eh_frame_hdr
 * @version: 1
 * @frame_enc: how @frame is encoded
 * @count_enc: how @count is encoded
 * @table_enc: how the entries are encoded
 * @frame: where .eh_frame is (never read)
 * @count: entries
 * @e: each function's start and FDE, from the table's start
 */
struct fb_table {
	u8 version, frame_enc, count_enc, table_enc;
	s32 frame;
	u32 count;
	s32 e[ARRAY_SIZE(fb_starts)][2];
} __packed;

/* How the file is spoiled, for the cases in which nothing is known. */
enum fb_spoil { FB_GOOD, FB_BAD_MAGIC, FB_BAD_VERSION, FB_BAD_ENCODING };

/**
 * struct fb_env - one case's file, mapping and unwind
 * @ctx: the case's user memory
 * @file: the file
 * @base: where it is mapped, 0 if not
 * @st: an unwind of the case's mm, faulting
 */
struct fb_env {
	struct sfu_user_ctx ctx;
	struct file *file;
	unsigned long base;
	struct sfu_unwind_state st;
};

static u8 *fb_image(enum fb_spoil spoil)
{
	struct {
		struct elf64_hdr eh;
		struct elf64_phdr ph[2];
	} *hdr;
	struct fb_table *tab;
	unsigned int i;
	u8 *img;

	img = vzalloc(FB_FILE_SIZE);
	if (!img)
		return NULL;
	hdr = (void *)img;
	sfu_kunit_elf_header(&hdr->eh, ARRAY_SIZE(hdr->ph));
	if (spoil == FB_BAD_MAGIC)
		hdr->eh.e_ident[1] = 'e';
	hdr->ph[0].p_type = PT_LOAD;
	hdr->ph[0].p_flags = PF_R | PF_X;
	hdr->ph[0].p_filesz = FB_FILE_SIZE;
	hdr->ph[0].p_memsz = FB_FILE_SIZE;
	hdr->ph[0].p_align = PAGE_SIZE;
	hdr->ph[1].p_type = PT_GNU_EH_FRAME;
	hdr->ph[1].p_flags = PF_R;
	hdr->ph[1].p_offset = FB_HDR;
	hdr->ph[1].p_vaddr = FB_HDR;
	hdr->ph[1].p_filesz = sizeof(*tab);
	hdr->ph[1].p_memsz = sizeof(*tab);
	hdr->ph[1].p_align = 4;

	/* FB_C sets up a frame record, after 8 bytes of other code. */
	memcpy(img + FB_C + 8, uw_arch.fp_setup, uw_arch.fp_setup_len);

	tab = (void *)(img + FB_HDR);
	tab->version = spoil == FB_BAD_VERSION ? 2 : 1;
	tab->frame_enc = 0x1b;		/* pcrel | sdata4 */
	tab->count_enc = 0x03;		/* udata4 */
	tab->table_enc = spoil == FB_BAD_ENCODING ? 0x03 : 0x3b;	/* datarel | sdata4 */
	tab->count = ARRAY_SIZE(fb_starts);
	for (i = 0; i < ARRAY_SIZE(fb_starts); i++) {
		tab->e[i][0] = (s32)fb_starts[i] - FB_HDR;
		tab->e[i][1] = 0x100 + 0x20 * i;	/* FDEs: never read */
	}
	return img;
}

/* Make the file, map it, and fault its pages in as running it would. */
static bool fb_begin(struct kunit *test, struct fb_env *env, enum fb_spoil spoil)
{
	u8 *img = fb_image(spoil);
	loff_t pos = 0;
	unsigned long off;
	u8 byte;

	memset(env, 0, sizeof(*env));
	if (!img) {
		KUNIT_FAIL(test, "out of memory");
		return false;
	}
	env->file = sfu_shmem_file_setup("sfu-kunit-fn-bounds", FB_FILE_SIZE, VM_NORESERVE);
	if (IS_ERR(env->file)) {
		KUNIT_FAIL(test, "no shmem file: %ld", PTR_ERR(env->file));
		env->file = NULL;
		vfree(img);
		return false;
	}
	if (kernel_write(env->file, img, FB_FILE_SIZE, &pos) != FB_FILE_SIZE) {
		KUNIT_FAIL(test, "cannot write the file");
		vfree(img);
		return false;
	}
	vfree(img);
	if (!sfu_user_begin(test, &env->ctx))
		return false;
	env->base = vm_mmap(env->file, 0, FB_FILE_SIZE, PROT_READ | PROT_EXEC, MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(env->base)) {
		KUNIT_FAIL(test, "mapping the file failed: %ld", (long)env->base);
		env->base = 0;
		return true;
	}
	for (off = 0; off < FB_FILE_SIZE; off += PAGE_SIZE)
		if (copy_from_user(&byte, (const void __user *)(env->base + off), 1))
			KUNIT_FAIL(test, "cannot read the mapping at +%#lx", off);
	env->st.mm = current->mm;
	env->st.ws = sizeof(long);
	return true;
}

static void fb_end(struct fb_env *env)
{
	if (env->base)
		vm_munmap(env->base, FB_FILE_SIZE);
	if (env->ctx.test)
		sfu_user_end(&env->ctx);
	if (env->file)
		fput(env->file);
}

/* Can a call to the file's @fn have led to a frame at the file's @ip? */
static bool fb_holds(struct fb_env *env, unsigned long fn, unsigned long ip)
{
	return sfu_fn_holds(&env->st, env->base + fn, env->base + ip, FB_SPAN);
}

/* The start the table gives for @ip, from the file's start; -1 if none. */
static long fb_start(struct fb_env *env, unsigned long ip)
{
	unsigned long start;

	if (!sfu_fn_start(&env->st, env->base + ip, &start))
		return -1;
	return start - env->base;
}

static void starts_come_from_the_files_table(struct kunit *test)
{
	long s_a, s_b, s_b_end, s_s2, s_e, s_before;
	struct fb_env env;

	if (!fb_begin(test, &env, FB_GOOD)) {
		fb_end(&env);
		return;
	}
	s_a = fb_start(&env, FB_A + 0x1ff);
	s_b = fb_start(&env, FB_B);
	s_b_end = fb_start(&env, FB_C - 1);
	s_s2 = fb_start(&env, FB_S2 + 0x2f);
	s_e = fb_start(&env, FB_END - 1);
	/* The ELF header's page: text of the mapping, below every FDE. */
	s_before = fb_start(&env, 0x40);
	fb_end(&env);
	KUNIT_EXPECT_EQ(test, s_a, (long)FB_A);
	KUNIT_EXPECT_EQ(test, s_b, (long)FB_B);
	KUNIT_EXPECT_EQ(test, s_b_end, (long)FB_B);
	KUNIT_EXPECT_EQ(test, s_s2, (long)FB_S2);
	KUNIT_EXPECT_EQ(test, s_e, (long)FB_E);
	KUNIT_EXPECT_EQ(test, s_before, -1L);
}

static void a_call_to_the_function_or_an_entry_within_it_holds(struct kunit *test)
{
	bool at_start, inner, at_ip, above;
	struct fb_env env;

	if (!fb_begin(test, &env, FB_GOOD)) {
		fb_end(&env);
		return;
	}
	at_start = fb_holds(&env, FB_B, FB_B + 0x300);
	inner = fb_holds(&env, FB_B + 0x20, FB_B + 0x300);
	at_ip = fb_holds(&env, FB_B + 0x300, FB_B + 0x300);
	above = fb_holds(&env, FB_B + 0x301, FB_B + 0x300);
	fb_end(&env);
	KUNIT_EXPECT_TRUE(test, at_start);
	KUNIT_EXPECT_TRUE(test, inner);
	KUNIT_EXPECT_TRUE(test, at_ip);
	KUNIT_EXPECT_FALSE(test, above);
}

/*
 * glibc's memcpy (a 40-byte FDE of its own) jumps into memmove's body: a
 * frame in the body after a call to memcpy is memcpy's.  The body's own
 * start lies above the call's target, which the start alone refuses.
 */
static void a_call_to_an_entry_stub_below_the_body_holds(struct kunit *test)
{
	bool s1, s2, s3, s4, in_s2;
	long start;
	struct fb_env env;

	if (!fb_begin(test, &env, FB_GOOD)) {
		fb_end(&env);
		return;
	}
	start = fb_start(&env, FB_B + 0x100);
	s1 = fb_holds(&env, FB_S1, FB_B + 0x100);
	s2 = fb_holds(&env, FB_S2, FB_B + 0x100);
	s3 = fb_holds(&env, FB_S3, FB_B + 0x100);
	s4 = fb_holds(&env, FB_S4, FB_B + 0x100);
	in_s2 = fb_holds(&env, FB_S2 + 0x8, FB_B + 0x100);
	fb_end(&env);
	/* What the start alone says: the body starts above every stub. */
	KUNIT_EXPECT_EQ(test, start, (long)FB_B);
	KUNIT_EXPECT_TRUE(test, s1);
	KUNIT_EXPECT_TRUE(test, s2);
	KUNIT_EXPECT_TRUE(test, s3);
	KUNIT_EXPECT_TRUE(test, s4);
	KUNIT_EXPECT_TRUE(test, in_s2);
}

/* A function of its own below, however near, cannot hold the frame's IP. */
static void a_call_to_a_function_of_its_own_below_does_not_hold(struct kunit *test)
{
	bool a, a_end, b, b_near;
	struct fb_env env;

	if (!fb_begin(test, &env, FB_GOOD)) {
		fb_end(&env);
		return;
	}
	a = fb_holds(&env, FB_A, FB_B + 0x10);
	a_end = fb_holds(&env, FB_A + 0x1f0, FB_S1 + 0x4);
	b = fb_holds(&env, FB_B, FB_C + 0x10);
	b_near = fb_holds(&env, FB_B + 0x3f0, FB_C);
	fb_end(&env);
	KUNIT_EXPECT_FALSE(test, a);
	KUNIT_EXPECT_FALSE(test, a_end);
	KUNIT_EXPECT_FALSE(test, b);
	KUNIT_EXPECT_FALSE(test, b_near);
}

/* Eight stubs below a function are looked at, not more. */
static void stubs_are_followed_eight_deep(struct kunit *test)
{
	bool held[10];
	struct fb_env env;
	unsigned int i;

	if (!fb_begin(test, &env, FB_GOOD)) {
		fb_end(&env);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(held); i++)
		held[i] = fb_holds(&env, FB_T(i), FB_E + 0x10);
	fb_end(&env);
	for (i = 0; i < ARRAY_SIZE(held); i++)
		KUNIT_EXPECT_EQ_MSG(test, held[i], i >= 2, "stub %u", i);
}

/*
 * Where the file's table is not to be trusted, nothing is known: the
 * caller's span decides, as for a file without one.
 */
static void a_spoiled_table_leaves_the_span(struct kunit *test)
{
	static const enum fb_spoil spoils[] = { FB_BAD_MAGIC, FB_BAD_VERSION, FB_BAD_ENCODING };
	bool near, far, beyond;
	struct fb_env env;
	unsigned int i;
	long start;

	for (i = 0; i < ARRAY_SIZE(spoils); i++) {
		if (!fb_begin(test, &env, spoils[i])) {
			fb_end(&env);
			return;
		}
		start = fb_start(&env, FB_B + 0x10);
		near = fb_holds(&env, FB_A, FB_B + 0x10);
		far = fb_holds(&env, FB_A, FB_END - 1);
		beyond = fb_holds(&env, FB_B + 0x20, FB_B + 0x10);
		fb_end(&env);
		KUNIT_EXPECT_EQ_MSG(test, start, -1L, "spoil %d", spoils[i]);
		KUNIT_EXPECT_TRUE_MSG(test, near, "spoil %d", spoils[i]);
		KUNIT_EXPECT_TRUE_MSG(test, far, "spoil %d", spoils[i]);
		KUNIT_EXPECT_FALSE_MSG(test, beyond, "spoil %d", spoils[i]);
	}
}

/*
 * Whether a function sets up its frame record before an address: the
 * set-up (uw_arch.fp_setup) is 8 bytes into FB_C (fb_image()); FB_A has
 * none.
 */
static void a_function_sets_up_a_record_where_its_code_does(struct kunit *test)
{
	bool c, c_before, c_at, a;
	struct fb_env env;

	if (!fb_begin(test, &env, FB_GOOD)) {
		fb_end(&env);
		return;
	}
	c = sfu_arch_fn_sets_fp(&env.st, env.base + FB_C, env.base + FB_C + 0x40);
	/* Before the set-up has run: the frame keeps no record yet. */
	c_before = sfu_arch_fn_sets_fp(&env.st, env.base + FB_C, env.base + FB_C + 8);
	c_at = sfu_arch_fn_sets_fp(&env.st, env.base + FB_C,
				   env.base + FB_C + 8 + uw_arch.fp_setup_len);
	a = sfu_arch_fn_sets_fp(&env.st, env.base + FB_A, env.base + FB_A + 0x40);
	fb_end(&env);
	KUNIT_EXPECT_TRUE(test, c);
	KUNIT_EXPECT_FALSE(test, c_before);
	KUNIT_EXPECT_TRUE(test, c_at);
	KUNIT_EXPECT_FALSE(test, a);
}

/* Memory that is no file's: the span alone. */
static void anonymous_text_leaves_the_span(struct kunit *test)
{
	struct sfu_unwind_state st = { .ws = sizeof(long) };
	struct sfu_user_ctx ctx;
	bool near, far, start;
	unsigned long text, s;
	u8 byte;

	if (!sfu_user_begin(test, &ctx))
		return;
	st.mm = current->mm;
	text = sfu_user_map_prot(&ctx, PAGE_SIZE, PROT_READ | PROT_EXEC);
	if (text && copy_from_user(&byte, (const void __user *)text, 1))
		text = 0;
	start = text && sfu_fn_start(&st, text + 0x100, &s);
	near = text && sfu_fn_holds(&st, text, text + 0x100, 0x200);
	far = text && sfu_fn_holds(&st, text, text + 0x100, 0x100);
	sfu_user_end(&ctx);
	KUNIT_ASSERT_NE(test, text, 0UL);
	KUNIT_EXPECT_FALSE(test, start);
	KUNIT_EXPECT_TRUE(test, near);
	KUNIT_EXPECT_FALSE(test, far);
}

static int sfu_fn_bounds_suite_init(struct kunit_suite *suite)
{
	return sfu_kunit_mm_get();
}

static void sfu_fn_bounds_suite_exit(struct kunit_suite *suite)
{
	sfu_kunit_mm_put();
}

static struct kunit_case sfu_fn_bounds_cases[] = {
	KUNIT_CASE(starts_come_from_the_files_table),
	KUNIT_CASE(a_call_to_the_function_or_an_entry_within_it_holds),
	KUNIT_CASE(a_call_to_an_entry_stub_below_the_body_holds),
	KUNIT_CASE(a_call_to_a_function_of_its_own_below_does_not_hold),
	KUNIT_CASE(stubs_are_followed_eight_deep),
	KUNIT_CASE(a_spoiled_table_leaves_the_span),
	KUNIT_CASE(a_function_sets_up_a_record_where_its_code_does),
	KUNIT_CASE(anonymous_text_leaves_the_span),
	{}
};

static struct kunit_suite sfu_fn_bounds_suite = {
	.name = "sframe_fn_bounds",
	.suite_init = sfu_fn_bounds_suite_init,
	.suite_exit = sfu_fn_bounds_suite_exit,
	.test_cases = sfu_fn_bounds_cases,
};

kunit_test_suites(&sfu_fn_bounds_suite);
