/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole ELF files for the registry's scan cases: a V3 shared library of
 * each architecture, as the toolchain produced it (tests/fixtures/).  The
 * cases write the native one to a file, map it like a dynamic loader and
 * let the registry find its .sframe through the file.
 */
#define SFU_ELF_BLOB(sym, path)		\
	.globl sym;			\
	.balign 16;			\
sym:					\
	.incbin path;			\
	.globl sym##_end;		\
sym##_end:

	.section .rodata, "a"
SFU_ELF_BLOB(sfu_kunit_elf_x86_64, "tests/fixtures/x86_64/v3/libshared-O2.so")
SFU_ELF_BLOB(sfu_kunit_elf_aarch64, "tests/fixtures/aarch64/v3/libshared-O2.so")
