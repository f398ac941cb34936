// SPDX-License-Identifier: GPL-2.0
/*
 * The one walk over a fixture's expected rows that the decoder's and the
 * registry's suites share: every PC of every range, through whichever
 * lookup the case tests; and the registry's lookup as its suites make it,
 * through the product's one path.
 */
#include <linux/cred.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "sframe_unwind/registry.h"
#include "registry/internal.h"
#include "registry/sframe_rules.h"
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

/**
 * sfu_kunit_lookup() - one lookup in the current mm, as the unwinder makes it
 * @pc: the user address
 * @nofault: as for sfu_lookup_rules()
 * @rules: filled in on success
 * @uncovered: if not NULL, set to sfu_lookup_uncovered(): @pc lay in a
 *	section's text that no function of it covers
 *
 * A series of one lookup through sfu_lookup_rules(), the registry's one
 * lookup path.
 *
 * Return: what sfu_lookup_rules() returns.
 */
int sfu_kunit_lookup(unsigned long pc, bool nofault, struct sfu_frame_rules *rules,
		     bool *uncovered)
{
	struct sfu_lookup c;
	int err;

	sfu_lookup_begin(&c, current->mm);
	err = sfu_lookup_rules(&c, pc, nofault, rules);
	if (uncovered)
		*uncovered = sfu_lookup_uncovered(&c);
	sfu_lookup_end(&c);
	return err;
}

/**
 * sfu_kunit_registry_sync() - what the current mm's registry gets on a return to user space
 * @tgid: the process the mm belongs to (shown in debugfs)
 *
 * A KUnit case runs in a kernel thread, which never returns to user space
 * to run the work the registry's hooks queue (and the hooks queue none
 * for a kernel thread): this runs the same, at once and over the whole
 * mm.  The re-check of stale sections against the VMAs, as after munmap or
 * mprotect (sfu_recheck()); then the scan of the executable mappings not
 * registered yet, as a forked child's and module load's (sfu_scan()).
 *
 * Context: task context, mmap_lock not held.
 * Return: the number of sections the current mm has registered afterwards.
 */
int sfu_kunit_registry_sync(pid_t tgid)
{
	struct sfu_mm *smm;

	sfu_recheck(current->mm, 0, ULONG_MAX);
	sfu_scan(current->mm, 0, TASK_SIZE, tgid, current_cred());
	smm = sfu_mm_lookup(current->mm);
	return smm ? atomic_read(&smm->nr_sections) : 0;
}

/**
 * sfu_kunit_lookup_err() - the registry's answer for a decoder's result
 * @sframe_err: 0 or a negative SFRAME_E_* code of the decoder
 *
 * Return: what sfu_lookup_rules() returns for a PC whose row the decoder
 * finds with @sframe_err.
 */
int sfu_kunit_lookup_err(int sframe_err)
{
	switch (sframe_err) {
	case 0:
		return 0;
	case -SFRAME_E_NO_FDE:
	case -SFRAME_E_NO_FRE:
		return -ENOENT;
	case -SFRAME_E_FAULT:
		return -EFAULT;
	case -SFRAME_E_NO_INDEX:
		return -E2BIG;
	default:
		return -EBADMSG;
	}
}

/*
 * The rules the registry must give at @pc, which @fr says has a row:
 * objdump's row, as the decoder reads it in @ref and the registry converts
 * it.  False (reported, if @report) when the decoder does not read that row.
 */
static bool fixture_rules(struct kunit *test, const char *how, bool report,
			  const struct sfu_sframe_section *ref,
			  const struct sframe_fixture_range *fr, u64 pc,
			  struct sfu_frame_rules *rules)
{
	char text[SFRAME_ROW_FORMAT_MAX] = "";
	struct sfu_sframe_row row;
	int err;

	err = sfu_sframe_find_row(ref, pc, &row);
	if (!err)
		sfu_sframe_row_format(&row, text, sizeof(text));
	if (err || strcmp(text, fr->row)) {
		if (report)
			KUNIT_FAIL(test, "%s: pc %#llx: decoder's row %s \"%s\", objdump's \"%s\"",
				   how, pc, sfu_sframe_strerror(err), text, fr->row);
		return false;
	}
	sfu_sframe_rules(&row, rules);
	return true;
}

