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
 * EXT: --no-saved-regs or --saved-regs, --no-cfa-addend.
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
 * assembly; SFRAME_F_SFU_CFA_ADDEND).  With both, the section is one
 * binutils reads.
 *
 * Go programs get the rows of their Go functions from the pclntab
 * (sframe_gen_go.c).  --go-symbols prints one line per Go function of
 * ELF, "START END STATUS NAME" (hex link-time addresses; STATUS: rows,
 * outermost, or why it has none; NAME may hold spaces), which names the functions of stripped
 * Go programs (scripts/sframe-perf).  --inject-fault FUNC moves the CFA
 * of the Go function FUNC's rows by 8 bytes, for the tests.
 *
 * Exit status: 0 success, 1 a file could not be converted, 2 usage or I/O
 * error (a sidecar directory refused, too).  Files refused and sidecars
 * kept are not errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <linux/kernel.h>

#include "sframe/sframe.h"
#include "sframe_unwind/elf_digest.h"
#include "sframe_gen.h"
#include "sframe_trust.h"
#include "uapi/sframe_sidecar.h"

#define SFG_DEFAULT_CACHE	"/var/lib/sframe-unwind"
#define SFG_VDSO_NAME		"[vdso]"
#define SFG_VDSO_MAX		(64U << 20)

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
	int install;
	int vdso;
	int go_symbols;
	int digest;
	int any_owner;
	char **paths;
	int num_paths;
};

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

static const char *prog = "sframe-gen";
static struct options opt;
static struct install_counts counts;
/* --install: whose files are converted, and the sidecar directory. */
static struct sfu_trust_policy policy;
static int cache_fd = -1;

static void usage_text(FILE *f)
{
	fprintf(f,
		"usage: %s [--stats] [--complement] [--[no-]saved-regs] [--no-cfa-addend] [--vaddr ADDR] ELF|--vdso -o OUT\n"
		"       %s --stats [--complement] [--[no-]saved-regs] [--no-cfa-addend] ELF|--vdso...\n"
		"       %s --install [--cache DIR] [--stats] [--any-owner] [--[no-]saved-regs] [--no-cfa-addend]\n"
		"                  PATH...|--vdso\n"
		"       %s --publish DIR [--stats] [--any-owner] [--[no-]saved-regs] [--no-cfa-addend]\n"
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

/* Long for the text it prints, which is one printf(). */
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
	       "                SFRAME_F_SFU_CFA_ADDEND extension): with --no-saved-regs,\n"
	       "                a section binutils reads\n"
	       "  --vdso        the running kernel's vDSO\n"
	       "  --stats       FDEs, rows, sizes, text covered (by the own section too)\n"
	       "                and left uncovered, by reason\n"
	       "  --go-symbols  the Go functions of a Go program, from its pclntab:\n"
	       "                \"START END STATUS NAME\" per line (stripped programs too)\n"
	       "  --digest      the content digests a sidecar binds to (include/uapi/\n"
	       "                sframe_sidecar.h): \"cfi HEX\" (\"cfi -\" where it does not\n"
	       "                apply) and \"file HEX\"\n"
	       "  --inject-fault FUNC  Go rows of function FUNC with the CFA 8 bytes off\n"
	       "                (for the tests)\n"
	       "\n"
	       "Exit status: 0 success, 1 a file could not be converted, 2 usage or I/O error\n"
	       "(a sidecar directory refused, too); files refused and sidecars kept are not\n"
	       "errors.\n");
	exit(0);
}

static void warn(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

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

/* Write @len bytes to @path through a temporary file and rename(). */
static int write_atomic(const char *path, const void *buf, u64 len)
{
	const char *slash = strrchr(path, '/');
	const u8 *p = buf;
	char *tmp;
	int fd, err;

	if (asprintf(&tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
		     slash ? slash + 1 : path) < 0)
		return -ENOMEM;
	fd = mkstemp(tmp);
	if (fd < 0)
		goto fail;
	if (fchmod(fd, 0644))
		goto fail_fd;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			goto fail_fd;
		}
		p += n;
		len -= n;
	}
	if (close(fd))
		goto fail_unlink;
	if (rename(tmp, path))
		goto fail_unlink;
	free(tmp);
	return 0;
fail_fd:
	err = -errno;
	close(fd);
	unlink(tmp);
	free(tmp);
	return err;
