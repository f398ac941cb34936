// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the SFrame decoder inside the kernel: every real fixture
 * decoded from a kernel buffer and from user memory (faultable and no-fault
 * readers) must give objdump's rows at every PC; every hostile section must
 * get its exact error; user-memory faults must end a lookup cleanly.
 *
 * The fixtures and their expected rows are generated from objdump --sframe
 * output by scripts/gen-expect (tests/gen/); the hostile table
 * (tests/sframe_cases.c) is the one the userspace tests run.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "sframe/sframe.h"
#include "tests/gen/sframe_fixtures.h"
#include "tests/sframe_cases.h"
#include "sframe_unwind/compat/kunit.h"
#include "fixture_rows.h"
#include "user_mem.h"

/* Parameter generators over the two tables (their sizes are not constant). */
static const void *fixture_gen(const void *prev, char *desc)
{
	const struct sframe_fixture *fx = prev ? (const struct sframe_fixture *)prev + 1
					       : sframe_fixtures;

	if (fx >= sframe_fixtures + sframe_num_fixtures)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", fx->name);
	return fx;
}

static const void *case_gen(const void *prev, char *desc)
{
	const struct sframe_case *c = prev ? (const struct sframe_case *)prev + 1 : sframe_cases;

	if (c >= sframe_cases + sframe_num_cases)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
	return c;
}

/*
 * Look up every PC of every expected range through @sec; report the first
 * mismatch and return how many PCs mismatched.  Never aborts: may run with
 * a borrowed mm.
 */
static int section_lookup(void *sec, u64 pc, struct sfu_sframe_row *row)
{
	return sfu_sframe_find_row(sec, pc, row);
}

static unsigned long check_every_pc(struct kunit *test, const struct sframe_fixture *fx,
				    const struct sfu_sframe_section *sec, const char *how)
{
	unsigned long bad, pcs;

	bad = sfu_kunit_check_rows(test, fx, how, section_lookup, (void *)sec, 0, U64_MAX,
				   true, &pcs);
	KUNIT_EXPECT_EQ_MSG(test, bad, 0UL, "%s: %lu of %lu PCs wrong", how, bad, pcs);
	KUNIT_EXPECT_GT(test, pcs, 0UL);
	return bad;
}

static void expect_header(struct kunit *test, const struct sframe_fixture *fx,
			  const struct sfu_sframe_section *sec)
{
	KUNIT_EXPECT_EQ(test, sec->version, fx->version);
	KUNIT_EXPECT_EQ(test, sec->abi, fx->abi);
	KUNIT_EXPECT_EQ(test, sec->num_fdes, fx->num_fdes);
	KUNIT_EXPECT_EQ(test, sec->num_fres, fx->num_fres);
}

static void fixture_rows_from_kernel_buffer(struct kunit *test)
{
	const struct sframe_fixture *fx = test->param_value;
	struct sfu_sframe_reader r = {
		.kind = SFRAME_READER_BUFFER, .buf = fx->data, .size = fx->size,
	};
	struct sfu_sframe_section sec;

	KUNIT_ASSERT_EQ(test, sfu_sframe_section_init(&sec, &r, fx->vaddr, fx->abi), 0);
	expect_header(test, fx, &sec);
	KUNIT_ASSERT_EQ(test, sfu_sframe_section_validate(&sec), 0);
	check_every_pc(test, fx, &sec, "buffer");
}

static void fixture_rows_from_user_memory(struct kunit *test)
{
	const struct sframe_fixture *fx = test->param_value;
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_USER, .size = fx->size };
	struct sfu_sframe_section sec;
	struct sfu_user_ctx ctx;
	int init_err, valid_err = -1, nofault_err = -1;

	if (!sfu_user_begin(test, &ctx))
		return;
	r.uaddr = sfu_user_place(&ctx, fx->data, fx->size);
	init_err = r.uaddr ? sfu_sframe_section_init(&sec, &r, fx->vaddr, fx->abi) : -1;
	if (!init_err) {
		expect_header(test, fx, &sec);
		valid_err = sfu_sframe_section_validate(&sec);
	}
	if (!valid_err) {
		check_every_pc(test, fx, &sec, "user");
		/* Every page has been touched now: no-fault reads must agree. */
		sec.reader.kind = SFRAME_READER_USER_NOFAULT;
		nofault_err = sfu_sframe_section_validate(&sec);
		check_every_pc(test, fx, &sec, "user, no-fault");
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, init_err, 0);
	KUNIT_EXPECT_EQ(test, valid_err, 0);
	KUNIT_EXPECT_EQ(test, nofault_err, 0);
}

