/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files of sframe-unwindd and what passes between them, each calling
 * only the ones below it:
 *
 *   sframe-unwindd.c          main(): the module's requests, or those of
 *                             --convert, what becomes of each, the totals
 *   sframe-unwindd-child.c    the children, the converter and the
 *                             debuginfod fetcher (with its client's cache
 *                             in DIR): their limits, process groups and
 *                             pipes
 *   sframe-unwindd-sandbox.c  the children's system call filters
 *   sframe-unwindd-files.c    the sidecar directory, DIR: what it holds,
 *                             the least recently read pruned for the
 *                             quotas, a sidecar written there; a file's
 *                             content digest and build-id; whole reads and
 *                             writes
 *   sframe-unwindd-options.c  the options and their defaults
 *
 * Each file defines the state it sets up, which the files above it read.
 */
#ifndef _SFRAME_UNWINDD_H
#define _SFRAME_UNWINDD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include <linux/types.h>

#include "uapi/sframe_sidecar.h"
#include "uapi/sframe_unwind.h"

/* Whom the children run as by default (--user), and without that user. */
#define UNWINDD_USER		"sframe-unwind"
#define UNWINDD_FALLBACK_USER	"nobody"

/* libdebuginfod, opened in the fetching child only (not linked: optional). */
#define LIBDEBUGINFOD	"libdebuginfod.so.1"
/* The fetching child's debuginfod client cache, in DIR, the child user's. */
#define DEBUGINFOD_CACHE	".debuginfod-cache"

/* Exit codes of the converting child. */
enum child_exit {
	CHILD_OK = 0,
	CHILD_SETUP = 10,	/* limits or privileges could not be set */
	CHILD_NOT_ELF,		/* not a native ELF file */
	CHILD_MISMATCH,		/* another build-id than the module read */
	CHILD_NOTHING,		/* no CFI, or nothing the own section lacks */
	CHILD_FAILED,		/* the conversion failed */
	CHILD_WRITE,		/* the pipe took no more */
	CHILD_TEST_REFUSED,	/* --test-sandbox nproc: the fork() was refused */
	/* The fetching child's: */
	FETCH_MISS = 20,	/* no server has the build-id's sidecar */
	FETCH_NO_LIB,		/* no libdebuginfod */
	FETCH_ERRNO = 128,	/* + the client's errno (at most 127) */
};

/* What became of a child that did not exit: killed by its filter, or else. */
#define CHILD_SIGSYS	(-2)
#define CHILD_KILLED	(-1)

/* --test-sandbox: what the converting child tries that its sandbox stops. */
enum sandbox_test {
	TEST_NONE,
	TEST_SOCKET,		/* socket(AF_INET), under the filter */
	TEST_FORK,		/* fork(), under the filter */
	TEST_OPEN,		/* open("/etc/passwd"), under the filter */
	TEST_MMAP_EXEC,		/* mmap(PROT_EXEC), under the filter */
	TEST_NPROC,		/* fork(), as --user, before the filter: RLIMIT_NPROC */
	TEST_STRAY,		/* a process left in its group, made before its limits */
};

/* The options (sframe-unwindd-options.c). */
struct unwindd_options {
	const char *dir;
	const char *user;
	const char *stats;
	unsigned long long max_size;
	unsigned long long max_output;
	unsigned long long max_sidecars;
	unsigned long long max_bytes;
	unsigned long long mem;
	unsigned int rate;
	unsigned int burst;
	unsigned int cpu;
	unsigned int timeout;
	unsigned int rescan_ms;
	unsigned int debuginfod_timeout;
	/* Set by getopt_long() itself (long_options): int, as its flags are. */
	int any_owner;
	int no_debuginfod;
	int no_prefetch;
	enum sandbox_test test_sandbox;
	/* --user was given: no falling back to nobody. */
	bool user_given;
	char **convert;
	int num_convert;
	/* --list-ahead FILE: what would be fetched ahead after FILE, for tests. */
	const char *list_ahead;
};

extern struct unwindd_options opt;

static inline void logmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("sframe-unwindd: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static inline double now_s(const struct timespec *since)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - since->tv_sec) + (t.tv_nsec - since->tv_nsec) / 1e9;
}

/* sframe-unwindd-child.c */
/* Bytes of this process's vDSO mapping (children have the same). */
extern size_t vdso_size;
/* Whom the children run as (--user). */
extern uid_t child_uid;
extern gid_t child_gid;
/* DEBUGINFOD_URLS is set and --no-debuginfod not given; the client's cache. */
extern bool use_debuginfod;
extern char debuginfod_cache[4096];
/* Fetchers started, one after another. */
extern u64 debuginfod_fetchers;

void debuginfod_init(void);
int convert(int fd, const char *want, char **buf, size_t *len);
int fetch(const struct sfu_sidecar_request *r, const struct timespec *start, char **buf,
	  size_t *len);
int fetcher_stop(bool kill_it);

/* sframe-unwindd-sandbox.c */
bool sandbox_init(void);
int sandbox_converter(int out);
int sandbox_fetcher(void);

/* sframe-unwindd-files.c */
/* The sidecar directory, DIR; the sidecars it holds and their bytes. */
extern int dir_fd;
extern u64 dir_sidecars;
extern u64 dir_bytes;

/* A sidecar read within this long is never pruned for the quotas. */
#define PRUNE_MIN_IDLE_S	3600
/* While DIR is full, it is counted again at most this often. */
#define DIR_RESCAN_S		10

/* The sidecars dir_make_room() removed: how many, their bytes, the last one's atime. */
struct dir_pruned {
	u64 sidecars;
	u64 bytes;
	time_t last_read;
};

size_t read_all(int fd, void *buf, size_t len);
int write_all(int fd, const void *buf, size_t len);
int open_dir(void);
void dir_count(void);
bool dir_make_room(u64 bytes, struct dir_pruned *p);
bool digest_is(int fd, const struct sfu_sidecar_header *hdr);
bool sidecar_of(const struct sfu_sidecar_request *r, const char *buf, size_t len);
int install(const char *id, const char *buf, size_t len, mode_t mode);
int read_build_id(int fd, struct sfu_sidecar_request *r);

/* sframe-unwindd-options.c */
void parse_args(int argc, char **argv);

/* What happened to the requests; printed as "name value" pairs. */
struct unwindd_stats {
	u64 received;
	u64 converted;
	u64 bytes;
	u64 exists;
	u64 refused_size;
	u64 refused_type;
	u64 refused_owner;
	u64 refused_quota;
	u64 refused_mismatch;
	u64 not_elf;
	u64 nothing;
	u64 failed;
	u64 killed;
	u64 sandbox_kills;
	u64 write_failed;
	u64 rate_waits;
	u64 rescans;
	u64 pruned;
	u64 debuginfod_hits;
	u64 prefetched;
	u64 debuginfod_misses;
	u64 debuginfod_refused;
	u64 debuginfod_errors;
	u64 log_suppressed;
};

extern struct unwindd_stats st;

/* sframe-unwindd-files.c: the vDSO's sidecar, at start. */
void do_vdso(void);

/* sframe-unwindd-prefetch.c: the neighbours of a file debuginfod served. */
struct prefetch {
	int fd;
	char name[64];
};

void prefetch_note(int fd);
void prefetch_later(int fd);
bool prefetch_waits(void);
bool prefetch_next(struct prefetch *p);
void prefetch_clear(void);

#endif /* _SFRAME_UNWINDD_H */