fail_unlink:
	err = -errno;
	unlink(tmp);
	free(tmp);
	return err;
fail:
	err = -errno;
	free(tmp);
	return err;
}

/*
 * A sidecar (include/uapi/sframe_sidecar.h) in *@out, *@out_len bytes: the
 * header with the build-id @hex and @o's digest, then the section @buf,
 * @len bytes, computed for address @vaddr.
 */
static int make_sidecar(const char *hex, const struct sfg_output *o, const void *buf, u64 len,
			u64 vaddr, u8 **out, u64 *out_len)
{
	struct sfu_sidecar_header hdr;
	unsigned int i, n = strlen(hex) / 2;

	if (!n || n > SFU_SIDECAR_BUILD_ID_MAX)
		return -EINVAL;
	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, SFU_SIDECAR_MAGIC, sizeof(hdr.magic));
	hdr.build_id_len = n;
	hdr.digest_kind = o->digest_kind;
	memcpy(hdr.digest, o->digest, sizeof(hdr.digest));
	hdr.section_off = sizeof(hdr);
	hdr.section_size = len;
	hdr.section_vaddr = vaddr;
	for (i = 0; i < n; i++)
		if (sscanf(hex + 2 * i, "%2hhx", &hdr.build_id[i]) != 1)
			return -EINVAL;
	*out = malloc(sizeof(hdr) + len);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, &hdr, sizeof(hdr));
	memcpy(*out + sizeof(hdr), buf, len);
	*out_len = sizeof(hdr) + len;
	return 0;
}

/* What install_sidecar() did. */
enum sidecar_outcome {
	SIDECAR_WRITTEN,
	SIDECAR_SAME,		/* one of the same content was there: left as it is */
	SIDECAR_KEPT,		/* one of other content was there: kept, nothing written */
};

static int write_all(int fd, const u8 *p, u64 len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

/* Whether the file on @fd, of status @st, holds exactly @buf, @len bytes. */
static bool same_content(int fd, const struct stat *st, const u8 *buf, u64 len)
{
	static u8 chunk[1 << 16];
	u64 at = 0;

	if ((u64)st->st_size != len)
		return false;
	while (at < len) {
		ssize_t n = pread(fd, chunk, min_t(u64, len - at, sizeof(chunk)), at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || memcmp(chunk, buf + at, n))
			return false;
		at += n;
	}
	return pread(fd, chunk, 1, at) == 0;
}

/*
 * @name in the cache's subdirectory @d is a sidecar already (open on
 * @fd): it stays whatever it holds.  Its time is set to now, since it
 * serves a file of this run (sframe-unwind-sidecars --prune goes by it;
 * with --publish it is left alone),
 * and its mode narrowed to @mode if that is narrower.
 */
static int existing_sidecar(int fd, const char *path, const u8 *buf, u64 len, mode_t mode)
{
	struct stat st;
	bool same;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		warn("%s: not a regular file: left as it is", path);
		return -EEXIST;
	}
	same = same_content(fd, &st, buf, len);
	if (same && (st.st_mode & 0777 & ~mode) && fchmod(fd, st.st_mode & 0777 & mode))
		return -errno;
	/*
	 * Not a published file's: debuginfod serves a file only while its
	 * time is the one it indexed, until its next scan.
	 */
	if (!opt.publish && futimens(fd, NULL))
		return -errno;
	return same ? SIDECAR_SAME : SIDECAR_KEPT;
}

/*
 * A new sidecar @name in the cache's subdirectory @d: a temporary file
 * made with O_EXCL, then renamed to @name only if no @name is there
 * (-EEXIST then: someone else wrote one meanwhile).
 */
static int new_sidecar(int d, const char *name, const u8 *buf, u64 len, mode_t mode)
{
	static unsigned long long seq;
	char tmp[2 * SFU_SIDECAR_BUILD_ID_MAX + 64];
	int fd, err;

	snprintf(tmp, sizeof(tmp), ".%s.%d.%llu", name, (int)getpid(), ++seq);
	fd = openat(d, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	err = fchmod(fd, mode) ? -errno : write_all(fd, buf, len);
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat2(d, tmp, d, name, RENAME_NOREPLACE)) {
		err = -errno;
		/* A file system without RENAME_NOREPLACE: a link replaces nothing either. */
		if (err == -EINVAL)
			err = linkat(d, tmp, d, name, 0) ? -errno : 0;
		unlinkat(d, tmp, 0);
	} else if (err) {
		unlinkat(d, tmp, 0);
	}
	return err ? err : SIDECAR_WRITTEN;
}

