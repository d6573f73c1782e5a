"""``file:line`` for addresses, from DWARF .debug_line through pyelftools
(LIEF's DWARF support is only in LIEF "extended").  Optional: without
pyelftools or without DWARF, or with DWARF pyelftools cannot read, lines are
simply omitted."""

from __future__ import annotations

import bisect
import io
import os


class LineTable:
    def __init__(self, data: bytes | bytearray) -> None:
        self._addrs: list[int] = []
        self._rows: list[tuple[str, int] | None] = []
        try:
            self._load(data)
        except Exception:  # corrupted DWARF must never fail the tool
            self._addrs, self._rows = [], []

    def _load(self, data: bytes | bytearray) -> None:
        try:
            from elftools.elf.elffile import ELFFile
        except ImportError:
            return
        elf = ELFFile(io.BytesIO(bytes(data)))
        if not elf.has_dwarf_info() or elf.get_section_by_name(".debug_line") is None:
            return
        dwarf = elf.get_dwarf_info()
        rows: list[tuple[int, tuple[str, int] | None]] = []
        for cu in dwarf.iter_CUs():
            lp = dwarf.line_program_for_CU(cu)
            if lp is None:
                continue
            files = lp["file_entry"]
            dirs = lp["include_directory"]
            v5 = lp.header.version >= 5
            for e in lp.get_entries():
                st = e.state
                if st is None:
                    continue
                if st.end_sequence:
                    rows.append((st.address, None))
                    continue
                idx = st.file if v5 else st.file - 1
                if not 0 <= idx < len(files):
                    continue
                fe = files[idx]
                name = fe.name.decode("utf-8", "replace")
                d = fe.dir_index if v5 else fe.dir_index - 1
                if not os.path.isabs(name) and 0 <= d < len(dirs) and not v5:
                    name = os.path.join(dirs[d].decode("utf-8", "replace"), name)
                rows.append((st.address, (os.path.basename(name), st.line)))
        rows.sort(key=lambda r: (r[0], r[1] is not None))
        self._addrs = [r[0] for r in rows]
        self._rows = [r[1] for r in rows]

    def lookup(self, addr: int) -> str | None:
        i = bisect.bisect_right(self._addrs, addr) - 1
        if i < 0 or self._rows[i] is None:
            return None
        f, line = self._rows[i]  # type: ignore[misc]
        return f"{f}:{line}" if line else f
