#!/usr/bin/env bash
# Install what dyncall needs on Debian 12 (bookworm): Debian packages (as
# root; otherwise print the exact command and stop) and the Python packages
# of scripts/requirements.txt in a venv (default build/venv).
#
# Idempotent and quick when everything is there: nothing is downloaded then.
#   scripts/install-deps.sh [--venv DIR] [--no-apt] [--no-venv]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
venv="$root/build/venv"
do_apt=1
do_venv=1
while [ $# -gt 0 ]; do
  case $1 in
    --venv) venv=$2; shift 2 ;;
    --no-apt) do_apt=0; shift ;;
    --no-venv) do_venv=0; shift ;;
    *) echo "usage: $0 [--venv DIR] [--no-apt] [--no-venv]" >&2; exit 2 ;;
  esac
done

packages=(
  clang-19 llvm-19-dev llvm-19-tools lld-19 libclang-19-dev clang-format-19
  gcc-12-plugin-dev gcc-11 g++-11 gcc-11-plugin-dev
  gcc-aarch64-linux-gnu gcc-powerpc64le-linux-gnu
  g++-aarch64-linux-gnu g++-powerpc64le-linux-gnu
  gcc-12-plugin-dev-aarch64-linux-gnu gcc-12-plugin-dev-powerpc64le-linux-gnu
  qemu-user cmake ninja-build python3 python3-venv python3-pip make
  pkgconf tcl valgrind xz-utils libclang-rt-19-dev
)

say() { echo "install-deps: $*"; }

if [ "$do_apt" = 1 ]; then
  if ! command -v dpkg-query >/dev/null; then
    say "not a Debian system: install the equivalents of: ${packages[*]}" >&2
    exit 1
  fi
  missing=()
  for p in "${packages[@]}"; do
    if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
    if [ "$(id -u)" != 0 ]; then
      say "missing Debian packages: ${missing[*]}" >&2
      say "run as root, then run this again:" >&2
      echo "  $cmd" >&2
      exit 1
    fi
    say "installing ${missing[*]}"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

if [ "$do_venv" = 1 ]; then
  # Debian's python3 (with python3-venv) when present, else the first python3.
  py=/usr/bin/python3
  [ -x "$py" ] || py=$(command -v python3)
  if [ ! -x "$venv/bin/python" ]; then
    say "creating venv $venv"
    mkdir -p "$(dirname "$venv")"
    "$py" -m venv "$venv"
  fi
  if ! "$venv/bin/python" -c 'import lit, psutil, pytest, lief, capstone, numpy, elftools
assert lief.__version__.startswith("0.15.1"), lief.__version__' 2>/dev/null \
      || [ ! -x "$venv/bin/ruff" ] || [ ! -x "$venv/bin/lizard" ] \
      || [ "$("$venv/bin/mypy" --version 2>/dev/null | cut -d' ' -f2)" != 2.4.1 ]; then
    say "installing Python packages into $venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$here/requirements.txt"
  fi
fi
