// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the FRE index, on the sections of tests/sframe_long.c:
 * a function of 60000 rows (and shorter ones around it), V2 and V3, which
 * the userspace runner tests/sframe-long.c checks the same way.
 *
 *  - with the index, every PC gives the model's row, its exact range
 *    included, reading at most SFRAME_FRE_SCAN_MAX FREs: the first,
 *    middle and last rows of the long function and the PCs between rows
 *    one by one, then every PC of the section;
 *  - without it, every PC of a function of more than 32 rows gives
 *    NO_INDEX, and the others their rows;
 *  - bytes rewritten after the index was built give errors or rows that
 *    cover their PC, never a longer scan;
 *  - read from user memory, faultable and no-fault, with the index built
 *    from user memory, the rows are the same;
 *  - validated per function (a sidecar's kernel copy), what the walk
 *    counted for the index is what a count of its own finds, the rows are
 *    the same, each function checked on its first lookup, and one of bad
 *    FREs fails its own lookups alone.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "sframe/sframe.h"
#include "tests/gen/sframe_fixtures.h"
#include "tests/sframe_long.h"
#include "sframe_unwind/compat/kunit.h"
#include "user_mem.h"

/**
 * struct long_sec - a long section in a kernel buffer, with its index
 * @buf: its bytes
 * @len: their number
 * @vaddr: where it is mapped
 * @sec: the section, validated
 * @index: its FRE index, or NULL
 * @index_size: bytes of @index
 */
struct long_sec {
	u8 *buf;
	size_t len;
	u64 vaddr;
	struct sfu_sframe_section sec;
	void *index;
	size_t index_size;
};

static void long_sec_free(struct long_sec *ls)
{
	kvfree(ls->index);
	kvfree(ls->buf);
}

/* Build, validate and (if @index) index a section of @version; false on failure. */
static bool long_sec_make(struct kunit *test, struct long_sec *ls, u8 version, bool index)
{
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_BUFFER };
	int err;

	memset(ls, 0, sizeof(*ls));
	ls->len = sframe_long_size(version);
	ls->buf = kvmalloc(ls->len, GFP_KERNEL);
	if (!ls->buf) {
		KUNIT_FAIL(test, "no memory for %zu bytes of section", ls->len);
		return false;
	}
	KUNIT_EXPECT_EQ(test, sframe_long_build(ls->buf, ls->len, version, &ls->vaddr), ls->len);
	r.buf = ls->buf;
	r.size = ls->len;
	err = sfu_sframe_section_init(&ls->sec, &r, ls->vaddr, SFRAME_ABI_AMD64_ENDIAN_LITTLE);
	if (!err)
		err = sfu_sframe_section_validate(&ls->sec);
	KUNIT_EXPECT_EQ(test, err, 0);
	if (!err && index) {
		err = sfu_sframe_fre_index_size(&ls->sec, &ls->index_size);
		KUNIT_EXPECT_EQ(test, err, 0);
		KUNIT_EXPECT_GT(test, ls->index_size, (size_t)0);
		ls->index = err ? NULL : kvmalloc(ls->index_size, GFP_KERNEL);
		err = ls->index ?
		      sfu_sframe_fre_index_build(&ls->sec, ls->index, ls->index_size, NULL) :
		      -SFRAME_E_TOO_BIG;
		KUNIT_EXPECT_EQ(test, err, 0);
		KUNIT_EXPECT_PTR_EQ(test, (void *)ls->sec.fre_index, ls->index);
	}
	if (err)
		long_sec_free(ls);
	return !err;
}

static void expect_none_wrong(struct kunit *test, const struct sframe_long_result *res,
			      const char *what)
{
	KUNIT_EXPECT_EQ_MSG(test, res->wrong, 0ULL,
			    "%s: %llu of %llu PCs wrong, the first %#llx (%s)",
			    what, res->wrong, res->pcs, res->bad_pc,
			    sfu_sframe_strerror(res->bad_err));
	KUNIT_EXPECT_LE(test, res->max_fres, (u32)SFRAME_FRE_SCAN_MAX);
}

