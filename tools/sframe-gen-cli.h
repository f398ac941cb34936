/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files of sframe-gen, the program, and what passes between them,
 * each calling only the ones below it:
 *
 *   sframe-gen.c          main(): each file converted and where its
 *                         section goes; --install's walk and its counts
 *   sframe-gen-sidecar.c  the sidecars --install and --publish write,
 *                         replacing nothing, and their directory
 *   sframe-gen-options.c  the options, --help and the usage
 *
 * The conversion itself is the converter's, sframe_gen.h.
 */
#ifndef _SFRAME_GEN_CLI_H
#define _SFRAME_GEN_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <linux/types.h>

#include "sframe_gen.h"
#include "sframe_trust.h"

#define SFG_DEFAULT_CACHE	"/var/lib/sframe-unwind"

static const char prog[] = "sframe-gen";

struct options {
	const char *out;
	const char *cache;
	u64 vaddr;
	bool no_saved_regs;
	bool saved_regs;
	bool publish;
	/* Set by getopt_long() itself (long_options): int, as its flags are. */
	int stats;
	int complement;
	int no_cfa_addend;
	int no_narrow_index;
	int install;
	int vdso;
	int go_symbols;
	int digest;
	int any_owner;
	char **paths;
	int num_paths;
};

extern struct options opt;

static inline void warn(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* sframe-gen-sidecar.c: what install_sidecar() did. */
enum sidecar_outcome {
	SIDECAR_WRITTEN,
	SIDECAR_SAME,		/* one of the same content was there: left as it is */
	SIDECAR_KEPT,		/* one of other content was there: kept, nothing written */
};

/* --install: whose files are converted, and the sidecar directory. */
extern struct sfu_trust_policy policy;
extern int cache_fd;

int write_atomic(const char *path, const void *buf, u64 len);
int sidecar_dir_open(void);
int sidecar_bytes(const char *id, const struct sfg_output *o, Elf *elf, u8 **buf, u64 *len);
int place_sidecar(const char *id, const struct sfg_output *o, const u8 *buf, u64 len,
		  mode_t mode, char **path);
void notify_module(const char *dir);

/* sframe-gen-options.c */
void parse_args(int argc, char **argv);

#endif /* _SFRAME_GEN_CLI_H */
