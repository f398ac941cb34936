// SPDX-License-Identifier: GPL-2.0
/*
 * sidecar-flood - ELF files with build-ids of one's choosing, mapped
 * executable, for tests/e2e/sidecar_daemon.sh
 *
 *   sidecar-flood copy SRC OUT SALT   SRC with its GNU build-id changed by
 *                                     SALT (a number), written to OUT (0755)
 *   sidecar-flood map FILE            map FILE's first page executable, unmap
 *   sidecar-flood flood SRC DIR COUNT [SALT]
 *                                     COUNT copies of SRC, each with a build-id
 *                                     of its own (or all with SALT's), written
 *                                     into DIR one after another, mapped
 *                                     executable, unmapped and removed; prints
 *                                     "mapped COUNT"
 *
 * SRC must carry a GNU build-id note of at least 8 bytes; its first 8
 * bytes are replaced by SALT (copy, flood with SALT) or by the process id
 * and the copy's number (flood).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* SRC's bytes, and where its build-id is in them. */
static unsigned char *load(const char *src, size_t *len, size_t *id_off)
{
	const Elf64_Ehdr *eh;
	unsigned char *buf;
	struct stat s;
	int fd, i;

	fd = open(src, O_RDONLY);
	if (fd < 0 || fstat(fd, &s))
		die(src);
	buf = malloc(s.st_size);
	if (!buf || read(fd, buf, s.st_size) != s.st_size)
		die(src);
	close(fd);
	eh = (const Elf64_Ehdr *)buf;
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(buf + eh->e_phoff) + i;
		size_t p = ph->p_offset, end = ph->p_offset + ph->p_filesz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *n = (const Elf64_Nhdr *)(buf + p);
			size_t name = (n->n_namesz + 3) & ~3UL, desc = (n->n_descsz + 3) & ~3UL;

			if (n->n_type == NT_GNU_BUILD_ID && n->n_descsz >= 8) {
				*id_off = p + sizeof(*n) + name;
				*len = s.st_size;
				return buf;
			}
			p += sizeof(*n) + name + desc;
		}
	}
	fprintf(stderr, "%s: no GNU build-id of 8 bytes or more\n", src);
	exit(1);
}

static void write_file(const char *out, const unsigned char *buf, size_t len)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len || close(fd))
		die(out);
}

static void map(const char *file)
{
	int fd = open(file, O_RDONLY);
	void *p;

	if (fd < 0)
		die(file);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	munmap(p, 4096);
	close(fd);
}

int main(int argc, char **argv)
{
	size_t len, id;
	unsigned char *buf;
	unsigned long long salt;
	char path[4096];
	long i, n;

	if (argc == 5 && !strcmp(argv[1], "copy")) {
		buf = load(argv[2], &len, &id);
		salt = strtoull(argv[4], NULL, 0);
		memcpy(buf + id, &salt, sizeof(salt));
		write_file(argv[3], buf, len);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "map")) {
		map(argv[2]);
		return 0;
	}
	if ((argc != 5 && argc != 6) || strcmp(argv[1], "flood"))
		return 2;
	buf = load(argv[2], &len, &id);
	n = atol(argv[4]);
	for (i = 0; i < n; i++) {
		if (argc == 6)
			salt = strtoull(argv[5], NULL, 0);
		else
			salt = ((unsigned long long)getpid() << 32) | (unsigned long long)i;
		memcpy(buf + id, &salt, sizeof(salt));
		snprintf(path, sizeof(path), "%s/f%ld", argv[3], i);
		write_file(path, buf, len);
		map(path);
		unlink(path);
	}
	printf("mapped %ld\n", n);
	return 0;
}
