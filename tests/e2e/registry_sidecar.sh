#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Sidecars (Documentation/sidecars.rst): chain.c without its .sframe
# (chain-O2.nosframe) is unwound exactly from the sidecar named after its
# build-id, made here from the program's own section (tests/e2e/
# make-sidecar); without sidecars it has no information and the walk
# stops.  Every refusal stops it too and is counted: a sidecar writable by
# group, owned by another user, reached through a symbolic link, or
# carrying another build-id.  A mount namespace that puts its own
# sidecars over the directory changes nothing: the directory is looked up
# where root named it.  A file with its own .sframe never reads its
# sidecar.  x86_64 only (the arm64 guest has no python3 to make sidecars).
. ./unwind-lib

if [ "$arch" != x86_64 ]; then
	echo "skip: sidecars are made with python3, which the arm64 guest lacks"
	exit 0
fi
param=/sys/module/sframe_unwind/parameters/sidecar_dir
dbg=/sys/kernel/debug/sframe_unwind
stat() { awk -v k="$1" '$1 == k { print $2 }' $dbg/stats; }
bad() { echo "FAILED: $*"; fail=1; }
# expect COUNTER CMD...: CMD runs and COUNTER goes up
expect() {
	c=$1
	shift
	before=$(stat "$c")
	"$@"
	[ "$(stat "$c")" -gt "$before" ] || bad "$c did not go up ($before) for: $*"
}

prog=$(fixture v3 chain-O2.nosframe) || exit 1
orig=$(fixture v3 chain-O2) || exit 1
dir=$(mktemp -d /tmp/sidecars.XXXXXX)
chmod 755 "$dir"
sc=$(python3 "$SFU_TOP/tests/e2e/make-sidecar" "$orig" "$dir") || exit 1
[ "$(cat $param)" = /var/lib/sframe-unwind ] || bad "sidecar_dir default: $(cat $param)"

echo "" > $param
run chain --expect stop --at body "$prog"

echo "$dir" > $param
expect sidecar_used run chain --at body "$prog"
run chain --at body --nofault "$prog"
run chain --at entry "$prog"
"$prog" 0 > /dev/null &
spin=$!
i=0
until grep -q " chain-O2.nosframe sidecar$" $dbg/sections; do
	i=$((i + 1))
	[ $i -le 50 ] || { bad "sections lists no sidecar"; break; }
	sleep 0.1
done
kill $spin
wait $spin 2> /dev/null

# A namespace's own sidecars over the directory: not looked at.
mkdir -p /tmp/sidecars.evil
cp -a "$dir/." /tmp/sidecars.evil/
for f in /tmp/sidecars.evil/*/*.sframe; do
	python3 -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); \
b[104 + 28:] = bytes(len(b) - 104 - 28); open(sys.argv[1], 'wb').write(b)" "$f"
done
echo "$dir" > $param
unshare -m sh -c "mount --bind /tmp/sidecars.evil '$dir' && '$check' chain --at body '$prog'" ||
	bad "unwind in a mount namespace with its own sidecars failed"
echo "ok chain --at body in a mount namespace with other sidecars"

chmod 664 "$sc"
echo "$dir" > $param
expect sidecar_refused_owner run chain --expect stop --at body "$prog"
chmod 644 "$sc"

chown 1000 "$sc"
echo "$dir" > $param
expect sidecar_refused_owner run chain --expect stop --at body "$prog"
chown 0 "$sc"

mv "$sc" "$sc.real"
ln -s "$sc.real" "$sc"
echo "$dir" > $param
expect sidecar_refused_open run chain --expect stop --at body "$prog"
rm "$sc"
mv "$sc.real" "$sc"

python3 "$SFU_TOP/tests/e2e/make-sidecar" --build-id 0123456789abcdef0123456789abcdef01234567 \
	"$orig" "$dir" > /dev/null
echo "$dir" > $param
expect sidecar_refused_build_id run chain --expect stop --at body "$prog"

# The file's own .sframe wins: its sidecar (now a lying one) is not read.
before=$(stat sidecar_refused_build_id)
run chain --at body "$orig"
[ "$(stat sidecar_refused_build_id)" = "$before" ] || bad "a file with .sframe read its sidecar"

echo /var/lib/sframe-unwind > $param
rm -rf "$dir" /tmp/sidecars.evil
exit $fail
