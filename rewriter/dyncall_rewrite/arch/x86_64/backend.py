"""x86-64 backend.

Trampoline (docs/abi.md, include/dyncall/abi.h), entry at 8k+3 so that the
rel32 of the patchable branch is 4-byte aligned inside one quadword::

            cc cc cc          int3 padding
    tramp:  e9 <rel32>        jmp slow     (unpatched: rel32 == 0)
    slow:   41 ff e2          jmp *%r10                    (plain)
            e9 <rel32>        jmp __dyncall_retpoline_r10  (retpoline)

A conditional site's trampoline (DYNCALL_KIND_COND, docs/hooks.md) puts a
null test in front of that slow path::

    slow:   4d 85 d2          test %r10,%r10
            74 03 | 74 05     je 1f
            41 ff e2 | e9 <rel32>
    1:      c3                ret

A site is ``e8 <rel32>`` (call) or ``e9 <rel32>`` (tail jmp) to its
trampoline.  Compiler-labelled (GCC) sites are preceded by NOP padding that
puts the rel32 on a 4-byte boundary, so the runtime retargets them with one
aligned store; sites the rewriter discovered can sit anywhere and are
retargeted with HotSpot's jump-to-self protocol, whose first write (2 bytes)
must not straddle a cache line.

The exact ABI byte templates are compared as bytes (fast, and exactly what
the ABI specifies); capstone decodes everything else: what is found instead
of a template (for messages), instruction boundaries of discovered and
labelled sites, NOP runs.
"""

from __future__ import annotations

import bisect
import ctypes
import re
import struct

import capstone
from capstone import x86_const

from dyncall_rewrite.arch import PROLOGUE_SCAN, Backend, Branch, ColumnHooks, Insn, Stream, Trampoline
from dyncall_rewrite.arch.x86_64.enc import (
    BRANCH_IDS,
    BRANCH_SIZE,
    CANONICAL_NOPS,
    CHUNK,
    COND_TEST,
    DECODE_BIAS,
    ENDBR64,
    INSN_SIZE,
    MAX_SITE_PADDING,
    OP_CALL_REL32,
    OP_JMP_REL32,
    OP_NOP,
    OP_RET,
    OPSTR_OFF,
    PROLOGUE_ENTRY,
    PROLOGUE_ENTRY_FORMS,
    PROLOGUE_PRE,
    PROLOGUE_PRE_BYTES,
    PROLOGUE_SLOT_ALIGN,
    SLOW_PLAIN,
    TRAMP_ALIGN,
    TRAMP_ENTRY_MOD,
    TRAMP_PAD,
)
from dyncall_rewrite.elf import PF_X, Image, Segment

_PAD_JMP = TRAMP_PAD + b"\xe9"
_I32 = struct.Struct("<i")
_I8 = struct.Struct("<b")
# Direct branches: call/jmp rel32, jcc rel32 (0f 80..8f), jmp/jcc rel8.
_REL32_RE = re.compile(rb"(?<!\xcc\xcc\xcc)[\xe8\xe9]|\x0f[\x80-\x8f]", re.DOTALL)
_REL8_RE = re.compile(rb"[\x70-\x7f\xeb]", re.DOTALL)
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1

# capstone's cs_insn record, unpacked in bulk: id, address, size.
_INSN_REC = struct.Struct(
    f"<I{capstone._cs_insn.address.offset - 4}xQH{INSN_SIZE - capstone._cs_insn.size.offset - 2}x"
)
# Column access to the same records (no tuple per instruction): the address
# is the n-th quadword of each record, the size a uint16 at a fixed offset.
_ADDR_OFF = capstone._cs_insn.address.offset
_SIZE_OFF = capstone._cs_insn.size.offset
_COLUMNS = INSN_SIZE % 8 == 0 and _ADDR_OFF % 8 == 0
_U16 = struct.Struct("<H")
_WINDOW = 1 << 18
_NOP = x86_const.X86_INS_NOP


def _branch_indexes(recs: list[Insn]) -> list[int]:
    return [k for k, r in enumerate(recs) if r[0] in BRANCH_IDS]


