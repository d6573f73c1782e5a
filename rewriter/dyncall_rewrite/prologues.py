"""The rules of ``__patchable_function_entries`` (DC060-DC065), of the
XRay entry sleds of ``xray_instr_map`` (ppc64le, Clang's route: the same
codes), and of ``__dyncall_fn_records`` (DC066), on the
engine of rules.py, and their runner (``check_prologues``).

Each record of the section (one pointer per function compiled with
``-fpatchable-function-entry=N,M`` or the ``patchable_function_entry``
attribute, written by both compilers) holds the address of the first of
the function's N NOPs, M of them before the function's entry.  check
validates what the runtime (runtime/prologue.c, docs/prologues.md) and any
other patcher rely on: the record points into executable code, at an
instruction start, at a run of the arch's NOPs that holds the function's
entry and at least one NOP at the entry (after its landing pad if any: x86-64 ``endbr64``, aarch64
``bti c``; ppc64le: or the run starts at the local entry, after the TOC
set-up), and the run overlaps no dyncall site or trampoline.  Records that
are 0 (a function the linker dropped) or repeat an earlier one are skipped
by the runtime, as the Linux kernel skips them: a note.

The section is small (one record per function) and always checked entry
by entry: these rules have no vectorised form.
"""

from __future__ import annotations

import bisect
import itertools
import struct
from dataclasses import dataclass, field

from dyncall_rewrite import abi
from dyncall_rewrite.arch import Backend
from dyncall_rewrite.diagnostics import CODES, ERROR, Diagnostic
from dyncall_rewrite.elf import Image
from dyncall_rewrite.model import Analysis, PrologueInfo
from dyncall_rewrite.rules import RuleSet
from dyncall_rewrite.tables import Section, find_table, section_problems

RULES = RuleSet()
SECTION = "__patchable_function_entries"
RECORD_SIZE = 8  # one pointer (64-bit targets)


@dataclass
class PrologueContext:
    image: Image
    backend: Backend
    diagnostics: list[Diagnostic]
    func_starts: list[int]
    # Every trampoline (with its padding) and site of the dyncall tables:
    # starts sorted, with the running maximum of their ends.
    owned_starts: list[int] = field(default_factory=list)
    owned_reach: list[int] = field(default_factory=list)
    seen: dict[int, int] = field(default_factory=dict)  # record -> first index

    def report(self, code: str, addr: int | None, msg: str, p: PrologueInfo | None = None) -> None:
        self.diagnostics.append(Diagnostic(code, addr, msg, p.index if p is not None else None, SECTION))
        if p is not None and CODES[code][0] == ERROR:
            p.state = "invalid"


def _what(p: PrologueInfo) -> str:
    return f"patchable entry #{p.index} (0x{p.record or 0:x})"


@RULES.rule("DC060", stage="prologue-table")
def section_readable(ctx: PrologueContext, t: Section) -> bool:
    """A section of whole 8-byte records, allocated and file-backed."""
    for problem in section_problems(t):
        ctx.report("DC060", t.addr, f"section {t.name} {problem}")
    return t.data is not None


@RULES.rule("DC065", stage="prologue")
def zero_or_duplicate(ctx: PrologueContext, p: PrologueInfo) -> bool:
    """Records the runtime skips: 0 (or, in a PIE, the module base alone:
    the relocated value of 0) and repeats; one whose value the loader binds
    to a symbol is not known here and not checked."""
    if p.record is None:
        p.state = "unknown"
        return False
    if p.record == 0:
        p.state = "zero"
        msg = f"patchable entry #{p.index} is 0 (a function the linker dropped): the runtime skips it"
        ctx.report("DC065", p.addr, msg, p)
        return False
    first = ctx.seen.setdefault(p.record, p.index)
    if first != p.index:
        p.state = "duplicate"
        msg = (
            f"patchable entry #{p.index} repeats entry #{first} (0x{p.record:x}):"
            " the runtime registers the function once"
        )
        ctx.report("DC065", p.addr, msg, p)
        return False
    return True


