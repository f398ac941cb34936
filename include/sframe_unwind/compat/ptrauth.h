/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 pointer authentication.
 * Kernel-version differences of one kernel API (the rest: the other
 * headers of include/sframe_unwind/compat/).  Code calls the wrappers and
 * never tests LINUX_VERSION_CODE itself.
 */
#ifndef _SFU_COMPAT_PTRAUTH_H
#define _SFU_COMPAT_PTRAUTH_H

/*
 * arm64: strip the pointer-authentication code from a user return address.
 * In 6.1 ptrauth_strip_insn_pac() of <asm/pointer_auth.h> serves user and
 * kernel pointers; later kernels (6.12 has it) split it, the user variant
 * being ptrauth_strip_user_insn_pac(), a macro of <asm/compiler.h>, which
 * every file includes first (through <linux/compiler_types.h>): its
 * presence is the test.  Expanded only by arm64 code.
 */
#ifdef ptrauth_strip_user_insn_pac
#define sfu_ptrauth_strip_user(ptr)	ptrauth_strip_user_insn_pac(ptr)
#else
#define sfu_ptrauth_strip_user(ptr)	ptrauth_strip_insn_pac(ptr)
#endif

#endif /* _SFU_COMPAT_PTRAUTH_H */
