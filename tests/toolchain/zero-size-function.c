// SPDX-License-Identifier: GPL-2.0
/*
 * Built by tests/run-userspace with the installed toolchain (gcc
 * -Wa,--gsframe): gcc gives dead() an empty body, so gas emits a zero-size
 * FDE at the address of the code that follows it (main.cold here), which
 * ld sorts next to that function's FDE.  The section must validate and the
 * shared address must resolve to the non-empty function.
 */
void dead(void)
{
	__builtin_unreachable();
}

int live(int x)
{
	return x * 3;
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 5)
		dead();
	return live(argc);
}
