// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, Go side: the rows of each function of a checked pclntab
 * (sframe_gen_go.c), from its pcsp table and the shape of its prologue,
 * and the merge of their section with the CFI's.
 *
 *   x86_64  CFA = SP + delta + 8, RA at CFA - 8, the caller's BP at
 *           CFA - 16 from the instruction after the prologue saved it
 *   aarch64 delta 0: CFA = SP, RA in LR; else CFA = SP + delta, RA at
 *           CFA - delta (0(RSP)) and FP at CFA - delta - 8 (-8(RSP))
 *
 * A frame whose saved frame pointer the prologue's bytes do not prove
 * gets no rows (SFG_GO_FP); TOPFRAME functions are outermost rows;
 * SPWRITE functions, which switch stacks, get none (SFG_GO_SPWRITE).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>

#include "sframe/sframe.h"
#include "sframe_gen_go.h"

/* Deltas SFrame's 32-bit offsets hold with the RA slot and the fault. */
#define SFG_GO_MAX_DELTA	(INT32_MAX - 64)
/* Bytes an aarch64 signal handler pushes below an injected call (LR, aligned). */
#define SFG_GO_LR_PUSHED	16

/* A pcsp table: Go's pcvalue encoding (zig-zag value delta, PC delta in quanta). */
struct sfg_go_it {
	const u8 *p;
	const u8 *end;
	u64 pc;
	s64 val;
	bool first;
};

static bool sfg_go_varint(struct sfg_go_it *it, u32 *v)
{
	unsigned int shift;

	*v = 0;
	for (shift = 0; shift < 35 && it->p < it->end; shift += 7) {
		u8 b = *it->p++;

		*v |= (u32)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return shift < 28 || b < 16;
	}
	return false;
}

/* 1: a row [*lo, it->pc) with value it->val; 0: the end; -1: malformed. */
static int sfg_go_step(const struct sfg_go *go, struct sfg_go_it *it, u64 fend, u64 *lo)
{
	u32 uv, pcd;

	if (!sfg_go_varint(it, &uv))
		return -1;
	if (!uv && !it->first)
		return 0;
	it->first = false;
	if (!sfg_go_varint(it, &pcd) || !pcd)
		return -1;
	*lo = it->pc;
	it->val += (uv & 1) ? -(s64)(uv >> 1) - 1 : (s64)(uv >> 1);
	/*
	 * A negative delta is real: aarch64's asyncPreempt and debugCallV2
	 * pop the 16 bytes the signal handler pushed.  Its rows get none.
	 */
	if ((u64)pcd * go->quantum > fend - it->pc || it->val < -SFG_GO_MAX_DELTA ||
	    it->val > SFG_GO_MAX_DELTA)
		return -1;
	it->pc += (u64)pcd * go->quantum;
	return 1;
}

/* A row [lo, hi) of one function, none where it is empty. */
static int sfg_go_add(struct sfg_rows *w, u64 lo, u64 hi, u8 reason, const struct sfg_rule *r)
{
	if (lo >= hi)
		return 0;
	return sfg_rows_add(w, lo, hi, reason, r);
}

