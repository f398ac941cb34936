// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-unwindd - make SFrame sidecars on demand, for the files the
 * sframe_unwind module finds mapped executable without .sframe or sidecar
 *
 *   sframe-unwindd [--dir DIR] [--user NAME] [--max-size BYTES]
 *                  [--max-output BYTES] [--max-sidecars N] [--max-bytes BYTES]
 *                  [--rate N] [--burst N] [--cpu SECONDS] [--timeout SECONDS]
 *                  [--mem BYTES] [--rescan-ms MS] [--any-owner] [--stats FILE]
 *                  [--no-debuginfod] [--debuginfod-timeout SECONDS]
 *                  [--no-prefetch] [--test-sandbox CALL]
 *
 * Root only.  It attaches to /dev/sframe_unwind (SFU_IOC_SIDECAR_ATTACH),
 * has the module queue the files already mapped (SFU_IOC_SIDECAR_RESCAN),
 * then takes one request at a time (SFU_IOC_SIDECAR_NEXT): a file
 * descriptor on the very file that was mapped, whatever mount namespace
 * it is in, and its build-id.  For each it:
 *
 *  - refuses a file larger than --max-size (default 512 MiB), one that is
 *    not a regular file, and, without --any-owner, one not owned by root
 *    or writable by group or others (its rows could be made to describe
 *    another file of the same build-id); and one whose sidecar exists;
 *  - waits for a token of the rate limit (--rate per minute, default 300,
 *    --burst at once, default 100): the module's queue, capped, then drops
 *    what comes meanwhile and counts it;
 *  - keeps DIR within --max-sidecars (default 10000) sidecars and
 *    --max-bytes (default 1 GiB): what DIR holds, whoever wrote it,
 *    counted at start (a restart grants nothing) and kept current; where a
 *    sidecar would pass either, it removes those least recently read
 *    (atime), none read within the hour, or, where they would not make
 *    room, refuses;
 *  - with DEBUGINFOD_URLS in its environment (and without --no-debuginfod),
 *    first asks debuginfod for the sidecar of the build-id, as the section
 *    .sframe_unwind.sidecar that sframe-gen --publish writes, in a child
 *    that drops to --user as the converting one does, under a system call
 *    filter that denies it processes, exec, namespaces and the like, and
 *    is given the build-id only; killed after --debuginfod-timeout
 *    (default 5 s).  What it fetches must pass the checks a converted
 *    sidecar passes (its header names the build-id, its digest is the
 *    file's, taken here), or it is refused and the file converted; so is
 *    a miss or an error.  Where it served the sidecar, the daemon then
 *    asks it, while no request waits, for those of the other libraries of
 *    the file's directory (sframe-unwindd-prefetch.c; not with
 *    --no-prefetch): they are checked against their files the same way;
 *  - converts the file in a child that drops to --user (default
 *    sframe-unwind, a user of its own that make install-sidecars makes
 *    with systemd-sysusers; nobody, with a warning, where there is none),
 *    with no new privileges, RLIMIT_CPU --cpu (default 60 s), RLIMIT_AS
 *    --mem (default 2 GiB), RLIMIT_FSIZE 0, RLIMIT_NOFILE 16 and, as that
 *    user, RLIMIT_NPROC 0, killed after --timeout (default 120 s) or beyond
 *    --max-output bytes (default 64 MiB); the child leads a process group
 *    of its own, killed whole whenever the child ends; it has the file it
 *    inherits mapped, closes the descriptor and installs a system call
 *    filter (sframe-unwindd-sandbox.c: memory and its pipe, nothing else;
 *    a child it kills is counted in sandbox_kills and its request
 *    refused) before it parses the file; it writes the sidecar to a pipe
 *    and must find the build-id the module read;
 *  - writes the sidecar, checked, to DIR/<2 hex>/<rest>.sframe through a
 *    temporary file (O_EXCL; mode 0644, but 0600 for a file others may
 *    not read) and a rename that replaces nothing; the name
 *    comes from the build-id bytes alone, so nothing is written outside
 *    DIR (default /var/lib/sframe-unwind, which must be root's and
 *    writable by nobody else);
 *  - has the module rescan as soon as no other request is waiting (and
 *    at least every --rescan-ms, default 250, while requests keep
 *    coming), so the processes that map the file use the sidecar at once.
 *
 * At start it also writes the sidecar of the running kernel's vDSO, which
 * has no file (converted from its own mapping, as sframe-gen --install
 * --vdso does).
 *
 * It logs one line per request and its outcome to stderr (refusals at
 * most 10 a second after the first 100, the rest counted), and the totals
 * on SIGUSR1 and at exit; --stats FILE keeps the totals in FILE, rewritten
 * after each request.  SIGTERM or SIGINT end it.
 *
 *   sframe-unwindd --list-ahead FILE
 *
 * prints the names of the files that would be fetched ahead once
 * debuginfod served FILE's sidecar, one a line, in the order they would
 * be, and fetches nothing: for tests (tests/sidecars/run).
 *
 *   sframe-unwindd [OPTIONS] --convert FILE...
 *
 * handles each FILE as a request, without the module (no rescan): for
 * tests (tests/sidecars/run), and for an administrator's own files;
 * "[vdso]" stands for the running kernel's vDSO.  The
 * build-id is read from FILE's program headers, as the module does.
 *
 * --test-sandbox CALL, for tests, has every converting child try what its
 * sandbox must stop: socket, fork, open or mmap-exec under its filter
 * (killed); nproc, a fork() as --user (refused: the request fails);
 * stray, a process left in its group, made before its limits (killed with
 * the group).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/kernel.h>

