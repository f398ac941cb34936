// SPDX-License-Identifier: GPL-2.0
/*
 * The decoder's lookup: the row for a PC, trusting no byte of the section
 * (it may have changed since validation): a binary search of the FDEs in
 * batches, then -- for a function of many FREs, through the section's FRE
 * index -- a scan of at most SFRAME_FRE_SCAN_MAX of the function's FREs
 * that steps over them with the sframe_fre_tail[] table and decodes only
 * the one that matches.
 */
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/string.h>
#include <linux/overflow.h>

#include "sframe_unwind/compat/export.h"

#include "decode.h"
#include "sframe.h"

/*
 * Bytes of an FRE after its start offset (the info byte and the data
 * words) by info byte, so that a lookup can step over an FRE without
 * decoding it; 0 for an invalid info byte (word size code 3, or more than
 * SFRAME_FRE_MAX_WORDS words).  Row n is info bytes 16n to 16n + 15: bits
 * 1-4 are the word count, 5-6 the word size; bit 0 (CFA base) and bit 7
 * (RA mangled) do not change the size.  sfu_sframe_fre_read() computes the
 * same sizes from the fields.  Seven and eight words are valid only in a
 * section with SFRAME_F_SFU_SAVED_REGS: an FRE stepped over is only
 * measured, the one found is checked against its section's limit by
 * sframe_fre_decode().
 */
