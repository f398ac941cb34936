/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame decoder error codes, as SFU_IOC_REGISTER reports them and as the
 * decoder returns them (negated); sfu_sframe_strerror() gives their names.
 */
#ifndef _UAPI_SFRAME_ERRORS_H
#define _UAPI_SFRAME_ERRORS_H

/**
 * enum sfu_sframe_error - why a section or a lookup was refused
 * @SFRAME_E_TRUNCATED: the section is too small for what it claims
 * @SFRAME_E_BAD_MAGIC: not an SFrame section
 * @SFRAME_E_FOREIGN_ENDIAN: an SFrame section in the other byte order
 * @SFRAME_E_VERSION: unknown format version
 * @SFRAME_E_FLAGS: header flag bits not defined for this version
 * @SFRAME_E_ABI: unknown abi_arch, or one this decoder does not read
 * @SFRAME_E_ABI_MISMATCH: a supported abi_arch, but not the expected one
 * @SFRAME_E_BAD_HEADER: header fields inconsistent with each other or the ABI
 * @SFRAME_E_TOO_BIG: counts or size beyond the decoder's fixed limits
 * @SFRAME_E_UNSORTED: FDE start addresses decreasing, or ranges of
 *                     non-empty functions overlapping
 * @SFRAME_E_BAD_FDE: an FDE with bad info bits, a function range that wraps
 *                    or FRE data outside the FRE sub-section
 * @SFRAME_E_REP_SIZE: a PC-mask FDE without a usable repeat size
 * @SFRAME_E_BAD_FRE: an FRE that cannot be decoded for this ABI and FDE type
 * @SFRAME_E_FRE_ORDER: FRE start offsets not ascending within a function
 * @SFRAME_E_NO_FDE: no function covers the PC
 * @SFRAME_E_NO_FRE: a function covers the PC but none of its rows does
 * @SFRAME_E_FAULT: the section memory could not be read
 * @SFRAME_E_NO_INDEX: the PC's function has more rows than a lookup scans
 *                     (SFRAME_FRE_INDEX_STRIDE), and the section has no FRE
 *                     index for it: the lookup is refused, not done slowly
 * @SFRAME_E_SAVED_REG: a saved-register entry of sframe-unwind's
 *                      SFRAME_F_SFU_SAVED_REGS extension that it does not
 *                      allow, or saved-register words without the flag
 * @SFRAME_E_INJECTED_CALL: a V3 FDE marked as entered by an injected call
 *                          (sframe-unwind's SFRAME_F_SFU_INJECTED_CALLS
 *                          extension) in a section without the flag
 * @SFRAME_E_NO_SAVES: a V3 FDE marked as listing no saved registers
 *                     (sframe-unwind's SFRAME_F_SFU_SAVED_REGS extension)
 *                     in a section without the flag
 * @SFRAME_E_NR: number of codes plus one (not an error)
 */
enum sfu_sframe_error {
	SFRAME_E_TRUNCATED = 1,
	SFRAME_E_BAD_MAGIC,
	SFRAME_E_FOREIGN_ENDIAN,
	SFRAME_E_VERSION,
	SFRAME_E_FLAGS,
	SFRAME_E_ABI,
	SFRAME_E_ABI_MISMATCH,
	SFRAME_E_BAD_HEADER,
	SFRAME_E_TOO_BIG,
	SFRAME_E_UNSORTED,
	SFRAME_E_BAD_FDE,
	SFRAME_E_REP_SIZE,
	SFRAME_E_BAD_FRE,
	SFRAME_E_FRE_ORDER,
	SFRAME_E_NO_FDE,
	SFRAME_E_NO_FRE,
	SFRAME_E_FAULT,
	SFRAME_E_NO_INDEX,
	SFRAME_E_SAVED_REG,
	SFRAME_E_INJECTED_CALL,
	SFRAME_E_NO_SAVES,
	SFRAME_E_NR,
};

#endif /* _UAPI_SFRAME_ERRORS_H */
