// SPDX-License-Identifier: GPL-2.0
/*
 * Function shapes whose return address signing gcc describes in different
 * ways, for tests/sframe-gen/diff-gas: built with -mbranch-protection and
 * -Wa,--gsframe, gas's own SFrame rows are compared with sframe-gen's.
 *
 * Early returns before the prologue (shrink-wrapping: the signing starts
 * late), several epilogues (DW_CFA_remember_state and restore_state
 * around the authentication), tail calls after the epilogue, alloca (CFA
 * from the frame pointer), a large frame, variadic arguments, recursion,
 * a noreturn call (no epilogue at all) and a leaf (signed only with
 * pac-ret+leaf).
 */
#include <stdarg.h>
#include <stddef.h>

extern int ext(int x);
extern int ext2(int x, int y);
extern void sink(void *p, size_t n);
extern void fatal(const char *msg) __attribute__((noreturn));

int early_return(int x)
{
	if (x < 0)
		return 0;
	return ext(x) * 2 + ext(x + 1);
}

int many_returns(int x, int y)
{
	int a = ext(x);

	if (a == 3)
		return ext2(a, y);
	if (a > 10)
		return a + ext(y);
	if (a < -10)
		return a - ext(y + 1);
	return a * 7 + ext(a);
}

int tail_call(int x)
{
	return ext(x + 3);
}

int tail_after_frame(int x)
{
	int a = ext(x);

	return ext2(a, x);
}

void with_alloca(int n)
{
	char *p = __builtin_alloca(n);

	for (int i = 0; i < n; i++)
		p[i] = (char)i;
	sink(p, n);
}

void big_frame(int n)
{
	char buf[8192];

	for (int i = 0; i < n && i < (int)sizeof(buf); i++)
		buf[i] = (char)(i * 3);
	sink(buf, sizeof(buf));
}

int sum(int n, ...)
{
	va_list ap;
	int s = 0;

	va_start(ap, n);
	while (n-- > 0)
		s += va_arg(ap, int);
	va_end(ap);
	return s + ext(s);
}

int recurse(int n)
{
	if (n <= 1)
		return ext(n);
	return recurse(n - 1) + recurse(n - 2) + ext(n);
}

void must_not_fail(int x)
{
	if (ext(x) < 0)
		fatal("negative");
	sink(&x, sizeof(x));
}

int leaf(int x, int y)
{
	return x * y + (x ^ y);
}

int switchy(int op, int a, int b)
{
	switch (op) {
	case 0:
		return ext2(a, b);
	case 1:
		return ext(a) + ext(b);
	case 2:
		return a - b;
	case 3:
		return ext(a * b) - 1;
	default:
		return ext2(ext(a), b) + ext(op);
	}
}
