// SPDX-License-Identifier: GPL-2.0
/*
 * main calls lazy_target() (tests/e2e/lazy-ifunc-lib.c) through its PLT,
 * bound lazily: the IFUNC resolver unwinds its stack inside ld.so's
 * _dl_fixup.  Prints the stop reason, then per frame "IP FILE OFFSET"
 * (OFFSET: of the call instruction in FILE, the IP itself for the topmost
 * frame), for tests/e2e/unwind_ldso_lazy.sh to name.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/uapi/sframe_unwind.h"

extern struct sfu_frame sfu_lazy_frames[64];
extern struct sfu_unwind sfu_lazy_req;
extern long sfu_lazy_err;
int lazy_target(int x);

/* The mapping of @ip in /proc/self/maps: FILE and the file offset of @ip. */
static void where(uint64_t ip, char *file, size_t len, uint64_t *off)
{
	unsigned long lo, hi, pgoff;
	char line[512], path[400];
	FILE *f = fopen("/proc/self/maps", "r");

	snprintf(file, len, "?");
	*off = 0;
	while (f && fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %399s", &lo, &hi, &pgoff, path) < 3)
			continue;
		if (ip >= lo && ip < hi) {
			snprintf(file, len, "%s", path[0] ? path : "?");
			*off = ip - lo + pgoff;
			break;
		}
	}
	if (f)
		fclose(f);
}

int main(void)
{
	int v = lazy_target(41);
	char file[400];
	uint64_t off;
	unsigned int i;

	if (v != 42 || sfu_lazy_err) {
		fprintf(stderr, "lazy-ifunc: result %d, SFU_IOC_UNWIND_SELF %ld\n", v,
			sfu_lazy_err);
		return 1;
	}
	printf("stop %d\n", sfu_lazy_req.stop_reason);
	for (i = 0; i < sfu_lazy_req.nr; i++) {
		/* A return address: name the call before it. */
		uint64_t ip = sfu_lazy_frames[i].ip - (i ? 1 : 0);

		where(ip, file, sizeof(file), &off);
		printf("%#llx %s %#llx\n", (unsigned long long)sfu_lazy_frames[i].ip, file,
		       (unsigned long long)off);
	}
	return 0;
}