static const u8 long_versions[] = { SFRAME_VERSION_2, SFRAME_VERSION_3 };

static const void *long_version_gen(const void *prev, char *desc)
{
	const u8 *v = prev ? (const u8 *)prev + 1 : long_versions;

	if (v >= long_versions + ARRAY_SIZE(long_versions))
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "v%u", *v);
	return v;
}

static const void *long_mutation_gen(const void *prev, char *desc)
{
	const struct sframe_long_mutation *m = prev ? (const struct sframe_long_mutation *)prev + 1
						    : sframe_long_mutations;

	if (m >= sframe_long_mutations + sframe_long_num_mutations)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", m->name);
	return m;
}

SFU_KUNIT_PARAM_GEN(long_version_params, long_version_gen)
SFU_KUNIT_PARAM_GEN(long_mutation_params, long_mutation_gen)

/* One PC, checked against the model: the row and its range exactly. */
static void expect_model_row(struct kunit *test, const struct sfu_sframe_section *sec, u64 pc)
{
	struct sframe_long_result res;

	sframe_long_check(sec, pc, pc + 1, 1, &res);
	KUNIT_EXPECT_EQ_MSG(test, res.wrong, 0ULL, "pc %#llx: %s", pc,
			    sfu_sframe_strerror(res.bad_err));
}

static void long_function_rows_through_the_index(struct kunit *test)
{
	const u8 *version = test->param_value;
	u32 last = SFRAME_LONG_ROWS - 1, mid = SFRAME_LONG_ROWS / 2, fres = ~0U;
	struct sframe_long_result res;
	struct sfu_sframe_row row;
	struct long_sec ls;
	u64 lo, hi, pc;
	int err;

	if (!long_sec_make(test, &ls, *version, true))
		return;

	/* First, middle and last rows of the long function, and PCs between rows. */
	pc = sframe_long_pc(SFRAME_LONG_FDE, 0);
	err = sfu_sframe_find_row_counted(&ls.sec, pc, &row, &fres);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, row.start, pc);
	KUNIT_EXPECT_EQ(test, row.end, sframe_long_pc(SFRAME_LONG_FDE, 1));
	KUNIT_EXPECT_LE(test, fres, 2U);
	expect_model_row(test, &ls.sec, pc);
	/* Rows mid and mid + 1 are 3 bytes apart: two PCs between them. */
	for (pc = sframe_long_pc(SFRAME_LONG_FDE, mid);
	     pc < sframe_long_pc(SFRAME_LONG_FDE, mid + 2); pc++) {
		u32 j = pc < sframe_long_pc(SFRAME_LONG_FDE, mid + 1) ? mid : mid + 1;

		err = sfu_sframe_find_row_counted(&ls.sec, pc, &row, &fres);
		KUNIT_EXPECT_EQ(test, err, 0);
		KUNIT_EXPECT_EQ(test, row.start, sframe_long_pc(SFRAME_LONG_FDE, j));
		KUNIT_EXPECT_EQ(test, row.end, sframe_long_pc(SFRAME_LONG_FDE, j + 1));
		KUNIT_EXPECT_LE(test, fres, (u32)SFRAME_FRE_SCAN_MAX);
		expect_model_row(test, &ls.sec, pc);
	}
	pc = sframe_long_pc(SFRAME_LONG_FDE, last);
	err = sfu_sframe_find_row_counted(&ls.sec, pc + 2, &row, &fres);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, row.start, pc);
	KUNIT_EXPECT_EQ(test, row.end, row.func_start + row.func_size);
	KUNIT_EXPECT_LE(test, fres, (u32)SFRAME_FRE_SCAN_MAX);
	expect_model_row(test, &ls.sec, pc);
	expect_model_row(test, &ls.sec, pc + 2);
	/* The byte after the function is in none. */
	err = sfu_sframe_find_row(&ls.sec, row.end, &row);
	KUNIT_EXPECT_EQ(test, err, -SFRAME_E_NO_FDE);

	/* Every PC of the section, and the scan's bound met exactly. */
	sframe_long_text(&lo, &hi);
	sframe_long_check(&ls.sec, lo, hi, 1, &res);
	expect_none_wrong(test, &res, "every pc");
	KUNIT_EXPECT_EQ(test, res.max_fres, (u32)SFRAME_FRE_SCAN_MAX);
	long_sec_free(&ls);
}

