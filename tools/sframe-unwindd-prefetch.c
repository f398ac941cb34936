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
 *
 * A Python package imports its extension modules from several
 * directories, one import after another (numpy: core, then linalg, fft,
 * random), each running its module's code as soon as it is mapped.  So
 * where the file's directory holds __init__.py, the directories of its
 * package are listed too, before it (the last listed is fetched first):
 * from the topmost directory above it that holds __init__.py (at most
 * PREFETCH_UP levels), its subdirectories PREFETCH_DEPTH deep, at most
 * PREFETCH_TREE_DIRS of them, each reached by name from the one above
 * without following a link and checked as the others are.
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
#define PREFETCH_UP		4
#define PREFETCH_DEPTH		3
#define PREFETCH_TREE_DIRS	64
#define PREFETCH_LATER		8
#define FUSE_MAGIC		0x65735546

static struct {
	dev_t dev;
	ino_t ino;
} listed[PREFETCH_DIRS];
static unsigned int n_listed;

static struct prefetch waiting[PREFETCH_WAITING];
static unsigned int n_waiting;

/* Files whose neighbours are to be listed (prefetch_later()), oldest first. */
static int later[PREFETCH_LATER];
static unsigned int n_later;

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

/* Where list_dir() walks a tree: what it leaves out, and how many more it may open. */
struct walk {
	const struct stat *self;
	const struct stat *skip;
	unsigned int dirs_left;
};

/*
 * List the libraries of directory @d (checked, dir_ok(); closed here), but
 * @w->self, unless it is @w->skip or was listed before; with @depth, first
 * those of its subdirectories, @depth deep, while @w->dirs_left lasts.
 */
static void list_dir(int d, struct walk *w, int depth)
{
	unsigned int first, libs = 0;
	struct dirent *de;
	struct stat ds;
	DIR *dir = NULL;

	if (!fstat(d, &ds) &&
	    !(w->skip && ds.st_dev == w->skip->st_dev && ds.st_ino == w->skip->st_ino) &&
	    !listed_before(&ds))
		dir = fdopendir(d);
	if (!dir) {
		close(d);
		return;
	}
	while (depth > 0 && (de = readdir(dir))) {
		int sub;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    !w->dirs_left)
			continue;
		sub = openat(dirfd(dir), de->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (sub < 0)
			continue;
		w->dirs_left--;
		if (dir_ok(sub))
			list_dir(sub, w, depth - 1);
		else
			close(sub);
	}
	rewinddir(dir);
	first = n_waiting;
	while ((de = readdir(dir))) {
		int f;

		if (de->d_name[0] == '.' || !strstr(de->d_name, ".so") ||
		    (de->d_type != DT_REG && de->d_type != DT_UNKNOWN))
			continue;
		if (++libs > PREFETCH_DIR_MAX)
			break;
		f = open_neighbour(dirfd(dir), de->d_name, w->self);
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

/* Whether directory @d holds __init__.py: it is a Python package's. */
static bool is_package(int d)
{
	struct stat s;

	return !fstatat(d, "__init__.py", &s, AT_SYMLINK_NOFOLLOW) && S_ISREG(s.st_mode);
}

/*
 * The topmost directory, @d (a package's, checked) or one at most
 * PREFETCH_UP levels above it, that holds __init__.py: each reached by
 * "..", every directory above @d having been checked on open_dir_of()'s
 * way down, and checked again on its descriptor; -1 if @d cannot be
 * duplicated.
 */
static int open_package_of(int d)
{
	int top = fcntl(d, F_DUPFD_CLOEXEC, 0), up, parent;
	struct stat a, b;

	for (up = 0; top >= 0 && up < PREFETCH_UP; up++) {
		parent = openat(top, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		/* "/" is its own parent. */
		if (parent < 0 || !dir_ok(parent) || !is_package(parent) || fstat(top, &a) ||
		    fstat(parent, &b) || (a.st_dev == b.st_dev && a.st_ino == b.st_ino)) {
			if (parent >= 0)
				close(parent);
			break;
		}
		close(top);
		top = parent;
	}
	return top;
}

/**
 * prefetch_note() - list the neighbours of a file debuginfod served
 * @fd: the request's descriptor on the file
 *
 * Their descriptors wait for prefetch_next(), at most PREFETCH_WAITING:
 * the oldest give way to the newest.  Those of the file's own directory
 * are listed last, to be fetched first; before them, where it is a Python
 * package's, those of the package's other directories.
 */
void prefetch_note(int fd)
{
	char link[64], path[PATH_MAX];
	struct walk w = { .dirs_left = PREFETCH_TREE_DIRS };
	struct stat self, own;
	ssize_t n;
	int d;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0 || fstat(fd, &self))
		return;
	path[n] = '\0';
	if (path[0] != '/' || strstr(path, " (deleted)"))
		return;
	d = open_dir_of(path);
	if (d < 0 || fstat(d, &own)) {
		if (d >= 0)
			close(d);
		return;
	}
	w.self = &self;
	if (is_package(d)) {
		int pkg = open_package_of(d);

		/* The package's other directories, its own left for last. */
		w.skip = &own;
		if (pkg >= 0)
			list_dir(pkg, &w, PREFETCH_DEPTH);
		w.skip = NULL;
	}
	list_dir(d, &w, 0);
}

/**
 * prefetch_later() - list the neighbours of a file debuginfod served, later
 * @fd: the request's descriptor on the file (duplicated here)
 *
 * Listing reads directories, slowly on a network file system; the
 * processes that map the file wait for their rescan meanwhile.  So the
 * listing waits for the next prefetch_next(), which the daemon calls
 * once it has rescanned and no request waits.  At most PREFETCH_LATER
 * files wait; the oldest give way.
 */
void prefetch_later(int fd)
{
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	if (d < 0)
		return;
	if (n_later == PREFETCH_LATER) {
		close(later[0]);
		memmove(later, later + 1, --n_later * sizeof(later[0]));
	}
	later[n_later++] = d;
}

/**
 * prefetch_waits() - whether a file waits to be fetched ahead
 *
 * Return: true if prefetch_next() may have one.
 */
bool prefetch_waits(void)
{
	return n_waiting || n_later;
}

/**
 * prefetch_next() - the next file to fetch ahead, the last listed first
 * @p: filled in: its descriptor (the caller closes it) and name
 *
 * The files prefetch_later() kept are listed first, the newest last.
 *
 * Return: false if none waits.
 */
bool prefetch_next(struct prefetch *p)
{
	unsigned int i;

	for (i = 0; i < n_later; i++) {
		prefetch_note(later[i]);
		close(later[i]);
	}
	n_later = 0;
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
	while (n_later)
		close(later[--n_later]);
	while (n_waiting)
		close(waiting[--n_waiting].fd);
}
