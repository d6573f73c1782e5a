"""``relax``: same-size rewrites of a checked image.

1. Fill ``site`` of entries the compiler could not label (Clang) when
   exactly one verified call/jmp of the entry's kind reaches the trampoline.
   ``func`` stays 0: that marks the site as found by the rewriter (not
   aligned by the compiler), which check and the runtime rely on.
2. Canonicalize the NOP padding before compiler-labelled sites to the arch's
   minimal NOP sequence of the same length.
3. Pre-resolve link-time-known targets: for const keys (and, with
   ``resolve_initializers``, non-const, non-escaping keys of FRESH sites)
   whose value is known from the file, point the trampoline's patchable
   branch -- and the site itself when known -- straight at the target, and
   set DYNCALL_SITE_RESOLVED in the entry.

Every write is checked against the bytes it replaces, and the result is
verified before it is returned: incrementally (``_verify_incremental``: the
entries relax wrote are re-checked on the output bytes, every canonical NOP
run must decode to exactly the run it replaced, and no write may touch
bytes another entry's check depends on), or, when that cannot be proven,
by a full ``check`` of the output.  The test suite runs the full ``check``
on relax's output of every test binary.
"""

from __future__ import annotations

import bisect
import itertools
import struct
from dataclasses import dataclass, field

import numpy as np

from dyncall_rewrite import abi, landing
from dyncall_rewrite.arch import Backend, Branch, CodeFacts, Trampoline
from dyncall_rewrite.check import check
from dyncall_rewrite.columns import ColumnRelax, Writes, relax_columns
from dyncall_rewrite.elf import PF_X, Image, section
from dyncall_rewrite.errors import CheckFailedError, InternalError
from dyncall_rewrite.model import Analysis, SiteInfo

_I32 = struct.Struct("<i")
_U16 = struct.Struct("<H")


@dataclass(slots=True)
class Patch:
    addr: int
    old: bytes
    new: bytes
    what: str  # "site-field", "padding", "trampoline", "site", "flags"


@dataclass
class RelaxResult:
    data: bytearray
    _patches: list[Patch] = field(default_factory=list)
    filled: int = 0
    padding: int = 0
    resolved: int = 0
    analysis: Analysis | None = None
    verified: str = ""  # "incremental" or "full" (how the output was verified)
    _writes: Writes | None = None  # the columnar path's writes (patches built on demand)

    @property
    def patches(self) -> list[Patch]:
        if self._writes is not None and not self._patches:
            self._patches = [Patch(a, o, nw, w) for _e, _k, a, o, nw, w in self._writes.patches()]
        return self._patches

    @property
    def write_count(self) -> int:
        return self._writes.count() if self._writes is not None else len(self._patches)

    @property
    def changed(self) -> bool:
        return self.write_count > 0


@dataclass(slots=True)
class RelaxOptions:
    fill_sites: bool = True
    canonicalize_padding: bool = True
    resolve: bool = True
    resolve_initializers: bool = False


def relax(img: Image, opts: RelaxOptions | None = None, analysis: Analysis | None = None) -> RelaxResult:
    """Relax ``img``.  ``analysis`` (check's result for ``img``) is reused
    and updated in place: on return it describes the output
    (``RelaxResult.analysis``)."""
    opts = opts or RelaxOptions()
    an = analysis or check(img)
    if an.errors:
        first = an.errors[0]
        an.symbolize(with_lines=False)
        raise CheckFailedError(
            f"input does not pass check ({len(an.errors)} problem(s); first:"
            f" {first.format(img.path).split(': ', 1)[1]})",
            path=img.path,
        )
    if an.columns is not None:
        try:
            got = _relax_columns(img, an, opts)
        except OverflowError:
            got = None  # a value beyond int64: the object path
        if got is not None:
            return got
        an = check(img, an.backend, columns=False)  # the object path, from scratch
    res = RelaxResult(bytearray(img.data))
    w = _ObjectWrites(img, an, res, opts)
    for info in an.sites:
        if info.valid and info.tramp is not None:
            w.entry(info)
    if not res.patches:
        res.analysis = an
        return res
    return _verified(img, an, res, w)


