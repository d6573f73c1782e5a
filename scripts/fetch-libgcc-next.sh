#!/usr/bin/env bash
# Fetch libgcc_s.so.1 of the next Debian release (trixie: GCC 14's libgcc,
# whose frame registry is a b-tree, not Debian 12's list) for amd64, arm64
# and ppc64el, so that the unwind tests also run against it
# (docs/prologues.md "Unwinding from a handler"; runtime/unwind.c).
# A private apt configuration under the build directory (never /etc/apt):
#
#   build/libgcc-next/apt/       sources.list (a `deb` entry for the next
#                                suite, from the main archive entry of
#                                /etc/apt: scripts/apt_archive_entry.py),
#                                lists/, cache/
#   build/libgcc-next/<arch>/    libgcc_s.so.1 (amd64, arm64, ppc64el) and
#                                .version (the package's)
#
# Cached: when every library is there it does nothing. When the archive
# cannot be reached it prints one line `libgcc-next: ... (skipped)` and
# exits 3 (the tests that need it are then UNSUPPORTED); any other failure
# exits 1.
#
# Environment: BUILD_DIR (default build), LIBGCC_NEXT_SUITE (default
# trixie).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
out=$build/libgcc-next
suite=${LIBGCC_NEXT_SUITE:-trixie}
arches=(amd64 arm64 ppc64el)

skip() { echo "libgcc-next: $* (skipped)"; exit 3; }
die() { echo "libgcc-next: $*" >&2; exit 1; }

done_all=1
for a in "${arches[@]}"; do [ -f "$out/$a/libgcc_s.so.1" ] || done_all=0; done
[ $done_all = 1 ] && exit 0

command -v apt-get >/dev/null || skip "no apt-get on this machine"
entry=$(python3 "$root/scripts/apt_archive_entry.py" --suite "$suite") \
  || skip "no Debian archive entry found in /etc/apt"

# shellcheck source=private-apt.sh
. "$root/scripts/private-apt.sh"
arch_list=$(IFS=,; echo "${arches[*]}")
private_apt "$out/apt" "scripts/fetch-libgcc-next.sh: the $suite suite of the main archive" \
  "APT::Architectures=$arch_list" <<< "$entry"

if ! ls "$out/apt/lists/"*_Packages* >/dev/null 2>&1; then
  if ! apt-get "${aptopts[@]}" -q update > "$out/apt/update.log" 2>&1 \
      || ! ls "$out/apt/lists/"*_Packages* >/dev/null 2>&1; then
    rm -f "$out/apt/lists/"*_Packages* 2>/dev/null
    skip "cannot reach $suite in the Debian archive ($entry); see $out/apt/update.log"
  fi
fi

debs=$out/apt/debs
mkdir -p "$debs"
for a in "${arches[@]}"; do
  [ -f "$out/$a/libgcc_s.so.1" ] && continue
  if ! ls "$debs"/libgcc-s1_*_"$a".deb >/dev/null 2>&1; then
    (cd "$debs" && apt-get "${aptopts[@]}" -q download "libgcc-s1:$a") \
      > "$out/apt/download-$a.log" 2>&1 \
      || skip "cannot download libgcc-s1:$a from $suite; see $out/apt/download-$a.log"
  fi
  deb=$(ls "$debs"/libgcc-s1_*_"$a".deb | head -n 1)
  rm -rf "$out/$a.tmp" && mkdir -p "$out/$a.tmp"
  dpkg-deb -x "$deb" "$out/$a.tmp" || die "cannot unpack $deb"
  lib=$(find "$out/$a.tmp" -name libgcc_s.so.1 | head -n 1)
  [ -n "$lib" ] || die "no libgcc_s.so.1 in $deb"
  mkdir -p "$out/$a"
  cp "$lib" "$out/$a/libgcc_s.so.1" && rm -rf "$out/$a.tmp"
  dpkg-deb -f "$deb" Version > "$out/$a/.version"
  echo "libgcc-next: libgcc_s.so.1 $(cat "$out/$a/.version") ($a) in $out/$a"
done
exit 0
