#!/usr/bin/env bash
# Fetch the unmodified sources of SQLite, Expat and TinyXML-2 through Debian's source
# packages, with a PRIVATE apt configuration (never touches /etc/apt):
#
#   build/realworld/apt/     sources.list (deb-src twin of the main archive
#                            entry of /etc/apt/sources.list.d/*.sources or
#                            /etc/apt/sources.list), lists/, cache/
#   build/realworld/src/     the downloaded .dsc/.orig/.debian files and the
#                            unpacked ORIG tarballs: src/sqlite3/, src/expat/, src/tinyxml2/
#
# Cached: when all trees are unpacked it does nothing. When the archive
# cannot be reached it prints one line `realworld: ... (skipped)` and exits 3
# (the lit tests then report UNSUPPORTED); any other failure exits 1.
#
# Usage: fetch.sh [SOURCE-PACKAGE...] (default: sqlite3 expat tinyxml2; the
# held-out programs of scripts/heldout/ name theirs).
#
# Environment: BUILD_DIR (default build), REALWORLD_SOURCES_FILE (the apt
# .sources/.list file to take the archive from; default: the system's).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
rw=$build/realworld
apt=$rw/apt
src=$rw/src
packages=("$@")
[ $# -gt 0 ] || packages=(sqlite3 expat tinyxml2)

skip() { echo "realworld: $* (skipped)"; exit 3; }
die() { echo "realworld: $*" >&2; exit 1; }

done_all=1
for p in "${packages[@]}"; do [ -f "$src/$p/.unpacked" ] || done_all=0; done
[ $done_all = 1 ] && exit 0

command -v apt-get >/dev/null || skip "no apt-get on this machine"

# --- the deb-src twin of the main archive entry --------------------------------
# (scripts/apt_archive_entry.py: the first deb entry not of a -security suite)
# shellcheck disable=SC2086  # (no file: the system's)
entry=$(python3 "$root/scripts/apt_archive_entry.py" --type deb-src ${REALWORLD_SOURCES_FILE:+"$REALWORLD_SOURCES_FILE"}) \
  || skip "no Debian archive entry found in /etc/apt (sources.list.d/*.sources, sources.list)"

# shellcheck source=../private-apt.sh
. "$root/scripts/private-apt.sh"
private_apt "$apt" "scripts/realworld/fetch.sh: deb-src twin of the main archive entry" <<< "$entry"
mkdir -p "$src"

if ! ls "$apt/lists/"*_Sources* >/dev/null 2>&1; then
  if ! apt-get "${aptopts[@]}" -q update > "$apt/update.log" 2>&1 \
      || ! ls "$apt/lists/"*_Sources* >/dev/null 2>&1; then
    rm -f "$apt/lists/"*_Sources* 2>/dev/null
    skip "cannot reach the Debian source archive ($entry); see $apt/update.log"
  fi
fi

cd "$src" || die "cannot enter $src"
for p in "${packages[@]}"; do
  [ -f "$src/$p/.unpacked" ] && continue
  if ! ls "$src/${p}_"*.dsc >/dev/null 2>&1; then
    if ! apt-get "${aptopts[@]}" -q source --download-only "$p" > "$apt/source-$p.log" 2>&1; then
      skip "cannot download the source package $p; see $apt/source-$p.log"
    fi
  fi
  orig=$(ls "$src/${p}_"*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n 1)
  [ -n "$orig" ] || die "no ORIG tarball of $p in $src"
  rm -rf "$src/$p.tmp" "$src/$p"
  mkdir -p "$src/$p.tmp"
  tar -xf "$orig" -C "$src/$p.tmp" || die "cannot unpack $orig"
  # The tarball holds one top directory (sqlite3-3.40.1/, expat-2.5.0/).
  top=$(find "$src/$p.tmp" -mindepth 1 -maxdepth 1)
  [ "$(echo "$top" | wc -l)" = 1 ] && [ -d "$top" ] || die "unexpected layout of $orig"
  mv "$top" "$src/$p" && rmdir "$src/$p.tmp"
  basename "$orig" > "$src/$p/.unpacked"
  echo "realworld: unpacked $(basename "$orig") into $src/$p"
done
exit 0