class _ObjectWrites:
    """The object path's writes, entry by entry (in the table's order)."""

    def __init__(self, img: Image, an: Analysis, res: RelaxResult, opts: RelaxOptions) -> None:
        self.img, self.an, self.res, self.opts, self.be = img, an, res, opts, an.backend
        # [func, site) of every labelled site: a padding rewrite is only safe
        # for decodes that start at its own function (see _decoded_elsewhere).
        self.spans = sorted(
            (i.entry.func, i.entry.site) for i in an.sites if i.valid and i.entry.site and i.entry.func
        )
        self.reach = list(itertools.accumulate((sp[1] for sp in self.spans), max))
        live = [i for i in an.sites if i.valid and i.tramp is not None]
        self.owned = _owned_ranges(self.be, live)
        self.link_targets = sorted({i.target for i in live if i.target is not None})
        self.tramp_addrs = {i.entry.tramp for i in live}
        self.touched: dict[int, SiteInfo] = {}  # entries written, by index
        self.resolved: set[int] = set()  # indexes of the entries resolved here
        self.pads: list[tuple[int, int]] = []  # NOP runs rewritten: (start, length)
        self.canon: dict[int, bytes] = {}  # canonical_nops(n), by n

    def entry(self, info: SiteInfo) -> None:
        img, res, opts, be, e = self.img, self.res, self.opts, self.be, info.entry
        if opts.fill_sites and not e.site and be.patches_sites and _fill_site(img, res, info):
            self.touched[e.index] = info
        if opts.canonicalize_padding and e.site and e.func and info.stream is not None:
            self.padding(info)
        if (
            opts.resolve
            and not e.flags & abi.DYNCALL_SITE_RESOLVED
            and _resolvable(info, opts)
            and info.target not in self.tramp_addrs
            and _resolve(img, self.an, res, info)
        ):
            self.touched[e.index] = info
            self.resolved.add(e.index)

    def padding(self, info: SiteInfo) -> None:
        """The NOP run before a labelled site becomes the canonical NOPs of
        its length, unless something may enter or decode it otherwise."""
        be, e = self.be, info.entry
        assert info.stream is not None
        pad = be.nop_padding(info.stream, e.site)
        if pad is None:
            return
        start, length = pad
        new = self.canon.get(length)
        if new is None:
            new = self.canon[length] = be.canonical_nops(length)
        old = self.img.read(start, length)
        if (
            old is not None
            and old != new
            and not any(start < t < start + length for t in be.branch_targets(info.stream))
            and not _decoded_elsewhere(self.spans, self.reach, start, length, e.func)
            and not self.owned.overlaps(start, start + length)
            and not _inside(self.link_targets, start, start + length)
        ):
            _write(self.img, self.res, start, old, new, "padding")
            self.res.padding += 1
            self.pads.append((start, length))


def _verified(img: Image, an: Analysis, res: RelaxResult, w: _ObjectWrites) -> RelaxResult:
    """The output proven to pass check: incrementally when the writes stay
    inside what each entry owns, else by the full check."""
    out = img.with_data(res.data)
    be2 = type(an.backend)(out)
    if _verify_incremental(img, out, be2, an, res, list(w.touched.values()), w.resolved, w.pads):
        res.verified = "incremental"
        res.analysis = an
        return res
    an2 = check(out, be2, reuse=an)
    res.verified = "full"
    if an2.errors:
        an2.symbolize(with_lines=False)
        raise InternalError(
            "relaxed image fails check (not written): " + an2.errors[0].format(img.path).split(": ", 1)[1],
            path=img.path,
        )
    res.analysis = an2
    return res