static const u8 sframe_fre_tail[256] = {
	1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8,		/* 1-byte words */
	9, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15,	/* 2-byte words */
	17, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 5, 5, 9, 9, 13, 13, 17, 17, 21, 21, 25, 25, 29, 29, /* 4-byte words */
	33, 33, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,		/* size code 3 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8,		/* RA mangled */
	9, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15,
	17, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 5, 5, 9, 9, 13, 13, 17, 17, 21, 21, 25, 25, 29, 29,
	33, 33, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/*
 * Bytes a lookup copies at once from user memory: some 30 FREs of the
 * usual 3 to 5 bytes, or the FDEs left for the last probes of the binary
 * search.  A copy does not cross a 4 KiB boundary (the smallest page size):
 * an FRE just before one is read on its own, so that a no-fault lookup
 * does not fail on a page it would not have read one FRE at a time.
 */
#define SFRAME_WINDOW_BYTES	128
#define SFRAME_WINDOW_PAGE	4096

/**
 * struct sframe_fde_batch - FDE entries copied from user memory at once
 * @first: index of the FDE at @buf[0]
 * @count: FDEs in @buf, 0 before the copy
 * @buf: their bytes
 *
 * The last probes of a binary search fall in a few neighbouring FDEs:
 * once those fit in @buf they are copied with one read instead of one per
 * probe.
 */
struct sframe_fde_batch {
	u32 first;
	u32 count;
	u8 buf[SFRAME_WINDOW_BYTES];
};

/*
 * Copy FDEs @first to @first + @count - 1 from user memory into @b, if they
 * fit and lie in one 4 KiB page: the page of the FDE the search ends at,
 * so that a no-fault lookup reads no page it would not read otherwise.
 */
static int sframe_fde_batch_fill(const struct sfu_sframe_section *sec, struct sframe_fde_batch *b,
				 u32 first, u32 count)
{
	u64 off = sec->fde_off + (u64)first * sec->fde_size;
	u64 len = (u64)count * sec->fde_size;
	u64 page = SFRAME_WINDOW_PAGE - ((sec->reader.uaddr + off) & (SFRAME_WINDOW_PAGE - 1));
	const u8 *p;
	int err;

	if (len > sizeof(b->buf) || len > page)
		return 0;
	err = sfu_sframe_read_ptr(&sec->reader, off, len, b->buf, &p);
	if (err)
		return err;
	b->first = first;
	b->count = count;
	return 0;
}

/*
 * Start address of FDE @i for the binary search, modulo 2^64: one that
 * would wrap (validation refuses it) only steers the search like an
 * unsorted FDE does, and the FDE the search ends at is checked in full by
 * sfu_sframe_fde_get().  The start field is read from @tab, the FDE array in
 * place, or if @user from @b or else user memory.
 */
static __always_inline int sframe_fde_probe(const struct sfu_sframe_section *sec, bool user,
					    const u8 *tab, struct sframe_fde_batch *b, u32 i,
					    u32 size, bool wide, bool pcrel, u64 *start)
{
	u64 off = (u64)i * size;
	const u8 *p;
	u8 buf[8];
	s64 rel;
	int err;

	if (!user) {
		p = tab + off;
	} else if (i - b->first < b->count) {
		p = b->buf + (u64)(i - b->first) * size;
	} else {
		err = sfu_sframe_read_ptr(&sec->reader, sec->fde_off + off, wide ? 8 : 4, buf, &p);
		if (err)
			return err;
	}
	rel = wide ? (s64)sframe_le64(p) : (s32)sframe_le32(p);
	*start = sec->vaddr + rel + (pcrel ? sec->fde_off + off : 0);
	return 0;
}

/*
 * Binary search for the first FDE that starts after @pc: *@idx FDEs start
 * at or before it if the FDEs are sorted.  Shar's form: a first probe
 * leaves a power-of-two range, then each probe halves it, so that a probe
 * of a buffer is a load, an add, a compare and a conditional move; 22
 * probes at most (SFRAME_MAX_FDES).  Inlined with a constant layout for
 * each version.  In user memory the FDEs left for the last probes are
 * copied at once.
 */
static __always_inline int sframe_fde_search(const struct sfu_sframe_section *sec, bool user,
					     const u8 *tab, u32 size, bool wide, bool pcrel, u64 pc,
					     u32 *idx)
{
	u32 n = sec->num_fdes, i = 0, k;
	struct sframe_fde_batch b;
	u64 start;
	int err;

	*idx = 0;
	if (!n)
		return 0;
	if (user) {
		b.first = 0;
		b.count = 0;
		err = sframe_fde_batch_fill(sec, &b, 0, n);
		if (err)
			return err;
	}
	/* The first FDE after pc is one of FDEs i to i + k. */
	k = 1U << (31 - __builtin_clz(n));
	err = sframe_fde_probe(sec, user, tab, &b, k - 1, size, wide, pcrel, &start);
	if (err)
		return err;
	if (start <= pc)
		i = n - k;
	for (k >>= 1; k; k >>= 1) {
		/* The probes left are of FDEs i to i + 2k - 1, all below n. */
		if (user && !b.count) {
			err = sframe_fde_batch_fill(sec, &b, i, 2 * k);
			if (err)
				return err;
		}
		err = sframe_fde_probe(sec, user, tab, &b, i + k - 1, size, wide, pcrel, &start);
		if (err)
			return err;
		if (start <= pc)
			i += k;
	}
	err = sframe_fde_probe(sec, user, tab, &b, i, size, wide, pcrel, &start);
	if (err)
		return err;
	*idx = i + (start <= pc);
	return 0;
}

/* Index of the first FDE that starts after @pc (if they are sorted). */
static int sframe_fde_find(const struct sfu_sframe_section *sec, u64 pc, u32 *idx)
{
	bool pcrel = sec->flags & SFRAME_F_FDE_FUNC_START_PCREL;
	const u8 *tab;
	int err;

	if (sec->reader.kind != SFRAME_READER_BUFFER)
		return sframe_fde_search(sec, true, NULL, sec->fde_size,
					 sec->fde_size == SFRAME_V3_FDE_BYTES, pcrel, pc, idx);

	/* The whole FDE array in place: one bounds check for every probe. */
	err = sfu_sframe_read_ptr(&sec->reader, sec->fde_off, (u64)sec->num_fdes * sec->fde_size,
				  NULL, &tab);
	if (err)
		return err;
	switch (sec->version) {
	case SFRAME_VERSION_1:
		return pcrel ? sframe_fde_search(sec, false, tab, SFRAME_V1_FDE_BYTES,
						 false, true, pc, idx) :
			       sframe_fde_search(sec, false, tab, SFRAME_V1_FDE_BYTES,
						 false, false, pc, idx);
	case SFRAME_VERSION_2:
		return pcrel ? sframe_fde_search(sec, false, tab, SFRAME_V2_FDE_BYTES,
						 false, true, pc, idx) :
			       sframe_fde_search(sec, false, tab, SFRAME_V2_FDE_BYTES,
						 false, false, pc, idx);
	default:
		if (sec->flags & SFRAME_F_SFU_NARROW_INDEX)
			return pcrel ? sframe_fde_search(sec, false, tab, SFRAME_V3N_FDE_BYTES,
							 false, true, pc, idx) :
				       sframe_fde_search(sec, false, tab, SFRAME_V3N_FDE_BYTES,
							 false, false, pc, idx);
		return pcrel ? sframe_fde_search(sec, false, tab, SFRAME_V3_FDE_BYTES,
						 true, true, pc, idx) :
			       sframe_fde_search(sec, false, tab, SFRAME_V3_FDE_BYTES,
						 true, false, pc, idx);
	}
}

/*
 * Bytes from FRE sub-section offset @pos that one window read may take:
 * the rest of the sub-section for a buffer; for user memory at most
 * SFRAME_WINDOW_BYTES, and not past the next 4 KiB boundary.
 */
static u64 sframe_window_room(const struct sfu_sframe_section *sec, u64 pos)
{
	u64 room = sec->fre_end - pos, page;

	if (sec->reader.kind == SFRAME_READER_BUFFER)
		return room;
	page = SFRAME_WINDOW_PAGE - ((sec->reader.uaddr + pos) & (SFRAME_WINDOW_PAGE - 1));
	return min_t(u64, min(room, page), SFRAME_WINDOW_BYTES);
}

/**
 * struct sframe_fre_span - the FREs of a function that a lookup may read
 * @pos: section offset of the first of them
 * @count: how many: at most SFRAME_FRE_SCAN_MAX
 * @next_min: the least start offset the first may have: 0, or the start
 *            of the index mark the scan starts at
 * @more: the function has FREs after these, which the scan must not need
 */
struct sframe_fre_span {
	u64 pos;
	u32 count;
	u32 next_min;
	bool more;
};

/*
 * Where the FRE scan for @target starts in @fde's FREs, and how many FREs
 * it may read.  A function of up to SFRAME_FRE_INDEX_STRIDE FREs is
 * scanned whole.  A longer one needs the section's FRE index: a binary
 * search finds the function among the indexed ones, another the last of
 * its marks that starts at or before @target, and the scan reads the
 * SFRAME_FRE_INDEX_STRIDE FREs from that mark on and the one after, which
 * is the next mark and starts after @target -- SFRAME_FRE_SCAN_MAX FREs.
 *
 * The index is the one the caller built, but the section's bytes may have
 * changed since: the mark's offset is checked against the FRE sub-section,
 * its start becomes the least start the scan accepts (so the scan still
 * checks the FRE order), and the FREs left come from the FDE read now.
 * Bytes that no longer match the index give a wrong but bounded row or an
 * error, never a read outside the section or a longer scan.
 */
static int sframe_fre_span_find(const struct sfu_sframe_section *sec,
				const struct sfu_sframe_fde *fde, u32 target,
				struct sframe_fre_span *span)
{
	const struct sfu_sframe_fre_index *ix = sec->fre_index;
	const struct sfu_sframe_fre_mark *marks;
	u32 lo, hi, mid, n;
	u64 skip;

	span->pos = fde->fres_off;
	span->count = fde->num_fres;
	span->next_min = 0;
	span->more = false;
	if (fde->num_fres <= SFRAME_FRE_INDEX_STRIDE)
		return 0;
	if (!ix)
		return -SFRAME_E_NO_INDEX;

	/* The function's entry: the entries are sorted by FDE index. */
	lo = 0;
	hi = ix->nr_fdes;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ix->fdes[mid].fde_idx < fde->idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ix->nr_fdes || ix->fdes[lo].fde_idx != fde->idx)
		return -SFRAME_E_NO_INDEX;
	marks = ix->marks + ix->fdes[lo].first;
	n = ix->fdes[lo + 1].first - ix->fdes[lo].first;

	/* Its marks that start at or before target: mark i is FRE (i + 1) * STRIDE. */
	lo = 0;
	hi = n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (marks[mid].start <= target)
			lo = mid + 1;
		else
			hi = mid;
	}
	skip = (u64)lo * SFRAME_FRE_INDEX_STRIDE;
	if (skip >= fde->num_fres)
		return -SFRAME_E_BAD_FDE;	/* fewer FREs than the index has marks */
	if (lo) {
		if (marks[lo - 1].off > sec->fre_end - fde->fres_off)
			return -SFRAME_E_BAD_FDE;
		span->pos += marks[lo - 1].off;
		span->next_min = marks[lo - 1].start;
	}
	span->count = min_t(u64, fde->num_fres - skip, SFRAME_FRE_SCAN_MAX);
	span->more = fde->num_fres - skip > SFRAME_FRE_SCAN_MAX;
	return 0;
}

