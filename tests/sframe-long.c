// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-long - the FRE index in userspace, on the sections of
 * tests/sframe_long.c (a function of 60000 rows among shorter ones), V2
 * and V3; the KUnit suite sframe_long runs the same checks in the kernel.
 *
 *   without index    every PC of the short functions gives the model's
 *                    row; every PC of a function of more than 32 rows
 *                    gives NO_INDEX, with no FRE read
 *   index            sfu_sframe_fre_index_size() and _build(); a buffer
 *                    one byte short is refused (TOO_BIG)
 *   every PC         with the index, every PC from before the first
 *                    function to after the last gives the model's row
 *                    (or NO_FDE between functions), and the most FREs one
 *                    lookup read is exactly SFRAME_FRE_SCAN_MAX (33)
 *   rewritten        the section rewritten after indexing (marks' starts
 *                    moved, FREs grown or shifted under the marks, counts
 *                    cut or raised, FDEs swapped, random bytes): every PC
 *                    gives an error or a row that covers it inside its
 *                    function, reading at most 33 FREs; sanitizers catch
 *                    any read outside the section
 *
 * Prints one PASS/FAIL line per check, figures indented below; exits
 * non-zero if any check failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframe/sframe.h"
#include "tools/sframe_user.h"
#include "sframe_long.h"

static unsigned int failed;

static void verdict(bool ok, u8 version, const char *what, const struct sframe_long_result *res)
{
	printf("%s long/v%u/%s", ok ? "PASS" : "FAIL", version, what);
	if (res && res->wrong)
		printf(": %llu of %llu PCs wrong, the first %#llx (%s)", res->wrong, res->pcs,
		       res->bad_pc, sfu_sframe_strerror(res->bad_err));
	printf("\n");
	failed += !ok;
}

/* A section over an exact-size heap copy of @buf, so that sanitizers see any overread. */
static u8 *section_over(const u8 *buf, size_t len, u64 vaddr, struct sfu_sframe_section *sec)
{
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_BUFFER, .size = len };
	u8 *copy = malloc(len);

	if (!copy)
		exit(2);
	memcpy(copy, buf, len);
	r.buf = copy;
	if (sfu_sframe_section_init(sec, &r, vaddr, SFRAME_ABI_AMD64_ENDIAN_LITTLE)) {
		free(copy);
		return NULL;
	}
	return copy;
}

static void run(u8 version)
{
	size_t len = sframe_long_size(version), bytes = 0;
	struct sfu_sframe_section sec, bent;
	struct sframe_long_result res;
	u64 vaddr, lo, hi, fres = 0;
	u8 *buf, *copy, *mem;
	unsigned int i;
	bool ok;
	int err;

	buf = malloc(len);
	if (!buf || sframe_long_build(buf, len, version, &vaddr) != len)
		exit(2);
	copy = section_over(buf, len, vaddr, &sec);
	ok = copy && !sfu_sframe_section_validate(&sec);
	verdict(ok, version, "validates", NULL);
	if (!ok)
		return;
	sframe_long_text(&lo, &hi);
	for (i = 0; i < sframe_long_num_fns(); i++)
		fres += sframe_long_fres(i);

	sframe_long_check_unindexed(&sec, lo, hi, 1, &res);
	verdict(!res.wrong && res.pcs > 2 * SFRAME_LONG_ROWS, version,
		"without-index-long-functions-give-no-index", &res);

	err = sfu_sframe_fre_index_size(&sec, &bytes);
	mem = malloc(bytes ? bytes : 1);
	if (!mem)
		exit(2);
	ok = !err && bytes &&
	     sfu_sframe_fre_index_build(&sec, mem, bytes - 1, NULL) == -SFRAME_E_TOO_BIG &&
	     !sec.fre_index;
	verdict(ok, version, "index-in-too-little-memory-is-refused", NULL);
	ok = !err && !sfu_sframe_fre_index_build(&sec, mem, bytes, NULL) &&
	     sec.fre_index == (void *)mem;
	verdict(ok, version, "index-builds", NULL);
	if (!ok)
		return;
	printf("  index: %zu bytes, %u functions, %u marks, for %llu FREs", bytes,
	       sec.fre_index->nr_fdes, sec.fre_index->nr_marks, fres);
	printf(" in %zu bytes of section (%.3f bytes per FRE)\n", len, (double)bytes / fres);

	sframe_long_check(&sec, lo, hi, 1, &res);
	verdict(!res.wrong && res.max_fres == SFRAME_FRE_SCAN_MAX, version,
		"every-pc-gives-the-model-row-reading-at-most-33-fres", &res);
	printf("  %llu PCs, at most %u FREs read by one lookup (the long function has %u)\n",
	       res.pcs, res.max_fres, SFRAME_LONG_ROWS);

	for (i = 0; i < sframe_long_num_mutations; i++) {
		const struct sframe_long_mutation *m = &sframe_long_mutations[i];
		char name[96];
		u8 *b;

		b = section_over(buf, len, vaddr, &bent);
		if (!b)
			exit(2);
		/* The index of the bytes validated, over bytes changed since. */
		bent.fre_index = sec.fre_index;
		m->apply(b, len, version);
		sframe_long_check_bounded(&bent, lo, hi, 1, &res);
		snprintf(name, sizeof(name), "rewritten-%s-stays-bounded", m->name);
		verdict(!res.wrong && res.max_fres <= SFRAME_FRE_SCAN_MAX, version, name, &res);
		printf("  %llu PCs, %llu refused, at most %u FREs read\n", res.pcs, res.refused,
		       res.max_fres);
		free(b);
	}

	free(mem);
	free(copy);
	free(buf);
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: sframe-long\n");
		return 2;
	}
	run(SFRAME_VERSION_2);
	run(SFRAME_VERSION_3);
	return failed ? 1 : 0;
}
