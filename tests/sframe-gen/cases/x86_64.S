/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CFI shapes sframe-gen must turn into exact rows (x86_64).  Labels mark
 * the PCs tests/sframe-gen/run-cases looks up; the expected rows are there.
 */
	.text
	.globl	_start
	.type	_start, @function
_start:					/* RA undefined: the outermost frame */
	.cfi_startproc
	.cfi_undefined rip
	xor	%ebp, %ebp
	call	leaf
	call	drap
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.cfi_endproc
	.size	_start, . - _start

	.type	leaf, @function
leaf:					/* a frame-pointer frame */
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset rbp, -16
leaf_pushed:
	mov	%rsp, %rbp
	.cfi_def_cfa_register rbp
leaf_body:
	nop
	pop	%rbp
	.cfi_def_cfa rsp, 8
leaf_ret:
	ret
	.cfi_endproc
	.size	leaf, . - leaf

	.type	drap, @function
drap:					/* stack realignment through %r10, as gcc does it */
	.cfi_startproc
	lea	8(%rsp), %r10
	.cfi_def_cfa r10, 0
drap_r10:
	and	$-32, %rsp
	push	-8(%r10)
	push	%rbp
	mov	%rsp, %rbp
	/* DW_CFA_expression rbp: DW_OP_breg6 0 */
	.cfi_escape 0x10, 0x6, 0x2, 0x76, 0x0
drap_fp:
	push	%r10
	/* DW_CFA_def_cfa_expression: DW_OP_breg6 -8; DW_OP_deref */
	.cfi_escape 0x0f, 0x3, 0x76, 0x78, 0x6
drap_deref:
	nop
	pop	%r10
	.cfi_def_cfa r10, 0
	pop	%rbp
	.cfi_same_value rbp
	lea	-8(%r10), %rsp
	.cfi_def_cfa rsp, 8
drap_ret:
	ret
	.cfi_endproc
	.size	drap, . - drap

	nop				/* the unwinder looks up PC - 1 elsewhere */
	.type	sigreturn, @function
sigreturn:				/* a signal frame, as glibc's __restore_rt */
	.cfi_startproc simple
	.cfi_signal_frame
	/* DW_CFA_def_cfa_expression: DW_OP_breg7 160; DW_OP_deref */
	.cfi_escape 0x0f, 0x4, 0x77, 0xa0, 0x01, 0x06
	/* DW_CFA_expression rbp: DW_OP_breg7 120 */
	.cfi_escape 0x10, 0x06, 0x3, 0x77, 0xf8, 0x00
	/* DW_CFA_expression rip: DW_OP_breg7 168 */
	.cfi_escape 0x10, 0x10, 0x3, 0x77, 0xa8, 0x01
	mov	$15, %eax
	syscall
	.cfi_endproc
	.size	sigreturn, . - sigreturn

	.type	valrule, @function
valrule:				/* RA as a value at CFA-8: SFrame cannot say it */
	.cfi_startproc
	.cfi_val_offset rip, -8
	ret
	.cfi_endproc
	.size	valrule, . - valrule

	.type	nocfi, @function
nocfi:					/* no CFI at all */
	ret
	.size	nocfi, . - nocfi

	.section .note.GNU-stack, "", @progbits