/**
 * struct sframe_fre_scan - where sframe_fre_find() is in a function's FREs
 * @sec: the section
 * @fde: the function
 * @fre: where the FRE found goes, with its data words
 * @q: the FRE at section offset @pos, with @room bytes at hand there
 * @pos: section offset of the next FRE to read
 * @room: bytes at @q: 0 when none are
 * @ab: bytes of an FRE's start offset
 * @left: the FREs of the span not yet stepped over or taken
 * @next_min: the least start offset the next FRE may have
 * @start: the start offset of the FRE read last
 * @have: an FRE was taken into @fre
 * @buf: SFRAME_WINDOW_BYTES for the window of FREs copied from user memory
 */
struct sframe_fre_scan {
	const struct sfu_sframe_section *sec;
	const struct sfu_sframe_fde *fde;
	struct sframe_fre_raw *fre;
	const u8 *q;
	u64 pos;
	u64 room;
	unsigned long ab;
	u32 left;
	u32 next_min;
	u32 start;
	bool have;
	u8 *buf;
};

/*
 * The checks of every FRE the scan reads, whichever way it was read: it
 * starts after the FRE before it (@next_min), and at or before @target to
 * be taken.  Returns 0 for an FRE to take, with *@next_min moved past it;
 * 1 for one that starts after @target, where the scan stops; or
 * -SFRAME_E_FRE_ORDER.  Always inlined: the run loop of sframe_fre_run()
 * checks every FRE with it and makes no call.
 */
