#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Sidecars (Documentation/sidecars.rst): chain.c without its .sframe
# (chain-O2.nosframe) is unwound exactly from the sidecar named after its
# build-id, made here from the program's own section (tests/e2e/
# make-sidecar); without sidecars it has no information and the walk
# stops.  Every refusal stops it too and is counted: a sidecar writable by
# group, owned by another user, reached through a symbolic link, in a
# directory writable by others or reached through a link to one, or
# carrying another build-id, or made from other content than the file's
# (its content digest: a build-id is copied into any file by anyone),
# which leaves the sidecar bound to the file's content, beside it under
# its digest, to be used all the same.  A process of a user who may not enter the
# directory gets its sidecar all the same (looked up with the rights of
# whoever set sidecar_dir), and root's process after it too.  A mount namespace that puts its own
# sidecars over the directory changes nothing: the directory is looked up
# where root named it.  A file with its own .sframe uses its sidecar only
# for the PCs its own rows do not cover.  The vDSO gets the rows of its
# sidecar, unless the process wrote to it.  x86_64 only: it runs
# tools/sframe-gen in the guest, and the fixtures' dynamic chain-O2.
. ./unwind-lib

if [ "$arch" != x86_64 ]; then
	echo "x86_64 only: it runs sframe-gen and the dynamic chain-O2 fixture: skip"
	exit 77
fi
param=/sys/module/sframe_unwind/parameters/sidecar_dir
dbg=/sys/kernel/debug/sframe_unwind
stat() { awk -v k="$1" '$1 == k { print $2 }' $dbg/stats; }
bad() { echo "FAILED: $*"; fail=1; }
# listed PID REGEX: a section line of PID in the sections file matches REGEX
listed() {
	re=$2 awk -v p="$1" '$1 == "mm" { on = $2 == p } on && $0 ~ ENVIRON["re"] { f = 1 }
		END { exit !f }' $dbg/sections
}
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
sc=$(python3 "$SFU_TOP/tests/e2e/make-sidecar" --for "$prog" "$orig" "$dir") || exit 1
[ "$(cat $param)" = /var/lib/sframe-unwind ] || bad "sidecar_dir default: $(cat $param)"

echo "" > $param
run chain --expect stop --at body "$prog"

# A file with no sidecar under its build-id's name is not digested: the
# names under a digest are written only beside that one, so a mapping
# does not read the file's CFI to look for them (the tree before took a
# digest of every file without a sidecar at its first mapping).
empty=$(mktemp -d /tmp/sidecars.XXXXXX)
chmod 755 "$empty"
echo "$empty" > $param
before=$(stat sidecar_digests)
run chain --expect stop --at body "$prog"
[ "$(stat sidecar_digests)" = "$before" ] ||
	bad "a file without a sidecar was digested (sidecar_digests $before -> $(stat sidecar_digests))"
rmdir "$empty"

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
b[136 + 28:] = bytes(len(b) - 136 - 28); open(sys.argv[1], 'wb').write(b)" "$f"
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

# The directories on the way are checked too: the sidecar's own
# directory writable by others, or a symbolic link to a directory.
scdir=$(dirname "$sc")
chmod 777 "$scdir"
echo "$dir" > $param
expect sidecar_refused_path run chain --expect stop --at body "$prog"
chmod 755 "$scdir"
mv "$scdir" "$scdir.real"
ln -s "$scdir.real" "$scdir"
echo "$dir" > $param
expect sidecar_refused_path run chain --expect stop --at body "$prog"
rm "$scdir"
mv "$scdir.real" "$scdir"

# Looked up with the rights of whoever set sidecar_dir, not of the task
# that maps the file: a process of nobody's, who may not enter the
# directory, gets the rows, and so does root's process after it (a
# refusal of nobody's would have been remembered as "no sidecar").
chmod 700 "$dir"
echo "$dir" > $param
before=$(stat sidecar_used)
setpriv --reuid=65534 --regid=65534 --clear-groups "$prog" 0 > /dev/null &
spin=$!
i=0
until listed $spin ' chain-O2\.nosframe sidecar$'; do
	i=$((i + 1))
	[ $i -le 50 ] || { bad "nobody's process got no sidecar from a directory it cannot enter"; break; }
	sleep 0.1
done
kill $spin
wait $spin 2> /dev/null
[ "$(stat sidecar_used)" -gt "$before" ] || bad "sidecar_used did not go up for nobody's process"
run chain --at body "$prog"
chmod 755 "$dir"

python3 "$SFU_TOP/tests/e2e/make-sidecar" --build-id 0123456789abcdef0123456789abcdef01234567 \
	--for "$prog" "$orig" "$dir" > /dev/null
echo "$dir" > $param
expect sidecar_refused_build_id run chain --expect stop --at body "$prog"

