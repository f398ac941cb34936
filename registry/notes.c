// SPDX-License-Identifier: GPL-2.0
/*
 * What a file's notes say of it, below the per-file cache (elf.c): its
 * GNU build-id, which names its sidecar, and whether the Go toolchain
 * built it; and the section a Go program without .sframe or sidecar gets.
 */
#include <linux/elf.h>
#include <linux/string.h>

#include "internal.h"
#include "stats.h"

/* The GNU note type of a build-id; the kernel headers name it only in lib/buildid.c. */
#define SFU_NT_GNU_BUILD_ID	3
/* The Go toolchain's build-id note: owner "Go", type 4 (cmd/link). */
#define SFU_NT_GO_BUILD_ID	4

/*
 * The next note at or after *@p, before @end, of type @type whose name is
 * @owner (@olen bytes, its NUL included; the name may be padded with NULs
 * up to a multiple of 4); *@p moves past it.  NULL when there is none, or
 * a note runs past @end.
 */
static const struct elf64_note *sfu_note_next(const u8 **p, const u8 *end, u32 type,
					      const char *owner, u32 olen)
{
	while (end - *p >= sizeof(struct elf64_note)) {
		const struct elf64_note *n = (const struct elf64_note *)*p;
		u64 name = ALIGN((u64)n->n_namesz, 4), desc = ALIGN((u64)n->n_descsz, 4);
		const u8 *q = *p + sizeof(*n);

		if (name > end - q || desc > end - q - name)
			return NULL;
		*p = q + name + desc;
		if (n->n_type == type && n->n_namesz >= olen && n->n_namesz <= ALIGN(olen, 4) &&
		    !memcmp(q, owner, olen))
			return n;
	}
	return NULL;
}

/**
 * sfu_parse_build_id() - the GNU build-id among ELF notes
 * @buf: the notes (a PT_NOTE segment's bytes)
 * @len: bytes in @buf
 * @id: set to the build-id (SFU_SIDECAR_BUILD_ID_MAX bytes of room)
 * @id_len: set to its bytes; left alone when the notes hold none
 */
void sfu_parse_build_id(const u8 *buf, size_t len, u8 *id, u8 *id_len)
{
	const struct elf64_note *n;
	const u8 *p = buf;

	while ((n = sfu_note_next(&p, buf + len, SFU_NT_GNU_BUILD_ID, "GNU", sizeof("GNU")))) {
		if (n->n_descsz && n->n_descsz <= SFU_SIDECAR_BUILD_ID_MAX) {
			memcpy(id, (const u8 *)(n + 1) + ALIGN(n->n_namesz, 4), n->n_descsz);
			*id_len = n->n_descsz;
			break;
		}
	}
}

/**
 * sfu_parse_go_note() - whether ELF notes hold the Go toolchain's build-id
 * @buf: the notes (a PT_NOTE segment's bytes)
 * @len: bytes in @buf
 *
 * cmd/link names it "Go\0\0" (4 bytes); "Go\0" is taken too.
 *
 * Return: true if a note of owner "Go" and type 4 is among them: the Go
 * linker built the file.
 */
bool sfu_parse_go_note(const u8 *buf, size_t len)
{
	const u8 *p = buf;

	return sfu_note_next(&p, buf + len, SFU_NT_GO_BUILD_ID, "Go", sizeof("Go"));
}

/**
 * sfu_copy_fp_only() - the section of a Go program without .sframe or sidecar
 * @abi: SFRAME_ABI_* of the program
 *
 * A header without functions, so that every PC of its text is code its
 * file's CFI leaves out (sfu_lookup_uncovered()), whose frame records the
 * unwinder takes as perf's own walk does.  Go code keeps frame records:
 * every function with a frame saves BP (x29) next to its return address
 * and points the register at them.  The sidecar the daemon makes from the
 * program's .gopclntab replaces it for the next mappings
 * (sfu_fcache_forget_missing()).
 *
 * Return: the validated copy, with one reference, or NULL.
 */
struct sfu_sframe_copy *sfu_copy_fp_only(int abi)
{
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_BUFFER, .size = SFRAME_HDR_SIZE };
	struct sfu_sframe_copy *c;
	u8 *h;

	c = sfu_copy_alloc(SFRAME_HDR_SIZE);
	if (!c)
		return NULL;
	h = c->data;
	memset(h, 0, SFRAME_HDR_SIZE);
	h[SFRAME_HDR_MAGIC] = SFRAME_MAGIC & 0xff;	/* little-endian */
	h[SFRAME_HDR_MAGIC + 1] = SFRAME_MAGIC >> 8;
	h[SFRAME_HDR_VERSION] = SFRAME_VERSION_2;
	h[SFRAME_HDR_FLAGS] = SFRAME_F_FDE_SORTED;
	h[SFRAME_HDR_ABI_ARCH] = abi;
	/* AMD64's return address is at CFA - 8 in every frame. */
	h[SFRAME_HDR_CFA_FIXED_RA] = abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE ? (u8)-8 : 0;
	r.buf = h;
	if (sfu_sframe_section_init(&c->sec, &r, 0, abi) || sfu_sframe_section_validate(&c->sec) ||
	    sfu_copy_index(c)) {
		sfu_copy_put(c);
		return NULL;
	}
	sfu_stat_inc(SFU_STAT_GO_FP_ONLY);
	return c;
}
