/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Go side of sframe-gen: the layout of a checked pclntab, which
 * sframe_gen_go.c reads and sframe_gen_gorows.c makes rows from.  The
 * rest of sframe-gen sees only struct sfg_go's name.
 */
#ifndef _SFRAME_GEN_GO_H
#define _SFRAME_GEN_GO_H

#include "sframe_gen_internal.h"

/* One function of the functab: [entry, end) and where its _func fields are. */
struct sfg_go_fn {
	u64 entry;
	u64 end;		/* the next function's entry */
	u64 name;		/* offset of its name in the pclntab */
	u32 pcsp;		/* offset into pctab, 0: none */
	u8 id;			/* funcID (numbering differs between versions) */
	u8 flag;
	bool injected;		/* entered by an injected call (sfg_go_load()) */
};

struct sfg_go_rel {
	u64 addr;
	u64 addend;
};

struct sfg_go_text {
	u64 lo;
	u64 hi;
	const u8 *p;
};

/* A checked pclntab (sframe_gen_go.c); its rows: sframe_gen_gorows.c. */
struct sfg_go {
	const u8 *d;		/* the pclntab, from its pcHeader on */
	u64 size;
	u64 addr;
	u16 version;		/* 116, 118, 120 */
	u8 quantum;
	u64 nfunc;
	u64 text_start;
	u64 names;		/* offsets of funcnametab, pctab, functab */
	u64 pctab;
	u64 pcln;
	bool flags_used;	/* some function has a flag: Go 1.17 or later */
	struct sfg_go_fn *fn;
	struct sfg_go_rel *rel;
	size_t nrel;
	struct sfg_go_text *xs;
	size_t nxs;
	struct sfg_arch arch;
};

/* @n bytes of text at @addr, if one executable section holds them all. */
static inline const u8 *sfg_go_code(const struct sfg_go *go, u64 addr, u64 n)
{
	size_t i;

	for (i = 0; i < go->nxs; i++)
		if (addr >= go->xs[i].lo && addr <= go->xs[i].hi && n <= go->xs[i].hi - addr)
			return go->xs[i].p + (addr - go->xs[i].lo);
	return NULL;
}

/* abi.FuncFlag (runtime/symtab.go funcFlag before Go 1.21); none in 1.16 */
#define SFG_GO_F_TOPFRAME	0x1
#define SFG_GO_F_SPWRITE	0x2

#endif /* _SFRAME_GEN_GO_H */
