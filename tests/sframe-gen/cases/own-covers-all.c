// SPDX-License-Identifier: GPL-2.0
/*
 * Linked without libc and built with -Wa,--gsframe (and -fno-inline): every
 * FDE of its .eh_frame has an FDE in its own .sframe, so sframe-gen
 * --install writes no sidecar for it (tests/sframe-gen/static-libc).
 * Never run.
 */
int result;

static int twice(int x)
{
	return 2 * x;
}

void _start(void)
{
	result = twice(21);
	for (;;)
		;
}