@RULES.rule("DC061", stage="prologue")
def in_code(ctx: PrologueContext, p: PrologueInfo) -> bool:
    assert p.record is not None
    if not ctx.image.is_exec(p.record):
        ctx.report("DC061", p.record, f"{_what(p)} is not in an executable segment", p)
        return False
    return True


@RULES.rule("DC062", stage="prologue")
def aligned(ctx: PrologueContext, p: PrologueInfo) -> bool:
    """The record is an instruction start (aarch64, ppc64le: 4-aligned)."""
    assert p.record is not None
    a = ctx.backend.prologue_align
    if p.record % a:
        ctx.report("DC062", p.record, f"{_what(p)} is not {a}-byte aligned: not an instruction start", p)
        return False
    return True


@RULES.rule("DC063", stage="prologue")
def nop_shape(ctx: PrologueContext, p: PrologueInfo) -> bool:
    """The record points at a run of the arch's NOPs holding the function's
    entry: M NOPs before it, the landing pad the function may start with,
    the NOPs at the entry (none when all N are before it)."""
    why = _shape(ctx, p)
    if why is not None:
        msg = f"{_what(p)} does not point at the NOPs of a patchable prologue: {why}"
        ctx.report("DC063", p.record, msg, p)
        return False
    return True


def _shape(ctx: PrologueContext, p: PrologueInfo) -> str | None:
    """Fill p's layout from the run at its record; why not, or None."""
    be, rec = ctx.backend, p.record
    assert rec is not None
    run = be.prologue_run(rec)
    if not run:
        return f"`{be.describe(rec)}` is not a NOP"
    starts = [a for a, _, _ in run]
    p.end = end = run[-1][0] + run[-1][1]
    pads = [(a, n, k) for a, n, k in run if k != "nop"]
    got = _entry(ctx, rec, end, pads)
    if got is None:
        return f"no function starts within its NOPs (0x{rec:x}..0x{end:x})"
    f, pad = got
    if f >= rec and f != end and f not in starts:
        return f"the function entry 0x{f:x} is inside a NOP"
    if pads and (len(pads) > 1 or pads[0][0] != f):
        a, _, k = pads[-1] if pads[0][0] == f else pads[0]
        return f"landing pad `{k}` at 0x{a:x} is not the first instruction of the function (0x{f:x})"
    body = max(f, rec) + (pads[0][1] if pads else 0)
    if body >= end:
        return f"no NOP at the function entry 0x{f:x} (`{be.describe(body)}`): nothing to patch there"
    p.function, p.pre, p.entry_nops = f, max(f - rec, 0), end - body
    p.pad = pads[0][2] if pads else pad
    p.hookable = be.prologue_hookable(rec, f, body)
    insns = [(a, n) for a, n, k in run if a >= body and k == "nop"]
    if p.hookable and be.prologue_entry_bytes:
        # the runtime's entry is its first bytes; NOPs after them are the
        # body's (GCC's loop alignment right after the entry: nopl (%rax))
        insns = [(a, n) for a, n in insns if a < body + be.prologue_entry_bytes]
        p.entry_nops = sum(n for _, n in insns)
    p.entry_insns = tuple(n for _, n in insns)
    p.direct = p.hookable and be.prologue_direct(f, body, p.entry_insns)
    return None


def _entry(
    ctx: PrologueContext, rec: int, end: int, pads: list[tuple[int, int, str]]
) -> tuple[int, str | None] | None:
    """The function entry the run holds, and the landing pad before the
    record if any: a function symbol in [rec, end]; or the function
    containing the record, when the record follows its landing pad (Clang,
    no NOPs before the entry) or is its local entry (ppc64le, after the TOC
    set-up).  Without function symbols (stripped): the pad or the record."""
    fs, be = ctx.func_starts, ctx.backend
    if not fs:
        return (pads[0][0] if pads else rec), None
    i = bisect.bisect_left(fs, rec)
    if i < len(fs) and fs[i] <= end:
        return fs[i], None
    if i == 0:
        return None
    f = fs[i - 1]
    if be.local_entry(f) == rec:
        return f, None
    first = be.prologue_run(f)[:1]
    if first and first[0][2] != "nop" and f + first[0][1] == rec and not pads:
        return f, first[0][2]
    return None


