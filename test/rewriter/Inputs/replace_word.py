"""replace_word.py FILE FUNCTION OLD NEW: replace the first little-endian
32-bit word OLD (hex) in FUNCTION's code in FILE by NEW (a deliberately
broken site for tests); fails when FUNCTION has no such word."""

import struct
import sys

from elftools.elf.elffile import ELFFile

path, func, old, new = (
    sys.argv[1],
    sys.argv[2],
    int(sys.argv[3], 16),
    int(sys.argv[4], 16),
)
with open(path, "rb") as f:
    elf = ELFFile(f)
    sym = next(
        s for s in elf.get_section_by_name(".symtab").iter_symbols() if s.name == func
    )
    text = next(
        s
        for s in elf.iter_sections()
        if s["sh_addr"] <= sym["st_value"] < s["sh_addr"] + s["sh_size"]
    )
    start = text["sh_offset"] + sym["st_value"] - text["sh_addr"]
    f.seek(start)
    code = f.read(sym["st_size"])
for i in range(0, len(code) - 3, 4):
    if struct.unpack_from("<I", code, i)[0] == old:
        with open(path, "r+b") as f:
            f.seek(start + i)
            f.write(struct.pack("<I", new))
        break
else:
    sys.exit(f"{func}: no word {old:08x}")
