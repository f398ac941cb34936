/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole ELF files embedded by kunit/elf_blobs.S.
 */
#ifndef _SFU_KUNIT_ELF_BLOBS_H
#define _SFU_KUNIT_ELF_BLOBS_H

#include <linux/types.h>

extern const u8 sfu_kunit_elf_x86_64[], sfu_kunit_elf_x86_64_end[];
extern const u8 sfu_kunit_elf_aarch64[], sfu_kunit_elf_aarch64_end[];

#endif /* _SFU_KUNIT_ELF_BLOBS_H */
