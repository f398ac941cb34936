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
 *  - refuses once it wrote --max-sidecars (default 10000) sidecars or
 *    --max-bytes (default 1 GiB) since it started;
 *  - with DEBUGINFOD_URLS in its environment (and without --no-debuginfod),
 *    first asks debuginfod for the sidecar of the build-id, as the section
 *    .sframe_unwind.sidecar that sframe-gen --publish writes, in a child
 *    that drops to --user as the converting one does and is given the
 *    build-id only; killed after --debuginfod-timeout (default 5 s).  What
 *    it fetches must pass the checks a converted sidecar passes (its
 *    header names the build-id, its digest is the file's, taken here),
 *    or it is refused and the file converted; so is a miss or an error;
 *  - converts the file in a child that drops to --user (default nobody),
 *    with no new privileges, RLIMIT_CPU --cpu (default 60 s), RLIMIT_AS
 *    --mem (default 2 GiB), RLIMIT_FSIZE 0 and RLIMIT_NOFILE 16, killed
 *    after --timeout (default 120 s) or beyond --max-output bytes (default
 *    64 MiB); the child reads only the descriptor it inherits and writes
 *    the sidecar to a pipe; it must find the build-id the module read;
 *  - writes the sidecar, checked, to DIR/<2 hex>/<rest>.sframe through a
 *    temporary file (O_EXCL) and a rename that replaces nothing; the name
 *    comes from the build-id bytes alone, so nothing is written outside
 *    DIR (default /var/lib/sframe-unwind, which must be root's and
 *    writable by nobody else);
 *  - has the module rescan (at most every --rescan-ms, default 250), so
 *    the processes that map the file use the sidecar at once.
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
 *   sframe-unwindd [OPTIONS] --convert FILE...
 *
 * handles each FILE as a request, without the module (no rescan): for
 * tests (tests/sidecars/run), and for an administrator's own files;
 * "[vdso]" stands for the running kernel's vDSO.  The
 * build-id is read from FILE's program headers, as the module does.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>
#include <gelf.h>
#include <linux/kernel.h>

#include "sframe_gen.h"
#include "sframe_unwind/elf_digest.h"
#include "uapi/sframe_sidecar.h"
#include "uapi/sframe_unwind.h"

#define DEVICE		"/dev/sframe_unwind"
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
	/* The fetching child's: */
	FETCH_MISS = 20,	/* no server has the build-id's sidecar */
	FETCH_NO_LIB,		/* no libdebuginfod */
	FETCH_ERRNO = 128,	/* + the client's errno (at most 127) */
};

/* The fetcher's answer to one build-id, then @len bytes with CHILD_OK. */
struct fetch_reply {
	int32_t status;		/* CHILD_OK, FETCH_MISS or FETCH_ERRNO + errno */
	uint32_t pad;
	uint64_t len;
};

/* RLIMIT_CPU of one fetcher over its life, and the requests it serves. */
#define FETCH_CPU_S		60
#define FETCH_MAX_SERVED	256

static struct {
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
	char **convert;
	int num_convert;
} opt = {
	.dir = SFU_SIDECAR_DEFAULT_DIR,
	.user = "nobody",
	.max_size = 512ULL << 20,
	.max_output = 64ULL << 20,
	.max_sidecars = 10000,
	.max_bytes = 1ULL << 30,
	.mem = 2ULL << 30,
	.rate = 300,
	.burst = 100,
	.cpu = 60,
	.timeout = 120,
	.rescan_ms = 250,
	.debuginfod_timeout = 5,
};

/* What happened to the requests; printed as "name value" pairs. */
static struct {
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
	u64 write_failed;
	u64 rate_waits;
	u64 rescans;
	u64 debuginfod_hits;
	u64 debuginfod_misses;
	u64 debuginfod_refused;
	u64 debuginfod_errors;
	u64 debuginfod_fetchers;
	u64 log_suppressed;
} st;

static volatile sig_atomic_t stop, dump;
/* Bytes of this process's vDSO mapping (children have the same). */
static size_t vdso_size;
static int dev = -1, dirfd = -1;
static uid_t child_uid = 65534;
static gid_t child_gid = 65534;
static double tokens;
static struct timespec last_refill, last_rescan;
static bool rescan_pending;
/* DEBUGINFOD_URLS is set and --no-debuginfod not given; the client's cache. */
static bool use_debuginfod;
static char debuginfod_cache[4096];

