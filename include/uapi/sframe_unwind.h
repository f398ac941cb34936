/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * User-space ABI of the sframe_unwind module: ioctls on /dev/sframe_unwind.
 * Documented in Documentation/uapi.rst.
 */
#ifndef _UAPI_SFRAME_UNWIND_H
#define _UAPI_SFRAME_UNWIND_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SFU_IOC_MAGIC 0xb5

/**
 * struct sfu_register - a section for code without an ELF file (JIT, custom loader)
 * @sframe_addr: user address of the .sframe data in the caller's mm
 * @sframe_size: its size in bytes
 * @text_start: first byte of the code it describes
 * @text_end: first byte after that code
 * @flags: must be 0
 * @error: out: the decoder's error code (SFRAME_E_*) when refused, else 0
 *
 * Both ranges must be mapped in the caller's mm, the text range
 * executable.  The section is copied and validated at registration.
 */
struct sfu_register {
	__u64 sframe_addr;
	__u64 sframe_size;
	__u64 text_start;
	__u64 text_end;
	__u32 flags;
	__s32 error;
};

/**
 * enum sfu_frame_method - how the unwinder found a frame
 * @SFU_FRAME_REGS: the topmost frame, from the task's registers
 * @SFU_FRAME_SFRAME: from an SFrame row
 * @SFU_FRAME_FP: by following the frame-pointer chain
 * @SFU_FRAME_SIGNAL: the code a signal interrupted, from the registers the
 *	kernel saved in the signal frame below it
 */
enum sfu_frame_method {
	SFU_FRAME_REGS = 1,
	SFU_FRAME_SFRAME = 2,
	SFU_FRAME_FP = 3,
	SFU_FRAME_SIGNAL = 4,
};

/**
 * struct sfu_frame - one frame of an unwound user stack
 * @ip: the frame's instruction pointer (a return address but for frame 0)
 * @cfa: its canonical frame address, 0 when not known
 * @method: enum sfu_frame_method that found @ip
 * @reserved: 0
 */
struct sfu_frame {
	__u64 ip;
	__u64 cfa;
	__u32 method;
	__u32 reserved;
};

/* sfu_unwind.flags */
#define SFU_UNWIND_NOFAULT	0x1	/* no-fault reads only */
#define SFU_UNWIND_NO_SFRAME	0x2	/* frame pointers only */
#define SFU_UNWIND_NO_FP	0x4	/* SFrame only, no frame-pointer fallback */
/* SFU_IOC_UNWIND_TASK: @mem_fd is an fd on the target's /proc/PID/mem */
#define SFU_UNWIND_MEM_FD	0x100

/**
 * struct sfu_unwind - unwind a user stack
 * @frames: user pointer to an array of @max struct sfu_frame
 * @max: capacity of @frames (the depth limit of this unwind)
 * @nr: out: frames stored
 * @flags: SFU_UNWIND_*
 * @stop_reason: out: enum sfu_stop_reason (below)
 * @pid: SFU_IOC_UNWIND_TASK only: the thread to unwind (0 = caller)
 * @mem_fd: with SFU_UNWIND_MEM_FD (SFU_IOC_UNWIND_TASK only): an fd open
 *	for reading on /proc/PID/mem of the thread's process, opened since
 *	its last exec; it is what allows unwinding a thread of another
 *	process.  0 without the flag.
 * @reserved: the name @mem_fd had when it had to be 0
 */
struct sfu_unwind {
	__u64 frames;
	__u32 max;
	__u32 nr;
	__u32 flags;
	__s32 stop_reason;
	__u32 pid;
	union {
		__s32 mem_fd;
		__u32 reserved;
	};
};

#define SFU_IOC_REGISTER	_IOWR(SFU_IOC_MAGIC, 1, struct sfu_register)
#define SFU_IOC_UNREGISTER	_IOW(SFU_IOC_MAGIC, 2, struct sfu_register)
/* Unwind the caller's own user stack, as it was at the ioctl. */
#define SFU_IOC_UNWIND_SELF	_IOWR(SFU_IOC_MAGIC, 3, struct sfu_unwind)
/* Unwind another thread's user stack where it is interrupted in user space. */
#define SFU_IOC_UNWIND_TASK	_IOWR(SFU_IOC_MAGIC, 4, struct sfu_unwind)

/**
 * struct sfu_sidecar_request - a file the sidecar daemon is asked to convert
 * @timeout_ms: in: how long SFU_IOC_SIDECAR_NEXT waits for a request
 *	(0: not at all); at most 60000
 * @flags: in: 0
 * @fd: out: a new file descriptor (close-on-exec, read-only) on the very
 *	file that was mapped, opened without any path lookup
 * @uid: out: the user the mapping was charged to (in the initial user
 *	namespace: the real user behind a container)
 * @size: out: the file's size when it was opened
 * @build_id_len: out: bytes of @build_id
 * @why: out: SFU_SIDECAR_WHY_MISSING (no sidecar by that build-id) or
 *	SFU_SIDECAR_WHY_CONTENT (the one there, and any under the file's own
 *	digests, were made from other content: write it under its digest)
 * @build_id: out: the file's GNU build-id, read by the module from the
 *	file when it was mapped: it names the sidecar to write
 * @name: out: the last component of the file's name as it was mapped,
 *	NUL-terminated, for logs only (chosen by whoever made the file)
 */
