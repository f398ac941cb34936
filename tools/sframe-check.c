// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-check - validate, dump and query the SFrame section of an ELF file
 * with the same decoder the kernel module uses.
 *
 *   sframe-check [--dump] [--no-validate] ELF
 *   sframe-check --lookup ADDR... [--no-validate] ELF
 *   sframe-check [--dump | --lookup ADDR...] --raw FILE --vaddr ADDR --abi ABI
 *
 * ELF mode reads the PT_GNU_SFRAME segment of an ELF64 little-endian
 * x86_64 or aarch64 file (the bytes a process maps; sframe_vaddr is
 * p_vaddr).  --raw reads a bare section.  ADDR is hex; "--lookup -" reads
 * addresses from stdin, one per line.
 *
 * Exit status: 0 valid, 1 refused (the error name is printed), 2 usage or
 * I/O error, or no PT_GNU_SFRAME.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kernel.h>

#include "sframe/sframe.h"
#include "tools/sframe_user.h"

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

struct options {
	bool dump;
	bool lookup;
	bool no_validate;
	const char *raw;
	const char *vaddr;
	const char *abi;
	const char *file;
	char **addrs;
	int num_addrs;
};

static const char *prog = "sframe-check";

static noreturn void print_usage(void)
{
	fprintf(stderr,
		"usage: %s [--dump] [--no-validate] ELF\n"
		"       %s --lookup ADDR... [--no-validate] ELF\n"
		"       %s [--dump | --lookup ADDR...] [--no-validate] --raw FILE --vaddr ADDR --abi x86_64|aarch64|any\n"
		"ADDR is hex; --lookup - reads addresses from stdin\n",
		prog, prog, prog);
	exit(2);
}

