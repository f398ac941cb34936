// SPDX-License-Identifier: GPL-2.0
/*
 * remote-check - SFU_IOC_UNWIND_TASK on threads it must not perturb.
 *
 *   remote-check epoll N     a child blocked in epoll_pwait() with a 60 s
 *                            timeout, unwound N times: every unwind right,
 *                            and the wait returns only for the event the
 *                            parent sends after the last one
 *   remote-check stopped N   the child stopped by SIGSTOP, unwound N times
 *   remote-check traced N    the child stopped by its tracer (PTRACE_SEIZE,
 *                            PTRACE_INTERRUPT), unwound N times
 *   remote-check spin N      the child spinning in user space, unwound N
 *                            times (it serves the requests itself)
 *
 * The child's functions record their own return addresses in memory
 * shared with the parent; each unwind must give, after the topmost frame
 * (in srv_wait(), or srv_spin()), exactly those: srv_middle, srv_outer,
 * srv_run.  The file is built with -fomit-frame-pointer and .sframe.
 * Prints one line of figures; exit status 0 when everything held, the
 * reasons on stderr otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sframe_unwind.h"

#define DEVICE		"/dev/sframe_unwind"
#define MAX_FRAMES	64
#define NRA		3

/* What the child tells the parent: shared, written by the child only. */
struct shared {
	volatile uintptr_t ra[NRA];	/* srv_wait's, srv_middle's, srv_outer's */
	volatile uintptr_t lo, hi;	/* the topmost function's bounds */
	volatile int ready;		/* about to block (or spinning) */
	volatile int returned;		/* the wait returned */
	volatile long ret;		/* what it returned */
	volatile long ms;		/* after how long */
	volatile int stop;		/* parent: stop spinning */
};

static struct shared *sh;
static int failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failures++;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* epoll_pwait() without the C library, so that the topmost frame has .sframe. */
static inline __attribute__((always_inline))
long raw_epoll_pwait(int epfd, struct epoll_event *ev, int n, int timeout)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = timeout;
	register long r8 __asm__("r8") = 0;
	register long r9 __asm__("r9") = 8;
	long ret;

	__asm__ volatile("syscall" : "=a"(ret)
			 : "0"(281L), "D"(epfd), "S"(ev), "d"(n), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x0 __asm__("x0") = epfd;
	register long x1 __asm__("x1") = (long)ev;
	register long x2 __asm__("x2") = n;
	register long x3 __asm__("x3") = timeout;
	register long x4 __asm__("x4") = 0;
	register long x5 __asm__("x5") = 8;
	register long x8 __asm__("x8") = 22;

	__asm__ volatile("svc #0" : "+r"(x0)
			 : "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5), "r"(x8)
			 : "memory");
	return x0;
#else
#error "x86_64 or arm64"
#endif
}

static int srv_epfd;