@RULES.rule("DC062", stage="prologue")
def slot_aligned(ctx: PrologueContext, p: PrologueInfo) -> None:
    """A record of the runtime's layout starts with its 8-byte slot, which
    the runtime replaces with one aligned store."""
    assert p.record is not None
    a = ctx.backend.prologue_slot_align
    if p.hookable and p.record % a:
        msg = (
            f"{_what(p)} has the runtime's layout but is not {a}-byte aligned: the runtime"
            " replaces its first 8 bytes (the slot) with one aligned store"
        )
        ctx.report("DC062", p.record, msg, p)


@RULES.rule("DC064", stage="prologue")
def apart_from_sites(ctx: PrologueContext, p: PrologueInfo) -> None:
    """The NOPs are not also a dyncall site, a trampoline or a labelled
    site's NOP padding (relax would rewrite prologue bytes)."""
    assert p.record is not None
    k = bisect.bisect_left(ctx.owned_starts, p.end)
    if k > 0 and ctx.owned_reach[k - 1] > p.record:
        msg = f"{_what(p)}: its NOPs 0x{p.record:x}..0x{p.end:x} overlap a dyncall site or trampoline"
        ctx.report("DC064", p.record, msg, p)


# -- the runner -----------------------------------------------------------------


def check_prologues(an: Analysis) -> None:
    """Run the rules on every record of __patchable_function_entries (if
    the image has one) and, on ppc64le, on every XRay entry sled of
    xray_instr_map (Clang's route); the records go to ``an.prologues``."""
    _check_pfe(an)
    if an.backend.name == "ppc64le":
        check_xray_sleds(an)
    check_fn_records(an)


def _check_pfe(an: Analysis) -> None:
    img = an.image
    sec = find_table(img, SECTION, RECORD_SIZE, RECORD_SIZE)
    if sec is None:
        return
    an.has_prologues = True
    ctx = PrologueContext(img, an.backend, an.diagnostics, img.func_starts)
    if not RULES.diagnose("prologue-table", ctx, sec):
        return
    ctx.owned_starts, ctx.owned_reach = _owned(an)
    n = sec.size // RECORD_SIZE
    for i in range(n):
        addr = sec.addr + i * RECORD_SIZE
        pv = img.pointer(addr)
        p = PrologueInfo(i, addr, pv.value if pv.known else None)
        an.prologues.append(p)
        RULES.diagnose("prologue", ctx, p)


# -- ppc64le: Clang's XRay entry sleds (xray_instr_map) ---------------------------
#
# Clang 19 refuses -fpatchable-function-entry on ppc64le; dyncall-cc asks it
# for XRay entry sleds instead (docs/prologues.md "ppc64le: Clang's XRay
# entry sled").  Each xray_instr_map entry is 32 bytes: the sled and the
# function, relative to the entry (version 2: the linker resolves them, no
# dynamic relocation), kind (0: function entry), always-instrument, version,
# padding.  The runtime registers the entry sleds and patches the sled's
# first word, `b .+28`, into `b stub` and back.

XRAY_SECTION = "xray_instr_map"
XRAY_ENTRY_SIZE = 32
XRAY_KIND_ENTRY = 0
XRAY_VERSION = 2
SLED_LEN = 28
_SLED = (
    (0x4800001C, 0xFFFFFFFF, "b .+28"),
    (0x60000000, 0xFFFFFFFF, "nop"),
    (0xF801FFF8, 0xFFFFFFFF, "std 0, -8(1)"),
    (0x7C0802A6, 0xFFFFFFFF, "mflr 0"),
    (0x48000001, 0xFC000003, "bl __xray_FunctionEntry"),
    (None, None, "nop or ld 2, 24(1)"),
    (0x7C0803A6, 0xFFFFFFFF, "mtlr 0"),
)
_NOP_OR_TOC_RESTORE = (0x60000000, 0xE8410018)


