# SPDX-License-Identifier: GPL-2.0
# Shared shell helpers for the scripts in this directory.  Source it; it
# defines paths and small functions and runs nothing by itself.

SFU_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SFU_CACHE=${SFRAME_UNWIND_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sframe-unwind}
SFU_JOBS=${SFU_JOBS:-2}

sfu_die() { echo "${0##*/}: $*" >&2; exit 1; }
sfu_log() { echo "${0##*/}: $*" >&2; }

# Kernel architecture name (ARCH=) for a machine name, and back.
sfu_karch() {
	case $1 in
	x86_64|x86) echo x86_64 ;;
	arm64|aarch64) echo arm64 ;;
	*) sfu_die "unknown architecture '$1' (x86_64 or arm64)" ;;
	esac
}

sfu_cross() {
	case $1 in
	arm64) [ "$(uname -m)" = aarch64 ] || echo aarch64-linux-gnu- ;;
	x86_64) [ "$(uname -m)" = x86_64 ] || echo x86_64-linux-gnu- ;;
	esac
}

sfu_kimage() {
	case $1 in
	x86_64) echo arch/x86/boot/bzImage ;;
	arm64) echo arch/arm64/boot/Image ;;
	esac
}

# The Debian kernel source package the test kernels are built from.
SFU_KSRC_PKG=${SFU_KSRC_PKG:-linux-source-6.1}

sfu_ksrc_version() {
	dpkg-query -W -f='${Version}' "$SFU_KSRC_PKG" 2>/dev/null ||
		sfu_die "$SFU_KSRC_PKG is not installed (scripts/install-deps)"
}

# Extract the kernel source once per package version; print its path.
sfu_ksrc_dir() {
	local ver dir tarball
	ver=$(sfu_ksrc_version)
	dir=$SFU_CACHE/src/$SFU_KSRC_PKG-$ver
	if [ ! -f "$dir/.extracted" ]; then
		tarball=$(ls /usr/src/"$SFU_KSRC_PKG".tar.xz 2>/dev/null) ||
			sfu_die "no /usr/src/$SFU_KSRC_PKG.tar.xz"
		mkdir -p "$SFU_CACHE/src"
		(
			flock 9
			if [ ! -f "$dir/.extracted" ]; then
				sfu_log "extracting $tarball"
				rm -rf "$dir" "$dir.tmp"
				mkdir -p "$dir.tmp"
				tar -xJf "$tarball" -C "$dir.tmp" --strip-components=1
				touch "$dir.tmp/.extracted"
				mv "$dir.tmp" "$dir"
			fi
		) 9>"$SFU_CACHE/src/.lock"
	fi
	echo "$dir"
}

# The config fragments for an (arch, flavour) pair, in merge order.
sfu_fragments() {
	local arch=$1 flavour=$2 d=$SFU_TOP/scripts/kconfig
	echo "$d/common.config" "$d/$arch.config"
	[ "$flavour" = default ] || echo "$d/$flavour.config"
}

# Cache key: source version, arch, flavour and the fragments' contents.
sfu_kbuild_dir() {
	local arch=$1 flavour=$2 hash
	# shellcheck disable=SC2046
	hash=$( { echo "$arch $flavour $(sfu_ksrc_version)"; cat $(sfu_fragments "$arch" "$flavour"); } |
		sha256sum | cut -c1-12)
	echo "$SFU_CACHE/build/$SFU_KSRC_PKG-$(sfu_ksrc_version)-$arch-$flavour-$hash"
}

# Run a command with its stderr held back; show it only if the command fails.
sfu_quiet_on_success() {
	local err rc=0
	err=$(mktemp)
	"$@" 2>"$err" || rc=$?
	[ $rc = 0 ] || cat "$err" >&2
	rm -f "$err"
	return $rc
}

# Kernel-log lines that fail a guest run: warnings, bugs, oopses, lockdep,
# KASAN/UBSAN/kmemleak reports, hung tasks, RCU stalls, and vm-run's own
# module load/unload failure markers.
SFU_SPLAT_RE='WARNING:|BUG:|Oops|Kernel panic|general protection fault|Unable to handle kernel|UBSAN:|KASAN:|kmemleak: [0-9]+ new suspected|unreferenced object|INFO: task .* blocked|rcu: INFO|self-detected stall|sfu-vm: (insmod|rmmod) failed|sfu-vm: cannot mount'
