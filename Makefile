# dyncall: a thin front end over CMake presets and scripts/.
#
#   make demo     install what is missing, build, run examples/ with the
#                 plugin in a -mretpoline build and print the call-cost table
#   make check    install what is missing, build, run the whole test suite;
#                 last line: `N passed, N failed[, N skipped]`
#   make build    configure (preset `default`, build/) and build everything
#   make bench    run every bench/*.bench.sh (see bench/README.md)
#   make realworld  SQLite and Expat from Debian's sources, every variant with
#                 clang-19 and gcc-12, dyncall builds checked at full size, and
#                 --dyncall-prologues=all builds with every function hooked
#                 and redirected (scripts/realworld/verify-prologues.sh)
#                 (docs/realworld.md; the benchmark: bench/realworld.bench.sh)
#   make heldout  held-out programs (jansson, muparser, pcre2, json-c, brotli, libuv1, cjson,
#                 pugixml) from Debian's sources,
#                 unmodified, whole-program mode, both compilers, -O0/-O2/-Os,
#                 LTO, PIE, retpolines, aarch64/ppc64le under qemu, and
#                 --dyncall-prologues=all with every function hooked and
#                 redirected (pfe-*); their own test suites against the
#                 plain builds (docs/realworld.md)
#   make install PREFIX=/opt/dyncall
#   make clean    remove build/ except the Python venv;  make distclean: all of it
BUILD  := build
PREFIX ?= /usr/local

.PHONY: all deps configure build demo check bench realworld heldout install lint clean distclean

all: build

deps:
	@scripts/install-deps.sh --venv $(BUILD)/venv

configure: deps
	@if [ ! -f $(BUILD)/CMakeCache.txt ]; then cmake --preset default; fi

build: configure
	@cmake --build $(BUILD)

demo: build
	@scripts/demo.sh

check:
	@scripts/check.sh

bench: build
	@scripts/bench.sh

realworld: build
	@scripts/realworld/verify.sh; st=$$?; scripts/realworld/verify-prologues.sh && exit $$st

heldout: build
	@scripts/heldout/run.sh

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

lint: deps
	@$(BUILD)/venv/bin/ruff check tools/dyncall-cc tools/dyncall-config scripts test/lit.cfg.py
	@$(BUILD)/venv/bin/ruff check --config rewriter/pyproject.toml scripts/realworld scripts/heldout bench/realworld.py bench/realworld_callgrind.py bench/realworld_prologues.py bench/compile_time_sqlite.py
	@for f in scripts/*.sh scripts/realworld/*.sh scripts/heldout/*.sh .ci/run bench/*.sh; do bash -n $$f || exit 1; done

clean:
	@if [ -d $(BUILD) ]; then find $(BUILD) -mindepth 1 -maxdepth 1 ! -name venv -exec rm -rf {} +; fi

distclean:
	rm -rf $(BUILD)