/*
 * The sidecar @buf, @len bytes, as @path, the file @name in the cache's
 * subdirectory @sub, mode @mode.  Nothing is replaced: a sidecar there
 * already is compared, and kept whatever it holds.  Returns an
 * enum sidecar_outcome, or -errno.
 */
static int install_sidecar(const char *path, const char *sub, const char *name, const u8 *buf,
			   u64 len, mode_t mode)
{
	enum sfu_trust_refusal why;
	struct stat st;
	int d, fd, ret, tries;

	if (mkdirat(cache_fd, sub, 0755) && errno != EEXIST)
		return -errno;
	d = openat(cache_fd, sub, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0)
		return -errno;
	if (fstat(d, &st)) {
		ret = -errno;
		goto out;
	}
	why = sfu_trust_dir(&policy, &st);
	if (why) {
		warn("%.*s: refused as a sidecar directory: %s", (int)(strrchr(path, '/') - path),
		     path, sfu_trust_describe(why));
		ret = -EPERM;
		goto out;
	}
	for (tries = 0; tries < 2; tries++) {
		fd = openat(d, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			ret = existing_sidecar(fd, path, buf, len, mode);
			close(fd);
			goto out;
		}
		if (errno != ENOENT) {
			ret = -errno;
			goto out;
		}
		ret = new_sidecar(d, name, buf, len, mode);
		if (ret != -EEXIST)
			break;
	}
out:
	close(d);
	return ret;
}

/* The sidecar a file of --publish carries, if @fd is one; its header in @hdr. */
static bool published_header(int fd, struct sfu_sidecar_header *hdr)
{
	const u8 *buf;
	struct stat st;
	bool ok = false;
	size_t len;
	Elf *elf;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !sfg_published_sidecar(elf, &buf, &len) && len >= sizeof(*hdr)) {
		memcpy(hdr, buf, sizeof(*hdr));
		ok = true;
	}
	elf_end(elf);
	return ok;
}

/*
 * Whether the sidecar @name of the cache's subdirectory @sub (with
 * --publish, the published file @name of the directory) is bound to @o's
 * content.
 */
