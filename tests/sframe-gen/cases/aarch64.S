/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CFI shapes sframe-gen must turn into exact rows (aarch64).  Labels mark
 * the PCs tests/sframe-gen/run-cases looks up; the expected rows are there.
 */
	.text
	.globl	_start
	.type	_start, %function
_start:					/* RA undefined: the outermost frame */
	.cfi_startproc
	.cfi_undefined x30
	mov	x29, #0
	bl	frame
	bl	signed
	mov	x8, #93
	svc	#0
	.cfi_endproc
	.size	_start, . - _start

	.type	frame, %function
frame:					/* stp x29, x30 and a frame record */
	.cfi_startproc
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
frame_saved:
	mov	x29, sp
	.cfi_def_cfa_register 29
frame_fp:
	ldp	x29, x30, [sp], #32
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa 31, 0
frame_ret:
	ret
	.cfi_endproc
	.size	frame, . - frame

	.type	signed, %function
signed:					/* return address signing: left out */
	.cfi_startproc
	hint	#25			/* paciasp */
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	ldp	x29, x30, [sp], #16
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	hint	#29			/* autiasp */
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	signed, . - signed

	.type	nocfi, %function
nocfi:					/* no CFI at all */
	ret
	.size	nocfi, . - nocfi

	.section .note.GNU-stack, "", %progbits
