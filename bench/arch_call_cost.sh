#!/bin/sh
# Per-call cost table and update latency for aarch64 and ppc64le under
# qemu-user (cross-built with clang-19 and the plugins of a build tree).
#   bench/arch_call_cost.sh [build-dir]      (default: build)
# Needs build/lib/<triple>/libdyncall.so (cmake/DynCallCross.cmake).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
plugins="$build/lib/dyncall"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for arch in aarch64 ppc64le; do
	case $arch in
	aarch64) triple=aarch64-linux-gnu ;;
	ppc64le) triple=powerpc64le-linux-gnu ;;
	esac
	lib="$build/lib/$triple"
	if [ ! -f "$lib/libdyncall.so" ] || ! command -v "qemu-$arch" >/dev/null; then
		echo "== $arch: skipped (no cross runtime or no qemu-$arch)"
		continue
	fi
	clang-19 --target=$triple -fuse-ld=lld -O2 \
		-fplugin="$plugins/dyncall_clang.so" \
		-fpass-plugin="$plugins/dyncall_llvm.so" -I"$src/include" \
		"$src/bench/arch_call_cost.c" -o "$tmp/$arch" \
		-L"$lib" -ldyncall -Wl,-rpath,"$lib"
	echo "== $arch (qemu-$arch $(qemu-$arch --version | sed -n '1s/.*version \([^ ]*\).*/\1/p'); ratios only)"
	"qemu-$arch" -L "/usr/$triple" "$tmp/$arch"
done
