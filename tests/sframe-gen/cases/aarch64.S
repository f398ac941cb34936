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
signed:					/* return address signing, key A */
	.cfi_startproc
	hint	#25			/* paciasp */
	.cfi_negate_ra_state
signed_pac:
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
signed_saved:
	ldp	x29, x30, [sp], #16
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
signed_auth:
	hint	#29			/* autiasp */
	.cfi_negate_ra_state
signed_ret:
	ret
	.cfi_endproc
	.size	signed, . - signed

	.type	twoexits, %function
twoexits:				/* remember/restore around the signing */
	.cfi_startproc
	hint	#25
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
twoexits_saved:
	cbz	x0, 1f
	.cfi_remember_state
	ldp	x29, x30, [sp], #16
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
twoexits_auth:
	hint	#29
	.cfi_negate_ra_state
twoexits_ret:
	ret
1:	.cfi_restore_state
twoexits_restored:			/* signed again, and the frame is back */
	mov	x0, #1
	.cfi_remember_state
	.cfi_negate_ra_state		/* a state remembered twice deep */
	.cfi_remember_state
	.cfi_negate_ra_state
twoexits_nested:
	nop
	.cfi_restore_state
twoexits_inner:
	nop
	.cfi_restore_state
twoexits_outer:
	ldp	x29, x30, [sp], #16
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	hint	#29
	.cfi_negate_ra_state
twoexits_ret2:
	ret
	.cfi_endproc
	.size	twoexits, . - twoexits

	.type	bkey, %function
bkey:					/* key B: the CIE's augmentation has 'B' */
	.cfi_startproc
	.cfi_b_key_frame
	hint	#27			/* pacibsp */
	.cfi_negate_ra_state
bkey_pac:
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
bkey_saved:
	ldp	x29, x30, [sp], #16
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	hint	#31			/* autibsp */
	.cfi_negate_ra_state
bkey_ret:
	ret
	.cfi_endproc
	.size	bkey, . - bkey

	.type	withpc, %function
/*
 * withpc: DW_CFA_AARCH64_negate_ra_state_with_pc (pac-ret+pc), which ld
 * 2.40 does not know: it says it writes no .eh_frame_hdr, which
 * sframe-gen does not need.
 */
withpc:
	.cfi_startproc
	hint	#25
	.cfi_escape 0x2c
	nop
	hint	#29
	.cfi_escape 0x2c
	ret
	.cfi_endproc
	.size	withpc, . - withpc

	.type	lost, %function
lost:					/* restore_state with nothing remembered */
	.cfi_startproc
	hint	#25
	.cfi_negate_ra_state
	nop
	.cfi_escape 0x0b
	ret
	.cfi_endproc
	.size	lost, . - lost

	.type	statereg, %function
statereg:				/* a rule for RA_SIGN_STATE (register 34) */
	.cfi_startproc
	nop
	.cfi_escape 0x16, 34, 1, 0x31	/* DW_CFA_val_expression r34 DW_OP_lit1 */
	ret
	.cfi_endproc
	.size	statereg, . - statereg

/*
 * hand: CFI written out byte by byte, for what gas's directives do not
 * produce: a CIE whose initial instructions sign the RA, and every way of
 * moving the location (advance_loc1, 2 and 4, set_loc PC-relative).
 */
	.type	hand, %function
hand:					/* signed from the start: the CIE says so */
	nop
hand_1:
	nop
	nop
hand_2:
	nop
	nop
hand_3:
	nop
	nop
hand_4:
	nop
hand_5:
	ret
hand_end:
	.size	hand, . - hand

	.section .eh_frame, "a", %progbits
	.balign	8
hand_cie:
	.4byte	hand_cie_end - hand_cie_id
hand_cie_id:
	.4byte	0			/* CIE */
	.byte	1			/* version */
	.asciz	"zRB"			/* key B */
	.uleb128 4			/* code alignment factor */
	.sleb128 -8			/* data alignment factor */
	.byte	30			/* RA column */
	.uleb128 1
	.byte	0x1b			/* FDE pointers: pcrel sdata4 */
	.byte	0x0c, 31, 0		/* DW_CFA_def_cfa sp, 0 */
	.byte	0x2d			/* DW_CFA_AARCH64_negate_ra_state */
	.balign	8, 0
hand_cie_end:
	.4byte	hand_fde_end - hand_fde_cie
hand_fde_cie:
	.4byte	hand_fde_cie - hand_cie
	.4byte	hand - .
	.4byte	hand_end - hand
	.uleb128 0
	/*
	 * The advances are constants (gas would turn an advance_loc4 of a
	 * symbol difference into a shorter one): hand_1 is 1 instruction
	 * after hand, hand_2 and hand_3 2 after the one before.
	 */
	.byte	0x02, 1			/* DW_CFA_advance_loc1 to hand_1 */
	.byte	0x0e, 16		/* DW_CFA_def_cfa_offset 16 */
	.byte	0x9d, 2, 0x9e, 1	/* DW_CFA_offset x29 -16, x30 -8 */
	.byte	0x03, 2, 0		/* DW_CFA_advance_loc2 to hand_2 */
	.byte	0x0a			/* DW_CFA_remember_state */
	.byte	0x2d
	.byte	0x04, 2, 0, 0, 0	/* DW_CFA_advance_loc4 to hand_3 */
	.byte	0x0b			/* DW_CFA_restore_state */
	.byte	0x01			/* DW_CFA_set_loc hand_4 */
	.4byte	hand_4 - .
	.byte	0x2d, 0x2d		/* toggled twice: no change */
	.byte	0x0e, 0, 0xdd, 0xde	/* def_cfa_offset 0, restore x29, x30 */
	.byte	0x41			/* DW_CFA_advance_loc to hand_5 */
	.byte	0x2d
	.balign	8, 0
hand_fde_end:

	.text
	.type	nocfi, %function
nocfi:					/* no CFI at all */
	ret
	.size	nocfi, . - nocfi

	.section .note.GNU-stack, "", %progbits
