// SPDX-License-Identifier: GPL-2.0
/*
 * jit_register - how a JIT or a custom loader registers SFrame data for
 * code that has no ELF file behind it.
 *
 * It "emits" one function into executable memory, builds a one-function
 * SFrame V2 section describing it (PC-relative function start, one row:
 * CFA = SP + 8 and the return address at CFA - 8 on x86_64; CFA = SP with
 * the return address still in the link register on arm64, as at a
 * function's first instruction), and registers, looks at, and removes it
 * through /dev/sframe_unwind.  It also shows a refusal: a corrupted
 * section is rejected with the decoder's error code.
 *
 *   cc -O2 -o jit_register examples/jit_register.c -Iinclude/uapi
 *   ./jit_register            (needs the sframe_unwind module loaded)
 *
 * Exit status 0 when every step behaved as documented.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sframe_unwind.h"

#define FUNC_SIZE 64

/* A section of one FDE and one FRE; see Documentation/sframe-format.rst. */
struct __attribute__((packed)) one_function_sframe {
	/* header */
	uint16_t magic;		/* 0xdee2 */
	uint8_t version;	/* 2 */
	uint8_t flags;		/* FDE_SORTED | FDE_FUNC_START_PCREL */
	uint8_t abi_arch;	/* 3 AMD64, 2 AArch64 (little-endian) */
	int8_t cfa_fixed_fp_offset;
	int8_t cfa_fixed_ra_offset;	/* AMD64: -8; AArch64: 0 */
	uint8_t auxhdr_len;
	uint32_t num_fdes, num_fres, fre_len, fdeoff, freoff;
	/* FDE (V2: 20 bytes) */
	int32_t func_start;	/* from this field's own address (PCREL) */
	uint32_t func_size, fre_off, fre_num;
	uint8_t fde_info, rep_size;
	uint16_t padding;
	/* FRE: 1-byte start offset, info, one 1-byte data word */
	uint8_t fre_start, fre_info;
	int8_t cfa_offset;
};

static void build(struct one_function_sframe *s, const void *func)
{
	memset(s, 0, sizeof(*s));
	s->magic = 0xdee2;
	s->version = 2;
	s->flags = 0x1 | 0x4;
#ifdef __x86_64__
	s->abi_arch = 3;
	s->cfa_fixed_ra_offset = -8;
	s->cfa_offset = 8;		/* after the call: RA at SP, CFA = SP + 8 */
#else
	s->abi_arch = 2;
	s->cfa_offset = 0;		/* RA still in x30, CFA = SP */
#endif
	s->num_fdes = 1;
	s->num_fres = 1;
	s->fre_len = 3;
	s->fdeoff = 0;
	s->freoff = 20;
	s->func_start = (int32_t)((intptr_t)func - (intptr_t)&s->func_start);
	s->func_size = FUNC_SIZE;
	s->fre_num = 1;
	s->fde_info = 0;		/* FREs with 1-byte start offsets, PC increments */
	s->fre_info = 0x1 | (1 << 1);	/* CFA base SP, one 1-byte word */
}

/*
 * An argument the kernel cannot write the reason back into is refused
 * before anything changes: nothing is left registered to remove.
 * Return: 0 if so, 1 if not, -1 if the test could not be set up.
 */
static int read_only_argument(int fd, struct sfu_register *reg)
{
	struct sfu_register *ro;
	int err, failed = 0;

	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	memcpy(ro, reg, sizeof(*reg));
	mprotect(ro, 4096, PROT_READ);
	err = ioctl(fd, SFU_IOC_REGISTER, ro);
	printf("register, read-only argument: %s\n", err ? strerror(errno) : "ok");
	failed |= !(err && errno == EFAULT);
	err = ioctl(fd, SFU_IOC_UNREGISTER, reg);
	printf("unregister after it: %s\n", err ? strerror(errno) : "ok");
	failed |= !(err && errno == ENOENT);
	munmap(ro, 4096);
	return failed;
}

int main(void)
{
	struct one_function_sframe *sec;
	struct sfu_register reg = { 0 };
	unsigned char *text;
	int fd, err, failed = 0;

	fd = open("/dev/sframe_unwind", O_RDWR);
	if (fd < 0) {
		perror("/dev/sframe_unwind (is the module loaded?)");
		return 2;
	}
	/* The "JIT": executable memory, filled with the code it generates. */
	text = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sec = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (text == MAP_FAILED || sec == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	memset(text, 0xc3, FUNC_SIZE);	/* stands for generated code */
	build(sec, text);

	reg.sframe_addr = (uintptr_t)sec;
	reg.sframe_size = sizeof(*sec);
	reg.text_start = (uintptr_t)text;
	reg.text_end = (uintptr_t)text + FUNC_SIZE;
	err = ioctl(fd, SFU_IOC_REGISTER, &reg);
	printf("register: %s (error %d)\n", err ? strerror(errno) : "ok", reg.error);
	failed |= err != 0;

	err = ioctl(fd, SFU_IOC_UNREGISTER, &reg);
	printf("unregister: %s\n", err ? strerror(errno) : "ok");
	failed |= err != 0;
	err = ioctl(fd, SFU_IOC_UNREGISTER, &reg);
	printf("unregister again: %s\n", err ? strerror(errno) : "ok");
	failed |= !(err && errno == ENOENT);

	/* A corrupted section is refused, with the decoder's reason. */
	sec->magic = 0x1234;
	err = ioctl(fd, SFU_IOC_REGISTER, &reg);
	printf("register corrupted: %s (error %d: SFRAME_E_BAD_MAGIC is 2)\n",
	       err ? strerror(errno) : "ok", reg.error);
	failed |= !(err && errno == ENOEXEC && reg.error == 2);

	build(sec, text);
	err = read_only_argument(fd, &reg);
	if (err < 0)
		return 2;
	failed |= err;

	close(fd);
	return failed;
}
