// SPDX-License-Identifier: GPL-2.0
/*
 * sframe_bench - look up a list of PCs in one SFrame section, for
 * instruction counting under callgrind (scripts/bench-decoder).
 *
 *   sframe_bench SECTION VADDR PCS [RESULTS]
 *
 * SECTION is a bare .sframe section, VADDR (hex) the address it is mapped
 * at, PCS a file of "PC LIBPC" lines: PC (hex) is the absolute address the
 * decoder of this project looks up, LIBPC (signed decimal) the value passed
 * to libsframe's sframe_find_fre(), which wants PCs relative to the section
 * (see the script for how it is adjusted).
 *
 * Built twice from this one file: against this project's decoder (looks up
 * with sfu_sframe_find_row()), and with -DBENCH_LIBSFRAME against a libsframe
 * (looks up with sframe_find_fre()).  The two cannot share a binary: both
 * define sframe_* names and SFRAME_* macros.  Decoding and validation
 * happen before the lookups; callgrind counts only the lookup function
 * (--toggle-collect), so the loop, the file reading and the result output
 * are not in the numbers.
 *
 * RESULTS, if given, receives "PC FRE-START" per lookup ("PC -" when
 * nothing was found): the start offset of the row found, as stored in the
 * section, which both sides report the same way, so the script can check
 * that both looked up the same rows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef BENCH_LIBSFRAME
#include <sframe-api.h>
#else
#include <linux/types.h>
#include "sframe/sframe.h"
#include "tools/sframe_user.h"
#endif

struct lookup {
	unsigned long long pc;
	long long libpc;
	long long fre_start;	/* -1: not found */
};

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "sframe_bench: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static char *read_file(const char *path, size_t *size)
{
	size_t cap = 1 << 16, len = 0, n;
	char *buf = malloc(cap);
	FILE *f = fopen(path, "rb");

	if (!f)
		die(strerror(errno), path);
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	if (!buf || ferror(f))
		die("cannot read", path);
	fclose(f);
	*size = len;
	return buf;
}

static struct lookup *read_pcs(const char *path, size_t *count)
{
	size_t cap = 1024, n = 0;
	struct lookup *v = malloc(cap * sizeof(*v));
	char line[128];
	FILE *f = fopen(path, "r");

	if (!f)
		die(strerror(errno), path);
	while (v && fgets(line, sizeof(line), f)) {
		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		if (v && sscanf(line, "%llx %lld", &v[n].pc, &v[n].libpc) == 2)
			v[n++].fre_start = -1;
	}
	if (!v)
		die("out of memory", NULL);
	fclose(f);
	*count = n;
	return v;
}

#ifdef BENCH_LIBSFRAME

static sframe_decoder_ctx *ctx;

static void setup(const char *buf, size_t size, unsigned long long vaddr)
{
	int err = 0;

	(void)vaddr;
	ctx = sframe_decode(buf, size, &err);
	if (!ctx)
		die("libsframe refuses the section", sframe_errmsg(err));
}

static void run(struct lookup *v, size_t n)
{
	sframe_frame_row_entry fre;
	size_t i;

	for (i = 0; i < n; i++)
		if (!sframe_find_fre(ctx, v[i].libpc, &fre))
			v[i].fre_start = fre.fre_start_addr;
}

#else

static struct sfu_sframe_section sec;

static void setup(const char *buf, size_t size, unsigned long long vaddr)
{
	struct sfu_sframe_reader r = {
		.kind = SFRAME_READER_BUFFER,
		.buf = (const u8 *)buf,
		.size = size,
	};
	int err;

	err = sfu_sframe_section_init(&sec, &r, vaddr, 0);
	if (!err)
		err = sfu_sframe_section_validate(&sec);
	/* As the kernel's copies have it: functions of many rows need it. */
	if (!err)
		err = sfu_sframe_fre_index_alloc(&sec);
	if (err)
		die("the decoder refuses the section", sfu_sframe_strerror(err));
}

static void run(struct lookup *v, size_t n)
{
	struct sfu_sframe_row row;
	size_t i;

	for (i = 0; i < n; i++)
		if (!sfu_sframe_find_row(&sec, v[i].pc, &row))
			v[i].fre_start = row.fre_start;
}

#endif

int main(int argc, char **argv)
{
	unsigned long long vaddr;
	struct lookup *v;
	size_t size, n, i, found = 0;
	char *buf, *end;
	FILE *out;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: sframe_bench SECTION VADDR PCS [RESULTS]\n");
		return 2;
	}
	buf = read_file(argv[1], &size);
	vaddr = strtoull(argv[2], &end, 16);
	if (*end)
		die("bad address", argv[2]);
	v = read_pcs(argv[3], &n);

	setup(buf, size, vaddr);
	run(v, n);

	for (i = 0; i < n; i++)
		found += v[i].fre_start >= 0;
	printf("lookups %zu found %zu\n", n, found);
	if (argc == 5) {
		out = fopen(argv[4], "w");
		if (!out)
			die(strerror(errno), argv[4]);
		for (i = 0; i < n; i++) {
			if (v[i].fre_start >= 0)
				fprintf(out, "%llx %lld\n", v[i].pc, v[i].fre_start);
			else
				fprintf(out, "%llx -\n", v[i].pc);
		}
		fclose(out);
	}
	return 0;
}