static void logmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("sframe-unwindd: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static double now_s(const struct timespec *since)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - since->tv_sec) + (t.tv_nsec - since->tv_nsec) / 1e9;
}

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
	O_NOT_SIDECAR,		/* the converter's output is not a sidecar of the file */
	O_NOT_ELF,
	O_MISMATCH,		/* the file has another build-id than the module read */
	O_NOTHING,		/* no CFI, or nothing its own section lacks */
	O_KILLED,		/* the converter, past its limits */
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
	[O_QUOTA] = { &st.refused_quota, "refused: %llu sidecars, %llu bytes written (quota)" },
	[O_QUOTA_BYTES] = { &st.refused_quota, "refused: %zu bytes more would pass --max-bytes" },
	[O_DI_REFUSED] = { &st.debuginfod_refused,
			   "debuginfod: refused %zu bytes: not a sidecar of this file" },
	[O_DI_MISS] = { &st.debuginfod_misses, "debuginfod: not found" },
	[O_DI_NO_LIB] = { &st.debuginfod_errors,
			  "debuginfod: no " LIBDEBUGINFOD ": not asked again",
			  OF_BARE | OF_ALWAYS | OF_NO_DEBUGINFOD },
	[O_DI_ERRNO] = { &st.debuginfod_errors, "debuginfod: %s, after %.1f s" },
	[O_DI_FAILED] = { &st.debuginfod_errors, "debuginfod: %s (%d), after %.1f s" },
	[O_NOT_SIDECAR] = { &st.failed, "the converter's output is not a sidecar of it" },
	[O_NOT_ELF] = { &st.not_elf, "not a native ELF file" },
	[O_MISMATCH] = { &st.refused_mismatch, "refused: the file has another build-id now" },
	[O_NOTHING] = { &st.nothing, "no CFI to convert" },
	[O_KILLED] = { &st.killed, "converter killed (--timeout, --cpu, --mem or --max-output)" },
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
	fprintf(f, "failed %llu\nkilled %llu\nwrite_failed %llu\nrate_waits %llu\nrescans %llu\n",
		st.failed, st.killed, st.write_failed, st.rate_waits, st.rescans);
	fprintf(f, "debuginfod_hits %llu\ndebuginfod_misses %llu\n", st.debuginfod_hits,
		st.debuginfod_misses);
	fprintf(f, "debuginfod_refused %llu\ndebuginfod_errors %llu\n", st.debuginfod_refused,
		st.debuginfod_errors);
	fprintf(f, "debuginfod_fetchers %llu\n", st.debuginfod_fetchers);
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

static noreturn void bad_usage(void)
{
	fprintf(stderr,
		"usage: sframe-unwindd [--dir DIR] [--user NAME] [--max-size BYTES] [--max-output BYTES]\n"
		"                      [--max-sidecars N] [--max-bytes BYTES] [--rate N] [--burst N]\n"
		"                      [--cpu SECONDS] [--timeout SECONDS] [--mem BYTES]\n"
		"                      [--rescan-ms MS] [--any-owner] [--stats FILE]\n"
		"                      [--no-debuginfod] [--debuginfod-timeout SECONDS]\n"
		"                      [--convert FILE...]\n");
	exit(2);
}

static unsigned long long number(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		bad_usage();
	switch (*end) {
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (*end)
		bad_usage();
	return v;
}

enum {
	OPT_DIR = 256,
	OPT_USER,
	OPT_STATS,
	OPT_MAX_SIZE,
	OPT_MAX_OUTPUT,
	OPT_MAX_SIDECARS,
	OPT_MAX_BYTES,
	OPT_MEM,
	OPT_RATE,
	OPT_BURST,
	OPT_CPU,
	OPT_TIMEOUT,
	OPT_RESCAN_MS,
	OPT_DEBUGINFOD_TIMEOUT,
	OPT_CONVERT,
};

static const struct option long_options[] = {
	{ "any-owner", no_argument, &opt.any_owner, 1 },
	{ "no-debuginfod", no_argument, &opt.no_debuginfod, 1 },
	{ "convert", no_argument, NULL, OPT_CONVERT },
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "user", required_argument, NULL, OPT_USER },
	{ "stats", required_argument, NULL, OPT_STATS },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "max-output", required_argument, NULL, OPT_MAX_OUTPUT },
	{ "max-sidecars", required_argument, NULL, OPT_MAX_SIDECARS },
	{ "max-bytes", required_argument, NULL, OPT_MAX_BYTES },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "rescan-ms", required_argument, NULL, OPT_RESCAN_MS },
	{ "debuginfod-timeout", required_argument, NULL, OPT_DEBUGINFOD_TIMEOUT },
	{ NULL, 0, NULL, 0 },
};

