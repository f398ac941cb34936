// SPDX-License-Identifier: GPL-2.0
/*
 * libswap.so - a file swapped under a converter between its walk and its
 * open, without a race to win.  Preloaded (LD_PRELOAD) into sframe-gen,
 * it renames SFU_SWAP_FROM over SFU_SWAP_TO just before the first
 * open(), open64(), openat() or openat64() of a name whose last
 * component is SFU_SWAP_TO's, then lets the open go on: what a user who
 * could write the directory would do at the worst moment.  With
 * SFU_SWAP_AT set, the open of a name whose last component is that one
 * is the moment instead; with SFU_SWAP_ASIDE set, SFU_SWAP_TO is first
 * renamed to it (a directory, which a link cannot replace).  Used by
 * tests/sidecars/run with a FIFO and symbolic links.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int open_fn(const char *path, int flags, ...);
typedef int openat_fn(int dirfd, const char *path, int flags, ...);

static int swapped;

static const char *last(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void maybe_swap(const char *path)
{
	const char *from = getenv("SFU_SWAP_FROM"), *to = getenv("SFU_SWAP_TO");
	const char *aside = getenv("SFU_SWAP_ASIDE"), *at = getenv("SFU_SWAP_AT");

	if (swapped || !from || !to || !path || strcmp(last(path), at ? at : last(to)))
		return;
	swapped = 1;
	if (aside && rename(to, aside))
		perror("libswap: rename aside");
	if (rename(from, to))
		perror("libswap: rename");
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
}

int open(const char *path, int flags, ...)
{
	open_fn *next = dlsym(RTLD_NEXT, "open");
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	maybe_swap(path);
	return next(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	open_fn *next = dlsym(RTLD_NEXT, "open64");
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	maybe_swap(path);
	return next(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	openat_fn *next = dlsym(RTLD_NEXT, "openat");
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	maybe_swap(path);
	return next(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	openat_fn *next = dlsym(RTLD_NEXT, "openat64");
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	maybe_swap(path);
	return next(dirfd, path, flags, mode);
}
