"""x86-64 column hooks: the checks of x86_64.py over whole numpy columns.

Same rules, same bytes, no per-entry Python: trampoline and site templates
are compared with vector gathers, discovery candidates are found by a
vector scan of the code, and instruction boundaries come from capstone
decoding each function that holds a site from its own start (read as
columns of capstone's ``cs_insn`` array).  Anything these hooks cannot
decide exactly as x86_64.py would returns None, and the caller falls back
to the object path (see columns.py).
"""

from __future__ import annotations

import ctypes

import capstone
import numpy as np
from capstone import x86_const

from dyncall_rewrite.arch import CodeFacts, ColumnHooks, TrampColumns
from dyncall_rewrite.arch.x86_64 import (
    _BRANCH_IDS,
    _CHUNK,
    _INSN_SIZE,
    _OPSTR_OFF,
    MAX_SITE_PADDING,
    OP_CALL_REL32,
    OP_INT3,
    OP_JMP_REL32,
    SLOW_PLAIN,
    X86_64,
)
from dyncall_rewrite.columns import unique_sorted

# capstone's cs_insn records as a numpy structured type (columns, no copy).
_INSN_DTYPE = np.dtype(
    {
        "names": ["id", "address", "size", "op_str"],
        "formats": ["<u4", "<u8", "<u2", "S160"],
        "offsets": [
            capstone._cs_insn.id.offset,
            capstone._cs_insn.address.offset,
            capstone._cs_insn.size.offset,
            _OPSTR_OFF,
        ],
        "itemsize": _INSN_SIZE,
    }
)
# What the columns keep of each decoded instruction (CodeFacts.insns).
INSN = np.dtype([("address", "<i8"), ("size", "<i4"), ("id", "<u4")])
_BRANCH_ID_ARRAY = np.array(sorted(_BRANCH_IDS), np.uint32)
_NOP = x86_const.X86_INS_NOP
OP_NONE, OP_CALL, OP_JMP, OP_JCC, OP_JMP8, OP_JCC8 = 0, 1, 2, 3, 4, 5


def i32_at(u8: np.ndarray, offs: np.ndarray) -> np.ndarray:
    """Little-endian int32 at each file offset (as int64)."""
    return u8[offs[:, None] + np.arange(4)].view("<i4").ravel().astype(np.int64)


class X86_64Columns(ColumnHooks):
    def __init__(self, be: X86_64) -> None:
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
        for base, code in self.be._exec_regions():
            c = np.frombuffer(code, np.uint8)
            n = len(c)
            p = np.flatnonzero((c[: max(n - 4, 0)] == OP_CALL_REL32) | (c[: max(n - 4, 0)] == OP_JMP_REL32))
            after_pad = (p >= 3) & (c[np.maximum(p - 1, 0)] == OP_INT3)
            after_pad &= (c[np.maximum(p - 2, 0)] == OP_INT3) & (c[np.maximum(p - 3, 0)] == OP_INT3)
            p = p[~after_pad]
            t = base + p + 5 + i32_at(c, p + 1)
            m = _isin_sorted(t, targets)
            addr_l.append(base + p[m])
            op_l.append(np.where(c[p[m]] == OP_CALL_REL32, OP_CALL, OP_JMP))
            tgt_l.append(t[m])
            q = np.flatnonzero((c[: max(n - 5, 0)] == 0x0F) & (c[1 : max(n - 4, 1)] & 0xF0 == 0x80))
            t = base + q + 6 + i32_at(c, q + 2)
            m = _isin_sorted(t, targets)
            addr_l.append(base + q[m])
            op_l.append(np.full(int(m.sum()), OP_JCC))
            tgt_l.append(t[m])
            r = np.flatnonzero(((c[: max(n - 1, 0)] & 0xF0) == 0x70) | (c[: max(n - 1, 0)] == 0xEB))
            t = base + r + 2 + c[r + 1].view(np.int8).astype(np.int64)
            m = _isin_sorted(t, targets)
            addr_l.append(base + r[m])
            op_l.append(np.where(c[r[m]] == 0xEB, OP_JMP8, OP_JCC8))
            tgt_l.append(t[m])
        if not addr_l:
            z = np.zeros(0, np.int64)
            return z, z.astype(np.int8), z
        a, o, t = np.concatenate(addr_l), np.concatenate(op_l).astype(np.int8), np.concatenate(tgt_l)
        order = np.argsort(a, kind="stable")
        return a[order], o[order], t[order]

    def decode_functions(self, queries: np.ndarray) -> CodeFacts | None:
        """Decode, from its own start, every sized function that holds one
        of ``queries``; which queries are instruction starts.  None when a
        query lies outside such a function or a decode stops at bytes
        capstone cannot decode (the object path decides those cases)."""
        img = self.image
        fs = img.func_starts_array
        q = unique_sorted(queries)
        if not len(q):
            return CodeFacts(np.zeros(0, bool), _empty_insns(), self, _no_branches())
        k = np.searchsorted(fs, q, side="right") - 1
        if (k < 0).any():
            return None
        fq = fs[k]
        regions = self.be._exec_regions()
        parts: list[tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]] = []
        for base, code in regions:
            end = base + len(code)
            sel = (q >= base) & (q < end)
            if not sel.any():
                continue
            qr, fr = q[sel], fq[sel]
            if (fr < base).any():
                return None
            got = self._sweep(base, code, qr, fr)
            if got is None:
                return None
            parts.extend(got)
        inside = np.zeros(len(q), bool)
        for base, code in regions:
            inside |= (q >= base) & (q < base + len(code))
        if not inside.all():
            return None
        if not parts:
            return CodeFacts(np.zeros(len(queries), bool), _empty_insns(), self, _no_branches())
        insns = np.concatenate([p[0] for p in parts])
        order = np.argsort(insns["address"], kind="stable")
        insns = insns[order]
        branches = (np.concatenate([p[1][0] for p in parts]), np.concatenate([p[1][1] for p in parts]))
        starts = insns["address"]
        j = np.searchsorted(starts, queries)
        is_start = (j < len(starts)) & (starts[np.minimum(j, len(starts) - 1)] == queries)
        return CodeFacts(is_start, insns, self, branches)  # type: ignore[arg-type]

    def _sweep(
        self, base: int, code: bytes, q: np.ndarray, fq: np.ndarray
    ) -> list[tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]] | None:
        """Chunked linear decode over the functions ``fq`` (of the sorted
        queries ``q``).  A decode continues across a following function
        start only when it lands on it (decoding is deterministic from an
        instruction start, so that equals decoding from the function's own
        start); otherwise it restarts there."""
        g = unique_sorted(fq)
        md = self.be._md
        n = len(code)
        out: list[tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]] = []
        pos = int(g[0])
        end_r = base + n
        qmax = int(q[-1])
        while True:
            off = pos - base
            chunk = code[off : off + _CHUNK]
            got = _disasm(md.csh, chunk, pos)
            if got is None:
                return None
            recs, (b_addr, b_tgt) = got
            if b_tgt is None:
                return None
            a = recs["address"]
            last_end = int(a[-1]) + int(recs["size"][-1])
            at_region_end = off + len(chunk) >= n
            if last_end < pos + len(chunk) - 15 and not at_region_end:
                return None  # capstone stopped on bytes it cannot decode
            if at_region_end and last_end < end_r and last_end <= qmax:
                return None
            stop = last_end if at_region_end else int(a[-1])  # the last one may be cut
            # Function starts of queries that this decode runs over.
            lo, hi = np.searchsorted(g, [pos, stop], side="right")
            gin = g[lo:hi]
            if len(gin):
                landed = _isin_sorted(gin, a)
                if not landed.all():
                    stop = int(gin[np.argmin(landed)])
            keep_b = b_addr < stop
            out.append((recs[a < stop], (b_addr[keep_b], b_tgt[keep_b])))
            # Next: the first query at or after stop, from its function
            # start when that lies at or after stop, else from stop (an
            # instruction start of this in-sync decode).
            iq = int(np.searchsorted(q, stop))
            if iq == len(q):
                return out
            pos = max(stop, int(fq[iq]))
            if pos >= end_r:
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

    def decode_bytes(self, code: bytes, addr: int) -> np.ndarray | None:
        got = _disasm(self.be._md.csh, code, addr)
        if got is None:
            return None
        recs = got[0]
        if int(recs["address"][-1]) + int(recs["size"][-1]) != addr + len(code):
            return None
        return recs


