// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-hostile - run the hostile-input table (tests/sframe_cases.c)
 * against the decoder in userspace; the KUnit suites run the same table.
 * Prints "PASS hostile/<name>" or "FAIL hostile/<name>: ..." per case and
 * exits non-zero if any case failed.
 *
 * sframe-hostile --write-seeds DIR writes each case's section to
 * DIR/hostile_<name> instead (fuzzer seeds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframe/sframe.h"
#include "sframe_cases.h"

static const char *stage_name(int stage)
{
	static const char * const names[] = { "init", "validate", "find", "find-raw" };

	return stage >= 0 && stage < 4 ? names[stage] : "?";
}

static int write_seeds(const char *dir)
{
	static u8 buf[SFRAME_CASE_BUF_SIZE];
	char path[4096];
	unsigned int i;
	u64 vaddr;
	size_t len;
	FILE *f;

	for (i = 0; i < sframe_num_cases; i++) {
		len = sframe_case_build(&sframe_cases[i], buf, sizeof(buf), &vaddr);
		snprintf(path, sizeof(path), "%s/hostile_%s", dir, sframe_cases[i].name);
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
			perror(path);
			return 2;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sframe_case_result res;
	unsigned int i, failed = 0;
	u64 vaddr;
	size_t len;
	u8 *buf;

	if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
		return write_seeds(argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: sframe-hostile [--write-seeds DIR]\n");
		return 2;
	}

	for (i = 0; i < sframe_num_cases; i++) {
		const struct sframe_case *c = &sframe_cases[i];

		/* A fresh exact-size heap copy: sanitizers see any overread. */
		buf = malloc(SFRAME_CASE_BUF_SIZE);
		if (!buf)
			return 2;
		len = sframe_case_build(c, buf, SFRAME_CASE_BUF_SIZE, &vaddr);
		buf = realloc(buf, len ? len : 1);
		if (!buf)
			return 2;
		sframe_case_run(c, buf, len, vaddr, &res);
		free(buf);

		if (sframe_case_passed(c, &res)) {
			printf("PASS hostile/%s\n", c->name);
			continue;
		}
		failed++;
		printf("FAIL hostile/%s: expected %s %s%s%s%s, got %s %s%s%s%s\n", c->name,
		       stage_name(c->stage), sfu_sframe_strerror(c->expect),
		       c->row ? " \"" : "", c->row ? c->row : "", c->row ? "\"" : "",
		       stage_name(res.stage), sfu_sframe_strerror(res.err),
		       res.row[0] ? " \"" : "", res.row, res.row[0] ? "\"" : "");
	}
	return failed ? 1 : 0;
}
