// SPDX-License-Identifier: GPL-2.0
/*
 * syscall-chain - main -> f1 -> f2 -> leaf, where leaf makes raw getppid()
 * system calls until `stop` is set: the user stack at every one of them is
 * known, for the trace-event trigger on sys_enter/sys_exit.  Prints, like
 * tests/fixtures/src/chain.c, one line per frame, leaf first:
 * "frame <n> <name> entry=<addr> cfa=<addr> ret=<addr>".
 *
 * With a second argument, SECONDS, it stops by itself that long after it
 * started (SIGALRM sets `stop`), for tests that run it on their own.
 *
 * Built with -O2 -fomit-frame-pointer -Wa,--gsframe: only SFrame unwinds it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOINL __attribute__((noinline, noclone))

struct trace {
	void *cfa[4];	/* [0]=main, [1]=f1, [2]=f2, [3]=leaf */
	void *ret[4];
	unsigned long calls;
};

volatile int stop;
struct trace trace;

#define RECORD(n) do {						\
		trace.cfa[n] = __builtin_dwarf_cfa();		\
		trace.ret[n] = __builtin_return_address(0);	\
	} while (0)

static inline long raw_getppid(void)
{
#if defined(__x86_64__)
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_getppid) : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 asm("x8") = SYS_getppid;
	register long x0 asm("x0");

	asm volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
	return x0;
#else
#error "x86_64 or aarch64 only"
#endif
}

NOINL long leaf(int x)
{
	volatile char buf[64];
	long sum = 0;

	RECORD(3);
	buf[x & 63] = (char)x;
	while (!stop) {
		sum += raw_getppid();
		trace.calls++;
	}
	return sum + buf[x & 63];
}

NOINL long f2(int x)
{
	volatile int buf[100];
	long r;

	RECORD(2);
	buf[x % 100] = x;
	r = leaf(x + 1);
	return r + buf[x % 100];
}

NOINL long f1(int x)
{
	volatile long buf[3];
	long r;

	RECORD(1);
	buf[x % 3] = x;
	r = f2(x * 2);
	return r - buf[x % 3];
}

static void on_alarm(int sig)
{
	stop = 1;
}

static const char *const names[4] = { "main", "f1", "f2", "leaf" };

int main(int argc, char **argv)
{
	void *entry[4] = { (void *)main, (void *)f1, (void *)f2, (void *)leaf };
	long r;
	int i;

	RECORD(0);
	if (argc > 2) {
		signal(SIGALRM, on_alarm);
		alarm(atoi(argv[2]));
	}
	r = f1(argc);
	for (i = 3; i >= 0; i--)
		printf("frame %d %s entry=%p cfa=%p ret=%p\n", 3 - i, names[i],
		       entry[i], trace.cfa[i], trace.ret[i]);
	printf("calls=%lu result=%ld\n", trace.calls, r);
	return 0;
}
