// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen - make an SFrame V3 section from the DWARF CFI of an ELF file
 *
 *   sframe-gen [--stats] [--complement] [EXT] [--vaddr ADDR] ELF|--vdso -o OUT
 *   sframe-gen --stats [--complement] [EXT] ELF|--vdso...
 *   sframe-gen --install [--cache DIR] [--stats] [--any-owner] [EXT] PATH...|--vdso
 *   sframe-gen --publish DIR [--stats] [--any-owner] [EXT] PATH...|--vdso
 *   sframe-gen --go-symbols ELF
 *   sframe-gen --digest ELF
 *
 * EXT: --no-saved-regs or --saved-regs, --no-cfa-addend, --no-narrow-index.
 *
 * -o writes the raw section (header with PCREL function starts, as if the
 * section were placed at ADDR, default 0: function starts are then the
 * ELF's own addresses).  --complement leaves out every FDE that shares a
 * byte with an FDE of the file's own SFrame section (PT_GNU_SFRAME, else
 * .sframe), which wins there.  --install writes one sidecar per ELF file,
 * DIR/<first 2 hex digits of the GNU build ID>/<the rest>.sframe (DIR
 * defaults to /var/lib/sframe-unwind): the whole CFI for a file without
 * SFrame, the complement for a file with it (none if nothing is left); a
 * directory PATH stands for every regular file under it, and files that
 * are not ELF are skipped quietly.  Only files the policy of
 * sframe_trust.h trusts are converted: regular files of root's, writable
 * by nobody else, under directories of root's writable by nobody else
 * (unless sticky), none of them a link (a PATH is resolved once); with
 * --any-owner, of any owner and mode.  Each refusal is reported, and
 * counted by reason.  A sidecar is never replaced: one already there is
 * left as it is; where it was made from another file of the build-id (its
 * content digest another: include/uapi/sframe_sidecar.h), the new one goes
 * beside it under its digest; where from the same content but its bytes
 * differ (another version of sframe-gen), it is reported and counted as
 * kept.  A sidecar is mode 0644, 0600 for a file others
 * may not read.  --publish DIR converts what --install would, from the same
 * files, but writes each sidecar as DIR/<build ID>.debug, an ELF file that
 * an unmodified debuginfod indexes as the debuginfo of the build ID and
 * serves by it (sframe_gen_publish.c), under the same rules: nothing
 * replaced, a second file of the build ID beside the first under its
 * digest (DIR/<build ID>.<32 hex>.debug).  --vdso stands for the running kernel's vDSO, read from
 * this process's own mapping.  --stats prints per file:
 * FDEs and rows, .eh_frame and SFrame bytes, the share of text covered,
 * what the own section covers (with --complement) and the uncovered bytes
 * by reason, and how many FDEs list saves and share a block.  x86_64
 * sections say where frames save rbx (the SFRAME_F_SFU_SAVED_REGS
 * extension) where it can matter: in every function of a file with a CFA
 * based on rbx (ld.so's lazy-binding trampoline), in the IFUNC resolvers
 * of the others (which run above that frame), nowhere else;
 * --saved-regs in every function, --no-saved-regs nowhere, as sections
 * were before the extension;
 * --no-cfa-addend the rows of a CFA *(reg + off) + K (OpenSSL's
 * assembly; SFRAME_F_SFU_CFA_ADDEND).  The FDE index entries are 12 bytes
 * (SFRAME_F_SFU_NARROW_INDEX) where every function start fits 32 bits;
 * --no-narrow-index keeps V3's 16.  With all three, the section is one
 * binutils reads.
 *
 * Go programs get the rows of their Go functions from the pclntab
 * (sframe_gen_go.c).  --go-symbols prints one line per Go function of
 * ELF, "START END STATUS NAME" (hex link-time addresses; STATUS: rows,
 * outermost, or why it has none; NAME may hold spaces), which names the functions of stripped
 * Go programs (scripts/sframe-perf).  --inject-fault FUNC[,FUNC...] moves
 * the CFA of the rows of each Go function it names by 8 bytes, for the
 * tests.
 *
 * Exit status: 0 success, 1 a file could not be converted, 2 usage or I/O
 * error (a sidecar directory refused, too).  Files refused and sidecars
 * kept are not errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <linux/kernel.h>

#include "sframe/sframe.h"
#include "sframe-gen-cli.h"
#include "uapi/sframe_sidecar.h"

#define SFG_VDSO_NAME		"[vdso]"
#define SFG_VDSO_MAX		(64U << 20)

/* What --install did, for its summary line. */
struct install_counts {
	u64 installed;
	u64 bytes;
	u64 complements;
	u64 not_elf;
	u64 has_sframe;
	u64 no_build_id;
	u64 unsupported;
	u64 no_cfi;
	u64 failed;
	u64 refused[SFU_TRUST_NR];
	u64 kept;
	u64 unchanged;
};

static struct install_counts counts;

static void print_stats(const char *name, const struct sfg_output *o)
{
	const struct sfg_stats *s = &o->stats;
	const char *sep = "";
	int i;

	printf("%s: fdes %llu fres %llu cfi-fdes %llu cfi-rows %llu", name, s->fdes, s->fres,
	       s->dwarf_fdes, s->dwarf_rows);
	printf(" eh_frame %llu debug_frame %llu sframe %llu ratio %.3f", s->eh_frame_bytes,
	       s->debug_frame_bytes, s->sframe_bytes,
	       s->eh_frame_bytes ? (double)s->sframe_bytes / s->eh_frame_bytes : 0.0);
	printf(" text %llu covered %llu coverage %.2f%%\n", s->text_bytes, s->covered_bytes,
	       s->text_bytes ? 100.0 * s->covered_bytes / s->text_bytes : 0.0);
	if (s->own_sframe) {
		u64 both = s->own_covered_bytes + s->covered_bytes;

		printf("%s: own-sframe version %u fdes %llu fres %llu bytes %llu", name,
		       s->own_version, s->own_fdes, s->own_fres, s->own_bytes);
		printf(" covered %llu coverage %.2f%% together %llu coverage %.2f%%\n",
		       s->own_covered_bytes,
		       s->text_bytes ? 100.0 * s->own_covered_bytes / s->text_bytes : 0.0, both,
		       s->text_bytes ? 100.0 * both / s->text_bytes : 0.0);
	}
	if (s->go_version) {
		printf("%s: go pclntab %u.%u funcs %llu outermost %llu spwrite %llu", name,
		       s->go_version / 100, s->go_version % 100, s->go_funcs, s->go_topframe,
		       s->go_spwrite);
		printf(" fdes %llu fres %llu covered %llu\n", s->go_fdes, s->go_fres,
		       s->go_covered_bytes);
	}
	printf("%s: saved-regs fdes %llu without %llu", name, s->saves_fdes, s->no_saves_fdes);
	printf(" cfa-on-rbx rows %llu ifunc-resolvers %llu shared-blocks %llu\n",
	       s->cfa_on_saved_reg, s->ifunc_resolvers, s->shared_fdes);
	printf("%s: uncovered", name);
	for (i = 0; i < SFG_REASON_NR; i++) {
		if (!s->uncovered[i])
			continue;
		printf("%s %s %llu", sep, sfg_reason_name(i), s->uncovered[i]);
		sep = ",";
	}
	printf("%s\n", *sep ? "" : " none");
}

/* What place_sidecar() did, @ret, with the sidecar of @name at @path: counted. */
static void count_sidecar(int ret, const char *name, const char *id, const char *path,
			  const struct sfg_output *o)
{
	switch (ret) {
	case SIDECAR_WRITTEN:
		counts.installed++;
		counts.bytes += o->len;
		counts.complements += o->stats.own_sframe;
		break;
	case SIDECAR_SAME:
		counts.unchanged++;
		break;
	case SIDECAR_KEPT:
		/* Never replaced: bound to the same content, made otherwise (another version). */
		warn("%s: kept %s: a sidecar of build ID %s, same content, other bytes",
		     name, path, id);
		counts.kept++;
		break;
	default:
		warn("%s: %s: %s", name, path ?: opt.cache, strerror(-ret));
		counts.failed++;
		break;
	}
}

/*
 * --install: the sidecar of build-id @id, the section @o, for the file
 * @name of mode @src_mode, @elf; with --publish, in a file debuginfod
 * serves.  Counted.  0, or -errno.
 */
static int install_one(const char *name, const char *id, const struct sfg_output *o,
		       mode_t src_mode, Elf *elf)
{
	/* The rows of a file others may not read are not theirs to read either. */
	mode_t mode = src_mode & 0004 ? 0644 : 0600;
	char *path = NULL;
	u8 *buf = NULL;
	u64 len;
	int ret;

	ret = sidecar_bytes(id, o, elf, &buf, &len);
	if (!ret)
		ret = place_sidecar(id, o, buf, len, mode, &path);
	count_sidecar(ret, name, id, path, o);
	free(buf);
	free(path);
	return ret < 0 ? ret : 0;
}

/*
 * --install: whether @elf, of ABI @abi (or -SFG_E_xxx), is a file to
 * convert, counted if not; its build-id into @id, @len bytes.
 */
static bool install_wanted(Elf *elf, int abi, char *id, size_t len)
{
	if (abi == -SFG_E_NOT_ELF) {
		counts.not_elf++;
		return false;
	}
	if (abi < 0) {
		counts.unsupported++;
		return false;
	}
	if (sfg_elf_build_id(elf, id, len)) {
		counts.no_build_id++;
		return false;
	}
	return true;
}

/*
 * A conversion of @name that failed with @err: counted, and reported but
 * for the file without CFI --install skips.  Return: the exit status.
 */
static int convert_failed(const char *name, Elf *elf, int err, const struct sfg_output *o)
{
	if (err == -SFG_E_NO_CFI && opt.install) {
		if (sfg_elf_has_sframe(elf))
			counts.has_sframe++;
		else
			counts.no_cfi++;
		return 0;
	}
	if (err == -SFG_E_OWN_SFRAME)
		warn("%s: %s: %s", name, sfg_strerror(err), sfu_sframe_strerror(o->own_error));
	else
		warn("%s: %s", name, sfg_strerror(err));
	counts.failed++;
	return 1;
}

/*
 * Convert one ELF, of mode @src_mode; write it to -o, to the cache, or
 * only count it.
 */
static int process_elf(const char *name, Elf *elf, mode_t src_mode)
{
	bool complement = opt.complement;
	char id[2 * 64 + 1];
	struct sfg_output o;
	int err, abi;

	abi = sfg_elf_machine_abi(elf);
	if (opt.install) {
		if (!install_wanted(elf, abi, id, sizeof(id)))
			return 0;
		/* The module reads a file's own section first, the sidecar after. */
		complement = true;
	} else if (abi < 0) {
		warn("%s: %s", name, sfg_strerror(abi));
		return 1;
	}

	err = sfg_convert(elf, opt.vaddr, (complement ? SFG_COMPLEMENT : 0) |
			  (opt.no_saved_regs ? SFG_NO_SAVED_REGS : 0) |
			  (opt.saved_regs ? SFG_SAVED_REGS : 0) |
			  (opt.no_cfa_addend ? SFG_NO_CFA_ADDEND : 0) |
			  (opt.no_narrow_index ? SFG_NO_NARROW_INDEX : 0), &o);
	if (err)
		return convert_failed(name, elf, err, &o);
	if (opt.stats)
		print_stats(name, &o);

	if (opt.install && o.stats.own_sframe && !o.stats.fdes) {
		/* The file's own section covers every FDE that gives rows. */
		counts.has_sframe++;
	} else if (opt.install) {
		err = install_one(name, id, &o, src_mode, elf);
	} else if (opt.out) {
		err = write_atomic(opt.out, o.buf, o.len);
		if (err)
			warn("%s: %s", opt.out, strerror(-err));
	}
	sfg_output_free(&o);
	return err ? (opt.install ? 1 : 2) : 0;
}

/* --digest: "cfi HEX" and "file HEX". */
static int print_digests(const char *name, Elf *elf)
{
	static const char *const kinds[] = { "cfi", "file" };
	u8 digest[SFU_SIDECAR_DIGEST_LEN];
	int k, i, err;

	for (k = 0; k < 2; k++) {
		err = sfg_elf_digest(elf, k ? SFU_SIDECAR_DIGEST_FILE : SFU_SIDECAR_DIGEST_CFI,
				     digest);
		if (err && err != -ENOEXEC) {
			warn("%s: cannot read it", name);
			return 1;
		}
		printf("%s ", kinds[k]);
		for (i = 0; i < SFU_SIDECAR_DIGEST_LEN && !err; i++)
			printf("%02x", digest[i]);
		printf("%s\n", err ? "-" : "");
	}
	return 0;
}

/* --go-symbols: "START END STATUS NAME" per Go function. */
static int go_symbols(const char *name, Elf *elf)
{
	struct sfg_go *go;
	u64 i, lo, hi;
	int ret;

	ret = sfg_go_load(elf, &go);
	if (ret <= 0) {
		warn("%s: %s", name, ret ? sfg_strerror(ret) : "no Go function table");
		return 1;
	}
	for (i = 0; i < sfg_go_nfuncs(go); i++) {
		const char *fn = sfg_go_func(go, i, &lo, &hi);

		printf("%llx %llx %s %s\n", lo, hi, sfg_go_func_status(go, i), fn);
	}
	sfg_go_free(go);
	return 0;
}

/* --install: @path (a file, or a directory with all under it) is not converted. */
static void refuse(const char *path, enum sfu_trust_refusal why, const char *where, bool dir)
{
	counts.refused[why]++;
	if (*where && strcmp(where, path))
		warn("%s: refused%s: %s: %s", path, dir ? " with all under it" : "",
		     sfu_trust_describe(why), where);
	else
		warn("%s: refused%s: %s", path, dir ? " with all under it" : "",
		     sfu_trust_describe(why));
}

static int process_path(const char *path)
{
	enum sfu_trust_refusal why;
	unsigned char magic[SELFMAG];
	char where[PATH_MAX];
	struct stat st;
	Elf *elf;
	int fd, ret;

	if (opt.install) {
		/* Only what the policy trusts (sframe_trust.h), opened as it says. */
		fd = sfu_trust_open(path, &policy, &st, &why, where, sizeof(where));
		if (fd < 0 && why) {
			refuse(path, why, where, false);
			return 0;
		}
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		st.st_mode = 0;
	}
	if (fd < 0) {
		warn("%s: %s", path, strerror(errno));
		counts.failed++;
		return 2;
	}
	/* Not ELF: quietly skipped when installing. */
	if (pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    memcmp(magic, ELFMAG, SELFMAG)) {
		close(fd);
		if (opt.install) {
			counts.not_elf++;
			return 0;
		}
		warn("%s: %s", path, sfg_strerror(-SFG_E_NOT_ELF));
		return 1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		warn("%s: %s", path, elf_errmsg(-1));
		close(fd);
		counts.failed++;
		return 1;
	}
	ret = opt.go_symbols ? go_symbols(path, elf) :
	      opt.digest ? print_digests(path, elf) : process_elf(path, elf, st.st_mode);
	elf_end(elf);
	close(fd);
	return ret;
}

/* The vDSO this process has mapped: its address and its size. */
static int process_vdso(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR), lo, hi;
	char line[512], *copy;
	size_t size = 0;
	FILE *maps;
	Elf *elf;
	int ret;

	if (!base) {
		warn("no vDSO in this process (AT_SYSINFO_EHDR is 0)");
		return 1;
	}
	maps = fopen("/proc/self/maps", "r");
	if (!maps) {
		warn("/proc/self/maps: %s", strerror(errno));
		return 2;
	}
	while (fgets(line, sizeof(line), maps)) {
		if (!strstr(line, "[vdso]") || sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if (lo == base && hi > lo)
			size = hi - lo;
	}
	fclose(maps);
	if (!size || size > SFG_VDSO_MAX) {
		warn("no [vdso] mapping at %#lx in /proc/self/maps", base);
		return 1;
	}
	/* A private copy: libelf may want to write, the mapping is read-only. */
	copy = malloc(size);
	if (!copy)
		return 2;
	memcpy(copy, (const void *)base, size);
	elf = elf_memory(copy, size);
	if (!elf) {
		warn("%s: %s", SFG_VDSO_NAME, elf_errmsg(-1));
		free(copy);
		return 1;
	}
	/* Every process maps it: readable by all. */
	ret = process_elf(SFG_VDSO_NAME, elf, 0444);
	elf_end(elf);
	free(copy);
	return ret;
}

static int walk_ret;

/*
 * A file or directory of the walk; links and other files that are not
 * regular are not followed nor looked at.  A directory the policy refuses
 * is skipped with all under it (what nftw() saw, a shortcut: each file is
 * checked again, path and all, when it is opened).
 */
static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	enum sfu_trust_refusal why;
	int ret;

	(void)ftw;
	if (type == FTW_D) {
		why = sfu_trust_dir(&policy, st);
		if (!why)
			return FTW_CONTINUE;
		refuse(path, why, "", true);
		return FTW_SKIP_SUBTREE;
	}
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return FTW_CONTINUE;
	ret = process_path(path);
	if (ret > walk_ret)
		walk_ret = ret;
	return FTW_CONTINUE;
}