struct sfu_sidecar_request {
	__u32 timeout_ms;
	__u32 flags;
	__s32 fd;
	__u32 uid;
	__u64 size;
	__u32 build_id_len;
	__u32 why;
	__u8 build_id[64];	/* SFU_SIDECAR_BUILD_ID_MAX */
	char name[64];
};

/* struct sfu_sidecar_request.why */
#define SFU_SIDECAR_WHY_MISSING	0
#define SFU_SIDECAR_WHY_CONTENT	1

/*
 * The sidecar daemon's calls (Documentation/uapi.rst), CAP_SYS_ADMIN only.
 * ATTACH makes this open file the daemon's (one at a time): from then on,
 * until it is closed, executable mappings of files with neither .sframe
 * nor a sidecar of their content are queued for it, once per file, of
 * the files its argument admits (below).  NEXT takes the
 * oldest.  RESCAN makes the module look for sidecars again for every file
 * it found none for, and scan the running processes, which so pick up the
 * sidecars written since.
 */
#define SFU_IOC_SIDECAR_ATTACH	_IO(SFU_IOC_MAGIC, 5)

/*
 * SFU_IOC_SIDECAR_ATTACH's argument (the ioctl's third argument itself,
 * not a pointer): which files are queued.  0: only regular files of the
 * initial user namespace's root that neither group nor others may write,
 * the daemon's own policy; the module refuses every other file before it
 * is queued or remembered (counted: sidecar_req_refused_owner).
 * SFU_SIDECAR_ATTACH_ANY_OWNER: files of any owner and mode (the daemon's
 * --any-owner).  Other bits: -EINVAL.
 */
#define SFU_SIDECAR_ATTACH_ANY_OWNER	0x1
#define SFU_SIDECAR_ATTACH_FLAGS	SFU_SIDECAR_ATTACH_ANY_OWNER
#define SFU_IOC_SIDECAR_NEXT	_IOWR(SFU_IOC_MAGIC, 6, struct sfu_sidecar_request)
#define SFU_IOC_SIDECAR_RESCAN	_IO(SFU_IOC_MAGIC, 7)

/**
 * enum sfu_stop_reason - why an unwind ended (struct sfu_unwind.stop_reason)
 * @SFU_STOP_NONE: not stopped (never returned)
 * @SFU_STOP_OUTERMOST: the SFrame data marks the outermost frame: a
 *	normal end
 * @SFU_STOP_FP_END: a zero frame pointer ends the chain: a normal end
 * @SFU_STOP_DEPTH: the frame limit was reached and the stack goes on
 * @SFU_STOP_BAD_CFA: a frame's CFA is not a possible stack address
 * @SFU_STOP_CFA_NOT_INCREASING: the CFA did not move up the stack
 * @SFU_STOP_BAD_RA: a return address is zero or not a user address
 * @SFU_STOP_FAULT: stack memory could not be read
 * @SFU_STOP_NO_INFO: no usable SFrame data for a PC, and no frame-pointer
 *	fallback allowed
 * @SFU_STOP_COMPAT: a 32-bit task that cannot be unwound further
 * @SFU_STOP_BAD_RULE: the SFrame data needs a register not known in
 *	that frame
 * @SFU_STOP_SIGNAL: a signal frame whose saved registers cannot be used
 * @SFU_STOP_NOT_USER: no user context to unwind
 * @SFU_STOP_RA_NOT_TEXT: a frame-pointer return address is not in
 *	executable memory
 * @SFU_STOP_RA_NOT_CALL: no call instruction ends at such an address
 * @SFU_STOP_RA_UNCHECKED: such an address could not be checked
 * @SFU_STOP_FP_SKIPS: a frame-pointer record would skip frames
 * @SFU_STOP_RA_OTHER_CALLEE: the call before such an address cannot have
 *	led to the frame above it
 * @SFU_STOP_FP_UNCONFIRMED: a frame found by frame pointers was dropped:
 *	the walk could not go on from it
 * @SFU_STOP_NR: number of reasons (not a reason)
 *
 * Documentation/unwinder.rst describes each one.  The values are part of
 * the user ABI and never change; new reasons are added before
 * SFU_STOP_NR.
 */
enum sfu_stop_reason {
	SFU_STOP_NONE,
	SFU_STOP_OUTERMOST,
	SFU_STOP_FP_END,
	SFU_STOP_DEPTH,
	SFU_STOP_BAD_CFA,
	SFU_STOP_CFA_NOT_INCREASING,
	SFU_STOP_BAD_RA,
	SFU_STOP_FAULT,
	SFU_STOP_NO_INFO,
	SFU_STOP_COMPAT,
	SFU_STOP_BAD_RULE,
	SFU_STOP_SIGNAL,
	SFU_STOP_NOT_USER,
	SFU_STOP_RA_NOT_TEXT,
	SFU_STOP_RA_NOT_CALL,
	SFU_STOP_RA_UNCHECKED,
	SFU_STOP_FP_SKIPS,
	SFU_STOP_RA_OTHER_CALLEE,
	SFU_STOP_FP_UNCONFIRMED,
	SFU_STOP_NR,
};

#endif /* _UAPI_SFRAME_UNWIND_H */