#include "sframe-unwindd.h"

#define DEVICE		"/dev/sframe_unwind"

struct unwindd_stats st;

static volatile sig_atomic_t stop, dump;
static int dev = -1;
static double tokens;
static struct timespec last_refill, last_rescan;
static bool rescan_pending;

/*
 * A line about one request, within a budget of 100 at once and 10 a
 * second after that: a flood of requests refused fast is not a flood of
 * the log.  What is left out is counted (log_suppressed).
 */
static void reqlog(const char *fmt, ...)
{
	static struct timespec last;
	static double budget = 100;
	va_list ap;

	budget += now_s(&last) * 10;
	clock_gettime(CLOCK_MONOTONIC, &last);
	if (budget > 100)
		budget = 100;
	if (budget < 1) {
		st.log_suppressed++;
		return;
	}
	budget -= 1;
	va_start(ap, fmt);
	fputs("sframe-unwindd: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/*
 * What becomes of a request: each outcome adds one to its counter and
 * logs a line, "<build-id> <file> (uid <uid>): " and its text, within the
 * budget of reqlog(); the text's arguments follow the request in
 * outcome()'s.
 */
enum outcome {
	O_BAD_ID,		/* the module's build-id is too short or long */
	O_NOT_REGULAR,
	O_TOO_BIG,		/* over --max-size */
	O_OWNER,		/* not root's only, without --any-owner */
	O_EXISTS,		/* a sidecar is there already */
	O_QUOTA,		/* --max-sidecars or --max-bytes reached */
	O_QUOTA_BYTES,		/* this sidecar would pass --max-bytes */
	O_DI_REFUSED,		/* debuginfod served what is not its sidecar */
	O_DI_MISS,
	O_DI_NO_LIB,		/* no libdebuginfod: it is not asked again */
	O_DI_ERRNO,		/* the client's error */
	O_DI_FAILED,		/* the fetcher killed or ended */
	O_DI_SANDBOX,		/* the fetcher, killed by its system call filter */
	O_NOT_SIDECAR,		/* the converter's output is not a sidecar of the file */
	O_NOT_ELF,
	O_MISMATCH,		/* the file has another build-id than the module read */
	O_NOTHING,		/* no CFI, or nothing its own section lacks */
	O_KILLED,		/* the converter, past its limits */
	O_SANDBOX,		/* the converter, by its system call filter */
	O_TEST_REFUSED,		/* --test-sandbox nproc: its fork() refused */
	O_FAILED,		/* the converter's exit code */
	O_WRITE_FAILED,
	O_CONVERTED,
	O_FETCHED,		/* from debuginfod */
	O_NR,
};

#define OF_RESCAN	0x1	/* a sidecar is there now: have the module rescan */
#define OF_ALWAYS	0x2	/* logged whatever reqlog()'s budget (logmsg()) */
#define OF_NO_ID	0x4	/* the line names no build-id: "<file> (uid <uid>): " */
#define OF_BARE		0x8	/* the text alone, about the daemon */
#define OF_NO_DEBUGINFOD 0x10	/* debuginfod is not asked again */

static const struct {
	u64 *count;
	const char *text;	/* a printf() format */
	unsigned int flags;	/* OF_* */
} outcomes[O_NR] = {
	[O_BAD_ID] = { &st.refused_mismatch, "bad build-id length %u", OF_NO_ID },
	[O_NOT_REGULAR] = { &st.refused_type, "refused: not a regular file" },
	[O_TOO_BIG] = { &st.refused_size, "refused: %lld bytes > --max-size %llu" },
	[O_OWNER] = { &st.refused_owner, "refused: owner %u mode %o (not root's only)" },
	[O_EXISTS] = { &st.exists, "a sidecar exists", OF_RESCAN },
	[O_QUOTA] = { &st.refused_quota,
		      "refused: %llu sidecars, %llu bytes in DIR, none unread for long (quota)" },
	[O_QUOTA_BYTES] = { &st.refused_quota,
			    "refused: %zu bytes more pass --max-bytes, none unread for long" },
	[O_DI_REFUSED] = { &st.debuginfod_refused,
			   "debuginfod: refused %zu bytes: not a sidecar of this file" },
	[O_DI_MISS] = { &st.debuginfod_misses, "debuginfod: not found" },
	[O_DI_NO_LIB] = { &st.debuginfod_errors,
			  "debuginfod: no " LIBDEBUGINFOD ": not asked again",
			  OF_BARE | OF_ALWAYS | OF_NO_DEBUGINFOD },
	[O_DI_ERRNO] = { &st.debuginfod_errors, "debuginfod: %s, after %.1f s" },
	[O_DI_FAILED] = { &st.debuginfod_errors, "debuginfod: %s (%d), after %.1f s" },
	[O_DI_SANDBOX] = { &st.sandbox_kills,
			   "debuginfod: fetcher killed by its system call filter (SIGSYS)",
			   OF_ALWAYS },
	[O_NOT_SIDECAR] = { &st.failed, "the converter's output is not a sidecar of it" },
	[O_NOT_ELF] = { &st.not_elf, "not a native ELF file" },
	[O_MISMATCH] = { &st.refused_mismatch, "refused: the file has another build-id now" },
	[O_NOTHING] = { &st.nothing, "no CFI to convert" },
	[O_KILLED] = { &st.killed, "converter killed (--timeout, --cpu, --mem or --max-output)" },
	[O_SANDBOX] = { &st.sandbox_kills,
			"refused: converter killed by its system call filter (SIGSYS)", OF_ALWAYS },
	[O_TEST_REFUSED] = { &st.failed, "refused: --test-sandbox nproc: fork() refused",
			     OF_ALWAYS },
	[O_FAILED] = { &st.failed, "conversion failed (%d)" },
	[O_WRITE_FAILED] = { &st.write_failed, "writing the sidecar: %s" },
	[O_CONVERTED] = { &st.converted, "converted, %zu bytes", OF_RESCAN | OF_ALWAYS },
	[O_FETCHED] = { &st.debuginfod_hits, "from debuginfod, %zu bytes", OF_RESCAN | OF_ALWAYS },
};

/*
 * Outcome @o of request @r (build-id @id, file @name): counted, logged
 * with the arguments its text takes, and what else its flags say done.
 */
static void outcome(enum outcome o, const struct sfu_sidecar_request *r, const char *id,
		    const char *name, ...)
{
	unsigned int flags = outcomes[o].flags;
	char text[512];
	va_list ap;

	va_start(ap, name);
	vsnprintf(text, sizeof(text), outcomes[o].text, ap);
	va_end(ap);
	if (flags & OF_BARE)
		logmsg("%s", text);
	else if (flags & OF_NO_ID)
		reqlog("%s (uid %u): %s", name, r->uid, text);
	else if (flags & OF_ALWAYS)
		logmsg("%s %s (uid %u): %s", id, name, r->uid, text);
	else
		reqlog("%s %s (uid %u): %s", id, name, r->uid, text);
	(*outcomes[o].count)++;
	if (flags & OF_RESCAN)
		rescan_pending = true;
	if (flags & OF_NO_DEBUGINFOD)
		use_debuginfod = false;
}

static void print_stats(FILE *f)
{
	fprintf(f, "received %llu\nconverted %llu\nbytes %llu\nexists %llu\n", st.received,
		st.converted, st.bytes, st.exists);
	fprintf(f, "refused_size %llu\nrefused_type %llu\nrefused_owner %llu\n",
		st.refused_size, st.refused_type, st.refused_owner);
	fprintf(f, "refused_quota %llu\nrefused_mismatch %llu\nnot_elf %llu\nnothing %llu\n",
		st.refused_quota, st.refused_mismatch, st.not_elf, st.nothing);
	fprintf(f, "failed %llu\nkilled %llu\nsandbox_kills %llu\nwrite_failed %llu\n", st.failed,
		st.killed, st.sandbox_kills, st.write_failed);
	fprintf(f, "rate_waits %llu\nrescans %llu\n", st.rate_waits, st.rescans);
	fprintf(f, "dir_sidecars %llu\ndir_bytes %llu\npruned %llu\n", dir_sidecars, dir_bytes,
		st.pruned);
	fprintf(f, "debuginfod_hits %llu\ndebuginfod_misses %llu\n", st.debuginfod_hits,
		st.debuginfod_misses);
	fprintf(f, "debuginfod_refused %llu\ndebuginfod_errors %llu\n", st.debuginfod_refused,
		st.debuginfod_errors);
	fprintf(f, "debuginfod_fetchers %llu\nprefetched %llu\n", debuginfod_fetchers,
		st.prefetched);
	fprintf(f, "log_suppressed %llu\n", st.log_suppressed);
}

/* The totals on one line of the log, as print_stats() writes them. */
static void log_stats(void)
{
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	print_stats(f);
	if (fclose(f)) {
		free(buf);
		return;
	}
	for (p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	logmsg("totals: %s", buf);
	free(buf);
}

/* --stats FILE: the totals, replaced whole. */
static void write_stats(void)
{
	char tmp[4096];
	FILE *f;

	if (!opt.stats || snprintf(tmp, sizeof(tmp), "%s.tmp", opt.stats) >= (int)sizeof(tmp))
		return;
	f = fopen(tmp, "we");
	if (!f)
		return;
	print_stats(f);
	if (fclose(f) || rename(tmp, opt.stats))
		unlink(tmp);
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		dump = 1;
	else
		stop = 1;
}

/* The file's name as the module saw it, printable. */
static void printable(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len && in[i]; i++)
		out[i] = in[i] > 0x20 && in[i] < 0x7f ? in[i] : '?';
	out[i] = '\0';
}

static void hex(const struct sfu_sidecar_request *r, char *out)
{
	unsigned int i;

	for (i = 0; i < r->build_id_len; i++)
		sprintf(out + 2 * i, "%02x", r->build_id[i]);
	out[2 * i] = '\0';
}

static void ask_rescan(void)
{
	rescan_pending = false;
	/* --convert: no module to tell. */
	if (dev < 0)
		return;
	if (ioctl(dev, SFU_IOC_SIDECAR_RESCAN))
		logmsg("SFU_IOC_SIDECAR_RESCAN: %s", strerror(errno));
	st.rescans++;
	rescan_pending = false;
	clock_gettime(CLOCK_MONOTONIC, &last_rescan);
}

/* The tokens of the rate limit brought up to now. */
static void rate_refill(void)
{
	tokens += now_s(&last_refill) * (opt.rate / 60.0);
	clock_gettime(CLOCK_MONOTONIC, &last_refill);
	if (tokens > opt.burst)
		tokens = opt.burst;
}

/* Take a token of the rate limit, waiting for one if there is none. */
static void rate_limit(void)
{
	double per_s = opt.rate / 60.0;

	rate_refill();
	if (tokens < 1) {
		double wait = (1 - tokens) / per_s;
		struct timespec ts = { (time_t)wait, (long)((wait - (time_t)wait) * 1e9) };

		st.rate_waits++;
		/* A pending rescan is not held up by the wait. */
		if (rescan_pending)
			ask_rescan();
		while (nanosleep(&ts, &ts) && errno == EINTR && !stop)
			;
		tokens = 1;
		clock_gettime(CLOCK_MONOTONIC, &last_refill);
	}
	tokens -= 1;
}

/* Sidecars written since the start, converted or fetched. */
static u64 written(void)
{
	return st.converted + st.debuginfod_hits;
}

/*
 * Whether DIR has room, within --max-sidecars and --max-bytes, for a
 * sidecar of @bytes bytes more, the least recently read pruned for it if
 * need be (dir_make_room()): counted and logged.
 */
static bool room(u64 bytes)
{
	struct dir_pruned p;
	bool ok = dir_make_room(bytes, &p);

	if (p.sidecars) {
		st.pruned += p.sidecars;
		logmsg("pruned %llu sidecars, %llu bytes, none read for %.1f h, for the quotas",
		       p.sidecars, p.bytes, (time(NULL) - p.last_read) / 3600.0);
	}
	return ok;
}

/*
 * Write the checked sidecar @buf, @len bytes, of request @r (build-id @id,
 * file @name) with mode @mode, and count it: converted here, or with
 * @fetched from debuginfod.
 */
static void store(const struct sfu_sidecar_request *r, const char *id, const char *name,
		  const char *buf, size_t len, mode_t mode, bool fetched)
{
	int ret;

	if (!room(len)) {
		outcome(O_QUOTA_BYTES, r, id, name, len);
		return;
	}
	ret = install(id, buf, len, mode);
	if (ret < 0) {
		outcome(O_WRITE_FAILED, r, id, name, strerror(errno));
	} else if (ret) {
		outcome(O_EXISTS, r, id, name);
	} else {
		outcome(fetched ? O_FETCHED : O_CONVERTED, r, id, name, len);
		st.bytes += len;
	}
}

/*
 * Ask debuginfod for the sidecar of request @r (fetcher()).  Return: true
 * if that settled the request (a sidecar written or found, or the quota
 * reached), false if the file is to be converted here: nothing served, an
 * error, or what was served is not a sidecar of this file.  Each outcome
 * is counted; none costs more than --debuginfod-timeout.
 */
static bool from_debuginfod(const struct sfu_sidecar_request *r, const char *id,
			    const char *name, mode_t mode)
{
	struct timespec start;
	size_t len;
	char *buf;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &start);
	ret = fetch(r, &start, &buf, &len);
	if (ret == CHILD_OK && sidecar_of(r, buf, len)) {
		u64 before = st.exists + st.refused_quota + written();

		store(r, id, name, buf, len, mode, true);
		free(buf);
		return st.exists + st.refused_quota + written() != before;
	}
	if (ret == CHILD_OK)
		outcome(O_DI_REFUSED, r, id, name, len);
	else if (ret == FETCH_MISS)
		outcome(O_DI_MISS, r, id, name);
	else if (ret == FETCH_NO_LIB)
		outcome(O_DI_NO_LIB, r, id, name);
	else if (ret >= FETCH_ERRNO)
		outcome(O_DI_ERRNO, r, id, name, strerror(ret - FETCH_ERRNO), now_s(&start));
	else if (ret == CHILD_SIGSYS)
		outcome(O_DI_SANDBOX, r, id, name);
	else
		outcome(O_DI_FAILED, r, id, name,
			ret < 0 ? "killed (--debuginfod-timeout or --max-output)" : "failed", ret,
			now_s(&start));
	free(buf);
	return false;
}

/* The mode of the sidecar of file @s: the rows of a file others may not read are not theirs. */
static mode_t sidecar_mode(const struct stat *s)
{
	return s->st_mode & 0004 ? 0644 : 0600;
}

/* Whether DIR holds a sidecar under build-id @id's own name. */
static bool sidecar_named(const char *id)
{
	char path[300];
	struct stat s;

	snprintf(path, sizeof(path), "%.2s/%s.sframe", id, id + 2);
	return !fstatat(dir_fd, path, &s, AT_SYMLINK_NOFOLLOW);
}

/*
 * The checks before any work on request @r (build-id @id, file @name):
 * the file's type, size and owner, a sidecar there already, the quota.
 * Return: false when one of them settled the request; else true, with
 * *@mode the mode of its sidecar.
 */
static bool admit(const struct sfu_sidecar_request *r, const char *id, const char *name,
		  mode_t *mode)
{
	struct stat s;

	if (fstat(r->fd, &s) || !S_ISREG(s.st_mode)) {
		outcome(O_NOT_REGULAR, r, id, name);
		return false;
	}
	*mode = sidecar_mode(&s);
	if ((unsigned long long)s.st_size > opt.max_size) {
		outcome(O_TOO_BIG, r, id, name, (long long)s.st_size, opt.max_size);
		return false;
	}
	if (!opt.any_owner && (s.st_uid || (s.st_mode & 022))) {
		outcome(O_OWNER, r, id, name, s.st_uid, s.st_mode & 07777);
		return false;
	}
	/*
	 * Where the module found none at all, one written since will do;
	 * where it refused the one there for its content, this file needs its own.
	 */
	if (r->why == SFU_SIDECAR_WHY_MISSING && sidecar_named(id)) {
		outcome(O_EXISTS, r, id, name);
		return false;
	}
	if (!room(1)) {
		outcome(O_QUOTA, r, id, name, dir_sidecars, dir_bytes);
		return false;
	}
	return true;
}

/* The outcome of a conversion that wrote no sidecar of the file: its exit code's. */
static enum outcome conversion_outcome(int ret)
{
	switch (ret) {
	case CHILD_OK:
		return O_NOT_SIDECAR;
	case CHILD_NOT_ELF:
		return O_NOT_ELF;
	case CHILD_MISMATCH:
		return O_MISMATCH;
	case CHILD_NOTHING:
		return O_NOTHING;
	case CHILD_TEST_REFUSED:
		return O_TEST_REFUSED;
	case CHILD_SIGSYS:
		return O_SANDBOX;
	case CHILD_KILLED:
		return O_KILLED;
	default:
		return O_FAILED;
	}
}

static void handle(struct sfu_sidecar_request *r)
{
	char id[2 * SFU_SIDECAR_BUILD_ID_MAX + 1], name[sizeof(r->name)];
	mode_t mode;
	size_t len;
	char *buf;
	int ret;

	st.received++;
	printable(r->name, name, sizeof(name));
	if (r->build_id_len < 2 || r->build_id_len > SFU_SIDECAR_BUILD_ID_MAX) {
		outcome(O_BAD_ID, r, NULL, name, r->build_id_len);
		return;
	}
	hex(r, id);
	if (!admit(r, id, name, &mode))
		return;
	rate_limit();
	if (use_debuginfod && from_debuginfod(r, id, name, mode)) {
		if (!opt.no_prefetch && !opt.num_convert)
			prefetch_later(r->fd);
		return;
	}
	ret = convert(r->fd, id, &buf, &len);
	if (ret == CHILD_OK && sidecar_of(r, buf, len))
		store(r, id, name, buf, len, mode, false);
	else
		outcome(conversion_outcome(ret), r, id, name, ret);
	free(buf);
}

/*
 * One file fetched ahead (sframe-unwindd-prefetch.c), from debuginfod
 * only: nothing is converted ahead, and a file with a sidecar, or with a
 * token of the rate limit or room in DIR lacking, is passed over quietly.
 */
static void prefetch_one(void)
{
	struct sfu_sidecar_request r = { .fd = -1 };
	char id[2 * SFU_SIDECAR_BUILD_ID_MAX + 1];
	struct prefetch p;
	struct stat s;

	if (!prefetch_next(&p))
		return;
	r.fd = p.fd;
	rate_refill();
	if (use_debuginfod && !fstat(r.fd, &s) && !read_build_id(r.fd, &r) &&
	    r.build_id_len >= 2 && tokens >= 1 && room(1)) {
		hex(&r, id);
		if (!sidecar_named(id)) {
			u64 errors = st.debuginfod_errors;

			tokens -= 1;
			st.prefetched++;
			printable(p.name, r.name, sizeof(r.name));
			from_debuginfod(&r, id, r.name, sidecar_mode(&s));
			/* A server down or slow: no more asked ahead. */
			if (st.debuginfod_errors != errors)
				prefetch_clear();
		}
	}
	close(r.fd);
}

/* --list-ahead FILE: what prefetch_note() lists for FILE, in prefetch_next()'s order. */
static int list_ahead(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct prefetch p;

	if (fd < 0) {
		logmsg("%s: %s", path, strerror(errno));
		return 1;
	}
	prefetch_note(fd);
	close(fd);
	while (prefetch_next(&p)) {
		printf("%s\n", p.name);
		close(p.fd);
	}
	return 0;
}

/* --convert: each file as a request; 0 if every one was converted or had a sidecar. */
static int convert_files(void)
{
	int i, ret = 0;

	for (i = 0; i < opt.num_convert; i++) {
		struct sfu_sidecar_request r = { .uid = getuid() };
		const char *base = strrchr(opt.convert[i], '/');
		u64 before = written() + st.exists;

		if (!strcmp(opt.convert[i], "[vdso]")) {
			do_vdso();
			if (written() + st.exists == before)
				ret = 1;
			continue;
		}
		r.fd = open(opt.convert[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (r.fd < 0 || read_build_id(r.fd, &r)) {
			logmsg("%s: %s", opt.convert[i],
			       r.fd < 0 ? strerror(errno) : "no build-id");
			if (r.fd >= 0)
				close(r.fd);
			ret = 1;
			continue;
		}
		snprintf(r.name, sizeof(r.name), "%s", base ? base + 1 : opt.convert[i]);
		handle(&r);
		close(r.fd);
		if (written() + st.exists == before)
			ret = 1;
	}
	fetcher_stop(true);
	log_stats();
	write_stats();
	return ret;
}

/* As root: the converting user, signals, DIR, debuginfod; 0 or the exit status. */
static int start(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct passwd *pw;

	if (geteuid()) {
		logmsg("must run as root");
		return 2;
	}
	/* A user of its own (make install-sidecars makes it), else nobody. */
	pw = getpwnam(opt.user);
	if (!pw && !opt.user_given) {
		logmsg("warning: no user %s (systemd-sysusers makes it): converting as %s",
		       opt.user, UNWINDD_FALLBACK_USER);
		opt.user = UNWINDD_FALLBACK_USER;
		pw = getpwnam(opt.user);
	}
	if (!pw) {
		logmsg("--user %s: no such user", opt.user);
		return 2;
	}
	child_uid = pw->pw_uid;
	child_gid = pw->pw_gid;
	if (!child_uid) {
		logmsg("--user %s is root: refused", opt.user);
		return 2;
	}
	if (!sandbox_init())
		logmsg("warning: no seccomp in this kernel: children run unfiltered");
	umask(022);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (open_dir())
		return 2;
	/* The quotas are of what DIR holds, whoever wrote it, whenever. */
	dir_count();
	logmsg("%s holds %llu sidecars, %llu bytes (--max-sidecars %llu, --max-bytes %llu)",
	       opt.dir, dir_sidecars, dir_bytes, opt.max_sidecars, opt.max_bytes);
	debuginfod_init();
	tokens = opt.burst;
	clock_gettime(CLOCK_MONOTONIC, &last_refill);
	return 0;
}

/* The module's requests, one at a time, until SIGTERM or SIGINT. */
static void serve(void)
{
	while (!stop) {
		struct sfu_sidecar_request r = { .timeout_ms = 5000, .fd = -1 };
		double since = now_s(&last_rescan) * 1000;

		if (dump) {
			dump = 0;
			log_stats();
		}
		if (rescan_pending && since >= opt.rescan_ms)
			ask_rescan();
		/* A pending rescan, and fetching ahead, wait only for requests queued already. */
		if (rescan_pending || prefetch_waits())
			r.timeout_ms = 0;
		if (ioctl(dev, SFU_IOC_SIDECAR_NEXT, &r)) {
			int err = errno;

			if (err == EAGAIN && rescan_pending)
				ask_rescan();
			else if (err == EAGAIN)
				prefetch_one();
			if (err == EAGAIN || err == EINTR)
				continue;
			logmsg("next: %s", strerror(err));
			break;
		}
		handle(&r);
		close(r.fd);
		write_stats();
	}
}

int main(int argc, char **argv)
{
	int ret;

	parse_args(argc, argv);
	if (opt.list_ahead)
		return list_ahead(opt.list_ahead);
	ret = start();
	if (ret)
		return ret;
	if (opt.convert)
		return convert_files();
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		logmsg("%s: %s (is sframe_unwind loaded?)", DEVICE, strerror(errno));
		return 2;
	}
	/* Files it would refuse are refused by the module, before they are queued. */
	if (ioctl(dev, SFU_IOC_SIDECAR_ATTACH,
		  opt.any_owner ? SFU_SIDECAR_ATTACH_ANY_OWNER : 0UL)) {
		logmsg("attach: %s", strerror(errno));
		return 2;
	}
	do_vdso();
	logmsg("attached; sidecars in %s, converting as uid %u", opt.dir, child_uid);
	/* The files mapped before it started. */
	ask_rescan();
	write_stats();
	serve();
	if (rescan_pending)
		ask_rescan();
	fetcher_stop(true);
	log_stats();
	write_stats();
	return 0;
}