def _relax_columns(img: Image, an: Analysis, opts: RelaxOptions) -> RelaxResult | None:
    """relax over columns (columns.relax_columns), its output proven by
    the columnar check of the output bytes, reusing the input's decode
    where no instruction changed; None: use the object path."""
    cr = relax_columns(img, an, opts)
    if cr is None:
        return None
    res = RelaxResult(cr.data, filled=cr.filled, padding=cr.padding, resolved=cr.resolved, _writes=cr.writes)
    if not res.changed:
        res.analysis = an
        return res
    be = an.backend
    out = img.with_data(cr.data)
    be2 = type(be)(out)
    facts = _output_facts(img, an, cr)
    if facts is not None:
        an2 = check(out, be2, facts=facts)
        if an2 is not None and _as_expected(an, an2, cr):
            vars(an).update(vars(an2))  # ``analysis`` now describes the output
            res.analysis, res.verified = an, "incremental"
            return res
    an2 = check(out, be2, columns=False)
    if an2.errors:
        an2.symbolize(with_lines=False)
        raise InternalError(
            "relaxed image fails check (not written): " + an2.errors[0].format(img.path).split(": ", 1)[1],
            path=img.path,
        )
    vars(an).update(vars(an2))
    res.analysis, res.verified = an, "full"
    return res


def _output_facts(img: Image, an: Analysis, cr: ColumnRelax) -> CodeFacts | None:
    """The instruction boundaries of relax's output, from the input's
    decode: valid when every code write leaves the instruction boundaries
    unchanged (ColumnHooks.rewrite_keeps_decode: x86-64, inside the operand
    of a decoded ``call``/``jmp`` rel32, the trampolines' and sites'
    branches) or replaces a whole NOP run by bytes that decode to whole
    instructions covering exactly that run; table writes must not be code
    (ColumnHooks.table_writes_keep_decode)."""
    cols = an.columns
    assert cols is not None
    facts = cols.facts
    sec = section(img, abi.DYNCALL_SITES_SECTION)
    if sec is None:
        return None
    for seg in img.segments:
        if seg.flags & PF_X and seg.vaddr < sec.addr + sec.size and sec.addr < seg.end:
            table: list[tuple[np.ndarray, ...]] = [
                (r[3], r[4], r[5]) for r in cr.writes.rows if r[0] in ("site-field", "flags")
            ]
            if not cols.hooks.table_writes_keep_decode(facts, table):
                return None
            break
    a = facts.insns["address"].astype(np.int64)
    sz = facts.insns["size"].astype(np.int64)
    for what, _o, _e, addr, old, new in cr.writes.rows:
        if what in ("site-field", "flags"):
            continue
        if what == "padding":
            continue  # whole NOP instructions of the decode (columns._paddings)
        if not cols.hooks.rewrite_keeps_decode(facts, addr, old, new):
            return None
    # No decoded instruction may run into a rewritten run from before it
    # (its bytes would change).
    if cr.runs:
        st = np.array([r[0] for r in cr.runs], np.int64)
        j = np.searchsorted(a, st, side="left") - 1
        jj = np.maximum(j, 0)
        if len(a) and ((j >= 0) & (a[jj] + sz[jj] > st)).any():
            return None
    decoded: dict[int, np.ndarray] = {}
    for _s0, n in cr.runs:
        if n not in decoded:
            d = cols.hooks.decode_bytes(an.backend.canonical_nops(n), 0)
            if d is None:
                return None
            decoded[n] = d
    # The branch targets relax changed are not tracked: the output's
    # analysis answers instruction boundaries only (a later relax on it
    # that needs branch targets takes the object path).
    return facts.replaced(cr.runs, decoded).without_branches()


