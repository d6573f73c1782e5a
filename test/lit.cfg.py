# ruff: noqa: F821  (lit provides config and lit_config)
# lit configuration of the dyncall suite.
#
# Run through the configured site file of a build:  lit -sv build/test
# (or `make check`, which also runs the rewriter's pytest suite).
#
# Substitutions (a contract every test relies on; see docs/tools.md):
#   %clang %clangxx %cc %gcc %gxx          the bare compilers
#   %dyncall_clang %dyncall_clangxx        clang-19 + attribute plugin + pass plugin + -I
#   %dyncall_clang_attr                    clang-19 + attribute plugin only + -I
#   %dyncall_gcc %dyncall_gxx              gcc-12 + dyncall_gcc.so + -I
#   %dyncall_cc %dyncall_config %dyncall_rewrite   build/bin tools
#   %libdyncall_cflags %libdyncall_ldflags %libdyncall_static
#   %plugin_dir %build_dir %src_root %python
#   %qemu_aarch64 %qemu_ppc64le            qemu-user with the cross sysroot
# Features: x86_64, qemu-aarch64, qemu-ppc64le, gcc-plugin, gcc11-plugin,
#   gcc-plugin-aarch64, gcc-plugin-ppc64le, dyncall-runtime-aarch64,
#   dyncall-runtime-ppc64le, lld, lief, dyncall-clang-plugin,
#   dyncall-pass, dyncall-runtime, dyncall-rewrite, valgrind, mdwe, ruff, clang-format, mypy, lizard,
#   realworld-sources (SQLite and Expat unpacked by scripts/realworld/fetch.sh,
#   which make check runs before lit), realworld-tinyxml2 (TinyXML-2, same),
#   libgcc-next-{amd64,arm64,ppc64el} (the next Debian release's libgcc_s.so.1,
#   GCC 14's b-tree frame registry: scripts/fetch-libgcc-next.sh, also run by
#   make check; %libgcc_next_x86_64 %libgcc_next_aarch64 %libgcc_next_ppc64le
#   are their directories).
# The plugin and rewriter features follow the build's components (top-level
# DYNCALL_ENABLE_LLVM/GCC/REWRITER): the tests of a component not built are
# UNSUPPORTED.

import os
import platform
import shutil
import subprocess

import lit.formats

if not hasattr(config, "dyncall_build_dir"):
    lit_config.fatal(
        "run the suite through a build's site config: lit -sv build/test (or make check)"
    )

config.name = "dyncall"
# lit's internal shell (external shells are deprecated in lit): pipes,
# redirections, &&, env, not, cd; use `sh -c '...'` for anything more.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".cpp", ".ll", ".s", ".S", ".test"]
# Python files under test/ are helpers, never tests (pytest files live in
# rewriter/tests); Inputs/ directories hold files other tests use.
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.path.join(config.dyncall_build_dir, "test")

src = config.dyncall_src_root
build = config.dyncall_build_dir
plugins = config.dyncall_plugin_dir
bindir = os.path.join(build, "bin")
libdir = os.path.join(build, "lib")
include = os.path.join(src, "include")
llvm_bin = config.llvm_tools_dir or "/usr/lib/llvm-19/bin"