static void long_function_without_the_index_is_refused(struct kunit *test)
{
	const u8 *version = test->param_value;
	struct sframe_long_result res;
	struct long_sec ls;
	u64 lo, hi;

	if (!long_sec_make(test, &ls, *version, false))
		return;
	sframe_long_text(&lo, &hi);
	sframe_long_check_unindexed(&ls.sec, lo, hi, 1, &res);
	expect_none_wrong(test, &res, "without index");
	long_sec_free(&ls);
}

static void index_in_too_little_memory_is_refused(struct kunit *test)
{
	const u8 *version = test->param_value;
	struct long_sec ls;
	int err;

	if (!long_sec_make(test, &ls, *version, true))
		return;
	ls.sec.fre_index = NULL;
	err = sfu_sframe_fre_index_build(&ls.sec, ls.index, ls.index_size - 1, NULL);
	KUNIT_EXPECT_EQ(test, err, -SFRAME_E_TOO_BIG);
	KUNIT_EXPECT_NULL(test, ls.sec.fre_index);
	long_sec_free(&ls);
}

static void long_section_rewritten_after_indexing_stays_bounded(struct kunit *test)
{
	const struct sframe_long_mutation *m = test->param_value;
	struct sframe_long_result res;
	struct long_sec ls;
	unsigned int i;
	u64 lo, hi;

	sframe_long_text(&lo, &hi);
	for (i = 0; i < ARRAY_SIZE(long_versions); i++) {
		if (!long_sec_make(test, &ls, long_versions[i], true))
			return;
		/* The index of the bytes validated, over bytes changed since. */
		m->apply(ls.buf, ls.len, long_versions[i]);
		sframe_long_check_bounded(&ls.sec, lo, hi, 1, &res);
		expect_none_wrong(test, &res, m->name);
		long_sec_free(&ls);
	}
}

static void long_section_in_user_memory_through_the_index(struct kunit *test)
{
	const u8 *version = test->param_value;
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_USER };
	struct sframe_long_result res = {}, res_nofault = {};
	int valid_err = -1, index_err = -1;
	struct sfu_sframe_section sec;
	struct sfu_user_ctx ctx;
	size_t bytes = 0;
	void *index = NULL;
	struct long_sec ls;
	u64 lo, hi;

	if (!long_sec_make(test, &ls, *version, false))
		return;
	sframe_long_text(&lo, &hi);
	if (!sfu_user_begin(test, &ctx)) {
		long_sec_free(&ls);
		return;
	}
	r.uaddr = sfu_user_place(&ctx, ls.buf, ls.len);
	r.size = ls.len;
	if (r.uaddr && !sfu_sframe_section_init(&sec, &r, ls.vaddr, SFRAME_ABI_AMD64_ENDIAN_LITTLE))
		valid_err = sfu_sframe_section_validate(&sec);
	if (!valid_err && !sfu_sframe_fre_index_size(&sec, &bytes) && bytes)
		index = kvmalloc(bytes, GFP_KERNEL);
	if (index)
		index_err = sfu_sframe_fre_index_build(&sec, index, bytes, NULL);
	if (!index_err) {
		sframe_long_check(&sec, lo, hi, 7, &res);
		/* Every page has been touched now: no-fault reads must agree. */
		sec.reader.kind = SFRAME_READER_USER_NOFAULT;
		sframe_long_check(&sec, lo, hi, 7, &res_nofault);
	}
	sfu_user_end(&ctx);
	kvfree(index);
	long_sec_free(&ls);

	KUNIT_EXPECT_EQ(test, valid_err, 0);
	KUNIT_EXPECT_EQ(test, index_err, 0);
	KUNIT_EXPECT_GT(test, res.pcs, 0ULL);
	expect_none_wrong(test, &res, "user");
	expect_none_wrong(test, &res_nofault, "user, no-fault");
}

