// SPDX-License-Identifier: GPL-2.0
/*
 * userns-fill - register sections as the many uids of a rootless container,
 * then as other users, and print how many each got (run as root).
 *
 *   userns-fill OWNER OTHER BASE COUNT MAX
 *
 * 1. A process of uid OWNER makes a user namespace; root maps its uids
 *    0..COUNT-1 to BASE..BASE+COUNT-1, as newuidmap does for a subuid
 *    range.  One after another, a process as each of those uids registers
 *    up to MAX one-function sections through SFU_IOC_REGISTER, stopping at
 *    the first ENOSPC, and keeps them; the last one does so from a user
 *    namespace of its own, nested in the first.  Prints
 *    "subuid I kuid K registered N" for each, then the module's users
 *    file, each line prefixed "users ".
 * 2. While they hold theirs, a process of uid OWNER and one of uid OTHER,
 *    both of the initial namespace, try one each: "owner UID registered N",
 *    "other UID registered N".
 * 3. Those go; a namespace root makes, its uid 0 mapped to BASE+COUNT,
 *    registers up to MAX: "rootns kuid K registered N".
 *
 * Exits 0 when every step ran (the counts are for the caller to judge),
 * 77 when the kernel has no user namespaces, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sframe_unwind.h"

#define FUNC_SIZE 64
#define USERS "/sys/kernel/debug/sframe_unwind/users"

/* One FDE, one FRE, as examples/jit_register.c builds them. */
struct __attribute__((packed)) one_function_sframe {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint8_t abi_arch;
	int8_t cfa_fixed_fp_offset;
	int8_t cfa_fixed_ra_offset;
	uint8_t auxhdr_len;
	uint32_t num_fdes, num_fres, fre_len, fdeoff, freoff;
	int32_t func_start;
	uint32_t func_size, fre_off, fre_num;
	uint8_t fde_info, rep_size;
	uint16_t padding;
	uint8_t fre_start, fre_info;
	int8_t cfa_offset;
};

static void build(struct one_function_sframe *s, const void *func)
{
	memset(s, 0, sizeof(*s));
	s->magic = 0xdee2;
	s->version = 2;
	s->flags = 0x1 | 0x4;
#ifdef __x86_64__
	s->abi_arch = 3;
	s->cfa_fixed_ra_offset = -8;
	s->cfa_offset = 8;
#else
	s->abi_arch = 2;
#endif
	s->num_fdes = 1;
	s->num_fres = 1;
	s->fre_len = 3;
	s->freoff = 20;
	s->func_start = (int32_t)((intptr_t)func - (intptr_t)&s->func_start);
	s->func_size = FUNC_SIZE;
	s->fre_num = 1;
	s->fre_info = 0x1 | (1 << 1);
}

/* Register up to @max sections, each for its own function; -1 on an error but ENOSPC. */
static long register_many(long max)
{
	unsigned char *text, *data;
	long n;
	int fd;

	fd = open("/dev/sframe_unwind", O_RDWR);
	if (fd < 0) {
		perror("/dev/sframe_unwind");
		return -1;
	}
	text = mmap(NULL, max * FUNC_SIZE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	data = mmap(NULL, max * FUNC_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (text == MAP_FAILED || data == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	for (n = 0; n < max; n++) {
		struct one_function_sframe *s = (void *)(data + n * FUNC_SIZE);
		struct sfu_register reg = {
			.sframe_addr = (uintptr_t)s,
			.sframe_size = sizeof(*s),
			.text_start = (uintptr_t)(text + n * FUNC_SIZE),
			.text_end = (uintptr_t)(text + (n + 1) * FUNC_SIZE),
		};

		build(s, text + n * FUNC_SIZE);
		if (ioctl(fd, SFU_IOC_REGISTER, &reg)) {
			if (errno == ENOSPC)
				break;
			fprintf(stderr, "register %ld: %s (error %d)\n", n, strerror(errno),
				reg.error);
			return -1;
		}
	}
	/* The fd may go: sections belong to the mm, not to it. */
	close(fd);
	return n;
}

static int become(uid_t uid)
{
	if (setgroups(0, NULL) && errno != EPERM) {
		perror("setgroups");
		return -1;
	}
	if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) {
		fprintf(stderr, "setresuid %u: %s\n", uid, strerror(errno));
		return -1;
	}
	return 0;
}

static void put_byte(int fd)
{
	char c = 0;

	if (write(fd, &c, 1) != 1)
		_exit(1);
}

/* 0 on a byte, -1 at EOF (the writer is gone) or on an error. */
static int get_byte(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

/* Until every writer of @fd closed it. */
static void wait_eof(int fd)
{
	char c;

	while (read(fd, &c, 1) > 0 || errno == EINTR)
		;
}

static int write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	if (!ok)
		fprintf(stderr, "%s: %s: %s\n", path, text, strerror(errno));
	close(fd);
	return ok ? 0 : -1;
}

/* Map uids and gids 0..@count-1 of @pid's user namespace to @base... */
static int map_range(pid_t pid, unsigned long base, unsigned long count)
{
	char map[64];

	snprintf(map, sizeof(map), "0 %lu %lu\n", base, count);
	return write_file(pid, "uid_map", map) || write_file(pid, "gid_map", map) ? -1 : 0;
}

static int status_ok(pid_t pid)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Can this kernel make a user namespace at all? */
static int have_userns(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) ? 1 : 0);
	return pid > 0 && status_ok(pid);
}

