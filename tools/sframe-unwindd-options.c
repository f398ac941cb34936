// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-unwindd, its options: their defaults, and the command line read
 * with getopt_long() (sframe-unwindd.c says what each does).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>

#include <linux/kernel.h>

#include "sframe-unwindd.h"

struct unwindd_options opt = {
	.dir = SFU_SIDECAR_DEFAULT_DIR,
	.user = UNWINDD_USER,
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

static noreturn void bad_usage(void)
{
	fprintf(stderr,
		"usage: sframe-unwindd [--dir DIR] [--user NAME] [--max-size BYTES] [--max-output BYTES]\n"
		"                      [--max-sidecars N] [--max-bytes BYTES] [--rate N] [--burst N]\n"
		"                      [--cpu SECONDS] [--timeout SECONDS] [--mem BYTES]\n"
		"                      [--rescan-ms MS] [--any-owner] [--stats FILE]\n"
		"                      [--no-debuginfod] [--debuginfod-timeout SECONDS] [--no-prefetch]\n"
		"                      [--test-sandbox CALL] [--convert FILE...]\n"
		"       sframe-unwindd --list-ahead FILE\n");
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

/* --test-sandbox CALL (enum sandbox_test). */
static enum sandbox_test sandbox_test(const char *v)
{
	static const char *const calls[] = {
		[TEST_SOCKET] = "socket",
		[TEST_FORK] = "fork",
		[TEST_OPEN] = "open",
		[TEST_MMAP_EXEC] = "mmap-exec",
		[TEST_NPROC] = "nproc",
		[TEST_STRAY] = "stray",
	};
	unsigned int i;

	for (i = TEST_NONE + 1; i < ARRAY_SIZE(calls); i++)
		if (!strcmp(v, calls[i]))
			return i;
	bad_usage();
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
	OPT_TEST_SANDBOX,
	OPT_LIST_AHEAD,
	OPT_CONVERT,
};

static const struct option long_options[] = {
	{ "any-owner", no_argument, &opt.any_owner, 1 },
	{ "no-debuginfod", no_argument, &opt.no_debuginfod, 1 },
	{ "no-prefetch", no_argument, &opt.no_prefetch, 1 },
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
	{ "test-sandbox", required_argument, NULL, OPT_TEST_SANDBOX },
	{ "list-ahead", required_argument, NULL, OPT_LIST_AHEAD },
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
		opt.user_given = true;
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
	case OPT_TEST_SANDBOX:
		opt.test_sandbox = sandbox_test(v);
		break;
	case OPT_LIST_AHEAD:
		opt.list_ahead = v;
		break;
	default:
		bad_usage();
	}
}

void parse_args(int argc, char **argv)
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