static bool sfg_go_named(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

/*
 * Go 1.16 has no function flags: the functions 1.17 flags TOPFRAME, and
 * those that switch stacks (all SPWRITE since), are known by name.
 */
static const char *const sfg_go_top_names[] = {
	"runtime.goexit", "runtime.mstart", "runtime.rt0_go", "runtime.sigtramp",
	"runtime.cgoSigtramp", NULL,
};

static const char *const sfg_go_switch_names[] = {
	"runtime.systemstack", "runtime.mcall", "runtime.morestack", "runtime.gogo",
	"runtime.asmcgocall", "runtime.cgocallback", "runtime.sigreturn",
	"runtime.sigreturn__sigaction", "runtime.clone", NULL,
};

static u32 sfg_go_insn(const struct sfg_go *go, u64 addr)
{
	const u8 *p = sfg_go_code(go, addr, 4);

	return p ? (u32)sfg_le(p, 4) : 0;
}

/*
 * Where the caller's frame pointer is not yet saved in a frame of @x
 * bytes whose first PC is @p1: [*s0, *s1), empty when it is saved from
 * @p1 on.  Return false for a prologue of another shape.
 *
 * x86_64, Go 1.20 and earlier: SUBQ $x, SP; MOVQ BP, x-8(SP); LEAQ
 * x-8(SP), BP (cmd/internal/obj/x86/obj6.go): not saved during the MOVQ.
 * Go 1.21 and later: PUSHQ BP; MOVQ SP, BP; SUBQ $x-8, SP: saved at once.
 * aarch64 (obj7.go), small frames: MOVD.W R30, -x(RSP); MOVD R29,
 * -8(RSP): not saved during the second; large ones: SUB $x, RSP, R20;
 * STP (R29, R30), -8(R20); MOVD R20, RSP: saved at once.
 */
/* Whether the bytes at @addr are @n bytes of @want. */
static bool sfg_go_match(const struct sfg_go *go, u64 addr, const u8 *want, u64 n)
{
	const u8 *p = sfg_go_code(go, addr, n);

	return p && !memcmp(p, want, n);
}

static bool sfg_go_fp_window(const struct sfg_go *go, u64 p1, s64 x, u64 *s0, u64 *s1)
{
	u8 mov[8] = { 0x48, 0x89, 0x6c, 0x24 }, lea[8] = { 0x48, 0x8d, 0x6c, 0x24 };
	static const u8 push_bp = 0x55, mov_sp_bp[] = { 0x48, 0x89, 0xe5 };

	*s0 = p1;
	*s1 = p1;
	if (!go->arch.fixed_ra) {
		if (x <= 0xf0 && p1 >= 4 &&
		    sfg_go_insn(go, p1 - 4) == (0xf8000ffeU | (((u32)-x & 0x1ff) << 12)) &&
		    sfg_go_insn(go, p1) == 0xf81f83fdU) {
			*s1 = p1 + 4;
			return true;
		}
		return p1 >= 8 && sfg_go_insn(go, p1 - 4) == 0x9100029fU &&
		       sfg_go_insn(go, p1 - 8) == 0xa93ffa9dU;
	}
	if (x == 8 && p1 && sfg_go_match(go, p1 - 1, &push_bp, 1) &&
	    sfg_go_match(go, p1, mov_sp_bp, 3))
		return true;
	/* MOVQ BP, d(SP) and LEAQ d(SP), BP: no, 8-bit or 32-bit displacement. */
	if (x == 8) {
		mov[2] = 0x2c;
		lea[2] = 0x2c;
		*s1 = p1 + 4;
	} else if (x - 8 <= 127) {
		mov[4] = (u8)(x - 8);
		lea[4] = (u8)(x - 8);
		*s1 = p1 + 5;
	} else {
		mov[2] = 0xac;
		lea[2] = 0xac;
		sfg_put(mov + 4, (u64)(x - 8), 4);
		sfg_put(lea + 4, (u64)(x - 8), 4);
		*s1 = p1 + 8;
	}
	return sfg_go_match(go, p1, mov, *s1 - p1) && sfg_go_match(go, *s1, lea, *s1 - p1);
}

/*
 * aarch64's asyncPreempt and debugCallV2 (assembly) save the frame their
 * own way, RA at 0(RSP) and FP at -8(RSP) as the compiler's frames:
 * asyncPreempt "MOVD R30, -x(RSP)" (through R27: MOVD $-x, R27; MOVD R30,
 * (RSP)(R27), or since Go 1.24 SUB $x, RSP, R27; MOVD R30, (R27)), SUB $x,
 * RSP, then MOVD R29, -8(RSP) (FP not saved during it); debugCallV2 STP
 * (R29, R30), -(x+8)(RSP), SUB $x, RSP (saved at once).  @p1 is the first
 * PC of delta @x; see sfg_go_fp_window().
 */
static bool sfg_go_fp_window_injected(const struct sfg_go *go, u64 p1, s64 x, u64 *s0,
				      u64 *s1)
{
	u32 imm7 = (u32)(-(x + 8) / 8) & 0x7f;

	*s0 = p1;
	*s1 = p1;
	if (go->arch.fixed_ra || x <= 0 || x >= 4096 || x % 8 || p1 < 8 ||
	    sfg_go_insn(go, p1 - 4) != (0xd10003ffU | (u32)x << 10))
		return false;
	if ((sfg_go_insn(go, p1 - 8) == 0xf83b6bfeU ||
	     (p1 >= 12 && sfg_go_insn(go, p1 - 8) == 0xf900037eU &&
	      sfg_go_insn(go, p1 - 12) == (0xd10003fbU | (u32)x << 10))) &&
	    sfg_go_insn(go, p1) == 0xf81f83fdU) {
		*s1 = p1 + 4;
		return true;
	}
	return x + 8 <= 512 && sfg_go_insn(go, p1 - 8) == (0xa9007bfdU | imm7 << 15);
}

/*
 * The rule at a PC of delta @x of function @fn, with the frame pointer
 * saved or not.  On aarch64 a function entered by an injected call has 16
 * more bytes below its caller's SP: the signal handler stored LR there
 * before it faked the call (sigctxt.pushCall, preparePanic), and the
 * runtime's traceback steps over them (traceback.go: usesLR &&
 * injectedCall).  The CFA, the caller's SP, is 16 bytes higher.
 */
static void sfg_go_rule(const struct sfg_go *go, const struct sfg_go_fn *fn, s64 x,
			bool fp_saved, bool fault, struct sfg_rule *r)
{
	const struct sfg_arch *a = &go->arch;
	s32 pushed = fn->injected && !a->fixed_ra ? SFG_GO_LR_PUSHED : 0;

	memset(r, 0, sizeof(*r));
	r->cfa_reg = a->sp;
	r->cfa_off = (s32)x + (a->fixed_ra ? 8 : 0) + (fault && x ? 8 : 0) + pushed;
	if (a->fixed_ra) {
		r->ra = (struct sfg_loc){ .kind = SFG_LOC_CFA, .off = -8 };
		if (x && fp_saved)
			r->fp = (struct sfg_loc){ .kind = SFG_LOC_CFA, .off = -16 };
	} else if (x) {
		/* 0(RSP) and -8(RSP) */
		r->ra = (struct sfg_loc){ .kind = SFG_LOC_CFA, .off = (s32)-(x + pushed) };
		if (fp_saved)
			r->fp = (struct sfg_loc){ .kind = SFG_LOC_CFA,
						  .off = (s32)-(x + pushed + 8) };
	}
	/* Go saves no register but BP across a call. */
	if (a->saved_reg)
		r->saved = SFG_SAVED_LOST;
}

/*
 * Decode the pcsp table of @fn into delta rows (reason SFG_ROW_OK, the
 * delta in rule.cfa_off).  Return 0, 1 for a table that is malformed or
 * missing, or -SFG_E_NOMEM.
 */
static int sfg_go_pcsp(const struct sfg_go *go, const struct sfg_go_fn *fn, struct sfg_rows *d)
{
	struct sfg_go_it it = {
		.p = go->d + go->pctab + fn->pcsp, .end = go->d + go->size,
		.pc = fn->entry, .val = -1, .first = true,
	};
	u64 lo;
	int r, err;

	d->n = 0;
	if (!fn->pcsp)
		return 1;
	while ((r = sfg_go_step(go, &it, fn->end, &lo)) > 0) {
		err = sfg_go_add(d, lo, it.pc, SFG_ROW_OK, NULL);
		if (err)
			return err;
		d->v[d->n - 1].rule.cfa_off = (s32)it.val;
	}
	return r < 0 || !d->n ? 1 : 0;
}

/* One function's rows being made, and what its prologue showed. */
struct sfg_go_frows {
	const struct sfg_go *go;
	const struct sfg_go_fn *fn;
	bool fault;		/* --inject-fault names it */
	u64 s0;			/* [s0, s1): its frame pointer not saved yet */
	u64 s1;
	bool after;		/* a frame of it was set up before */
};

/*
 * The rows of [lo, hi), with an SP delta of @x, into @w: split where the
 * frame pointer is not saved yet, and at the aarch64 leaf epilogue's SUB
 * $8, RSP, R29 (FP recomputed after the frame is gone).
 */
static int sfg_go_delta_rows(struct sfg_go_frows *f, u64 lo, u64 hi, s64 x, struct sfg_rows *w)
{
	struct sfg_rule rule;
	int err = 0;

	if (x < 0)
		return sfg_go_add(w, lo, hi, SFG_GO_PCSP, NULL);
	if (x) {
		f->after = true;
		/* [lo, hi) less [s0, s1), where FP is not saved yet. */
		sfg_go_rule(f->go, f->fn, x, true, f->fault, &rule);
		err = sfg_go_add(w, lo, min(hi, f->s0), SFG_ROW_OK, &rule);
		if (!err && f->s0 < hi && f->s1 > lo) {
			sfg_go_rule(f->go, f->fn, x, false, f->fault, &rule);
			err = sfg_go_add(w, lo > f->s0 ? lo : f->s0, min(hi, f->s1), SFG_ROW_OK,
					 &rule);
		}
		sfg_go_rule(f->go, f->fn, x, true, f->fault, &rule);
		if (!err)
			err = sfg_go_add(w, (lo > f->s1 ? lo : f->s1), hi, SFG_ROW_OK, &rule);
		return err;
	}
	sfg_go_rule(f->go, f->fn, 0, false, f->fault, &rule);
	if (f->after && !f->go->arch.fixed_ra && sfg_go_insn(f->go, lo) == 0xd10023fdU) {
		/* SUB $8, RSP, R29 after a leaf's ADD: FP is the callee's. */
		err = sfg_go_add(w, lo, min(hi, lo + 4), SFG_GO_FP, NULL);
		lo = min(hi, lo + 4);
	}
	if (!err)
		err = sfg_go_add(w, lo, hi, SFG_ROW_OK, &rule);
	return err;
}

/* Whether --inject-fault's comma-separated list names function @name. */
static bool sfg_go_faulty(const char *name)
{
	const char *p = sfg_go_fault;
	size_t len = strlen(name);

	while (p && *p) {
		const char *end = strchr(p, ',') ?: p + strlen(p);

		if ((size_t)(end - p) == len && !memcmp(p, name, len))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

/* The rows of function @i into @w (@d: scratch for its delta rows). */
static int sfg_go_rows(const struct sfg_go *go, u64 i, struct sfg_rows *w, struct sfg_rows *d)
{
	const struct sfg_go_fn *fn = &go->fn[i];
	const char *name = (const char *)go->d + fn->name;
	struct sfg_go_frows f = {
		.go = go, .fn = fn, .fault = sfg_go_faulty(name),
	};
	u64 k, end, p1 = 0;
	struct sfg_rule rule;
	s64 x1 = 0;
	int err, bad;

	w->n = 0;
	bad = sfg_go_pcsp(go, fn, d);
	if (bad < 0)
		return bad;
	end = bad ? fn->end : d->v[d->n - 1].end;
	if ((fn->flag & SFG_GO_F_TOPFRAME) ||
	    (!go->flags_used && sfg_go_named(name, sfg_go_top_names))) {
		memset(&rule, 0, sizeof(rule));
		rule.outermost = true;
		return sfg_go_add(w, fn->entry, end, SFG_ROW_OK, &rule);
	}
	if ((fn->flag & SFG_GO_F_SPWRITE) ||
	    (!go->flags_used && sfg_go_named(name, sfg_go_switch_names)))
		return sfg_go_add(w, fn->entry, end, SFG_GO_SPWRITE, NULL);
	if (bad)
		return sfg_go_add(w, fn->entry, end, SFG_GO_PCSP, NULL);
	for (k = 0; k < d->n && !p1; k++)
		if (d->v[k].rule.cfa_off > 0) {
			p1 = d->v[k].start;
			x1 = d->v[k].rule.cfa_off;
		}
	if (p1 && !sfg_go_fp_window(go, p1, x1, &f.s0, &f.s1) &&
	    !(fn->injected && sfg_go_fp_window_injected(go, p1, x1, &f.s0, &f.s1)))
		return sfg_go_add(w, fn->entry, end, SFG_GO_FP, NULL);
	for (k = 0, err = 0; !err && k < d->n; k++)
		err = sfg_go_delta_rows(&f, d->v[k].start, d->v[k].end, d->v[k].rule.cfa_off, w);
	return err;
}

/**
 * sfg_go_func_status() - what sframe-gen writes for one function
 * @go: the table
 * @i: index below sfg_go_nfuncs()
 *
 * Return: "rows" (every byte its pcsp table covers has a row),
 * "outermost", the reason of its first row without rules
 * ("go-spwrite", "go-fp", "go-bad-pcsp"), or "partial:" and that reason.
 */
const char *sfg_go_func_status(const struct sfg_go *go, u64 i)
{
	static char buf[64];
	struct sfg_rows w = { 0 }, d = { 0 };
	const char *s = "rows";
	u32 k, ok = 0;

	if (sfg_go_rows(go, i, &w, &d)) {
		s = "error";
		goto out;
	}
	for (k = 0; k < w.n; k++)
		ok += w.v[k].reason == SFG_ROW_OK;
	if (ok && w.v[0].rule.outermost)
		s = "outermost";
	for (k = 0; k < w.n; k++) {
		if (w.v[k].reason == SFG_ROW_OK)
			continue;
		snprintf(buf, sizeof(buf), "%s%s", ok ? "partial:" : "",
			 sfg_reason_name(w.v[k].reason));
		s = buf;
		break;
	}
out:
	free(w.v);
	free(d.v);
	return s;
}

/**
 * sfg_go_convert() - feed the rows of every Go function to the emitter
 * @go: the table, its ABI set with sfg_go_arch()
 * @text: the executable ranges the coverage figures count
 * @own: sorted, disjoint ranges of the file's own SFrame FDEs, or NULL: a
 *       function sharing a byte with them gets no rows (SFG_OWN_SFRAME)
 * @em: emitter; functions come in address order
 * @st: go_* figures, covered and uncovered bytes
 *
 * Return: 0 or -SFG_E_xxx.
 */
int sfg_go_convert(const struct sfg_go *go, const struct sfg_text *text,
		   const struct sfg_text *own, struct sfg_emit *em, struct sfg_stats *st)
{
	struct sfg_rows w = { 0 }, d = { 0 };
	int err = 0;
	u64 i;
	u32 k;

	st->go_version = go->version;
	st->go_funcs = go->nfunc;
	for (i = 0; !err && i < go->nfunc; i++) {
		const struct sfg_go_fn *fn = &go->fn[i];

		if (own && sfg_text_bytes_in(own, fn->entry, fn->end)) {
			w.n = 0;
			err = sfg_go_add(&w, fn->entry, fn->end, SFG_OWN_SFRAME, NULL);
		} else {
			err = sfg_go_rows(go, i, &w, &d);
		}
		for (k = 0; !err && k < w.n; k++) {
			u64 b = sfg_text_bytes_in(text, w.v[k].start, w.v[k].end);

			if (w.v[k].reason != SFG_ROW_OK) {
				st->uncovered[w.v[k].reason] += b;
				continue;
			}
			st->covered_bytes += b;
			st->go_covered_bytes += b;
		}
		if (!err && w.n) {
			st->go_topframe += w.v[0].reason == SFG_ROW_OK &&
					   w.v[0].rule.outermost;
			st->go_spwrite += w.v[0].reason == SFG_GO_SPWRITE;
			err = sfg_emit_fde(em, w.v, w.n, 0,
					   fn->injected ? SFRAME_V3_FDE_INFO2_SFU_INJECTED : 0);
		}
	}
	free(w.v);
	free(d.v);
	return err;
}

/* The absolute function start of FDE @i of a section placed at @vaddr. */
static u64 sfg_fde_start(const u8 *sec, u64 i, u64 vaddr)
{
	u64 field = SFRAME_HDR_SIZE + i * SFRAME_V3_FDE_BYTES;

	return vaddr + field + sfg_le(sec + field + SFRAME_V3_FDE_START, 8);
}

/**
 * sfg_section_merge() - one section from two the emitter wrote
 * @a: a section (the CFI's)
 * @b: another of the same ABI and flags (the pclntab's), no FDE of which
 *     overlaps one of @a
 * @vaddr: the address both were made for
 * @out: the FDEs of both in address order, the FREs of @a then of @b;
 *       checked with the decoder
 *
 * Return: 0, -SFG_E_LIMIT, -SFG_E_NOMEM or -SFG_E_INTERNAL.
 */
int sfg_section_merge(const struct sfg_output *a, const struct sfg_output *b, u64 vaddr,
		      struct sfg_output *out)
{
	u64 na = sfg_le(a->buf + SFRAME_HDR_NUM_FDES, 4);
	u64 nb = sfg_le(b->buf + SFRAME_HDR_NUM_FDES, 4);
	u64 fa = sfg_le(a->buf + SFRAME_HDR_FRE_LEN, 4);
	u64 fb = sfg_le(b->buf + SFRAME_HDR_FRE_LEN, 4);
	u64 n = na + nb, len = SFRAME_HDR_SIZE + n * SFRAME_V3_FDE_BYTES + fa + fb, i = 0, j = 0, k;
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_BUFFER };
	struct sfu_sframe_section sec;
	u8 *buf, *fres;

	if (len > SFRAME_MAX_SECTION_SIZE || n > SFRAME_MAX_FDES || fa + fb > UINT32_MAX)
		return -SFG_E_LIMIT;
	buf = calloc(1, len);
	if (!buf)
		return -SFG_E_NOMEM;
	memcpy(buf, a->buf, SFRAME_HDR_SIZE);
	buf[SFRAME_HDR_FLAGS] |= b->buf[SFRAME_HDR_FLAGS];
	sfg_put(buf + SFRAME_HDR_NUM_FDES, n, 4);
	sfg_put(buf + SFRAME_HDR_NUM_FRES, sfg_le(a->buf + SFRAME_HDR_NUM_FRES, 4) +
		sfg_le(b->buf + SFRAME_HDR_NUM_FRES, 4), 4);
	sfg_put(buf + SFRAME_HDR_FRE_LEN, fa + fb, 4);
	sfg_put(buf + SFRAME_HDR_FREOFF, n * SFRAME_V3_FDE_BYTES, 4);
	fres = buf + SFRAME_HDR_SIZE + n * SFRAME_V3_FDE_BYTES;
	memcpy(fres, a->buf + a->len - fa, fa);
	memcpy(fres + fa, b->buf + b->len - fb, fb);
	for (k = 0; k < n; k++) {
		bool from_a = j == nb || (i < na && sfg_fde_start(a->buf, i, vaddr) <
						     sfg_fde_start(b->buf, j, vaddr));
		const u8 *src = from_a ? a->buf : b->buf;
		u64 idx = from_a ? i++ : j++, field = SFRAME_HDR_SIZE + k * SFRAME_V3_FDE_BYTES;
		const u8 *e = src + SFRAME_HDR_SIZE + idx * SFRAME_V3_FDE_BYTES;

		sfg_put(buf + field + SFRAME_V3_FDE_START,
			sfg_fde_start(src, idx, vaddr) - (vaddr + field), 8);
		memcpy(buf + field + SFRAME_V3_FDE_SIZE, e + SFRAME_V3_FDE_SIZE, 4);
		sfg_put(buf + field + SFRAME_V3_FDE_FRE_OFF,
			sfg_le(e + SFRAME_V3_FDE_FRE_OFF, 4) + (from_a ? 0 : fa), 4);
	}
	r.buf = buf;
	r.size = len;
	if (sfu_sframe_section_init(&sec, &r, vaddr, a->abi) || sfu_sframe_section_validate(&sec)) {
		free(buf);
		return -SFG_E_INTERNAL;
	}
	out->buf = buf;
	out->len = len;
	out->abi = a->abi;
	out->stats.fdes = n;
	out->stats.fres = sfg_le(buf + SFRAME_HDR_NUM_FRES, 4);
	out->stats.sframe_bytes = len;
	return 0;
}
