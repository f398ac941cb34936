/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CFI of OpenSSL's hand-written assembly after it realigns the stack: the
 * SP from before its pushes saved in the frame, and the CFA that SP + 8
 * (perlasm's ".cfi_cfa_expression $_rsp,deref,+8").  sframe-gen writes it
 * with the project's CFA addend (Documentation/sframe-format.rst).
 */
	.text
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip
	call	saved_sp
	hlt
	.cfi_endproc
	.size	_start, . - _start

	.type	saved_sp, @function
saved_sp:				/* OpenSSL's realignment: CFA = *(rsp + 16) + 8 */
	.cfi_startproc
	mov	%rsp, %rax
	.cfi_def_cfa_register rax
saved_sp_rax:
	push	%rbx
	.cfi_offset rbx, -16
	push	%rbp
	.cfi_offset rbp, -24
	sub	$32, %rsp
	and	$-64, %rsp
	mov	%rax, 16(%rsp)
	/* DW_CFA_def_cfa_expression: DW_OP_breg7 16; DW_OP_deref; DW_OP_plus_uconst 8 */
	.cfi_escape 0x0f, 0x5, 0x77, 0x10, 0x06, 0x23, 0x08
saved_sp_body:
	nop
	mov	16(%rsp), %rsi
	.cfi_def_cfa rsi, 8
	mov	-16(%rsi), %rbp
	.cfi_restore rbp
	mov	-8(%rsi), %rbx
	lea	(%rsi), %rsp
	.cfi_def_cfa_register rsp
saved_sp_ret:
	ret
	.cfi_endproc
	.size	saved_sp, . - saved_sp

	.type	saved_sp_wide, @function
saved_sp_wide:				/* the same with RA at CFA-16: seven words */
	.cfi_startproc
	.cfi_offset rip, -16
	.cfi_offset rbp, -24
	/* DW_CFA_def_cfa_expression: DW_OP_breg7 16; DW_OP_deref; DW_OP_plus_uconst 8 */
	.cfi_escape 0x0f, 0x5, 0x77, 0x10, 0x06, 0x23, 0x08
	nop
	.cfi_endproc
	.size	saved_sp_wide, . - saved_sp_wide

	.section .note.GNU-stack, "", @progbits
