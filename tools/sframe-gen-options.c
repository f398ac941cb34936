// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, its options: the command line, read with getopt_long(),
 * checked to make one of the usages, and the usage and --help texts.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>

#include <linux/kernel.h>

#include "sframe-gen-cli.h"

struct options opt;

static void usage_text(FILE *f)
{
	fprintf(f,
		"usage: %s [--stats] [--complement] [--[no-]saved-regs] [--no-cfa-addend] [--no-narrow-index] [--vaddr ADDR] ELF|--vdso -o OUT\n"
		"       %s --stats [--complement] [--[no-]saved-regs] [--no-cfa-addend] [--no-narrow-index] ELF|--vdso...\n"
		"       %s --install [--cache DIR] [--stats] [--any-owner] [--[no-]saved-regs] [--no-cfa-addend] [--no-narrow-index]\n"
		"                  PATH...|--vdso\n"
		"       %s --publish DIR [--stats] [--any-owner] [--[no-]saved-regs] [--no-cfa-addend] [--no-narrow-index]\n"
		"                  PATH...|--vdso\n"
		"       %s --go-symbols ELF\n"
		"       %s --digest ELF\n"
		"ADDR is hex (default 0); DIR defaults to %s\n",
		prog, prog, prog, prog, prog, prog, SFG_DEFAULT_CACHE);
}

static noreturn void print_usage(void)
{
	usage_text(stderr);
	exit(2);
}

/* Long because the text it prints is one printf(). */
static noreturn void print_help(void)
{
	usage_text(stdout);
	printf("\n"
	       "An SFrame V3 section from the DWARF CFI (.eh_frame, .debug_frame) of an\n"
	       "x86_64 or aarch64 ELF file.\n"
	       "\n"
	       "  -o OUT        write the raw section, function starts as if it were\n"
	       "                placed at ADDR (--vaddr, default 0: the ELF's own addresses)\n"
	       "  --complement  leave out every FDE that shares a byte with an FDE of the\n"
	       "                file's own SFrame section (PT_GNU_SFRAME, else .sframe):\n"
	       "                the rows the kernel module takes from a sidecar where the\n"
	       "                file's own section has no FDE\n"
	       "  --install     write a sidecar per ELF file, named by build ID, under DIR\n"
	       "                (--cache): all of the CFI for a file without SFrame, the\n"
	       "                complement for a file with it, none if nothing is left.\n"
	       "                Converted are only regular files owned by root (or by the\n"
	       "                user running it) that group and others may not write, with\n"
	       "                every directory from / down to them owned so and not\n"
	       "                writable by group or others unless sticky; none may be a\n"
	       "                symbolic link (a PATH given is resolved once).  Each file is\n"
	       "                opened from / without following links, O_NONBLOCK, and\n"
	       "                checked again on its descriptor.  Refusals are reported on\n"
	       "                stderr and counted by reason (link, not-regular, owner,\n"
	       "                mode, dir-owner, dir-mode).  No sidecar is ever replaced:\n"
	       "                one of the same bytes is left alone (unchanged); one made\n"
	       "                from another file of the build-id stays, the new one going\n"
	       "                under its digest; one of other bytes from the same content\n"
	       "                is kept and reported (kept).  Sidecars are mode\n"
	       "                0644, 0600 for a file others may not read.  DIR and the\n"
	       "                directories above it must pass the same checks.\n"
	       "  --publish DIR the sidecars --install would write, from the same files\n"
	       "                under the same checks, each as DIR/<build ID>.debug: an\n"
	       "                ELF file with the build ID's note and the sidecar as its\n"
	       "                section " SFG_PUBLISH_SECTION ", which debuginfod -F DIR\n"
	       "                indexes as the build ID's debuginfo and serves (a second\n"
	       "                file of the build ID: <build ID>.<digest>.debug)\n"
	       "  --any-owner   with --install: files and directories of any owner and\n"
	       "                mode (a build tree); links and non-regular files are still\n"
	       "                refused\n"
	       "  --no-saved-regs  x86_64: leave out where frames save rbx (the\n"
	       "                SFRAME_F_SFU_SAVED_REGS extension), as before it\n"
	       "  --saved-regs  x86_64: say where every function saves rbx (by default,\n"
	       "                only a file with a CFA based on rbx does, and elsewhere\n"
	       "                the IFUNC resolvers ld.so's lazy binding calls)\n"
	       "  --no-cfa-addend  leave out the rows of a CFA *(reg + off) + K (the\n"
	       "                SFRAME_F_SFU_CFA_ADDEND extension)\n"
	       "  --no-narrow-index  FDE index entries of V3's own 16 bytes, where by\n"
	       "                default they are 12 (the SFRAME_F_SFU_NARROW_INDEX\n"
	       "                extension) when every function start fits 32 bits;\n"
	       "                with the two above, a section binutils reads\n"
	       "  --vdso        the running kernel's vDSO\n"
	       "  --stats       FDEs, rows, sizes, text covered (by the own section too)\n"
	       "                and left uncovered, by reason\n"
	       "  --go-symbols  the Go functions of a Go program, from its pclntab:\n"
	       "                \"START END STATUS NAME\" per line (stripped programs too)\n"
	       "  --digest      the content digests a sidecar binds to (include/uapi/\n"
	       "                sframe_sidecar.h): \"cfi HEX\" (\"cfi -\" where it does not\n"
	       "                apply) and \"file HEX\"\n"
	       "  --inject-fault FUNC[,FUNC...]  Go rows of each function FUNC with the CFA\n"
	       "                8 bytes off (for the tests)\n"
	       "\n"
	       "Exit status: 0 success, 1 a file could not be converted, 2 usage or I/O error\n"
	       "(a sidecar directory refused, too); files refused and sidecars kept are not\n"
	       "errors.\n");
	exit(0);
}

