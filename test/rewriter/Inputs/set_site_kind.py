"""set_site_kind.py FILE INDEX KIND: overwrite the kind byte of site entry
INDEX of FILE's __dyncall_sites (a deliberately wrong table for tests)."""

import sys

from elftools.elf.elffile import ELFFile

ENTRY_SIZE, KIND_OFFSET = 20, 17  # struct dyncall_site_entry (abi.h)

path, index, kind = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "rb") as f:
    sec = ELFFile(f).get_section_by_name("__dyncall_sites")
    off = sec["sh_offset"] + index * ENTRY_SIZE + KIND_OFFSET
with open(path, "r+b") as f:
    f.seek(off)
    f.write(bytes([kind]))