# The file's own .sframe wins for every PC it has an FDE for: a sidecar
# whose rows are valid but 64 bytes off breaks the file without .sframe
# (the baseline), and changes nothing for the file with it, although the
# module reads it for what the own section lacks (sidecar_extra).
python3 "$SFU_TOP/tests/e2e/make-sidecar" --shift 64 --for "$prog" "$orig" "$dir" > /dev/null
python3 "$SFU_TOP/tests/e2e/make-sidecar" --shift 64 --digest-name "$orig" "$dir" > /dev/null
echo "$dir" > $param
if "$check" chain --at body "$prog" > /dev/null 2>&1; then
	bad "a sidecar with rows 64 bytes off unwound $prog exactly"
else
	echo "ok a sidecar with rows 64 bytes off breaks $prog"
fi
expect sidecar_extra run chain --at body "$orig"
run chain --at body --nofault "$orig"

# A sidecar is bound to its file's content: the one under the build-id's
# name, made from the file with .sframe, is refused for the file without
# (same build-id, other bytes), whose walk stops; with a sidecar bound to
# that file beside it, under its digest, the file is unwound exactly, and
# the other keeps its own.
python3 "$SFU_TOP/tests/e2e/make-sidecar" "$orig" "$dir" > /dev/null
echo "$dir" > $param
expect sidecar_refused_content run chain --expect stop --at body "$prog"
python3 "$SFU_TOP/tests/e2e/make-sidecar" --for "$prog" --digest-name "$orig" "$dir" > /dev/null
echo "$dir" > $param
expect sidecar_refused_content run chain --at body "$prog"
run chain --at body --nofault "$prog"
expect sidecar_extra run chain --at body "$orig"
echo "ok a sidecar of other content is refused, and one bound to the file beside it used"

# The vDSO: listed with the rows of its sidecar once it has one, not before.
vdso_listed() { # PID: the sections of PID list the vDSO
	listed "$1" ' \[vdso\] sidecar$'
}
sleep 30 &
pid=$!
sleep 0.5
vdso_listed $pid && bad "the vDSO is listed without a sidecar"
kill $pid
"$SFU_TOP/tools/sframe-gen" --install --cache "$dir" --vdso > /dev/null || bad "sframe-gen --vdso"
echo "$dir" > $param
before=$(stat sidecar_vdso)
reused=$(stat vdso_reused)
sleep 30 &
pid=$!
i=0
until vdso_listed $pid; do
	i=$((i + 1))
	[ $i -le 50 ] || { bad "the vDSO is not listed with its sidecar"; break; }
	sleep 0.1
done
kill $pid
[ "$(stat sidecar_vdso)" -gt "$before" ] || bad "sidecar_vdso did not go up"
# The image read for the process before, without a sidecar, is the one
# whose digest the sidecar is checked against: the same kernel pages.
[ "$(stat vdso_reused)" -gt "$reused" ] || bad "vdso_reused did not go up"
echo "ok the vDSO has the rows of its sidecar, from the image read before"

# Processes already running get the vDSO's rows when sidecar_dir is
# written; but not one that wrote to its vDSO (its pages copied on write).
echo "" > $param
sleep 120 &
other=$!
python3 - > /tmp/vdso-writer.out 2>&1 << 'PY' &
import ctypes, mmap, time
libc = ctypes.CDLL(None, use_errno=True)
start = next(int(l.split('-')[0], 16) for l in open('/proc/self/maps') if l.rstrip().endswith('[vdso]'))
prot = mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC
if libc.mprotect(ctypes.c_void_p(start), mmap.PAGESIZE, prot) == 0:
    b = ctypes.c_char.from_address(start + 8)
    b.value = b.value
else:
    # Some kernels refuse to make it writable: write as ptrace would.
    # 7.2 refuses that too (EIO): nothing writes its vDSO there.
    try:
        with open('/proc/self/mem', 'r+b', buffering=0) as m:
            m.seek(start + 8)
            c = m.read(1)
            m.seek(start + 8)
            m.write(c)
    except OSError as e:
        print('sealed', e, flush=True)
        time.sleep(120)
        raise SystemExit(0)
print('written', flush=True)
time.sleep(120)
PY
pid=$!
i=0
until grep -q 'written\|sealed' /tmp/vdso-writer.out; do
	i=$((i + 1))
	[ $i -le 100 ] || { bad "the vDSO writer did not start: $(cat /tmp/vdso-writer.out)"; break; }
	sleep 0.1
done
vdso_listed $other && bad "the vDSO is listed with sidecar_dir empty"
echo "$dir" > $param
vdso_listed $other || bad "a running process did not get the vDSO's rows from the rescan"
if grep -q sealed /tmp/vdso-writer.out; then
	echo "ok no vDSO written to: the kernel refuses it ($(cat /tmp/vdso-writer.out))"
else
	vdso_listed $pid && bad "a vDSO written to is listed with its sidecar"
	echo "ok a vDSO written to gets no rows"
fi
kill $pid $other
wait 2> /dev/null

echo /var/lib/sframe-unwind > $param
rm -rf "$dir" /tmp/sidecars.evil
exit $fail