SFU_KUNIT_PARAM_GEN(fixture_params, fixture_gen)
SFU_KUNIT_PARAM_GEN(case_params, case_gen)

static struct kunit_case sframe_fixture_cases[] = {
	KUNIT_CASE_PARAM(fixture_rows_from_kernel_buffer, fixture_params),
	KUNIT_CASE_PARAM(fixture_rows_from_user_memory, fixture_params),
	{}
};

static int sfu_user_suite_init(struct kunit_suite *suite)
{
	return sfu_kunit_mm_get();
}

static void sfu_user_suite_exit(struct kunit_suite *suite)
{
	sfu_kunit_mm_put();
}

static struct kunit_suite sframe_fixture_suite = {
	.name = "sframe_fixtures",
	.suite_init = sfu_user_suite_init,
	.suite_exit = sfu_user_suite_exit,
	.test_cases = sframe_fixture_cases,
};

static void hostile_section_gets_its_exact_error(struct kunit *test)
{
	const struct sframe_case *c = test->param_value;
	struct sframe_case_result res;
	size_t len;
	u64 vaddr;
	u8 *buf;

	buf = kunit_kzalloc(test, SFRAME_CASE_BUF_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* Zero bytes is a legitimate case: the empty section. */
	len = sframe_case_build(c, buf, SFRAME_CASE_BUF_SIZE, &vaddr);
	sframe_case_run(c, buf, len, vaddr, &res);
	KUNIT_EXPECT_TRUE_MSG(test, sframe_case_passed(c, &res),
			      "stage %d gave %s \"%s\"; want stage %d %s \"%s\"",
			      res.stage, sfu_sframe_strerror(res.err), res.row,
			      c->stage, sfu_sframe_strerror(c->expect), c->row ?: "");
}

static struct kunit_case sframe_hostile_cases[] = {
	KUNIT_CASE_PARAM(hostile_section_gets_its_exact_error, case_params),
	{}
};

static struct kunit_suite sframe_hostile_suite = {
	.name = "sframe_hostile",
	.test_cases = sframe_hostile_cases,
};

/* The smallest fixture of at least @min bytes, for the fault cases. */
static const struct sframe_fixture *fault_fixture(struct kunit *test, u32 min)
{
	unsigned int i;

	for (i = 0; i < sframe_num_fixtures; i++)
		if (sframe_fixtures[i].size >= min)
			return &sframe_fixtures[i];
	KUNIT_FAIL(test, "no fixture of %u bytes", min);
	return NULL;
}

/* The first PC that has a row in @fx. */
static u64 first_row_pc(const struct sframe_fixture *fx)
{
	u32 i;

	for (i = 0; i < fx->num_ranges; i++)
		if (!fx->ranges[i].err)
			return fx->ranges[i].lo;
	return 0;
}

static void user_read_copies_mapped_bytes(struct kunit *test)
{
	static const char msg[] = "bytes that live in user memory";
	char got[sizeof(msg)] = "";
	struct sfu_user_ctx ctx;
	unsigned long uaddr;
	int err = -1;

	if (!sfu_user_begin(test, &ctx))
		return;
	uaddr = sfu_user_place(&ctx, msg, sizeof(msg));
	if (uaddr)
		err = sfu_sframe_user_read(uaddr, got, sizeof(got));
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_STREQ(test, got, msg);
}

static void nofault_read_fails_on_a_page_not_yet_faulted_in(struct kunit *test)
{
	int before = 0, faulting = -1, after = -1;
	struct sfu_user_ctx ctx;
	unsigned long uaddr;
	u64 word = 0x5555;

	if (!sfu_user_begin(test, &ctx))
		return;
	uaddr = sfu_user_map(&ctx, PAGE_SIZE);
	if (uaddr) {
		before = sfu_sframe_user_read_nofault(uaddr, &word, sizeof(word));
		faulting = sfu_sframe_user_read(uaddr, &word, sizeof(word));
		after = sfu_sframe_user_read_nofault(uaddr, &word, sizeof(word));
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, before, -SFRAME_E_FAULT);
	KUNIT_EXPECT_EQ(test, faulting, 0);
	KUNIT_EXPECT_EQ(test, after, 0);
	KUNIT_EXPECT_EQ(test, word, 0ULL);
}

static void reads_of_kernel_addresses_fail_without_reading(struct kunit *test)
{
	static const u64 secret = 0x0123456789abcdefULL;
	struct sfu_user_ctx ctx;
	u64 got = 0, got_nofault = 0;
	int err, err_nofault;

	if (!sfu_user_begin(test, &ctx))
		return;
	err = sfu_sframe_user_read((unsigned long)&secret, &got, sizeof(got));
	err_nofault = sfu_sframe_user_read_nofault((unsigned long)&secret, &got_nofault,
						   sizeof(got_nofault));
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, err, -SFRAME_E_FAULT);
	KUNIT_EXPECT_EQ(test, err_nofault, -SFRAME_E_FAULT);
	KUNIT_EXPECT_NE(test, got, secret);
	KUNIT_EXPECT_NE(test, got_nofault, secret);
}

