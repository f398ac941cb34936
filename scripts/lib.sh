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

# Kernel versions: 6.1 (Debian 12's linux-source-6.1, an installed package,
# the default), 6.12 (Debian 13's linux-source-6.12) and newest (the
# highest-numbered linux-source-X.Y in sid).  The last two are fetched with
# a private apt configuration under $SFU_CACHE/apt-kernels (the system's apt
# configuration is not touched) and unpacked with dpkg-deb; the package
# lists are refreshed at most once a day.  Once unpacked, a tree stays the
# one selected ($SFU_CACHE/src/<version>.selected) until SFU_REFRESH=1.  sfu_kver_select sets
# SFU_KVER, SFU_KSRC_PKG and SFU_KSRC_VER; scripts call it once after
# parsing --version (default: $SFU_KVER from the environment, else 6.1).
SFU_KVER=${SFU_KVER:-6.1}
SFU_KSRC_PKG=
SFU_KSRC_VER=
SFU_KAPT=$SFU_CACHE/apt-kernels

sfu_mirror() {
	local m
	m=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	[ -n "$m" ] || m=$(awk '/^deb / { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
	echo "${m:-http://deb.debian.org/debian}"
}

# The security archive: the URI of the system's *-security suite.
sfu_security_mirror() {
	local m
	m=$(awk -v RS= '/Suites:[^\n]*-security/ {
		for (i = 1; i < NF; i++) if ($i == "URIs:") { print $(i + 1); exit } }' \
		/etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	[ -n "$m" ] || m=$(awk '/^deb .*-security/ { sub(/\[[^]]*\] */, ""); print $2; exit }' \
		/etc/apt/sources.list 2>/dev/null || true)
	echo "${m:-http://deb.debian.org/debian-security}"
}

# apt-get with a private configuration in a cache directory, for one
# architecture: the caller's sources.list there, and its own package lists
# and archive cache.  The system's apt sources, architectures and lists are
# not touched.
sfu_apt_private() { # dir arch apt-get-args...
	local dir=$1 arch=$2
	shift 2
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	apt-get -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache" \
		-o APT::Architecture="$arch" -o APT::Architectures="$arch" \
		-o APT::Sandbox::User=root "$@"
}

# apt-get/apt-cache with the private configuration.
sfu_kapt() { # apt-get|apt-cache args...
	local tool=$1
	shift
	"$tool" -o Dir::Etc::SourceList="$SFU_KAPT/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$SFU_KAPT/lists" -o Dir::Cache="$SFU_KAPT/cache" \
		-o Dir::State::Status=/dev/null -o APT::Architecture=amd64 \
		-o APT::Sandbox::User=root "$@"
}

# Refresh the private package lists when missing or older than a day; a
# failed refresh with lists already present goes on with them (offline).
sfu_kapt_update() {
	local key=/usr/share/keyrings/debian-archive-keyring.gpg mirror stamp
	mkdir -p "$SFU_KAPT"/lists/partial "$SFU_KAPT"/cache/archives/partial "$SFU_KAPT"/dl
	stamp=$SFU_KAPT/lists/.updated
	(
		flock 8
		if [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
			mirror=$(sfu_mirror)
			printf 'deb [arch=amd64 signed-by=%s] %s %s main\n' \
				"$key" "$mirror" trixie "$key" "$mirror" sid > "$SFU_KAPT/sources.list"
			if sfu_kapt apt-get -q update > "$SFU_KAPT/update.log" 2>&1; then
				touch "$stamp"
			elif [ -f "$stamp" ]; then
				sfu_log "apt-get update failed (see $SFU_KAPT/update.log); using older lists"
			else
				sfu_die "apt-get update failed: see $SFU_KAPT/update.log"
			fi
		fi
	) 8>"$SFU_KAPT/.lock"
}

sfu_kver_select() { # 6.1|6.12|newest
	case $1 in
	6.1)
		SFU_KSRC_PKG=linux-source-6.1
		SFU_KSRC_VER=$(dpkg-query -W -f='${Version}' "$SFU_KSRC_PKG" 2>/dev/null) ||
			sfu_die "$SFU_KSRC_PKG is not installed (scripts/install-deps)"
		;;
	6.12|newest)
		# The tree the cache already has is used as it is, even when
		# the archive has moved on (sid keeps one version of each
		# package); SFU_REFRESH=1 takes the archive's newest.
		if [ "${SFU_REFRESH:-0}" != 1 ] && [ -f "$SFU_CACHE/src/$1.selected" ]; then
			read -r SFU_KSRC_PKG SFU_KSRC_VER < "$SFU_CACHE/src/$1.selected"
			if [ -f "$SFU_CACHE/src/$SFU_KSRC_PKG-$SFU_KSRC_VER/.extracted" ]; then
				SFU_KVER=$1
				return 0
			fi
		fi
		sfu_kapt_update
		if [ "$1" = newest ]; then
			SFU_KSRC_PKG=$(sfu_kapt apt-cache pkgnames linux-source- |
				grep -E '^linux-source-[0-9]+\.[0-9]+$' | sort -V | tail -n 1)
			[ -n "$SFU_KSRC_PKG" ] || sfu_die "no linux-source-X.Y package in sid"
		else
			SFU_KSRC_PKG=linux-source-6.12
		fi
		SFU_KSRC_VER=$(sfu_kapt apt-cache show "$SFU_KSRC_PKG" |
			"$SFU_TOP/scripts/deb-pick" --arch amd64 "$SFU_KSRC_PKG" | cut -d' ' -f2)
		[ -n "$SFU_KSRC_VER" ] || sfu_die "no $SFU_KSRC_PKG package"
		;;
	*) sfu_die "unknown kernel version '$1' (6.1, 6.12 or newest)" ;;
	esac
	SFU_KVER=$1
}

