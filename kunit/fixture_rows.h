/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Check a lookup against a fixture's expected rows (objdump's) at every PC;
 * the registry's lookup as its suites make it.
 */
#ifndef _SFU_KUNIT_FIXTURE_ROWS_H
#define _SFU_KUNIT_FIXTURE_ROWS_H

#include <kunit/test.h>

struct sframe_fixture;
struct sfu_frame_rules;
struct sfu_sframe_row;

/* Looks up the row of link-time @pc; 0 or a negative SFRAME_E_* code. */
typedef int (*sfu_kunit_lookup_t)(void *arg, u64 pc, struct sfu_sframe_row *row);
/* Looks up the rules of link-time @pc in the registry; sfu_lookup_rules()'s result. */
typedef int (*sfu_kunit_rules_t)(void *arg, u64 pc, struct sfu_frame_rules *rules);

bool sfu_kunit_fixture_native(const struct sframe_fixture *fx);
const void *sfu_kunit_native_fixture_gen(const void *prev, char *desc);

unsigned long sfu_kunit_check_rows(struct kunit *test, const struct sframe_fixture *fx,
				   const char *how, sfu_kunit_lookup_t lookup, void *arg,
				   u64 from, u64 to, bool expect_rows, unsigned long *pcs);

int sfu_kunit_lookup(unsigned long pc, bool nofault, struct sfu_frame_rules *rules,
		     bool *uncovered);
int sfu_kunit_lookup_err(int sframe_err);
int sfu_kunit_registry_sync(pid_t tgid);
unsigned long sfu_kunit_check_rules(struct kunit *test, const struct sframe_fixture *fx,
				    const char *how, sfu_kunit_rules_t lookup, void *arg,
				    u64 from, u64 to, bool expect_rows, unsigned long *pcs);
unsigned long sfu_kunit_check_registry(struct kunit *test, const struct sframe_fixture *fx,
				       const char *how, long bias, bool nofault, u64 from, u64 to,
				       bool expect_rows);

#endif /* _SFU_KUNIT_FIXTURE_ROWS_H */
