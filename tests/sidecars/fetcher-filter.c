// SPDX-License-Identifier: GPL-2.0
/*
 * fetcher-filter - the daemon's fetcher filter (sandbox_fetcher()), call
 * by call: each case runs in a process of its own that installs the
 * filter and makes one system call.  A denied call must end the process
 * with SIGSYS; an allowed one must return and the process exit 0.
 *
 *   fetcher-filter		every case; prints "ok CASE" or "FAIL CASE ...",
 *				exits 1 if any failed
 *   fetcher-filter none	the same, with no filter installed: every
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

static const struct {
	const char *name;
	int (*fn)(void);
	int denied;
} cases[] = {
	{ "thread", do_thread, 0 },
	{ "socket", do_socket, 0 },
	{ "open", do_open, 0 },
	{ "fork", do_fork, 1 },
	{ "clone-newns", do_clone_newns, 1 },
	{ "execve", do_execve, 1 },
	{ "unshare", do_unshare, 1 },
	{ "ptrace", do_ptrace, 1 },
	{ "bpf", do_bpf, 1 },
	{ "userfaultfd", do_userfaultfd, 1 },
};

int main(int argc, char **argv)
{
	int nofilter = argc > 1 && !strcmp(argv[1], "none");
	unsigned int i, failed = 0;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int status, killed, ok;
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (!pid) {
			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
			    (!nofilter && sandbox_fetcher()))
				_exit(3);
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
			printf("ok %s\n", cases[i].name);
		} else if (WIFSIGNALED(status)) {
			printf("FAIL %s: signal %d\n", cases[i].name, WTERMSIG(status));
			failed++;
		} else {
			printf("FAIL %s: exit %d\n", cases[i].name, WEXITSTATUS(status));
			failed++;
		}
	}
	return failed ? 1 : 0;
}
