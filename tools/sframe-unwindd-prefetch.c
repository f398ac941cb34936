// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-unwindd: the sidecars of a file's neighbours, fetched ahead.
 *
 * A request reaches the daemon only once its file is mapped, and until
 * its sidecar is written the samples of that file (and of every frame
 * below it) have no rows.  A program that maps one library of a
 * directory often maps others of it next: Python's extension modules,
 * numpy's dozens, a plugin directory.  So when debuginfod served the
 * sidecar of a request, the other libraries of that file's directory are
 * listed here, and the daemon asks debuginfod for theirs while no request
 * waits (prefetch_next()); nothing is converted ahead, only fetched.
 *
 * Which files: the directory is the one the daemon's own root reaches
 * under the name of the request's descriptor; every directory from "/"
 * down is opened without following a link and must be root's and
 * writable by nobody else, and not on FUSE (whose server could hold a
 * read for good).  Its entries whose names hold ".so" and that are
 * regular files of root's, writable by nobody else, each opened
 * O_NOFOLLOW | O_NONBLOCK and checked on the descriptor.  A directory is
 * listed once (by device and inode, the last PREFETCH_DIRS), and not at
 * all if it has more than PREFETCH_DIR_MAX such names (a system library
 * directory: those are mapped by the processes that need them).  Whatever
 * the name resolves to, what is fetched for a descriptor is checked
 * against that very file (sidecar_of(), its digest), as a request's is:
 * fetching ahead makes no sidecar that a request could not have made.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "sframe-unwindd.h"

#define PREFETCH_DIRS		256
#define PREFETCH_DIR_MAX	128
#define PREFETCH_WAITING	128
#define FUSE_MAGIC		0x65735546

static struct {
	dev_t dev;
	ino_t ino;
} listed[PREFETCH_DIRS];
static unsigned int n_listed;

static struct prefetch waiting[PREFETCH_WAITING];
static unsigned int n_waiting;

/* Whether @fd is a directory of root's that nobody else may write, not on FUSE. */
static bool dir_ok(int fd)
{
	struct statfs sfs;
	struct stat s;

	return !fstat(fd, &s) && S_ISDIR(s.st_mode) && !s.st_uid && !(s.st_mode & 022) &&
	       !fstatfs(fd, &sfs) && sfs.f_type != FUSE_MAGIC;
}

/* The directory of @path, each one from "/" down checked (dir_ok()); -1 if one is not. */
static int open_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char buf[PATH_MAX], *comp, *save;
	int fd, next;

	if (!slash || slash - path >= (long)sizeof(buf))
		return -1;
	memcpy(buf, path, slash - path);
	buf[slash - path] = '\0';
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !dir_ok(fd))
		goto bad;
	for (comp = strtok_r(buf, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
		if (fd < 0 || !dir_ok(fd))
			goto bad;
	}
	next = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(fd);
	return next;
bad:
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Whether the directory @s was listed before; remembered if not. */
static bool listed_before(const struct stat *s)
{
	unsigned int i, n = n_listed < PREFETCH_DIRS ? n_listed : PREFETCH_DIRS;

	for (i = 0; i < n; i++)
		if (listed[i].dev == s->st_dev && listed[i].ino == s->st_ino)
			return true;
	listed[n_listed % PREFETCH_DIRS].dev = s->st_dev;
	listed[n_listed % PREFETCH_DIRS].ino = s->st_ino;
	n_listed++;
	return false;
}

/* @name of @dir opened, if it is a library to fetch ahead and not @self; else -1. */
static int open_neighbour(int dir, const char *name, const struct stat *self)
{
	struct stat s;
	int fd;

	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &s) || !S_ISREG(s.st_mode) || s.st_uid || (s.st_mode & 022) ||
	    (unsigned long long)s.st_size > opt.max_size ||
	    (s.st_dev == self->st_dev && s.st_ino == self->st_ino)) {
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * prefetch_note() - list the neighbours of a file debuginfod served
 * @fd: the request's descriptor on the file
 *
 * Their descriptors wait for prefetch_next(), at most PREFETCH_WAITING:
 * the oldest give way to the newest.
 */
void prefetch_note(int fd)
{
	char link[64], path[PATH_MAX];
	unsigned int first = n_waiting, libs = 0;
	struct stat self, ds;
	struct dirent *de;
	ssize_t n;
	DIR *dir;
	int d;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0 || fstat(fd, &self))
		return;
	path[n] = '\0';
	if (path[0] != '/' || strstr(path, " (deleted)"))
		return;
	d = open_dir_of(path);
	if (d < 0)
		return;
	dir = fstat(d, &ds) || listed_before(&ds) ? NULL : fdopendir(d);
	if (!dir) {
		close(d);
		return;
	}
	while ((de = readdir(dir))) {
		int f;

		if (de->d_name[0] == '.' || !strstr(de->d_name, ".so") ||
		    (de->d_type != DT_REG && de->d_type != DT_UNKNOWN))
			continue;
		if (++libs > PREFETCH_DIR_MAX)
			break;
		f = open_neighbour(dirfd(dir), de->d_name, &self);
		if (f < 0)
			continue;
		/* Full: the oldest waiting gives way. */
		if (n_waiting == PREFETCH_WAITING) {
			close(waiting[0].fd);
			memmove(waiting, waiting + 1, --n_waiting * sizeof(waiting[0]));
			first -= !!first;
		}
		waiting[n_waiting].fd = f;
		/* For logs only: cut short as the module's names are. */
		snprintf(waiting[n_waiting].name, sizeof(waiting[0].name), "%.63s", de->d_name);
		n_waiting++;
	}
	closedir(dir);
	/* Too many: none of them. */
	while (libs > PREFETCH_DIR_MAX && n_waiting > first)
		close(waiting[--n_waiting].fd);
}

/**
 * prefetch_waits() - whether a file waits to be fetched ahead
 *
 * Return: true if prefetch_next() has one.
 */
bool prefetch_waits(void)
{
	return n_waiting;
}

/**
 * prefetch_next() - the next file to fetch ahead, the last listed first
 * @p: filled in: its descriptor (the caller closes it) and name
 *
 * Return: false if none waits.
 */
bool prefetch_next(struct prefetch *p)
{
	if (!n_waiting)
		return false;
	/* The newest first: the directory a program maps from now. */
	*p = waiting[--n_waiting];
	return true;
}

/**
 * prefetch_clear() - close what waits
 */
void prefetch_clear(void)
{
	struct prefetch p;

	while (prefetch_next(&p))
		close(p.fd);
}