/* Option @c of getopt_long() but --convert, @v its value. */
static void parse_option(int c, const char *v)
{
	switch (c) {
	case 0:
		/* A flag long_options set. */
		break;
	case OPT_DIR:
		opt.dir = v;
		break;
	case OPT_USER:
		opt.user = v;
		break;
	case OPT_STATS:
		opt.stats = v;
		break;
	case OPT_MAX_SIZE:
		opt.max_size = number(v);
		break;
	case OPT_MAX_OUTPUT:
		opt.max_output = number(v);
		break;
	case OPT_MAX_SIDECARS:
		opt.max_sidecars = number(v);
		break;
	case OPT_MAX_BYTES:
		opt.max_bytes = number(v);
		break;
	case OPT_MEM:
		opt.mem = number(v);
		break;
	case OPT_RATE:
		opt.rate = number(v);
		break;
	case OPT_BURST:
		opt.burst = number(v);
		break;
	case OPT_CPU:
		opt.cpu = number(v);
		break;
	case OPT_TIMEOUT:
		opt.timeout = number(v);
		break;
	case OPT_RESCAN_MS:
		opt.rescan_ms = number(v);
		break;
	case OPT_DEBUGINFOD_TIMEOUT:
		opt.debuginfod_timeout = number(v);
		break;
	default:
		bad_usage();
	}
}

static void parse_args(int argc, char **argv)
{
	int c, at;

	/* No message of getopt's own: every mistake gets the usage. */
	opterr = 0;
	for (;;) {
		at = optind;
		/* "+": no argument but an option's value before --convert. */
		c = getopt_long(argc, argv, "+", long_options, NULL);
		if (c == -1 || c == OPT_CONVERT)
			break;
		parse_option(c, optarg);
	}
	if (c == OPT_CONVERT) {
		/* The rest are files, whatever they look like. */
		opt.convert = argv + optind;
		opt.num_convert = argc - optind;
		if (!opt.num_convert)
			bad_usage();
	} else if (at < argc) {
		/* An argument, or "--": a mistake, as any other. */
		bad_usage();
	}
	if (!opt.rate || !opt.burst || !opt.cpu || !opt.timeout || !opt.debuginfod_timeout ||
	    opt.debuginfod_timeout > 600 || opt.dir[0] != '/')
		bad_usage();
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

/* Open DIR, which must be a directory of root's that nobody else may write. */
static int open_dir(void)
{
	struct stat s;

	if (mkdir(opt.dir, 0755) && errno != EEXIST) {
		logmsg("%s: %s", opt.dir, strerror(errno));
		return -1;
	}
	dirfd = open(opt.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0 || fstat(dirfd, &s)) {
		logmsg("%s: %s", opt.dir, strerror(errno));
		return -1;
	}
	if (s.st_uid || (s.st_mode & 022)) {
		logmsg("%s: not root's, or writable by others: refused", opt.dir);
		return -1;
	}
	return 0;
}

/*
 * With DEBUGINFOD_URLS set and no --no-debuginfod: the fetching child's
 * client cache, DIR/.debuginfod-cache, made or taken over as the child
 * user's (mode 0700).  Only the fetcher writes there, and nothing there is
 * trusted: what it fetches is checked like a converter's output.  A
 * failure leaves debuginfod unasked.
 */
static void debuginfod_init(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct stat s;
	int fd;

	if (opt.no_debuginfod || !urls || !*urls)
		return;
	if (mkdirat(dirfd, DEBUGINFOD_CACHE, 0700) && errno != EEXIST)
		goto fail;
	/* DIR is root's: nobody else can have put a link there. */
	fd = openat(dirfd, DEBUGINFOD_CACHE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	/* Made so already, it needs no CAP_CHOWN (the service does not have it). */
	if (fstat(fd, &s) || ((s.st_uid != child_uid || s.st_gid != child_gid) &&
			      fchown(fd, child_uid, child_gid)) ||
	    ((s.st_mode & 07777) != 0700 && fchmod(fd, 0700))) {
		close(fd);
		goto fail;
	}
	close(fd);
	if (snprintf(debuginfod_cache, sizeof(debuginfod_cache), "%s/%s", opt.dir,
		     DEBUGINFOD_CACHE) >= (int)sizeof(debuginfod_cache)) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	use_debuginfod = true;
	logmsg("debuginfod: asking %s first, within %u s", urls, opt.debuginfod_timeout);
	return;
fail:
	logmsg("%s/%s: %s: debuginfod not asked", opt.dir, DEBUGINFOD_CACHE, strerror(errno));
}

/*
 * In the child: limits (@cpu seconds, files of at most @fsize bytes, @nofile
 * descriptors), then the unprivileged user, then nothing else open.
 */
static int child_setup(int in, int out, unsigned int cpu_s, rlim_t fsize, rlim_t nofile)
{
	struct rlimit cpu = { cpu_s, cpu_s + 1 }, as = { opt.mem, opt.mem };
	struct rlimit zero = { 0, 0 }, fsz = { fsize, fsize }, files = { nofile, nofile };
	int fd;

	for (fd = 3; fd < 1024; fd++)
		if (fd != in && fd != out)
			close(fd);
	if (setrlimit(RLIMIT_CPU, &cpu) || setrlimit(RLIMIT_AS, &as) ||
	    setrlimit(RLIMIT_FSIZE, &fsz) || setrlimit(RLIMIT_CORE, &zero) ||
	    setrlimit(RLIMIT_NOFILE, &files))
		return -1;
	if (setgroups(0, NULL) || setresgid(child_gid, child_gid, child_gid) ||
	    setresuid(child_uid, child_uid, child_uid) || !getuid())
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return -1;
	return 0;
}

/* Read @len bytes; Return: how many were read before the end or an error. */
static size_t read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, p + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += n;
	}
	return done;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* The child: convert the ELF file on @in into a sidecar written to @out. */
static noreturn void child(int in, int out, const char *want)
{
	struct sfu_sidecar_header hdr;
	char id[2 * SFU_SIDECAR_BUILD_ID_MAX + 1];
	struct sfg_output o;
	unsigned int i, n;
	Elf *elf;
	int err;

	if (child_setup(in, out, opt.cpu, 0, 16))
		_exit(CHILD_SETUP);
	if (elf_version(EV_CURRENT) == EV_NONE)
		_exit(CHILD_SETUP);
	if (in >= 0) {
		elf = elf_begin(in, ELF_C_READ_MMAP, NULL);
	} else {
		/* The vDSO, this process's own: a private copy, as sframe-gen's. */
		char *copy = malloc(vdso_size);

		if (!copy)
			_exit(CHILD_FAILED);
		memcpy(copy, (const void *)getauxval(AT_SYSINFO_EHDR), vdso_size);
		elf = elf_memory(copy, vdso_size);
	}
	if (!elf || sfg_elf_machine_abi(elf) < 0)
		_exit(CHILD_NOT_ELF);
	if (sfg_elf_build_id(elf, id, sizeof(id)) || (want && strcmp(id, want)))
		_exit(CHILD_MISMATCH);
	/* As sframe-gen --install: the module reads a file's own section first. */
	err = sfg_convert(elf, 0, SFG_COMPLEMENT, &o);
	if (err == -SFG_E_NO_CFI)
		_exit(CHILD_NOTHING);
	if (err)
		_exit(CHILD_FAILED);
	if (o.stats.own_sframe && !o.stats.fdes)
		_exit(CHILD_NOTHING);
	n = strlen(id) / 2;
	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, SFU_SIDECAR_MAGIC, sizeof(hdr.magic));
	hdr.build_id_len = n;
	hdr.digest_kind = o.digest_kind;
	memcpy(hdr.digest, o.digest, sizeof(hdr.digest));
	hdr.section_off = sizeof(hdr);
	hdr.section_size = o.len;
	for (i = 0; i < n; i++)
		if (sscanf(id + 2 * i, "%2hhx", &hdr.build_id[i]) != 1)
			_exit(CHILD_FAILED);
	if (write_all(out, &hdr, sizeof(hdr)) || write_all(out, o.buf, o.len))
		_exit(CHILD_WRITE);
	_exit(CHILD_OK);
}

