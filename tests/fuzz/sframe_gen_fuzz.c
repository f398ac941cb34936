// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for sframe-gen's input side: the input is an ELF file
 * (headers, .eh_frame, .debug_frame and all).  It goes through elf_memory()
 * and sfg_convert() exactly as a file would, and traps when a property of
 * the output breaks:
 *  - a section that sfg_convert() hands out validates with the project's
 *    decoder, for the ABI it claims, and every FRE of it decodes;
 *  - the coverage figures add up: covered plus uncovered bytes are the
 *    text bytes, and covered bytes never exceed them;
 *  - with SFG_COMPLEMENT: no FDE of the output shares a byte with an FDE
 *    of the file's own SFrame section, the bytes the own section covers
 *    add up with the rest, an own section the decoder refuses is an
 *    error, and a file without one gives the same bytes as without the
 *    flag.
 * Crashes, leaks and hangs are the sanitizers' and libFuzzer's business.
 */
#include <stdlib.h>
#include <string.h>

#include <libelf.h>
#include <linux/types.h>
#include <linux/kernel.h>

#include "sframe/sframe.h"
#include "tools/sframe_gen.h"
#include "tools/sframe_user.h"

static void fuzz_check_output(const struct sfg_output *out)
{
	struct sfu_sframe_reader r = {
		.kind = SFRAME_READER_BUFFER,
		.buf = out->buf,
		.size = out->len,
	};
	const struct sfg_stats *st = &out->stats;
	struct sfu_sframe_section sec;
	struct sfu_sframe_row row;
	struct sfu_sframe_fde fde;
	u64 sum = st->covered_bytes + st->own_covered_bytes, pos;
	u32 i, j;
	int k;

	for (k = 0; k < SFG_REASON_NR; k++)
		sum += st->uncovered[k];
	if (sum != st->text_bytes || st->covered_bytes + st->own_covered_bytes > st->text_bytes)
		__builtin_trap();
	if (st->sframe_bytes != out->len)
		__builtin_trap();

	if (sfu_sframe_section_init(&sec, &r, 0, out->abi) || sfu_sframe_section_validate(&sec) ||
	    sfu_sframe_fre_index_alloc(&sec))
		__builtin_trap();
	if (sec.version != SFRAME_VERSION_3 || sec.num_fdes != st->fdes || sec.num_fres != st->fres)
		__builtin_trap();
	for (i = 0; i < sec.num_fdes; i++) {
		if (sfu_sframe_fde_get(&sec, i, &fde))
			__builtin_trap();
		pos = fde.fres_off;
		for (j = 0; j < fde.num_fres; j++)
			if (sfu_sframe_fre_next(&sec, &fde, &pos, &row))
				__builtin_trap();
		if (fde.func_size && sfu_sframe_find_row(&sec, fde.func_start, &row))
			__builtin_trap();
	}
	sfu_sframe_fre_index_free(&sec);
}

/* The next FDE from *@i on that covers a byte; false at the end. */
static bool fuzz_next_fde(const struct sfu_sframe_section *sec, u32 *i, struct sfu_sframe_fde *fde)
{
	for (; *i < sec->num_fdes; (*i)++) {
		if (sfu_sframe_fde_get(sec, *i, fde))
			__builtin_trap();
		if (fde->func_size)
			return true;
	}
	return false;
}

/* Both sections are validated: their FDEs are sorted and disjoint. */
static void fuzz_check_disjoint(const struct sfg_output *out, const struct sfu_sframe_section *own)
{
	struct sfu_sframe_reader r = {
		.kind = SFRAME_READER_BUFFER,
		.buf = out->buf,
		.size = out->len,
	};
	struct sfu_sframe_fde a, b;
	struct sfu_sframe_section sec;
	u32 i = 0, j = 0;

	if (sfu_sframe_section_init(&sec, &r, 0, out->abi))
		__builtin_trap();
	while (fuzz_next_fde(&sec, &i, &a) && fuzz_next_fde(own, &j, &b)) {
		if (a.func_start + a.func_size <= b.func_start)
			i++;
		else if (b.func_start + b.func_size <= a.func_start)
			j++;
		else
			__builtin_trap();
	}
}

/* The same file with SFG_COMPLEMENT; @full is the result without it. */
static void fuzz_check_complement(Elf *elf, const struct sfg_output *full, int full_err)
{
	struct sfu_sframe_section own;
	struct sfg_output out;
	int abi, has = 0, err;

	abi = sfg_elf_machine_abi(elf);
	if (abi > 0)
		has = sfg_elf_own_sframe(elf, abi, &own);
	err = sfg_convert(elf, 0, SFG_COMPLEMENT, &out);
	if (has < 0) {
		if (!err || (err == -SFG_E_OWN_SFRAME && out.own_error != has))
			__builtin_trap();
		return;
	}
	if (!has) {
		if (err != full_err)
			__builtin_trap();
		if (!err && (out.stats.own_sframe || out.len != full->len ||
			     memcmp(out.buf, full->buf, out.len)))
			__builtin_trap();
	}
	if (err)
		return;
	fuzz_check_output(&out);
	if (has) {
		if (!out.stats.own_sframe || out.stats.own_fdes != own.num_fdes)
			__builtin_trap();
		fuzz_check_disjoint(&out, &own);
	}
	sfg_output_free(&out);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static bool ready;
	struct sfg_output out;
	char id[2 * 64 + 1];
	char *copy;
	Elf *elf;
	int err;

	if (!ready) {
		if (elf_version(EV_CURRENT) == EV_NONE)
			__builtin_trap();
		ready = true;
	}
	/* An exact-size private copy, as --vdso makes: libelf may write to it. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	elf = elf_memory(copy, size);
	if (elf) {
		sfg_elf_has_sframe(elf);
		sfg_elf_build_id(elf, id, sizeof(id));
		err = sfg_convert(elf, 0, 0, &out);
		if (!err)
			fuzz_check_output(&out);
		fuzz_check_complement(elf, &out, err);
		if (!err)
			sfg_output_free(&out);
		elf_end(elf);
	}
	free(copy);
	return 0;
}
