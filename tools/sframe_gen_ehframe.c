// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, CFI side: the encodings of .eh_frame (LSB Core, "DWARF
 * Extensions", "Exception Frames") that libdw does not hand out decoded:
 * unsigned LEB128, the pointers of a CIE's 'R' encoding, and a CIE's
 * augmentation string and data.  Below every other file of the CFI
 * converter (sframe_gen_cfi.h); it calls none of them.
 */
#include <string.h>

#include "sframe_gen_cfi.h"

/* Pointer encodings of .eh_frame (LSB Core, "DWARF Exception Header Encoding"). */
#define SFG_PE_OMIT		0xff
#define SFG_PE_FORMAT(enc)	((enc) & 0x0f)
#define SFG_PE_APP(enc)		((enc) & 0x70)
#define SFG_PE_INDIRECT		0x80
#define SFG_PE_ABSPTR		0x00
#define SFG_PE_ULEB128		0x01
#define SFG_PE_UDATA2		0x02
#define SFG_PE_UDATA4		0x03
#define SFG_PE_UDATA8		0x04
#define SFG_PE_SLEB128		0x09
#define SFG_PE_SDATA2		0x0a
#define SFG_PE_SDATA4		0x0b
#define SFG_PE_SDATA8		0x0c
#define SFG_PE_PCREL		0x10

/* An unsigned LEB128 (bits beyond 64 dropped); false where it is cut short. */
bool sfg_uleb(struct sfg_cur *c, u64 *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (c->p < c->end) {
		u8 b = *c->p++;

		if (shift < 64)
			*v |= (u64)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* Step over @n bytes; false where fewer are left. */
bool sfg_skip(struct sfg_cur *c, u64 n)
{
	if (n > (u64)(c->end - c->p))
		return false;
	c->p += n;
	return true;
}

/* Read an encoded pointer; @field_addr is the address of its first byte. */
bool sfg_read_encoded(struct sfg_cur *c, u8 enc, u64 field_addr, u64 *v)
{
	unsigned int bytes = 0, i;
	u64 x = 0;

	switch (SFG_PE_FORMAT(enc)) {
	case SFG_PE_ABSPTR:
	case SFG_PE_UDATA8:
	case SFG_PE_SDATA8:
		bytes = 8;
		break;
	case SFG_PE_UDATA4:
	case SFG_PE_SDATA4:
		bytes = 4;
		break;
	case SFG_PE_UDATA2:
	case SFG_PE_SDATA2:
		bytes = 2;
		break;
	case SFG_PE_ULEB128:
		if (!sfg_uleb(c, &x))
			return false;
		break;
	default:
		/* sleb128 and the rest: not used for code addresses. */
		return false;
	}
	if (bytes) {
		if ((u64)(c->end - c->p) < bytes)
			return false;
		for (i = 0; i < bytes; i++)
			x |= (u64)c->p[i] << (8 * i);
		c->p += bytes;
		if (SFG_PE_FORMAT(enc) == SFG_PE_SDATA4)
			x = (u64)(s64)(s32)x;
		else if (SFG_PE_FORMAT(enc) == SFG_PE_SDATA2)
			x = (u64)(s64)(s16)x;
	}
	if (enc & SFG_PE_INDIRECT)
		return false;
	switch (SFG_PE_APP(enc)) {
	case 0:
		break;
	case SFG_PE_PCREL:
		x += field_addr;
		break;
	default:
		return false;
	}
	*v = x;
	return true;
}

/* Size of an encoded value at @c, for skipping it. */
static bool sfg_skip_encoded(struct sfg_cur *c, u8 enc)
{
	u64 v;

	if (enc == SFG_PE_OMIT)
		return true;
	if (SFG_PE_FORMAT(enc) == SFG_PE_SLEB128)
		return sfg_uleb(c, &v);
	return sfg_read_encoded(c, enc & 0x0f, 0, &v);
}

/*
 * What sframe-gen needs of @cie (of .eh_frame where @eh_frame, else of
 * .debug_frame); false for an augmentation it cannot step over.
 */
bool sfg_cie_parse(const Dwarf_CIE *cie, bool eh_frame, struct sfg_cie *out)
{
	struct sfg_cur c = {
		cie->augmentation_data,
		cie->augmentation_data + cie->augmentation_data_size,
	};
	const char *a = cie->augmentation;

	out->fde_enc = eh_frame ? SFG_PE_ABSPTR : SFG_PE_UDATA8;
	out->sized_aug = false;
	out->key_b = false;
	out->insns = cie->initial_instructions;
	out->insns_end = cie->initial_instructions_end;
	if (*a != 'z') {
		/* Without 'z' (as in .debug_frame) only 'S', which has no data. */
		return strspn(a, "S") == strlen(a);
	}
	out->sized_aug = true;
	for (a++; *a; a++) {
		switch (*a) {
		case 'R':
			if (c.p >= c.end)
				return false;
			out->fde_enc = *c.p++;
			break;
		case 'L':
			if (!sfg_skip(&c, 1))
				return false;
			break;
		case 'P':
			if (c.p >= c.end)
				return false;
			if (!sfg_skip_encoded(&c, *c.p++))
				return false;
			break;
		case 'B':	/* AArch64 B key */
			out->key_b = true;
			break;
		case 'S':	/* signal frame: libdw reports it */
		case 'G':	/* AArch64 MTE tagged frames */
			break;
		default:
			return false;
		}
	}
	return true;
}
