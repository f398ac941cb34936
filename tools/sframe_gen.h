/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframe-gen: an SFrame V3 section made from the DWARF CFI (.eh_frame,
 * .debug_frame) of an ELF file, read through elfutils' libdw.
 *
 * The converter works on an Elf handle (a file or elf_memory()) and
 * produces the bytes of a section with PCREL function starts, as if the
 * section were placed at link-time address @vaddr of the ELF (0 for a
 * sidecar file: function starts are then the ELF's own addresses).
 *
 * With SFG_COMPLEMENT the section holds only what the file's own SFrame
 * section (the one the kernel module reads: PT_GNU_SFRAME, else .sframe)
 * leaves out: the FDEs none of whose bytes an FDE of the own section
 * covers.  The module looks such a sidecar up only for PCs the own section
 * has no FDE for.
 */
#ifndef _SFRAME_GEN_H
#define _SFRAME_GEN_H

#include <libelf.h>
#include <linux/types.h>

#include "uapi/sframe_sidecar.h"

/* Why a range of text bytes has no rows in the output. */
enum sfg_reason {
	SFG_NO_CFI,		/* no FDE covers it */
	SFG_BAD_CFI,		/* libdw refused the FDE, or its range is unusable */
	SFG_CFA_UNDEFINED,	/* CFI leaves the CFA undefined */
	SFG_CFA_EXPR,		/* a CFA expression SFrame cannot express */
	SFG_CFA_REG,		/* CFA from a register other than SP/FP (AArch64) */
	SFG_RA_RULE,		/* an RA rule SFrame cannot express */
	SFG_FP_RULE,		/* an FP rule SFrame cannot express */
	SFG_PAUTH,		/* AArch64 return address signing (not tracked by libdw) */
	SFG_OFFSET,		/* an offset beyond 32 bits */
	SFG_TOO_BIG,		/* a function larger than SFrame or the limits allow */
	SFG_OVERLAP,		/* an FDE overlapping another one */
	SFG_OWN_SFRAME,		/* the rest of an FDE overlapping the file's own SFrame FDEs */
	SFG_GO_SPWRITE,		/* a Go function that writes SP arbitrarily or switches stacks */
	SFG_GO_FP,		/* a Go frame whose saved frame pointer cannot be proven */
	SFG_GO_PCSP,		/* a Go function without a usable pcsp table */
	SFG_REASON_NR,
};

/**
 * struct sfg_stats - what a conversion found and produced
 * @dwarf_fdes: FDEs read from .eh_frame and .debug_frame
 * @dwarf_rows: rows (PC ranges with one set of rules) libdw produced
 * @fdes: SFrame FDEs written
 * @fres: SFrame FREs written
 * @eh_frame_bytes: size of .eh_frame
 * @debug_frame_bytes: size of .debug_frame (when it was read)
 * @sframe_bytes: size of the section written
 * @text_bytes: bytes of executable sections (or PF_X segments)
 * @covered_bytes: text bytes some SFrame row covers
 * @uncovered: text bytes without rows, by reason
 * @own_sframe: the file's own SFrame section was read (SFG_COMPLEMENT)
 * @own_version: its SFRAME_VERSION_*
 * @own_fdes: its FDEs
 * @own_fres: its FREs
 * @own_bytes: its size
 * @own_covered_bytes: text bytes its FDEs cover, none of which the output
 *                     covers; @covered_bytes, @own_covered_bytes and
 *                     @uncovered add up to @text_bytes
 * @go_version: the Go pclntab layout read (116, 118, 120), 0 for none
 * @go_funcs: Go functions in the pclntab
 * @go_topframe: of them, outermost (TOPFRAME) functions
 * @go_spwrite: of them, functions left without rows as SFG_GO_SPWRITE
 * @go_fdes: SFrame FDEs written from the pclntab
 * @go_fres: SFrame FREs written from the pclntab
 * @go_covered_bytes: text bytes those rows cover (part of @covered_bytes)
 */
struct sfg_stats {
	u64 dwarf_fdes;
	u64 dwarf_rows;
	u64 fdes;
	u64 fres;
	u64 eh_frame_bytes;
	u64 debug_frame_bytes;
	u64 sframe_bytes;
	u64 text_bytes;
	u64 covered_bytes;
	u64 uncovered[SFG_REASON_NR];
	bool own_sframe;
	u8 own_version;
	u64 own_fdes;
	u64 own_fres;
	u64 own_bytes;
	u64 own_covered_bytes;
	u16 go_version;
	u64 go_funcs;
	u64 go_topframe;
	u64 go_spwrite;
	u64 go_fdes;
	u64 go_fres;
	u64 go_covered_bytes;
	u64 cfa_on_saved_reg;
	u64 ifunc_resolvers;
	u64 saves_fdes;
	u64 no_saves_fdes;
	u64 shared_fdes;
};

/* sfg_convert() flags */
#define SFG_COMPLEMENT	0x1	/* leave out what the file's own SFrame covers */
#define SFG_NO_SAVED_REGS 0x2	/* no SFRAME_F_SFU_SAVED_REGS (x86_64 has it by default) */
#define SFG_NO_CFA_ADDEND 0x4	/* no SFRAME_F_SFU_CFA_ADDEND: *(reg + off) + K uncovered */
#define SFG_SAVED_REGS	0x8	/* x86_64: every function lists its rbx saves */
#define SFG_NO_NARROW_INDEX 0x10 /* 16-byte FDE index entries (no SFRAME_F_SFU_NARROW_INDEX) */

/* sfg_convert() results other than 0 (errors are negative). */
enum sfg_error {
	SFG_E_NOT_ELF = 1,	/* not an ELF file */
	SFG_E_CLASS,		/* not ELF64 little-endian */
	SFG_E_MACHINE,		/* neither x86_64 nor aarch64 */
	SFG_E_TYPE,		/* not an executable or shared object */
	SFG_E_NO_CFI,		/* neither .eh_frame nor .debug_frame */
	SFG_E_LIMIT,		/* the section would exceed the decoder's limits */
	SFG_E_NOMEM,
	SFG_E_INTERNAL,		/* the output failed the project's own decoder */
	SFG_E_OWN_SFRAME,	/* the file's own SFrame section fails the decoder */
	SFG_E_GO,		/* the file's Go pclntab is malformed */
	SFG_E_DIGEST,		/* the file's content digest could not be taken */
	SFG_E_NR,
};

/**
 * struct sfg_output - a converted section
 * @buf: malloc'd section bytes (free with sfg_output_free())
 * @len: bytes in @buf
 * @abi: SFRAME_ABI_* of the section
 * @digest_kind: SFU_SIDECAR_DIGEST_* of @digest: FILE where the rows come
 *	from a Go pclntab (or the file has no section headers), else CFI
 * @digest: the file's content digest the sidecar is bound to
 * @stats: figures of the conversion
 * @own_error: with -SFG_E_OWN_SFRAME, the decoder's -SFRAME_E_xxx for the
 *             file's own section
 */
struct sfg_output {
	u8 *buf;
	u64 len;
	u8 abi;
	u32 digest_kind;
	u8 digest[SFU_SIDECAR_DIGEST_LEN];
	struct sfg_stats stats;
	int own_error;
};

struct sfu_sframe_section;

int sfg_convert(Elf *elf, u64 vaddr, unsigned int flags, struct sfg_output *out);
void sfg_output_free(struct sfg_output *out);
const char *sfg_strerror(int err);
const char *sfg_reason_name(enum sfg_reason reason);
int sfg_elf_machine_abi(Elf *elf);
bool sfg_elf_has_sframe(Elf *elf);
int sfg_elf_own_sframe(Elf *elf, int abi, struct sfu_sframe_section *sec);
int sfg_elf_build_id(Elf *elf, char *hex, size_t len);
int sfg_elf_digest(Elf *elf, u32 kind, u8 *out);
int sfg_sidecar_name(const char *id, const u8 *digest, char *name, size_t len);
bool sfg_sidecar_bound_to(int dir, const char *name, u32 kind, const u8 *digest);

/*
 * sframe-gen --publish (sframe_gen_publish.c): a sidecar in an ELF file
 * that debuginfod indexes as the debuginfo of its build-id, in this
 * section; sframe-unwindd asks debuginfod for the section.
 */
#define SFG_PUBLISH_SECTION	".sframe_unwind.sidecar"

int sfg_publish_elf(Elf *src, const u8 *sidecar, u64 len, u8 **out, u64 *out_len);
int sfg_published_sidecar(Elf *elf, const u8 **buf, size_t *len);

/*
 * Go programs: the function table of .gopclntab (sframe_gen_go.c), for
 * names of stripped binaries and for rows from its pcsp tables.
 */
struct sfg_go;

int sfg_go_load(Elf *elf, struct sfg_go **go);
void sfg_go_free(struct sfg_go *go);
u64 sfg_go_nfuncs(const struct sfg_go *go);
const char *sfg_go_func(const struct sfg_go *go, u64 i, u64 *entry, u64 *end);
const char *sfg_go_func_at(const struct sfg_go *go, u64 addr, u64 *entry);
const char *sfg_go_func_status(const struct sfg_go *go, u64 i);
u16 sfg_go_version(const struct sfg_go *go);

/* --inject-fault: rows of the Go functions it names (FUNC[,FUNC...]) with a CFA 8 bytes off. */
extern const char *sfg_go_fault;

#endif /* _SFRAME_GEN_H */