def _as_expected(an: Analysis, an2: Analysis, cr: ColumnRelax) -> bool:
    """The output's columns say what relax meant to write, and nothing else moved."""
    c1, c2 = an.columns, an2.columns
    if c1 is None or c2 is None or c1.n != c2.n:
        return False
    res = (cr.expect_flags & abi.DYNCALL_SITE_RESOLVED != 0) & (c1.flags & abi.DYNCALL_SITE_RESOLVED == 0)
    return bool(
        (c2.site == cr.expect_site).all()
        and (c2.flags == cr.expect_flags).all()
        and (c2.tramp == c1.tramp).all()
        and (c2.keycell == c1.keycell).all()
        and (c2.func == c1.func).all()
        and (c2.branch == np.where(res, c1.target, c1.branch)).all()
        and np.array_equal(c2.c_entry, c1.c_entry)
        and np.array_equal(c2.c_addr, c1.c_addr)
        and np.array_equal(c2.c_op, c1.c_op)
    )


def _verify_incremental(
    img: Image,
    out: Image,
    be2: Backend,
    an: Analysis,
    res: RelaxResult,
    touched: list[SiteInfo],
    resolved: set[int],
    pads: list[tuple[int, int]],
) -> bool:
    """Prove that ``out`` passes check from ``an`` (the analysis of
    ``img``, which passed) and the writes relax made, re-checking only what
    was written; on success update ``an`` to describe ``out``.  False when
    it cannot be proven this way (then the caller runs the full check).

    1. Isolation: every write is inside what its own entry owns -- its
       __dyncall_sites entry (fields ``site``/``flags``), its trampoline, its
       site -- or is a NOP run of a labelled site's function; none touches
       a table section, a key cell or a key, or another entry's trampoline
       or site.  Every other entry's check read only bytes that are
       unchanged, so its result stands.
    2. The written entries are re-checked on the output bytes with the
       fast-path rules of check (entry fields, trampoline template and
       branch target, site instruction and target).
    3. Every rewritten NOP run decodes to whole instructions covering
       exactly the run it replaced ([start, site)), so the instruction
       boundaries check verified from each function start are unchanged.
    """
    if not _isolated(img, be2, an, res, touched, pads):
        return False
    got = _rechecked(out, be2, an, res, touched, resolved)
    if got is None or not _nop_runs(out, be2, res, pads):
        return False
    new_flags, res_infos, tramps2, sites2 = got
    # Proven: the analysis now describes the output.
    for info, flags in zip(touched, new_flags, strict=True):
        info.entry.flags = flags
    for info, t2, b2 in zip(res_infos, tramps2, sites2, strict=True):
        info.tramp = t2
        if b2 is not None:
            info.callers = [b2]
    an.image, an.backend = out, be2
    for info in an.sites:
        info.stream = None  # decoded from the input's bytes
    return True


def _isolated(
    img: Image,
    be2: Backend,
    an: Analysis,
    res: RelaxResult,
    touched: list[SiteInfo],
    pads: list[tuple[int, int]],
) -> bool:
    """Step 1 of _verify_incremental: every write inside what its entry owns."""
    sec = section(img, abi.DYNCALL_SITES_SECTION)
    if sec is None:
        return False
    t0, t1 = sec.addr, sec.addr + sec.size
    ksec = section(img, abi.DYNCALL_KEYS_SECTION)
    k0, k1 = (ksec.addr, ksec.addr + ksec.size) if ksec is not None else (0, 0)
    for seg in img.segments:
        if seg.flags & PF_X and seg.vaddr < t1 and t0 < seg.end:
            return False  # the table shares bytes with code
    # Byte ranges other entries' checks depend on, with their owner.
    ivs: list[tuple[int, int, int]] = []
    for k in an.keys.values():
        ivs.append((k.cell, k.cell + 8, -1))
        if k.address.known:
            ivs.append((k.address.value, k.address.value + 8, -1))
    pad_before, n_site = be2.tramp_pad, be2.site_size
    valid = [i for i in an.sites if i.valid]
    ivs += [
        (tr.addr - pad_before, tr.addr + (tr.size if tr.size > n_site else n_site), i.entry.index)
        for i in valid
        if (tr := i.tramp) is not None
    ]
    ivs += [(b.addr, b.addr + b.length, i.entry.index) for i in valid for b in i.callers]
    guard = _Intervals(ivs)
    if guard.hits(t0, t1, None) or (k1 > k0 and guard.hits(k0, k1, None)):
        return False  # a key, trampoline or site inside a table
    entry_at = {i.entry.addr: i for i in touched}
    owner = {
        "trampoline": {i.entry.tramp: i.entry.index for i in touched},
        "site": {i.entry.site: i.entry.index for i in touched if i.entry.site},
    }
    pad_set = set(pads)
    for p in res.patches:
        a, b = p.addr, p.addr + len(p.new)
        if p.what in ("site-field", "flags"):
            off = abi.SITE_OFF_SITE if p.what == "site-field" else abi.SITE_OFF_FLAGS
            if not (t0 <= a and b <= t1) or (a - off) not in entry_at:
                return False
            continue
        if (a < t1 and t0 < b) or (a < k1 and k0 < b):
            return False
        if p.what == "padding":
            if (a, len(p.new)) not in pad_set or guard.hits(a, b, None):
                return False
        elif p.what in ("trampoline", "site"):
            ix = owner[p.what].get(a)
            if ix is None or guard.hits(a, b, ix):
                return False
        else:
            return False
    return True


