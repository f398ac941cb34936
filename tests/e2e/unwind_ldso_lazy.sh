#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Through ld.so's lazy-binding trampoline: lazy-ifunc calls an IFUNC symbol
# of libsfu-ifunc.so through its PLT (-z lazy), so the resolver runs inside
# _dl_fixup under _dl_runtime_resolve_*, whose CFA is rbx + 32, and unwinds
# its own stack there (SFU_IOC_UNWIND_SELF).  With sidecars that say where
# frames save rbx (tools/sframe-gen, SFRAME_F_SFU_SAVED_REGS) for the
# program, its library, libc and ld.so, the chain must be exactly
#   lazy_target_resolve _dl_fixup _dl_runtime_resolve_* main
#   __libc_start_call_main __libc_start_main* _start, stop outermost;
# with sidecars made without them (sframe-gen --no-saved-regs) it must stop
# at the trampoline with bad_rule, as it did before.  Frames are named by
# addr2line with Debian's libc6-dbg symbols for ld.so and libc.  x86_64
# only.
arch=$(uname -m)
if [ "$arch" != x86_64 ]; then
	echo "x86_64 only: it reads x86_64 ld.so's lazy-binding trampolines: skip"
	exit 77
fi
prog=$SFU_TOP/build/e2e/$arch/lazy-ifunc
gen=$SFU_TOP/tools/sframe-gen
param=/sys/module/sframe_unwind/parameters/sidecar_dir
fail=0
cd /tmp || exit 1
if [ ! -x "$prog" ]; then
	echo "FAILED: no $prog: run tests/e2e/prepare on the host first"
	exit 1
fi

# enum sfu_stop_reason, as tests/e2e/sfu-stack-check.c names it
stop_name() {
	set -- "$1" none outermost fp_end depth bad_cfa cfa_not_increasing bad_ra fault no_info \
		compat bad_rule signal not_user
	shift $(($1 + 1))
	echo "${1:-?}"
}

# chain [SFRAME-GEN-ARGS...]: "NAME... stop REASON" of one run of lazy-ifunc
chain() {
	sc=$(mktemp -d /tmp/sfu-lazy.XXXXXX)
	chmod 755 "$sc"
	libs=$(ldd "$prog" | awk '/=>/ { print $3 } /ld-linux/ { print $1 }' | sort -u)
	# shellcheck disable=SC2086
	"$gen" --install --cache "$sc" "$@" "$prog" $libs > /dev/null || echo "sframe-gen failed"
	echo "$sc" > $param
	"$prog" > /tmp/lazy-ifunc.out 2>&1 || echo "lazy-ifunc failed: $(cat /tmp/lazy-ifunc.out)"
	echo /var/lib/sframe-unwind > $param
	rm -rf "$sc"
	stop=
	while read -r ip file off; do
		if [ "$ip" = stop ]; then
			stop=$(stop_name "$file")
			continue
		fi
		# The function itself, not what was inlined into it (elf_ifunc_invoke)
		name=$(addr2line -f -i -e "$file" "$off" 2> /dev/null |
			awk 'NR % 2 == 1 { n = $0 } END { print n }')
		printf '%s ' "${name:-?$ip}"
	done < /tmp/lazy-ifunc.out
	echo "stop $stop"
}

# expect WHAT CHAIN WANT: the trampoline's variant (xsavec, xsave, fxsave:
# the CPU's) and __libc_start_main's alias are left out of the comparison
expect() {
	got=$(echo "$2" | sed 's/_dl_runtime_resolve_[a-z]* /_dl_runtime_resolve_* /;
		s/__libc_start_main[a-zA-Z0-9_@.]* /__libc_start_main* /')
	if [ "$got" = "$3" ]; then
		echo "ok $1: $2"
	else
		echo "FAILED: $1: $2"
		echo "    want: $3"
		fail=1
	fi
}

expect "with rbx saves" "$(chain)" "lazy_target_resolve _dl_fixup _dl_runtime_resolve_* main \
__libc_start_call_main __libc_start_main* _start stop outermost"
expect "without rbx saves" "$(chain --no-saved-regs)" \
	"lazy_target_resolve _dl_fixup _dl_runtime_resolve_* stop bad_rule"
rm -f /tmp/lazy-ifunc.out
exit $fail