# Select $SFU_KVER unless a script did already (in this shell: command
# substitutions would lose the selection).
sfu_kver_ensure() {
	[ -n "$SFU_KSRC_VER" ] || sfu_kver_select "$SFU_KVER"
}

sfu_ksrc_version() {
	sfu_kver_ensure
	echo "$SFU_KSRC_VER"
}

# The source tarball of the selected package: installed under /usr/src for
# 6.1, else downloaded and unpacked into a scratch directory.
sfu_ksrc_tarball() { # scratch-dir
	local deb
	if [ "$SFU_KVER" = 6.1 ]; then
		ls /usr/src/"$SFU_KSRC_PKG".tar.xz 2>/dev/null ||
			sfu_die "no /usr/src/$SFU_KSRC_PKG.tar.xz"
		return
	fi
	deb=$SFU_KAPT/dl/${SFU_KSRC_PKG}_${SFU_KSRC_VER}_all.deb
	if [ ! -f "$deb" ]; then
		sfu_log "downloading $SFU_KSRC_PKG $SFU_KSRC_VER"
		(cd "$SFU_KAPT/dl" && sfu_kapt apt-get -q download "$SFU_KSRC_PKG=$SFU_KSRC_VER" >/dev/null) ||
			sfu_die "cannot download $SFU_KSRC_PKG $SFU_KSRC_VER"
	fi
	dpkg-deb -x "$deb" "$1"
	ls "$1"/usr/src/"$SFU_KSRC_PKG".tar.* 2>/dev/null | head -n 1 ||
		sfu_die "$deb holds no source tarball"
	rm -f "$deb"	# the extracted tree is what is kept
}

# Extract the kernel source once per package version; print its path.
sfu_ksrc_dir() {
	local ver dir tarball
	sfu_kver_ensure
	ver=$SFU_KSRC_VER
	dir=$SFU_CACHE/src/$SFU_KSRC_PKG-$ver
	if [ ! -f "$dir/.extracted" ]; then
		mkdir -p "$SFU_CACHE/src"
		(
			flock 9
			if [ ! -f "$dir/.extracted" ]; then
				rm -rf "$dir" "$dir.tmp" "$dir.deb"
				mkdir -p "$dir.tmp" "$dir.deb"
				tarball=$(sfu_ksrc_tarball "$dir.deb")
				sfu_log "extracting $tarball"
				tar -xf "$tarball" -C "$dir.tmp" --strip-components=1
				rm -rf "$dir.deb"
				touch "$dir.tmp/.extracted"
				mv "$dir.tmp" "$dir"
			fi
		) 9>"$SFU_CACHE/src/.lock" || exit 1
	fi
	# Written whole by a rename: the prefetch's lanes read it at once.
	if [ "$SFU_KVER" != 6.1 ]; then
		echo "$SFU_KSRC_PKG $ver" > "$SFU_CACHE/src/$SFU_KVER.selected.$$"
		mv -f "$SFU_CACHE/src/$SFU_KVER.selected.$$" "$SFU_CACHE/src/$SFU_KVER.selected"
	fi
	echo "$dir"
}

# The config fragments for an (arch, flavour) pair, in merge order.
sfu_fragments() {
	local arch=$1 flavour=$2 d=$SFU_TOP/scripts/kconfig
	echo "$d/common.config" "$d/$arch.config"
	[ "$flavour" = default ] || echo "$d/$flavour.config"
	# Per-version adjustments (options renamed or gone), when there are any.
	[ ! -f "$d/version-$SFU_KVER.config" ] || echo "$d/version-$SFU_KVER.config"
}

# Cache key: source version, arch, flavour and the fragments' contents.
sfu_kbuild_dir() {
	local arch=$1 flavour=$2 hash
	sfu_kver_ensure
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