/* Marked functions of @ls, validated per function. */
static unsigned int long_checked(const struct long_sec *ls)
{
	unsigned int i, n = 0;

	for (i = 0; i < ls->sec.num_fdes; i++)
		n += !!ls->sec.fde_checked[i];
	return n;
}

/*
 * A section validated per function (as a sidecar's kernel copy is): its
 * FDEs now, the long function's FREs with the index, which marks it,
 * every other function's on its first lookup, and every PC the model's
 * row.  No lookup without the bytes that record what was checked.  A
 * short function whose FREs are out of order fails its own lookups and
 * stays unmarked, the others give their rows; validated whole, the same
 * bytes are refused.
 */
static void long_section_validated_per_function(struct kunit *test)
{
	const u8 *version = test->param_value;
	struct sframe_long_result res;
	struct sfu_sframe_row row;
	struct sfu_sframe_section uncounted;
	struct sfu_sframe_fde fde;
	unsigned int fn, longer, first = ~0U, end = 0, bad = ~0U;
	struct long_sec ls;
	u64 lo, hi, pos;
	size_t bytes;
	int err;

	if (!long_sec_make(test, &ls, *version, false))
		return;
	KUNIT_ASSERT_EQ(test, sfu_sframe_section_validate_fdes(&ls.sec), 0);
	KUNIT_EXPECT_TRUE(test, ls.sec.lazy);
	KUNIT_EXPECT_EQ(test, sfu_sframe_find_row(&ls.sec, sframe_long_pc(0, 0), &row),
			-SFRAME_E_NO_INDEX);
	/* The walk counted what the index takes: what a count of its own finds. */
	KUNIT_EXPECT_TRUE(test, ls.sec.ix_counted);
	uncounted = ls.sec;
	uncounted.ix_counted = false;
	KUNIT_ASSERT_EQ(test, sfu_sframe_fre_index_size(&uncounted, &bytes), 0);
	KUNIT_ASSERT_EQ(test, sfu_sframe_fre_index_size(&ls.sec, &ls.index_size), 0);
	KUNIT_EXPECT_EQ(test, ls.index_size, bytes);
	ls.index = kvzalloc(ls.index_size + ls.sec.num_fdes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ls.index);
	KUNIT_EXPECT_EQ(test, sfu_sframe_fre_index_build(&ls.sec, ls.index, ls.index_size, NULL),
			-SFRAME_E_NO_INDEX);
	KUNIT_ASSERT_EQ(test, sfu_sframe_fre_index_build(&ls.sec, ls.index, ls.index_size,
							 (u8 *)ls.index + ls.index_size), 0);
	/* The functions the index covers, and only those. */
	for (fn = 0, longer = 0; fn < sframe_long_num_fns(); fn++) {
		bool indexed = sframe_long_fres(fn) > SFRAME_FRE_INDEX_STRIDE;

		longer += indexed;
		if (indexed) {
			first = min(first, fn);
			end = fn + 1;
		}
		KUNIT_EXPECT_EQ_MSG(test, ls.sec.fde_checked[fn], indexed, "function %u", fn);
	}
	KUNIT_EXPECT_GE(test, longer, 1U);
	KUNIT_EXPECT_EQ(test, ls.sec.ix.fdes, longer);
	KUNIT_EXPECT_EQ(test, ls.sec.ix.first, first);
	KUNIT_EXPECT_EQ(test, ls.sec.ix.end, end);
	KUNIT_EXPECT_EQ(test, long_checked(&ls), longer);

	/* A short function of two rows or more: checked and marked on its first lookup. */
	for (fn = 0; fn < sframe_long_num_fns() && bad == ~0U; fn++)
		if (fn != SFRAME_LONG_FDE && sframe_long_fres(fn) >= 2 &&
		    sframe_long_fres(fn) <= SFRAME_FRE_INDEX_STRIDE)
			bad = fn;
	KUNIT_ASSERT_NE(test, bad, ~0U);
	expect_model_row(test, &ls.sec, sframe_long_pc(bad, 1));
	KUNIT_EXPECT_EQ(test, long_checked(&ls), longer + 1);
	KUNIT_EXPECT_EQ(test, ls.sec.fde_checked[bad], 1);
	sframe_long_text(&lo, &hi);
	sframe_long_check(&ls.sec, lo, hi, 1, &res);
	expect_none_wrong(test, &res, "validated per function");

	/* Its second FRE made to start where its first does. */
	KUNIT_ASSERT_EQ(test, sfu_sframe_fde_get(&ls.sec, bad, &fde), 0);
	pos = fde.fres_off;
	KUNIT_ASSERT_EQ(test, sfu_sframe_fre_next(&ls.sec, &fde, &pos, &row), 0);
	memset(ls.buf + pos, 0, 1U << fde.fre_type);
	KUNIT_EXPECT_EQ(test, sfu_sframe_section_validate(&ls.sec), -SFRAME_E_FRE_ORDER);
	/* What was checked is forgotten but the functions checked with the index. */
	for (fn = 0; fn < sframe_long_num_fns(); fn++)
		ls.sec.fde_checked[fn] = sframe_long_fres(fn) > SFRAME_FRE_INDEX_STRIDE;
	err = sfu_sframe_find_row(&ls.sec, sframe_long_pc(bad, 0), &row);
	KUNIT_EXPECT_EQ(test, err, -SFRAME_E_FRE_ORDER);
	KUNIT_EXPECT_EQ(test, ls.sec.fde_checked[bad], 0);
	for (fn = 0; fn < sframe_long_num_fns(); fn++)
		if (fn != bad && sframe_long_fres(fn))
			expect_model_row(test, &ls.sec, sframe_long_pc(fn, 0));
	KUNIT_EXPECT_EQ(test, ls.sec.fde_checked[bad], 0);
	long_sec_free(&ls);
}

