#!/bin/sh
# mkprefix.sh BUILD_DIR DEST: a fake installed prefix in DEST with the real
# install-tree dyncall-cc/dyncall-config, empty stand-in plugins and fake
# compilers in DEST/cc/ (clang-19, clang++, gcc-12, g++-11,
# aarch64-linux-gnu-gcc-12, powerpc64le-linux-gnu-gcc-12, cc), so the
# wrapper's logic is tested without
# the real plugins.
set -e
build=$1
dest=$2
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib/dyncall" "$dest/include/dyncall" "$dest/cc"
cp "$build/tools/install/dyncall-cc" "$build/tools/install/dyncall-config" "$dest/bin/"
cp "$build/tools/install/dyncall_tool.py" "$dest/lib/dyncall/"
for p in dyncall_clang.so dyncall_llvm.so dyncall_gcc.so dyncall_gcc11.so \
         dyncall_gcc-aarch64-linux-gnu.so; do
  : > "$dest/lib/dyncall/$p"
done
here=$(dirname "$0")
for c in clang-19 clang++ gcc-12 g++-11 aarch64-linux-gnu-gcc-12 \
         powerpc64le-linux-gnu-gcc-12 cc; do
  cp "$here/fake-compiler" "$dest/cc/$c"
  chmod +x "$dest/cc/$c"
done