/**
 * sfu_kunit_check_rules() - compare a registry lookup with the expected rows
 * @test: the case; the first mismatch is reported with KUNIT_FAIL()
 * @fx: the fixture
 * @how: what is being checked, for the message
 * @lookup: the lookup, given link-time PCs
 * @arg: passed to @lookup
 * @from: first link-time PC to check
 * @to: PC after the last one to check
 * @expect_rows: true to expect the fixture's rows; false to expect no rules
 *	anywhere (nothing registered)
 * @pcs: if not NULL, set to the number of PCs checked
 *
 * The registry answers with rules: at each PC, @lookup must give the rules
 * of objdump's row there, as the registry converts a row
 * (sfu_sframe_rules()), or the registry's error for objdump's; the row is
 * the decoder's over the fixture's bytes, checked against objdump's text
 * first.  Safe between sfu_user_begin() and sfu_user_end(): it never
 * aborts.
 *
 * Return: the number of PCs whose result differs.
 */
unsigned long sfu_kunit_check_rules(struct kunit *test, const struct sframe_fixture *fx,
				    const char *how, sfu_kunit_rules_t lookup, void *arg,
				    u64 from, u64 to, bool expect_rows, unsigned long *pcs)
{
	struct sfu_sframe_reader r = {
		.kind = SFRAME_READER_BUFFER, .buf = fx->data, .size = fx->size,
	};
	struct sfu_frame_rules got, want = {};
	unsigned long bad = 0, n = 0;
	struct sfu_sframe_section ref;
	int err, want_err;
	u32 i;
	u64 pc;

	err = sfu_sframe_section_init(&ref, &r, fx->vaddr, fx->abi);
	if (!err)
		err = sfu_sframe_section_validate(&ref);
	if (err) {
		KUNIT_FAIL(test, "%s: the fixture's section: %s", how, sfu_sframe_strerror(err));
		return 1;
	}
	for (i = 0; i < fx->num_ranges; i++) {
		const struct sframe_fixture_range *fr = &fx->ranges[i];
		int sframe_err = expect_rows ? fr->err : -SFRAME_E_NO_FDE;

		want_err = sfu_kunit_lookup_err(sframe_err);
		for (pc = max(fr->lo, from); pc < min(fr->hi, to); pc++, n++) {
			if (!sframe_err && !fixture_rules(test, how, !bad, &ref, fr, pc, &want)) {
				bad++;
				continue;
			}
			memset(&got, 0, sizeof(got));
			err = lookup(arg, pc, &got);
			if (err == want_err && (err || !memcmp(&got, &want, sizeof(got))))
				continue;
			if (!bad++)
				KUNIT_FAIL(test, "%s: pc %#llx: got %d%s, want %d (%s \"%s\")", how,
					   pc, err, !err && !want_err ? " with other rules" : "",
					   want_err, sfu_sframe_strerror(sframe_err),
					   sframe_err ? "" : fr->row);
		}
	}
	if (pcs)
		*pcs = n;
	return bad;
}

/* How sfu_kunit_check_registry() looks rules up. */
struct sfu_kunit_registry_arg {
	long bias;	/* user address minus link-time address */
	bool nofault;	/* the no-fault reader */
};

static int sfu_kunit_registry_rules(void *arg, u64 pc, struct sfu_frame_rules *rules)
{
	const struct sfu_kunit_registry_arg *a = arg;

	return sfu_kunit_lookup(pc + a->bias, a->nofault, rules, NULL);
}

/**
 * sfu_kunit_check_registry() - a fixture's rows through the registry's lookup
 * @test: the test case
 * @fx: the fixture, mapped in the current mm
 * @how: a label for the messages
 * @bias: user address minus link-time address
 * @nofault: as for sfu_lookup_rules()
 * @from: the first link-time PC to check
 * @to: the last
 * @expect_rows: as for sfu_kunit_check_rules()
 *
 * sfu_kunit_check_rules() with sfu_kunit_lookup() at every PC, biased.
 *
 * Return: the mismatches.
 */
unsigned long sfu_kunit_check_registry(struct kunit *test, const struct sframe_fixture *fx,
				       const char *how, long bias, bool nofault, u64 from, u64 to,
				       bool expect_rows)
{
	struct sfu_kunit_registry_arg a = { .bias = bias, .nofault = nofault };

	return sfu_kunit_check_rules(test, fx, how, sfu_kunit_registry_rules, &a, from, to,
				     expect_rows, NULL);
}
