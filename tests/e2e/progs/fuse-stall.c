// SPDX-License-Identifier: GPL-2.0
/*
 * fuse-stall - a FUSE file system whose one file is never read, or read
 * only by some (tests/e2e/registry_rescan_stuck.sh):
 *
 *   fuse-stall serve DIR    mount on DIR (as root, through /dev/fuse, no
 *                           libfuse) a file system holding one regular
 *                           file, DIR/lib.so, 1 MiB, root's, mode 0755,
 *                           opened with FOPEN_DIRECT_IO; answer INIT,
 *                           LOOKUP, GETATTR, OPEN, FLUSH and RELEASE, and
 *                           take every READ without ever answering it:
 *                           each reader waits for an answer in
 *                           uninterruptible sleep until the connection is
 *                           aborted (/sys/fs/fuse/connections/N/abort).
 *                           Prints "mounted", then "read PID" for each
 *                           READ taken.  Ends when the connection does.
 *   fuse-stall serve DIR SRC
 *                           the same, DIR/lib.so being a copy of SRC whose
 *                           READs are answered for the threads that opened
 *                           it (the mapping process, whose own scan reads
 *                           it), and taken and never answered for any
 *                           other (the sidecar daemon, handed the file).
 *   fuse-stall map FILE     map FILE private and executable, print
 *                           "mapped", then wait for a signal
 *   fuse-stall pin FILE     the same, and pin the process's mmap_lock
 *                           behind the file: a thread maps it at an
 *                           address reserved beforehand; a second reads
 *                           that page through /proc/self/mem, which
 *                           faults it in holding the mmap_lock for
 *                           reading (access_remote_vm(): a fault that may
 *                           not drop it) and waits for the READ; a third
 *                           calls mmap(), which waits to take it for
 *                           writing, and from then on every reader that
 *                           does not only try waits behind that one.
 *                           Prints "pinned" once the third has waited 1 s
 *                           (its stack mapped first, while it could be).
 *
 * Exit status 1 on any error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define FILE_NAME	"lib.so"
#define FILE_INO	2
#define FILE_SIZE	(1024 * 1024)
/* At least FUSE_MIN_READ_BUFFER, and room for a write of max_write. */
#define BUF_SIZE	(64 * 1024)

static int fuse_fd;
/* serve DIR SRC: SRC's bytes, and the threads that opened lib.so. */
static unsigned char *src;
static size_t src_len = FILE_SIZE;
static __u32 openers[64];
static unsigned int nr_openers;

static void reply(__u64 unique, int error, const void *arg, size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + len, .error = -error, .unique = unique,
	};
	char buf[sizeof(out) + 256];

	memcpy(buf, &out, sizeof(out));
	if (len)
		memcpy(buf + sizeof(out), arg, len);
	/* ENOENT: the request was interrupted and is gone. */
	if (write(fuse_fd, buf, out.len) < 0 && errno != ENOENT)
		perror("fuse-stall: write");
}

static void attr(__u64 ino, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->blksize = 4096;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0755;
		a->nlink = 1;
		a->size = src_len;
		a->blocks = (src_len + 511) / 512;
	}
}

static void do_init(const struct fuse_in_header *in, const void *arg)
{
	const struct fuse_init_in *ii = arg;
	struct fuse_init_out o = {
		.major = FUSE_KERNEL_VERSION,
		.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ? ii->minor :
		FUSE_KERNEL_MINOR_VERSION,
		.max_readahead = ii->max_readahead,
		.max_write = 4096,
		.time_gran = 1,
	};

	reply(in->unique, 0, &o, sizeof(o));
}

static void do_lookup(const struct fuse_in_header *in, const char *name)
{
	struct fuse_entry_out e = { .nodeid = FILE_INO, .entry_valid = 3600, .attr_valid = 3600 };

	if (in->nodeid != FUSE_ROOT_ID || strcmp(name, FILE_NAME)) {
		reply(in->unique, ENOENT, NULL, 0);
		return;
	}
	attr(FILE_INO, &e.attr);
	reply(in->unique, 0, &e, sizeof(e));
}

static void do_getattr(const struct fuse_in_header *in)
{
	struct fuse_attr_out o = { .attr_valid = 3600 };

	if (in->nodeid != FUSE_ROOT_ID && in->nodeid != FILE_INO) {
		reply(in->unique, ENOENT, NULL, 0);
		return;
	}
	attr(in->nodeid, &o.attr);
	reply(in->unique, 0, &o, sizeof(o));
}