def _sled_why(ctx: PrologueContext, p: PrologueInfo) -> str | None:
    """Why the entry sled at p.record (function p.function) is not the shape
    the runtime patches, or None."""
    be, sled, f = ctx.backend, p.record, p.function
    assert sled is not None and f is not None
    if f != sled and not (f + 8 == sled and be.local_entry(f) == sled):
        return (
            f"the sled is not at the function's entry 0x{f:x} (nor at its local entry after the"
            " TOC set-up): patching it would miss calls"
        )
    raw = ctx.image.read(sled, 4 * len(_SLED))
    if raw is None:
        return "its bytes are not in the file"
    w = struct.unpack(f"<{len(_SLED)}I", raw)
    for i, ((want, mask, text), got) in enumerate(zip(_SLED, w, strict=True)):
        ok = got in _NOP_OR_TOC_RESTORE if want is None else got & mask == want
        if not ok:
            return f"word {i} at 0x{sled + 4 * i:x} is `{be.describe(sled + 4 * i)}`, not `{text}`"
    return None


def check_xray_sleds(an: Analysis) -> None:
    """The rules DC060-DC065 on the entry sleds of xray_instr_map: the section
    whole 32-byte entries (DC060); entries of other kinds (exit, tail call)
    are not listed; zero, duplicate and other-version entries are skipped
    by the runtime (DC065); the sled in executable code (DC061), 4-byte
    aligned (DC062), of the expected shape at the function's (local) entry
    (DC063), apart from dyncall sites (DC064)."""
    img = an.image
    sec = find_table(img, XRAY_SECTION, XRAY_ENTRY_SIZE, 1)
    if sec is None:
        return
    an.has_prologues = True
    ctx = PrologueContext(img, an.backend, an.diagnostics, img.func_starts)
    for problem in section_problems(sec):
        msg = f"section {sec.name} {problem}"
        ctx.diagnostics.append(Diagnostic("DC060", sec.addr, msg, None, XRAY_SECTION))
    if sec.data is None:
        return
    ctx.owned_starts, ctx.owned_reach = _owned(an)
    first = len(an.prologues)
    for i in range(sec.size // XRAY_ENTRY_SIZE):
        e = sec.data[i * XRAY_ENTRY_SIZE : (i + 1) * XRAY_ENTRY_SIZE]
        addr = sec.addr + i * XRAY_ENTRY_SIZE
        sled_rel = int.from_bytes(e[0:8], "little", signed=True)
        fn_rel = int.from_bytes(e[8:16], "little", signed=True)
        kind, version = e[16], e[18]
        if kind != XRAY_KIND_ENTRY:
            continue  # exit and tail-call sleds: not patched
        p = PrologueInfo(len(an.prologues) - first, addr, None, sled="xray")
        an.prologues.append(p)
        why = _xray_entry(ctx, p, sled_rel, fn_rel, version)
        if why is not None:
            code, at, msg = why
            if code != "DC065":
                p.state = "invalid"
            an.diagnostics.append(Diagnostic(code, at, msg, p.index, XRAY_SECTION))


def _xray_entry(
    ctx: PrologueContext, p: PrologueInfo, sled_rel: int, fn_rel: int, version: int
) -> tuple[str, int, str] | None:
    """Fill p from one entry sled; the diagnostic (code, address, message)
    if the runtime skips or refuses it, else None."""
    img, addr = ctx.image, p.addr
    if version != XRAY_VERSION:
        p.state = "unknown"
        return (
            "DC065",
            addr,
            f"entry sled #{p.index} has version {version}, not {XRAY_VERSION}: the runtime skips it",
        )
    if sled_rel == 0:
        p.state = "zero"
        return "DC065", addr, f"entry sled #{p.index} is 0: the runtime skips it"
    p.record = sled = (addr + sled_rel) & (2**64 - 1)
    p.function = f = (addr + 8 + fn_rel) & (2**64 - 1)
    first = ctx.seen.setdefault(sled, p.index)
    if first != p.index:
        p.state = "duplicate"
        return (
            "DC065",
            addr,
            f"entry sled #{p.index} repeats #{first} (0x{sled:x}): the runtime registers it once",
        )
    what = f"entry sled #{p.index} (0x{sled:x})"
    if not img.is_exec(sled) or not img.is_exec(f):
        return "DC061", sled, f"{what} or its function is not in an executable segment"
    if sled % 4 or f % 4:
        return "DC062", sled, f"{what} is not 4-byte aligned: not an instruction start"
    why = _sled_why(ctx, p)
    if why is not None:
        return "DC063", sled, f"{what} is not the XRay entry sled the runtime patches: {why}"
    p.end, p.entry_nops, p.pre, p.hookable = sled + SLED_LEN, SLED_LEN, 0, True
    k = bisect.bisect_left(ctx.owned_starts, p.end)
    if k > 0 and ctx.owned_reach[k - 1] > sled:
        p.hookable = False
        return (
            "DC064",
            sled,
            f"{what}: its sled 0x{sled:x}..0x{p.end:x} overlaps a dyncall site or trampoline",
        )
    return None


# The integer argument registers a record's DYNCALL_FN_REC_INT_COUNT may
# count, per arch (abi.h DYNCALL_<ARCH>_INT_ARG_REGS, the runtime's
# ARCH_FENTRY_INT_REGS): x86-64 rdi..r9, aarch64 x0-x7, ppc64le r3-r10.
INT_ARG_REGS = {
    "x86_64": abi.DYNCALL_X86_64_INT_ARG_REGS,
    "aarch64": abi.DYNCALL_AARCH64_INT_ARG_REGS,
    "ppc64le": abi.DYNCALL_PPC64LE_INT_ARG_REGS,
}


@dataclass
class FnRecordContext:
    image: Image
    diagnostics: list[Diagnostic]
    entries: dict[int, PrologueInfo]  # function entry -> its valid record
    int_arg_regs: int = abi.DYNCALL_X86_64_INT_ARG_REGS  # the arch's integer argument registers
    ppc64le: bool = False  # two counts: f1-f13 (n) and v2-v13 (m)
    x8: bool = False  # aarch64: DYNCALL_FN_REC_INT_X8 (the indirect result register) is valid
    image_arch: str = "x86_64"

    def report(self, addr: int | None, msg: str, index: int | None = None) -> None:
        self.diagnostics.append(Diagnostic("DC066", addr, msg, index, abi.DYNCALL_FN_RECORDS_SECTION))


@RULES.rule("DC066", stage="fn-record-table")
def fn_records_readable(ctx: FnRecordContext, t: Section) -> bool:
    """__dyncall_fn_records: whole 16-byte records, allocated, file-backed."""
    for problem in section_problems(t):
        ctx.report(t.addr, f"section {t.name} {problem}")
    return t.data is not None and not section_problems(t)


@RULES.rule("DC066", stage="fn-record")
def fn_record_names_an_entry(ctx: FnRecordContext, rec: tuple[int, int]) -> bool:
    """A record names the entry of a function that a
    __patchable_function_entries record registers (the runtime ignores one
    that does not: the function keeps the full vector saves).  A record the
    loader binds to a symbol (a preemptible function of a shared object)
    is checked against the file's own definition of it, one bound to a
    symbol the file does not define is not checked; 0 (a function the
    linker dropped) is ignored like the runtime does."""
    i, addr = rec
    img = ctx.image
    pv = img.pointer(addr)
    raw = img.read(addr + 8, 8)
    value = pv.value if pv.known else None
    if value is None and pv.symbol:
        value = img.symbol_address(pv.symbol)
    if value is None or raw is None or value == 0:
        return True
    p = ctx.entries.get(value)
    if p is None:
        what = f"function record #{i} names 0x{value:x}"
        ctx.report(addr, f"{what}, not the entry of a registered patchable function", i)
        return False
    flags = int.from_bytes(raw[:4], "little")
    counts = fn_record_vec_regs_ppc64le(flags) if ctx.ppc64le else (fn_record_vec_regs(flags), None)
    if counts[0] is None:
        what = f"function record #{i} has flags 0x{flags:x}"
        limits = "1..13 (f1-f13) and 0..12 (v2-v13), not both 0" if ctx.ppc64le else "1..8"
        ctx.report(addr, f"{what}: a vector register count not in {limits}", i)
        return False
    ints = fn_record_int_regs(flags, ctx.int_arg_regs)
    if ints is None:
        what = f"function record #{i} has flags 0x{flags:x}"
        n_int = flags >> abi.DYNCALL_FN_REC_INT_SHIFT & abi.DYNCALL_FN_REC_INT_MASK
        if n_int > ctx.int_arg_regs:
            why = f"an integer register count {n_int} not in 0..{ctx.int_arg_regs}"
        else:
            why = "an integer register count on a variadic function"
        ctx.report(addr, f"{what}: {why}", i)
        return False
    if flags & abi.DYNCALL_FN_REC_INT_X8 and not ctx.x8:
        what = f"function record #{i} has flags 0x{flags:x}"
        ctx.report(addr, f"{what}: DYNCALL_FN_REC_INT_X8 (aarch64's x8) on {ctx.image_arch}", i)
        return False
    if flags & abi.DYNCALL_FN_REC_NO_VEC:
        p.no_vec = True
    p.vec_regs, p.vec2_regs = counts
    p.int_regs = ints
    p.int_x8 = ints is not None and bool(flags & abi.DYNCALL_FN_REC_INT_X8)
    p.vec_width = 16
    if flags & abi.DYNCALL_FN_REC_VEC_ZMM:
        p.vec_width = 64
    elif flags & abi.DYNCALL_FN_REC_VEC_YMM:
        p.vec_width = 32
    p.variadic = bool(flags & abi.DYNCALL_FN_REC_VARIADIC)
    return True


def fn_record_vec_regs(flags: int) -> int | None:
    """The vector argument registers a record's flags say the function
    uses (abi.h enum dyncall_fn_record_flags): 0 with NO_VEC, n with
    VEC_COUNT, 8 (the runtime's default) with neither; None when the
    record is malformed (NO_VEC with VEC_COUNT, n not in 1..8)."""
    n = flags >> abi.DYNCALL_FN_REC_VEC_SHIFT & abi.DYNCALL_FN_REC_VEC_MASK
    if flags & abi.DYNCALL_FN_REC_VEC_COUNT:
        if flags & abi.DYNCALL_FN_REC_NO_VEC or not 1 <= n <= abi.DYNCALL_X86_64_VEC_ARG_REGS:
            return None
        return n
    return 0 if flags & abi.DYNCALL_FN_REC_NO_VEC else abi.DYNCALL_X86_64_VEC_ARG_REGS


def fn_record_int_regs(flags: int, limit: int) -> int | None:
    """The integer argument registers a record's flags say the function
    receives (abi.h DYNCALL_FN_REC_INT_COUNT): n, or ``limit`` (every
    one, the runtime's default) without the flag; None when the record is
    malformed (n above ``limit``, the arch's count; the flag on a variadic
    function: the runtime then saves every register)."""
    if not flags & abi.DYNCALL_FN_REC_INT_COUNT:
        return limit
    n = flags >> abi.DYNCALL_FN_REC_INT_SHIFT & abi.DYNCALL_FN_REC_INT_MASK
    if n > limit or flags & abi.DYNCALL_FN_REC_VARIADIC:
        return None
    return n


def fn_record_vec_regs_ppc64le(flags: int) -> tuple[int | None, int | None]:
    """ppc64le: the floating-point (f1..) and vector (v2..) argument
    registers a record's flags say the function uses: (0, None) with
    NO_VEC; (n, m) with VEC_COUNT and VEC2_COUNT (n 0-13, m 0-12, not both
    0), (n, None) with VEC_COUNT alone (n 1-13: every vector register
    saved); (13, None), the runtime's default, with neither; (None, None)
    when malformed."""
    n = flags >> abi.DYNCALL_FN_REC_VEC_SHIFT & abi.DYNCALL_FN_REC_VEC_MASK
    m = flags >> abi.DYNCALL_FN_REC_VEC2_SHIFT & abi.DYNCALL_FN_REC_VEC2_MASK
    count, count2 = abi.DYNCALL_FN_REC_VEC_COUNT, abi.DYNCALL_FN_REC_VEC2_COUNT
    if flags & abi.DYNCALL_FN_REC_NO_VEC:
        return (None, None) if flags & (count | count2) else (0, None)
    if not flags & count:
        return (None, None) if flags & count2 else (abi.DYNCALL_PPC64LE_FPR_ARG_REGS, None)
    if not flags & count2:
        return (n, None) if 1 <= n <= abi.DYNCALL_PPC64LE_FPR_ARG_REGS else (None, None)
    if n > abi.DYNCALL_PPC64LE_FPR_ARG_REGS or m > abi.DYNCALL_PPC64LE_VR_ARG_REGS or not n + m:
        return None, None
    return n, m


def check_fn_records(an: Analysis) -> None:
    """Run the DC066 rules on __dyncall_fn_records (abi.h struct
    dyncall_fn_record, 16 bytes), if the image has it, after the
    __patchable_function_entries records; flags ``no_vec`` on the
    prologues they name."""
    img = an.image
    sec = find_table(img, abi.DYNCALL_FN_RECORDS_SECTION, abi.FN_RECORD_SIZE, 8)
    if sec is None:
        return
    entries = {p.function: p for p in an.prologues if p.function is not None and p.state == "ok"}
    arch = an.backend.name
    ctx = FnRecordContext(
        img, an.diagnostics, entries, INT_ARG_REGS[arch], arch == "ppc64le", arch == "aarch64", arch
    )
    if not RULES.diagnose("fn-record-table", ctx, sec):
        return
    for i in range(sec.size // abi.FN_RECORD_SIZE):
        RULES.diagnose("fn-record", ctx, (i, sec.addr + i * abi.FN_RECORD_SIZE))


def _owned(an: Analysis) -> tuple[list[int], list[int]]:
    """Sorted starts and running maximum ends of every trampoline (with its
    padding), site and labelled site's NOP padding (relax rewrites it) of
    the dyncall tables."""
    be = an.backend
    pad, n = be.tramp_pad, be.site_size
    cols = an.columns
    if cols is not None:
        lab = (cols.site != 0) & (cols.func != 0)
        ps, pl = cols.hooks.nop_paddings(cols.facts, cols.site[lab], cols.func[lab])
        starts = (cols.tramp - pad).tolist() + cols.c_addr.tolist() + ps[pl > 0].tolist()
        ends = (cols.tramp + cols.tramp_size.clip(min=n)).tolist() + (cols.c_addr + cols.c_len).tolist()
        ends += (ps + pl)[pl > 0].tolist()
    else:
        starts, ends = [], []
        for info in an.sites:
            t = info.tramp
            if t is not None:
                starts.append(info.entry.tramp - pad)
                ends.append(info.entry.tramp + max(t.size, n))
            for b in info.callers:
                starts.append(b.addr)
                ends.append(b.addr + b.length)
            if info.stream is not None and (sp := be.nop_padding(info.stream, info.entry.site)) is not None:
                starts.append(sp[0])
                ends.append(sp[0] + sp[1])
    order = sorted(range(len(starts)), key=starts.__getitem__)
    return [starts[i] for i in order], list(itertools.accumulate((ends[i] for i in order), max))
