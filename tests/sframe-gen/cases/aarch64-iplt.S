/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A static program calling two IFUNCs, through the IRELATIVE PLT entries
 * ld makes for them (GNU ld: .plt, lld: .iplt), which it writes no CFI
 * for on aarch64; and in_plt, a function of the program's own that the
 * linker puts in .plt, shaped like a PLT entry but with CFI of its own,
 * which says something else (tests/sframe-gen/run-cases).
 */
	.text
	.globl	_start
	.type	_start, %function
_start:
	.cfi_startproc
	.cfi_undefined x30
	bl	ifn1
	bl	ifn2
	bl	in_plt
	mov	x8, #93
	svc	#0
	.cfi_endproc
	.size	_start, . - _start

	.type	resolver, %function
resolver:
	.cfi_startproc
	adr	x0, impl
	ret
	.cfi_endproc
	.size	resolver, . - resolver

	.type	impl, %function
impl:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	impl, . - impl

	.globl	ifn1, ifn2
	.type	ifn1, %gnu_indirect_function
	.set	ifn1, resolver
	.type	ifn2, %gnu_indirect_function
	.set	ifn2, resolver

	.section .plt, "ax", %progbits
	.globl	in_plt
	.type	in_plt, %function
in_plt:
	.cfi_startproc
	.cfi_undefined x30
	adrp	x16, impl
	ldr	x17, [x16, #0]
	add	x16, x16, #0
	br	x17
	.cfi_endproc
	.size	in_plt, . - in_plt
