"""What ``check`` learns about an image, shared by check, the columns,
relax and list: per site (SiteInfo) or as columns (SiteColumns), and the
Analysis holding them with the diagnostics.

The lowest layer above the ELF image, the tables and the arch backends:
check.py and columns.py fill these types, relax.py and listing.py read
them; nothing here imports those modules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dyncall_rewrite import abi
from dyncall_rewrite.arch import Backend, Branch, CodeFacts, ColumnHooks, Stream, Trampoline
from dyncall_rewrite.diagnostics import ERROR, NOTE, WARNING, Diagnostic
from dyncall_rewrite.elf import Image
from dyncall_rewrite.lines import LineTable
from dyncall_rewrite.tables import Key

MAX_FUNC_SPAN = 1 << 20  # site - func beyond this is treated as corrupted


@dataclass(slots=True)
class SiteInfo:
    entry: abi.SiteEntry
    valid: bool = True  # entry usable for relax (no error on it)
    tramp: Trampoline | None = None
    key: Key | None = None
    callers: list[Branch] = field(default_factory=list)  # the site(s)
    target: int | None = None  # the key's link-time value, when known
    key_flags: int = 0  # key flags merged over every unit of this module
    stream: Stream | None = None  # decode of [func, site+len) (labelled sites)
    # An inline guard (kind INLINE): its owner's kind (CALL or TAIL, the
    # entry before it; 0: none) and its literal.
    op_kind: int = 0
    lit: int | None = None

    @property
    def site_kind(self) -> int:
        """The kind whose instruction the entry's sites are (an inline
        guard's hit calls are its owner's)."""
        return self.op_kind or self.entry.kind

    @property
    def state(self) -> str:
        if not self.valid or self.tramp is None:
            return "invalid"
        if self.entry.flags & abi.DYNCALL_SITE_RESOLVED:
            return "resolved"
        return "slow"


@dataclass(slots=True)
class PrologueInfo:
    """One __patchable_function_entries record (or, ppc64le, one XRay entry
    sled of xray_instr_map: ``sled`` "xray", ``addr`` the map entry,
    ``record`` the sled) and what check found at the address it holds
    (prologues.py)."""

    index: int
    addr: int  # where the record is
    record: int | None  # the address it holds (None: bound by the loader, not known)
    state: str = "ok"  # ok, invalid (an error), zero, duplicate, unknown
    function: int | None = None  # the function's entry (its symbol)
    end: int = 0  # end of the NOP run
    pre: int = 0  # bytes of NOPs before the entry
    entry_nops: int = 0  # bytes of NOPs at the entry (after its landing pad)
    pad: str | None = None  # landing pad the function starts with
    hookable: bool = False  # the runtime's layout (docs/prologues.md)
    no_vec: bool = False  # a __dyncall_fn_records record flags it DYNCALL_FN_REC_NO_VEC
    sled: str = "nops"  # nops (__patchable_function_entries) or xray (an xray_instr_map entry sled)
    vec_regs: int | None = None  # vector argument registers its record says it uses (None: no record)
    vec2_regs: int | None = None  # ppc64le: vector registers v2.. (None: not in the record)
    vec_width: int = 16  # bytes of them to keep (32: ymm, 64: zmm)
    variadic: bool = False  # its record flags it DYNCALL_FN_REC_VARIADIC
    int_regs: int | None = None  # integer argument registers its record says it receives (None: no record)
    int_x8: bool = False  # aarch64: its record flags DYNCALL_FN_REC_INT_X8 (an indirect result in x8)
    entry_insns: tuple[int, ...] = ()  # the sizes of the NOP instructions at the entry
    direct: bool = False  # x86-64: the runtime may make the entry itself `jmp value`


@dataclass
class Analysis:
    image: Image
    backend: Backend
    _sites: list[SiteInfo] = field(default_factory=list)
    keys: dict[int, Key] = field(default_factory=dict)  # by cell address
    diagnostics: list[Diagnostic] = field(default_factory=list)
    has_tables: bool = False
    # Key flags merged over every unit of the module, by key address
    # (ESCAPES in one unit forbids unguarded direct patching in all).
    key_flags_by_address: dict[int, int] = field(default_factory=dict)
    # The same facts as columns when the columnar fast path proved the
    # image clean (columns.py); ``sites`` is then built on first use.
    columns: SiteColumns | None = None
    # __patchable_function_entries records (check_prologues), in order.
    prologues: list[PrologueInfo] = field(default_factory=list)
    has_prologues: bool = False  # the image has that section

    @property
    def sites(self) -> list[SiteInfo]:
        if self.columns is not None and not self._sites:
            self._sites = self.columns.materialize()
        return self._sites

    @property
    def site_count(self) -> int:
        """Site entries, without the inline guards' (inline_count)."""
        if self.columns is not None:
            return self.columns.n  # (the columns never hold an inline guard)
        return len(self._sites) - self.inline_count

    @property
    def inline_count(self) -> int:
        """Inline guard entries (DYNCALL_KIND_INLINE)."""
        if self.columns is not None:
            return 0
        return sum(1 for i in self._sites if i.entry.kind == abi.DYNCALL_KIND_INLINE)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == WARNING]

    @property
    def notes(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == NOTE]

    def symbolize(self, with_lines: bool = True) -> None:
        lines = LineTable(self.image.data) if with_lines and self.diagnostics else None
        for d in self.diagnostics:
            if d.address is not None:
                d.symbol = self.image.symbolize(d.address)
                if lines is not None:
                    d.line = lines.lookup(d.address)