/* The options that take a value or are checked against others. */
enum {
	OPT_CACHE = 256,
	OPT_VADDR,
	OPT_NO_SAVED_REGS,
	OPT_SAVED_REGS,
	OPT_PUBLISH,
	OPT_INJECT_FAULT,
};

static const struct option long_options[] = {
	{ "cache", required_argument, NULL, OPT_CACHE },
	{ "vaddr", required_argument, NULL, OPT_VADDR },
	{ "stats", no_argument, &opt.stats, 1 },
	{ "complement", no_argument, &opt.complement, 1 },
	{ "no-saved-regs", no_argument, NULL, OPT_NO_SAVED_REGS },
	{ "saved-regs", no_argument, NULL, OPT_SAVED_REGS },
	{ "no-cfa-addend", no_argument, &opt.no_cfa_addend, 1 },
	{ "no-narrow-index", no_argument, &opt.no_narrow_index, 1 },
	{ "help", no_argument, NULL, 'h' },
	{ "install", no_argument, &opt.install, 1 },
	{ "publish", required_argument, NULL, OPT_PUBLISH },
	{ "any-owner", no_argument, &opt.any_owner, 1 },
	{ "vdso", no_argument, &opt.vdso, 1 },
	{ "go-symbols", no_argument, &opt.go_symbols, 1 },
	{ "digest", no_argument, &opt.digest, 1 },
	{ "inject-fault", required_argument, NULL, OPT_INJECT_FAULT },
	{ NULL, 0, NULL, 0 },
};

/*
 * Option @c of getopt_long(), @arg its value: in the order given, so that
 * the first one wrong or in conflict with one before ends it.
 */
static void parse_option(int c, char *arg)
{
	char *end;

	switch (c) {
	case 0:
		/* A flag long_options set. */
		break;
	case 'o':
		opt.out = arg;
		break;
	case OPT_CACHE:
		if (opt.publish)
			print_usage();
		opt.cache = arg;
		break;
	case OPT_VADDR:
		errno = 0;
		opt.vaddr = strtoull(arg, &end, 16);
		if (errno || !*arg || *end)
			print_usage();
		break;
	case OPT_NO_SAVED_REGS:
		if (opt.saved_regs)
			print_usage();
		opt.no_saved_regs = true;
		break;
	case OPT_SAVED_REGS:
		if (opt.no_saved_regs)
			print_usage();
		opt.saved_regs = true;
		break;
	case 'h':
		print_help();
	case OPT_PUBLISH:
		if (opt.cache)
			print_usage();
		opt.publish = true;
		opt.cache = arg;
		break;
	case OPT_INJECT_FAULT:
		sfg_go_fault = arg;
		break;
	default:
		print_usage();
	}
}

/* What the options and @n paths ask for must make one of the usages. */
static void check_args(int n)
{
	if (opt.publish) {
		/* --install's conversion and checks, another directory and form. */
		if (opt.install)
			print_usage();
		opt.install = true;
	}
	if (opt.install) {
		if (opt.out || (!n && !opt.vdso))
			print_usage();
		if (!opt.cache)
			opt.cache = SFG_DEFAULT_CACHE;
		return;
	}
	if (opt.cache || opt.any_owner)
		print_usage();
	if (opt.go_symbols || opt.digest) {
		if (n != 1 || opt.out || opt.stats || opt.vdso || (opt.go_symbols && opt.digest))
			print_usage();
		return;
	}
	/* -o: exactly one input; without -o: --stats over the inputs. */
	if (opt.out ? n + opt.vdso != 1 : (!opt.stats || !(n + opt.vdso)))
		print_usage();
}

void parse_args(int argc, char **argv)
{
	static char *paths[4096];
	int c, at, n = 0;

	/* No message of getopt's own: every mistake gets the usage. */
	opterr = 0;
	for (;;) {
		at = optind;
		/* "-": paths come in order, as options do (c == 1). */
		c = getopt_long(argc, argv, "-o:h", long_options, NULL);
		if (c == -1)
			break;
		if (c != 1) {
			parse_option(c, optarg);
			continue;
		}
		if (n == (int)ARRAY_SIZE(paths)) {
			warn("too many paths (pass a directory)");
			exit(2);
		}
		paths[n++] = optarg;
	}
	/* Where getopt_long() stopped early, at "--": a mistake, as any other. */
	if (at < argc)
		print_usage();
	opt.paths = paths;
	opt.num_paths = n;
	check_args(n);
}