static void print_users(void)
{
	char line[256];
	FILE *f = fopen(USERS, "r");

	if (!f) {
		perror(USERS);
		return;
	}
	while (fgets(line, sizeof(line), f))
		printf("users %s", line);
	fclose(f);
	fflush(stdout);
}

/* A process of @uid in the initial namespace tries to register one section. */
static int try_one(const char *who, uid_t uid)
{
	pid_t pid;
	long n;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (become(uid))
			_exit(1);
		n = register_many(1);
		if (n < 0)
			_exit(1);
		printf("%s %u registered %ld\n", who, uid, n);
		fflush(stdout);
		_exit(0);
	}
	return pid > 0 && status_ok(pid) ? 0 : -1;
}

/*
 * The container: made by @owner, mapped by root; a process per uid, the
 * last in a nested namespace, each holding its sections until @hold ends.
 */
static void container(uid_t owner, int hold, int ready, int go, int done, unsigned long base,
		      unsigned long count, long max)
{
	int step[2], failed = 0, st;
	unsigned long i;
	long n;

	if (become(owner) || unshare(CLONE_NEWUSER)) {
		perror("container");
		_exit(1);
	}
	put_byte(ready);
	if (get_byte(go))
		_exit(1);
	for (i = 0; i < count && !failed; i++) {
		pid_t pid;

		if (pipe(step))
			_exit(1);
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			_exit(1);
		if (pid == 0) {
			close(step[0]);
			if (become(i))
				_exit(1);
			if (i == count - 1 && unshare(CLONE_NEWUSER)) {
				perror("nested namespace");
				_exit(1);
			}
			n = register_many(max);
			if (n < 0)
				_exit(1);
			printf("subuid %lu kuid %lu registered %ld%s\n", i, base + i, n,
			       i == count - 1 ? " nested" : "");
			fflush(stdout);
			put_byte(step[1]);
			wait_eof(hold);
			_exit(0);
		}
		close(step[1]);
		/* EOF if it failed before registering all it could. */
		failed = get_byte(step[0]);
		close(step[0]);
	}
	if (!failed)
		put_byte(done);
	close(done);
	wait_eof(hold);
	while (wait(&st) > 0)
		failed |= !WIFEXITED(st) || WEXITSTATUS(st);
	_exit(failed);
}

/* A namespace root makes, its uid 0 mapped to @kuid: registers up to @max. */
static int root_namespace(unsigned long kuid, long max)
{
	int ready[2], go[2];
	pid_t pid;
	long n;

	if (pipe(ready) || pipe(go))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		put_byte(ready[1]);
		if (get_byte(go[0]) || become(0))
			_exit(1);
		n = register_many(max);
		if (n < 0)
			_exit(1);
		printf("rootns kuid %lu registered %ld\n", kuid, n);
		fflush(stdout);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	if (pid < 0 || get_byte(ready[0]) || map_range(pid, kuid, 1)) {
		if (pid > 0)
			kill(pid, SIGKILL);
		return -1;
	}
	put_byte(go[1]);
	close(go[1]);
	return status_ok(pid) ? 0 : -1;
}

int main(int argc, char **argv)
{
	int hold[2], ready[2], go[2], done[2], failed = 0;
	unsigned long base, count;
	uid_t owner, other;
	long max;
	pid_t c;

	if (argc != 6) {
		fprintf(stderr, "usage: %s OWNER OTHER BASE COUNT MAX\n", argv[0]);
		return 1;
	}
	owner = strtoul(argv[1], NULL, 0);
	other = strtoul(argv[2], NULL, 0);
	base = strtoul(argv[3], NULL, 0);
	count = strtoul(argv[4], NULL, 0);
	max = strtol(argv[5], NULL, 0);
	if (!count || max <= 0) {
		fprintf(stderr, "COUNT and MAX must be positive\n");
		return 1;
	}
	if (!have_userns()) {
		printf("no user namespaces in this kernel\n");
		return 77;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(hold) || pipe(ready) || pipe(go) || pipe(done)) {
		perror("pipe");
		return 1;
	}

	fflush(stdout);
	c = fork();
	if (c < 0) {
		perror("fork");
		return 1;
	}
	if (c == 0) {
		close(hold[1]);
		close(ready[0]);
		close(go[1]);
		close(done[0]);
		container(owner, hold[0], ready[1], go[0], done[1], base, count, max);
	}
	close(hold[0]);
	close(ready[1]);
	close(go[0]);
	close(done[1]);
	if (get_byte(ready[0]) || map_range(c, base, count)) {
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
		return 1;
	}
	put_byte(go[1]);
	if (get_byte(done[0])) {
		fprintf(stderr, "the container's processes failed\n");
		failed = 1;
	} else {
		print_users();
		failed |= try_one("owner", owner) | try_one("other", other);
	}
	close(hold[1]);
	failed |= !status_ok(c);
	if (!failed)
		failed |= root_namespace(base + count, max);
	return failed ? 1 : 0;
}
