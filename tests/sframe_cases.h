/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hostile-input cases for the SFrame decoder, shared by the userspace
 * runner (tests/sframe-hostile.c) and the KUnit suites.  Kernel-compatible:
 * no libc, no allocation; a case builds its section into a caller buffer,
 * from scratch or by mutating a real fixture (tests/gen/sframe_fixtures.c).
 */
#ifndef _SFRAME_CASES_H
#define _SFRAME_CASES_H

#include <linux/types.h>

#include "sframe/sframe.h"

/* Big enough for every case's section. */
#define SFRAME_CASE_BUF_SIZE	4096

/* The API stage a case exercises; the stages before it must succeed. */
enum sframe_case_stage {
	SFRAME_CASE_INIT,	/* sfu_sframe_section_init() */
	SFRAME_CASE_VALIDATE,	/* then sfu_sframe_section_validate() */
	SFRAME_CASE_FIND,	/* then sfu_sframe_find_row(pc) */
	SFRAME_CASE_FIND_RAW,	/* sfu_sframe_find_row(pc) right after init, no validation */
};

/**
 * struct sframe_case - one hostile (or borderline valid) input
 * @name: what it tests, as a sentence
 * @stage: enum sframe_case_stage
 * @abi: expected_abi passed to sfu_sframe_section_init()
 * @expect: 0 or -SFRAME_E_xxx from @stage
 * @pc: address looked up by the find stages
 * @row: expected sfu_sframe_row_format() text when a find stage expects 0
 * @reader: enum sfu_sframe_reader_kind used (user kinds read address 0)
 * @reader_size: if non-zero, the reader claims this size instead of the
 *               built length (only for cases refused before any read)
 * @build: writes the section into @buf (at most @cap bytes), sets *@vaddr,
 *         returns its length (0: did not fit)
 * @after_validate: if set, rewrites the section after validation succeeded
 *                  and before the lookup (user memory can change any time)
 */
struct sframe_case {
	const char *name;
	u8 stage;
	int abi;
	int expect;
	u64 pc;
	const char *row;
	u8 reader;
	u64 reader_size;
	size_t (*build)(u8 *buf, size_t cap, u64 *vaddr);
	void (*after_validate)(u8 *buf, size_t len);
};

/**
 * struct sframe_case_result - what running a case gave
 * @stage: the stage that produced @err (earlier than the case's stage if
 *         that one failed)
 * @err: 0 or -SFRAME_E_xxx
 * @row: formatted row if a lookup succeeded, else empty
 */
struct sframe_case_result {
	int stage;
	int err;
	char row[SFRAME_ROW_FORMAT_MAX];
};

extern const struct sframe_case sframe_cases[];
extern const unsigned int sframe_num_cases;

size_t sframe_case_build(const struct sframe_case *c, u8 *buf, size_t cap, u64 *vaddr);
void sframe_case_run(const struct sframe_case *c, u8 *buf, size_t len, u64 vaddr,
		     struct sframe_case_result *res);
bool sframe_case_passed(const struct sframe_case *c, const struct sframe_case_result *res);

#endif /* _SFRAME_CASES_H */