/* The fixtures, real toolchains' sections, need no index: their functions are short. */
static void real_sections_need_no_index(struct kunit *test)
{
	const struct sframe_fixture *fx;
	struct sfu_sframe_section sec;
	unsigned long needing = 0;
	size_t bytes;
	u8 mem[64];

	for (fx = sframe_fixtures; fx < sframe_fixtures + sframe_num_fixtures; fx++) {
		struct sfu_sframe_reader r = {
			.kind = SFRAME_READER_BUFFER, .buf = fx->data, .size = fx->size,
		};

		if (sfu_sframe_section_init(&sec, &r, fx->vaddr, fx->abi) ||
		    sfu_sframe_fre_index_size(&sec, &bytes)) {
			KUNIT_FAIL(test, "%s: refused", fx->name);
			continue;
		}
		needing += bytes != 0;
		KUNIT_EXPECT_EQ(test, sfu_sframe_fre_index_build(&sec, mem, sizeof(mem), NULL), 0);
		KUNIT_EXPECT_NULL(test, sec.fre_index);
	}
	KUNIT_EXPECT_EQ(test, needing, 0UL);
}

static struct kunit_case sframe_long_cases[] = {
	KUNIT_CASE_PARAM(long_function_rows_through_the_index, long_version_params),
	KUNIT_CASE_PARAM(long_function_without_the_index_is_refused, long_version_params),
	KUNIT_CASE_PARAM(index_in_too_little_memory_is_refused, long_version_params),
	KUNIT_CASE_PARAM(long_section_rewritten_after_indexing_stays_bounded,
			 long_mutation_params),
	KUNIT_CASE_PARAM(long_section_in_user_memory_through_the_index, long_version_params),
	KUNIT_CASE_PARAM(long_section_validated_per_function, long_version_params),
	KUNIT_CASE(real_sections_need_no_index),
	{}
};

static int sframe_long_suite_init(struct kunit_suite *suite)
{
	return sfu_kunit_mm_get();
}

static void sframe_long_suite_exit(struct kunit_suite *suite)
{
	sfu_kunit_mm_put();
}

static struct kunit_suite sframe_long_suite = {
	.name = "sframe_long",
	.suite_init = sframe_long_suite_init,
	.suite_exit = sframe_long_suite_exit,
	.test_cases = sframe_long_cases,
};

kunit_test_suites(&sframe_long_suite);