OP_CALL, OP_JMP = 1, 2  # ColumnHooks op codes of Backend.site_op(1) / site_op(2)
OP_NAMES = {OP_CALL: "call", OP_JMP: "jmp"}


@dataclass
class SiteColumns:
    """check's facts about every entry of __dyncall_sites, as columns (the
    columnar form of Analysis.sites; ``materialize`` builds the objects)."""

    hooks: ColumnHooks
    addr: np.ndarray  # address of the entry
    site: np.ndarray  # absolute addresses, 0 where the field is 0
    tramp: np.ndarray
    keycell: np.ndarray
    func: np.ndarray
    version: np.ndarray
    kind: np.ndarray
    flags: np.ndarray
    tramp_size: np.ndarray
    unpatched: np.ndarray
    branch: np.ndarray  # target of the trampoline's patchable branch
    retpoline: np.ndarray
    slow_target: np.ndarray
    key_index: np.ndarray  # into ``keys``
    keys: list[Key]
    key_flags: np.ndarray  # merged over the module (key_context)
    target: np.ndarray  # link-time value of the key, 0 when unknown
    # Callers (the site, or the branches discovery found), sorted by
    # (entry, address): owner entry, address, op, length, target.
    c_entry: np.ndarray
    c_addr: np.ndarray
    c_op: np.ndarray
    c_len: np.ndarray
    c_target: np.ndarray
    facts: CodeFacts  # the decode that proved the instruction boundaries

    @property
    def n(self) -> int:
        return len(self.addr)

    def materialize(self) -> list[SiteInfo]:
        cols = [
            c.tolist()
            for c in (
                self.addr,
                self.site,
                self.tramp,
                self.keycell,
                self.func,
                self.version,
                self.kind,
                self.flags,
                self.tramp_size,
                self.unpatched,
                self.branch,
                self.retpoline,
                self.slow_target,
                self.key_index,
                self.key_flags,
                self.target,
            )
        ]
        callers: list[list[Branch]] = [[] for _ in range(self.n)]
        for e, a, op, ln, t in zip(
            self.c_entry.tolist(),
            self.c_addr.tolist(),
            self.c_op.tolist(),
            self.c_len.tolist(),
            self.c_target.tolist(),
            strict=True,
        ):
            callers[e].append(Branch(a, ln, OP_NAMES[op], t))
        out = []
        for i, (a, s, tr, kc, fn, v, k, fl, tsz, unp, br, rp, st, ki, kf, tg) in enumerate(
            zip(*cols, strict=True)
        ):
            t = Trampoline(tr, tsz, br, unp, "retpoline" if rp else "plain", st if rp else None, [])
            info = SiteInfo(abi.SiteEntry(i, a, s, tr, kc, fn, v, k, fl), True, t, self.keys[ki], callers[i])
            info.target = tg or None
            info.key_flags = kf
            out.append(info)
        return out


def key_context(img: Image, key: Key, flags_by_addr: dict[int, int]) -> tuple[int, int | None]:
    """(key flags merged over the module, link-time value or None)."""
    if not key.address.known:
        return key.flags, None
    kflags = flags_by_addr.get(key.address.value, key.flags)
    target = None
    if img.mapped(key.address.value, 8) and not key.flags & abi.DYNCALL_KEY_TYPE:
        kv = img.pointer(key.address.value)
        if kv.known and kv.value:
            target = kv.value
    return kflags, target


def in_function(site: Any, func: Any) -> Any:
    """``site`` lies in the span a function may have from ``func`` (ints or
    int64 columns); beyond MAX_FUNC_SPAN the entry is treated as corrupted."""
    d = site - func
    return (d >= 0) & (d <= MAX_FUNC_SPAN)
