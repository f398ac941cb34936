// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the SFrame decoder: the input is a section.  For a
 * few mapping addresses and both ABIs it runs init, validate, the FRE
 * index build, a dump-style walk of every FDE and FRE, and lookups of PCs
 * around each function with the index and without, and traps when a
 * property the kernel relies on breaks:
 *  - a row found for a PC covers the PC and lies inside its function;
 *  - formatted rows fit SFRAME_ROW_FORMAT_MAX;
 *  - no lookup reads more than SFRAME_FRE_SCAN_MAX FREs;
 *  - a section that validated gets its FRE index, and a lookup with it
 *    gives a row or NO_FDE/NO_FRE, never a data error (without it, also
 *    NO_INDEX).
 * The index is built for sections that do not validate too, when it can
 * be, so that lookups with an index that does not fit the bytes are
 * fuzzed as well.  Memory errors are the sanitizers' business.
 */
#include <stddef.h>

#include <linux/types.h>
#include <linux/kernel.h>

#include "sframe/sframe.h"
#include "tools/sframe_user.h"

static const u64 fuzz_vaddrs[] = {
	0x21b0, 0x47d500, 0x7ffff7dd0000ULL, 0xfffffffffffff000ULL,
};

static const int fuzz_abis[] = {
	SFRAME_ABI_AMD64_ENDIAN_LITTLE, SFRAME_ABI_AARCH64_ENDIAN_LITTLE,
};

static void fuzz_lookup(const struct sfu_sframe_section *sec, u64 pc, bool valid)
{
	char text[SFRAME_ROW_FORMAT_MAX];
	struct sfu_sframe_row row;
	u32 fres;
	int err;

	err = sfu_sframe_find_row_counted(sec, pc, &row, &fres);
	if (fres > SFRAME_FRE_SCAN_MAX)
		__builtin_trap();
	if (err) {
		if (valid && err != -SFRAME_E_NO_FDE && err != -SFRAME_E_NO_FRE &&
		    (sec->fre_index || err != -SFRAME_E_NO_INDEX))
			__builtin_trap();
		return;
	}
	if (pc < row.start || pc >= row.end || row.start < row.func_start ||
	    row.end - row.func_start > row.func_size)
		__builtin_trap();
	if (sfu_sframe_row_format(&row, text, sizeof(text)) >= (int)sizeof(text))
		__builtin_trap();
}

static void fuzz_lookups(const struct sfu_sframe_section *sec, bool valid)
{
	struct sfu_sframe_row row;
	struct sfu_sframe_fde fde;
	u32 i, j;
	u64 pos;

	fuzz_lookup(sec, 0, valid);
	fuzz_lookup(sec, ~0ULL, valid);
	fuzz_lookup(sec, sec->vaddr, valid);
	for (i = 0; i < sec->num_fdes && i < 64; i++) {
		if (sfu_sframe_fde_get(sec, i, &fde))
			continue;
		fuzz_lookup(sec, fde.func_start - 1, valid);
		fuzz_lookup(sec, fde.func_start, valid);
		fuzz_lookup(sec, fde.func_start + fde.func_size / 2, valid);
		fuzz_lookup(sec, fde.func_start + fde.func_size - 1, valid);
		fuzz_lookup(sec, fde.func_start + fde.func_size, valid);

		pos = fde.fres_off;
		for (j = 0; j < fde.num_fres && j < 256; j++) {
			if (sfu_sframe_fre_next(sec, &fde, &pos, &row))
				break;
			fuzz_lookup(sec, row.start, valid);
		}
	}
}

static void fuzz_section(struct sfu_sframe_section *sec)
{
	bool valid = !sfu_sframe_section_validate(sec);
	int err;

	fuzz_lookups(sec, valid);
	err = sfu_sframe_fre_index_alloc(sec);
	if (valid && err)
		__builtin_trap();
	if (!err && sec->fre_index) {
		fuzz_lookups(sec, valid);
		sfu_sframe_fre_index_free(sec);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct sfu_sframe_reader r = {
		.kind = SFRAME_READER_BUFFER,
		.buf = data,
		.size = size,
	};
	struct sfu_sframe_section sec;
	unsigned int v, a;

	for (v = 0; v < ARRAY_SIZE(fuzz_vaddrs); v++) {
		for (a = 0; a < ARRAY_SIZE(fuzz_abis); a++) {
			if (sfu_sframe_section_init(&sec, &r, fuzz_vaddrs[v], fuzz_abis[a]))
				continue;
			fuzz_section(&sec);
		}
	}
	return 0;
}