static __attribute__((noinline)) void srv_wait(void)
{
	struct epoll_event ev;
	long t0, ret;

	sh->ra[0] = (uintptr_t)__builtin_return_address(0);
	sh->lo = (uintptr_t)&srv_wait;
	sh->hi = (uintptr_t)&srv_wait + 4096;
	t0 = now_ms();
	sh->ready = 1;
	ret = raw_epoll_pwait(srv_epfd, &ev, 1, 60000);
	sh->ms = now_ms() - t0;
	sh->ret = ret;
	sh->returned = 1;
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void srv_spin(void)
{
	sh->ra[0] = (uintptr_t)__builtin_return_address(0);
	sh->lo = (uintptr_t)&srv_spin;
	sh->hi = (uintptr_t)&srv_spin + 4096;
	sh->ready = 1;
	while (!sh->stop)
		__asm__ volatile("" ::: "memory");
	sh->returned = 1;
}

static __attribute__((noinline)) void srv_middle(int spin)
{
	sh->ra[1] = (uintptr_t)__builtin_return_address(0);
	if (spin)
		srv_spin();
	else
		srv_wait();
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void srv_outer(int spin)
{
	sh->ra[2] = (uintptr_t)__builtin_return_address(0);
	srv_middle(spin);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) int srv_run(int spin, int pipefd)
{
	struct epoll_event ev = { .events = EPOLLIN };

	srv_epfd = epoll_create1(0);
	ev.data.fd = pipefd;
	if (srv_epfd < 0 || epoll_ctl(srv_epfd, EPOLL_CTL_ADD, pipefd, &ev))
		return 2;
	srv_outer(spin);
	__asm__ volatile("" ::: "memory");
	return 0;
}

static pid_t start_child(int spin, int *wfd)
{
	int p[2];
	pid_t pid;
	int i;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		close(p[1]);
		_exit(srv_run(spin, p[0]));
	}
	close(p[0]);
	*wfd = p[1];
	for (i = 0; i < 10000 && !sh->ready; i++)
		usleep(1000);
	return sh->ready ? pid : -1;
}

/* The child's state letter in /proc/PID/stat. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	return p && p[1] ? p[2] : '?';
}

/* One unwind of @pid through @dev, checked against what the child recorded. */
static int unwind_once(int dev, int mem, pid_t pid, unsigned int i)
{
	struct sfu_frame frames[MAX_FRAMES];
	struct sfu_unwind u = {
		.frames = (uintptr_t)frames, .max = MAX_FRAMES, .pid = pid,
		.flags = SFU_UNWIND_MEM_FD, .mem_fd = mem,
	};
	unsigned int k;

	if (ioctl(dev, SFU_IOC_UNWIND_TASK, &u)) {
		fail("unwind %u: %s", i, strerror(errno));
		return -1;
	}
	if (u.nr < NRA + 1) {
		fail("unwind %u: %u frames, stop %u", i, u.nr, u.stop_reason);
		return -1;
	}
	if (frames[0].ip < sh->lo || frames[0].ip >= sh->hi) {
		fail("unwind %u: frame 0 at %#llx, not in the topmost function at %#lx",
		     i, (unsigned long long)frames[0].ip, (unsigned long)sh->lo);
		return -1;
	}
	for (k = 0; k < NRA; k++) {
		if (frames[k + 1].ip != sh->ra[k] || frames[k + 1].method != SFU_FRAME_SFRAME) {
			fail("unwind %u: frame %u is %#llx (method %u), want %#lx from SFrame",
			     i, k + 1, (unsigned long long)frames[k + 1].ip, frames[k + 1].method,
			     (unsigned long)sh->ra[k]);
			return -1;
		}
	}
	return 0;
}

/* @n unwinds of @pid, in *@ms milliseconds; stops at the first wrong one. */
static unsigned int unwind_n(pid_t pid, unsigned int n, int epoll, long *ms)
{
	long t0 = now_ms();
	char path[64];
	unsigned int i;
	int dev, mem;

	dev = open(DEVICE, O_RDWR);
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	mem = open(path, O_RDONLY);
	if (dev < 0 || mem < 0) {
		fail("cannot open %s or %s: %s", DEVICE, path, strerror(errno));
		*ms = now_ms() - t0;
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (unwind_once(dev, mem, pid, i))
			break;
		if (epoll && sh->returned) {
			fail("after unwind %u: epoll_pwait() returned %ld after %ld ms", i,
			     sh->ret, sh->ms);
			break;
		}
	}
	close(mem);
	close(dev);
	*ms = now_ms() - t0;
	return i;
}

static int wait_blocked(pid_t pid)
{
	int i;

	for (i = 0; i < 5000 && proc_state(pid) != 'S'; i++)
		usleep(1000);
	if (proc_state(pid) != 'S') {
		fail("the child is in state %c, not asleep in epoll_pwait()", proc_state(pid));
		return -1;
	}
	return 0;
}

/* A child asleep in epoll_pwait(), woken by a write to *@wfd; -1 if none. */
static pid_t start_blocked(int *wfd)
{
	pid_t pid = start_child(0, wfd);

	if (pid < 0 || wait_blocked(pid)) {
		fail("no child blocked in epoll_pwait()");
		return -1;
	}
	return pid;
}

/* @pid: a child start_blocked() started, @wfd its wake-up. */
static int cmd_epoll(pid_t pid, int wfd, unsigned int n)
{
	unsigned int done;
	int status;
	long t;

	done = unwind_n(pid, n, 1, &t);
	if (sh->returned)
		fail("epoll_pwait() returned %ld after %ld ms, before it was woken",
		     sh->ret, sh->ms);
	if (write(wfd, "x", 1) != 1)
		fail("cannot wake the child");
	waitpid(pid, &status, 0);
	if (sh->ret != 1)
		fail("epoll_pwait() returned %ld, want 1 (the event)", sh->ret);
	if (sh->ms < t)
		fail("epoll_pwait() returned after %ld ms, before the %ld ms of unwinds",
		     sh->ms, t);
	printf("epoll: %u of %u unwinds right in %ld ms; epoll_pwait() returned %ld after %ld ms\n",
	       done, n, t, sh->ret, sh->ms);
	return failures ? 1 : 0;
}

/* As cmd_epoll(), with the child stopped, or traced, while it is unwound. */
static int cmd_stopped(pid_t pid, int wfd, unsigned int n, int traced)
{
	const char *how = traced ? "ptrace-stopped" : "SIGSTOPped";
	unsigned int done;
	int status;
	long t;

	if (traced) {
		if (ptrace(PTRACE_SEIZE, pid, 0, 0) || ptrace(PTRACE_INTERRUPT, pid, 0, 0)) {
			fail("cannot trace the child: %s", strerror(errno));
			kill(pid, SIGKILL);
			return 1;
		}
		waitpid(pid, &status, __WALL);
	} else {
		kill(pid, SIGSTOP);
		waitpid(pid, &status, WUNTRACED);
	}
	if (proc_state(pid) != (traced ? 't' : 'T'))
		fail("the child is in state %c, not %s", proc_state(pid), how);
	done = unwind_n(pid, n, 0, &t);
	if (proc_state(pid) != (traced ? 't' : 'T'))
		fail("the child is in state %c after the unwinds, not %s", proc_state(pid), how);
	printf("%s: %u of %u unwinds right in %ld ms\n", how, done, n, t);
	if (traced)
		ptrace(PTRACE_DETACH, pid, 0, 0);
	else
		kill(pid, SIGCONT);
	/*
	 * The stop itself ends the wait: epoll_pwait() is never restarted
	 * after a stop (signal(7)), and returns EINTR once the child goes on;
	 * the child may then be gone before the event is written (EPIPE).
	 */
	if (write(wfd, "x", 1) != 1 && !(errno == EPIPE && sh->returned))
		fail("cannot wake the child: %s", strerror(errno));
	waitpid(pid, &status, 0);
	if (sh->ret != 1 && sh->ret != -EINTR)
		fail("epoll_pwait() returned %ld, want 1 or -EINTR", sh->ret);
	return failures ? 1 : 0;
}

static int cmd_spin(unsigned int n)
{
	unsigned int done;
	int wfd, status;
	pid_t pid;
	long t;

	pid = start_child(1, &wfd);
	if (pid < 0) {
		fail("no spinning child");
		return 1;
	}
	done = unwind_n(pid, n, 0, &t);
	sh->stop = 1;
	waitpid(pid, &status, 0);
	printf("spinning: %u of %u unwinds right in %ld ms\n", done, n, t);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int n;
	pid_t pid;
	int wfd;

	if (argc != 3) {
		fprintf(stderr, "usage: remote-check epoll|stopped|traced|spin N\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	alarm(240);
	/* A child gone before its wake-up is an EPIPE, not the end of this one. */
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "spin"))
		return cmd_spin(n);
	if (strcmp(argv[1], "epoll") && strcmp(argv[1], "stopped") && strcmp(argv[1], "traced")) {
		fprintf(stderr, "unknown command %s\n", argv[1]);
		return 2;
	}
	pid = start_blocked(&wfd);
	if (pid < 0)
		return 1;
	if (!strcmp(argv[1], "epoll"))
		return cmd_epoll(pid, wfd, n);
	return cmd_stopped(pid, wfd, n, !strcmp(argv[1], "traced"));
}