static bool sidecar_bound_same(const char *sub, const char *name, const struct sfg_output *o)
{
	int d = openat(cache_fd, sub, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), fd;
	struct sfu_sidecar_header hdr;
	bool same;

	if (d < 0)
		return false;
	if (!opt.publish) {
		same = sfg_sidecar_bound_to(d, name, o->digest_kind, o->digest);
		close(d);
		return same;
	}
	fd = openat(d, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(d);
	if (fd < 0)
		return false;
	same = published_header(fd, &hdr) &&
	       !memcmp(hdr.magic, SFU_SIDECAR_MAGIC, sizeof(hdr.magic)) &&
	       hdr.digest_kind == o->digest_kind &&
	       !memcmp(hdr.digest, o->digest, sizeof(hdr.digest));
	close(fd);
	return same;
}

/*
 * Where the module is loaded and its sidecar_dir is @dir, write the
 * parameter again: the module then rescans the running processes, which so
 * pick up the sidecars just installed.  Quietly nothing otherwise.
 */
static void notify_module(const char *dir)
{
	static const char param[] = "/sys/module/sframe_unwind/parameters/sidecar_dir";
	char cur[512];
	FILE *f = fopen(param, "r");
	size_t n;

	if (!f)
		return;
	n = fread(cur, 1, sizeof(cur) - 1, f);
	fclose(f);
	cur[n] = '\0';
	cur[strcspn(cur, "\n")] = '\0';
	if (strcmp(cur, dir))
		return;
	f = fopen(param, "w");
	if (!f)
		return;
	fprintf(f, "%s\n", dir);
	if (!fclose(f))
		printf("%s: sframe_unwind rescans the running processes\n", prog);
}

/* mkdir -p: the sidecar directory, checked once made. */
static int mkdir_p(const char *dir)
{
	char *d = strdup(dir), *p;
	int err = 0;
	char c;

	if (!d)
		return -ENOMEM;
	for (p = d; *p; ) {
		c = *++p;
		if (c && c != '/')
			continue;
		*p = 0;
		if (mkdir(d, 0755) && errno != EEXIST) {
			err = -errno;
			break;
		}
		*p = c;
	}
	free(d);
	return err;
}

/*
 * Where the sidecar of build-id @id goes: the subdirectory @sub of the
 * cache and the name @file in it, the build-id's own or, with @digest,
 * the name of a second file of the build-id.  With --publish, the
 * directory itself ("."), "<build-id>.debug" or "<build-id>.<digest>.debug".
 */
static int sidecar_file(const char *id, const u8 *digest, char *sub, char **file)
{
	char name[2 * SFU_SIDECAR_BUILD_ID_MAX + 2 * SFU_SIDECAR_NAME_DIGEST + 16];
	int ret;

	if (opt.publish) {
		strcpy(sub, ".");
		ret = sfg_sidecar_name(id, digest, name, sizeof(name));
		/* The same name, whole and with .debug for .sframe */
		if (!ret && asprintf(file, "%.2s%.*s.debug", id, (int)strlen(name) - 7, name) < 0)
			ret = -ENOMEM;
		return ret;
	}
	sub[0] = id[0];
	sub[1] = id[1];
	sub[2] = 0;
	ret = sfg_sidecar_name(id, digest, name, sizeof(name));
	if (ret)
		return ret;
	*file = strdup(name);
	return *file ? 0 : -ENOMEM;
}

/* The bytes --install writes for @o: the sidecar, or with --publish its ELF file. */
static int sidecar_bytes(const char *id, const struct sfg_output *o, Elf *elf, u8 **buf,
			 u64 *len)
{
	u8 *sidecar = NULL;
	int ret;

	ret = make_sidecar(id, o, o->buf, o->len, opt.vaddr, &sidecar, len);
	if (!ret && opt.publish) {
		ret = sfg_publish_elf(elf, sidecar, *len, buf, len);
	} else if (!ret) {
		*buf = sidecar;
		sidecar = NULL;
	}
	free(sidecar);
	return ret;
}

/*
 * Write @buf, @len bytes of mode @mode, as the sidecar of build-id @id
 * for @o: under the build-id's name first; where that holds the sidecar
 * of another file of that build-id (its digest another), beside it,
 * under its own digest, which is how the module looks it up.  *@path:
 * the last name tried, or NULL.  Return: a SIDECAR_* or -errno.
 */
static int place_sidecar(const char *id, const struct sfg_output *o, const u8 *buf, u64 len,
			 mode_t mode, char **path)
{
	char sub[3], *file = NULL;
	int ret = 0, k;

	for (k = 0; !ret && k < 2; k++) {
		free(file);
		free(*path);
		*path = NULL;
		ret = sidecar_file(id, k ? o->digest : NULL, sub, &file);
		if (ret) {
			file = NULL;
			break;
		}
		if (asprintf(path, "%s/%s/%s", opt.cache, sub, file) < 0) {
			*path = NULL;
			ret = -ENOMEM;
			break;
		}
		ret = install_sidecar(*path, sub, file, buf, len, mode);
		if (k || ret != SIDECAR_KEPT || sidecar_bound_same(sub, file, o))
			break;
		ret = 0;
	}
	free(file);
	return ret;
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
			  (opt.no_cfa_addend ? SFG_NO_CFA_ADDEND : 0), &o);
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
	char where[PATH_MAX], *cache;
	enum sfu_trust_refusal why;
	int i, ret = 0, r;
	u64 refused = 0;

	sfu_trust_policy_init(&policy, opt.any_owner);
	r = mkdir_p(opt.cache);
	if (r) {
		warn("%s: %s", opt.cache, strerror(-r));
		return 2;
	}
	/*
	 * Sidecars are written only where the files converted could be.  The
	 * name given is resolved once, as a PATH is.
	 */
	cache = realpath(opt.cache, NULL);
	if (!cache) {
		warn("%s: %s", opt.cache, strerror(errno));
		return 2;
	}
	cache_fd = sfu_trust_open_dir(cache, &policy, &why, where, sizeof(where));
	free(cache);
	if (cache_fd < 0 && why) {
		warn("%s: refused as the sidecar directory: %s%s%s", opt.cache,
		     sfu_trust_describe(why), *where ? ": " : "", where);
		return 2;
	} else if (cache_fd < 0) {
		warn("%s: %s", opt.cache, strerror(errno));
		return 2;
	}
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

static void parse_args(int argc, char **argv)
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