/* READ: answered from SRC for a thread that opened the file; else taken. */
static void do_read(const struct fuse_in_header *in, const struct fuse_read_in *r)
{
	struct fuse_out_header out = { .unique = in->unique };
	struct iovec iov[2] = { { &out, sizeof(out) } };
	unsigned int i;
	size_t n = 0;

	for (i = 0; src && i < nr_openers && openers[i] != in->pid; i++)
		;
	if (!src || i == nr_openers) {
		/* Taken, never answered. */
		printf("read %u\n", in->pid);
		fflush(stdout);
		return;
	}
	if (r->offset < src_len)
		n = src_len - r->offset < r->size ? src_len - r->offset : r->size;
	iov[1].iov_base = src + (n ? r->offset : 0);
	iov[1].iov_len = n;
	out.len = sizeof(out) + n;
	if (writev(fuse_fd, iov, 2) < 0 && errno != ENOENT)
		perror("fuse-stall: writev");
}

/* SRC read whole (serve DIR SRC). */
static int load_src(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st))
		return -1;
	src_len = st.st_size;
	src = malloc(src_len);
	if (!src || read(fd, src, src_len) != (ssize_t)src_len)
		return -1;
	return close(fd);
}

static int serve(const char *dir)
{
	static char buf[BUF_SIZE];
	char opts[128];

	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0) {
		perror("fuse-stall: /dev/fuse");
		return 1;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other",
		 fuse_fd);
	if (mount("fuse-stall", dir, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		perror("fuse-stall: mount");
		return 1;
	}
	printf("mounted\n");
	fflush(stdout);
	for (;;) {
		const struct fuse_in_header *in = (const void *)buf;
		const void *arg = buf + sizeof(*in);
		ssize_t n = read(fuse_fd, buf, sizeof(buf));

		if (n < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			/* ENODEV: unmounted or aborted. */
			return errno == ENODEV ? 0 : (perror("fuse-stall: read"), 1);
		}
		if ((size_t)n < sizeof(*in))
			continue;
		switch (in->opcode) {
		case FUSE_INIT:
			do_init(in, arg);
			break;
		case FUSE_LOOKUP:
			do_lookup(in, arg);
			break;
		case FUSE_GETATTR:
			do_getattr(in);
			break;
		case FUSE_OPEN: {
			struct fuse_open_out o = { .fh = 1, .open_flags = FOPEN_DIRECT_IO };

			if (nr_openers < sizeof(openers) / sizeof(openers[0]))
				openers[nr_openers++] = in->pid;
			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ:
			do_read(in, arg);
			break;
		case FUSE_FLUSH:
		case FUSE_RELEASE:
			reply(in->unique, 0, NULL, 0);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;
		default:
			reply(in->unique, ENOSYS, NULL, 0);
			break;
		}
	}
}

static int map(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
		perror(path);
		return 1;
	}
	printf("mapped\n");
	fflush(stdout);
	for (;;)
		pause();
}

static const char *pin_path;
static void *pin_addr;

/* Its mmap() returns; its own scan then waits on the file's READ. */
static void *pin_map(void *arg)
{
	int fd = open(pin_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || mmap(pin_addr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED,
			   fd, 0) == MAP_FAILED) {
		perror(pin_path);
		exit(1);
	}
	return arg;
}

/* Faults the page in under the mmap_lock, and waits there. */
static void *pin_read(void *arg)
{
	int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	char c;

	if (fd < 0 || pread(fd, &c, 1, (off_t)(uintptr_t)pin_addr) < 0)
		perror("fuse-stall: /proc/self/mem");
	return arg;
}

static int pin_go[2];

/*
 * Made first, its stack mapped while the lock is free; once told, waits
 * to take the mmap_lock for writing.
 */
static void *pin_write(void *arg)
{
	char c;

	if (read(pin_go[0], &c, 1) != 1 ||
	    mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
		perror("fuse-stall: mmap");
	return arg;
}

/* Whether FILE's mapping is in /proc/self/maps (read before the pin). */
static int pin_mapped(void)
{
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		found |= !!strstr(line, FILE_NAME);
	if (f)
		fclose(f);
	return found;
}

static int pin(const char *path)
{
	pthread_t t;
	int n;

	pin_path = path;
	pin_addr = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pin_addr == MAP_FAILED || pipe(pin_go) || pthread_create(&t, NULL, pin_write, NULL) ||
	    pthread_create(&t, NULL, pin_map, NULL))
		return 1;
	/* The file mapped before the read; the read started before the write. */
	for (n = 0; !pin_mapped() && n < 200; n++)
		usleep(50000);
	if (pthread_create(&t, NULL, pin_read, NULL))
		return 1;
	sleep(1);
	/*
	 * From here on nothing may map or unmap (no malloc(), no thread),
	 * or this thread waits behind the writer too.
	 */
	if (write(pin_go[1], "", 1) != 1)
		return 1;
	sleep(1);
	if (write(1, "pinned\n", 7) != 7)
		return 1;
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "serve")) {
		if (load_src(argv[3])) {
			perror(argv[3]);
			return 1;
		}
		return serve(argv[2]);
	}
	if (argc == 3 && !strcmp(argv[1], "map"))
		return map(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "pin"))
		return pin(argv[2]);
	fprintf(stderr, "usage: fuse-stall serve DIR [SRC] | fuse-stall map|pin FILE\n");
	return 2;
}
