#!/usr/bin/env python3
"""Count the retpoline executions of a run from a callgrind profile.

    realworld_callgrind.py CALLGRIND_OUT EXECDUMP

CALLGRIND_OUT: from `valgrind --tool=callgrind --dump-instr=yes`; EXECDUMP:
the bytes of the process's executable mappings saved when main returned
(LD_PRELOAD=realworld_execdump.so REALWORLD_EXECDUMP=<file>, see
bench/realworld_execdump.c). Every retpoline, whoever made it, is

    T:   call X
         pause; lfence; jmp <pause>     ; never runs architecturally
    X:   mov %reg,(%rsp)                ; 48/4c 89 xx 24
         ret                            ; c3

the compilers' thunks (__x86_indirect_thunk_<reg> of GCC, __llvm_retpoline_<reg>
of Clang, __dyncall_retpoline_<reg> of the dyncall plugins) and the
retpolines the dyncall runtime generates in anonymous memory alike. So a
retpoline execution is an execution of a `mov %reg,(%rsp); ret` that follows
an `lfence` within 16 bytes. Callgrind counts the executions of every
instruction; the bytes come from the dump, so code that exists in no file
is found too, however it is entered (call, tail jump). No symbol is needed.
Deterministic for a given binary and input. Prints JSON {"total": N,
"by_object": {...}}.
"""

import json
import re
import struct
import sys
from collections import defaultdict

POS = re.compile(r"^(0x[0-9a-fA-F]+|[+-]\d+|\*)")
NAME = re.compile(r"^(c?)(ob|fn|fl|fi|fe)=(?:\((\d+)\))?\s*(.*)$")


def instr_counts(path):
    """{(object, address): executions} from a --dump-instr=yes profile.
    Addresses are as callgrind writes them: offsets in the object for files,
    absolute for anonymous code (object '???')."""
    obs = {}
    counts = defaultdict(int)
    ob = None
    last = 0
    in_call = False
    instr_first = True
    with open(path, errors="replace") as f:
        for line in f:
            if not line.strip() or line[0] == "#":
                continue
            if line.startswith("positions:"):
                instr_first = line.split()[1] == "instr"
                if not instr_first:
                    sys.exit(f"{path}: not a --dump-instr=yes profile")
                continue
            m = NAME.match(line)
            if m:
                c, kind, num, name = m.groups()
                if kind == "ob":
                    if num is not None and name:
                        obs[num] = name
                    if not c:
                        ob = obs.get(num, name) if num is not None else name
                continue
            if line.startswith("calls="):
                in_call = True
                continue
            m = POS.match(line)
            if not m:
                continue
            p = m.group(1)
            if p.startswith("0x"):
                last = int(p, 16)
            elif p != "*":
                last += int(p)
            if in_call:  # the inclusive cost of a call: not an execution here
                in_call = False
                continue
            parts = line.split()
            if len(parts) >= 3:
                counts[(ob, last)] += int(parts[2])
    return counts


def read_dump(path):
    """[(start, length, offset, path, bytes)]"""
    regions = []
    with open(path, "rb") as f:
        data = f.read()
    i = 0
    while i < len(data):
        start, length, off, plen = struct.unpack_from("<4Q", data, i)
        i += 32
        name = data[i : i + plen].decode(errors="replace")
        i += plen
        regions.append((start, length, off, name, data[i : i + length]))
        i += length
    return regions


def is_retpoline_tail(b, k):
    """b[k:] is `mov %reg,(%rsp); ret` after an lfence."""
    return (
        k >= 3
        and len(b) >= k + 5
        and b[k] in (0x48, 0x4C)
        and b[k + 1] == 0x89
        and (b[k + 2] & 0xC7) == 0x04
        and b[k + 3] == 0x24
        and b[k + 4] == 0xC3
        and b"\x0f\xae\xe8" in b[max(0, k - 16) : k]
    )


def count(cg_path, dump_path):
    regions = read_dump(dump_path)
    files = defaultdict(list)
    anon = []
    for start, length, off, name, b in regions:
        (files[name] if name else anon).append((start, length, off, b))
    total = 0
    by_object = defaultdict(int)
    for (ob, addr), n in instr_counts(cg_path).items():
        if ob is None or ob.startswith("???"):
            # Anonymous code: callgrind writes absolute addresses.
            hit = [(b, addr - start) for start, length, _, b in anon if start <= addr < start + length]
            label = "(generated code)"
        else:
            # A file: callgrind writes the address in the object (its vaddr,
            # which equals the file offset for the executable segment).
            hit = [(b, addr - off) for _, length, off, b in files.get(ob, ()) if off <= addr < off + length]
            label = ob
        if hit and is_retpoline_tail(*hit[0]):
            total += n
            by_object[label] += n
    return {"total": total, "by_object": dict(by_object)}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(json.dumps(count(sys.argv[1], sys.argv[2]), indent=1))


if __name__ == "__main__":
    main()
