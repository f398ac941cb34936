// SPDX-License-Identifier: GPL-2.0
/*
 * The one walk over a fixture's expected rows that the decoder's and the
 * registry's suites share: every PC of every range, through whichever
 * lookup the case tests.
 */
#include "sframe/sframe.h"
#include "tests/gen/sframe_fixtures.h"
#include "fixture_rows.h"

/**
 * sfu_kunit_fixture_native() - is @fx of this kernel's native ABI?
 * @fx: the fixture
 *
 * Return: true for the only kind of section the registry accepts here.
 */
bool sfu_kunit_fixture_native(const struct sframe_fixture *fx)
{
	return IS_ENABLED(CONFIG_X86_64) ? fx->abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE :
					   fx->abi == SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
}

/**
 * sfu_kunit_native_fixture_gen() - KUnit parameters: every native fixture
 * @prev: the previous fixture, or NULL for the first
 * @desc: set to the fixture's name
 *
 * Return: the next native fixture, or NULL after the last.
 */
const void *sfu_kunit_native_fixture_gen(const void *prev, char *desc)
{
	const struct sframe_fixture *fx = prev ? (const struct sframe_fixture *)prev + 1
					       : sframe_fixtures;

	for (; fx < sframe_fixtures + sframe_num_fixtures; fx++) {
		if (sfu_kunit_fixture_native(fx)) {
			snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", fx->name);
			return fx;
		}
	}
	return NULL;
}

/**
 * sfu_kunit_check_rows() - compare a lookup with the expected rows
 * @test: the case; the first mismatch is reported with KUNIT_FAIL()
 * @fx: the fixture
 * @how: what is being checked, for the message
 * @lookup: the lookup, given link-time PCs
 * @arg: passed to @lookup
 * @from: first link-time PC to check
 * @to: PC after the last one to check
 * @expect_rows: true to expect the fixture's rows; false to expect
 *	-SFRAME_E_NO_FDE everywhere (nothing registered)
 * @pcs: if not NULL, set to the number of PCs checked
 *
 * Safe between sfu_user_begin() and sfu_user_end(): it never aborts.
 *
 * Return: the number of PCs whose result differs.
 */
unsigned long sfu_kunit_check_rows(struct kunit *test, const struct sframe_fixture *fx,
				   const char *how, sfu_kunit_lookup_t lookup, void *arg,
				   u64 from, u64 to, bool expect_rows, unsigned long *pcs)
{
	char got[SFRAME_ROW_FORMAT_MAX];
	unsigned long bad = 0, n = 0;
	struct sfu_sframe_row row;
	u32 i;
	u64 pc;

	for (i = 0; i < fx->num_ranges; i++) {
		const struct sframe_fixture_range *r = &fx->ranges[i];
		int want = expect_rows ? r->err : -SFRAME_E_NO_FDE;

		for (pc = max(r->lo, from); pc < min(r->hi, to); pc++, n++) {
			int err = lookup(arg, pc, &row);

			got[0] = '\0';
			if (!err)
				sfu_sframe_row_format(&row, got, sizeof(got));
			if (err == want && (err || !strcmp(got, r->row)))
				continue;
			if (!bad++)
				KUNIT_FAIL(test, "%s: pc %#llx: got %s \"%s\", want %s \"%s\"",
					   how, pc, sfu_sframe_strerror(err), got,
					   sfu_sframe_strerror(want), want ? "" : r->row);
		}
	}
	if (pcs)
		*pcs = n;
	return bad;
}
