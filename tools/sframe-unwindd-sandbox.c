// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-unwindd, its children's system call filters (seccomp, classic
 * BPF through prctl(PR_SET_SECCOMP): no libseccomp, and no seccomp()
 * system call, which the daemon's unit does not allow).  Any call a
 * filter does not allow kills the whole process (SECCOMP_RET_KILL_PROCESS):
 * the daemon sees its child end with SIGSYS.
 *
 * The converter's is an allow-list.  It is installed once the child runs
 * as --user, with its limits, and holds the file it converts in memory,
 * its descriptor closed: what is left to do is parse that memory and
 * write the sidecar to the pipe.  What that takes is what strace -f saw
 * the child call from there, converting libc.so.6, cc1plus, libLLVM-15,
 * Debian's fzf (Go), files with .sframe of their own, with .debug_frame
 * plain and compressed, arm64 files and the vDSO; then, the filter in
 * place, every ELF file of /usr/lib/x86_64-linux-gnu, /usr/lib/gcc,
 * /usr/bin, /usr/sbin and /usr/libexec was converted, no child killed,
 * into the same sidecars as without it:
 *
 *   write          to the pipe only (the sidecar)
 *   brk, mmap, munmap, mremap, madvise, mprotect
 *                  malloc()'s; never with PROT_EXEC: no code of its own
 *   sysinfo        glibc's qsort(), once: how large a buffer it may take
 *   exit_group, exit
 *   readlink, readlinkat
 *                  fail with EACCES: libdw's dwarf_begin_elf() asks, for
 *                  a file with .debug_frame, for the path of the
 *                  descriptor libelf gave up (/proc/self/fd/-1)
 *
 * Nothing else: no open, read or stat, so no file but the one it was
 * handed; no socket; no fork, clone or exec; no signal handled (the child
 * drops the daemon's handlers), so no rt_sigreturn, and none sent, not
 * even to itself (an abort() ends in SIGSYS too, which the daemon counts
 * as it counts any kill by the filter).
 *
 * The fetcher's is a deny-list: the debuginfod client it runs opens
 * libdebuginfod and libcurl (openat, mmap with PROT_EXEC), resolves names
 * through NSS (files, sockets to nscd or systemd-resolved) and in a
 * thread of libcurl's, talks HTTP over sockets, and keeps a cache of
 * files; an allow-list wide enough for that, and for the versions of
 * those libraries to come, would allow most of what a filter is for.  So
 * it is denied what no debuginfod client does and what gives a process
 * that a server took over the kernel's less travelled code: new
 * processes (clone without CLONE_THREAD, fork, vfork; clone3, whose flags
 * a filter cannot read, fails with ENOSYS and glibc falls back to clone),
 * exec, namespaces and mounts, ptrace and other processes' memory, BPF,
 * perf events, io_uring, userfaultfd, keyrings.  It keeps what bounds it
 * otherwise: --user, no new privileges, its limits, no descriptor but its
 * pipes, a process group the daemon kills.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/seccomp.h>

#include "sframe-unwindd.h"

#if defined(__x86_64__)
#define SANDBOX_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SANDBOX_ARCH	AUDIT_ARCH_AARCH64
#else
#error "sframe-unwindd's system call filters are written for x86_64 and arm64"
#endif

/* The low 32 bits of argument @n (little-endian: the first word). */
#define ARG_LO(n)	(offsetof(struct seccomp_data, args) + 8 * (n))

/* One instruction each. */
#define LOAD(field)	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define LOAD_ARG(n)	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(n))
#define RET(action)	BPF_STMT(BPF_RET | BPF_K, (action))
#define KILL		RET(SECCOMP_RET_KILL_PROCESS)
#define ALLOW		RET(SECCOMP_RET_ALLOW)
#define FAIL(err)	RET(SECCOMP_RET_ERRNO | (err))
/*
 * Skip @t instructions if the accumulator is @k (JSET: has a bit of @k;
 * JGE: is @k or more), else @f.
 */
#define JEQ(k, t, f)	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define JSET(k, t, f)	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (k), (t), (f))
#define JGE(k, t, f)	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (k), (t), (f))
/* Two: the next instruction is the action on system call @nr. */
#define IS(nr)		JEQ(nr, 0, 1)

/* The namespaces clone() makes (CLONE_NEWTIME is unshare()'s and clone3()'s). */
#define CLONE_NEW_ANY	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
			 CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

/*
 * Each filter's start: another architecture's calls (a 32-bit program's
 * numbers are another table's) and, on x86_64, the x32 ABI's (the same
 * audit architecture, numbers with __X32_SYSCALL_BIT) killed; the system
 * call's number loaded.
 */
static const struct sock_filter native_only[] = {
	LOAD(arch),
	JEQ(SANDBOX_ARCH, 1, 0),
	KILL,
	LOAD(nr),
#ifdef __x86_64__
	JGE(__X32_SYSCALL_BIT, 0, 1),
	KILL,
#endif
};

/* The kernel has no seccomp (sandbox_init()): the children run without filters. */
static bool no_seccomp;

/*
 * Whether this kernel can filter system calls: PR_GET_SECCOMP fails with
 * EINVAL only where it was built without CONFIG_SECCOMP.  Where it
 * cannot, the children run without filters, within their other bounds
 * (--user, no new privileges, their limits, a process group the daemon
 * kills), rather than convert nothing.  Return: true if it can.
 */
bool sandbox_init(void)
{
	no_seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0 && errno == EINVAL;
	return !no_seccomp;
}

/* Install native_only followed by @body, @len instructions. */
static int load(const struct sock_filter *body, size_t len)
{
	struct sock_fprog prog = { .len = ARRAY_SIZE(native_only) + len };
	struct sock_filter *f;
	int ret;

	if (no_seccomp)
		return 0;
	f = calloc(prog.len, sizeof(*f));
	if (!f)
		return -1;
	memcpy(f, native_only, sizeof(native_only));
	memcpy(f + ARRAY_SIZE(native_only), body, len * sizeof(*f));
	prog.filter = f;
	/* no_new_privs, which a filter needs without CAP_SYS_ADMIN, is set. */
	ret = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	free(f);
	return ret;
}

/*
 * The converter's filter: parse memory, write to @out, exit (above).
 * Return: 0, or -1 (the child then converts nothing).
 */
int sandbox_converter(int out)
{
	struct sock_filter f[] = {
		/* write(out, ...) alone. */
		JEQ(__NR_write, 0, 4),
		LOAD_ARG(0),
		JEQ((__u32)out, 0, 1),
		ALLOW,
		KILL,
		/* mmap() and mprotect() without PROT_EXEC: no code of its own. */
		JEQ(__NR_mmap, 1, 0),
		JEQ(__NR_mprotect, 0, 4),
		LOAD_ARG(2),
		JSET(PROT_EXEC, 0, 1),
		KILL,
		ALLOW,
		/* malloc()'s. */
		IS(__NR_brk),
		ALLOW,
		IS(__NR_munmap),
		ALLOW,
		IS(__NR_mremap),
		ALLOW,
		IS(__NR_madvise),
		ALLOW,
		/* glibc's qsort(), once: how large a buffer it may take. */
		IS(__NR_sysinfo),
		ALLOW,
		IS(__NR_exit_group),
		ALLOW,
		IS(__NR_exit),
		ALLOW,
		/* libdw asks for the path of a descriptor libelf gave up. */
#ifdef __NR_readlink
		IS(__NR_readlink),
		FAIL(EACCES),
#endif
		IS(__NR_readlinkat),
		FAIL(EACCES),
		KILL,
	};

	return load(f, ARRAY_SIZE(f));
}

/* What the fetcher may not call: a filter kills it (above). */
static const unsigned int fetcher_denied[] = {
#ifdef __NR_fork
	__NR_fork, __NR_vfork,
#endif
	__NR_execve, __NR_execveat,
	__NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev,
	__NR_kcmp, __NR_pidfd_getfd,
	__NR_unshare, __NR_setns,
	__NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot,
	__NR_open_tree, __NR_move_mount, __NR_fsopen, __NR_fsconfig,
	__NR_fsmount, __NR_fspick, __NR_mount_setattr,
	__NR_name_to_handle_at, __NR_open_by_handle_at, __NR_fanotify_init,
	__NR_bpf, __NR_perf_event_open,
	__NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
	__NR_userfaultfd,
	__NR_add_key, __NR_request_key, __NR_keyctl,
	__NR_personality,
};

/*
 * The fetcher's filter: all but what no debuginfod client does (above).
 * Return: 0, or -1 (the fetcher then asks nothing).
 */
int sandbox_fetcher(void)
{
	static const struct sock_filter head[] = {
		/* Threads (libcurl's resolver), no processes, no namespaces. */
		JEQ(__NR_clone, 0, 5),
		LOAD_ARG(0),
		JSET(CLONE_THREAD, 0, 2),
		JSET(CLONE_NEW_ANY, 1, 0),
		ALLOW,
		KILL,
		/* Its flags are out of reach: glibc falls back to clone(). */
		IS(__NR_clone3),
		FAIL(ENOSYS),
	};
	struct sock_filter f[ARRAY_SIZE(head) + 2 * ARRAY_SIZE(fetcher_denied) + 1];
	unsigned short n = ARRAY_SIZE(head);
	size_t i;

	memcpy(f, head, sizeof(head));
	for (i = 0; i < ARRAY_SIZE(fetcher_denied); i++) {
		f[n++] = (struct sock_filter)IS(fetcher_denied[i]);
		f[n++] = (struct sock_filter)KILL;
	}
	f[n++] = (struct sock_filter)ALLOW;
	return load(f, n);
}
