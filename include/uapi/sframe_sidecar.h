/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * SFrame sidecars: the unwind rows of an ELF file that has no .sframe of
 * its own, generated from its .eh_frame (tools/sframe-gen) and kept outside
 * it, named after its GNU build-id:
 *
 *   <sidecar_dir>/<first 2 hex digits of the build-id>/<the rest>.sframe
 *
 * and, where that name holds the sidecar of another file with the same
 * build-id, under the first SFU_SIDECAR_NAME_DIGEST bytes of its digest:
 *
 *   <sidecar_dir>/<first 2 hex digits>/<the rest>.<digest, in hex>.sframe
 *
 * The module looks under the second name only when the first exists: a
 * digest name alone is not found (a file is mapped without its digest
 * taken unless it needs one).
 *
 * sidecar_dir is the module parameter (default /var/lib/sframe-unwind).
 * A sidecar is this header, then the raw SFrame section.  Everything is
 * little-endian.
 *
 * A build-id names a file; it proves nothing about its bytes (anyone can
 * copy it into another file).  So a sidecar carries a digest of what its
 * rows were made from, and the module uses it for a file only if the
 * same digest of that file matches.  BLAKE2s-256 (unkeyed) over:
 *
 *   SFU_SIDECAR_DIGEST_FILE  the 16 bytes "SFU-SIDECAR-FILE", then the
 *                            whole file
 *   SFU_SIDECAR_DIGEST_CFI   the 16 bytes "SFU-SIDECAR-CFI" and a NUL,
 *                            then (an ELF64 little-endian file with
 *                            section headers) its 64-byte ELF header,
 *                            program header table, section header table
 *                            and section-name string table, then the bytes
 *                            of every section named .eh_frame,
 *                            .eh_frame_hdr, .debug_frame, .sframe, .plt or
 *                            .iplt that has file bytes, in section order,
 *                            then those of every PT_GNU_EH_FRAME and
 *                            PT_GNU_SFRAME segment, in program header
 *                            order; each of these byte ranges preceded by
 *                            its length as 8 bytes
 *
 * CFI covers everything the rows of a file's DWARF CFI are a function of
 * (the CFI, its lookup table, the own SFrame section that a complement
 * leaves out, the PLTs whose rows are made from their bytes, and the
 * addresses and layout all of them are read at); FILE is for rows made
 * from anything else (a Go program's .gopclntab, whose rows depend on
 * its code too).  The generator chooses the kind; a sidecar of one kind
 * never matches a file whose digest of that kind differs.
 *
 * The section's function starts are those of the ELF file at its
 * link-time addresses, as if the section were loaded at
 * @section_vaddr (so PC-relative starts resolve); the module moves them by
 * the mapping's load bias as it does a section of the file's own.
 */
#ifndef _UAPI_SFRAME_SIDECAR_H
#define _UAPI_SFRAME_SIDECAR_H

#include <linux/types.h>

#define SFU_SIDECAR_MAGIC	"SFUSIDE2"
#define SFU_SIDECAR_BUILD_ID_MAX	64
#define SFU_SIDECAR_DIGEST_LEN	32
/* Digest bytes in the name of a sidecar that is not the build-id's first. */
#define SFU_SIDECAR_NAME_DIGEST	16

/* struct sfu_sidecar_header.digest_kind */
#define SFU_SIDECAR_DIGEST_CFI	1
#define SFU_SIDECAR_DIGEST_FILE	2
#define SFU_SIDECAR_DEFAULT_DIR	"/var/lib/sframe-unwind"

/**
 * struct sfu_sidecar_header - the start of a sidecar file
 * @magic: SFU_SIDECAR_MAGIC, without its terminating NUL
 * @build_id_len: bytes of @build_id used (1 to SFU_SIDECAR_BUILD_ID_MAX)
 * @digest_kind: SFU_SIDECAR_DIGEST_CFI or SFU_SIDECAR_DIGEST_FILE
 * @section_off: file offset of the SFrame section (at least the header's size)
 * @section_size: its bytes
 * @section_vaddr: the address the section's function starts are computed for
 * @build_id: the GNU build-id of the ELF file the rows describe
 * @digest: that file's digest of kind @digest_kind
 */
struct sfu_sidecar_header {
	char magic[8];
	__u32 build_id_len;
	__u32 digest_kind;
	__u64 section_off;
	__u64 section_size;
	__u64 section_vaddr;
	__u8 build_id[SFU_SIDECAR_BUILD_ID_MAX];
	__u8 digest[SFU_SIDECAR_DIGEST_LEN];
};

#endif /* _UAPI_SFRAME_SIDECAR_H */