def _rechecked(
    out: Image, be2: Backend, an: Analysis, res: RelaxResult, touched: list[SiteInfo], resolved: set[int]
) -> tuple[list[int], list[SiteInfo], list[Trampoline | None], list[Branch | None]] | None:
    """Step 2 of _verify_incremental; None when an entry fails.  Returns
    (new flags of the touched entries, the resolved entries, their
    trampolines and sites read back)."""
    # 2. Re-check the written entries on the output bytes: every written
    # table entry; the trampoline and site of every resolved entry (a
    # filled entry's site is the caller check verified, bytes unchanged).
    data = res.data
    RES = abi.DYNCALL_SITE_RESOLVED
    unpack = abi.SITE_ENTRY.unpack_from
    new_flags: list[int] = []
    for info in touched:
        e = info.entry
        eoff = out.offset(e.addr, abi.SITE_ENTRY_SIZE)
        if eoff is None:
            return None
        f_site, f_tramp, f_key, f_func, version, kind, flags = unpack(data, eoff)
        a = e.addr
        want_flags = e.flags | RES if e.index in resolved else e.flags
        if (
            (a + f_site if f_site else 0, a + 4 + f_tramp if f_tramp else 0) != (e.site, e.tramp)
            or (a + 8 + f_key if f_key else 0, a + 12 + f_func if f_func else 0) != (e.keycell, e.func)
            or (version, kind, flags) != (e.version, e.kind, want_flags)
        ):
            return None
        if e.site and [c.addr for c in info.callers] != [e.site]:
            return None
        new_flags.append(flags)
    res_infos = [i for i in touched if i.entry.index in resolved]
    # A resolved branch must not create a new caller of a trampoline (the
    # full check discovers callers of unfilled entries by their target).
    tramp_addrs = {i.tramp.addr for i in an.sites if i.tramp is not None}
    if any(i.target in tramp_addrs for i in res_infos):
        return None
    thunk = out.symbol_address(abi.DYNCALL_RETPOLINE_THUNK)
    tramps2 = be2.trampolines_fast([i.entry.tramp for i in res_infos], thunk)
    sites2 = be2.sites_fast([i.entry.site for i in res_infos])
    site_ops = {1: be2.site_op(1), 2: be2.site_op(2)}
    for info, t2, b2 in zip(res_infos, tramps2, sites2, strict=True):
        e, t = info.entry, info.tramp
        assert t is not None
        if t2 is None or (t2.size, t2.slow, t2.slow_target, t2.unpatched_target) != (
            t.size,
            t.slow,
            t.slow_target,
            t.unpatched_target,
        ):
            return None
        if info.target is None or t2.branch_target != info.target or not out.is_exec(info.target):
            return None
        if e.site and (
            b2 is None
            or b2.op != site_ops[e.kind]
            or b2.target not in (e.tramp, t2.branch_target)
            or info.callers[0].length != b2.length
        ):
            return None
    return new_flags, res_infos, tramps2, sites2


