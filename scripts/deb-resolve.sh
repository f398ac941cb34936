# SPDX-License-Identifier: GPL-2.0
# deb-resolve.sh - how the scripts that fetch Debian's kernel packages
# choose their versions (scripts/debian-image).  Source it after lib.sh; it
# defines functions and runs nothing.  tests/deb-resolve/run drives the same
# functions over recorded package lists, without the network.
#
# Every version is chosen as apt would choose it: scripts/deb-pick
# takes the highest version satisfying a relation, and each package after
# the first is found through the Depends field of the one chosen before it
# (the image's release names the headers; the headers name their -common
# part and the kbuild package).  No package is assumed to share another's
# version: a kbuild-only upload (linux-kbuild-6.1 at 6.1.192-3 while the
# headers stay at 6.1.192-2) is what the relation ">= 6.1.192-2" allows.
#
# pick LOOKUP ARCH RELATION: "name version" apt would choose for RELATION,
# among the versions LOOKUP (a command taking apt-cache's arguments) shows
# for ARCH (or all).
pick() {
	local look=$1 a=$2 rel=$3 names
	names=$(echo "$rel" | tr '|' '\n' | sed 's/^ *\([^ :(]*\).*/\1/')
	# shellcheck disable=SC2086
	$look show $names 2>/dev/null | "$SFU_TOP/scripts/deb-pick" --arch "$a" "$rel"
}

# depends LOOKUP ARCH NAME VERSION: NAME's Depends relations, one a line.
depends() {
	$1 show "$3" 2>/dev/null | "$SFU_TOP/scripts/deb-pick" --arch "$2" --depends "$3" --version "$4"
}

# headers_set HLOOK HARCH KLOOK RELEASE IMAGEVER: choose the headers of
# RELEASE (the image's version if there is one, else the highest), then
# their -common part (HLOOK) and their linux-kbuild package (KLOOK, amd64:
# its programs run on this host), each through the Depends of the headers.
# Sets hdr, hver, common, cver, kbuild and kver.
headers_set() {
	local hlook=$1 harch=$2 klook=$3 rel=$4 iver=$5 chosen deps r
	chosen=$(pick "$hlook" "$harch" "linux-headers-$rel (= $iver)" 2>/dev/null) ||
		chosen=$(pick "$hlook" "$harch" "linux-headers-$rel") || return 1
	read -r hdr hver <<< "$chosen"
	deps=$(depends "$hlook" "$harch" "$hdr" "$hver") || return 1
	common= kbuild=
	while read -r r; do
		case $r in
		linux-headers-*-common*)
			chosen=$(pick "$hlook" "$harch" "$r") || return 1
			read -r common cver <<< "$chosen"
			;;
		linux-kbuild-*)
			chosen=$(pick "$klook" amd64 "$r") || return 1
			read -r kbuild kver <<< "$chosen"
			;;
		esac
	done <<< "$deps"
	[ -n "$common" ] || { sfu_log "$hdr $hver depends on no -common package"; return 1; }
	[ -n "$kbuild" ] || { sfu_log "$hdr $hver depends on no linux-kbuild package"; return 1; }
}

# image_of_release LOOKUP ARCH RELEASE VERSION: "name version" of the
# image of RELEASE, at VERSION (the headers' version) where LOOKUP has it,
# else the highest version of that release.
image_of_release() {
	pick "$1" "$2" "linux-image-$3 (= $4)" 2>/dev/null || pick "$1" "$2" "linux-image-$3"
}

# image_of_meta LOOKUP ARCH META: "name version" of the image the highest
# version of the metapackage META (linux-image-amd64, -arm64) depends on.
image_of_meta() {
	local chosen rel
	chosen=$(pick "$1" "$2" "$3") || return 1
	# shellcheck disable=SC2086
	rel=$(depends "$1" "$2" $chosen | grep '^linux-image-' | head -n 1)
	[ -n "$rel" ] || { sfu_log "$chosen depends on no linux-image package"; return 1; }
	pick "$1" "$2" "$rel"
}