class X86_64(Backend):
    name = "x86_64"
    site_size = BRANCH_SIZE
    tramp_pad = len(TRAMP_PAD)
    has_cond = True
    has_inline = True

    def __init__(self, image: Image) -> None:
        super().__init__(image)
        self.md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
        self._targets: set[int] = set()

    def column_hooks(self) -> ColumnHooks:
        from dyncall_rewrite.arch.x86_64.columns import X86_64Columns

        return X86_64Columns(self)

    # -- trampolines ----------------------------------------------------
    def read_trampoline(self, addr: int, retpoline_thunk: int | None) -> Trampoline:
        img = self.image
        problems: list[tuple[str, str]] = []
        t = Trampoline(addr, 0, None, addr + BRANCH_SIZE, None, None, problems)
        if addr % TRAMP_ALIGN != TRAMP_ENTRY_MOD:
            problems.append(
                (
                    "DC011",
                    f"trampoline entry is at 8k+{addr % 8}, the ABI requires 8k+3"
                    " (rel32 4-byte aligned in one quadword)",
                )
            )
        pad = img.read(addr - len(TRAMP_PAD), len(TRAMP_PAD))
        if pad != TRAMP_PAD:
            found = pad.hex(" ") if pad is not None else "unmapped bytes"
            problems.append(("DC012", f"the 3 bytes before the trampoline are {found}, not cc cc cc"))
        b = img.read(addr, 10) or img.read(addr, 8)
        if b is None or b[0] != OP_JMP_REL32:
            problems.append(("DC014", f"patchable branch is `{self.describe(addr)}`, not `jmp rel32` (e9)"))
            return t
        t.branch_target = addr + BRANCH_SIZE + _I32.unpack_from(b, 1)[0]
        slow = addr + BRANCH_SIZE
        cond = img.read(addr, 16) or img.read(addr, 14)
        if cond is not None and cond[5 : 5 + len(COND_TEST)] == COND_TEST:
            return self._read_cond_trampoline(t, cond, retpoline_thunk)
        if b[5:8] == SLOW_PLAIN:
            t.slow, t.size = "plain", 8
        elif len(b) >= 10 and b[5] == OP_JMP_REL32:
            t.slow, t.size = "retpoline", 10
            t.slow_target = slow + BRANCH_SIZE + _I32.unpack_from(b, 6)[0]
            if retpoline_thunk is not None and t.slow_target != retpoline_thunk:
                problems.append(
                    (
                        "DC013",
                        f"slow path jumps to 0x{t.slow_target:x}, not to"
                        f" __dyncall_retpoline_r10 (0x{retpoline_thunk:x})",
                    )
                )
            elif not img.is_exec(t.slow_target):
                problems.append(("DC013", f"slow path jumps to 0x{t.slow_target:x}, outside executable code"))
        else:
            problems.append(
                (
                    "DC013",
                    f"slow path is `{self.describe(slow)}`, not `jmp *%r10` or `jmp __dyncall_retpoline_r10`",
                )
            )
        return t

    def _read_cond_trampoline(self, t: Trampoline, b: bytes, retpoline_thunk: int | None) -> Trampoline:
        """The slow path of a conditional trampoline: the null test, then
        the plain or retpoline branch, then `ret` (``b``: from the entry)."""
        t.cond = True
        n = BRANCH_SIZE + len(COND_TEST) + 1  # the branch after test; je
        skip = b[n - 1]
        if skip == len(SLOW_PLAIN) and b[n : n + 3] == SLOW_PLAIN and b[n + 3] == OP_RET:
            t.slow, t.size = "plain", n + 4
            return t
        if skip == BRANCH_SIZE and len(b) >= n + 6 and b[n] == OP_JMP_REL32 and b[n + 5] == OP_RET:
            t.slow, t.size = "retpoline", n + 6
            t.slow_target = t.addr + n + BRANCH_SIZE + _I32.unpack_from(b, n + 1)[0]
            if retpoline_thunk is not None and t.slow_target != retpoline_thunk:
                t.problems.append(
                    ("DC013", f"slow path jumps to 0x{t.slow_target:x}, not to __dyncall_retpoline_r10")
                )
            return t
        t.problems.append(
            (
                "DC013",
                "conditional slow path is not `test %r10,%r10; je 1f; jmp *%r10 | jmp"
                " __dyncall_retpoline_r10; 1: ret`",
            )
        )
        return t

    def trampoline_fast(self, addr: int, retpoline_thunk: int | None) -> Trampoline | None:
        """read_trampoline() for the common case: the trampoline exactly as
        the ABI specifies, or None (then read_trampoline() says why)."""
        img = self.image
        s = img.segment(addr)
        if s is None or not s.flags & PF_X or addr + 10 > s.fend or addr - 3 < s.vaddr or addr & 7 != 3:
            return None
        d = img.data
        off = s.offset + addr - s.vaddr
        if d[off - 3 : off + 1] != _PAD_JMP:
            return None
        bt = addr + BRANCH_SIZE + _I32.unpack_from(d, off + 1)[0]
        if d[off + 5 : off + 8] == SLOW_PLAIN:
            return Trampoline(addr, 8, bt, addr + BRANCH_SIZE, "plain", None, [])
        if d[off + 5] == OP_JMP_REL32 and retpoline_thunk is not None:
            st = addr + 10 + _I32.unpack_from(d, off + 6)[0]
            if st == retpoline_thunk:
                return Trampoline(addr, 10, bt, addr + BRANCH_SIZE, "retpoline", st, [])
        return None

    def trampolines_fast(self, addrs: list[int], retpoline_thunk: int | None) -> list[Trampoline | None]:
        """trampoline_fast() over all ``addrs`` at once: one loop over the
        file bytes when every address lies inside one executable segment
        (the linker puts all trampolines in one), else entry by entry."""
        seg = self._one_exec_segment(addrs, 3, 10)
        if seg is None:
            return super().trampolines_fast(addrs, retpoline_thunk)
        d = self.image.data
        delta = seg.offset - seg.vaddr
        u32 = _I32.unpack_from
        out: list[Trampoline | None] = []
        app = out.append
        for a in addrs:
            o = a + delta
            if a & 7 != 3 or d[o - 3 : o + 1] != _PAD_JMP:
                app(None)
            elif d[o + 5 : o + 8] == SLOW_PLAIN:
                app(Trampoline(a, 8, a + 5 + u32(d, o + 1)[0], a + 5, "plain", None, []))
            elif d[o + 5] == OP_JMP_REL32 and retpoline_thunk is not None:
                st = a + 10 + u32(d, o + 6)[0]
                if st == retpoline_thunk:
                    app(Trampoline(a, 10, a + 5 + u32(d, o + 1)[0], a + 5, "retpoline", st, []))
                else:
                    app(None)
            else:
                app(None)
        return out

    def sites_fast(self, addrs: list[int]) -> list[Branch | None]:
        nz = [a for a in addrs if a]
        seg = self._one_exec_segment(nz, 0, BRANCH_SIZE) if nz else None
        if seg is None:
            return super().sites_fast(addrs)
        d = self.image.data
        delta = seg.offset - seg.vaddr
        u32 = _I32.unpack_from
        out: list[Branch | None] = []
        app = out.append
        for a in addrs:
            if not a:
                app(None)
                continue
            c = d[a + delta]
            if c == OP_CALL_REL32:
                app(Branch(a, BRANCH_SIZE, "call", a + BRANCH_SIZE + u32(d, a + delta + 1)[0]))
            elif c == OP_JMP_REL32:
                app(Branch(a, BRANCH_SIZE, "jmp", a + BRANCH_SIZE + u32(d, a + delta + 1)[0]))
            else:
                app(None)
        return out

    def _one_exec_segment(self, addrs: list[int], before: int, after: int) -> Segment | None:
        """The executable segment whose file-backed part holds [a-before,
        a+after) for every a in ``addrs``, if there is one."""
        if not addrs:
            return None
        lo, hi = min(addrs), max(addrs)
        s = self.image.segment(lo)
        if s is None or not s.flags & PF_X or lo - before < s.vaddr or hi + after > s.fend:
            return None
        return s

    # -- sites ------------------------------------------------------------
    def decode_site(self, addr: int) -> Branch | None:
        b = self.image.read(addr, BRANCH_SIZE)
        if b is None or b[0] not in (OP_CALL_REL32, OP_JMP_REL32):
            return None
        op = "call" if b[0] == OP_CALL_REL32 else "jmp"
        return Branch(addr, BRANCH_SIZE, op, addr + BRANCH_SIZE + _I32.unpack_from(b, 1)[0])

    def site_alignment_problem(self, site: int, compiler_labelled: bool) -> tuple[str, str] | None:
        rel = site + 1
        if compiler_labelled:
            if rel % 4:
                return (
                    "DC023",
                    f"rel32 at 0x{rel:x} is not 4-byte aligned: the NOP padding before the"
                    " site is missing or wrong, so the runtime cannot retarget it with one"
                    " aligned store",
                )
            return None
        # A site anywhere else is retargeted either with one aligned 8-byte
        # store (rel32 inside one quadword) or with jump-to-self, whose
        # atomic 2-byte write at `site` would straddle a cache line only for
        # site % 64 == 63 -- but then rel32 starts a quadword.  Nothing to
        # check on x86-64.
        return None

    def encode_branch(self, op: str, at: int, target: int) -> bytes | None:
        rel = target - (at + BRANCH_SIZE)
        if not _INT32_MIN <= rel <= _INT32_MAX:
            return None
        opc = OP_CALL_REL32 if op == "call" else OP_JMP_REL32
        return bytes([opc]) + _I32.pack(rel)

    # -- code search ----------------------------------------------------
    def exec_regions(self) -> list[tuple[int, bytes]]:
        """(vaddr, bytes) of executable code: SHF_EXECINSTR sections when
        section headers exist, else PF_X segments."""
        img = self.image
        out = []
        for s in img.sections:
            if s.flags & 0x4 and s.flags & 0x2 and s.type != 8 and s.size:
                b = img.read(s.addr, s.size)
                if b is not None and img.is_exec(s.addr, s.size):
                    out.append((s.addr, b))
        if not out:
            for seg in img.segments:
                if seg.flags & PF_X and seg.filesz:
                    out.append((seg.vaddr, bytes(img.data[seg.offset : seg.offset + seg.filesz])))
        return out

    def find_branches_to(self, targets: set[int]) -> dict[int, list[Branch]]:
        """Candidates are found by a byte scan (rel32 forms everywhere,
        rel8 forms only within reach of a trampoline), then kept only when
        capstone, decoding the enclosing function from its start, finds an
        instruction there.  A trampoline's own ``e9`` (after ``cc cc cc``) is
        skipped by the pattern: no site can follow int3 padding, since the
        instruction before a site loads the static chain."""
        if not targets:
            return {}
        cands: list[Branch] = []
        unpack32, unpack8 = _I32.unpack_from, _I8.unpack_from
        tr = sorted(targets)
        windows: list[list[int]] = []  # reach of rel8 branches to trampolines
        for t in tr:
            if windows and t - 130 <= windows[-1][1]:
                windows[-1][1] = t + 130
            else:
                windows.append([t - 130, t + 130])
        for base, code in self.exec_regions():
            n = len(code)
            for m in _REL32_RE.finditer(code):
                p = m.start()
                c = code[p]
                if c != 0x0F:
                    if p + 5 > n:
                        continue
                    t = base + p + 5 + unpack32(code, p + 1)[0]
                    if t in targets:
                        cands.append(Branch(base + p, 5, "call" if c == 0xE8 else "jmp", t))
                else:
                    if p + 6 > n:
                        continue
                    t = base + p + 6 + unpack32(code, p + 2)[0]
                    if t in targets:
                        cands.append(Branch(base + p, 6, "jcc", t))
            for lo, hi in windows:
                lo, hi = max(lo - base, 0), min(hi - base, n)
                if lo >= hi:
                    continue
                for m in _REL8_RE.finditer(code, lo, hi):
                    p = m.start()
                    if p + 2 > n:
                        continue
                    c = code[p]
                    t = base + p + 2 + unpack8(code, p + 1)[0]
                    if t in targets:
                        cands.append(Branch(base + p, 2, "jmp8" if c == 0xEB else "jcc8", t))
        verified = self.instruction_boundaries([b.addr for b in cands])
        out: dict[int, list[Branch]] = {}
        for b in cands:
            if b.addr in verified:
                out.setdefault(b.target, []).append(b)
        return out

    def instruction_boundaries(self, addrs: list[int]) -> set[int]:
        """The subset of ``addrs`` that are instruction starts of executable
        code decoded from the start of the enclosing function.

        One linear sweep per executable region, in large chunks, that
        restarts at every function symbol it does not land on: then every
        function is decoded exactly as from its own start (decoding is
        deterministic from a boundary).  Code before the first candidate's
        function and between candidates' functions is skipped when symbols
        say where functions start; without symbols the sweep runs from the
        region start."""
        img = self.image
        ok: set[int] = set()
        want = sorted(set(addrs))
        fstarts = img.func_starts
        for base, code in self.exec_regions():
            end_r = base + len(code)
            lo = bisect.bisect_left(want, base)
            hi = bisect.bisect_left(want, end_r)
            if lo < hi:
                ok.update(self._sweep_verify(base, code, want[lo:hi], fstarts))
        return ok

    def _sweep_verify(self, base: int, code: bytes, cands: list[int], fstarts: list[int]) -> set[int]:
        ok: set[int] = set()
        n = len(code)
        pos = 0
        ci = 0
        while ci < len(cands):
            nxt = cands[ci]
            k = bisect.bisect_right(fstarts, nxt) - 1
            if k >= 0 and base + pos < fstarts[k] <= nxt:
                pos = fstarts[k] - base  # skip to the candidate's function
            if pos >= n:
                break
            addrs, stop = self._starts(code[pos : pos + CHUNK], base + pos)
            if not addrs:
                # undecodable byte: a candidate here is no instruction
                while ci < len(cands) and cands[ci] <= base + pos:
                    ci += 1
                pos += 1
                continue
            starts = set(addrs)
            if len(addrs) > 1 and stop > base + pos + CHUNK - 16:
                stop = addrs[-1]  # the last one may be cut by the chunk end
            # Restart at the first function start the sweep did not land on.
            f = bisect.bisect_right(fstarts, base + pos)
            while f < len(fstarts) and fstarts[f] < stop:
                if fstarts[f] not in starts:
                    stop = fstarts[f]
                    break
                f += 1
            while ci < len(cands) and cands[ci] < stop:
                if cands[ci] in starts:
                    ok.add(cands[ci])
                ci += 1
            pos = stop - base
        return ok

    def _starts(self, code: bytes, base: int) -> tuple[list[int], int]:
        """Addresses of the instructions capstone decodes linearly from the
        start of ``code`` (one ``cs_disasm`` call: ``len(code) <= CHUNK``;
        stops at invalid bytes) and the end of the last one.  Reads the
        address column of the ``cs_insn`` array directly."""
        if not _COLUMNS:
            recs, _ = self._disasm(code, base, targets_too=False)
            return [r[1] for r in recs], (recs[-1][1] + recs[-1][2] if recs else base)
        ptr = ctypes.POINTER(capstone._cs_insn)()
        cnt = capstone._cs.cs_disasm(self.md.csh, code, len(code), base, 0, ctypes.byref(ptr))
        if cnt <= 0:
            return [], base
        try:
            raw = ctypes.string_at(ptr, cnt * INSN_SIZE)
        finally:
            capstone._cs.cs_free(ptr, cnt)
        with memoryview(raw) as mv, mv.cast("Q") as q:
            addrs = q[_ADDR_OFF // 8 :: INSN_SIZE // 8].tolist()
        return addrs, addrs[-1] + _U16.unpack_from(raw, (cnt - 1) * INSN_SIZE + _SIZE_OFF)[0]

    def _disasm(
        self, code: bytes, base: int, targets_too: bool = True, bias: int = 0
    ) -> tuple[list[Insn], dict[int, int]]:
        """(capstone insn id, address, size) of every instruction capstone
        decodes linearly from the start of ``code`` (stops at invalid bytes).
        ``bias``: capstone decodes at ``base + bias`` and the addresses and
        targets are returned without it (DECODE_BIAS: see there).

        Goes through capstone's C ``cs_disasm`` and unpacks the returned
        ``cs_insn`` array in bulk: the Python binding's per-instruction
        objects cost ~10x more, which dominates for 10^5..10^6 instructions.
        """
        out: list[Insn] = []
        targets: dict[int, int] = {}
        pos = 0
        n = len(code)
        while pos < n:
            ptr = ctypes.POINTER(capstone._cs_insn)()
            chunk = code[pos : pos + CHUNK]
            cnt = capstone._cs.cs_disasm(
                self.md.csh, chunk, len(chunk), base + bias + pos, 0, ctypes.byref(ptr)
            )
            if cnt <= 0:
                break
            try:
                raw = ctypes.string_at(ptr, cnt * INSN_SIZE)
            finally:
                capstone._cs.cs_free(ptr, cnt)
            recs = list(_INSN_REC.iter_unpack(raw))
            if bias:
                recs = [(i, a - bias, n) for i, a, n in recs]
            for k in _branch_indexes(recs) if targets_too else ():
                # direct branch: keep its target (op_str is "0x...")
                o = k * INSN_SIZE + OPSTR_OFF
                op = raw[o : raw.index(b"\0", o)]
                if op.startswith(b"0x"):
                    targets[recs[k][1]] = int(op, 16) - bias
            out.extend(recs)
            _, last_a, last_sz = recs[-1]
            consumed = last_a + last_sz - (base + pos)
            pos += consumed
            if consumed < len(chunk) - 15:  # stopped on invalid bytes
                break
        return out, targets

    def decode_ranges(self, ranges: list[tuple[int, int]]) -> list[Stream]:
        """Decode every [start, end) range linearly.

        The ranges are concatenated and decoded by capstone in windows of
        ~256 KiB (per-call overhead dominates for many small functions);
        each range takes its slice of the result (by bisection).  A range
        whose start is not an instruction boundary of the window's decode
        (the previous range ran past its end) is decoded again on its own.
        ``ok`` is False when decoding stopped inside the range or its last
        instruction runs past its end."""
        img = self.image
        chunks: list[bytes] = []
        offs: list[int] = []
        pos = 0
        for start, end in ranges:
            b = img.read(start, end - start) if end > start else None
            b = b or b""
            offs.append(pos)
            chunks.append(b)
            pos += len(b)
        buf = b"".join(chunks)
        streams = [Stream(r[0], r[1], [], True, 0) for r in ranges]
        for st, c in zip(streams, chunks, strict=True):
            if len(c) != st.end - st.start and st.end > st.start:
                st.ok = False
        n = len(ranges)
        i = 0
        while i < n:
            if not chunks[i]:
                i += 1
                continue
            lo_off = offs[i]
            window_end = max(lo_off + _WINDOW, lo_off + len(chunks[i]))
            recs, btargets = self._disasm(buf[lo_off:window_end], lo_off, bias=DECODE_BIAS)
            addrs = [r[1] for r in recs]
            decoded_end = recs[-1][1] + recs[-1][2] if recs else lo_off
            j = i
            restart = None
            while j < n:
                s0, e0 = offs[j], offs[j] + len(chunks[j])
                if not chunks[j]:
                    j += 1
                    continue
                if e0 > window_end and j > i:
                    restart = j  # not entirely inside this window
                    break
                k = bisect.bisect_left(addrs, s0)
                if k == len(addrs) or addrs[k] != s0:
                    if s0 >= decoded_end and j > i:
                        restart = j  # decoding stopped before this range
                        break
                    if j > i:
                        restart = j  # desynchronized: decode it on its own
                        break
                    streams[j].ok = False
                    j += 1
                    continue
                h = bisect.bisect_left(addrs, e0, k)
                st = streams[j]
                st.insns = recs[k:h]
                st.delta = st.start - s0
                last_end = recs[h - 1][1] + recs[h - 1][2]
                if last_end != e0:
                    st.ok = False
                st.btargets = btargets
                j += 1
                if last_end > e0:
                    restart = j  # the next range starts inside this instruction
                    break
            i = restart if restart is not None else n
        return streams

    def nop_padding(self, stream: Stream, site: int) -> tuple[int, int] | None:
        insns, d = stream.insns, stream.delta
        idx = len(insns) - 1
        while idx >= 0 and insns[idx][1] + d != site:
            idx -= 1
        if idx < 0:
            return None
        total = 0
        start = site
        k = idx - 1
        while k >= 0 and insns[k][0] == _NOP:
            if total + insns[k][2] > MAX_SITE_PADDING:
                break
            total += insns[k][2]
            start = insns[k][1] + d
            k -= 1
        return (start, total) if total else None

    def branch_targets(self, stream: Stream) -> set[int]:
        """Direct branch targets of the instructions of ``stream``."""
        d = stream.delta
        bt = stream.btargets
        return {bt[r[1]] + d for r in stream.insns if r[0] in BRANCH_IDS and r[1] in bt}

    def canonical_nops(self, n: int) -> bytes:
        out = b""
        while n > 0:
            k = min(n, 9)
            out += CANONICAL_NOPS[k]
            n -= k
        return out

    prologue_slot_align = PROLOGUE_SLOT_ALIGN
    prologue_entry_bytes = PROLOGUE_ENTRY

    def prologue_hookable(self, rec: int, f: int, body: int) -> bool:
        """The bytes arch_fentry_probe accepts (its alignment condition is
        DC062's)."""
        img = self.image
        return (
            f - rec == PROLOGUE_PRE
            and img.read(rec, PROLOGUE_PRE) == PROLOGUE_PRE_BYTES
            and img.read(body, PROLOGUE_ENTRY) in PROLOGUE_ENTRY_FORMS
        )

    def prologue_direct(self, f: int, body: int, entry_insns: tuple[int, ...]) -> bool:
        """The runtime's direct entry (arch_fentry_probe's DIRECT_LEN): the
        entry is one 5-byte NOP (Clang; GCC with the dyncall plugin) at the
        function's first byte (no endbr64), which is 8-aligned; GCC's five
        one-byte NOPs and an entry after endbr64 keep the two-byte jump."""
        return body == f and f % PROLOGUE_SLOT_ALIGN == 0 and entry_insns[:1] == (PROLOGUE_ENTRY,)

    def prologue_run(self, addr: int) -> list[tuple[int, int, str]]:
        img = self.image
        seg = img.segment(addr)
        if seg is None or not img.is_exec(addr):
            return []
        b = img.read(addr, min(PROLOGUE_SCAN, seg.fend - addr)) or b""
        out = []
        i, n = 0, len(b)
        while i < n:
            if b[i] == OP_NOP:  # the compilers' one-byte NOPs: no decode
                out.append((addr + i, 1, "nop"))
                i += 1
            elif b[i : i + 4] == ENDBR64:
                out.append((addr + i, 4, "endbr64"))
                i += 4
            else:
                insn = next(self.md.disasm_lite(b[i : i + 15], addr + i, 1), None)
                if insn is None or insn[2] != "nop":
                    break
                out.append((addr + i, insn[1], "nop"))
                i += insn[1]
        return out

    def describe(self, addr: int, n: int = 16) -> str:
        img = self.image
        b = None
        while n > 0 and b is None:
            b = img.read(addr, n)
            n -= 1
        if not b:
            return "<unmapped>"
        for _, _, mn, ops in self.md.disasm_lite(b, addr, 1):
            return f"{mn} {ops}".strip()
        return "invalid bytes " + b[:4].hex(" ")
