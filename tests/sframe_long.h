/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sections with functions of many FREs, for the FRE index: built in a
 * caller buffer from a model, checked PC by PC against that model, and
 * rewritten after the index was built.  Kernel-compatible (no libc, no
 * allocation), shared by the userspace runner (tests/sframe-long.c) and
 * the KUnit suite (kunit/sframe_long_kunit.c).
 */
#ifndef _SFRAME_LONG_H
#define _SFRAME_LONG_H

#include <linux/types.h>

#include "sframe/sframe.h"

/* FREs of the longest function: a lookup in it must not scan them all. */
#define SFRAME_LONG_ROWS	60000
/* Its index in the FDE array. */
#define SFRAME_LONG_FDE		4

/**
 * struct sframe_long_result - what looking up a range of PCs gave
 * @pcs: PCs looked up
 * @wrong: results other than the model's (sframe_long_check()), or rows
 *         that break the lookup's promises (sframe_long_check_bounded())
 * @refused: lookups that failed (sframe_long_check_bounded())
 * @max_fres: the most FREs one lookup read
 * @bad_pc: the first wrong PC
 * @bad_err: what its lookup returned
 */
struct sframe_long_result {
	u64 pcs;
	u64 wrong;
	u64 refused;
	u32 max_fres;
	u64 bad_pc;
	int bad_err;
};

/**
 * struct sframe_long_mutation - a rewrite of the section after indexing
 * @name: what it does, as a name
 * @apply: rewrites @buf (@len bytes, of @version)
 */
struct sframe_long_mutation {
	const char *name;
	void (*apply)(u8 *buf, size_t len, u8 version);
};

extern const struct sframe_long_mutation sframe_long_mutations[];
extern const unsigned int sframe_long_num_mutations;

size_t sframe_long_size(u8 version);
size_t sframe_long_build(u8 *buf, size_t cap, u8 version, u64 *vaddr);
u32 sframe_long_fres(unsigned int fn);
unsigned int sframe_long_num_fns(void);
u64 sframe_long_pc(unsigned int fn, u32 fre);
void sframe_long_check(const struct sfu_sframe_section *sec, u64 lo, u64 hi, u32 step,
		       struct sframe_long_result *res);
void sframe_long_check_unindexed(const struct sfu_sframe_section *sec, u64 lo, u64 hi, u32 step,
				 struct sframe_long_result *res);
void sframe_long_check_bounded(const struct sfu_sframe_section *sec, u64 lo, u64 hi, u32 step,
			       struct sframe_long_result *res);
void sframe_long_text(u64 *lo, u64 *hi);

#endif /* _SFRAME_LONG_H */
