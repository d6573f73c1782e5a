#!/usr/bin/env python3
"""Count the retpoline executions of a run from a callgrind profile.

    realworld_callgrind.py CALLGRIND_OUT EXECDUMP

CALLGRIND_OUT: from `valgrind --tool=callgrind --dump-instr=yes`; EXECDUMP:
the bytes of the process's executable mappings saved when main returned
(LD_PRELOAD=realworld_execdump.so REALWORLD_EXECDUMP=<file>, see
bench/realworld_execdump.c). Every address is taken back to the absolute
address it had in the process, so the bytes are found whatever mapping
holds them: a file, anonymous memory, or the memfd pages the runtime's text
writer maps over a file's text and over its own stub regions (these were
skipped before 2026-11-27, and the retpolines executed in them, the slow
paths of the runtime's stubs among them, were not counted). Every retpoline, whoever made it, is

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

import bisect
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
    """[(start, length, offset, path, bytes)]; bytes is None for the
    header-only records of non-executable file mappings."""
    regions = []
    with open(path, "rb") as f:
        data = f.read()
    i = 0
    while i < len(data):
        start, length, off, plen = struct.unpack_from("<4Q", data, i)
        i += 32
        name = data[i : i + plen].decode(errors="replace")
        i += plen
        if length >> 63:
            regions.append((start, length & ~(1 << 63), off, name, None))
            continue
        regions.append((start, length, off, name, data[i : i + length]))
        i += length
    return regions


def is_file(name):
    """A mapping of a real file (not anonymous memory, not a memfd)."""
    return name.startswith("/") and not name.startswith("/memfd:") and not name.endswith(" (deleted)")


def elf_vaddr(path, off):
    """The virtual address the ELF file `path` gives its byte at file offset
    `off` (from its PT_LOAD headers); None when
    the file cannot be read."""
    try:
        with open(path, "rb") as f:
            h = f.read(64)
            if h[:4] != b"\x7fELF" or h[4] != 2:
                return None
            (phoff,) = struct.unpack_from("<Q", h, 32)
            phentsize, phnum = struct.unpack_from("<HH", h, 54)
            f.seek(phoff)
            ph = f.read(phentsize * phnum)
    except OSError:
        return None
    for k in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", ph, k * phentsize)
        lo = p_offset & ~0xFFF
        if p_type == 1 and lo <= off < p_offset + max(p_filesz, 1):
            return p_vaddr - (p_offset - off)
    return None


def load_bias(regions):
    """{file: bias}: callgrind writes a file's instruction addresses as the
    ELF virtual address (the absolute address minus the load bias). The
    bias comes from any mapping of the file, executable or not: the
    runtime's text writer may have re-mapped every executable page of it
    from a memfd, which /proc/self/maps then names /memfd:dyncall-text."""
    bias = {}
    for start, _, off, name, _ in sorted(regions, key=lambda r: r[2]):
        if not is_file(name) or name in bias:
            continue
        v = elf_vaddr(name, off)
        bias[name] = start - (v if v is not None else off)
    return bias


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
    bias = load_bias(regions)
    code = sorted((start, length, b) for start, length, _, _, b in regions if b is not None)
    starts = [c[0] for c in code]
    total = 0
    by_object = defaultdict(int)
    for (ob, addr), n in instr_counts(cg_path).items():
        if ob is not None and ob in bias:
            # A file: callgrind writes the ELF address; its bytes may be in
            # the file's own mapping or in a memfd alias of its pages.
            addr += bias[ob]
            label = ob
        else:
            # Anonymous code and memfd pages callgrind knows no file of
            # ('???'): absolute addresses.
            label = "(generated code)"
        k = bisect.bisect_right(starts, addr) - 1
        if k < 0:
            continue
        start, length, b = code[k]
        if addr < start + length and is_retpoline_tail(b, addr - start):
            total += n
            by_object[label] += n
    return {"total": total, "by_object": dict(by_object)}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(json.dumps(count(sys.argv[1], sys.argv[2]), indent=1))


if __name__ == "__main__":
    main()
