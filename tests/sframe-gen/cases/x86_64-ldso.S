/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CFI of glibc's lazy-binding trampoline (_dl_runtime_resolve_*, in
 * ld.so): entered with the PLT's two words pushed, it saves rbx, keeps its
 * CFA in rbx (CFA = rbx + 32) while it realigns the stack and calls
 * _dl_fixup, which saves rbx again with a push.  sframe-gen says where
 * each saved rbx, with the project's SFRAME_F_SFU_SAVED_REGS
 * (Documentation/sframe-format.rst), so that the unwinder can compute the
 * trampoline's CFA below the topmost frame.
 */
	.text
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip
	call	resolve
	hlt
	.cfi_endproc
	.size	_start, . - _start

	.type	resolve, @function
resolve:				/* _dl_runtime_resolve_xsave */
	.cfi_startproc
	.cfi_adjust_cfa_offset 16	/* the PLT's two pushes */
	push	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbx, 0
resolve_pushed:
	mov	%rsp, %rbx
	.cfi_def_cfa_register rbx
resolve_body:
	and	$-64, %rsp
	sub	$512, %rsp
	call	fixup
	mov	%rbx, %rsp
	.cfi_def_cfa_register rsp
	mov	(%rsp), %rbx
	.cfi_restore rbx
resolve_restored:
	add	$24, %rsp
	.cfi_adjust_cfa_offset -24
resolve_ret:
	ret
	.cfi_endproc
	.size	resolve, . - resolve

	.type	fixup, @function
fixup:					/* _dl_fixup: C code that pushes rbx */
	.cfi_startproc
	push	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset rbx, -16
fixup_pushed:
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset rbp, -24
fixup_both:
	mov	%rdi, %rbx
	pop	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore rbp
fixup_popped:
	pop	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore rbx
fixup_ret:
	ret
	.cfi_endproc
	.size	fixup, . - fixup

	.type	lost, @function
lost:					/* rbx where SFrame cannot say */
	.cfi_startproc
	mov	%rbx, %r12
	.cfi_register rbx, r12
lost_reg:
	push	%rbx
	.cfi_adjust_cfa_offset 8
	/* DW_CFA_expression: rbx at DW_OP_breg7 (rsp) + 0 */
	.cfi_escape 0x10, 0x03, 0x02, 0x77, 0x00
lost_expression:
	pop	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_undefined rbx
lost_undefined:
	ret
	.cfi_endproc
	.size	lost, . - lost
