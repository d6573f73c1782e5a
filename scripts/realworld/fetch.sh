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
# deb822 (.sources): the first stanza with Types: deb whose suites are not a
# -security suite; one-line format (.list) as a fallback.
files=()
if [ -n "${REALWORLD_SOURCES_FILE:-}" ]; then files=("$REALWORLD_SOURCES_FILE")
else
  for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && files+=("$f")
  done
fi
entry=$(python3 - "${files[@]}" <<'PY'
import sys
def stanzas(text):
    cur = {}
    key = None
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        if not line.strip():
            if cur:
                yield cur
            cur, key = {}, None
        elif line[0] in " \t" and key:
            cur[key] += " " + line.strip()
        elif ":" in line:
            key, val = line.split(":", 1)
            key = key.strip().lower()
            cur[key] = val.strip()
    if cur:
        yield cur
for path in sys.argv[1:]:
    text = open(path).read()
    if path.endswith(".sources"):
        for s in stanzas(text):
            if "deb" not in s.get("types", "").split() or s.get("enabled", "yes") == "no":
                continue
            suites = [x for x in s.get("suites", "").split() if not x.endswith("-security")]
            if not suites or "uris" not in s:
                continue
            opts = f" [signed-by={s['signed-by']}]" if "signed-by" in s else ""
            uri = s["uris"].split()[0]
            comps = s.get("components", "main")
            for su in suites:
                print(f"deb-src{opts} {uri} {su} {comps}")
            sys.exit(0)
    else:
        for line in text.splitlines():
            w = line.split("#", 1)[0].split()
            if len(w) >= 3 and w[0] == "deb":
                rest = w[1:]
                opts = ""
                if rest[0].startswith("["):
                    i = next(i for i, t in enumerate(rest) if t.endswith("]"))
                    opts = " " + " ".join(rest[: i + 1])
                    rest = rest[i + 1 :]
                if len(rest) >= 2 and not rest[1].endswith("-security"):
                    print(f"deb-src{opts} {' '.join(rest)}")
                    sys.exit(0)
sys.exit(1)
PY
) || skip "no Debian archive entry found in /etc/apt (sources.list.d/*.sources, sources.list)"

mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d" "$src"
printf '# written by scripts/realworld/fetch.sh: deb-src twin of the main archive entry\n%s\n' \
  "$entry" > "$apt/sources.list"
aptopts=(
  -o "Dir::Etc::sourcelist=$apt/sources.list"
  -o "Dir::Etc::sourceparts=$apt/sources.list.d"
  -o "Dir::State::Lists=$apt/lists"
  -o "Dir::Cache=$apt/cache"
  -o "Dir::Cache::archives=$apt/cache/archives"
  -o "Debug::NoLocking=1"
  -o "APT::Sandbox::User=$(id -un)"
  -o "Acquire::Retries=2"
  -o "Acquire::http::Timeout=20"
)

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
