// SPDX-License-Identifier: GPL-2.0
/*
 * tick-chain - main -> f1 -> f2 -> f3 -> leaf -> tick, where leaf calls
 * the function tick() COUNT times: a uprobe on tick fires COUNT times, each
 * time at tick's first instruction under the same, known stack.  Prints,
 * like tests/fixtures/src/chain.c, one line per frame, tick first:
 * "frame <n> <name> entry=<addr> cfa=<addr> ret=<addr>".
 *
 *   tick-chain COUNT
 *
 * Built with -O2 -fomit-frame-pointer -Wa,--gsframe: only SFrame unwinds it.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINL __attribute__((noinline, noclone))

struct trace {
	void *cfa[5];	/* [0]=main, [1]=f1, [2]=f2, [3]=f3, [4]=leaf */
	void *ret[5];
	void *tick_cfa, *tick_ret;
	unsigned long ticks;
};

volatile unsigned long sink;
struct trace trace;

#define RECORD(n) do {						\
		trace.cfa[n] = __builtin_dwarf_cfa();		\
		trace.ret[n] = __builtin_return_address(0);	\
	} while (0)

NOINL void tick(unsigned long i)
{
	trace.tick_cfa = __builtin_dwarf_cfa();
	trace.tick_ret = __builtin_return_address(0);
	sink += i;
	trace.ticks++;
}

NOINL long leaf(unsigned long count)
{
	volatile char buf[64];
	unsigned long i;

	RECORD(4);
	buf[count & 63] = (char)count;
	for (i = 0; i < count; i++)
		tick(i);
	return (long)sink + buf[count & 63];
}

NOINL long f3(unsigned long count)
{
	volatile short buf[300];
	long r;

	RECORD(3);
	buf[count % 300] = (short)count;
	r = leaf(count);
	return r + buf[count % 300];
}

NOINL long f2(unsigned long count)
{
	volatile int buf[100];
	long r;

	RECORD(2);
	buf[count % 100] = (int)count;
	r = f3(count);
	return r + buf[count % 100];
}

NOINL long f1(unsigned long count)
{
	volatile long buf[3];
	long r;

	RECORD(1);
	buf[count % 3] = (long)count;
	r = f2(count);
	return r - buf[count % 3];
}

static const char *const names[5] = { "main", "f1", "f2", "f3", "leaf" };

int main(int argc, char **argv)
{
	void *entry[5] = { (void *)main, (void *)f1, (void *)f2, (void *)f3, (void *)leaf };
	unsigned long count = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	long r;
	int i;

	RECORD(0);
	r = f1(count);
	if (!trace.ticks) {
		fprintf(stderr, "tick-chain: COUNT must be at least 1\n");
		return 1;
	}
	printf("frame 0 tick entry=%p cfa=%p ret=%p\n", (void *)tick,
	       trace.tick_cfa, trace.tick_ret);
	for (i = 4; i >= 0; i--)
		printf("frame %d %s entry=%p cfa=%p ret=%p\n", 5 - i, names[i],
		       entry[i], trace.cfa[i], trace.ret[i]);
	printf("ticks=%lu result=%ld\n", trace.ticks, r);
	return 0;
}
