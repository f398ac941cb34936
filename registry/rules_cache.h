/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU rules cache (rules_cache.c): its table, and the lookup,
 * inline in the registry's lookup because it runs for every frame of every
 * unwind.
 */
#ifndef _SFU_REGISTRY_RULES_CACHE_H
#define _SFU_REGISTRY_RULES_CACHE_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/percpu.h>

#include "sframe_unwind/rules.h"

/* What sfu_rowc_lookup() found. */
enum sfu_rowc_result {
	SFU_ROWC_OFF,		/* the cache is off: not counted */
	SFU_ROWC_MISS,
	SFU_ROWC_HIT,
};

#define SFU_ROWC_BITS	8
#define SFU_ROWC_SIZE	BIT(SFU_ROWC_BITS)

/**
 * struct sfu_rowc_entry - the rules remembered for one address
 * @seq: even when stable, odd while being written
 * @copy_id: the kernel copy they were found in (sfu_sframe_copy.id; 0: empty)
 * @pc: the address looked up, in the copy's address space
 * @rules: the rules (offsets only: the same at any load address)
 */
struct sfu_rowc_entry {
	u32 seq;
	u64 copy_id;
	u64 pc;
	struct sfu_frame_rules rules;
};

/**
 * struct sfu_rowc - one CPU's table
 * @e: the entries
 */
struct sfu_rowc {
	struct sfu_rowc_entry e[SFU_ROWC_SIZE];
};

extern bool sfu_row_cache_on;
extern struct sfu_rowc __percpu *sfu_rowc;

static __always_inline u32 sfu_rowc_slot(u64 copy_id, u64 pc)
{
	return hash_64(pc ^ (copy_id << 40), SFU_ROWC_BITS);
}

/*
 * Rules copied word by word, unrolled: a struct assignment becomes a
 * string instruction or a call to memcpy(), and a loop a branch a word,
 * all costly for one short copy on the path of every frame of every
 * unwind.  Padding is copied too, as by an assignment.
 */
static __always_inline void sfu_rowc_copy(struct sfu_frame_rules *dst,
					  const struct sfu_frame_rules *src)
{
	const u64 *s = (const u64 *)src;
	u64 *d = (u64 *)dst;

	BUILD_BUG_ON(sizeof(struct sfu_frame_rules) != 7 * sizeof(u64) ||
		     __alignof__(struct sfu_frame_rules) < __alignof__(u64));
	d[0] = s[0];
	d[1] = s[1];
	d[2] = s[2];
	d[3] = s[3];
	d[4] = s[4];
	d[5] = s[5];
	d[6] = s[6];
}

/**
 * sfu_rowc_lookup() - rules remembered on this CPU
 * @copy_id: id of the kernel copy
 * @pc: the address, in the copy's address space
 * @rules: filled in on a hit
 *
 * The caller counts hits and misses (struct sfu_lookup_counts).
 *
 * Context: any, NMI included.
 * Return: SFU_ROWC_HIT, SFU_ROWC_MISS, or SFU_ROWC_OFF when the cache is
 * off.
 */
static __always_inline enum sfu_rowc_result
sfu_rowc_lookup(u64 copy_id, u64 pc, struct sfu_frame_rules *rules)
{
	struct sfu_rowc_entry *e;
	bool hit = false;
	u32 seq;

	if (!READ_ONCE(sfu_row_cache_on) || !sfu_rowc)
		return SFU_ROWC_OFF;
	e = &get_cpu_ptr(sfu_rowc)->e[sfu_rowc_slot(copy_id, pc)];
	seq = READ_ONCE(e->seq);
	/* Only an interrupt on this CPU can write the entry: compiler barriers suffice. */
	barrier();
	if (!(seq & 1) && e->copy_id == copy_id && e->pc == pc) {
		sfu_rowc_copy(rules, &e->rules);
		barrier();
		hit = READ_ONCE(e->seq) == seq;
	}
	put_cpu_ptr(sfu_rowc);
	return hit ? SFU_ROWC_HIT : SFU_ROWC_MISS;
}

void sfu_rowc_store(u64 copy_id, u64 pc, const struct sfu_frame_rules *rules);
size_t sfu_rowc_bytes(void);
int sfu_rowc_init(void);
void sfu_rowc_exit(void);

#endif /* _SFU_REGISTRY_RULES_CACHE_H */
