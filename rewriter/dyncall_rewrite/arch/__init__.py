"""Per-architecture backends, chosen by ``e_machine`` (backend_for).

A backend knows the arch's trampoline bytes, site instructions, NOP
sequences and branch encodings (the contract is the Backend class below);
everything else (tables, keys, diagnostics, relax policy) is generic.  An
unknown machine fails loudly (DC904).  (DC905, a dyncall arch without a
backend, is no longer raised: all three have one.)
"""

from __future__ import annotations

import bisect
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from dyncall_rewrite import abi
from dyncall_rewrite.errors import UnknownMachineError

if TYPE_CHECKING:
    from dyncall_rewrite.elf import Image

PROLOGUE_SCAN = 256  # bytes of NOPs and landing pad a record's run may have
EM_X86_64 = 62
EM_AARCH64 = 183
EM_PPC64 = 21


@dataclass(slots=True, frozen=True)
class Branch:
    """A direct branch found in the code."""

    addr: int
    length: int
    op: str  # "call", "jmp" (rel32, patchable) or "jcc", "jmp8", "jcc8", ...
    target: int

    @property
    def patchable(self) -> bool:
        return self.op in ("call", "jmp")


@dataclass(slots=True)
class Trampoline:
    """What check found at a trampoline entry."""

    addr: int
    size: int  # bytes from the entry to the end of the slow path
    branch_target: int | None  # target of the patchable branch, None if not a branch
    unpatched_target: int  # where the branch goes when unpatched (the slow path)
    slow: str | None  # "plain", "retpoline" or None (unrecognised)
    slow_target: int | None  # retpoline thunk reached by the slow path
    problems: list[tuple[str, str]]
    cond: bool = False  # the slow path returns on a null chain (DYNCALL_KIND_COND)


# A decoded instruction: (disassembler instruction id, address, size); in a
# Stream the address is relative (add Stream.delta).
Insn = tuple[int, int, int]


@dataclass(slots=True)
class Stream:
    """Instructions decoded linearly over [start, end); ``ok`` is False when
    decoding stopped before ``end`` (invalid bytes) or ran past it."""

    start: int
    end: int
    insns: list[Insn]
    ok: bool
    delta: int = 0  # add to an Insn address to get the virtual address
    btargets: dict[int, int] = field(default_factory=dict)  # branch insn -> target (undelta'd)

    def has_start(self, addr: int) -> bool:
        a = addr - self.delta
        i = bisect.bisect_left(self.insns, a, key=_addr)
        return i < len(self.insns) and self.insns[i][1] == a

    def ends_with(self, addr: int) -> bool:
        """The last decoded instruction starts at addr and ends at ``end``."""
        return bool(self.ok and self.insns and self.insns[-1][1] + self.delta == addr)


def _addr(r: Insn) -> int:
    return r[1]


# What the columns keep of each decoded instruction (CodeFacts.insns), for
# every backend.
INSN_RECORD = np.dtype([("address", "<i8"), ("size", "<i4"), ("id", "<u4")])


@dataclass(slots=True)
class TrampColumns:
    """trampoline_fast() over a column of trampoline addresses."""

    ok: np.ndarray  # bool: the trampoline is exactly the ABI template
    size: np.ndarray
    unpatched: np.ndarray  # where the patchable branch goes when unpatched
    branch: np.ndarray  # target of the patchable branch
    retpoline: np.ndarray  # int8: 1 retpoline slow path, 0 plain
    slow_target: np.ndarray  # the retpoline thunk reached (where retpoline)


