#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The sidecar daemon's system call filters on this kernel and this arch
# (tools/sframe-unwindd-sandbox.c), call by call, each in a process of
# its own (tests/sidecars/filter-check.c, built static for the guest):
# the converter's allow-list lets it write to its pipe, map memory that is
# not executable and fail readlink() with EACCES, and kills it for a write
# to any other descriptor, open, socket, fork, an executable mapping and
# getpid; the fetcher's deny-list lets it make threads, sockets and open
# files, and kills it for fork, clone into a namespace, execve, unshare,
# ptrace, bpf and userfaultfd.  The host checks the same on x86_64
# (tests/sidecars/run); this is where arm64's numbers and audit arch are
# checked.  Without the filters, seven cases of each fail (the broken
# baseline, run too).
. ./unwind-lib

fc=$e2e/filter-check
# /proc/PID/status has a Seccomp line only where the kernel has seccomp
# (the test kernels' arm64 configuration does not): there the daemon's
# children convert nothing (Documentation/security.rst).
if ! grep -q '^Seccomp:' /proc/self/status; then
	echo "this kernel has no seccomp (CONFIG_SECCOMP): skip"
	exit 77
fi
[ -x "$fc" ] || { echo "FAILED: no $fc: run-e2e builds tests/e2e/progs"; exit 1; }
fail=0
for f in converter fetcher; do
	if out=$("$fc" $f); then
		echo "workload $f: $(echo "$out" | grep -c '^ok') cases as they must be"
	else
		echo "FAILED: $f:"
		echo "$out" | sed 's/^/    /'
		fail=1
	fi
	n=$("$fc" $f none | grep -c '^FAIL')
	echo "workload $f without its filter: $n cases not as they must be"
	[ "$n" = 7 ] || { echo "FAILED: $f without its filter: $n cases failed, want 7"; fail=1; }
done
exit $fail