# --- environment -----------------------------------------------------------
# FileCheck, not, count, llvm-objdump first; then the build's tools, then the
# venv (lit, pytest, ruff, the rewriter's Python).
venv_bin = os.path.dirname(config.dyncall_python)
path = [llvm_bin, bindir, venv_bin, config.environment.get("PATH", os.environ.get("PATH", ""))]
config.environment["PATH"] = os.pathsep.join(p for p in path if p)
for var in ("HOME", "TMPDIR", "LANG", "LC_ALL", "CI", "DYNCALL_TEST_VERBOSE"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment["DYNCALL_SRC_ROOT"] = src
config.environment["DYNCALL_BUILD_DIR"] = build
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"

# Every test gets at most this long (needs psutil, installed into the venv by
# scripts/install-deps.sh); a hung stress test must not hang the suite.
try:
    import psutil  # noqa: F401

    config.maxIndividualTestTime = int(os.environ.get("DYNCALL_LIT_TIMEOUT", "900"))
except ImportError:
    lit_config.warning("psutil is missing: no per-test timeout (run scripts/install-deps.sh)")

# --- substitutions -----------------------------------------------------------
clang = "clang-" + config.llvm_version_major
clangxx = "clang++-" + config.llvm_version_major
clang_plugin = os.path.join(plugins, "dyncall_clang.so")
llvm_plugin = os.path.join(plugins, "dyncall_llvm.so")
gcc_plugin = os.path.join(plugins, "dyncall_gcc.so")
clang_flags = f"-fplugin={clang_plugin} -fpass-plugin={llvm_plugin} -I{include}"
gcc_flags = f"-fplugin={gcc_plugin} -I{include}"

subs = {
    "%clang": clang,
    "%clangxx": clangxx,
    "%cc": clang,
    "%gcc": "gcc-12",
    "%gxx": "g++-12",
    "%dyncall_clang": f"{clang} {clang_flags}",
    "%dyncall_clangxx": f"{clangxx} {clang_flags}",
    "%dyncall_clang_attr": f"{clang} -fplugin={clang_plugin} -I{include}",
    "%dyncall_gcc": f"gcc-12 {gcc_flags}",
    "%dyncall_gxx": f"g++-12 {gcc_flags}",
    "%dyncall_cc": os.path.join(bindir, "dyncall-cc"),
    "%dyncall_config": os.path.join(bindir, "dyncall-config"),
    "%dyncall_rewrite": os.path.join(bindir, "dyncall-rewrite"),
    "%libdyncall_cflags": f"-I{include}",
    "%libdyncall_ldflags": f"-L{libdir} -ldyncall -Wl,-rpath,{libdir} -lpthread -ldl",
    "%libdyncall_static": f"{os.path.join(libdir, 'libdyncall.a')} -lpthread -ldl",
    "%plugin_dir": plugins,
    "%build_dir": build,
    "%src_root": src,
    "%python": config.dyncall_python,
    # DYNCALL_TEXT_WRITE=mprotect: see test/arch/lit.local.cfg
    "%qemu_aarch64": "qemu-aarch64 -E DYNCALL_TEXT_WRITE=mprotect -L /usr/aarch64-linux-gnu",
    "%qemu_ppc64le": "qemu-ppc64le -E DYNCALL_TEXT_WRITE=mprotect -L /usr/powerpc64le-linux-gnu",
    # the next Debian release's libgcc_s.so.1 (scripts/fetch-libgcc-next.sh)
    "%libgcc_next_x86_64": os.path.join(build, "libgcc-next", "amd64"),
    "%libgcc_next_aarch64": os.path.join(build, "libgcc-next", "arm64"),
    "%libgcc_next_ppc64le": os.path.join(build, "libgcc-next", "ppc64el"),
}
# lit applies substitutions in order: the longest first, so that %clang does
# not eat the start of %clangxx.
for key in sorted(subs, key=len, reverse=True):
    config.substitutions.append((key, subs[key]))

# --- features ------------------------------------------------------------------
features = config.available_features


def have(path):
    return os.path.isfile(path)


# A plugin or tool is a feature when this build has its component (the
# top-level DYNCALL_ENABLE_* options; a file left over from an earlier
# configuration of the same build directory does not count) and the file is
# there.
components = set(config.dyncall_components)
llvm_on = "llvm" in components
gcc_on = "gcc" in components

if platform.machine() == "x86_64":
    features.add("x86_64")
for arch, triple, loader in (
    ("aarch64", "aarch64-linux-gnu", "ld-linux-aarch64.so.1"),
    ("ppc64le", "powerpc64le-linux-gnu", "ld64.so.2"),
):
    if shutil.which("qemu-" + arch) and have(f"/usr/{triple}/lib/{loader}"):
        features.add("qemu-" + arch)
    if gcc_on and have(os.path.join(plugins, f"dyncall_gcc-{triple}.so")):
        features.add("gcc-plugin-" + arch)
    if have(os.path.join(libdir, triple, "libdyncall.so")):
        features.add("dyncall-runtime-" + arch)  # cmake/DynCallCross.cmake
if gcc_on and have(gcc_plugin):
    features.add("gcc-plugin")
if gcc_on and have(os.path.join(plugins, "dyncall_gcc11.so")):
    features.add("gcc11-plugin")
if llvm_on and have(clang_plugin):
    features.add("dyncall-clang-plugin")
if llvm_on and have(llvm_plugin):
    features.add("dyncall-pass")
if have(os.path.join(libdir, "libdyncall.so")):
    features.add("dyncall-runtime")
if "rewriter" in components and have(os.path.join(bindir, "dyncall-rewrite")):
    features.add("dyncall-rewrite")
if have(os.path.join(llvm_bin, "ld.lld")) or shutil.which("ld.lld-" + config.llvm_version_major):
    features.add("lld")
# prctl(PR_SET_MDWE) (test/exec/mdwe.test): Linux 6.3 and later
_kernel = platform.release().split("-")[0].split(".")[:2]
if len(_kernel) == 2 and all(x.isdigit() for x in _kernel) and tuple(map(int, _kernel)) >= (6, 3):
    features.add("mdwe")
if shutil.which("valgrind"):
    features.add("valgrind")  # test/exec/valgrind.c (scripts/install-deps.sh installs it)
if all(have(os.path.join(build, "realworld", "src", p, ".unpacked")) for p in ("sqlite3", "expat")):
    features.add("realworld-sources")
if have(os.path.join(build, "realworld", "src", "tinyxml2", ".unpacked")):
    features.add("realworld-tinyxml2")
for arch in ("amd64", "arm64", "ppc64el"):
    if have(os.path.join(build, "libgcc-next", arch, "libgcc_s.so.1")):
        features.add("libgcc-next-" + arch)
if os.geteuid() == 0:
    features.add("root")  # e.g. to make a set-user-ID copy of a program
if have(os.path.join(venv_bin, "ruff")):
    features.add("ruff")
if shutil.which("clang-format-" + config.llvm_version_major):
    features.add("clang-format")
if have(os.path.join(venv_bin, "mypy")):
    features.add("mypy")
if have(os.path.join(venv_bin, "lizard")):
    features.add("lizard")
try:
    subprocess.run(
        [config.dyncall_python, "-c", "import lief, capstone, numpy"],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    features.add("lief")
except (OSError, subprocess.CalledProcessError):
    pass
