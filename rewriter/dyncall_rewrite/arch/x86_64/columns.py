"""x86-64 column hooks: the checks of x86_64/backend.py over whole numpy columns.

Same rules, same bytes, no per-entry Python: trampoline and site templates
are compared with vector gathers, discovery candidates are found by a
vector scan of the code, and instruction boundaries come from capstone
decoding each function that holds a site from its own start (read as
columns of capstone's ``cs_insn`` array).  Anything these hooks cannot
decide exactly as x86_64/backend.py would returns None, and the caller falls back
to the object path (see columns.py).
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Protocol

import capstone
import numpy as np
from capstone import x86_const

from dyncall_rewrite.arch import INSN_RECORD, CodeFacts, ColumnHooks, TrampColumns
from dyncall_rewrite.arch.x86_64.enc import (
    BRANCH_IDS,
    CHUNK,
    DECODE_BIAS,
    INSN_SIZE,
    MAX_SITE_PADDING,
    OP_CALL_REL32,
    OP_INT3,
    OP_JMP_REL32,
    OPSTR_OFF,
    SLOW_PLAIN,
)
from dyncall_rewrite.vec import isin_sorted, le_bytes, unique_sorted

if TYPE_CHECKING:
    from dyncall_rewrite.elf import Image

# capstone's cs_insn records as a numpy structured type (columns, no copy).
_INSN_DTYPE = np.dtype(
    {
        "names": ["id", "address", "size", "op_str"],
        "formats": ["<u4", "<u8", "<u2", "S160"],
        "offsets": [
            capstone._cs_insn.id.offset,
            capstone._cs_insn.address.offset,
            capstone._cs_insn.size.offset,
            OPSTR_OFF,
        ],
        "itemsize": INSN_SIZE,
    }
)
INSN = INSN_RECORD
_IS_BRANCH = np.zeros(max(BRANCH_IDS) + 2, bool)
_IS_BRANCH[sorted(BRANCH_IDS)] = True
_NOP = x86_const.X86_INS_NOP
OP_NONE, OP_CALL, OP_JMP, OP_JCC, OP_JMP8, OP_JCC8 = 0, 1, 2, 3, 4, 5


def i32_at(u8: np.ndarray, offs: np.ndarray) -> np.ndarray:
    """Little-endian int32 at each file offset (as int64)."""
    return u8[offs[:, None] + np.arange(4)].view("<i4").ravel().astype(np.int64)


class X86Code(Protocol):
    """What the hooks need of the backend (x86_64.X86_64): its image, its
    capstone handle, its executable code."""

    image: Image
    md: capstone.Cs

    def exec_regions(self) -> list[tuple[int, bytes]]: ...


class X86_64Columns(ColumnHooks):
    def __init__(self, be: X86Code) -> None:
        self.be = be
        self.image = be.image

    # -- trampolines and sites ----------------------------------------
    def trampolines(self, tramp: np.ndarray, thunk: int | None) -> TrampColumns:
        img = self.image
        u8 = img.u8
        o = img.file_offsets(tramp - 3, 13, exec_only=True)  # pad, jmp, slow path (<= 10)
        ok = (o >= 0) & (tramp & 7 == 3)
        o = np.where(ok, o, 0) + 3
        ok &= (u8[o - 3] == OP_INT3) & (u8[o - 2] == OP_INT3) & (u8[o - 1] == OP_INT3)
        ok &= u8[o] == OP_JMP_REL32
        branch = tramp + 5 + i32_at(u8, o + 1)
        plain = (u8[o + 5] == SLOW_PLAIN[0]) & (u8[o + 6] == SLOW_PLAIN[1]) & (u8[o + 7] == SLOW_PLAIN[2])
        slow_target = tramp + 10 + i32_at(u8, o + 6)
        retp = ~plain & (u8[o + 5] == OP_JMP_REL32)
        retp &= slow_target == thunk if thunk is not None else False
        ok &= plain | retp
        return TrampColumns(ok, np.where(plain, 8, 10), tramp + 5, branch, retp.astype(np.int8), slow_target)

    def sites(self, site: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        img = self.image
        o = img.file_offsets(site, 5, exec_only=True)
        ok = (o >= 0) & (site != 0)
        o = np.where(ok, o, 0)
        c = img.u8[o]
        op = np.where(ok & (c == OP_CALL_REL32), OP_CALL, np.where(ok & (c == OP_JMP_REL32), OP_JMP, OP_NONE))
        return op.astype(np.int8), site + 5 + i32_at(img.u8, o + 1)

    def site_lengths(self, op: np.ndarray) -> np.ndarray:
        return np.where(op <= OP_JMP, 5, np.where(op == OP_JCC, 6, 2))

    def site_alignment_ok(self, site: np.ndarray, labelled: np.ndarray) -> np.ndarray:
        return ~labelled | ((site + 1) % 4 == 0)

    def branch_in_range(self, at: np.ndarray, target: np.ndarray) -> np.ndarray:
        rel = target - (at + 5)
        return (rel >= -(2**31)) & (rel <= 2**31 - 1)

    # -- code -----------------------------------------------------------
    def find_branches_to(self, targets: np.ndarray) -> tuple[np.ndarray, ...]:
        """Every direct branch byte pattern whose target is in ``targets``
        (sorted): (addr, op, target) before boundary verification, like
        X86_64.find_branches_to (rel32 everywhere except right after int3
        padding; rel8 within reach of a target)."""
        addr_l, op_l, tgt_l = [], [], []
        for base, code in self.be.exec_regions():
            c = np.frombuffer(code, np.uint8)
            n = len(c)
            p = np.flatnonzero((c[: max(n - 4, 0)] == OP_CALL_REL32) | (c[: max(n - 4, 0)] == OP_JMP_REL32))
            after_pad = (p >= 3) & (c[np.maximum(p - 1, 0)] == OP_INT3)
            after_pad &= (c[np.maximum(p - 2, 0)] == OP_INT3) & (c[np.maximum(p - 3, 0)] == OP_INT3)
            p = p[~after_pad]
            t = base + p + 5 + i32_at(c, p + 1)
            m = isin_sorted(t, targets)
            addr_l.append(base + p[m])
            op_l.append(np.where(c[p[m]] == OP_CALL_REL32, OP_CALL, OP_JMP))
            tgt_l.append(t[m])
            q = np.flatnonzero((c[: max(n - 5, 0)] == 0x0F) & (c[1 : max(n - 4, 1)] & 0xF0 == 0x80))
            t = base + q + 6 + i32_at(c, q + 2)
            m = isin_sorted(t, targets)
            addr_l.append(base + q[m])
            op_l.append(np.full(int(m.sum()), OP_JCC))
            tgt_l.append(t[m])
            r = np.flatnonzero(((c[: max(n - 1, 0)] & 0xF0) == 0x70) | (c[: max(n - 1, 0)] == 0xEB))
            t = base + r + 2 + c[r + 1].view(np.int8).astype(np.int64)
            m = isin_sorted(t, targets)
            addr_l.append(base + r[m])
            op_l.append(np.where(c[r[m]] == 0xEB, OP_JMP8, OP_JCC8))
            tgt_l.append(t[m])
        if not addr_l:
            z = np.zeros(0, np.int64)
            return z, z.astype(np.int8), z
        a, o, t = np.concatenate(addr_l), np.concatenate(op_l).astype(np.int8), np.concatenate(tgt_l)
        order = np.argsort(a, kind="stable")
        return a[order], o[order], t[order]

    def decode_functions(self, queries: np.ndarray, lengths: np.ndarray) -> CodeFacts | None:
        """Which ``queries`` (instructions of ``lengths`` bytes if they are
        any) are instruction starts when the sized function symbol that
        holds each is decoded from its start -- X86_64.instruction_boundaries
        and the labelled-site decode of check, over columns.

        Only [function start, end of its last query) is decoded: those
        ranges are concatenated and capstone decodes the buffer in large
        chunks; a range whose start the decode does not land on (the
        previous one ended inside an instruction) is decoded again from its
        own start.  None when a query lies outside such a function or its
        section, or a decode stops at bytes capstone cannot decode (the
        object path decides those cases)."""
        img = self.image
        fs = img.func_starts_array
        asked = unique_sorted(queries)
        if not len(queries):
            return CodeFacts(np.zeros(0, bool), _empty_insns(), self, _no_branches(), asked)
        o = np.argsort(queries, kind="stable")
        q, ends = queries[o], queries[o] + lengths[o]
        k = np.searchsorted(fs, q, side="right") - 1
        if (k < 0).any():
            return None
        f = fs[k]
        first = np.flatnonzero(np.concatenate([[True], f[1:] != f[:-1]]))
        g = f[first]  # functions to decode, ascending
        gend = np.maximum.reduceat(ends, first)
        nxt = np.concatenate([fs, [np.iinfo(np.int64).max]])[np.searchsorted(fs, g, side="right")]
        # Each range inside one executable section (the object path's
        # decode never crosses a section end).
        region_ok = np.zeros(len(g), bool)
        offs = np.zeros(len(g), np.int64)
        for base, code in self.be.exec_regions():
            m = (g >= base) & (gend <= base + len(code))
            region_ok |= m
        if not region_ok.all():
            return None
        offs = img.file_offsets(g, 1, exec_only=True)
        if (offs < 0).any() or (img.file_offsets(gend - 1, 1, exec_only=True) - offs != gend - 1 - g).any():
            return None
        lens = gend - g
        bstart = np.concatenate([[0], np.cumsum(lens)[:-1]])
        total = int(lens.sum())
        idx = np.repeat(offs - bstart, lens) + np.arange(total)
        buf = img.u8[idx].tobytes()
        pieces = self._decode_buffer(buf, bstart)
        if pieces is None:
            return None
        recs = np.concatenate([p[0] for p in pieces])
        b_addr = np.concatenate([p[1] for p in pieces])
        b_txt = np.concatenate([p[2] for p in pieces])
        # Buffer offsets -> addresses; drop what lies at or after the next
        # function start (decoded there, from that function's own start).
        r = np.searchsorted(bstart, recs["address"], side="right") - 1
        recs["address"] += g[r] - bstart[r]
        recs = recs[recs["address"] < nxt[r]]
        rb = np.searchsorted(bstart, b_addr, side="right") - 1
        shift = g[rb] - bstart[rb]
        b_addr = b_addr + shift
        keep_b = b_addr < nxt[rb]
        insns = recs[np.argsort(recs["address"], kind="stable")]
        starts = insns["address"]
        j = np.searchsorted(starts, queries)
        is_start = (j < len(starts)) & (starts[np.minimum(j, max(len(starts) - 1, 0))] == queries)
        return CodeFacts(
            is_start, insns, self, _Branches(b_addr[keep_b], b_txt[keep_b], shift[keep_b]), asked
        )

    def _decode_buffer(
        self, buf: bytes, bstart: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None:
        """Decode the concatenated ranges (starting at buffer offsets
        ``bstart``) so that each range is decoded as from its own start."""
        csh = self.be.md.csh
        total = len(buf)
        out: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        p = 0
        while p < total:
            chunk = buf[p : p + CHUNK]
            got = _disasm(csh, chunk, DECODE_BIAS + p)
            if got is None:
                return None
            recs, (b_addr, b_txt) = got
            recs["address"] -= DECODE_BIAS
            b_addr -= DECODE_BIAS
            a = recs["address"]
            last_end = int(a[-1]) + int(recs["size"][-1])
            at_end = p + len(chunk) >= total
            if last_end < min(p + len(chunk), total) - (0 if at_end else 15):
                return None  # capstone stopped on bytes it cannot decode
            stop = total if at_end else int(a[-1])  # the last one may be cut by the chunk end
            # Range starts this decode ran over must be landed on.
            lo, hi = np.searchsorted(bstart, [p, stop], side="right")
            rs = bstart[lo:hi]
            if len(rs):
                landed = isin_sorted(rs, a)
                if not landed.all():
                    stop = int(rs[np.argmin(landed)])
            if stop <= p:
                return None
            kb = b_addr < stop
            out.append((recs[a < stop], b_addr[kb], b_txt[kb]))
            p = stop
        return out

    # -- padding ----------------------------------------------------------
    def nop_paddings(self, facts: CodeFacts, site: np.ndarray, func: np.ndarray) -> tuple[np.ndarray, ...]:
        """(start, length) of the NOP run (at most MAX_SITE_PADDING bytes,
        whole NOP instructions inside [func, site)) right before each
        site, length 0 when none: X86_64.nop_padding over columns."""
        ins = facts.insns
        a = ins["address"]
        sz = ins["size"].astype(np.int64)
        isnop = ins["id"] == _NOP
        k = np.searchsorted(a, site)
        start = site.copy()
        total = np.zeros(len(site), np.int64)
        live = np.ones(len(site), bool)
        for back in range(1, MAX_SITE_PADDING + 1):
            j = k - back
            jj = np.maximum(j, 0)
            step = live & (j >= 0) & isnop[jj] & (a[jj] + sz[jj] == start) & (a[jj] >= func)
            step &= total + sz[jj] <= MAX_SITE_PADDING
            total = np.where(step, total + sz[jj], total)
            start = np.where(step, a[jj], start)
            live &= step
        return start, total

    def encode_branches(
        self, op: np.ndarray, at: np.ndarray, target: np.ndarray, old: np.ndarray
    ) -> np.ndarray:
        """The verified ``call``/``jmp`` rel32 (opcode byte kept) with a new rel32."""
        new = old.copy()
        new[:, 1:] = le_bytes(target - (at + 5), 4)
        return new

    def rewrite_keeps_decode(
        self, facts: CodeFacts, addr: np.ndarray, old: np.ndarray, new: np.ndarray
    ) -> bool:
        """Only the operand changes, and the decoded instruction covering
        the operand's last byte, if any, is this 5-byte branch."""
        if (old[:, 0] != new[:, 0]).any():
            return False  # only the operand may change
        a = facts.insns["address"].astype(np.int64)
        sz = facts.insns["size"].astype(np.int64)
        j = np.searchsorted(a, addr + 4, side="right") - 1
        jj = np.maximum(j, 0)
        covered = (j >= 0) & (a[jj] + sz[jj] > addr + 1)
        return not (len(a) and not ((a[jj] == addr) & (sz[jj] == new.shape[1]))[covered].all())

    def decode_bytes(self, code: bytes, addr: int) -> np.ndarray | None:
        got = _disasm(self.be.md.csh, code, addr)
        if got is None:
            return None
        recs = got[0]
        if int(recs["address"][-1]) + int(recs["size"][-1]) != addr + len(code):
            return None
        return recs


