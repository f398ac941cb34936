// SPDX-License-Identifier: GPL-2.0
/*
 * filter-check - the daemon's system call filters (sandbox_converter(),
 * sandbox_fetcher()), call by call: each case runs in a process of its
 * own that installs the filter and makes one system call.  A denied call
 * must end the process with SIGSYS; an allowed one must return and the
 * process exit 0 (3: no_new_privs refused, 4: the call failed, 5: the
 * filter could not be installed).  Built for the host (tests/sidecars/run) and, static,
 * for each guest's arch (tests/e2e/sandbox_filters.sh).
 *
 *   filter-check converter|fetcher
 *				that filter's cases; prints "ok FILTER CASE" or
 *				"FAIL FILTER CASE ...", exits 1 if any failed
 *   filter-check converter|fetcher none
 *				the same, with no filter installed: every
 *				denied case then fails (the broken baseline)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/kernel.h>

#include "sframe-unwindd.h"

static void *thread_fn(void *arg)
{
	return arg;
}

static int do_thread(void)
{
	pthread_t t;

	return pthread_create(&t, NULL, thread_fn, NULL) || pthread_join(t, NULL);
}

static int do_socket(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	return fd < 0 ? -1 : close(fd);
}

static int do_open(void)
{
	int fd = open("/etc/hostname", O_RDONLY | O_CLOEXEC);

	return fd < 0 && errno != ENOENT ? -1 : 0;
}

static int do_fork(void)
{
	pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);

	if (!pid)
		_exit(0);
	return 0;
}

static int do_clone_newns(void)
{
	pid_t pid = (pid_t)syscall(SYS_clone, CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0);

	if (!pid)
		_exit(0);
	return 0;
}

static int do_execve(void)
{
	static char *const argv[] = { "true", NULL };

	execve("/bin/true", argv, environ);
	return 0;
}

static int do_unshare(void)
{
	unshare(CLONE_NEWUTS);
	return 0;
}

static int do_ptrace(void)
{
	ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	return 0;
}

static int do_bpf(void)
{
	syscall(SYS_bpf, 0, NULL, 0);
	return 0;
}

static int do_userfaultfd(void)
{
	syscall(SYS_userfaultfd, 0);
	return 0;
}

/* The converter's output: a pipe's write end, its only descriptor to write. */
static int out_fd = -1;

static int do_write_out(void)
{
	return write(out_fd, "x", 1) == 1 ? 0 : -1;
}

static int do_write_stdout(void)
{
	return write(1, "", 0);
}

static int do_malloc(void)
{
	void *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? -1 : munmap(p, 1 << 20);
}

static int do_readlink(void)
{
	char buf[64];

	return readlink("/proc/self/exe", buf, sizeof(buf)) < 0 && errno == EACCES ? 0 : -1;
}

static int do_mmap_exec(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? -1 : 0;
}

static int do_getpid(void)
{
	return syscall(SYS_getpid) > 0 ? 0 : -1;
}

enum filter { CONVERTER, FETCHER };

static const struct {
	enum filter filter;
	const char *name;
	int (*fn)(void);
	int denied;
} cases[] = {
	{ CONVERTER, "write-out", do_write_out, 0 },
	{ CONVERTER, "mmap", do_malloc, 0 },
	{ CONVERTER, "readlink-fails", do_readlink, 0 },
	{ CONVERTER, "write-stdout", do_write_stdout, 1 },
	{ CONVERTER, "open", do_open, 1 },
	{ CONVERTER, "socket", do_socket, 1 },
	{ CONVERTER, "fork", do_fork, 1 },
	{ CONVERTER, "mmap-exec", do_mmap_exec, 1 },
	{ CONVERTER, "getpid", do_getpid, 1 },
	{ FETCHER, "thread", do_thread, 0 },
	{ FETCHER, "socket", do_socket, 0 },
	{ FETCHER, "open", do_open, 0 },
	{ FETCHER, "fork", do_fork, 1 },
	{ FETCHER, "clone-newns", do_clone_newns, 1 },
	{ FETCHER, "execve", do_execve, 1 },
	{ FETCHER, "unshare", do_unshare, 1 },
	{ FETCHER, "ptrace", do_ptrace, 1 },
	{ FETCHER, "bpf", do_bpf, 1 },
	{ FETCHER, "userfaultfd", do_userfaultfd, 1 },
};

static int install_filter(enum filter filter)
{
	return filter == CONVERTER ? sandbox_converter(out_fd) : sandbox_fetcher();
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "converter", "fetcher" };
	unsigned int i, failed = 0;
	enum filter filter;
	int nofilter, p[2];

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "none")))
		return 2;
	if (!strcmp(argv[1], "converter"))
		filter = CONVERTER;
	else if (!strcmp(argv[1], "fetcher"))
		filter = FETCHER;
	else
		return 2;
	nofilter = argc == 3;
	if (pipe(p))
		return 2;
	out_fd = p[1];
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int status, killed, ok;
		pid_t pid;

		if (cases[i].filter != filter)
			continue;
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return 2;
		if (!pid) {
			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
				_exit(3);
			if (!nofilter && install_filter(filter))
				_exit(5);
			if (cases[i].fn())
				_exit(4);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid)
			return 2;
		killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS;
		if (cases[i].denied)
			ok = killed;
		else
			ok = WIFEXITED(status) && !WEXITSTATUS(status);
		if (ok) {
			printf("ok %s %s\n", names[filter], cases[i].name);
		} else if (WIFSIGNALED(status)) {
			printf("FAIL %s %s: signal %d\n", names[filter], cases[i].name,
			       WTERMSIG(status));
			failed++;
		} else {
			printf("FAIL %s %s: exit %d\n", names[filter], cases[i].name,
			       WEXITSTATUS(status));
			failed++;
		}
	}
	return failed ? 1 : 0;
}