static noreturn void fail_io(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static bool parse_hex(const char *s, u64 *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtoull(s, &end, 16);
	return !errno && !*end;
}

/* Map a whole file read-only; a zero-length file maps to an empty buffer. */
static const u8 *map_file(const char *path, u64 *size)
{
	struct stat st;
	void *p;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		fail_io("%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0)
		fail_io("%s: %s", path, strerror(errno));
	*size = st.st_size;
	if (!st.st_size) {
		close(fd);
		return (const u8 *)"";
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		fail_io("%s: %s", path, strerror(errno));
	close(fd);
	return p;
}

/* ELF64 field at @off, little-endian. */
static u64 elf_get(const u8 *p, u64 off, unsigned int bytes)
{
	u64 v = 0;

	while (bytes--)
		v = (v << 8) | p[off + bytes];
	return v;
}

/* ELF64 header and program header fields used here. */
#define EH_MACHINE	18	/* u16 */
#define EH_PHOFF	32	/* u64 */
#define EH_PHENTSIZE	54	/* u16 */
#define EH_PHNUM	56	/* u16 */
#define EH_SIZE		64
#define PH_TYPE		0	/* u32 */
#define PH_OFFSET	8	/* u64 */
#define PH_VADDR	16	/* u64 */
#define PH_FILESZ	32	/* u64 */
#define PH_SIZE		56

/* Find PT_GNU_SFRAME; the reader gets its file bytes, *vaddr its p_vaddr. */
static void elf_sframe(const char *path, struct sfu_sframe_reader *r, u64 *vaddr, int *abi)
{
	u64 size, phoff, phentsize, phnum, ph, off, filesz, i;
	const u8 *map;

	map = map_file(path, &size);
	if (size < EH_SIZE || memcmp(map, ELFMAG, SELFMAG))
		fail_io("%s: not an ELF file", path);
	if (map[EI_CLASS] != ELFCLASS64 || map[EI_DATA] != ELFDATA2LSB)
		fail_io("%s: not an ELF64 little-endian file", path);
	switch (elf_get(map, EH_MACHINE, 2)) {
	case EM_X86_64:
		*abi = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
		break;
	case EM_AARCH64:
		*abi = SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
		break;
	default:
		fail_io("%s: machine %llu is neither x86_64 nor aarch64", path,
			elf_get(map, EH_MACHINE, 2));
	}
	phoff = elf_get(map, EH_PHOFF, 8);
	phentsize = elf_get(map, EH_PHENTSIZE, 2);
	phnum = elf_get(map, EH_PHNUM, 2);
	if (phentsize < PH_SIZE || phoff > size || phnum * phentsize > size - phoff)
		fail_io("%s: bad program header table", path);

	for (i = 0; i < phnum; i++) {
		ph = phoff + i * phentsize;
		if (elf_get(map, ph + PH_TYPE, 4) != SFRAME_PT_GNU_SFRAME)
			continue;
		off = elf_get(map, ph + PH_OFFSET, 8);
		filesz = elf_get(map, ph + PH_FILESZ, 8);
		if (off > size || filesz > size - off)
			fail_io("%s: PT_GNU_SFRAME beyond the end of the file", path);
		r->kind = SFRAME_READER_BUFFER;
		r->buf = map + off;
		r->size = filesz;
		*vaddr = elf_get(map, ph + PH_VADDR, 8);
		return;
	}
	fail_io("%s: no PT_GNU_SFRAME", path);
}

static void raw_sframe(const struct options *o, struct sfu_sframe_reader *r, u64 *vaddr, int *abi)
{
	u64 size;
	u8 *copy;

	if (!o->vaddr || !parse_hex(o->vaddr, vaddr))
		print_usage();
	if (!o->abi)
		print_usage();
	if (!strcmp(o->abi, "x86_64"))
		*abi = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	else if (!strcmp(o->abi, "aarch64"))
		*abi = SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
	else if (!strcmp(o->abi, "any"))
		*abi = 0;
	else
		print_usage();

	/* An exact-size heap copy, so that sanitizers see any overread. */
	r->buf = map_file(o->raw, &size);
	copy = malloc(size ? size : 1);
	if (!copy)
		fail_io("out of memory");
	memcpy(copy, r->buf, size);
	r->kind = SFRAME_READER_BUFFER;
	r->buf = copy;
	r->size = size;
}

static const char *abi_name(u8 abi)
{
	return abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE ? "x86_64" : "aarch64";
}

static void print_flag_names(u8 flags)
{
	const char *sep = "";

	if (flags & SFRAME_F_FDE_SORTED) {
		printf("%sFDE_SORTED", sep);
		sep = "|";
	}
	if (flags & SFRAME_F_FRAME_POINTER) {
		printf("%sFRAME_POINTER", sep);
		sep = "|";
	}
	if (flags & SFRAME_F_FDE_FUNC_START_PCREL) {
		printf("%sFDE_FUNC_START_PCREL", sep);
		sep = "|";
	}
	if (flags & SFRAME_F_SFU_SAVED_REGS) {
		printf("%sSFU_SAVED_REGS", sep);
		sep = "|";
	}
	if (flags & SFRAME_F_SFU_CFA_ADDEND) {
		printf("%sSFU_CFA_ADDEND", sep);
		sep = "|";
	}
	if (flags & SFRAME_F_SFU_INJECTED_CALLS) {
		printf("%sSFU_INJECTED_CALLS", sep);
		sep = "|";
	}
	if (flags & SFRAME_F_SFU_NARROW_INDEX)
		printf("%sSFU_NARROW_INDEX", sep);
}

/* The header part of objdump --sframe (binutils trunk). */
static void dump_header(const struct sfu_sframe_section *sec)
{
	const char *prefix = "Flags: ";
	u8 flags = sec->flags;

	printf("Contents of the SFrame section .sframe:\n  Header :\n\n");
	printf("    Version: SFRAME_VERSION_%u\n", sec->version);
	if (!flags)
		printf("%11sNONE\n", prefix);
	if (flags & SFRAME_F_FDE_SORTED) {
		flags &= ~SFRAME_F_FDE_SORTED;
		printf("%11s%s%s\n", prefix, "SFRAME_F_FDE_SORTED", flags ? "," : "");
		prefix = " ";
	}
	if (flags & SFRAME_F_FRAME_POINTER) {
		flags &= ~SFRAME_F_FRAME_POINTER;
		printf("%11s%s%s\n", prefix, "SFRAME_F_FRAME_POINTER", flags ? "," : "");
		prefix = " ";
	}
	if (flags & SFRAME_F_FDE_FUNC_START_PCREL) {
		flags &= ~SFRAME_F_FDE_FUNC_START_PCREL;
		printf("%11s%s%s\n", prefix, "SFRAME_F_FDE_FUNC_START_PCREL", flags ? "," : "");
		prefix = " ";
	}
	/* sframe-unwind's own extensions: no objdump prints them. */
	if (flags & SFRAME_F_SFU_SAVED_REGS) {
		flags &= ~SFRAME_F_SFU_SAVED_REGS;
		printf("%11s%s%s\n", prefix, "SFRAME_F_SFU_SAVED_REGS", flags ? "," : "");
		prefix = " ";
	}
	if (flags & SFRAME_F_SFU_CFA_ADDEND) {
		flags &= ~SFRAME_F_SFU_CFA_ADDEND;
		printf("%11s%s%s\n", prefix, "SFRAME_F_SFU_CFA_ADDEND", flags ? "," : "");
		prefix = " ";
	}
	if (flags & SFRAME_F_SFU_INJECTED_CALLS) {
		flags &= ~SFRAME_F_SFU_INJECTED_CALLS;
		printf("%11s%s%s\n", prefix, "SFRAME_F_SFU_INJECTED_CALLS", flags ? "," : "");
		prefix = " ";
	}
	if (flags & SFRAME_F_SFU_NARROW_INDEX)
		printf("%11s%s\n", prefix, "SFRAME_F_SFU_NARROW_INDEX");
	if (sec->cfa_fixed_fp_offset)
		printf("    CFA fixed FP offset: %d\n", sec->cfa_fixed_fp_offset);
	if (sec->cfa_fixed_ra_offset)
		printf("    CFA fixed RA offset: %d\n", sec->cfa_fixed_ra_offset);
	printf("    Num FDEs: %u\n", sec->num_fdes);
	printf("    Num FREs: %u\n", sec->num_fres);
}

/* Print one row in objdump's columns from sfu_sframe_row_format()'s text. */
static void dump_row(const struct sfu_sframe_row *row, u64 startpc)
{
	char text[SFRAME_ROW_FORMAT_MAX], ra[40];
	char *cfa, *fp, *rest;

	printf("\n    %016llx", startpc);
	sfu_sframe_row_format(row, text, sizeof(text));
	if (row->flags & SFRAME_ROW_OUTERMOST) {
		printf("  %s", text);
		return;
	}
	cfa = strtok_r(text, " ", &rest);
	fp = strtok_r(NULL, " ", &rest);
	snprintf(ra, sizeof(ra), "%s%s", rest,
		 (row->flags & SFRAME_ROW_RA_MANGLED) ? "" : "   ");
	/*
	 * objdump's columns; one that fills its width ("(sp+16)+64", with
	 * sframe-unwind's CFA addend) gets a space after it, to stay apart.
	 */
	printf("  %-10s%s%-10s%s%-13s", cfa, strlen(cfa) >= 10 ? " " : "", fp,
	       strlen(fp) >= 10 ? " " : "", ra);
}

static int dump(const struct sfu_sframe_section *sec)
{
	struct sfu_sframe_row row;
	struct sfu_sframe_fde fde;
	const char *attr;
	u32 i, j;
	u64 pos;
	int err;

	dump_header(sec);
	printf("\n  Function Index :\n");
	for (i = 0; i < sec->num_fdes; i++) {
		err = sfu_sframe_fde_get(sec, i, &fde);
		if (err)
			goto bad;
		printf("\n    func idx [%u]: pc = 0x%llx, size = %u bytes", i, fde.func_start,
		       fde.func_size);
		if (fde.info & SFRAME_V3_FDE_INFO_SIGNAL)
			attr = fde.type == SFRAME_FDE_TYPE_FLEX ? "SF" : "S";
		else
			attr = fde.type == SFRAME_FDE_TYPE_FLEX ? "F" : "";
		if (*attr)
			printf(", attr = \"%s\"", attr);
		if (fde.info & SFRAME_FDE_INFO_PAUTH_KEY_B)
			printf(", pauth = B key");
		/* sframe-unwind's extension: entered by an injected call. */
		if (fde.info2 & SFRAME_V3_FDE_INFO2_SFU_INJECTED)
			printf(", injected call");
		/* And: its rows list no saved registers. */
		if (fde.info2 & SFRAME_V3_FDE_INFO2_SFU_NO_SAVES)
			printf(", no saves");
		printf("\n    %-7s%-8s %-10s%-10s%-13s", "STARTPC", fde.pcmask ? "[m]" : "   ",
		       "CFA", "FP", "RA");
		pos = fde.fres_off;
		for (j = 0; j < fde.num_fres; j++) {
			err = sfu_sframe_fre_next(sec, &fde, &pos, &row);
			if (err)
				goto bad;
			dump_row(&row, fde.pcmask ? row.fre_start : row.start);
		}
		printf("\n");
	}
	return 0;
bad:
	printf("\n");
	fflush(stdout);
	fprintf(stderr, "%s: FDE %u: %s\n", prog, i, sfu_sframe_strerror(err));
	return 1;
}

static int lookup_one(const struct sfu_sframe_section *sec, u64 pc)
{
	char text[SFRAME_ROW_FORMAT_MAX];
	struct sfu_sframe_row row;
	int err;

	err = sfu_sframe_find_row(sec, pc, &row);
	if (err == -SFRAME_E_NO_FDE || err == -SFRAME_E_NO_FRE) {
		printf("%llx -\n", pc);
		return 0;
	}
	if (err) {
		printf("%llx error %s\n", pc, sfu_sframe_strerror(err));
		return 1;
	}
	sfu_sframe_row_format(&row, text, sizeof(text));
	printf("%llx %s%s%s\n", pc, text,
	       (row.flags & SFRAME_ROW_INJECTED_CALL) ? " injected" : "",
	       (sec->flags & SFRAME_F_SFU_SAVED_REGS) && !(row.flags & SFRAME_ROW_SAVED_REGS) ?
	       " no-saves" : "");
	return 0;
}

static int lookup(const struct sfu_sframe_section *sec, const struct options *o)
{
	char line[128];
	int i, ret = 0;
	u64 pc;

	for (i = 0; i < o->num_addrs; i++) {
		if (strcmp(o->addrs[i], "-")) {
			if (!parse_hex(o->addrs[i], &pc))
				fail_io("bad address '%s'", o->addrs[i]);
			ret |= lookup_one(sec, pc);
			continue;
		}
		while (fgets(line, sizeof(line), stdin)) {
			line[strcspn(line, " \t\r\n")] = 0;
			if (!*line)
				continue;
			if (!parse_hex(line, &pc))
				fail_io("bad address '%s'", line);
			ret |= lookup_one(sec, pc);
		}
	}
	return ret;
}

enum {
	OPT_DUMP = 256,
	OPT_LOOKUP,
	OPT_NO_VALIDATE,
	OPT_RAW,
	OPT_VADDR,
	OPT_ABI,
};

static const struct option long_options[] = {
	{ "dump", no_argument, NULL, OPT_DUMP },
	{ "lookup", no_argument, NULL, OPT_LOOKUP },
	{ "no-validate", no_argument, NULL, OPT_NO_VALIDATE },
	{ "raw", required_argument, NULL, OPT_RAW },
	{ "vaddr", required_argument, NULL, OPT_VADDR },
	{ "abi", required_argument, NULL, OPT_ABI },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Option @c of getopt_long(), @arg its value. */
static void parse_option(struct options *o, int c, char *arg)
{
	switch (c) {
	case OPT_DUMP:
		o->dump = true;
		break;
	case OPT_LOOKUP:
		o->lookup = true;
		break;
	case OPT_NO_VALIDATE:
		o->no_validate = true;
		break;
	case OPT_RAW:
		o->raw = arg;
		break;
	case OPT_VADDR:
		o->vaddr = arg;
		break;
	case OPT_ABI:
		o->abi = arg;
		break;
	case 'h':
		/* The usage, on stderr with status 2, as for a mistake. */
	default:
		print_usage();
	}
}

static void parse_args(int argc, char **argv, struct options *o)
{
	static char *pos[4096];
	int c, at, n = 0;

	/* No message of getopt's own: every mistake gets the usage. */
	opterr = 0;
	for (;;) {
		at = optind;
		/* "-": the file and addresses come in order, as options do (c == 1). */
		c = getopt_long(argc, argv, "-h", long_options, NULL);
		if (c == -1)
			break;
		if (c != 1) {
			parse_option(o, c, optarg);
			continue;
		}
		if (n == (int)ARRAY_SIZE(pos))
			fail_io("too many arguments (use --lookup -)");
		pos[n++] = optarg;
	}
	/* Where getopt_long() stopped early, at "--": a mistake, as any other. */
	if (at < argc)
		print_usage();
	if (o->dump && o->lookup)
		print_usage();
	if (!o->raw) {
		if (!n)
			print_usage();
		o->file = pos[--n];
	}
	if (o->lookup ? !n : n)
		print_usage();
	o->addrs = pos;
	o->num_addrs = n;
}

int main(int argc, char **argv)
{
	struct sfu_sframe_reader r = { 0 };
	struct sfu_sframe_section sec;
	struct options o = { 0 };
	const char *name;
	int abi, err;
	u64 vaddr;

	parse_args(argc, argv, &o);
	if (o.raw)
		raw_sframe(&o, &r, &vaddr, &abi);
	else
		elf_sframe(o.file, &r, &vaddr, &abi);
	name = o.raw ? o.raw : o.file;

	err = sfu_sframe_section_init(&sec, &r, vaddr, abi);
	if (err) {
		printf("%s: refused: %s (header)\n", name, sfu_sframe_strerror(err));
		err = 1;
	} else if (!o.no_validate) {
		err = sfu_sframe_section_validate(&sec);
		if (err) {
			printf("%s: refused: %s (validation)\n", name, sfu_sframe_strerror(err));
			err = 1;
		}
	}
	if (err) {
		if (o.raw)
			free((void *)r.buf);
		return err;
	}
	if (o.dump) {
		err = dump(&sec);
	} else if (o.lookup) {
		/*
		 * What the kernel does with a validated copy.  Without
		 * validation a section the index cannot walk is looked up
		 * without one: its long functions then give NO_INDEX.
		 */
		err = sfu_sframe_fre_index_alloc(&sec);
		if (err && !o.no_validate) {
			printf("%s: refused: %s (FRE index)\n", name, sfu_sframe_strerror(err));
			err = 1;
		} else {
			err = lookup(&sec, &o);
		}
		sfu_sframe_fre_index_free(&sec);
	} else {
		printf("%s: SFrame version %u, abi %s, flags 0x%02x (", name, sec.version,
		       abi_name(sec.abi), sec.flags);
		print_flag_names(sec.flags);
		printf("), %u FDEs, %u FREs, %llu of %llu bytes: %s\n", sec.num_fdes,
		       sec.num_fres, sec.fre_end, r.size, o.no_validate ? "header ok" : "valid");
	}
	if (o.raw)
		free((void *)r.buf);
	return err;
}