static __always_inline int sframe_fre_accept(u32 start, u32 target, u32 *next_min)
{
	if (start < *next_min)
		return -SFRAME_E_FRE_ORDER;
	if (start > target)
		return 1;
	/* start <= target < func_size: no wrap */
	*next_min = start + 1;
	return 0;
}

/* Take the FRE at @q, whose size was checked, as the one found so far. */
static __always_inline void sframe_fre_take(struct sframe_fre_raw *fre, const u8 *q,
					    unsigned long ab, u32 start, u8 info)
{
	fre->start = start;
	fre->info = info;
	fre->count = SFRAME_FRE_INFO_COUNT(info);
	sframe_fre_words(fre, q + ab + 1);
}

/*
 * The FRE at @s->pos on its own, read with the checks of
 * sfu_sframe_fre_read(): user memory just before a page boundary, which
 * a window would cross.  Returns as sframe_fre_accept(), or another
 * -SFRAME_E_xxx.
 */
static int sframe_fre_alone(struct sframe_fre_scan *s, u32 target)
{
	struct sframe_fre_raw one;
	int ret;

	ret = sfu_sframe_fre_read(s->sec, s->fde, s->pos, &one);
	if (ret)
		return ret;
	s->start = one.start;
	ret = sframe_fre_accept(one.start, target, &s->next_min);
	if (ret)
		return ret;
	*s->fre = one;
	s->have = true;
	s->pos += one.bytes;
	s->room = 0;
	s->left--;
	return 0;
}

/*
 * The FRE at @s->q in the last bytes of the FRE sub-section, fewer than
 * the largest FRE takes: its size is checked against them.  Returns as
 * sframe_fre_accept(), or another -SFRAME_E_xxx.
 */
static int sframe_fre_last(struct sframe_fre_scan *s, u32 target)
{
	unsigned long ab = s->ab, tail;
	u8 info;
	int ret;

	if (s->room < ab + 1)
		return -SFRAME_E_BAD_FDE;
	s->start = sframe_get_le(s->q, ab);
	info = s->q[ab];
	tail = sframe_fre_tail[info];
	if (!tail)
		return -SFRAME_E_BAD_FRE;
	if (ab + tail > s->room)
		return -SFRAME_E_BAD_FDE;
	ret = sframe_fre_accept(s->start, target, &s->next_min);
	if (ret)
		return ret;
	sframe_fre_take(s->fre, s->q, ab, s->start, info);
	s->have = true;
	s->q += ab + tail;
	s->pos += ab + tail;
	s->room -= ab + tail;
	s->left--;
	return 0;
}

/*
 * A run of the FREs at @s->q that lie wholly inside the bytes at hand
 * whatever their sizes: the loop is bounded by how many fit, and checks
 * no size.  Where a lookup spends its time: the loop keeps its state in
 * locals, makes no call and reads the words of the last FRE it takes
 * only once it stops.  Returns as sframe_fre_accept(), or
 * -SFRAME_E_BAD_FRE.
 */