static void section_straddling_an_unmapped_page_faults(struct kunit *test)
{
	const struct sframe_fixture *fx = fault_fixture(test, 256);
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_USER };
	int init_err = -1, valid_err = -1;
	struct sfu_sframe_section sec;
	struct sfu_user_ctx ctx;
	unsigned long base;

	if (!fx || !sfu_user_begin(test, &ctx))
		return;
	/* The header and the first half on one page, the rest on the next. */
	base = sfu_user_map(&ctx, 2 * PAGE_SIZE);
	r.uaddr = base + PAGE_SIZE - fx->size / 2;
	r.size = fx->size;
	if (base && !copy_to_user((void __user *)r.uaddr, fx->data, fx->size) &&
	    sfu_user_unmap(&ctx, base + PAGE_SIZE, PAGE_SIZE)) {
		init_err = sfu_sframe_section_init(&sec, &r, fx->vaddr, fx->abi);
		if (!init_err)
			valid_err = sfu_sframe_section_validate(&sec);
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, init_err, 0);
	KUNIT_EXPECT_EQ(test, valid_err, -SFRAME_E_FAULT);
}

static void page_unmapped_between_validation_and_lookup_faults(struct kunit *test)
{
	const struct sframe_fixture *fx = fault_fixture(test, 64);
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_USER };
	int valid_err = -1, find_err = -1, nofault_err = -1;
	struct sfu_sframe_section sec;
	struct sfu_user_ctx ctx;
	struct sfu_sframe_row row;

	if (!fx || !sfu_user_begin(test, &ctx))
		return;
	r.uaddr = sfu_user_place(&ctx, fx->data, fx->size);
	r.size = fx->size;
	if (r.uaddr && !sfu_sframe_section_init(&sec, &r, fx->vaddr, fx->abi)) {
		valid_err = sfu_sframe_section_validate(&sec);
		unsigned long first = r.uaddr & PAGE_MASK;

		if (sfu_user_unmap(&ctx, first, r.uaddr + r.size - first)) {
			find_err = sfu_sframe_find_row(&sec, first_row_pc(fx), &row);
			sec.reader.kind = SFRAME_READER_USER_NOFAULT;
			nofault_err = sfu_sframe_find_row(&sec, first_row_pc(fx), &row);
		}
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, valid_err, 0);
	KUNIT_EXPECT_EQ(test, find_err, -SFRAME_E_FAULT);
	KUNIT_EXPECT_EQ(test, nofault_err, -SFRAME_E_FAULT);
}

static struct kunit_case sframe_user_reader_cases[] = {
	KUNIT_CASE(user_read_copies_mapped_bytes),
	KUNIT_CASE(nofault_read_fails_on_a_page_not_yet_faulted_in),
	KUNIT_CASE(reads_of_kernel_addresses_fail_without_reading),
	KUNIT_CASE(section_straddling_an_unmapped_page_faults),
	KUNIT_CASE(page_unmapped_between_validation_and_lookup_faults),
	{}
};

static struct kunit_suite sframe_user_reader_suite = {
	.name = "sframe_user_reader",
	.suite_init = sfu_user_suite_init,
	.suite_exit = sfu_user_suite_exit,
	.test_cases = sframe_user_reader_cases,
};

kunit_test_suites(&sframe_fixture_suite, &sframe_hostile_suite, &sframe_user_reader_suite);
