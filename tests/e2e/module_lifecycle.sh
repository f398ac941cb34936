#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The module that vm-run loaded is live, exposes its debugfs files (with
# their modes), and can be unloaded and loaded again (twice) cleanly;
# vm-run's kernel-log check catches any warning the cycles cause, and its
# own rmmod the final unload.
set -eu
fail() { echo "module_lifecycle: $*"; exit 1; }

ko=$SFU_MODULE_DIR/sframe_unwind.ko
d=/sys/kernel/debug/sframe_unwind

[ -d /sys/module/sframe_unwind ] || fail "module not loaded"
want=$(cat /sys/module/sframe_unwind/version)
[ "$(cat $d/version)" = "$want" ] || fail "debugfs version '$(cat $d/version)' != '$want'"

# Files that list other users' processes, or change behaviour, are root's
# alone (Documentation/security.rst), should debugfs be mounted wider.
# The test build's knob is the test build's alone: the product has none.
files="sections:400 sidecar_queue:400 sampler:600 trigger:600 stats:444 version:444"
if [ "${SFU_MODULE_BUILD:-product}" = test ]; then
	files="$files remote_queue_always:600"
elif [ -e $d/remote_queue_always ]; then
	fail "the product build has the test build's debugfs remote_queue_always"
fi
for f in $files; do
	m=$(stat -c %a "$d/${f%%:*}") || fail "no debugfs file ${f%%:*}"
	[ "$m" = "${f#*:}" ] || fail "debugfs ${f%%:*} has mode $m, want ${f#*:}"
done

for i in 1 2; do
	"$SFU_TOP/tests/e2e/rmmod-retry" || fail "rmmod $i failed"
	[ ! -e /sys/module/sframe_unwind ] || fail "still present after rmmod $i"
	[ ! -e $d ] || fail "debugfs directory left behind after rmmod $i"
	insmod "$ko" || fail "insmod $i failed"
	[ "$(cat $d/version)" = "$want" ] || fail "debugfs version wrong after reload $i"
done