static __always_inline int sframe_fre_run(struct sframe_fre_scan *s, u32 target)
{
	unsigned long ab = s->ab, tail;
	u32 mask = 0xffffffffU >> (32 - 8 * ab);
	u32 k = s->left, start = 0, next_min = s->next_min;
	const u8 *q = s->q, *found = NULL;
	u8 info, found_info = 0;
	int ret;

	/* Every one of the next k FREs lies wholly inside the bytes at hand. */
	if ((u64)k * SFRAME_FRE_MAX_BYTES > s->room)
		k = s->room / SFRAME_FRE_MAX_BYTES;
	s->left -= k;
	do {
		start = sframe_le32(q) & mask;
		info = q[ab];
		tail = sframe_fre_tail[info];
		if (!tail) {
			ret = -SFRAME_E_BAD_FRE;
			break;
		}
		ret = sframe_fre_accept(start, target, &next_min);
		if (ret)
			break;
		found = q;
		found_info = info;
		q += ab + tail;
	} while (--k);
	/* The k FREs of the run from the one stopped at were not stepped over. */
	s->left += k;
	s->start = start;
	if (ret < 0)
		return ret;
	s->next_min = next_min;
	if (found) {
		/* Its words are still at hand. */
		sframe_fre_take(s->fre, found, ab, next_min - 1, found_info);
		s->have = true;
	}
	s->pos += q - s->q;
	s->room -= q - s->q;
	s->q = q;
	return ret;
}

/*
 * sframe_fre_find() - the last FRE of @span that starts at or before @target
 * @sec: the section
 * @fde: from sfu_sframe_fde_get(), with at least one FRE
 * @span: from sframe_fre_span_find(): where to start and how far to go
 * @target: offset of the PC from the function start (from the repeat block
 *          start for a PC-mask FDE)
 * @fre: the FRE found, with its data words
 * @next_start: set to the start offset of the FRE after it, if there is one
 * @read: set to the number of FREs whose start offset the scan read (or
 *        tried to read, when that failed)
 *
 * Reads the start offset and info byte of each FRE up to the first one
 * that starts after @target, at most @span->count of them, with the
 * checks of sfu_sframe_fre_read() and of the FRE order
 * (sframe_fre_accept()), and steps over the data words; only the FRE
 * found has its words read.  Where the next FREs would fit in the bytes
 * at hand whatever their size -- the rest of a buffer, or a window of up
 * to SFRAME_WINDOW_BYTES copied from user memory -- a run of them is
 * scanned with the loop bounded by how many fit and no size checked per
 * FRE (sframe_fre_run()); in the last bytes of the FRE sub-section each
 * size is checked (sframe_fre_last()).  In user memory an FRE just before
 * a page boundary is read on its own (sframe_fre_alone()).
 *
 * Return: 1 if an FRE covers @target and the scan stopped at the next one,
 * 0 if the function's last FRE covers it, -SFRAME_E_NO_FRE if none does,
 * -SFRAME_E_FRE_ORDER if the span ended before an FRE that starts after
 * @target although the function has more (the bytes no longer match the
 * index), or another -SFRAME_E_xxx.
 */
static int sframe_fre_find(const struct sfu_sframe_section *sec, const struct sfu_sframe_fde *fde,
			   const struct sframe_fre_span *span, u32 target,
			   struct sframe_fre_raw *fre, u32 *next_start, u32 *read)
{
	u8 buf[SFRAME_WINDOW_BYTES];
	struct sframe_fre_scan s = {
		.sec = sec, .fde = fde, .fre = fre, .pos = span->pos, .ab = 1UL << fde->fre_type,
		.left = span->count, .next_min = span->next_min, .buf = buf,
	};
	u64 avail;
	int ret = 0;

