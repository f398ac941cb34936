/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A shared object or program whose calls go through the PLT, which ld
 * writes no CFI for on aarch64 (tests/sframe-gen/run-cases).  caller()
 * calls ext1, ext2 and ext3, which -DLIB defines instead (the library the
 * others link with).  -DTLSDESC adds a TLS descriptor call, for which ld
 * puts its lazy TLSDESC trampoline after the PLT entries.  -DBTI marks the
 * object BTI and PAC compatible, as ld -z force-bti and -z pac-plt want.
 */
	.text
#ifdef LIB
	.globl	ext1, ext2, ext3
	.type	ext1, %function
	.type	ext2, %function
	.type	ext3, %function
ext1:
ext2:
ext3:
	.cfi_startproc
	ret
	.cfi_endproc
#else
	.globl	caller, _start
	.type	caller, %function
_start:
caller:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	bl	ext1
	bl	ext2
	bl	ext3
#ifdef TLSDESC
	adrp	x0, :tlsdesc:tvar
	ldr	x1, [x0, #:tlsdesc_lo12:tvar]
	add	x0, x0, #:tlsdesc_lo12:tvar
	.tlsdesccall tvar
	blr	x1
#endif
	ldp	x29, x30, [sp], #16
	.cfi_def_cfa_offset 0
	.cfi_restore 29
	.cfi_restore 30
	ret
	.cfi_endproc
	.size	caller, . - caller
#endif

#ifdef BTI
	/* GNU_PROPERTY_AARCH64_FEATURE_1_AND: BTI | PAC */
	.section .note.gnu.property, "a"
	.p2align 3
	.word	4, 16, 5
	.asciz	"GNU"
	.word	0xc0000000, 4, 3, 0
#endif
