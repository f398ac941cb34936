#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Per-user limits hold for a rootless container: the uids of a user
# namespace that uid 1000 made (five of them, mapped from a subuid range
# as newuidmap would, the last one registering from a namespace nested in
# it) share uid 1000's max_sections_per_user, however many they are, so
# they cannot take max_sections from another user.  With
# max_sections_per_user at 300 and room for 1000 more sections in all,
# the five together get at most 300 (were each uid its own user, they
# would get 1000 and leave nothing); uid 1000 itself, of the initial
# namespace, then gets none, and uid 2000 still registers.  A namespace
# root made is held to the per-user limit too: root is exempt only as
# uid 0 of the initial namespace.  The parameters are restored at the end.
# Skipped on kernels without user namespaces (CONFIG_USER_NS).
set -eu
case $SFU_ARCH in arm64) fx=aarch64 ;; *) fx=x86_64 ;; esac
fill=$SFU_TOP/build/e2e/$fx/userns-fill
p=/sys/module/sframe_unwind/parameters
d=/sys/kernel/debug/sframe_unwind
per_user=300
room=1000
owner=1000
other=2000
base=200000
count=5
fail() { echo "registry_user_namespaces: $*"; exit 1; }
mem() { awk -v k="$1" '$1 == k { print $2 }' $d/memory; }
# count WHAT: the "registered N" of the helper's lines starting with WHAT
count() { awk -v w="$1" '$1 == w { n += $(NF - ($NF == "nested")) } END { print n + 0 }' "$out"; }

[ -x "$fill" ] || fail "no $fill (tests/e2e/progs, built by scripts/run-e2e)"
out=$(mktemp)
old_sections=$(cat $p/max_sections)
old_per_user=$(cat $p/max_sections_per_user)
trap 'echo "$old_sections" > $p/max_sections; echo "$old_per_user" > $p/max_sections_per_user;
      rm -f "$out"' EXIT
echo $per_user > $p/max_sections_per_user
echo $(($(mem sections) + room)) > $p/max_sections

st=0
"$fill" $owner $other $base $count $room > "$out" || st=$?
cat "$out"
[ $st != 77 ] || exit 77
[ $st = 0 ] || fail "userns-fill failed (status $st)"

subuids=$(count subuid)
each=$(awk '$1 == "subuid" { printf "%s%d", s, $6; s = " " }' "$out")
echo "workload subuids of uid $owner ($count uids, one nested): $subuids sections ($each)," \
	"max_sections_per_user $per_user, room for $room"
echo "workload uid $owner itself: $(count owner), uid $other: $(count other)," \
	"root's namespace: $(count rootns)"

[ "$(grep -c '^subuid ' "$out")" = $count ] || fail "not every subuid ran"
[ "$subuids" -le $per_user ] ||
	fail "the $count uids of uid $owner's namespace got $subuids sections, more than $per_user"
# The first uid gets what uid 1000 has left: all of it but what its
# processes' own mappings may hold (a vDSO sidecar's section).
[ "$(awk '$1 == "subuid" && $2 == 0 { print $6 }' "$out")" -ge $((per_user - 2 * count)) ] ||
	fail "the first uid of the namespace got less than uid $owner's limit"
grep -q "^users uid $owner sections " "$out" || fail "uid $owner is not in the users file"
if grep -E "^users uid $base|^users uid $((base + 1))" "$out"; then
	fail "the namespace's uids were charged as users of their own"
fi
[ "$(count owner)" = 0 ] || fail "uid $owner registered beyond its limit, its namespace full"
[ "$(count other)" = 1 ] || fail "uid $other could not register: the global limit was taken"
[ "$(count rootns)" -gt 0 ] || fail "root's namespace registered nothing"
[ "$(count rootns)" -le $per_user ] ||
	fail "root's namespace got $(count rootns) sections, beyond max_sections_per_user"