	*read = 0;
	if (fde->fre_type > SFRAME_FRE_TYPE_ADDR4 || s.pos > sec->fre_end)
		return -SFRAME_E_BAD_FDE;
	while (s.left) {
		if (s.room < SFRAME_FRE_MAX_BYTES) {
			avail = sframe_window_room(sec, s.pos);
			if (avail < SFRAME_FRE_MAX_BYTES && s.pos + avail < sec->fre_end) {
				/* User memory just before a page boundary: this FRE alone. */
				ret = sframe_fre_alone(&s, target);
				if (ret)
					break;
				continue;
			}
			if (avail > s.room) {
				ret = sfu_sframe_read_ptr(&sec->reader, s.pos, avail, s.buf, &s.q);
				if (ret)
					break;
				s.room = avail;
			}
		}
		/* The last bytes of the FRE sub-section, or a run that fits at hand. */
		if (s.room < SFRAME_FRE_MAX_BYTES)
			ret = sframe_fre_last(&s, target);
		else
			ret = sframe_fre_run(&s, target);
		if (ret)
			break;
	}
	/* Those stepped over or taken, and the one stopped at or refused. */
	*read = span->count - s.left + (ret ? 1 : 0);
	if (ret < 0)
		return ret;
	if (!s.have)
		return -SFRAME_E_NO_FRE;
	if (ret) {
		*next_start = s.start;
		return ret;
	}
	/* The span ended and the function goes on: the index no longer fits. */
	if (span->more)
		return -SFRAME_E_FRE_ORDER;
	return 0;
}

/* The FDE of the function that covers @pc, or -SFRAME_E_NO_FDE. */
static int sframe_fde_covering(const struct sfu_sframe_section *sec, unsigned long pc,
			       struct sfu_sframe_fde *fde)
{
	u32 lo = 0, j;
	int err;

	/* Last FDE starting at or before pc. */
	err = sframe_fde_find(sec, pc, &lo);
	if (err)
		return err;
	/*
	 * Only the last non-empty one of them can cover pc; zero-size FDEs
	 * sorted after it (same start) are stepped over, a bounded number.
	 */
	for (j = 0; ; j++) {
		if (!lo || j > SFRAME_MAX_EMPTY_FDE_SKIP)
			return -SFRAME_E_NO_FDE;
		err = sframe_fde_read(sec, --lo, fde);
		if (err)
			return err;
		if (fde->func_size)
			break;
	}
	if (pc < fde->func_start || pc - fde->func_start >= fde->func_size)
		return -SFRAME_E_NO_FDE;
	return 0;
}

/*
 * A section validated per function (sfu_sframe_section_validate_fdes()):
 * @fde's FREs checked the first time a lookup needs them, and marked so
 * that later lookups do not check them again.  At most
 * SFRAME_FRE_INDEX_STRIDE FREs are read here: a longer function was
 * checked with the FRE index, and one that is not marked was not.  Two
 * lookups may check one function at once, to the same answer.  A function
 * whose FREs do not pass fails every lookup, checked again each time.
 */
static int sframe_fde_checked(const struct sfu_sframe_section *sec,
			      const struct sfu_sframe_fde *fde)
{
	u8 *checked = sec->fde_checked;
	int err;

	if (!sec->lazy)
		return 0;
	if (!checked || fde->idx >= sec->num_fdes)
		return -SFRAME_E_NO_INDEX;
	if (READ_ONCE(checked[fde->idx]))
		return 0;
	if (fde->num_fres > SFRAME_FRE_INDEX_STRIDE)
		return -SFRAME_E_NO_INDEX;
	err = sfu_sframe_fde_validate(sec, fde);
	if (!err)
		WRITE_ONCE(checked[fde->idx], 1);
	return err;
}

/*
 * sfu_sframe_find_row(), and the FREs its scan read into *@fres: 0 when no
 * FRE was read.  The one caller of the helpers above, which are inlined
 * into it.
 */
static int sframe_find_row(const struct sfu_sframe_section *sec, unsigned long pc,
			   struct sfu_sframe_row *row, u32 *fres)
{
	struct sframe_fre_span span;
	struct sframe_fre_raw fre;
	struct sfu_sframe_fde fde;
	u32 target, next_start = 0;
	u64 block = 0, end;
	int err, has_next;

	*fres = 0;
	err = sframe_fde_covering(sec, pc, &fde);
	if (!err)
		err = sframe_fde_checked(sec, &fde);
	if (err)
		return err;

	/* Offsets from the function start from here on: below func_size, a u32. */
	target = pc - fde.func_start;
	if (fde.pcmask) {
		/* rep_size is non-zero: sfu_sframe_fde_get() refused 0. */
		block = target - target % fde.rep_size;
		target %= fde.rep_size;
	}