/*
 * The fetcher: a child that lives across requests, so that libdebuginfod
 * and libcurl are loaded, and the client set up, once (each costs more
 * than the question itself on a slow machine).  It reads build-ids from
 * @in, each a length byte and the bytes, and answers each on @out with
 * a struct fetch_reply and the section sframe-gen --publish wrote.
 *
 * It runs apart from the daemon because what it does is talk to a
 * server: HTTP, whatever libcurl and libdebuginfod parse, a cache to
 * write.  A server (or whoever stands between it and this machine) then
 * reaches an unprivileged process under the limits of a converting child,
 * RLIMIT_CPU over its whole life, which holds no descriptor but its pipes
 * (not even the files': it needs the build-ids alone), in a cache of the
 * child user's; the daemon, root, never loads libcurl and reads only bytes
 * from the pipe, which it checks as it checks a converter's
 * (sidecar_of()), and kills the fetcher where an answer takes longer than
 * --debuginfod-timeout or more than --max-output bytes.  The cache is only
 * where the client writes: each file fetched is removed at once, the
 * sidecar directory is what keeps sidecars; what stays are the client's
 * records of misses, which spare the server a question asked again within
 * ten minutes.
 */
/* The fetcher set up: limits, user, environment, libdebuginfod and its client. */
static debuginfod_client *fetcher_client(int in, int out,
					 typeof(debuginfod_find_section) **find)
{
	typeof(debuginfod_begin) *begin;
	debuginfod_client *client;
	char num[32];
	void *lib;

	/* The client's files are bounded as the output is. */
	if (child_setup(in, out, FETCH_CPU_S, opt.max_output, 64))
		_exit(CHILD_SETUP);
	umask(077);
	snprintf(num, sizeof(num), "%u", opt.debuginfod_timeout);
	if (setenv("DEBUGINFOD_CACHE_PATH", debuginfod_cache, 1) ||
	    setenv("DEBUGINFOD_TIMEOUT", num, 1) || setenv("DEBUGINFOD_MAXTIME", num, 1) ||
	    setenv("DEBUGINFOD_RETRY_LIMIT", "0", 1) || unsetenv("DEBUGINFOD_PROGRESS"))
		_exit(CHILD_SETUP);
	snprintf(num, sizeof(num), "%llu", opt.max_output);
	if (setenv("DEBUGINFOD_MAXSIZE", num, 1))
		_exit(CHILD_SETUP);
	lib = dlopen(LIBDEBUGINFOD, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		_exit(FETCH_NO_LIB);
	begin = dlsym(lib, "debuginfod_begin");
	*find = dlsym(lib, "debuginfod_find_section");
	if (!begin || !*find || !dlsym(lib, "debuginfod_end"))
		_exit(FETCH_NO_LIB);
	client = begin();
	if (!client)
		_exit(FETCH_ERRNO + ENOMEM);
	return client;
}

/* The fetcher's answer to build-id @id, @n_id bytes, on @out. */
static void fetcher_answer(debuginfod_client *client, typeof(debuginfod_find_section) *find,
			   const unsigned char *id, int n_id, int out)
{
	char chunk[1 << 16], *path = NULL;
	struct fetch_reply rep;
	struct stat s;
	off_t off;
	ssize_t n;
	int fd;

	memset(&rep, 0, sizeof(rep));
	fd = find(client, id, n_id, SFG_PUBLISH_SECTION, &path);
	if (path)
		unlink(path);
	free(path);
	if (fd == -ENOENT)
		rep.status = FETCH_MISS;
	else if (fd < 0)
		rep.status = FETCH_ERRNO + min(-fd, 127);
	else if (fstat(fd, &s))
		rep.status = FETCH_ERRNO + min(errno, 127);
	else
		rep.len = s.st_size;
	if (write_all(out, &rep, sizeof(rep)))
		_exit(CHILD_WRITE);
	/* From the start: the client may return the descriptor it wrote with. */
	for (off = 0; fd >= 0 && !rep.status && off < (off_t)rep.len; off += n) {
		n = pread(fd, chunk, min_t(u64, sizeof(chunk), rep.len - off), off);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		/* Cut short: the daemon, waiting for rep.len bytes, kills it. */
		if (n <= 0 || write_all(out, chunk, n))
			_exit(CHILD_WRITE);
	}
	if (fd >= 0)
		close(fd);
}

static noreturn void fetcher(int in, int out)
{
	typeof(debuginfod_find_section) *find;
	unsigned char id[SFU_SIDECAR_BUILD_ID_MAX], n_id;
	debuginfod_client *client = fetcher_client(in, out, &find);

	/* The daemon closing its end ends the fetcher. */
	while (read_all(in, &n_id, 1) == 1 && n_id && n_id <= sizeof(id) &&
	       read_all(in, id, n_id) == n_id)
		fetcher_answer(client, find, id, n_id, out);
	_exit(CHILD_OK);
}

/* The fetcher's pid (0: none running) and the daemon's ends of its pipes. */
static pid_t fetch_pid;
static int fetch_to = -1, fetch_from = -1;
static unsigned int fetch_served;

/* Stop the fetcher; Return: its exit code, -1 if it was killed or ran none. */
static int fetcher_stop(bool kill_it)
{
	int status;

	if (!fetch_pid)
		return -1;
	close(fetch_to);
	close(fetch_from);
	fetch_to = -1;
	fetch_from = -1;
	if (kill_it)
		kill(fetch_pid, SIGKILL);
	while (waitpid(fetch_pid, &status, 0) < 0 && errno == EINTR)
		;
	fetch_pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int fetcher_start(void)
{
	int to[2], from[2];
	pid_t pid;

	if (pipe2(to, O_CLOEXEC))
		return -1;
	if (pipe2(from, O_CLOEXEC)) {
		close(to[0]);
		close(to[1]);
		return -1;
	}
	pid = fork();
	if (!pid) {
		/* The inherited fds survive close-on-exec: there is no exec. */
		close(to[1]);
		close(from[0]);
		fetcher(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	if (pid < 0) {
		close(to[1]);
		close(from[0]);
		return -1;
	}
	st.debuginfod_fetchers++;
	fetch_pid = pid;
	fetch_to = to[1];
	fetch_from = from[0];
	fetch_served = 0;
	return 0;
}

/*
 * Read @len bytes from the fetcher within --debuginfod-timeout of @start.
 * Return: 0; -1 late or failed; -2 the fetcher's end of the pipe closed.
 */
static int fetch_read(void *buf, size_t len, const struct timespec *start)
{
	char *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fetch_from, .events = POLLIN };
		double left = opt.debuginfod_timeout - now_s(start);
		ssize_t n;

		if (left <= 0)
			return -1;
		if (poll(&pfd, 1, left * 1000 + 1) < 0 && errno != EINTR)
			return -1;
		if (!pfd.revents)
			continue;
		n = read(fetch_from, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -1 : -2;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * Ask the fetcher, started if none runs, for the sidecar of @r's build-id
 * within --debuginfod-timeout.  Return: its status (CHILD_OK, FETCH_MISS,
 * FETCH_ERRNO + errno), the exit code of a fetcher that ended (FETCH_NO_LIB,
 * CHILD_SETUP), or -1 for one killed: late, or an answer over
 * --max-output; *@buf, *@len the sidecar with CHILD_OK.
 */
static int fetch(const struct sfu_sidecar_request *r, const struct timespec *start,
		 char **buf, size_t *len)
{
	unsigned char req[1 + SFU_SIDECAR_BUILD_ID_MAX];
	struct fetch_reply rep;
	int err;

	*buf = NULL;
	*len = 0;
	/* A fresh one now and then: what one client gathers stays bounded. */
	if (fetch_pid && fetch_served >= FETCH_MAX_SERVED)
		fetcher_stop(true);
	if (!fetch_pid && fetcher_start())
		return -1;
	fetch_served++;
	req[0] = r->build_id_len;
	memcpy(req + 1, r->build_id, r->build_id_len);
	/* A write that fails, or the pipe's end: the fetcher ended; its code says why. */
	err = write_all(fetch_to, req, 1 + r->build_id_len) ? -2 :
	      fetch_read(&rep, sizeof(rep), start);
	if (err)
		return fetcher_stop(err == -1);
	/* What a fetcher a server took over may say: only the answers it has. */
	if (rep.status == FETCH_MISS ||
	    (rep.status >= FETCH_ERRNO && rep.status < FETCH_ERRNO + 128))
		return rep.status;
	if (rep.status) {
		fetcher_stop(true);
		return -1;
	}
	if (rep.len > opt.max_output || !rep.len) {
		fetcher_stop(true);
		return -1;
	}
	*buf = malloc(rep.len);
	if (!*buf || fetch_read(*buf, rep.len, start)) {
		free(*buf);
		*buf = NULL;
		fetcher_stop(true);
		return -1;
	}
	*len = rep.len;
	return CHILD_OK;
}

/*
 * Read what the child writes on @fd into *@b (grown from @cap bytes), at
 * most --max-output bytes, within @timeout seconds.  Return: 0 at its
 * end, with *@len the bytes read; -1 for a child to kill.
 */
static int child_read(int fd, unsigned int timeout, char **b, size_t cap, size_t *len)
{
	struct timespec start;
	size_t n = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		double left = timeout - now_s(&start);
		ssize_t r;

		if (left <= 0)
			return -1;
		if (poll(&pfd, 1, left * 1000 + 1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!pfd.revents)
			continue;
		if (n == cap) {
			char *nb;

			if (cap >= opt.max_output)
				return -1;
			cap = cap * 2 > opt.max_output ? opt.max_output : cap * 2;
			nb = realloc(*b, cap);
			if (!nb)
				return -1;
			*b = nb;
		}
		r = read(fd, *b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	*len = n;
	return 0;
}

/*
 * Run the converter on @fd (the vDSO where @fd is -1), whose build-id must
 * be @want, and read what it writes, at most --max-output bytes, within
 * @timeout seconds.  Return: the child's exit code, -1 if it was killed or
 * could not be run; *@buf, *@len the output.
 */
static int run_child(int fd, const char *want, unsigned int timeout, char **buf, size_t *len)
{
	size_t cap = opt.max_output < 1 << 16 ? opt.max_output : 1 << 16, n = 0;
	int p[2], status, killed;
	char *b = malloc(cap ?: 1);
	pid_t pid;

	*buf = NULL;
	*len = 0;
	if (!b || pipe2(p, O_CLOEXEC)) {
		free(b);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		free(b);
		return -1;
	}
	if (!pid) {
		/* The inherited fds survive close-on-exec: there is no exec. */
		close(p[0]);
		child(fd, p[1], want);
	}
	close(p[1]);
	killed = child_read(p[0], timeout, &b, cap, &n);
	if (killed)
		kill(pid, SIGKILL);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (killed || !WIFEXITED(status)) {
		free(b);
		return -1;
	}
	*buf = b;
	*len = n;
	return WEXITSTATUS(status);
}

/* The converter on @fd, whose build-id must be @want; see run_child(). */
static int convert(int fd, const char *want, char **buf, size_t *len)
{
	return run_child(fd, want, opt.timeout, buf, len);
}

static int fd_read(void *ctx, u64 off, void *buf, size_t len)
{
	int fd = *(const int *)ctx;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		done += n;
	}
	return 0;
}

/*
 * Whether the sidecar header @hdr, which the child wrote, is bound to the
 * file on @fd: its digest taken again here, so that a child a hostile file
 * took over cannot bind rows to another file's content.
 */
static bool digest_is(int fd, const struct sfu_sidecar_header *hdr)
{
	u8 digest[SFU_SIDECAR_DIGEST_LEN];
	struct sfu_digest_src src = { .read = fd_read, .ctx = &fd };
	struct stat s;
	bool same;

	if (fstat(fd, &s))
		return false;
	src.size = s.st_size;
	src.buf = malloc(SFU_DIGEST_CHUNK);
	if (!src.buf)
		return false;
	same = !sfu_elf_digest(&src, hdr->digest_kind, digest) &&
	       !memcmp(digest, hdr->digest, sizeof(digest));
	free(src.buf);
	return same;
}

/*
 * Write the sidecar into DIR/<2 hex>/<rest>.sframe, or, where that name
 * holds the sidecar of another file with the build-id (which stays), into
 * DIR/<2 hex>/<rest>.<digest>.sframe; nothing is ever replaced.  Return:
 * 0, 1 if one bound to the same content is there already, -1 on error.
 */
static int install(const char *id, const char *buf, size_t len, mode_t mode)
{
	const struct sfu_sidecar_header *hdr = (const void *)buf;
	char sub[3] = { id[0], id[1], 0 }, tmp[64];
	char name[2 * SFU_SIDECAR_BUILD_ID_MAX + 2 * SFU_SIDECAR_NAME_DIGEST + 16];
	static unsigned long long seq;
	struct stat s;
	int d, fd, ret = -1, k;

	if (mkdirat(dirfd, sub, 0755) && errno != EEXIST)
		return -1;
	d = openat(dirfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0)
		return -1;
	if (fstat(d, &s) || s.st_uid || (s.st_mode & 022)) {
		logmsg("%s/%s: not root's, or writable by others: nothing written", opt.dir, sub);
		close(d);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), ".tmp.%d.%llu", getpid(), ++seq);
	fd = openat(d, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		close(d);
		return -1;
	}
	if (!fchmod(fd, mode) && !write_all(fd, buf, len) && !fsync(fd)) {
		for (k = 0; k < 2 && ret; k++) {
			if (sfg_sidecar_name(id, k ? hdr->digest : NULL, name, sizeof(name)))
				break;
			if (!renameat2(d, tmp, d, name, RENAME_NOREPLACE))
				ret = 0;
			else if (errno != EEXIST)
				break;
			else if (sfg_sidecar_bound_to(d, name, hdr->digest_kind, hdr->digest))
				ret = 1;
		}
	}
	close(fd);
	if (ret)
		unlinkat(d, tmp, 0);
	close(d);
	return ret;
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

/* Take a token of the rate limit, waiting for one if there is none. */
static void rate_limit(void)
{
	double per_s = opt.rate / 60.0;

	tokens += now_s(&last_refill) * per_s;
	clock_gettime(CLOCK_MONOTONIC, &last_refill);
	if (tokens > opt.burst)
		tokens = opt.burst;
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

/*
 * Whether @buf, @len bytes, is a sidecar of the file of request @r: its
 * header names @r's build-id and lays the section out as sframe-gen does,
 * and its digest is the file's, taken here again (digest_is()).  Asked of
 * a converter's output and of debuginfod's alike.
 */
static bool sidecar_of(const struct sfu_sidecar_request *r, const char *buf, size_t len)
{
	const struct sfu_sidecar_header *hdr = (const void *)buf;

	return len > sizeof(*hdr) && !memcmp(hdr->magic, SFU_SIDECAR_MAGIC, 8) &&
	       hdr->build_id_len == r->build_id_len &&
	       !memcmp(hdr->build_id, r->build_id, r->build_id_len) &&
	       hdr->section_off == sizeof(*hdr) && hdr->section_size == len - sizeof(*hdr) &&
	       digest_is(r->fd, hdr);
}

/* Sidecars written since the start, converted or fetched: what the quota counts. */
static u64 written(void)
{
	return st.converted + st.debuginfod_hits;
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

	if (st.bytes + len > opt.max_bytes) {
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
	else
		outcome(O_DI_FAILED, r, id, name,
			ret < 0 ? "killed (--debuginfod-timeout or --max-output)" : "failed", ret,
			now_s(&start));
	free(buf);
	return false;
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
	char path[300];
	struct stat s;

	if (fstat(r->fd, &s) || !S_ISREG(s.st_mode)) {
		outcome(O_NOT_REGULAR, r, id, name);
		return false;
	}
	/* The rows of a file others may not read are not theirs to read either. */
	*mode = s.st_mode & 0004 ? 0644 : 0600;
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
	snprintf(path, sizeof(path), "%.2s/%s.sframe", id, id + 2);
	if (r->why == SFU_SIDECAR_WHY_MISSING && !fstatat(dirfd, path, &s, AT_SYMLINK_NOFOLLOW)) {
		outcome(O_EXISTS, r, id, name);
		return false;
	}
	if (written() >= opt.max_sidecars || st.bytes >= opt.max_bytes) {
		outcome(O_QUOTA, r, id, name, written(), st.bytes);
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
	case -1:
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
	if (use_debuginfod && from_debuginfod(r, id, name, mode))
		return;
	ret = convert(r->fd, id, &buf, &len);
	if (ret == CHILD_OK && sidecar_of(r, buf, len))
		store(r, id, name, buf, len, mode, false);
	else
		outcome(conversion_outcome(ret), r, id, name, ret);
	free(buf);
}

/*
 * The running kernel's vDSO, which has no file to be mapped from: its
 * sidecar, converted from the daemon's own mapping, as sframe-gen
 * --install --vdso does.
 */
static void do_vdso(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR), lo, hi;
	const struct sfu_sidecar_header *hdr;
	char line[512], id[2 * SFU_SIDECAR_BUILD_ID_MAX + 1];
	unsigned int i;
	size_t len;
	char *buf;
	FILE *maps;
	int ret;

	maps = fopen("/proc/self/maps", "re");
	while (base && maps && fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    lo == base && hi > lo && hi - lo <= 64 << 20)
			vdso_size = hi - lo;
	if (maps)
		fclose(maps);
	if (!vdso_size) {
		logmsg("[vdso]: none in this process");
		return;
	}
	/* Not a request of the module's: not in received. */
	ret = convert(-1, NULL, &buf, &len);
	hdr = (const void *)buf;
	if (ret || len <= sizeof(*hdr) || memcmp(hdr->magic, SFU_SIDECAR_MAGIC, 8) ||
	    !hdr->build_id_len || hdr->build_id_len > SFU_SIDECAR_BUILD_ID_MAX ||
	    hdr->section_off != sizeof(*hdr) || hdr->section_size != len - sizeof(*hdr)) {
		logmsg("[vdso]: conversion failed (%d)", ret);
		st.failed++;
		free(buf);
		return;
	}
	for (i = 0; i < hdr->build_id_len; i++)
		sprintf(id + 2 * i, "%02x", hdr->build_id[i]);
	ret = install(id, buf, len, 0644);
	if (ret < 0) {
		logmsg("%s [vdso]: writing the sidecar: %s", id, strerror(errno));
		st.write_failed++;
	} else if (ret) {
		logmsg("%s [vdso]: a sidecar exists", id);
		st.exists++;
	} else {
		logmsg("%s [vdso]: converted, %zu bytes", id, len);
		st.converted++;
		st.bytes += len;
	}
	free(buf);
}

/* The GNU build-id in @fd's PT_NOTE segments, as the module reads it; 0 if found. */
static int read_build_id(int fd, struct sfu_sidecar_request *r)
{
	unsigned char note[4096];
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int i;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum > 256)
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		size_t p = 0, len;

		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != sizeof(ph))
			return -1;
		if (ph.p_type != PT_NOTE)
			continue;
		len = ph.p_filesz < sizeof(note) ? ph.p_filesz : sizeof(note);
		if (pread(fd, note, len, ph.p_offset) != (ssize_t)len)
			return -1;
		while (p + sizeof(Elf64_Nhdr) <= len) {
			const Elf64_Nhdr *n = (const Elf64_Nhdr *)(note + p);
			size_t name = (n->n_namesz + 3) & ~3UL, desc = (n->n_descsz + 3) & ~3UL;

			if (name > len || desc > len || p + sizeof(*n) + name + desc > len)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(note + p + sizeof(*n), "GNU", 4) && n->n_descsz &&
			    n->n_descsz <= SFU_SIDECAR_BUILD_ID_MAX) {
				r->build_id_len = n->n_descsz;
				memcpy(r->build_id, note + p + sizeof(*n) + name, n->n_descsz);
				return 0;
			}
			p += sizeof(*n) + name + desc;
		}
	}
	return -1;
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
	pw = getpwnam(opt.user);
	if (pw) {
		child_uid = pw->pw_uid;
		child_gid = pw->pw_gid;
	}
	if (!child_uid) {
		logmsg("--user %s is root: refused", opt.user);
		return 2;
	}
	umask(022);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (open_dir())
		return 2;
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
		if (rescan_pending)
			r.timeout_ms = opt.rescan_ms - since + 1;
		if (ioctl(dev, SFU_IOC_SIDECAR_NEXT, &r)) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			logmsg("next: %s", strerror(errno));
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
	if (ioctl(dev, SFU_IOC_SIDECAR_ATTACH)) {
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