/*
 * One PATH of --install.  Links in it are followed once, here: the name
 * given is the administrator's.  What it leads to is checked as any file.
 */
static int install_path(const char *arg)
{
	char *path = realpath(arg, NULL), where[PATH_MAX];
	enum sfu_trust_refusal why;
	struct stat st;
	int ret = 0, d;

	if (!path || lstat(path, &st)) {
		warn("%s: %s", arg, strerror(errno));
		counts.failed++;
		free(path);
		return 2;
	}
	if (!S_ISDIR(st.st_mode)) {
		ret = process_path(path);
		free(path);
		return ret;
	}
	d = sfu_trust_open_dir(path, &policy, &why, where, sizeof(where));
	if (d < 0 && why) {
		refuse(path, why, where, true);
	} else if (d < 0) {
		warn("%s: %s", path, strerror(errno));
		counts.failed++;
		ret = 2;
	} else {
		close(d);
		walk_ret = 0;
		if (nftw(path, walk_one, 32, FTW_PHYS | FTW_ACTIONRETVAL) < 0) {
			warn("%s: %s", path, strerror(errno));
			walk_ret = 2;
		}
		ret = walk_ret;
	}
	free(path);
	return ret;
}

static int install(void)
{
	int i, ret, r;
	u64 refused = 0;

	ret = sidecar_dir_open();
	if (ret)
		return ret;
	if (opt.vdso)
		ret = process_vdso();
	for (i = 0; i < opt.num_paths; i++) {
		r = install_path(opt.paths[i]);
		if (r > ret)
			ret = r;
	}
	printf("%s: %s %llu sidecars (%llu bytes, %llu for files with SFrame) in %s; ", prog,
	       opt.publish ? "published" : "installed", counts.installed, counts.bytes,
	       counts.complements, opt.cache);
	printf("skipped %llu not ELF, %llu with SFrame, %llu without build ID, ", counts.not_elf,
	       counts.has_sframe, counts.no_build_id);
	printf("%llu unsupported, %llu without CFI; %llu failed\n", counts.unsupported,
	       counts.no_cfi, counts.failed);
	for (i = SFU_TRUST_OK + 1; i < SFU_TRUST_NR; i++)
		refused += counts.refused[i];
	printf("%s: refused %llu (", prog, refused);
	for (i = SFU_TRUST_OK + 1; i < SFU_TRUST_NR; i++)
		printf("%s%s %llu", i > SFU_TRUST_OK + 1 ? ", " : "", sfu_trust_name(i),
		       counts.refused[i]);
	printf("); kept %llu sidecars of other bytes; %llu unchanged\n", counts.kept,
	       counts.unchanged);
	if (counts.installed && !opt.publish)
		notify_module(opt.cache);
	close(cache_fd);
	return ret;
}

int main(int argc, char **argv)
{
	int i, ret = 0, r;

	parse_args(argc, argv);
	if (elf_version(EV_CURRENT) == EV_NONE) {
		warn("libelf is out of date");
		return 2;
	}
	if (opt.install)
		return install();
	if (opt.vdso)
		ret = process_vdso();
	for (i = 0; i < opt.num_paths; i++) {
		r = process_path(opt.paths[i]);
		if (r > ret)
			ret = r;
	}
	return ret;
}
