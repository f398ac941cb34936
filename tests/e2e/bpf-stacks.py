#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# bpf-stacks.py - a BCC program as BCC's own tools (profile.py) are written:
# a BPF program on a CPU-clock perf event on every CPU, sampling at HZ, takes
# the user stack of each sample of one process with both of BPF's stack
# helpers, bpf_get_stackid(BPF_F_USER_STACK) into a stack map and
# bpf_get_stack(BPF_F_USER_STACK) into a buffer, and counts the stacks;
# then the stacks are read back from the maps.  Used by bpf_ustack.sh.
#
#   bpf-stacks.py HZ
#
# Compiles and attaches the program once (BCC compiles it with clang
# against the running kernel's headers: the longest part, two to five
# minutes in a TCG guest), prints "ready", then serves one run per line
# read from standard input, "OUT PROG [ARGS...]": runs PROG with ARGS, its
# standard output to OUT, while sampling, and prints one line per distinct
# stack, "stackid COUNT IP..." or "stack COUNT IP..." (the addresses in
# hex, innermost first), "stackid-error COUNT ERRNO" or "stack-error COUNT
# ERRNO" for the samples a helper failed, "stackid-map N", the stacks the
# stack map holds, and last "end STATUS", PROG's exit status.  The maps are
# emptied before each run.  Between runs the
# caller may change what the kernel does (unload the module): the BPF
# program stays attached.
#
# Needs python3-bpfcc and the running kernel's headers
# (/lib/modules/$(uname -r)/build).

import ctypes
import subprocess
import sys

from bcc import BPF, PerfSWConfig, PerfType

# Stack entries bpf_get_stack() copies: more than the test programs' stacks
# have (chain-O2: 10 functions, then the C library's start code).
SLOTS = 32

TEXT = r"""
#include <uapi/linux/bpf_perf_event.h>

struct ustack {
	u64 ip[SLOTS];
};

BPF_ARRAY(target, u32, 1);
/*
 * A stack map keeps one stack per hash bucket, and a sample whose stack
 * falls in a bucket another stack holds gets EEXIST: many buckets, so
 * that the few hundred stacks of a run rarely meet.
 */
BPF_TABLE("stacktrace", int, struct ustack, stacks, 65536);
BPF_HASH(by_id, int, u64, 1024);
BPF_HASH(by_stack, struct ustack, u64, 1024);
BPF_HASH(stack_errors, long, u64, 64);
BPF_PERCPU_ARRAY(scratch, struct ustack, 1);

int on_sample(struct bpf_perf_event_data *ctx)
{
	int zero = 0;
	u32 *want = target.lookup(&zero);
	struct ustack *st;
	u64 one = 1, *n;
	long len;
	int id;

	/* 0 between runs: not the idle task's samples */
	if (!want || !*want || *want != bpf_get_current_pid_tgid() >> 32)
		return 0;

	id = stacks.get_stackid(ctx, BPF_F_USER_STACK);
	n = by_id.lookup(&id);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		by_id.update(&id, &one);

	st = scratch.lookup(&zero);
	if (!st)
		return 0;
	__builtin_memset(st, 0, sizeof(*st));
	len = bpf_get_stack(ctx, st->ip, sizeof(st->ip), BPF_F_USER_STACK);
	if (len < 0) {
		stack_errors.increment(len);
		return 0;
	}
	/* one task: never sampled on two CPUs at once */
	n = by_stack.lookup(st);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		by_stack.update(st, &one);
	return 0;
}
"""


def serve(b, line):
    words = line.split()
    stacks = b["stacks"]
    for name in ("by_id", "by_stack", "stack_errors"):
        b[name].clear()
    # BCC's clear() leaves a stack map as it is: stacks of earlier runs
    # would hold their buckets, and this run's stacks that fall there get
    # EEXIST.  The keys are taken first: a deleted key restarts the walk.
    for k in list(stacks.keys()):
        del stacks[k]
    left = len(list(stacks.keys()))
    if left:
        sys.exit("bpf-stacks.py: %d stacks left in the stack map" % left)
    with open(words[0], "w") as out:
        child = subprocess.Popen(words[1:], stdin=subprocess.DEVNULL, stdout=out)
        # Samples count from here: the process's start in the loader is
        # not what is measured.
        b["target"][ctypes.c_int(0)] = ctypes.c_uint32(child.pid)
        status = child.wait()
    b["target"][ctypes.c_int(0)] = ctypes.c_uint32(0)

    for k, v in b["by_id"].items():
        if k.value < 0:
            print("stackid-error %d %d" % (v.value, -k.value))
        else:
            ips = " ".join("%x" % ip for ip in stacks[k].ip if ip)
            print("stackid %d %s" % (v.value, ips))
    for k, v in b["by_stack"].items():
        ips = " ".join("%x" % ip for ip in k.ip if ip)
        print("stack %d %s" % (v.value, ips))
    for k, v in b["stack_errors"].items():
        print("stack-error %d %d" % (v.value, -k.value))
    print("stackid-map %d" % len(list(stacks.keys())))
    print("end %d" % status, flush=True)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bpf-stacks.py HZ")
    b = BPF(text=TEXT, cflags=["-DSLOTS=%d" % SLOTS])
    b.attach_perf_event(ev_type=PerfType.SOFTWARE,
                        ev_config=PerfSWConfig.CPU_CLOCK,
                        fn_name="on_sample", sample_freq=int(sys.argv[1]))
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip():
            serve(b, line)


if __name__ == "__main__":
    main()
