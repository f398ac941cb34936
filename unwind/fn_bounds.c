// SPDX-License-Identifier: GPL-2.0
/*
 * Where the function that holds a user address starts, for the checks of
 * return addresses found without rows (ra_check.c, the arch hooks): "a
 * call to T can have led to a frame at IP" holds exactly when T lies in
 * IP's function, at or below IP (its start, or another entry into it,
 * as glibc's memcpy enters memmove's body).  Without this, a function is taken to span at
 * most a fixed size from a call's target, and a stale return address,
 * after a call to a function below the IP, passes for the frame's own.
 *
 * The starts come from the file's .eh_frame_hdr, which every toolchain
 * that emits CFI links into the file's loaded image (PT_GNU_EH_FRAME):
 * its binary search table, sorted by each FDE's initial location, read
 * from user memory as the unwind reads it.  The file is found from the
 * page that maps the address: its offset in the file (the page's index),
 * taken from the address, gives where the file's first byte is mapped,
 * for the usual layout in which each segment's address and file offset
 * differ by the same load bias (GNU ld's; where they do not, lld's, the
 * ELF header is not found there and nothing is known).  Everything read
 * is checked (the ELF magic and class, the program headers, the table's
 * encodings); anything else means "not known", and the caller keeps the
 * fixed span.  A function's end is taken as the next FDE's start.
 */
#include <linux/elf.h>
#include <linux/kernel.h>
#include <linux/mm.h>

#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/unwind.h"
#include "internal.h"
#include "ra_check.h"

/* DWARF pointer encodings .eh_frame_hdr uses (LSB's "Exception Frames"). */
#define SFU_EH_PE_UDATA4	0x03
#define SFU_EH_PE_SDATA4	0x0b
#define SFU_EH_PE_PCREL		0x10
#define SFU_EH_PE_DATAREL	0x30

/* Program headers looked at, at most: an ELF file has a dozen. */
#define SFU_FB_PHDRS_MAX	32
/* FDEs of a table searched, at most (2^24: 24 steps). */
#define SFU_FB_FDES_MAX		BIT(24)
/* Entry stubs below a function looked at, at most, and their size. */
#define SFU_FB_STUBS_MAX	8
#define SFU_FB_STUB_SIZE	128

/* Where the .eh_frame_hdr of the 64-bit ELF file mapped at @base is, or 0. */
static unsigned long sfu_fb_hdr(const struct sfu_unwind_state *st, unsigned long base)
{
	unsigned long bias = 0, hdr = 0;
	bool bias_known = false;
	struct elf64_phdr ph;
	struct elf64_hdr eh;
	unsigned int i;

	if (sfu_unwind_read(st, base, &eh, sizeof(eh)) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph) || !eh.e_phnum || eh.e_phnum > SFU_FB_PHDRS_MAX ||
	    eh.e_phoff >= PAGE_SIZE)
		return 0;
	for (i = 0; i < eh.e_phnum; i++) {
		if (sfu_unwind_read(st, base + eh.e_phoff + i * sizeof(ph), &ph, sizeof(ph)))
			return 0;
		/* The segment that maps the file's first byte: where @base is. */
		if (ph.p_type == PT_LOAD && !ph.p_offset && !bias_known) {
			bias = base - ph.p_vaddr;
			bias_known = true;
		} else if (ph.p_type == PT_GNU_EH_FRAME) {
			hdr = ph.p_vaddr;
		}
	}
	return bias_known && hdr ? bias + hdr : 0;
}

/**
 * struct sfu_fb_table - a file's .eh_frame_hdr search table in user memory
 * @hdr: the table's header, which its entries' locations are relative to
 * @count: its entries
 */
struct sfu_fb_table {
	unsigned long hdr;
	unsigned long count;
};

/* The header of the table the file that maps @ip has, checked. */
static bool sfu_fb_table(const struct sfu_unwind_state *st, unsigned long ip,
			 struct sfu_fb_table *t)
{
	struct {
		u8 version, frame_enc, count_enc, table_enc;
		s32 frame;
		u32 count;
	} __packed h;
	unsigned long off;