	if (!fde.num_fres) {
		if (sec->version != SFRAME_VERSION_3)
			return -SFRAME_E_NO_FRE;
		/* V3: a function without rows is an outermost frame. */
		memset(row, 0, sizeof(*row));
		row->flags = SFRAME_ROW_OUTERMOST;
		if (fde.info & SFRAME_V3_FDE_INFO_SIGNAL)
			row->flags |= SFRAME_ROW_SIGNAL;
		if (fde.type == SFRAME_FDE_TYPE_FLEX)
			row->flags |= SFRAME_ROW_FLEX;
		sframe_row_set_func(row, &fde);
		row->start = fde.func_start;
		row->end = fde.func_start + fde.func_size;
		return 0;
	}

	err = sframe_fre_span_find(sec, &fde, target, &span);
	if (err)
		return err;
	/* Set on every path that finds one; gcc cannot always tell. */
	fre.start = 0;
	fre.info = 0;
	fre.count = 0;
	has_next = sframe_fre_find(sec, &fde, &span, target, &fre, &next_start, fres);
	if (has_next < 0)
		return has_next;

	err = sframe_fre_decode(sec, &fde, &fre, row);
	if (err)
		return err;
	sframe_row_set_func(row, &fde);
	row->start = fde.func_start + block + fre.start;
	if (has_next)
		end = block + next_start;
	else
		end = fde.pcmask ? block + fde.rep_size : fde.func_size;
	row->end = fde.func_start + min_t(u64, end, fde.func_size);
	return 0;
}

/**
 * sfu_sframe_find_row() - the row that describes @pc
 * @sec: initialized (and preferably validated) section, with its FRE index
 *       if it has functions of more than SFRAME_FRE_INDEX_STRIDE FREs
 * @pc: address to look up
 * @row: filled on success
 *
 * Binary search over the FDEs, then a scan of at most SFRAME_FRE_SCAN_MAX
 * of the function's FREs that decodes only the row found: from the first
 * FRE for a function of up to SFRAME_FRE_INDEX_STRIDE FREs, from the FRE
 * index's last mark at or before @pc (a binary search too) for a longer
 * one.  Safe on its own even if the section bytes changed after
 * validation: every offset is re-checked, the search takes at most 22
 * probes (plus at most SFRAME_MAX_EMPTY_FDE_SKIP zero-size FDEs stepped
 * over), the index searches at most 32 more (21 over 2^20 functions, 11
 * over a function's 2047 marks), the scan reads at most
 * SFRAME_FRE_SCAN_MAX FREs whatever the bytes or the index say, and
 * nothing divides by a value read from the section without checking it.
 * A PC at a function's end belongs to the next function or none; a
 * zero-size function matches nothing.  A V3 FDE without FREs describes an
 * outermost frame.
 *
 * Section bytes are read in runs: in place from a buffer; from user memory
 * with one copy per probed FDE start until the FDEs left to probe fit in
 * 128 bytes, one for those, one for the FDE found (two for V3) and one per
 * window of up to 128 bytes of FREs.
 *
 * Return: 0, -SFRAME_E_NO_FDE, -SFRAME_E_NO_FRE, -SFRAME_E_NO_INDEX for a
 * function of more than SFRAME_FRE_INDEX_STRIDE FREs that @sec has no FRE
 * index for, or another -SFRAME_E_xxx if the data is bad.
 */
int sfu_sframe_find_row(const struct sfu_sframe_section *sec, unsigned long pc,
			struct sfu_sframe_row *row)
{
	u32 fres;

	return sframe_find_row(sec, pc, row, &fres);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_find_row);

#if SFRAME_TOOLS
/**
 * sfu_sframe_find_row_counted() - sfu_sframe_find_row(), counting its work
 * @sec: as for sfu_sframe_find_row()
 * @pc: address to look up
 * @row: filled on success
 * @fres: set to the number of FREs whose start offset the scan read, the
 *        work that depends on the function's size: at most
 *        SFRAME_FRE_SCAN_MAX, also when the lookup fails (0 when it failed
 *        before the scan)
 *
 * For the tests and tools that show the bound holds.
 *
 * Return: as sfu_sframe_find_row().
 */
int sfu_sframe_find_row_counted(const struct sfu_sframe_section *sec, unsigned long pc,
				struct sfu_sframe_row *row, u32 *fres)
{
	return sframe_find_row(sec, pc, row, fres);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_find_row_counted);
#endif
