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
 * @reserved: 0
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
	__u32 reserved;
	__u8 build_id[64];	/* SFU_SIDECAR_BUILD_ID_MAX */
	char name[64];
};

/*
 * The sidecar daemon's calls (Documentation/uapi.rst), CAP_SYS_ADMIN only.
 * ATTACH makes this open file the daemon's (one at a time): from then on,
 * until it is closed, executable mappings of files with neither .sframe
 * nor a sidecar are queued for it, once per build-id.  NEXT takes the
 * oldest.  RESCAN makes the module look for sidecars again for every file
 * it found none for, and scan the running processes, which so pick up the
 * sidecars written since.
 */
#define SFU_IOC_SIDECAR_ATTACH	_IO(SFU_IOC_MAGIC, 5)
#define SFU_IOC_SIDECAR_NEXT	_IOWR(SFU_IOC_MAGIC, 6, struct sfu_sidecar_request)
#define SFU_IOC_SIDECAR_RESCAN	_IO(SFU_IOC_MAGIC, 7)

/**
 * enum sfu_stop_reason - why an unwind ended
 * @SFU_STOP_NONE: not stopped (internal; never returned)
 * @SFU_STOP_OUTERMOST: an SFrame row marks the outermost frame (return
 *	address undefined): the stack ends here, a normal end
 * @SFU_STOP_FP_END: the frame-pointer chain ends with a zero frame pointer,
 *	the ABI's marker of the outermost frame: a normal end
 * @SFU_STOP_DEPTH: the frame limit was reached (the caller's @max or the
 *	max_depth module parameter) and the stack goes on
 * @SFU_STOP_BAD_CFA: the computed CFA is below the stack pointer (or equal
 *	to it where the architecture does not allow that), misaligned, or
 *	outside user space
 * @SFU_STOP_CFA_NOT_INCREASING: the CFA did not move up the stack from the
 *	previous frame's: a cycle or corrupt data
 * @SFU_STOP_BAD_RA: the return address is zero or not a user address
 * @SFU_STOP_FAULT: stack memory could not be read (in no-fault mode this
 *	includes pages that are not present)
 * @SFU_STOP_NO_INFO: no usable SFrame row for the PC (no section, no
 *	function, bad or unreadable section data) and the frame-pointer
 *	fallback is not allowed
 * @SFU_STOP_COMPAT: a compat (32-bit) task, which has no SFrame unwinding,
 *	and the frame-pointer walk it would need is not allowed or not
 *	supported on this architecture
 * @SFU_STOP_BAD_RULE: the row needs a register only the topmost frame has
 *	(including an AArch64 return address still in the link register)
 *	in a deeper frame, or a register the architecture cannot supply
 * @SFU_STOP_SIGNAL: a signal frame (V3 SFrame signal FDE) whose saved
 *	registers cannot be used: a compat task, or an architecture without
 *	the hook
 * @SFU_STOP_NOT_USER: there is no user context to unwind (kernel thread,
 *	no mm, registers not from user mode)
 * @SFU_STOP_RA_NOT_TEXT: a return address found without an SFrame row
 *	(the frame-pointer fallback) is not in executable user memory: the
 *	page-table entry of its call instruction's last byte is not
 *	user-executable, or nothing is mapped there
 * @SFU_STOP_RA_NOT_CALL: such a return address is in executable memory,
 *	but no call instruction ends there
 * @SFU_STOP_RA_UNCHECKED: such a return address could not be checked: its
 *	page is not present (no-fault unwinds) or its instruction bytes could
 *	not be read
 * @SFU_STOP_FP_SKIPS: the frame-pointer fallback found a frame record
 *	above a word of the frame that is itself a return address (in text,
 *	after a call): the frame pointer is not the frame's, and its record
 *	would skip frames
 * @SFU_STOP_RA_OTHER_CALLEE: the direct call before such a return address
 *	goes to code that cannot have led to the frame it would return from
 *	(a stale return address in a frame without frame pointers)
 * @SFU_STOP_FP_UNCONFIRMED: a frame the frame-pointer fallback found was
 *	dropped, because the step out of it failed: a caller is reported
 *	only where the walk can go on from it (or the stack ends there), so
 *	that a stale frame record does not become a frame
 * @SFU_STOP_NR: number of reasons (not a reason)
 *
 * Values are part of the user ABI (struct sfu_unwind.stop_reason and the
 * stop reasons of the trace events).
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