	if (st->compat || !sfu_user_file_offset(st->mm, ip, &off) || off > ip)
		return false;
	t->hdr = sfu_fb_hdr(st, ip - off);
	if (!t->hdr || sfu_unwind_read(st, t->hdr, &h, sizeof(h)) || h.version != 1 ||
	    h.frame_enc != (SFU_EH_PE_PCREL | SFU_EH_PE_SDATA4) ||
	    h.count_enc != SFU_EH_PE_UDATA4 ||
	    h.table_enc != (SFU_EH_PE_DATAREL | SFU_EH_PE_SDATA4) ||
	    !h.count || h.count > SFU_FB_FDES_MAX)
		return false;
	t->count = h.count;
	return true;
}

/* The initial location of the table's entry @i. */
static bool sfu_fb_entry(const struct sfu_unwind_state *st, const struct sfu_fb_table *t,
			 unsigned long i, unsigned long *start)
{
	s32 e[2];

	/* The entries follow the 12-byte header: initial location, FDE. */
	if (sfu_unwind_read(st, t->hdr + 12 + i * sizeof(e), e, sizeof(e)))
		return false;
	*start = t->hdr + e[0];
	return true;
}

/* The last entry whose initial location is at or below @ip, and that location. */
static bool sfu_fb_lookup(const struct sfu_unwind_state *st, const struct sfu_fb_table *t,
			  unsigned long ip, unsigned long *idx, unsigned long *start)
{
	unsigned long lo = 0, hi = t->count, mid, at;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (!sfu_fb_entry(st, t, mid, &at))
			return false;
		if (at <= ip)
			lo = mid;
		else
			hi = mid;
	}
	if (!sfu_fb_entry(st, t, lo, &at) || at > ip)
		return false;
	*idx = lo;
	*start = at;
	return true;
}

/**
 * sfu_fn_start() - the start of the function that holds a user address
 * @st: the unwind (its mm and read mode)
 * @ip: an address of user text
 * @start: set to the start of the function that holds @ip
 *
 * The table lookup sfu_fn_holds() makes first.  The frame-pointer
 * fallback asks it too, where a frame is taken to keep a record only if
 * its function sets one up (sfu_arch_fn_sets_fp()).
 *
 * Context: any the unwind runs in, NMI included (sfu_unwind_read()).
 * Return: true if the file's .eh_frame_hdr says, false if not known.
 */
bool sfu_fn_start(const struct sfu_unwind_state *st, unsigned long ip, unsigned long *start)
{
	struct sfu_fb_table t;
	unsigned long idx;

	return sfu_fb_table(st, ip, &t) && sfu_fb_lookup(st, &t, ip, &idx, start);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_fn_start);

/**
 * sfu_fn_holds() - can the function that starts at @fn hold @ip
 * @st: the unwind (its mm and read mode)
 * @fn: a call's target
 * @ip: an address of user text
 * @span: the size a function is taken to have at most where its start is
 *	not known
 *
 * A function of its own in the table may still be an entry into the one
 * below it: glibc's string functions are written as short entry stubs,
 * each with an FDE of its own, that jump forward into one body (memcpy's
 * 40 bytes into memmove's, mempcpy's 8 into memcpy's).  A call's target
 * among up to %SFU_FB_STUBS_MAX entries right below @ip's function, each
 * at most %SFU_FB_STUB_SIZE long (the next entry's start less its own,
 * alignment included), is taken to hold @ip; a longer one is a function
 * of its own, which cannot.
 *
 * Context: any the unwind runs in, NMI included.
 * Return: true if @fn lies in @ip's function, at or below @ip (its start,
 * or another entry into it), or, that not known, if @ip lies within @span
 * from @fn.
 */
bool sfu_fn_holds(const struct sfu_unwind_state *st, unsigned long fn, unsigned long ip,
		  unsigned long span)
{
	unsigned long idx, start, next;
	struct sfu_fb_table t;
	unsigned int i;

	if (fn > ip || ip - fn >= span)
		return false;
	if (!sfu_fb_table(st, ip, &t) || !sfu_fb_lookup(st, &t, ip, &idx, &start))
		return true;
	/* Another entry point past the function's start too. */
	if (fn >= start)
		return true;
	for (i = 0; i < SFU_FB_STUBS_MAX && idx; i++) {
		next = start;
		if (!sfu_fb_entry(st, &t, --idx, &start))
			return true;
		if (next - start > SFU_FB_STUB_SIZE)
			return false;
		if (fn >= start)
			return true;
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_fn_holds);
