#!/usr/bin/env python3
"""Generate a large C file for bench/compile_time.bench.sh.

    compile_time_gen.py SITES [--plain] > big.c

SITES annotated call sites spread over functions of 10 calls each, through
64 annotated variable keys and an ops struct with annotated fields, plus
stores that retarget keys, so the pass sees every kind of work it does.
--plain: the same program without any annotation (plain function-pointer
variables and fields), for whole-program mode, which makes every one of
those indirect calls a site.
"""

import sys

KEYS = 64
PER_FUNCTION = 10


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--plain"]
    plain = "--plain" in sys.argv[1:]
    sites = int(args[0]) if args else 6000
    head = "#define DYNCALL" if plain else "#include <dyncall.h>"
    out = [head, "", "typedef int (*fn_t)(int);"]
    out += [f"int target{i}(int x) {{ return x * {i + 3} + {i}; }}" for i in range(8)]
    out += [f"fn_t DYNCALL key{k} = target{k % 8};" for k in range(KEYS)]
    out += ["struct ops { fn_t DYNCALL a; fn_t DYNCALL b; int pad; };", "struct ops ops_table;"]
    functions = (sites + PER_FUNCTION - 1) // PER_FUNCTION
    for f in range(functions):
        body = []
        for s in range(PER_FUNCTION):
            n = f * PER_FUNCTION + s
            if n >= sites:
                break
            if n % 5 == 4:
                body.append(f"  x = ops_table.{'ab'[n % 2]}(x);")
            else:
                body.append(f"  x = key{n % KEYS}(x);")
        if f % 50 == 0:
            body.append(f"  key{f % KEYS} = target{f % 8};")
        out.append(f"int func{f}(int x) {{\n" + "\n".join(body) + "\n  return x;\n}")
    out.append("int run_all(int x) {")
    out += [f"  x = func{f}(x);" for f in range(functions)]
    out.append("  return x;\n}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