@dataclass
class CodeFacts:
    """Instruction boundaries from ColumnHooks.decode_functions."""

    is_start: np.ndarray  # bool per query
    insns: np.ndarray  # the decoded instructions (address, size, id), by address
    hooks: Any  # the ColumnHooks that decoded them
    branches: Any  # the decoded branches: .direct() -> (address, target) of the direct ones
    asked: np.ndarray  # the queries it was decoded for (sorted): all it can answer
    _targets: tuple[np.ndarray, np.ndarray] | None = None

    def for_queries(self, queries: np.ndarray) -> CodeFacts | None:
        """The same decode asked again about some of the addresses it was
        decoded for; None when a query is new (its code may not have been
        decoded at all)."""
        if len(queries):
            j = np.searchsorted(self.asked, queries)
            if not len(self.asked) or (self.asked[np.minimum(j, len(self.asked) - 1)] != queries).any():
                return None
        a = self.insns["address"]
        j = np.searchsorted(a, queries)
        ok = (j < len(a)) & (a[np.minimum(j, max(len(a) - 1, 0))] == queries) if len(a) else j < 0
        return CodeFacts(ok, self.insns, self.hooks, self.branches, self.asked)

    def replaced(self, runs: list[tuple[int, int]], decoded: dict[int, np.ndarray]) -> CodeFacts:
        """This decode after each run [start, start+n) was rewritten to
        bytes whose decode at address 0 is ``decoded[n]`` (whole
        instructions covering exactly n bytes, so nothing outside the run
        changes)."""
        if not runs:
            return CodeFacts(self.is_start, self.insns, self.hooks, self.branches, self.asked)
        a = self.insns["address"]
        st = np.array([r[0] for r in runs], np.int64)
        ln = np.array([r[1] for r in runs], np.int64)
        k = np.searchsorted(st, a, side="right") - 1
        inside = (k >= 0) & (a < st[np.maximum(k, 0)] + ln[np.maximum(k, 0)])
        parts = [self.insns[~inside]]
        for n in np.unique(ln).tolist():
            d = decoded[n]
            starts = st[ln == n]
            r = np.tile(d, len(starts))
            r["address"] += np.repeat(starts, len(d))
            parts.append(r)
        ins = np.concatenate(parts)
        ins = ins[np.argsort(ins["address"], kind="stable")]
        # NOP runs hold no branch: the branches are unchanged.
        return CodeFacts(self.is_start, ins, self.hooks, self.branches, self.asked)

    def without_branches(self) -> CodeFacts:
        """The same boundaries, with the branch targets unknown."""
        return CodeFacts(self.is_start, self.insns, self.hooks, UnknownBranches(), self.asked)

    def branch_targets(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(address, target) of every decoded direct branch, sorted by
        target; None when the backend cannot tell."""
        if self._targets is None:
            got = self.branches.direct()
            if got is None:
                return None
            a, tg = got
            order = np.argsort(tg, kind="stable")
            self._targets = (a[order], tg[order])
        return self._targets


class UnknownBranches:
    """No known direct branch targets (CodeFacts.branches)."""

    def direct(self) -> None:
        return None


class ColumnHooks(ABC):
    """The per-arch part of the columnar fast path (columns.py): the
    backend's fast-path rules over numpy columns.  Exactness matters more
    than coverage: a hook that cannot decide a case exactly as the object
    path would returns None (or a False mask), never a guess."""

    @abstractmethod
    def trampolines(self, tramp: np.ndarray, thunk: int | None) -> TrampColumns:
        """Backend.trampolines_fast over a column."""

    @abstractmethod
    def sites(self, site: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(op, target) of the patchable branch at each site: op 1 call,
        2 jmp, 0 neither (or not file-backed executable code)."""

    @abstractmethod
    def site_lengths(self, op: np.ndarray) -> np.ndarray:
        """Instruction length of each branch op."""

    @abstractmethod
    def site_alignment_ok(self, site: np.ndarray, labelled: np.ndarray) -> np.ndarray:
        """Backend.site_alignment_problem() is None, per site."""

    @abstractmethod
    def branch_in_range(self, at: np.ndarray, target: np.ndarray) -> np.ndarray:
        """Backend.encode_branch("jmp", at, target) is not None, per pair."""

    @abstractmethod
    def find_branches_to(self, targets: np.ndarray) -> tuple[np.ndarray, ...]:
        """(addr, op, target) of every candidate branch to a sorted column
        of targets, before instruction-boundary verification."""

    @abstractmethod
    def decode_functions(self, queries: np.ndarray, lengths: np.ndarray) -> CodeFacts | None:
        """Which queries (instructions of ``lengths`` bytes if they are
        any) are instruction starts when their function is decoded from
        its own start; None when undecidable here."""

    @abstractmethod
    def nop_paddings(self, facts: CodeFacts, site: np.ndarray, func: np.ndarray) -> tuple[np.ndarray, ...]:
        """(start, length) of the NOP padding right before each labelled
        site (length 0: none)."""

    @abstractmethod
    def decode_bytes(self, code: bytes, addr: int) -> np.ndarray | None:
        """The instructions of ``code`` at ``addr`` (same record type as
        CodeFacts.insns), None unless they cover it exactly."""

    def site_ops(self, kind: np.ndarray) -> np.ndarray:
        """Backend.site_op(kind) of each entry, as op codes (1 call, 2 jmp;
        a conditional site is a call)."""
        return np.where(kind == abi.DYNCALL_KIND_TAIL, 2, 1)

    @abstractmethod
    def encode_branches(
        self, op: np.ndarray, at: np.ndarray, target: np.ndarray, old: np.ndarray
    ) -> np.ndarray:
        """Backend.encode_branch(op, at, target) per row, as (n, site_size)
        bytes, where ``old`` (the bytes replaced) holds the branch check
        verified and branch_in_range(at, target) holds."""

    def rewrite_keeps_decode(
        self, facts: CodeFacts, addr: np.ndarray, old: np.ndarray, new: np.ndarray
    ) -> bool:
        """Do writes of ``new`` over ``old`` at ``addr`` (a trampoline's or
        site's branch) leave every instruction boundary ``facts`` holds
        unchanged?  (relax reuses the input's decode for its output.)"""
        return False

    def table_writes_keep_decode(self, facts: CodeFacts, writes: list[tuple[np.ndarray, ...]]) -> bool:
        """The same for the (addr, old, new) writes to the table fields
        (``site``, ``flags``; maybe none), asked when __dyncall_sites lies
        in an executable segment."""
        return False


class Backend(ABC):
    """The per-arch contract (x86_64/backend.py is the reference implementation)."""

    name: str
    site_size: int  # length of the patchable call/jmp instruction
    tramp_pad: int = 0  # bytes before a trampoline entry that belong to it (x86-64: int3 x3)
    # Does the runtime retarget sites (and may relax fill ``site`` and
    # resolve it)?  ppc64le: no, only the trampoline's branch (the site's
    # `bl` goes through the linker's TOC-save stub); a conditional site's
    # `bl stub` <-> `b .+8` is the runtime's alone (relax leaves
    # conditional entries alone on every arch).
    patches_sites: bool = True
    # Conditional sites (DYNCALL_KIND_COND, docs/hooks.md): their trampoline
    # and run-time NOP exist for this arch (x86-64, aarch64, ppc64le).
    has_cond: bool = False
    has_inline: bool = False  # inline guards (DYNCALL_KIND_INLINE)
    # Is a const key's link-time target that the trampoline's branch cannot
    # reach an error (DC050)?  x86-64: yes (one image, rel32).  aarch64 and
    # ppc64le: no, the runtime goes through a far stub; only a RESOLVED
    # entry must reach it directly.
    far_target_is_error: bool = True
    # How check names the site instruction of each op, for messages.
    op_names: dict[str, str] = {"call": "call rel32", "jmp": "jmp rel32"}  # noqa: RUF012

    def __init__(self, image: Image) -> None:
        self.image = image

    def column_hooks(self) -> ColumnHooks | None:
        """The backend's columnar fast path, or None (object path only)."""
        return None

    def site_op(self, kind: int) -> str:
        """The site instruction ("call"/"jmp") of an entry of ``kind``
        (1 call, 2 tail, 6 cond: a call)."""
        return "jmp" if kind == abi.DYNCALL_KIND_TAIL else "call"

    def resolve_problem(self, at: int, target: int) -> str | None:
        """Why the patchable branch at ``at`` cannot go directly to the
        function ``target`` (None when it can)."""
        if self.encode_branch("jmp", at, target) is None:
            return "out of branch range"
        return None

    @abstractmethod
    def read_trampoline(self, addr: int, retpoline_thunk: int | None) -> Trampoline:
        """Check the trampoline bytes at ``addr`` against the ABI."""

    @abstractmethod
    def trampoline_fast(self, addr: int, retpoline_thunk: int | None) -> Trampoline | None:
        """read_trampoline() for a trampoline exactly as the ABI specifies
        (no problems), else None; must be cheap (called per entry)."""

    def trampolines_fast(self, addrs: list[int], retpoline_thunk: int | None) -> list[Trampoline | None]:
        """trampoline_fast() of every address (bulk form; backends may
        override it with a column loop over the image bytes)."""
        f = self.trampoline_fast
        return [f(a, retpoline_thunk) for a in addrs]

    def sites_fast(self, addrs: list[int]) -> list[Branch | None]:
        """For every address: decode_site() when [addr, addr+site_size) is
        file-backed executable code, else None (also for addr 0)."""
        img, n, dec = self.image, self.site_size, self.decode_site
        return [dec(a) if a and img.is_exec(a, n) else None for a in addrs]

    @abstractmethod
    def decode_site(self, addr: int) -> Branch | None:
        """The patchable call/jmp at ``addr``, or None if it is not one."""

    @abstractmethod
    def find_branches_to(self, targets: set[int]) -> dict[int, list[Branch]]:
        """Every direct branch in executable code whose target is in
        ``targets``, verified to be at an instruction boundary."""

    @abstractmethod
    def decode_ranges(self, ranges: list[tuple[int, int]]) -> list[Stream]:
        """Linear decode of each [start, end) range."""

    @abstractmethod
    def site_alignment_problem(self, site: int, compiler_labelled: bool) -> tuple[str, str] | None:
        """The arch's conditions on a site instruction: the alignment the
        runtime's atomic patching relies on (ppc64le also: the TOC save and
        restore around the call)."""

    @abstractmethod
    def instruction_boundaries(self, addrs: list[int]) -> set[int]:
        """The subset of ``addrs`` that are instruction starts of the
        enclosing executable code."""

    @abstractmethod
    def nop_padding(self, stream: Stream, site: int) -> tuple[int, int] | None:
        """(start, length) of the compiler's NOP padding right before
        ``site``, or None."""

    @abstractmethod
    def branch_targets(self, stream: Stream) -> set[int]:
        """Direct branch targets of the instructions of a decoded stream."""

    @abstractmethod
    def canonical_nops(self, n: int) -> bytes:
        """The arch's canonical minimal NOP sequence of exactly n bytes."""

    @abstractmethod
    def encode_branch(self, op: str, at: int, target: int) -> bytes | None:
        """The patchable branch ``op`` ("call"/"jmp") at ``at`` to
        ``target``, or None when out of range."""

    @abstractmethod
    def describe(self, addr: int, n: int = 16) -> str:
        """Disassembly of the instruction at addr, for messages."""

    # -- patchable prologues (__patchable_function_entries) ----------------
    # The alignment a patchable-entry record needs (an instruction start).
    prologue_align: int = 1

    @abstractmethod
    def prologue_run(self, addr: int) -> list[tuple[int, int, str]]:
        """The instructions from ``addr`` while they are NOPs or a landing
        pad (x86-64 endbr64, aarch64 bti c/jc): (address, size, "nop" or the
        pad's name), at most PROLOGUE_SCAN bytes."""

    # The alignment of a record of the runtime's layout (its pointer slot).
    prologue_slot_align: int = 8
    # The bytes of the runtime's patchable entry (after the landing pad),
    # where prologue_hookable() holds; 0: not known.
    prologue_entry_bytes: int = 0

    def prologue_hookable(self, rec: int, f: int, body: int) -> bool:
        """Does the runtime's probe accept the prologue whose record is
        ``rec``, function ``f``, entry NOPs from ``body`` on (runtime/arch:
        arch_fentry_probe)?  Only x86-64 has function-entry patching so far."""
        return False

    def prologue_direct(self, f: int, body: int, entry_insns: tuple[int, ...]) -> bool:
        """Of a prologue the runtime accepts: may the entry itself become
        the jump (x86-64's direct entry, docs/prologues.md)?"""
        return False

    def local_entry(self, f: int) -> int | None:
        """Where a direct call enters the function that starts at ``f``
        when that is not ``f`` (ppc64le: after the TOC set-up), else None."""
        return None


def backend_for(image: Image) -> Backend:
    import importlib

    # Only the image's backend is imported (each pulls in its capstone
    # architecture module, ~0.05 s).
    table: dict[int, tuple[str, str]] = {
        EM_X86_64: ("x86_64", "X86_64"),
        EM_AARCH64: ("aarch64", "AArch64"),
        EM_PPC64: ("ppc64le", "PPC64LE"),
    }
    where = table.get(image.machine)
    cls = getattr(importlib.import_module(f"dyncall_rewrite.arch.{where[0]}"), where[1]) if where else None
    if cls is None:
        raise UnknownMachineError(
            f"unsupported machine (e_machine {image.machine}): dyncall supports x86_64, aarch64 and ppc64le",
            path=image.path,
        )
    return cls(image)