def _branch_rows(rec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(address, operand text) of the branch instructions among capstone
    records; the text is parsed only when a target is needed
    (parse_direct_targets)."""
    br = np.flatnonzero(_IS_BRANCH[np.minimum(rec["id"], len(_IS_BRANCH) - 1)])
    ops = rec["op_str"][br]
    txt = np.frombuffer(ops.tobytes(), np.uint8).reshape(len(br), ops.dtype.itemsize)[:, :_OPS_KEPT]
    return rec["address"][br].astype(np.int64), txt.copy()


def parse_direct_targets(addr: np.ndarray, txt: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(address, target) of the direct branches among branch rows: the
    operand text of a direct branch is its target, ``0x<hex>``.  None when
    a target has more hex digits than int64 holds."""
    direct = (txt[:, 0] == ord("0")) & (txt[:, 1] == ord("x"))
    digits = _HEX[txt[direct, 2:].astype(np.intp)]
    ndig = np.argmax(digits < 0, axis=1)
    if ((digits < 0).sum(1) == 0).any() or (ndig == 0).any():
        return None
    place = ndig[:, None] - 1 - np.arange(digits.shape[1])
    return addr[direct], (np.where(place >= 0, digits, 0) * (16 ** np.clip(place, 0, 15))).sum(1)


_OPS_KEPT = 18  # "0x" + at most 15 hex digits + NUL
_HEX = np.full(256, -1, np.int64)
_HEX[np.frombuffer(b"0123456789", np.uint8)] = np.arange(10)
_HEX[np.frombuffer(b"abcdef", np.uint8)] = np.arange(10, 16)


class _Branches:
    """The decoded branch rows; their targets (decoded at DECODE_BIAS plus
    buffer offsets: ``shift`` moves them to addresses) parsed on first use."""

    def __init__(self, addr: np.ndarray, txt: np.ndarray, shift: np.ndarray) -> None:
        self.addr, self.txt, self.shift = addr, txt, shift

    def direct(self) -> tuple[np.ndarray, np.ndarray] | None:
        got = parse_direct_targets(np.arange(len(self.addr)), self.txt)
        if got is None:
            return None
        k, t = got
        return self.addr[k], t - DECODE_BIAS + self.shift[k]


def _empty_insns() -> np.ndarray:
    return np.zeros(0, INSN)


def _no_branches() -> _Branches:
    z = np.zeros(0, np.int64)
    return _Branches(z, np.zeros((0, _OPS_KEPT), np.uint8), z)


def _disasm(csh: object, code: bytes, addr: int) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]] | None:
    """The instructions capstone decodes linearly from the start of
    ``code`` (up to its invalid bytes) as INSN records, and the branch
    rows among them (_branch_rows); read as columns of the
    ``cs_insn`` array, no object per instruction."""
    ptr = ctypes.POINTER(capstone._cs_insn)()
    cnt = capstone._cs.cs_disasm(csh, code, len(code), addr, 0, ctypes.byref(ptr))
    if cnt <= 0:
        return None
    try:
        raw = (ctypes.c_char * (cnt * INSN_SIZE)).from_address(ctypes.addressof(ptr.contents))
        rec = np.frombuffer(raw, _INSN_DTYPE, cnt)
        out = np.empty(cnt, INSN)
        out["address"] = rec["address"]
        out["size"] = rec["size"]
        out["id"] = rec["id"]
        branches = _branch_rows(rec)
        del rec
    finally:
        capstone._cs.cs_free(ptr, cnt)
    return out, branches