def _nop_runs(out: Image, be2: Backend, res: RelaxResult, pads: list[tuple[int, int]]) -> bool:
    """Step 3 of _verify_incremental: NOP runs are whole instructions
    covering exactly [start, start+n).  Every run of n bytes was written as
    canonical_nops(n); decoding does not depend on the address, so one
    decode per distinct run proves all."""
    if not pads:
        return True
    data = res.data
    first: dict[int, int] = {}
    canon: dict[int, bytes] = {}
    for s0, n in pads:
        o = out.offset(s0, n)
        c = canon.get(n)
        if c is None:
            c = canon[n] = be2.canonical_nops(n)
        if o is None or data[o : o + n] != c:
            return False
        first.setdefault(n, s0)
    return all(st.ok and st.insns for st in be2.decode_ranges([(s0, s0 + n) for n, s0 in first.items()]))


class _Intervals:
    """Byte ranges [start, end) with an owner; ``hits`` asks whether any
    range of another owner intersects [a, b) (conservatively True when
    too many ranges would have to be scanned)."""

    def __init__(self, items: list[tuple[int, int, int]]) -> None:
        items.sort()
        self.items = items
        self.starts = [it[0] for it in items]
        self.reach = list(itertools.accumulate((it[1] for it in items), max))

    def hits(self, a: int, b: int, own: int | None) -> bool:
        k = bisect.bisect_left(self.starts, b) - 1
        budget = 64
        while k >= 0 and self.reach[k] > a:
            _s0, e0, o = self.items[k]
            if e0 > a and o != own:
                return True
            budget -= 1
            if not budget:
                return True
            k -= 1
        return False


