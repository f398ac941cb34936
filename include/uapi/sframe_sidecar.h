/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * SFrame sidecars: the unwind rows of an ELF file that has no .sframe of
 * its own, generated from its .eh_frame (tools/sframe-gen) and kept outside
 * it, named after its GNU build-id:
 *
 *   <sidecar_dir>/<first 2 hex digits of the build-id>/<the rest>.sframe
 *
 * sidecar_dir is the module parameter (default /var/lib/sframe-unwind).
 * A sidecar is this header, then the raw SFrame section.  Everything is
 * little-endian.  The section's function starts are those of the ELF file
 * at its link-time addresses, as if the section were loaded at
 * @section_vaddr (so PC-relative starts resolve); the module moves them by
 * the mapping's load bias as it does a section of the file's own.
 */
#ifndef _UAPI_SFRAME_SIDECAR_H
#define _UAPI_SFRAME_SIDECAR_H

#include <linux/types.h>

#define SFU_SIDECAR_MAGIC	"SFUSIDE1"
#define SFU_SIDECAR_BUILD_ID_MAX	64
#define SFU_SIDECAR_DEFAULT_DIR	"/var/lib/sframe-unwind"

/**
 * struct sfu_sidecar_header - the start of a sidecar file
 * @magic: SFU_SIDECAR_MAGIC, without its terminating NUL
 * @build_id_len: bytes of @build_id used (1 to SFU_SIDECAR_BUILD_ID_MAX)
 * @reserved: 0
 * @section_off: file offset of the SFrame section (at least the header's size)
 * @section_size: its bytes
 * @section_vaddr: the address the section's function starts are computed for
 * @build_id: the GNU build-id of the ELF file the rows describe
 */
struct sfu_sidecar_header {
	char magic[8];
	__u32 build_id_len;
	__u32 reserved;
	__u64 section_off;
	__u64 section_size;
	__u64 section_vaddr;
	__u8 build_id[SFU_SIDECAR_BUILD_ID_MAX];
};

#endif /* _UAPI_SFRAME_SIDECAR_H */