def _direct_branches(rec: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """(address, target) of the direct branches among capstone records:
    the operand text of a direct branch is its target, ``0x<hex>``.  The
    target column is None when some operand is not in that form."""
    br = np.flatnonzero(np.isin(rec["id"], _BRANCH_ID_ARRAY))
    ops = rec["op_str"][br]
    txt = np.frombuffer(ops.tobytes(), np.uint8).reshape(len(br), ops.dtype.itemsize)
    direct = (txt[:, 0] == ord("0")) & (txt[:, 1] == ord("x"))
    digits = _HEX[txt[direct, 2:18].astype(np.intp)]
    ndig = np.argmax(digits < 0, axis=1)
    addrs = rec["address"][br[direct]].astype(np.int64)
    if ((digits < 0).sum(1) == 0).any() or (ndig == 0).any():
        return addrs, None  # more than 15 digits, or not hex
    place = ndig[:, None] - 1 - np.arange(16)
    return addrs, (np.where(place >= 0, digits, 0) * (16 ** np.clip(place, 0, 15))).sum(1)


_HEX = np.full(256, -1, np.int64)
_HEX[np.frombuffer(b"0123456789", np.uint8)] = np.arange(10)
_HEX[np.frombuffer(b"abcdef", np.uint8)] = np.arange(10, 16)


def _isin_sorted(x: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    if not len(sorted_set):
        return np.zeros(len(x), bool)
    j = np.searchsorted(sorted_set, x)
    return sorted_set[np.minimum(j, len(sorted_set) - 1)] == x


def _empty_insns() -> np.ndarray:
    return np.zeros(0, INSN)


def _no_branches() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(0, np.int64), np.zeros(0, np.int64)


def _disasm(
    csh: object, code: bytes, addr: int
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray | None]] | None:
    """The instructions capstone decodes linearly from the start of
    ``code`` (up to its invalid bytes) as INSN records, and the (address,
    target) of the direct branches among them; read as columns of the
    ``cs_insn`` array, no object per instruction."""
    ptr = ctypes.POINTER(capstone._cs_insn)()
    cnt = capstone._cs.cs_disasm(csh, code, len(code), addr, 0, ctypes.byref(ptr))
    if cnt <= 0:
        return None
    try:
        raw = (ctypes.c_char * (cnt * _INSN_SIZE)).from_address(ctypes.addressof(ptr.contents))
        rec = np.frombuffer(raw, _INSN_DTYPE, cnt)
        out = np.empty(cnt, INSN)
        out["address"] = rec["address"]
        out["size"] = rec["size"]
        out["id"] = rec["id"]
        branches = _direct_branches(rec)
        del rec
    finally:
        capstone._cs.cs_free(ptr, cnt)
    return out, branches