class _Ranges:
    """Byte ranges [start, end) sorted by start, with the running maximum
    of their ends: does any of them overlap [a, b)?  Exact for any ranges
    (columns._paddings asks the same question over columns)."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        ranges.sort()
        self.starts = [r[0] for r in ranges]
        self.reach = list(itertools.accumulate((r[1] for r in ranges), max))

    def overlaps(self, a: int, b: int) -> bool:
        k = bisect.bisect_left(self.starts, b)
        return k > 0 and self.reach[k - 1] > a


def _owned_ranges(be: Backend, live: list[SiteInfo]) -> _Ranges:
    """What entries own in the code: every trampoline (with its padding)
    and every site or caller instruction (check's overlap intervals).  A
    NOP run overlapping one is not rewritten: that byte belongs to (or is
    the operand of) an instruction another write may change."""
    n = be.site_size
    out = [
        (i.entry.tramp - be.tramp_pad, i.entry.tramp + max(i.tramp.size, n))
        for i in live
        if i.tramp is not None
    ]
    out += [(b.addr, b.addr + b.length) for i in live for b in i.callers]
    return _Ranges(out)


def _straddles(img: Image, addr: int, n: int) -> bool:
    """Does a function symbol start inside the instruction [addr, addr+n)?
    Its bytes are then also that function's code, decoded from there: a
    write would change it (the object and columnar paths both refuse)."""
    fs = img.func_starts
    k = bisect.bisect_right(fs, addr)
    return k < len(fs) and fs[k] < addr + n


def _inside(sorted_values: list[int], a: int, b: int) -> bool:
    """Does a value lie strictly inside (a, b)?  (A key's link-time value
    inside a NOP run is a branch target there once resolved.)"""
    k = bisect.bisect_right(sorted_values, a)
    return k < len(sorted_values) and sorted_values[k] < b


def _decoded_elsewhere(spans: list[tuple[int, int]], reach: list[int], addr: int, n: int, func: int) -> bool:
    """Does the decode range [f, site) of another labelled site, from a
    function start ``f != func``, overlap the NOP run [addr, addr+n)?  That
    site's boundary check decodes across the run from another start (e.g. a
    corrupted ``func``, possibly inside the run), where the run's NOPs need
    not be instruction-aligned: rewriting them could move its boundary.
    ``reach[k]`` is the largest site of spans[:k+1] (stops the scan)."""
    k = bisect.bisect_left(spans, (addr + n,)) - 1
    while k >= 0 and reach[k] > addr:
        f, site = spans[k]
        if f != func and addr < site:
            return True
        k -= 1
    return False


def _write(
    img: Image, res: RelaxResult, addr: int, old: bytes, new: bytes, what: str, off: int | None = None
) -> None:
    """Replace ``old`` by ``new`` at ``addr`` (file offset ``off`` when the
    caller already has ``img.offset(addr, len(new))``)."""
    n = len(new)
    if off is None:
        off = img.offset(addr, n)
    data = res.data
    if off is None or len(old) != n or data[off : off + n] != old:
        raise InternalError(f"bytes at 0x{addr:x} changed under relax", path=img.path)
    data[off : off + n] = new
    res.patches.append(Patch(addr, old, new, what))


def _fill_site(img: Image, res: RelaxResult, info: SiteInfo) -> bool:
    e = info.entry
    want = "call" if info.site_kind == abi.DYNCALL_KIND_CALL else "jmp"
    if len(info.callers) != 1 or e.func:
        # func != 0 would make the filled site look compiler-labelled
        # (aligned by the compiler); leave such an entry to the runtime.
        return False
    b = info.callers[0]
    if b.op != want or not b.patchable:
        return False
    field_addr = e.addr + abi.SITE_OFF_SITE
    rel = b.addr - field_addr
    if not -(2**31) <= rel < 2**31:
        return False
    _write(img, res, field_addr, _I32.pack(0), _I32.pack(rel), "site-field")
    e.site = b.addr
    res.filled += 1
    return True


def _resolvable(info: SiteInfo, opts: RelaxOptions) -> bool:
    e = info.entry
    if info.target is None or info.key is None:
        return False
    if e.kind == abi.DYNCALL_KIND_COND:
        return False  # the runtime keeps a conditional site's NOP/call (docs/hooks.md)
    if e.flags & abi.DYNCALL_SITE_TYPE_KEY or info.key_flags & abi.DYNCALL_KEY_TYPE:
        return False
    if info.key_flags & abi.DYNCALL_KEY_CONST:
        return True
    return (
        opts.resolve_initializers
        and not info.key_flags & abi.DYNCALL_KEY_ESCAPES
        and bool(e.flags & abi.DYNCALL_SITE_FRESH)
    )


def _resolve(img: Image, an: Analysis, res: RelaxResult, info: SiteInfo) -> bool:
    be = an.backend
    e = info.entry
    target = info.target
    assert target is not None and info.tramp is not None
    if not img.is_exec(target) or not landing.target_ok(img, e.flags, target):
        return False
    tramp_new = be.encode_branch("jmp", e.tramp, target)
    if tramp_new is None or _straddles(img, e.tramp, len(tramp_new)):
        return False
    site_new = None
    if e.site and be.patches_sites:
        op = be.site_op(e.kind)
        site_new = be.encode_branch(op, e.site, target)
        if site_new is None or _straddles(img, e.site, len(site_new)):
            return False
    n = len(tramp_new)
    toff = img.offset(e.tramp, n)
    assert toff is not None
    # Data first (flag), then code: the file is written at once anyway.
    fl = e.addr + abi.SITE_OFF_FLAGS
    _write(img, res, fl, _U16.pack(e.flags), _U16.pack(e.flags | abi.DYNCALL_SITE_RESOLVED), "flags")
    _write(img, res, e.tramp, bytes(res.data[toff : toff + n]), tramp_new, "trampoline", toff)
    if site_new is not None:
        off = img.offset(e.site, n)
        assert off is not None
        cur = bytes(res.data[off : off + n])
        if cur != site_new:
            _write(img, res, e.site, cur, site_new, "site", off)
    res.resolved += 1
    return True
